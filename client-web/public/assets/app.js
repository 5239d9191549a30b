// @ts-check
/**
 * The page's entry, index.html's one script: it hands the browser's socket, storage, address
 * bar, clock, timer and DOM to `createApp` (control.js, the page's logic) and starts it. Whatever
 * decides something lives in control.js, which tests/unit/ drives in Node without a browser;
 * view.js draws the screens.
 *
 * What `/` needs is imported statically (and preloaded by index.html); the read-only pages a
 * first visit does not need are imported by view.js when their route opens (not preloaded).
 */

import { api, Link, wsUrl } from './wire.js';
import { createApp } from './control.js';
import { createView } from './view.js';
import { applyTheme, savedTheme } from './dom.js';

// Getters: a browser with storage off throws when it is touched, inside the app's guard.
const storage = {
  get session() {
    return sessionStorage;
  },
  get local() {
    return localStorage;
  },
};

// The chosen theme before the first screen is drawn (auto needs nothing: style.css follows
// prefers-color-scheme by itself).
applyTheme(savedTheme(storage));

/**
 * Run `f` in `ms`; the answer cancels it.
 * @param {() => void} f
 * @param {number} ms
 */
function after(f, ms) {
  const timer = setTimeout(f, ms);
  return () => clearTimeout(timer);
}

const root = /** @type {HTMLElement} */ (document.getElementById('app'));

/** What the screens use of the browser. @type {import('./view.js').Env} */
const env = {
  now: () => performance.now(),
  mark: (name) => performance.mark(name),
  every: (f, ms) => {
    const timer = setInterval(f, ms);
    return () => clearInterval(timer);
  },
  later: after,
  api: (path) => api(fetch, path),
  get: (url, init) => fetch(url, init),
  storage,
  origin: location.origin,
  copy: (text) => navigator.clipboard.writeText(text),
  keepSolo: () => {
    navigator.serviceWorker?.ready.then((r) => r.active?.postMessage('keep-solo')).catch(() => {});
  },
};

const app = createApp({
  link: (events) => new Link({ url: wsUrl(location), socket: (url) => new WebSocket(url), after, ...events }),
  view: (act) => createView(root, act, env),
  storage,
  location,
  history,
  now: env.now,
  later: after,
});

window.addEventListener('hashchange', () => app.redraw());
setInterval(() => app.tick(), 200);
app.start();

// The service worker (public/sw.js, at /sw.js): installable, and solo practice offline. It is
// registered once the page has loaded, so its downloads never delay the first screen.
if ('serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js').catch(() => {});
  });
}
