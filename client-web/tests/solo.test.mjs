// @ts-check
/**
 * Solo practice (`/#/solo`) in a real Chromium against the real server: a whole puzzle from the
 * bank solved by keyboard at desktop size and by taps at phone size; pencil marks, undo, the
 * timer, a wrong digit counted and pointed out by the hint, a hint that names a technique and
 * whose digit is right, a reload that keeps everything; axe-core on the screen. Then offline:
 * the service worker installed from `/`, the server gone and the context offline, `/#/solo`
 * reloads and plays; its cache never holds `/api/`, `/ws` or a room code.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { axeViolations, repo, shotsDir, sideScroll, startServer, suite } from './support.mjs';

const env = suite();

/** @type {import('../public/assets/solo.js').Bank} */
const bank = JSON.parse(readFileSync(path.join(repo, 'client-web/public/assets/solo/bank.json'), 'utf8'));
const LEVELS = /** @type {const} */ (['easy', 'medium', 'hard', 'expert']);

/**
 * A browser page at a size: desktop 1280×800 or phone 390×844 (touch).
 * @param {boolean} phone
 */
async function soloPage(phone) {
  const context = await env.browser.newContext(
    phone ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } : { viewport: { width: 1280, height: 800 } },
  );
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

/**
 * The board on the solo screen: its text, and the bank entry whose puzzle its givens are.
 * @param {import('playwright-core').Page} page
 */
async function game(page) {
  await page.waitForSelector('.screen.solo [data-cell][data-given]');
  const cells = await page.$$eval('.screen.solo [data-cell]', (els) =>
    els.map((c) => ({ given: c.hasAttribute('data-given'), text: (c.textContent ?? '').trim() })));
  const givens = cells.map((c) => (c.given ? c.text : '.')).join('');
  const board = cells.map((c) => c.text || '.').join('');
  const entry = LEVELS.flatMap((l) => bank[l]).find((e) => e.p === givens);
  assert.ok(entry, `the board's givens are a bank puzzle: ${givens}`);
  return { board, entry };
}

/** @param {import('playwright-core').Page} page */
async function selectedCell(page) {
  return Number(await page.getAttribute('.screen.solo [data-cell][aria-selected=true]', 'data-cell'));
}

/**
 * Move the selection from where it is to `to` with the arrow keys (the shorter way round).
 * @param {import('playwright-core').Page} page
 * @param {number} to
 */
async function arrowTo(page, to) {
  const from = await selectedCell(page);
  const dr = (Math.floor(to / 9) - Math.floor(from / 9) + 9) % 9;
  const dc = (to % 9 - (from % 9) + 9) % 9;
  for (let k = 0; k < (dr > 4 ? 9 - dr : dr); k++) await page.keyboard.press(dr > 4 ? 'ArrowUp' : 'ArrowDown');
  for (let k = 0; k < (dc > 4 ? 9 - dc : dc); k++) await page.keyboard.press(dc > 4 ? 'ArrowLeft' : 'ArrowRight');
  assert.equal(await selectedCell(page), to);
}

/**
 * @param {import('playwright-core').Page} page
 * @param {number} cell
 */
const cellText = async (page, cell) => ((await page.textContent(`.screen.solo [data-cell="${cell}"]`)) ?? '').trim();

test('desktop: timer, pencil and undo, a wrong digit and the hint, then a whole puzzle by keyboard', async () => {
  const { context, page, errors } = await soloPage(false);
  await page.goto(`${env.server.url}/`);
  await page.click('[data-testid=solo-link]');
  await page.click('.solo-levels [data-level=medium]');
  await page.waitForSelector('.solo-levels [data-level=medium][aria-pressed=true]');
  const { entry } = await game(page);
  assert.equal(entry.level, 'medium');
  const s = entry.s;
  const box = await page.locator('.screen.solo .board').boundingBox();
  assert.ok(box && box.width >= 540, `the board is ${box?.width} px wide`);
  assert.equal(await sideScroll(page), false);

  // The timer runs.
  await page.waitForFunction(() => (document.querySelector('[data-testid=solo-clock]')?.textContent ?? '0:00') !== '0:00');

  // A pencil mark, then undo of it; P toggles the mode.
  const empty = [...entry.p].map((c, i) => (c === '.' ? i : -1)).filter((i) => i >= 0);
  await arrowTo(page, empty[0]);
  await page.keyboard.press('p');
  await page.waitForSelector('[data-testid=solo-pencil][aria-pressed=true]');
  await page.keyboard.press('3');
  await page.keyboard.press('7');
  assert.match((await page.getAttribute(`[data-cell="${empty[0]}"]`, 'data-marks')) ?? '', /3[\s\S]*7/);
  await page.keyboard.press('Control+z');
  assert.doesNotMatch((await page.getAttribute(`[data-cell="${empty[0]}"]`, 'data-marks')) ?? '', /7/);
  await page.keyboard.press('p');

  // A wrong digit: placed, counted, pointed out by the hint first; the Undo button takes it back.
  const wrong = (Number(s[empty[0]]) % 9) + 1;
  await page.keyboard.press(String(wrong));
  assert.equal(await cellText(page, empty[0]), String(wrong));
  assert.match((await page.textContent('[data-testid=solo-mistakes]')) ?? '', /✗ 1/);
  await page.click('[data-testid=solo-hint]');
  await page.waitForSelector(`[data-cell="${empty[0]}"][data-hint=wrong]`);
  assert.match((await page.textContent('[data-testid=solo-said]')) ?? '', /not right/);
  await page.click('[data-testid=solo-undo]');
  assert.equal(await cellText(page, empty[0]), '');
  assert.match((await page.getAttribute(`[data-cell="${empty[0]}"]`, 'data-marks')) ?? '', /3/, 'undo brought the mark back');

  // A hint names a technique and selects its cell; its digit is the solution's.
  await page.click('[data-testid=solo-hint]');
  const said = (await page.textContent('[data-testid=solo-said]')) ?? '';
  const m = /r(\d)c(\d) is (\d)/.exec(said);
  assert.ok(m, said);
  assert.ok(bank.techniques.some((t) => said.toLowerCase().includes(t)), `no technique named in: ${said}`);
  const cell = (Number(m[1]) - 1) * 9 + Number(m[2]) - 1;
  assert.equal(m[3], s[cell]);
  assert.equal(await page.getAttribute(`[data-cell="${cell}"]`, 'data-hint'), 'step');
  assert.equal(await selectedCell(page), cell);
  await page.keyboard.press(m[3]);
  assert.equal(await cellText(page, cell), s[cell]);
  assert.deepEqual(await axeViolations(page), []);
  await page.screenshot({ path: path.join(shotsDir, 'solo-desktop.png') });

  // The rest by keyboard: arrows, digits.
  for (const i of empty) {
    if ((await cellText(page, i)) !== '') continue;
    await arrowTo(page, i);
    await page.keyboard.press(s[i]);
  }
  await page.waitForSelector('[data-testid=solo-solved]:not([hidden])');
  assert.match((await page.textContent('[data-testid=solo-solved-time]')) ?? '', /medium #\d+ in \d+:\d\d · 1 mistakes · 2 hints/);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('phone: a whole puzzle by taps, the board the full width; a reload keeps board, marks and time', async () => {
  const { context, page, errors } = await soloPage(true);
  await page.goto(`${env.server.url}/#/solo`);
  const { entry } = await game(page);
  const box = await page.locator('.screen.solo .board').boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= 390 && box.width >= 350, `board at ${JSON.stringify(box)}`);
  assert.equal(await sideScroll(page), false);
  const empty = [...entry.p].map((c, i) => (c === '.' ? i : -1)).filter((i) => i >= 0);

  // Two digits and a pencil mark by taps, then a reload after the clock moved.
  await page.tap(`[data-cell="${empty[0]}"]`);
  await page.tap(`.screen.solo .pad [data-digit="${entry.s[empty[0]]}"]`);
  await page.tap(`[data-cell="${empty[1]}"]`);
  await page.tap('[data-testid=solo-pencil]');
  await page.tap('.screen.solo .pad [data-digit="4"]');
  await page.tap('[data-testid=solo-pencil]');
  await page.waitForFunction(() => (document.querySelector('[data-testid=solo-clock]')?.textContent ?? '0:00') >= '0:02');
  const before = (await game(page)).board;
  await page.reload();
  const after = await game(page);
  assert.equal(after.board, before);
  assert.equal(after.entry.p, entry.p);
  assert.match((await page.getAttribute(`[data-cell="${empty[1]}"]`, 'data-marks')) ?? '', /4/);
  assert.ok(((await page.textContent('[data-testid=solo-clock]')) ?? '') >= '0:02', 'the time was kept');
  assert.deepEqual(await axeViolations(page), []);
  await page.screenshot({ path: path.join(shotsDir, 'solo-phone.png') });

  for (const i of empty) {
    if ((await cellText(page, i)) !== '') continue;
    await page.tap(`[data-cell="${i}"]`);
    await page.tap(`.screen.solo .pad [data-digit="${entry.s[i]}"]`);
  }
  await page.waitForSelector('[data-testid=solo-solved]:not([hidden])');
  assert.equal((await game(page)).board, entry.s);
  // Next puzzle: another one of the same difficulty.
  await page.tap('[data-testid=solo-next]');
  const next = await game(page);
  assert.notEqual(next.entry.p, entry.p);
  assert.equal(next.entry.level, entry.level);
  assert.deepEqual(errors, []);
  await context.close();
});

test('offline: the service worker from / serves solo practice with the server gone; it never caches the API or a room', async () => {
  const server = await startServer();
  const { context, page } = await soloPage(false);
  try {
    await page.goto(`${server.url}/`);
    // Installing fetches the shell (some 20 files): allow for a loaded machine.
    await page.evaluate(() => new Promise((resolve, reject) => {
      navigator.serviceWorker.ready.then(() => resolve(true));
      setTimeout(() => reject(new Error('no active service worker after 60 s')), 60_000);
    }));
    // A worker controls the pages loaded after it: load again, then use the API and a room link.
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await page.goto(`${server.url}/#/leaderboard`);
    await page.waitForSelector('[data-testid=leaderboard]');
    await page.goto(`${server.url}/r/ABCDE`);
    await page.waitForSelector('[data-testid=join]');
    await page.goto(`${server.url}/#/solo`);
    await game(page);
    // Opening solo asks the worker to keep its files: wait until the bank is in its cache.
    await page.waitForFunction(async () => !!(await caches.match('/assets/solo/bank.json', { ignoreVary: true })));

    // The network cut: the server gone, the context offline.
    await server.stop();
    await context.setOffline(true);
    await page.reload();
    const { entry, board } = await game(page);
    const target = board.indexOf('.');
    await page.click(`[data-cell="${target}"]`);
    await page.keyboard.press(entry.s[target]);
    assert.equal(await cellText(page, target), entry.s[target]);
    await page.click('[data-testid=solo-hint]');
    assert.match((await page.textContent('[data-testid=solo-said]')) ?? '', /r\dc\d is \d/);

    const cached = await page.evaluate(async () => {
      const out = [];
      for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) out.push(new URL(r.url).pathname);
      return out;
    });
    assert.ok(cached.includes('/assets/solo/bank.json') && cached.includes('/'), cached.join(' '));
    for (const p of cached) assert.ok(p === '/' || p.startsWith('/assets/'), `cached ${p}`);
  } finally {
    await context.close();
    await server.stop();
  }
});

test('the worker: served at /sw.js as JavaScript; the manifest is linked and names the icon', async () => {
  const res = await fetch(`${env.server.url}/sw.js`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /javascript/);
  const manifest = await (await fetch(`${env.server.url}/assets/manifest.webmanifest`)).json();
  assert.equal(manifest.display, 'standalone');
  assert.ok(manifest.icons.length > 0);
  for (const icon of manifest.icons) assert.equal((await fetch(`${env.server.url}${icon.src}`)).status, 200, icon.src);
  const html = await (await fetch(`${env.server.url}/`)).text();
  assert.match(html, /<link rel="manifest" href="\/assets\/manifest.webmanifest">/);
});

test('a killer puzzle (A10): picked, its cages and sums drawn, a cage past its sum clashes; kept over a reload', async () => {
  const { context, page, errors } = await soloPage(false);
  try {
    await page.goto(`${env.server.url}/#/solo`);
    await page.waitForSelector('.screen.solo [data-cell][data-given]');
    await page.selectOption('[data-testid=solo-variant]', 'killer');
    await page.waitForSelector('.screen.solo .board[data-variant=killer]');
    const level = /** @type {(typeof LEVELS)[number]} */ ((await page.getAttribute('.solo-levels [aria-pressed=true]', 'data-level')) ?? 'easy');
    const givens = await page.$$eval('.screen.solo [data-cell]', (els) => els.map((c) => (c.hasAttribute('data-given') ? (c.textContent ?? '') : '.')).join(''));
    const entry = (bank.variants?.killer?.[level] ?? []).find((e) => e.p === givens);
    assert.ok(entry?.cages, `a bank killer puzzle at ${level}`);
    const sums = await page.$$eval('.screen.solo [data-testid=cage-sum]', (ss) => ss.map((s) => Number(s.textContent)));
    assert.deepEqual(sums, entry.cages.map((c) => c.sum));
    assert.match((await page.textContent('[data-testid=solo-which]')) ?? '', /^Killer · /);
    // Two big digits in a small cage of two empty cells.
    const cage = entry.cages.find((c) => c.cells.length === 2 && c.sum <= 11 && c.cells.every((x) => entry.p[x] === '.'));
    assert.ok(cage, 'a small cage');
    const [a, b] = cage.cells;
    await page.click(`.screen.solo [data-cell="${a}"]`);
    await page.keyboard.press('9');
    await page.click(`.screen.solo [data-cell="${b}"]`);
    await page.keyboard.press('8');
    await page.waitForSelector(`.screen.solo [data-cell="${b}"][data-clash]`);
    assert.equal(await page.getAttribute(`.screen.solo [data-cell="${a}"]`, 'data-clash'), 'true');
    assert.match((await page.getAttribute(`.screen.solo [data-cell="${a}"]`, 'aria-label')) ?? '', new RegExp(`clashes, cage of 2 adding to ${cage.sum}$`));
    await page.screenshot({ path: path.join(shotsDir, 'solo-killer-desktop.png') });
    await page.reload();
    await page.waitForSelector(`.screen.solo .board[data-variant=killer] [data-cell="${b}"][data-clash]`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
