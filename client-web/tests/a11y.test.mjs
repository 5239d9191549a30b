// @ts-check
/**
 * Accessibility in Chromium against the real server: axe-core finds no serious or critical
 * violation on any screen at desktop (1280×800) and phone (390×844) sizes; and a whole room is
 * played from the keyboard alone (no clicks), from `/` to the results, with what the race's live
 * region says read after each event. One server and one stored race per test.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { axeViolations, mistakes, puzzle, solve, solveOnPage, startBot, suite, TIMEOUT } from './support.mjs';

// A countdown long enough to look at (and to say 3, 2, 1).
const env = suite([], { countdownMs: 2500 });

/** @typedef {import('playwright-core').Page} Page */

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/**
 * A fresh page at a size; a phone is a touch device.
 * @param {{width: number, height: number}} size
 */
async function pageAt(size) {
  const phone = size.width < 600;
  const context = await env.browser.newContext(phone ? { viewport: size, deviceScaleFactor: 2, isMobile: true, hasTouch: true } : { viewport: size });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  /** @type {string[]} */
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return { page, context, problems, label: phone ? 'phone' : 'desktop' };
}

/**
 * Check the page as it is now; every failure names the screen, the size and the rule.
 * @param {Page} page
 * @param {string} what
 * @param {string[]} found collects the failures, so one run lists them all
 */
async function axe(page, what, found) {
  for (const v of await axeViolations(page)) found.push(`${what}: ${v}`);
}

test('axe-core: no serious or critical violation on any screen, at desktop and phone sizes', async () => {
  const base = env.server.url;
  /** @type {string[]} */
  const found = [];
  const ann = await pageAt(DESKTOP);
  const bob = await pageAt(PHONE);
  const pages = [ann, bob];
  for (const p of pages) {
    await p.page.goto(`${base}/`);
    await p.page.waitForSelector('[data-testid=play-now]');
    await axe(p.page, `home ${p.label}`, found);
    await p.page.click('[data-testid=private-room]');
    await axe(p.page, `home, room form open ${p.label}`, found);
    await p.page.fill('[data-testid=name]', p === ann ? 'ann' : 'bob');
  }
  await ann.page.click('[data-testid=create]');
  await ann.page.waitForSelector('[data-testid=ready]');
  const code = (await ann.page.textContent('[data-testid=room-code]')) ?? '';
  await bob.page.goto(`${base}/r/${code}`);
  await bob.page.waitForSelector('[data-testid=join]');
  await axe(bob.page, 'invite link phone', found);
  await bob.page.fill('[data-testid=name]', 'bob');
  await bob.page.click('[data-testid=join]');
  await bob.page.waitForSelector('.screen.lobby [data-testid=ready]');
  await ann.page.waitForSelector('[data-testid=players] li:has-text("bob")');
  for (const p of pages) await axe(p.page, `lobby ${p.label}`, found);

  await ann.page.click('[data-testid=start]');
  for (const p of pages) {
    await p.page.waitForSelector('.screen.race[data-phase=countdown]');
    await axe(p.page, `countdown ${p.label}`, found);
  }
  // A spectator with boards (A8) sees the watch screen.
  const watcher = await pageAt(DESKTOP);
  await watcher.page.goto(`${base}/r/${code}?watch=boards`);
  const grid = await puzzle(ann.page);
  await puzzle(bob.page);
  for (const p of pages) await axe(p.page, `racing ${p.label}`, found);
  await watcher.page.waitForSelector('.screen.watch [data-testid=mini-board]');
  await axe(watcher.page, 'watch desktop', found);

  const solution = solve(grid);
  await solveOnPage(ann.page, solution);
  bob.page.once('dialog', (d) => d.accept());
  await bob.page.click('[data-testid=forfeit]');
  for (const p of pages) {
    await p.page.waitForSelector('[data-testid=results] tbody tr');
    await axe(p.page, `results ${p.label}`, found);
  }
  await bob.page.click('[data-testid=report]');
  await axe(bob.page, 'results, report box open phone', found);
  const href = (await ann.page.getAttribute('[data-testid=replay-link]', 'href')) ?? '';
  const raceId = decodeURIComponent(/^\/#\/races\/(.+)$/.exec(href)?.[1] ?? '');
  assert.ok(raceId, href);
  const stored = await (await fetch(`${base}/api/races/${raceId}`)).json();
  const handle = stored.players.find((/** @type {any} */ p) => p.name === 'ann')?.handle;
  assert.ok(handle, 'ann has a handle');
  await watcher.context.close();

  for (const size of [DESKTOP, PHONE]) {
    const v = await pageAt(size);
    await v.page.goto(`${base}/#/races/${raceId}`);
    await v.page.waitForSelector('[data-testid=replay-player] option', { state: 'attached' });
    await v.page.click('[data-testid=replay-end]');
    await v.page.waitForSelector('[data-testid=replay-final]:not([hidden])');
    await axe(v.page, `replay ${v.label}`, found);
    await v.page.goto(`${base}/#/leaderboard`);
    await v.page.waitForSelector('[data-testid=leaderboard] tbody tr');
    await axe(v.page, `leaderboard ${v.label}`, found);
    await v.page.goto(`${base}/#/players/${handle}`);
    await v.page.waitForSelector(`[data-testid=history] tr[data-race-id="${raceId}"]`);
    await axe(v.page, `player page ${v.label}`, found);
    await v.page.goto(`${base}/#/arenas`);
    await v.page.waitForSelector('[data-testid=arena-list] li');
    await axe(v.page, `arenas ${v.label}`, found);
    await v.page.goto(`${base}/#/tv`);
    await v.page.waitForSelector('[data-testid=tv-status]:has-text("No race is running")');
    await axe(v.page, `tv ${v.label}`, found);
    assert.deepEqual(v.problems, []);
    await v.context.close();
  }
  assert.deepEqual(found, []);
  for (const p of pages) {
    assert.deepEqual(p.problems, [], p.label);
    await p.context.close();
  }
});

/**
 * What the focused element is, for a readable failure: its test id, cell, tag and text.
 * @param {Page} page
 */
function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { id: 'body', visible: false, outline: false };
    const style = getComputedStyle(el);
    const id = el.getAttribute('data-testid') ?? (el.hasAttribute('data-cell') ? `cell ${el.getAttribute('data-cell')}` : `${el.tagName.toLowerCase()} ${(el.textContent ?? '').trim().slice(0, 20)}`);
    return { id, visible: el.getClientRects().length > 0, outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 };
  });
}

/**
 * Press Tab (Shift+Tab with `back`) until the focus is on `selector`, at most `max` times; every
 * stop on the way is a visible element with a visible focus outline.
 * @param {Page} page
 * @param {string} selector
 * @param {{max?: number, back?: boolean}} [opts]
 */
async function tabTo(page, selector, opts = {}) {
  /** @type {string[]} */
  const stops = [];
  for (let i = 0; i < (opts.max ?? 40); i++) {
    await page.keyboard.press(opts.back ? 'Shift+Tab' : 'Tab');
    const f = await focused(page);
    stops.push(f.id);
    assert.ok(f.visible, `focus on a hidden element: ${stops.join(' → ')}`);
    assert.ok(f.outline, `no visible focus outline on ${f.id}`);
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) return stops;
  }
  assert.fail(`Tab never reached ${selector}: ${stops.join(' → ')}`);
}

/**
 * Walk the board's selection to `cell` with the arrow keys.
 * @param {Page} page
 * @param {number} cell
 */
async function arrowTo(page, cell) {
  const at = Number(await page.getAttribute('.screen.race [data-cell][aria-selected=true]', 'data-cell'));
  const dr = Math.floor(cell / 9) - Math.floor(at / 9);
  const dc = (cell % 9) - (at % 9);
  for (let i = 0; i < Math.abs(dr); i++) await page.keyboard.press(dr > 0 ? 'ArrowDown' : 'ArrowUp');
  for (let i = 0; i < Math.abs(dc); i++) await page.keyboard.press(dc > 0 ? 'ArrowRight' : 'ArrowLeft');
  await page.waitForSelector(`.screen.race [data-cell="${cell}"][aria-selected=true]:focus`);
}

/** `row 2, column 7`. @param {number} cell */
const where = (cell) => `row ${Math.floor(cell / 9) + 1}, column ${(cell % 9) + 1}`;

test('a whole room played from the keyboard alone, with the live region saying what happens', async () => {
  const { page, context, problems } = await pageAt(DESKTOP);
  await page.goto(`${env.server.url}/`);
  await page.waitForSelector('[data-testid=play-now]');
  // The start page puts the focus in the name field.
  assert.equal((await focused(page)).id, 'name');
  await page.keyboard.type('kai');
  await tabTo(page, '[data-testid=private-room]');
  await page.keyboard.press('Enter');
  await tabTo(page, 'select[name=difficulty]');
  await page.keyboard.press('Home'); // easy, the first
  assert.equal(await page.inputValue('select[name=difficulty]'), 'easy');
  await tabTo(page, '[data-testid=create]');
  await page.keyboard.press('Enter');

  // The lobby: the focus is on its heading, not lost to the body.
  await page.waitForSelector('.screen.lobby');
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'screen-heading');
  assert.match((await page.textContent('[data-testid=screen-heading]')) ?? '', /^Lobby, room [A-Z2-9]+$/);
  const code = (await page.textContent('[data-testid=room-code]')) ?? '';
  const bot = startBot(env.server, code, ['--name', 'botty', '--pace-ms', '40']);
  await page.waitForSelector('[data-testid=players] li:has-text("botty")');
  // Every change of the race's live region, as a screen reader would hear it.
  await page.evaluate(() => {
    /** @type {string[]} */
    const log = [];
    Object.assign(window, { saidLog: log });
    new MutationObserver(() => {
      const t = document.querySelector('[data-testid=said]')?.textContent?.trim() ?? '';
      if (t && t !== log[log.length - 1]) log.push(t);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  /** @returns {Promise<string[]>} */
  const said = () => page.evaluate(() => /** @type {any} */ (window).saidLog);
  await tabTo(page, '[data-testid=start]');
  await page.keyboard.press('Enter');

  // Race starts in 3, 2, 1, then Go; the focus goes to the board's selected cell.
  const grid = await puzzle(page);
  await page.waitForFunction(() => document.activeElement?.matches('[data-cell][aria-selected=true][tabindex="0"]') ?? false);
  await page.waitForFunction(() => /** @type {any} */ (window).saidLog.includes('Go'));
  assert.deepEqual(await said(), ['Race starts in 3', 'Race starts in 2', 'Race starts in 1', 'Go']);
  assert.match((await page.getAttribute('.screen.race [role=grid]', 'aria-describedby')) ?? '', /race-keys/);
  assert.match((await page.textContent('#race-keys')) ?? '', /P switches pencil marks/);
  assert.equal(await page.getAttribute('[data-testid=pencil]', 'aria-keyshortcuts'), 'P');

  // The board is one tab stop: Tab leaves it for the pad, Shift+Tab comes back to it.
  const stops = await tabTo(page, '.pad [data-digit="1"]', { max: 1 });
  assert.deepEqual(stops, ['button 1']);
  await tabTo(page, '.screen.race [data-cell][aria-selected=true]', { back: true, max: 1 });

  const solution = solve(grid);
  const m = mistakes(grid, solution);
  await arrowTo(page, m.cell);
  await page.keyboard.press(m.wrong);
  await page.waitForFunction((w) => /** @type {any} */ (window).saidLog.includes(w), `${m.wrong} at ${where(m.cell)} is wrong.`);
  await page.keyboard.press(m.clash);
  await page.waitForFunction((w) => /** @type {any} */ (window).saidLog.some((/** @type {string} */ t) => t.startsWith(w)),
    `${m.clash} at ${where(m.cell)} clashes with ${where(m.clashWith)}`);
  // Pencil marks: P, a digit marks, 0 clears, P again.
  await page.keyboard.press('p');
  await page.waitForSelector('[data-testid=pencil][aria-pressed=true]');
  await page.keyboard.press(solution[m.cell]);
  await page.waitForSelector(`[data-cell="${m.cell}"][data-marks]`);
  await page.keyboard.press('0');
  await page.waitForSelector(`[data-cell="${m.cell}"]:not([data-marks])`);
  await page.keyboard.press('p');
  await page.waitForSelector('[data-testid=pencil][aria-pressed=false]');
  // The chat by keyboard: a new line is added to the log (role=log), the ones before are kept
  // (not redrawn, so a screen reader does not read them again); Escape goes back to the board.
  await tabTo(page, '[data-testid=chat-input]');
  await page.keyboard.type('gl hf');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.screen.race .chat-log li:has-text("gl hf")');
  await page.$eval('.screen.race .chat-log li', (li) => li.setAttribute('data-seen', ''));
  await page.keyboard.type('again');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.screen.race .chat-log li:has-text("again")');
  assert.deepEqual(await page.$$eval('.screen.race .chat-log li', (lis) => lis.map((li) => li.hasAttribute('data-seen'))), [true, false]);
  assert.equal(await page.getAttribute('.screen.race .chat-log', 'role'), 'log');
  await page.keyboard.press('Escape');
  assert.equal((await focused(page)).id, `cell ${m.cell}`);

  // The bot finishes first: its finish is said once, with its time.
  await page.waitForFunction(() => /** @type {any} */ (window).saidLog.some((/** @type {string} */ t) => /^botty solved in \d+:\d\d\.\d\.$/.test(t)), null, { timeout: 60_000 });
  const before = (await said()).length;
  await page.waitForTimeout(600);
  assert.equal((await said()).length, before, 'nothing new is said on the redraws in between');

  for (let i = 0; i < 81; i++) {
    if (grid[i] !== '.') continue;
    await arrowTo(page, i);
    await page.keyboard.press(solution[i]);
    await page.waitForSelector(`[data-cell="${i}"]:text-is("${solution[i]}")`);
  }
  await bot.done;

  // The results: the focus on their title; Escape leaves the report box, back on its button.
  await page.waitForSelector('[data-testid=results] tbody tr');
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'results-title');
  await tabTo(page, '[data-testid=report]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=report-box]:not([hidden])');
  assert.equal((await focused(page)).id, 'report-reason');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid=report-box][hidden]', { state: 'attached' });
  assert.equal((await focused(page)).id, 'report');
  await tabTo(page, '[data-testid=rematch]');
  assert.deepEqual(problems, []);
  await context.close();
});

test('keyboard: a page opened from a link takes the focus on its heading, not the body', async () => {
  const { page, context, problems } = await pageAt(PHONE);
  await page.goto(`${env.server.url}/`);
  await page.waitForSelector('[data-testid=play-now]');
  await tabTo(page, '[data-testid=leaderboard-link]', { back: true });
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid=leaderboard]');
  await page.waitForFunction(() => document.activeElement?.textContent === 'Leaderboard');
  await tabTo(page, '[data-testid=lb-difficulty]');
  assert.deepEqual(problems, []);
  await context.close();
});
