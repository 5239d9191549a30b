// @ts-nocheck (a service worker's globals are not the page's; tests/solo.test.mjs drives it in Chromium)
/**
 * The service worker: the page installable and solo practice offline. Served at /sw.js (the
 * server's router), so its scope is the whole site.
 *
 * - Install: the app shell (`/`, and every stylesheet and module index.html links, read from
 *   index.html itself so a new module cannot be missed) goes into the cache named by VERSION:
 *   the files the page has just loaded, so the browser's HTTP cache answers most of them.
 * - Message `keep-solo` (the solo screen sends it when it opens): solo practice's files (its
 *   screen, logic, stylesheet and the puzzle bank, some 25 KB compressed) go into the cache too.
 *   A first visit that never opens solo never downloads them; one that does can play it offline.
 * - Fetch: network first for `/` and `/assets/…` (the copy fetched replaces the cached one; the
 *   cache answers only when the network fails), so an online page never runs stale code and a
 *   new deploy is picked up by the next load. Nothing else is touched: `/api/`, `/ws`, invite
 *   links `/r/CODE` (a room code), `/healthz`, any other host and any non-GET go straight to the
 *   network and are never cached.
 * - Activate: caches of other versions are deleted. Bump VERSION when what install caches changes.
 */

const VERSION = 'sudoku-race-v1';

/** Solo practice's files, beyond what index.html links. */
const SOLO = ['/assets/screens/solo.js', '/assets/solo.js', '/assets/solo.css', '/assets/solo/bank.json', '/assets/manifest.webmanifest'];

/** Whether the worker handles a request: a same-origin GET of `/` or of a file under `/assets/`. */
function ours(request) {
  if (request.method !== 'GET') return false;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return false;
  return (url.pathname === '/' && url.search === '') || url.pathname.startsWith('/assets/');
}

/** The shell: `/` and what its index.html links (stylesheets, module preloads, icon, script). */
async function shell() {
  const res = await fetch('/', { cache: 'no-cache' });
  const html = await res.text();
  const linked = [...html.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  return ['/', ...linked];
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(VERSION);
      // No duplicates: addAll refuses a list that names a request twice.
      const urls = [...new Set(await shell())];
      await cache.addAll(urls.map((u) => new Request(u, { cache: 'no-cache' })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('message', (event) => {
  if (event.data !== 'keep-solo') return;
  event.waitUntil(
    (async () => {
      const cache = await caches.open(VERSION);
      await cache.addAll(SOLO.map((u) => new Request(u, { cache: 'no-cache' })));
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== VERSION) await caches.delete(name);
    })(),
  );
});

/** Network first; the cache when the network fails. */
async function networkFirst(request) {
  const key = new URL(request.url).pathname;
  try {
    const res = await fetch(request);
    if (res.ok && res.type === 'basic') {
      const copy = res.clone();
      caches.open(VERSION).then((c) => c.put(key, copy)).catch(() => {});
    }
    return res;
  } catch (e) {
    // One copy per path: a `Vary: Accept-Encoding` (precompressed assets) must not hide it.
    const hit = await caches.match(key, { cacheName: VERSION, ignoreVary: true });
    if (hit) return hit;
    throw e;
  }
}

self.addEventListener('fetch', (event) => {
  if (ours(event.request)) event.respondWith(networkFirst(event.request));
});
