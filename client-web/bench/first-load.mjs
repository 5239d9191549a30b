// @ts-check
/**
 * Benchmark, not a test: the browser client's first load on loopback. For RUNS fresh browser
 * contexts (empty cache) it records the bytes the page transferred (uncompressed bodies) and
 * the time from navigation to (a) the home screen drawn and (b) an interactive lobby after
 * "Create room" (the page's own `performance.mark`s, so no driver round trip is counted); then it times GET /assets/app.js (keep-alive, one connection) against GET
 * /healthz as the baseline of the same HTTP path. Prints a table of medians.
 *
 *   cargo build --release --bin sudoku-race-server --bin sudoku-race
 *   cd client-web && SUDOKU_RACE_PROFILE=release node bench/first-load.mjs [RUNS]
 */

import http from 'node:http';
import { launch, newPage, startServer } from '../tests/support.mjs';

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

const server = await startServer();
const browser = await launch();
/** @type {number[]} */ const bytes = [];
/** @type {number[]} */ const requests = [];
/** @type {number[]} */ const homeMs = [];
/** @type {number[]} */ const lobbyMs = [];
/** @type {number[]} */ const wire = [];
/** @type {number[]} */ const dcl = [];
try {
  for (let i = 0; i < runs; i++) {
    const { page, context } = await newPage(browser);
    await page.goto(`${server.url}/`);
    await page.waitForSelector('[data-testid=create]');
    await page.fill('[data-testid=name]', `b${i}`);
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
    ['first load: bytes transferred (uncompressed)', `${median(bytes)} B (${(median(bytes) / 1024).toFixed(1)} KiB)`],
    ['first load: bytes on the wire (headers included)', `${median(wire)} B`],
    ['first load: requests', `${median(requests)}`],
    ['navigation → DOMContentLoaded (browser baseline), median', `${median(dcl).toFixed(1)} ms (p90 ${quantile(dcl, 0.9).toFixed(1)})`],
    ['navigation → home drawn, median', `${median(homeMs).toFixed(1)} ms (p90 ${quantile(homeMs, 0.9).toFixed(1)})`],
    ['"Create room" click → interactive lobby, median', `${median(lobbyMs).toFixed(1)} ms (p90 ${quantile(lobbyMs, 0.9).toFixed(1)})`],
    ['navigation → interactive lobby, without the typing (sum of medians)', `${(median(homeMs) + median(lobbyMs)).toFixed(1)} ms`],
    ['GET /assets/app.js, median (keep-alive)', `${(median(asset) * 1000).toFixed(0)} µs (p99 ${(quantile(asset, 0.99) * 1000).toFixed(0)})`],
    ['GET /healthz baseline, median', `${(median(health) * 1000).toFixed(0)} µs (p99 ${(quantile(health, 0.99) * 1000).toFixed(0)})`],
  ];
  console.log(`runs: ${runs}`);
  console.log('| measure | value |\n|---|---|');
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
} finally {
  await browser.close();
  await server.stop();
}
