// @ts-check
/**
 * Benchmark, not a test: the browser client's first load on loopback. For RUNS fresh browser
 * contexts (empty cache) it records the bytes the page transferred (compressed bodies as the
 * server sent them, headers included: `transferSize`) and uncompressed (`decodedBodySize`), and
 * the time from navigation to (a) the home screen drawn and (b) an interactive lobby after
 * "Create room" (the page's own `performance.mark`s, so no driver round trip is counted). Then,
 * with one stored race (a browser and the terminal bot), for RUNS more fresh contexts it opens
 * `/`, then the pages loaded on demand (`#/leaderboard`, `#/races/ID`): their bytes and the time
 * from the route change to the page drawn, measured in the page. Last it times GET
 * /assets/app.js (keep-alive, one connection) against GET /healthz as the baseline of the same
 * HTTP path. Prints a table of medians. With BENCH_IDENTITY=1 the browser asks for no
 * compression (`Accept-Encoding: identity`): what a server without it would send.
 *
 *   cargo build --release --bin sudoku-race-server --bin sudoku-race
 *   cd client-web && SUDOKU_RACE_PROFILE=release node bench/first-load.mjs [RUNS]
 */

import http from 'node:http';
import { createRoom, launch, newPage, openPrivateRoom, puzzle, resultsTable, solve, solveOnPage, startBot, startServer } from '../tests/support.mjs';

const runs = Number(process.argv[2] ?? 20);

/** @param {number[]} xs */
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
/** @param {number[]} xs @param {number} q */
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

// Every run opens a room from 127.0.0.1, and they stay open a while: lift the per-address cap (20).
const server = await startServer(['--max-rooms-per-ip', String(runs + 10)]);
const browser = await launch();
const identity = process.env.BENCH_IDENTITY === '1';
/** @param {import('playwright-core').Browser} b */
const freshPage = async (b) => {
  const opened = await newPage(b);
  if (identity) await opened.context.setExtraHTTPHeaders({ 'accept-encoding': 'identity' });
  return opened;
};
/** @type {number[]} */ const bytes = [];
/** @type {number[]} */ const requests = [];
/** @type {number[]} */ const homeMs = [];
/** @type {number[]} */ const lobbyMs = [];
/** @type {number[]} */ const wire = [];
/** @type {number[]} */ const dcl = [];
try {
  for (let i = 0; i < runs; i++) {
    const { page, context } = await freshPage(browser);
    await page.goto(`${server.url}/`);
    await page.waitForSelector('[data-testid=play-now]');
    await page.fill('[data-testid=name]', `b${i}`);
    await openPrivateRoom(page);
    await page.evaluate(() =>
      document.querySelector('[data-testid=create]')?.addEventListener('click', () => performance.mark('click:create'), { capture: true }),
    );
    await page.click('[data-testid=create]');
    await page.waitForSelector('[data-testid=ready]');
    await page.waitForLoadState('networkidle');
    const m = await page.evaluate(() => {
      const nav = /** @type {PerformanceNavigationTiming} */ (performance.getEntriesByType('navigation')[0]);
      const res = /** @type {PerformanceResourceTiming[]} */ (performance.getEntriesByType('resource'));
      const mark = (/** @type {string} */ n) => performance.getEntriesByName(n)[0]?.startTime ?? NaN;
      return {
        bytes: nav.decodedBodySize + res.reduce((a, r) => a + r.decodedBodySize, 0),
        wire: nav.transferSize + res.reduce((a, r) => a + r.transferSize, 0),
        requests: 1 + res.length,
        dcl: nav.domContentLoadedEventEnd,
        home: mark('screen:home'),
        lobby: mark('screen:lobby'),
        click: mark('click:create'),
      };
    });
    bytes.push(m.bytes);
    wire.push(m.wire);
    requests.push(m.requests);
    dcl.push(m.dcl);
    homeMs.push(m.home);
    lobbyMs.push(m.lobby - m.click);
    await context.close();
  }

  // One stored race to replay: a browser player and the bot.
  const { page: racer, context: racerContext } = await newPage(browser);
  const code = await createRoom(racer, server.url, 'bench', { difficulty: 'easy' });
  const bot = startBot(server, code, ['--name', 'botty', '--pace-ms', '40']);
  await racer.waitForSelector('[data-testid=players] li:has-text("botty")');
  await racer.click('[data-testid=start]');
  await solveOnPage(racer, solve(await puzzle(racer)));
  await bot.done;
  await resultsTable(racer);
  const href = (await racer.getAttribute('[data-testid=replay-link]', 'href')) ?? '';
  await racerContext.close();

  /**
   * Open `/`, then `hash`; in the page, the time from the route change to `mark` (the page's
   * module in and drawn) and to `ready` (its data drawn), and the bytes fetched after it.
   * @param {string} hash @param {string} mark @param {string} ready
   */
  const openRoute = async (hash, mark, ready) => {
    const { page, context } = await freshPage(browser);
    await page.goto(`${server.url}/`);
    await page.waitForSelector('[data-testid=play-now]');
    await page.waitForLoadState('networkidle');
    const m = await page.evaluate(([hash, mark, ready]) => new Promise((resolve) => {
      const t0 = performance.now();
      const done = (/** @type {number} */ readyAt) => {
        const res = /** @type {PerformanceResourceTiming[]} */ (performance.getEntriesByType('resource')).filter((r) => r.startTime >= t0);
        const js = res.filter((r) => r.name.endsWith('.js'));
        resolve({
          page: (performance.getEntriesByName(mark)[0]?.startTime ?? NaN) - t0,
          ready: readyAt - t0,
          jsBytes: js.reduce((a, r) => a + r.decodedBodySize, 0),
          jsWire: js.reduce((a, r) => a + r.transferSize, 0),
          jsRequests: js.length,
          apiBytes: res.filter((r) => !r.name.endsWith('.js')).reduce((a, r) => a + r.decodedBodySize, 0),
        });
      };
      const seen = new MutationObserver(() => {
        if (!document.querySelector(ready)) return;
        seen.disconnect();
        const readyAt = performance.now();
        // Resource entries land after the response; give the last one a moment.
        setTimeout(() => done(readyAt), 50);
      });
      seen.observe(document, { subtree: true, childList: true, attributes: true });
      location.hash = hash;
    }), [hash, mark, ready]);
    await context.close();
    return /** @type {{page: number, ready: number, jsBytes: number, jsWire: number, jsRequests: number, apiBytes: number}} */ (m);
  };
  /** @type {Record<string, {page: number, ready: number, jsBytes: number, jsWire: number, jsRequests: number, apiBytes: number}[]>} */
  const routes = { leaderboard: [], replay: [] };
  for (let i = 0; i < runs; i++) {
    routes.leaderboard.push(await openRoute('#/leaderboard', 'page:leaderboard', '[data-testid=leaderboard] tbody tr'));
    routes.replay.push(await openRoute(href.slice(1), 'page:replay', '.screen.replay [data-testid=replay-player] option'));
  }

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  /** @param {string} path */
  const get = (path) =>
    new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      http
        .get(`${server.url}${path}`, { agent }, (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
        })
        .on('error', reject);
    });
  /** @param {string} path */
  const time = async (path) => {
    /** @type {number[]} */
    const xs = [];
    for (let i = 0; i < 2000; i++) xs.push(/** @type {number} */ (await get(path)));
    return xs;
  };
  // Interleave the two so noise falls on both.
  /** @type {number[]} */ const asset = [];
  /** @type {number[]} */ const health = [];
  for (let k = 0; k < 5; k++) {
    asset.push(...(await time('/assets/app.js')));
    health.push(...(await time('/healthz')));
  }
  agent.destroy();

  const rows = [
    ['first load: transferred (bodies as sent, compressed, and headers)', `${median(wire)} B (${(median(wire) / 1024).toFixed(1)} KiB)`],
    ['first load: uncompressed (decoded bodies)', `${median(bytes)} B (${(median(bytes) / 1024).toFixed(1)} KiB)`],
    ['first load: requests', `${median(requests)}`],
    ['navigation → DOMContentLoaded (browser baseline), median', `${median(dcl).toFixed(1)} ms (p90 ${quantile(dcl, 0.9).toFixed(1)})`],
    ['navigation → home drawn, median', `${median(homeMs).toFixed(1)} ms (p90 ${quantile(homeMs, 0.9).toFixed(1)})`],
    ['"Create room" click → interactive lobby, median', `${median(lobbyMs).toFixed(1)} ms (p90 ${quantile(lobbyMs, 0.9).toFixed(1)})`],
    ['navigation → interactive lobby, without the typing (sum of medians)', `${(median(homeMs) + median(lobbyMs)).toFixed(1)} ms`],
    ...Object.entries(routes).flatMap(([name, xs]) => {
      const page = xs.map((x) => x.page);
      const ready = xs.map((x) => x.ready);
      return [
        [`${name} on demand: modules transferred / uncompressed`, `${median(xs.map((x) => x.jsWire))} B / ${median(xs.map((x) => x.jsBytes))} B in ${median(xs.map((x) => x.jsRequests))} requests, then ${median(xs.map((x) => x.apiBytes))} B of API (uncompressed)`],
        [`${name}: route change → page in, median`, `${median(page).toFixed(1)} ms (p90 ${quantile(page, 0.9).toFixed(1)})`],
        [`${name}: route change → its data drawn, median`, `${median(ready).toFixed(1)} ms (p90 ${quantile(ready, 0.9).toFixed(1)})`],
      ];
    }),
    ['GET /assets/app.js, median (keep-alive)', `${(median(asset) * 1000).toFixed(0)} µs (p99 ${(quantile(asset, 0.99) * 1000).toFixed(0)})`],
    ['GET /healthz baseline, median', `${(median(health) * 1000).toFixed(0)} µs (p99 ${(quantile(health, 0.99) * 1000).toFixed(0)})`],
  ];
  console.log(`runs: ${runs}${identity ? ', Accept-Encoding: identity' : ''}`);
  console.log('| measure | value |\n|---|---|');
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
} finally {
  await browser.close();
  await server.stop();
}
