// @ts-check
/**
 * The look (issue 23): the board as large as the viewport allows at 1280×800 and 390×844, the
 * highlights (row, column, box and the same digit), pencil marks cleared from the peers (a
 * setting), the pad's finished digits, light and dark themes, motion and reduced motion, the
 * rough edges (a spectator's stray selection, the phone's home and results, the ready button's
 * words), and axe on the race screen in both themes at both sizes.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { axeViolations, createRoom, joinByLink, newPage, place, puzzle, resultsTable, shotsDir, solve, solveOnPage, suite } from './support.mjs';

const env = suite(['--max-rooms-per-ip', '60']);

/** @typedef {import('playwright-core').Page} Page */

/**
 * A one-player easy race, started: its givens and solution.
 * @param {Page} page
 * @param {string} name
 */
async function race(page, name) {
  await createRoom(page, env.server.url, name, { difficulty: 'easy' });
  await page.click('[data-testid=start]');
  const grid = await puzzle(page);
  return { grid, solution: solve(grid) };
}

/** @param {Page} page @param {string} sel */
async function box(page, sel) {
  const b = await page.locator(sel).first().boundingBox();
  assert.ok(b, `${sel} has no box`);
  return b;
}

/** @param {Page} page */
const bodyColour = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

/** Whether an `rgb(r, g, b)` colour is dark. @param {string} rgb */
function dark(rgb) {
  const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 100;
}

/** Open the settings box of the screen shown. @param {Page} page */
async function openPrefs(page) {
  if (!(await page.isVisible('[data-testid=theme]'))) await page.click('[data-testid=prefs] summary');
}

test('desktop 1280×800: the board is square, at least 560 px, inside the window, with progress and chat beside it', async () => {
  const { page, context, problems } = await newPage(env.browser);
  await race(page, 'ada');
  const b = await box(page, '.board');
  assert.ok(b.width >= 560, `board ${b.width} px wide`);
  assert.ok(Math.abs(b.width - b.height) <= 1, `board ${b.width}×${b.height}`);
  assert.ok(b.y >= 0 && b.y + b.height <= 800 && b.x + b.width <= 1280, `board at ${JSON.stringify(b)}`);
  const side = await box(page, '.side');
  assert.ok(side.x >= b.x + b.width, `progress at ${JSON.stringify(side)}, board ends at ${b.x + b.width}`);
  const chat = await box(page, '[data-testid=chat]');
  assert.ok(chat.x >= b.x + b.width, 'the chat is beside the board');
  // The digits grow with the board.
  const font = await page.$eval('.board [data-cell]', (c) => parseFloat(getComputedStyle(c).fontSize));
  assert.ok(font >= 0.45 * (b.width / 9), `digits ${font} px in ${b.width / 9} px cells`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('phone 390×844: the board takes the full width, progress and chat below it', async () => {
  const { page, context } = await newPage(env.browser, { phone: true });
  await race(page, 'bea');
  const b = await box(page, '.board');
  assert.ok(b.x >= 0 && b.x + b.width <= 390, `board at ${JSON.stringify(b)}`);
  assert.ok(b.width >= 390 - 24, `board ${b.width} px wide`);
  assert.ok(Math.abs(b.width - b.height) <= 1);
  const side = await box(page, '.side');
  assert.ok(side.y >= b.y + b.height, 'progress is below the board');
  await context.close();
});

for (const phone of [false, true]) test(`highlights: the selected cell has an outline, its 20 peers data-peer, every cell with its digit data-same (${phone ? 'phone 390×844' : 'desktop 1280×800'})`, async () => {
  const { page, context } = await newPage(env.browser, { phone });
  const { grid } = await race(page, 'cy');
  const given = grid.search(/[1-9]/);
  await page.click(`[data-cell="${given}"]`);
  assert.equal(await page.locator('.board [data-peer]').count(), 20);
  const peers = await page.$$eval('.board [data-peer]', (cs) => cs.map((c) => Number(c.getAttribute('data-cell'))));
  const r = Math.floor(given / 9);
  const c = given % 9;
  for (const p of peers) {
    const same = Math.floor(p / 9) === r || p % 9 === c || (Math.floor(p / 27) === Math.floor(given / 27) && Math.floor((p % 9) / 3) === Math.floor(c / 3));
    assert.ok(same && p !== given, `${p} is no peer of ${given}`);
  }
  const digit = grid[given];
  const same = await page.$$eval('.board [data-same]', (cs) => cs.map((x) => x.textContent));
  assert.equal(same.length, [...grid].filter((x) => x === digit).length);
  assert.ok(same.every((x) => x === digit), same.join());
  const outline = await page.$eval(`[data-cell="${given}"]`, (x) => getComputedStyle(x).outlineStyle);
  assert.notEqual(outline, 'none', 'the selected cell is outlined, not only coloured');
  // An empty cell: peers, and no same digit.
  await page.click(`[data-cell="${grid.indexOf('.')}"]`);
  assert.equal(await page.locator('.board [data-peer]').count(), 20);
  assert.equal(await page.locator('.board [data-same]').count(), 0);
  await context.close();
});

/**
 * An empty cell, its solution digit, and an empty peer of it.
 * @param {string} grid
 */
function cellAndPeer(grid) {
  for (let i = 0; i < 81; i++) {
    if (grid[i] !== '.') continue;
    for (let j = 0; j < 81; j++) {
      if (j !== i && grid[j] === '.' && Math.floor(j / 9) === Math.floor(i / 9)) return { cell: i, peer: j };
    }
  }
  throw new Error('no two empty cells in a row');
}

for (const phone of [false, true]) test(`pencil marks leave the peers of a placed digit, unless the setting is off; it is kept (${phone ? 'phone 390×844' : 'desktop 1280×800'})`, async () => {
  const { page, context } = await newPage(env.browser, { phone });
  const { grid, solution } = await race(page, 'dot');
  const { cell, peer } = cellAndPeer(grid);
  const d = solution[cell];
  /** @param {number} at @param {number} other */
  const markThenPlace = async (at, other) => {
    await page.click(`[data-cell="${other}"]`);
    await page.keyboard.press('p');
    await page.keyboard.press(solution[at]);
    await page.keyboard.press('p');
    assert.match((await page.getAttribute(`[data-cell="${other}"]`, 'data-marks')) ?? '', new RegExp(solution[at]));
    await place(page, at, solution[at]);
    await page.waitForSelector(`[data-cell="${at}"]:text-is("${solution[at]}")`);
  };
  await markThenPlace(cell, peer);
  assert.doesNotMatch((await page.getAttribute(`[data-cell="${peer}"]`, 'data-marks')) ?? '', new RegExp(d), 'on by default');
  await openPrefs(page);
  assert.equal(await page.isChecked('[data-testid=auto-clear]'), true);
  await page.uncheck('[data-testid=auto-clear]');
  // Another pair: the next empty cell of the same row as `peer`, or any.
  const board2 = [...grid];
  board2[cell] = d;
  const next = cellAndPeer(board2.join(''));
  await markThenPlace(next.cell, next.peer);
  assert.match((await page.getAttribute(`[data-cell="${next.peer}"]`, 'data-marks')) ?? '', new RegExp(solution[next.cell]), 'off: the mark stays');
  assert.equal(await page.evaluate(() => localStorage.getItem('sudoku-race:auto-clear')), 'off');
  await context.close();
});

for (const phone of [false, true]) test(`a digit whose nine are all placed is greyed on the pad (${phone ? 'phone 390×844' : 'desktop 1280×800'})`, async () => {
  const { page, context } = await newPage(env.browser, { phone });
  const { grid, solution } = await race(page, 'eli');
  // The digit with the most givens, then its missing cells.
  const counts = [...'123456789'].map((d) => [...grid].filter((x) => x === d).length);
  const digit = String(counts.indexOf(Math.max(...counts)) + 1);
  assert.equal(await page.getAttribute(`.pad [data-digit="${digit}"]`, 'data-done'), null);
  const cells = [...solution].map((x, i) => (x === digit && grid[i] === '.' ? i : -1)).filter((i) => i >= 0);
  for (const i of cells) {
    await place(page, i, digit);
    await page.waitForSelector(`[data-cell="${i}"]:text-is("${digit}")`);
  }
  await page.waitForSelector(`.pad [data-digit="${digit}"][data-done][aria-disabled=true]`);
  assert.equal(await page.locator('.pad [data-done]').count(), counts.filter((n) => n === 9).length + 1);
  await context.close();
});

for (const phone of [false, true]) test(`themes: auto follows prefers-color-scheme; light or dark is kept across a reload (${phone ? 'phone 390×844' : 'desktop 1280×800'})`, async () => {
  const { page, context } = await newPage(env.browser, { phone });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${env.server.url}/`);
  await page.waitForSelector('[data-testid=play-now]');
  assert.equal(dark(await bodyColour(page)), true, 'auto under a dark preference');
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(dark(await bodyColour(page)), false, 'auto under a light preference');
  await openPrefs(page);
  await page.selectOption('[data-testid=theme]', 'dark');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  assert.equal(dark(await bodyColour(page)), true, 'dark chosen under a light preference');
  await page.reload();
  await page.waitForSelector('[data-testid=play-now]');
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark', 'kept across a reload');
  assert.equal(dark(await bodyColour(page)), true);
  await openPrefs(page);
  assert.equal(await page.inputValue('[data-testid=theme]'), 'dark');
  await page.selectOption('[data-testid=theme]', 'auto');
  assert.equal(await page.getAttribute('html', 'data-theme'), null);
  assert.equal(dark(await bodyColour(page)), false);
  await context.close();
});

/**
 * Record, in the page, each celebration as it appears (its animation), then skip it at once:
 * whether it showed does not depend on how fast the test reads the page.
 * @param {Page} page
 * @param {'skip' | 'key'} how
 */
function watchCelebrations(page, how) {
  return page.evaluate((how) => {
    /** @type {{animation: string, gone: boolean}[]} */
    const seen = [];
    // @ts-ignore a test hook
    window.seenCelebrations = seen;
    new MutationObserver((ms) => {
      for (const m of ms) {
        for (const n of m.addedNodes) {
          if (!(n instanceof HTMLElement) || n.getAttribute('data-testid') !== 'celebration') continue;
          const rec = { animation: getComputedStyle(n).animationName, gone: false };
          seen.push(rec);
          if (how === 'skip') n.querySelector('button')?.click();
          else document.dispatchEvent(new KeyboardEvent('keydown', { key: 'x' }));
          rec.gone = !n.isConnected;
        }
      }
    }).observe(document.body, { childList: true });
  }, how);
}

/** @param {Page} page @returns {Promise<{animation: string, gone: boolean}[]>} */
// @ts-ignore the test hook
const celebrations = (page) => page.evaluate(() => window.seenCelebrations);

/** The celebration comes with its module, imported once the race is solved. @param {Page} page */
// @ts-ignore the test hook
const celebrated = (page) => page.waitForFunction(() => window.seenCelebrations.length > 0);

for (const phone of [false, true]) test(`motion: progress bars transition in place, a finish is celebrated and skippable (${phone ? 'phone 390×844' : 'desktop 1280×800'})`, async () => {
  const { page, context } = await newPage(env.browser, { phone });
  const { solution } = await race(page, 'fin');
  const fill = '[data-testid=progress] li.mine .fill';
  const duration = await page.$eval(fill, (f) => getComputedStyle(f).transitionDuration);
  assert.notEqual(duration, '0s');
  await page.$eval(fill, (f) => f.setAttribute('data-marked', ''));
  await solveOnPage(page, solution, 10);
  await page.locator('[data-testid=progress] li.mine .count').filter({ hasText: /^[1-9]/ }).waitFor();
  assert.equal(await page.locator(`${fill}[data-marked]`).count(), 1, 'the same bar moved (a new one would not animate)');
  await watchCelebrations(page, 'skip');
  await solveOnPage(page, solution);
  await resultsTable(page);
  await celebrated(page);
  const seen = await celebrations(page);
  assert.equal(seen.length, 1);
  assert.notEqual(seen[0].animation, 'none');
  assert.equal(seen[0].gone, true, 'skip removes it');
  await context.close();
});

test('a key dismisses the celebration', async () => {
  const { page, context } = await newPage(env.browser);
  const { solution } = await race(page, 'gil');
  await watchCelebrations(page, 'key');
  await solveOnPage(page, solution);
  await resultsTable(page);
  await celebrated(page);
  const seen = await celebrations(page);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].gone, true);
  await context.close();
});

for (const phone of [false, true]) test(`prefers-reduced-motion: no transitions, no celebration (${phone ? 'phone 390×844' : 'desktop 1280×800'})`, async () => {
  const { page, context } = await newPage(env.browser, { phone });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  /** @type {string[]} */
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  const { solution } = await race(page, 'hal');
  assert.equal(await page.$eval('[data-testid=progress] li.mine .fill', (f) => getComputedStyle(f).transitionDuration), '0s');
  await watchCelebrations(page, 'skip');
  await solveOnPage(page, solution);
  await resultsTable(page);
  // Whatever the finish would import has come by now.
  await page.waitForLoadState('networkidle');
  assert.ok(fetched.includes('/assets/screens/results.js'), 'requests were seen');
  assert.ok(!fetched.includes('/assets/celebrate.js'), 'the celebration was fetched');
  assert.deepEqual(await celebrations(page), []);
  await context.close();
});

test('rough edge: a spectator board draws no selection and no focus outline', async () => {
  const player = await newPage(env.browser);
  const watcher = await newPage(env.browser);
  const code = await createRoom(player.page, env.server.url, 'ivy', { difficulty: 'easy' });
  await watcher.page.goto(`${env.server.url}/r/${code}?watch`);
  await watcher.page.waitForSelector('.screen.lobby');
  await player.page.click('[data-testid=start]');
  await puzzle(watcher.page);
  const outlined = await watcher.page.$$eval('.board [data-cell]', (cs) =>
    cs.filter((c) => getComputedStyle(c).outlineStyle !== 'none' || c.getAttribute('aria-selected') === 'true' || c.hasAttribute('data-peer'))
      .map((c) => c.getAttribute('data-cell')));
  assert.deepEqual(outlined, []);
  await player.context.close();
  await watcher.context.close();
});

test('rough edge: on a phone, Join a room comes before the create form', async () => {
  const { page, context } = await newPage(env.browser, { phone: true });
  await page.goto(`${env.server.url}/`);
  await page.click('[data-testid=private-room]');
  const join = await box(page, '[data-testid=join]');
  const create = await box(page, '[data-testid=private-room]');
  assert.ok(join.y < create.y, `join at ${join.y}, the create form at ${create.y}`);
  assert.ok(join.y + join.height <= 844, 'join is in the first screen');
  await context.close();
});

test('rough edge: on a phone, the results Rating column is not clipped', async () => {
  const { page, context } = await newPage(env.browser, { phone: true });
  const { solution } = await race(page, 'jan');
  await solveOnPage(page, solution);
  await resultsTable(page);
  const head = await box(page, '[data-testid=rating-head]');
  const wrap = await box(page, '.results-screen .table-wrap');
  assert.ok(head.x >= 0 && head.x + head.width <= 390, `Rating at ${JSON.stringify(head)}`);
  assert.ok(head.x + head.width <= wrap.x + wrap.width + 0.5, `Rating ends at ${head.x + head.width}, its box at ${wrap.x + wrap.width}`);
  await context.close();
});

test('rough edge: the ready button says what pressing it does; the state is said apart', async () => {
  const host = await newPage(env.browser);
  const guest = await newPage(env.browser);
  const code = await createRoom(host.page, env.server.url, 'kit');
  await joinByLink(guest.page, env.server.url, code, 'lou');
  const ready = guest.page.locator('[data-testid=ready]');
  const state = guest.page.locator('[data-testid=ready-state]');
  await ready.waitFor();
  assert.equal(await ready.textContent(), "I'm ready");
  assert.match((await state.textContent()) ?? '', /You are not ready/);
  await ready.click();
  await state.filter({ hasText: /You are ready/ }).waitFor();
  assert.match((await ready.textContent()) ?? '', /^Not ready yet/);
  await host.page.waitForSelector('[data-testid=players] li[data-ready=true]:has-text("lou")');
  await ready.click();
  await state.filter({ hasText: /You are not ready/ }).waitFor();
  assert.equal(await ready.textContent(), "I'm ready");
  await host.context.close();
  await guest.context.close();
});

for (const phone of [false, true]) {
  test(`axe: the race screen has no serious violation in light and dark (${phone ? 'phone' : 'desktop'})`, async () => {
    const { page, context } = await newPage(env.browser, { phone });
    const { grid, solution } = await race(page, phone ? 'max' : 'ned');
    // Some of everything on the board: placed digits, a pencil mark, highlights, a refused digit.
    await solveOnPage(page, solution, [...grid].filter((c) => c === '.').length - 3);
    const open = grid.lastIndexOf('.');
    await page.click(`[data-cell="${open}"]`);
    await page.keyboard.press('p');
    await page.keyboard.press(solution[open]);
    await page.keyboard.press('p');
    for (const theme of ['light', 'dark']) {
      await page.emulateMedia({ colorScheme: /** @type {'light' | 'dark'} */ (theme) });
      assert.equal(dark(await bodyColour(page)), theme === 'dark');
      assert.deepEqual(await axeViolations(page), [], `${theme} theme`);
      if (theme === 'dark') await page.screenshot({ path: path.join(shotsDir, `race-${phone ? 'phone' : 'desktop'}-dark.png`) });
    }
    await context.close();
  });
}

test('axe: home, lobby and results have no serious violation in the dark theme either', async () => {
  const { page, context } = await newPage(env.browser);
  await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
  await page.goto(`${env.server.url}/`);
  await page.waitForSelector('[data-testid=play-now]');
  await openPrefs(page);
  await page.waitForSelector('[data-testid=theme]');
  assert.deepEqual(await axeViolations(page), [], 'home');
  await createRoom(page, env.server.url, 'olo', { difficulty: 'easy' });
  assert.equal(dark(await bodyColour(page)), true);
  assert.deepEqual(await axeViolations(page), [], 'lobby');
  await page.click('[data-testid=start]');
  const grid = await puzzle(page);
  await solveOnPage(page, solve(grid));
  await resultsTable(page);
  assert.deepEqual(await axeViolations(page), [], 'results');
  await context.close();
});
