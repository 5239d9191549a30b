// @ts-check
/**
 * Variant rooms against the real server (A10), end to end in Chromium: a host picks the variant
 * in the create form, a second browser joins by the invite link, the host starts, and the board
 * draws the layout the server dealt in `race_started` (killer's cages and sums, jigsaw's region
 * lines). A right digit goes in; a wrong one the server judges a `conflict` by the variant's own
 * rules (killer: a cage filled past or off its sum; jigsaw: a repeat in a region, not in its row
 * or column) is refused, and the cells the server named in `conflicts` flash. axe once.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { geometryFor } from '../public/assets/geometry.js';
import { axeViolations, binary, joinByLink, newPage, openPrivateRoom, shotsDir, suite, TIMEOUT } from './support.mjs';

const env = suite();

/** @typedef {import('playwright-core').Page} Page */
/** @typedef {{puzzle: string, variant?: string, regions?: string, cages?: {cells: number[], sum: number}[]}} Started */

/**
 * Keep what the server says to `page` on its WebSocket (call before the page opens it).
 * @param {Page} page
 */
function listen(page) {
  /** @type {any[]} */
  const said = [];
  page.on('websocket', (ws) => ws.on('framereceived', (f) => {
    try {
      said.push(JSON.parse(String(f.payload)));
    } catch {
      // Not JSON: not ours.
    }
  }));
  return said;
}

/**
 * Wait until the server has said a message of `type` to the page.
 * @param {any[]} said
 * @param {string} type
 */
async function heard(said, type) {
  const end = Date.now() + TIMEOUT;
  for (;;) {
    const m = said.find((x) => x.type === type);
    if (m) return m;
    if (Date.now() > end) throw new Error(`no ${type} in ${said.map((x) => x.type).join(' ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A variant puzzle's solution, from the terminal client's solver (A10 JSON lines).
 * @param {Started} s
 */
function solveVariant(s) {
  const line = JSON.stringify({ variant: s.variant, puzzle: s.puzzle, ...(s.regions ? { regions: s.regions } : {}), ...(s.cages ? { cages: s.cages } : {}) });
  const out = execFileSync(binary('sudoku-race'), ['solve'], { input: `${line}\n`, encoding: 'utf8', timeout: TIMEOUT }).trim();
  assert.match(out, /^[1-9]{81}$/, `solve: ${out}`);
  return out;
}

/**
 * Host `ann` creates a room of `variant` from the form; `bob` joins by link and is ready; ann
 * starts. Returns both pages, the race as the server dealt it to ann, and its solution.
 * @param {string} variant
 */
async function raceOf(variant) {
  const a = await newPage(env.browser);
  const b = await newPage(env.browser);
  const said = listen(a.page);
  await a.page.goto(`${env.server.url}/`);
  await a.page.fill('[data-testid=name]', 'ann');
  await openPrivateRoom(a.page);
  await a.page.selectOption('select[name=difficulty]', 'easy');
  await a.page.selectOption('select[name=variant]', variant);
  await a.page.click('[data-testid=create]');
  await a.page.waitForSelector('[data-testid=start]');
  const joined = await heard(said, 'room_joined');
  assert.equal(joined.settings.variant, variant, 'the server keeps the picked variant');
  const code = (await a.page.textContent('[data-testid=room-code]')) ?? '';
  await joinByLink(b.page, env.server.url, code, 'bob');
  await b.page.waitForSelector('[data-testid=ready]');
  await b.page.click('[data-testid=ready]');
  await a.page.waitForSelector('[data-testid=players] li[data-ready=true]:has-text("bob")');
  await a.page.click('[data-testid=start]');
  /** @type {Started} */
  const started = await heard(said, 'race_started');
  assert.equal(started.variant, variant);
  await a.page.waitForSelector('.screen.race [data-cell][data-given]');
  await b.page.waitForSelector('.screen.race [data-cell][data-given]');
  return { a, b, started, solution: solveVariant(started) };
}

/**
 * Place `digit` at `cell` on ann's board.
 * @param {Page} page
 * @param {number} cell
 * @param {string} digit
 */
async function put(page, cell, digit) {
  await page.click(`.screen.race [data-cell="${cell}"]`);
  await page.keyboard.press(digit);
}

/**
 * The cells flashing as a clash, sorted.
 * @param {Page} page
 */
async function flashed(page) {
  const cells = await page.$$eval('.screen.race [data-clash]', (cs) => cs.map((c) => Number(c.getAttribute('data-cell'))));
  return cells.sort((x, y) => x - y);
}

/**
 * The thick lines the board draws, cell by cell, and the ones the layout asks for.
 * @param {Page} page
 * @param {ReturnType<typeof geometryFor>} geo
 */
async function edges(page, geo) {
  const drawn = await page.$$eval('.screen.race [data-cell]', (cs) => cs.map((c) => c.getAttribute('data-edge') ?? ''));
  const want = [...Array(81).keys()].map((i) => {
    const r = geo.region[i];
    return [i % 9 < 8 && geo.region[i + 1] !== r ? 'right' : '', i < 72 && geo.region[i + 9] !== r ? 'bottom' : ''].filter(Boolean).join(' ');
  });
  return { drawn, want };
}

test('killer room: the server\'s cages and sums drawn, a right digit in, a cage filled off its sum refused with its cage flashed; axe clean', async () => {
  const { a, b, started, solution } = await raceOf('killer');
  try {
    const cages = started.cages ?? [];
    assert.ok(cages.length > 0, 'race_started carries the cages');
    const geo = geometryFor(started);
    for (const page of [a.page, b.page]) {
      assert.equal(await page.getAttribute('.screen.race .board', 'data-variant'), 'killer');
      const sums = await page.$$eval('.screen.race [data-testid=cage-sum]', (ss) => ss.map((s) => Number(s.textContent)));
      assert.deepEqual(sums.sort((x, y) => x - y), cages.map((c) => c.sum).sort((x, y) => x - y), 'a sum per cage, the server\'s');
      assert.ok(((await page.getAttribute('.screen.race [data-testid=cages] path', 'd')) ?? '').includes('M'), 'cage outlines');
    }
    // A cage with two empty cells A and B: A right, then B a digit that repeats nowhere but
    // takes the cage past its sum (or fills it to another).
    const board = [...started.puzzle];
    /** @type {{A: number, B: number, d: string, hit: number[]} | null} */
    let pick = null;
    for (const cage of cages) {
      const empty = cage.cells.filter((c) => board[c] === '.');
      if (empty.length < 2 || pick) continue;
      const [A, B] = empty;
      const after = board.slice();
      after[A] = solution[A];
      for (const d of '987654321') {
        if (d === solution[B] || geo.peers[B].some((p) => after[p] === d)) continue;
        const filled = cage.cells.filter((c) => c === B || after[c] !== '.');
        const sum = filled.reduce((t, c) => t + Number(c === B ? d : after[c]), 0);
        if (sum > cage.sum || (filled.length === cage.cells.length && sum !== cage.sum)) {
          pick = { A, B, d, hit: filled.filter((c) => c !== B).sort((x, y) => x - y) };
          break;
        }
      }
    }
    assert.ok(pick, 'a cage with two empty cells');
    await put(a.page, pick.A, solution[pick.A]);
    await a.page.waitForSelector(`.screen.race [data-cell="${pick.A}"]:text-is("${solution[pick.A]}")`);
    await put(a.page, pick.B, pick.d);
    await a.page.waitForSelector(`.screen.race [data-cell="${pick.B}"][data-rejected="${pick.d}"][data-reason=conflict]`);
    assert.deepEqual(await flashed(a.page), pick.hit, 'the cage\'s other filled cells flash');
    await a.page.screenshot({ path: path.join(shotsDir, 'variant-room-killer.png') });
    assert.deepEqual(await axeViolations(a.page), [], 'axe on the killer race');
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await a.context.close();
    await b.context.close();
  }
});

test('jigsaw room: the server\'s regions drawn, a right digit in, a repeat in a region refused with it flashed', async () => {
  const { a, b, started, solution } = await raceOf('jigsaw');
  try {
    assert.match(started.regions ?? '', /^[0-8]{81}$/, 'race_started carries the regions');
    const geo = geometryFor(started);
    for (const page of [a.page, b.page]) {
      assert.equal(await page.getAttribute('.screen.race .board', 'data-variant'), 'jigsaw');
      const { drawn, want } = await edges(page, geo);
      assert.deepEqual(drawn, want, 'thick lines between the server\'s regions');
    }
    const board = [...started.puzzle];
    const right = board.indexOf('.');
    await put(a.page, right, solution[right]);
    await a.page.waitForSelector(`.screen.race [data-cell="${right}"]:text-is("${solution[right]}")`);
    board[right] = solution[right];
    // An empty cell and a digit already in its region, but not in its row or column.
    /** @type {{cell: number, d: string, hit: number[]} | null} */
    let pick = null;
    for (let cell = 0; cell < 81 && !pick; cell++) {
      if (board[cell] !== '.') continue;
      const region = [...Array(81).keys()].filter((c) => geo.region[c] === geo.region[cell] && c !== cell);
      const line = [...Array(81).keys()].filter((c) => c !== cell && (c % 9 === cell % 9 || Math.floor(c / 9) === Math.floor(cell / 9)));
      for (const d of '123456789') {
        if (d === solution[cell] || line.some((c) => board[c] === d)) continue;
        const hit = region.filter((c) => board[c] === d);
        if (hit.length) {
          pick = { cell, d, hit };
          break;
        }
      }
    }
    assert.ok(pick, 'a cell with a repeat only in its region');
    await put(a.page, pick.cell, pick.d);
    await a.page.waitForSelector(`.screen.race [data-cell="${pick.cell}"][data-rejected="${pick.d}"][data-reason=conflict]`);
    assert.deepEqual(await flashed(a.page), pick.hit, 'the region\'s cell with that digit flashes');
    await a.page.screenshot({ path: path.join(shotsDir, 'variant-room-jigsaw.png') });
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await a.context.close();
    await b.context.close();
  }
});
