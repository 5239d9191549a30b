// @ts-check
/**
 * What the browser tests stand on: the real `sudoku-race-server` binary on 127.0.0.1 (its
 * address read from its JSON log), Debian's Chromium driven by playwright-core, the terminal
 * client's bot and solver, and helpers that read a page's board. Every wait is bounded.
 */

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '..', '..');
const targetDir = process.env.CARGO_TARGET_DIR ?? path.join(repo, 'target');
const profile = process.env.SUDOKU_RACE_PROFILE ?? 'debug';

/** @param {string} name */
export function binary(name) {
  return path.join(targetDir, profile, name);
}

/** How long any single wait may take. */
export const TIMEOUT = 20_000;
const LAUNCH_TIMEOUT = 120_000;

/** Where a run's screenshots go: docs/img when asked (UPDATE_SCREENSHOTS=1), else test-output. */
export const shotsDir = process.env.UPDATE_SCREENSHOTS === '1' ? path.join(repo, 'docs', 'img') : path.join(here, '..', 'test-output');
mkdirSync(shotsDir, { recursive: true });

/**
 * A running server; `stop()` kills it and removes its temp dir.
 * @typedef {{addr: string, url: string, ws: string, proc: import('node:child_process').ChildProcess,
 *   log: string[], stop: () => Promise<void>}} Server
 */

/**
 * Start the real server binary on a free loopback port.
 * @param {string[]} [args]
 * @param {{listen?: string, rustLog?: string, countdownMs?: number, db?: string}} [opts] an address to
 *   take again (a restart), else a free port; the log filter (default `info`); the countdown
 *   (default 500 ms); a results file shared with other servers (a cluster's nodes), else its own
 * @returns {Promise<Server>}
 */
export async function startServer(args = [], opts = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sudoku-race-web-'));
  const proc = spawn(
    binary('sudoku-race-server'),
    ['--listen', opts.listen ?? '127.0.0.1:0', '--log-format', 'json', '--db', opts.db ?? path.join(dir, 'results.sqlite3'), '--countdown-ms', String(opts.countdownMs ?? 500), ...args],
    { env: { ...process.env, RUST_LOG: opts.rustLog ?? 'info' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  /** @type {string[]} */
  const log = [];
  const addr = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line: ${log.join('\n')}`)), TIMEOUT);
    proc.on('exit', (code) => reject(new Error(`server exited ${code}: ${log.join('\n')}`)));
    const lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (proc.stderr) });
    lines.on('line', (line) => {
      log.push(line);
      try {
        const v = JSON.parse(line);
        if (v.fields?.message === 'listening') {
          clearTimeout(timer);
          resolve(v.fields.addr);
        }
      } catch {
        // Not JSON: keep it for the failure message.
      }
    });
  });
  return {
    addr,
    url: `http://${addr}`,
    ws: `ws://${addr}/ws`,
    proc,
    log,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The flags the machine's Chromium needs here (no network beyond loopback, no GPU, root). */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/**
 * Debian's Chromium, headless; playwright gives it a fresh temporary --user-data-dir.
 * @returns {Promise<import('playwright-core').Browser>}
 */
export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', ...CHROMIUM_FLAGS],
    // A freshly installed Chromium's first start builds its font cache and can take well over
    // 20 s on a busy CI machine (it timed out there once); later starts take about a second.
    timeout: LAUNCH_TIMEOUT,
  });
}

/**
 * A fresh page (its own storage) at a desktop (1280×800) or phone (390×844) size.
 * @param {import('playwright-core').Browser} browser
 * @param {{phone?: boolean}} [opts]
 */
export async function newPage(browser, opts = {}) {
  const context = await browser.newContext(
    opts.phone ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } },
  );
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  /** @type {string[]} */
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return { page, context, problems };
}

/**
 * On `/`, open the create-room form (behind "Private room with settings", under Play now).
 * @param {import('playwright-core').Page} page
 */
export async function openPrivateRoom(page) {
  await page.waitForSelector('[data-testid=play-now]');
  if (!(await page.isVisible('[data-testid=create]'))) await page.click('[data-testid=private-room]');
  await page.waitForSelector('[data-testid=create]');
}

/**
 * Create a room from `/` as `name`; returns its code.
 * @param {import('playwright-core').Page} page
 * @param {string} base
 * @param {string} name
 * @param {{difficulty?: string, max_players?: number, max_mistakes?: number, penalty_s?: number}} [settings]
 */
export async function createRoom(page, base, name, settings = {}) {
  await page.goto(`${base}/`);
  await page.fill('[data-testid=name]', name);
  await openPrivateRoom(page);
  if (settings.difficulty) await page.selectOption('select[name=difficulty]', settings.difficulty);
  if (settings.max_players !== undefined) await page.fill('input[name=max_players]', String(settings.max_players));
  if (settings.max_mistakes !== undefined) await page.fill('input[name=max_mistakes]', String(settings.max_mistakes));
  if (settings.penalty_s !== undefined) await page.fill('input[name=penalty_s]', String(settings.penalty_s));
  if (settings.rated) await page.check('input[name=rated]');
  await page.click('[data-testid=create]');
  await page.waitForSelector('[data-testid=ready]');
  const code = (await page.textContent('[data-testid=room-code]')) ?? '';
  if (!/^[A-Z2-9]{4,8}$/.test(code)) throw new Error(`odd room code ${code}`);
  return code;
}

/**
 * Join a room through its invite link.
 * @param {import('playwright-core').Page} page
 * @param {string} base
 * @param {string} code
 * @param {string} name
 */
export async function joinByLink(page, base, code, name) {
  await page.goto(`${base}/r/${code}`);
  await page.fill('[data-testid=name]', name);
  await page.click('[data-testid=join]');
}

/**
 * The page's board as an 81-character grid (`.` for empty), read from its cells' text.
 * @param {import('playwright-core').Page} page
 */
export async function board(page) {
  return page.$$eval('[data-testid=race-board] [data-cell], .screen.race [data-cell]', (cells) => {
    const out = new Array(81).fill('.');
    for (const c of cells) {
      const i = Number(c.getAttribute('data-cell'));
      const t = (c.textContent ?? '').trim();
      if (i >= 0 && i < 81) out[i] = t === '' ? '.' : t;
    }
    return out.join('');
  });
}

/**
 * The givens of the race on the page, once it has started.
 * @param {import('playwright-core').Page} page
 */
export async function puzzle(page) {
  await page.waitForSelector('.screen.race [data-cell][data-given]');
  return page.$$eval('.screen.race [data-cell]', (cells) =>
    cells.map((c) => (c.hasAttribute('data-given') ? (c.textContent ?? '.') : '.')).join(''),
  );
}

/**
 * The solution of a puzzle, from the terminal client's solver.
 * @param {string} grid
 */
export function solve(grid) {
  const out = execFileSync(binary('sudoku-race'), ['solve'], { input: `${grid}\n`, encoding: 'utf8', timeout: TIMEOUT });
  const line = out.trim().split('\n')[0] ?? '';
  if (!/^[1-9]{81}$/.test(line)) throw new Error(`no solution for ${grid}: ${out}`);
  return line;
}

/**
 * Select a cell by tapping it, then type a digit.
 * @param {import('playwright-core').Page} page
 * @param {number} cell
 * @param {number | string} digit
 */
export async function place(page, cell, digit) {
  await page.click(`.screen.race [data-cell="${cell}"]`);
  await page.keyboard.press(String(digit));
}

/**
 * Fill every empty cell with the solution's digit, by keyboard, and wait for each to land.
 * @param {import('playwright-core').Page} page
 * @param {string} solution
 * @param {number} [stopBefore] leave this many cells empty
 */
export async function solveOnPage(page, solution, stopBefore = 0) {
  const now = await board(page);
  const empty = [...now].map((c, i) => (c === '.' ? i : -1)).filter((i) => i >= 0);
  const todo = empty.slice(0, empty.length - stopBefore);
  for (const i of todo) {
    await place(page, i, solution[i]);
    await page.waitForSelector(`[data-cell="${i}"]:text-is("${solution[i]}")`);
  }
  return todo;
}

/**
 * The terminal client's bot in a room.
 * @param {Server} server
 * @param {string} code
 * @param {string[]} [args]
 */
export function startBot(server, code, args = []) {
  const proc = spawn(binary('sudoku-race'), ['bot', code, '--server', server.ws, '--races', '1', '--seed', '7', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', () => {});
  const done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error('bot did not finish'));
    }, 60_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`bot exited ${code}: ${out}`));
    });
  });
  return { proc, done: /** @type {Promise<string>} */ (done) };
}

/**
 * The results table as rows of cell texts.
 * @param {import('playwright-core').Page} page
 */
export async function resultsTable(page) {
  await page.waitForSelector('[data-testid=results] tbody tr');
  // A name cell's text is the name, without its badge; a time cell's the time, without its
  // raw time and lag (A8).
  return page.$$eval('[data-testid=results] tbody tr', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => (td.querySelector('.name') ?? td.querySelector('.time') ?? td).textContent ?? '')));
}

/**
 * Whether the page scrolls sideways.
 * @param {import('playwright-core').Page} page
 */
export function sideScroll(page) {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

/**
 * One test file's server (started with `args`) and browser: started before its first test,
 * stopped after its last. The fields are set once `before` has run.
 * @param {string[]} [args]
 * @param {{countdownMs?: number}} [opts] as startServer's
 * @returns {{server: Server, browser: import('playwright-core').Browser}}
 */
export function suite(args = [], opts = {}) {
  const env = /** @type {{server: Server, browser: import('playwright-core').Browser}} */ ({});
  before(async () => {
    env.server = await startServer(args, opts);
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}

/** axe-core's source, read once: evaluated in the page (CDP evaluation is not bound by the page's CSP). */
let axeSource = '';

/**
 * Run axe-core on the page as it is now and return its violations of the given impacts
 * (serious and critical by default), each as `rule: target …` lines for a readable failure.
 * @param {import('playwright-core').Page} page
 * @param {{impacts?: string[], disable?: string[]}} [opts] `disable`: axe rules not run (say why where it is used)
 * @returns {Promise<string[]>}
 */
export async function axeViolations(page, opts = {}) {
  const impacts = opts.impacts ?? ['serious', 'critical'];
  if (!axeSource) axeSource = readFileSync(path.join(here, '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  /** @type {{id: string, impact: string | null, nodes: {target: unknown[]}[]}[]} */
  const rules = Object.fromEntries((opts.disable ?? []).map((id) => [id, { enabled: false }]));
  const found = await page.evaluate(async (rules) => {
    // @ts-ignore axe is the global the evaluated source defines
    const res = await window.axe.run(document, { resultTypes: ['violations'], rules });
    return res.violations.map((/** @type {any} */ v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((/** @type {any} */ n) => ({ target: n.target })) }));
  }, rules);
  return found.filter((v) => v.impact && impacts.includes(v.impact)).map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
}

/**
 * An empty cell and a digit that is wrong there but clashes with nothing; and a digit that clashes with a given in its row.
 * @param {string} grid
 * @param {string} solution
 */
export function mistakes(grid, solution) {
  for (let i = 0; i < 81; i++) {
    if (grid[i] !== '.') continue;
    const r = Math.floor(i / 9);
    const c = i % 9;
    const seen = new Set();
    for (let k = 0; k < 9; k++) {
      seen.add(grid[r * 9 + k]);
      seen.add(grid[k * 9 + c]);
      seen.add(grid[(r - (r % 3) + Math.floor(k / 3)) * 9 + c - (c % 3) + (k % 3)]);
    }
    const wrong = [...'123456789'].find((d) => d !== solution[i] && !seen.has(d));
    const rowGiven = [...'123456789'].find((d) => grid.slice(r * 9, r * 9 + 9).includes(d));
    if (wrong && rowGiven) {
      const clashWith = r * 9 + grid.slice(r * 9, r * 9 + 9).indexOf(rowGiven);
      return { cell: i, wrong, clash: rowGiven, clashWith };
    }
  }
  throw new Error('no cell for a wrong digit');
}
