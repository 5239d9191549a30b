// @ts-check
/**
 * The variants in Chromium (A10), one test per variant: the page (served by the real server) is
 * answered on its WebSocket by a stand-in room (playwright's `routeWebSocket`) that speaks A10 —
 * so the board is drawn from what the wire says before the server deals variant races. From the
 * create form with the variant picked, the race starts; the board draws the variant (jigsaw's
 * region lines, x's and windoku's shading, killer's cages and sums); a right digit goes in, and
 * a wrong one that clashes only in the variant's own houses (a diagonal, a window, a region, a
 * cage or its sum) is refused and flashed with its clash. axe finds nothing at 360 px in the
 * light and dark themes; screenshots at 360 px and 1280 px in both go to test-output/.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { cageOutline, clashes, geometry, geometryFor, VARIANTS } from '../public/assets/geometry.js';
import { axeViolations, openPrivateRoom, shotsDir, suite, TIMEOUT } from './support.mjs';
import { PUZZLES } from './unit/variants.mjs';

const env = suite();

/** @typedef {import('playwright-core').Page} Page */
/** @typedef {(typeof PUZZLES)[string]} Puzzle */

/**
 * A stand-in server for one page: it registers, creates the room it is asked for, starts the race
 * with `p` and answers placements as the contract says (a clash's cells in `conflicts`). What the
 * page sent is in `heard`.
 * @param {Page} page
 * @param {Puzzle} p
 */
async function standIn(page, p) {
  /** @type {any[]} */
  const heard = [];
  const board = [...p.puzzle];
  let mistakes = 0;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const say = (/** @type {object} */ m) => ws.send(JSON.stringify(m));
    say({ type: 'welcome', protocol: 1, server: 'stand-in' });
    ws.onMessage((text) => {
      const m = JSON.parse(String(text));
      heard.push(m);
      if (m.type === 'list_rooms') say({ type: 'room_list', rooms: [] });
      if (m.type === 'register') say({ type: 'registered', key: 'k-stand-in', handle: m.name });
      if (m.type === 'create_room') {
        const settings = { difficulty: 'easy', max_players: 8, time_limit_s: 1800, max_mistakes: 3, penalty_s: 10, public: true, rated: false, ...m.settings };
        say({ type: 'room_joined', room: 'VARI', you: { player_id: 'p1', token: 't1', role: 'player' }, host: 'p1', settings, phase: 'lobby',
          players: [{ player_id: 'p1', name: m.name, ready: false, connected: true, status: 'waiting' }], race: null });
      }
      if (m.type === 'start_race') {
        say({ type: 'countdown', starts_in_ms: 0 });
        say({ type: 'race_started', race_id: `r-${p.variant}`, puzzle: p.puzzle, difficulty: 'easy', time_limit_s: 1800,
          variant: p.variant === 'classic' ? undefined : p.variant, regions: p.regions, cages: p.cages });
      }
      if (m.type === 'place') {
        const right = p.solution[m.cell] === String(m.digit);
        const tried = board.slice();
        tried[m.cell] = String(m.digit);
        const conflicts = right ? [] : [...clashes(geometryFor(p), tried)].filter((c) => c !== m.cell);
        if (right) board[m.cell] = String(m.digit);
        else mistakes += 1;
        say({ type: 'placement', id: m.id, cell: m.cell, digit: m.digit, accepted: right, reason: right ? null : conflicts.length ? 'conflict' : 'wrong',
          conflicts, mistakes, penalty_ms: mistakes * 10_000 });
      }
    });
  });
  return { heard };
}

/**
 * An empty cell (not `skip`) and a digit there that clashes in the variant's own houses and in
 * no row or column, nor box where the variant keeps them (classic: any clash), and the cells it
 * clashes with.
 * @param {Puzzle} p
 * @param {number} skip
 */
function variantClash(p, skip) {
  const geo = geometryFor(p);
  const classic = geometryFor(null);
  const plain = p.variant === 'jigsaw' ? geometry(classic.houses.slice(0, 18)) : classic;
  for (let cell = 0; cell < 81; cell++) {
    if (p.puzzle[cell] !== '.' || cell === skip) continue;
    for (const d of '123456789') {
      if (d === p.solution[cell]) continue;
      const board = [...p.puzzle];
      board[cell] = d;
      const hit = [...clashes(geo, board)].filter((c) => c !== cell);
      if (hit.length && (p.variant === 'classic' || clashes(plain, board).size === 0)) return { cell, digit: d, hit };
    }
  }
  throw new Error(`no clash of ${p.variant}'s own`);
}

/**
 * What the board draws for the variant, checked against its geometry.
 * @param {Page} page
 * @param {Puzzle} p
 */
async function checkDrawing(page, p) {
  const geo = geometryFor(p);
  assert.equal(await page.getAttribute('.screen.race .board', 'data-variant'), p.variant);
  const zones = await page.locator('.screen.race [data-cell][data-zone]').count();
  assert.equal(zones, geo.zone.filter(Boolean).length, 'shaded cells');
  const edges = await page.$$eval('.screen.race [data-cell]', (cs) => cs.map((c) => c.getAttribute('data-edge') ?? ''));
  const want = [...Array(81).keys()].map((i) => {
    const r = geo.region[i];
    return [i % 9 < 8 && geo.region[i + 1] !== r ? 'right' : '', i < 72 && geo.region[i + 9] !== r ? 'bottom' : ''].filter(Boolean).join(' ');
  });
  assert.deepEqual(edges, want, 'thick lines between regions');
  const sums = await page.$$eval('.screen.race [data-testid=cage-sum]', (ss) => ss.map((s) => Number(s.textContent)));
  assert.deepEqual(sums, geo.cages.map((c) => c.sum), 'a sum per cage');
  if (geo.cages.length) {
    const d = (await page.getAttribute('.screen.race [data-testid=cages] path', 'd')) ?? '';
    assert.equal(d.split('M').length - 1, cageOutline(geo, 0.09).length, 'a dashed segment per cage side');
    // The sums are readable: at least 11 px, dark on light (or light on dark) as the text is.
    const font = await page.$eval('.screen.race [data-testid=cage-sum]', (s) => parseFloat(getComputedStyle(s).fontSize));
    assert.ok(font >= 11, `cage sums at ${font} px`);
  }
}

/**
 * Screenshots of the page at 360 px and 1280 px, light and dark, and axe at 360 px in both.
 * @param {Page} page
 * @param {string} variant
 */
async function shotsAndAxe(page, variant) {
  for (const [width, height, size] of /** @type {const} */ ([[360, 760, 'phone'], [1280, 800, 'desktop']])) {
    await page.setViewportSize({ width, height });
    for (const theme of /** @type {const} */ (['light', 'dark'])) {
      await page.emulateMedia({ colorScheme: theme });
      if (size === 'phone') assert.deepEqual(await axeViolations(page), [], `axe, ${variant}, ${theme}`);
      await page.screenshot({ path: path.join(shotsDir, `variant-${variant}-${size}-${theme}.png`) });
    }
  }
}

for (const variant of VARIANTS) test(`${variant}: picked in the create form, drawn, a right digit in and a clash of its own flashed; axe clean`, async () => {
  const p = PUZZLES[variant];
  const context = await env.browser.newContext({ viewport: { width: 360, height: 760 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  /** @type {string[]} */
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    const { heard } = await standIn(page, p);
    await page.goto(`${env.server.url}/`);
    await page.fill('[data-testid=name]', 'vera');
    await openPrivateRoom(page);
    await page.selectOption('select[name=difficulty]', 'easy');
    await page.selectOption('select[name=variant]', variant);
    await page.click('[data-testid=create]');
    await page.waitForSelector('[data-testid=start]');
    const create = heard.find((m) => m.type === 'create_room');
    assert.deepEqual(create.variants, [...VARIANTS], 'the hello lists every variant');
    assert.equal(create.settings.variant, variant === 'classic' ? undefined : variant);
    // The lobby names the variant: the header's badge, and the summary starts with it.
    const badge = variant === 'classic' ? null : await page.textContent('[data-testid=variant]');
    const summary = (await page.textContent('[data-testid=settings]')) ?? '';
    assert.ok(summary.startsWith(badge ? `${badge} · easy` : 'easy'), `${badge}: ${summary}`);
    await page.click('[data-testid=start]');
    await page.waitForSelector('.screen.race [data-cell][data-given]');
    await checkDrawing(page, p);
    // A right digit, and pencil marks (on a cage's sum cell too, where they move down).
    const right = p.puzzle.indexOf('.');
    await page.click(`.screen.race [data-cell="${right}"]`);
    await page.keyboard.press(p.solution[right]);
    await page.waitForSelector(`.screen.race [data-cell="${right}"]:text-is("${p.solution[right]}")`);
    const marked = [...p.puzzle].flatMap((c, i) => (c === '.' && i !== right ? [i] : [])).slice(-2);
    await page.keyboard.press('p');
    for (const cell of marked) {
      await page.click(`.screen.race [data-cell="${cell}"]`);
      for (const d of '1357') await page.keyboard.press(d);
    }
    await page.keyboard.press('p');
    // A wrong digit that clashes in the variant's own houses: refused, its clash flashed.
    const clash = variantClash(p, right);
    await page.click(`.screen.race [data-cell="${clash.cell}"]`);
    await page.keyboard.press(clash.digit);
    await page.waitForSelector(`.screen.race [data-cell="${clash.cell}"][data-rejected="${clash.digit}"][data-reason=conflict]`);
    const flashed = await page.$$eval('.screen.race [data-clash]', (cs) => cs.map((c) => Number(c.getAttribute('data-cell'))));
    assert.deepEqual(flashed.sort((a, b) => a - b), clash.hit.sort((a, b) => a - b));
    await page.screenshot({ path: path.join(shotsDir, `variant-${variant}-clash.png`) });
    await shotsAndAxe(page, variant);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
