// @ts-check
/**
 * Benchmark, not a test: the browser client's first load on loopback. For RUNS fresh browser
 * contexts (empty cache) it records the bytes the page transferred (uncompressed bodies) and
 * the time from navigation to (a) the home screen drawn and (b) an interactive lobby after
 * "Create room"; then it times GET /assets/app.js (keep-alive, one connection) against GET
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
try {
  for (let i = 0; i < runs; i++) {
    const { page, context } = await newPage(browser);
    let total = 0;
    let count = 0;
    page.on('response', async (r) => {
      if (r.request().resourceType() === 'websocket') return;
      try {
        total += (await r.body()).length;
        count += 1;
      } catch {
        // A body that is gone (a redirect) counts nothing.
      }
    });
    await page.goto(`${server.url}/`);
    await page.waitForSelector('[data-testid=create]');
    homeMs.push(await page.evaluate(() => performance.now()));
    await page.fill('[data-testid=name]', `b${i}`);
    await page.click('[data-testid=create]');
    await page.waitForSelector('[data-testid=ready]');
    lobbyMs.push(await page.evaluate(() => performance.now()));
    await page.waitForLoadState('networkidle');
    bytes.push(total);
    requests.push(count);
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
    ['first load: requests', `${median(requests)}`],
    ['navigation → home drawn, median', `${median(homeMs).toFixed(1)} ms (p90 ${quantile(homeMs, 0.9).toFixed(1)})`],
    ['navigation → interactive lobby (after Create), median', `${median(lobbyMs).toFixed(1)} ms (p90 ${quantile(lobbyMs, 0.9).toFixed(1)})`],
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
