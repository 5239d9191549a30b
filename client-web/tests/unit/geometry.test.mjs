// @ts-check
/**
 * The puzzle's geometry (geometry.js): the classic houses, the peers derived from them, the
 * grid's layout, a houses list other than the classic one, and the variants' houses, clashes,
 * thick lines and cage outlines (A10).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cageOutline, CELLS, cellAt, clashes, colOf, edges, geometry, geometryFor, geometryOf, peers, rowOf, sumCell, VARIANTS } from '../../public/assets/geometry.js';
import { PUZZLES } from './variants.mjs';

test('classic: 27 houses of 9 distinct cells, each cell in exactly 3', () => {
  const { houses } = geometryOf('classic');
  assert.equal(houses.length, 27);
  const count = new Array(CELLS).fill(0);
  for (const h of houses) {
    assert.equal(new Set(h).size, 9);
    for (const c of h) count[c] += 1;
  }
  assert.deepEqual(count, new Array(CELLS).fill(3));
  assert.deepEqual(houses[0], [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(houses[9], [0, 9, 18, 27, 36, 45, 54, 63, 72]);
  assert.deepEqual(houses[18 + 4], [30, 31, 32, 39, 40, 41, 48, 49, 50]);
});

test('peers: 20 per cell, symmetric, never the cell itself; the same row, column or box', () => {
  const g = geometryOf();
  for (let cell = 0; cell < CELLS; cell++) {
    const p = peers(cell);
    assert.equal(p.size, 20);
    assert.ok(!p.has(cell));
    assert.deepEqual([...p].sort((a, b) => a - b), g.peers[cell]);
    for (const q of p) {
      assert.ok(peers(q).has(cell));
      const sameBox = Math.floor(rowOf(q) / 3) === Math.floor(rowOf(cell) / 3) && Math.floor(colOf(q) / 3) === Math.floor(colOf(cell) / 3);
      assert.ok(rowOf(q) === rowOf(cell) || colOf(q) === colOf(cell) || sameBox, `${q} of ${cell}`);
    }
  }
});

test('an unknown variant is the classic geometry', () => {
  assert.equal(geometryOf('nonesuch'), geometryOf('classic'));
});

test('another houses list: a diagonal adds its cells to each other’s peers', () => {
  const diagonal = Array.from({ length: 9 }, (_, i) => cellAt(i, i));
  const g = geometry([...geometryOf().houses, diagonal]);
  assert.equal(g.houses.length, 28);
  assert.equal(g.peers[0].length, 20 + 6);
  assert.ok(g.peers[0].includes(80));
  assert.equal(g.peers[1].length, 20);
});

test('layout: row and column of a cell, and back', () => {
  for (let cell = 0; cell < CELLS; cell++) assert.equal(cellAt(rowOf(cell), colOf(cell)), cell);
  assert.deepEqual([rowOf(43), colOf(43)], [4, 7]);
});

/** How many houses of each variant, and how many peers cell 0 (a corner, on a diagonal) and cell 40 have. */
const SHAPES = {
  classic: { houses: 27, peers0: 20, peers40: 20 },
  x: { houses: 29, peers0: 26, peers40: 32 },
  windoku: { houses: 31, peers0: 20, peers40: 20 },
  jigsaw: { houses: 27 },
  killer: { houses: 27 + (PUZZLES.killer.cages?.length ?? 0) },
};

for (const variant of VARIANTS) test(`${variant}: its houses hold each digit of its solution once, and the solution does not clash`, () => {
  const p = PUZZLES[variant];
  const g = geometryFor(p);
  assert.equal(g.variant, variant);
  assert.equal(g.houses.length, SHAPES[variant].houses);
  for (const house of g.houses) {
    const digits = house.map((c) => p.solution[c]);
    assert.equal(new Set(digits).size, house.length, `house ${house} holds ${digits}`);
  }
  assert.deepEqual([...clashes(g, p.solution)], []);
  assert.deepEqual([...clashes(g, p.puzzle)], [], 'the givens clash with nothing');
  const s = SHAPES[variant];
  if ('peers0' in s) assert.deepEqual([g.peers[0].length, g.peers[40].length], [s.peers0, s.peers40]);
  for (let a = 0; a < CELLS; a++) for (const b of g.peers[a]) assert.ok(g.peers[b].includes(a), `${a} and ${b}`);
});

test('x: a digit twice on a diagonal clashes, and only there', () => {
  const g = geometryOf('x');
  const board = [...'.'.repeat(81)];
  board[cellAt(0, 0)] = '5';
  board[cellAt(8, 8)] = '5';
  assert.deepEqual([...clashes(g, board)].sort((a, b) => a - b), [0, 80]);
  assert.deepEqual([...clashes(geometryOf('classic'), board)], []);
  board[cellAt(8, 8)] = '.';
  board[cellAt(8, 0)] = '4';
  board[cellAt(0, 8)] = '4';
  assert.deepEqual([...clashes(g, board)].sort((a, b) => a - b), [8, 72]);
  assert.equal(g.zone.filter(Boolean).length, 17, 'both diagonals are shaded, the centre once');
});

test('windoku: the four windows are houses and shaded; a digit twice in a window clashes', () => {
  const g = geometryOf('windoku');
  for (const top of [10, 14, 46, 50]) assert.ok(g.houses.some((h) => h[0] === top && h[8] === top + 20), `the window at ${top}`);
  assert.equal(g.zone.filter(Boolean).length, 36);
  assert.ok(g.zone[10] && g.zone[30] && !g.zone[13] && !g.zone[40]);
  const board = [...'.'.repeat(81)];
  board[10] = '7';
  board[30] = '7';
  assert.deepEqual([...clashes(g, board)].sort((a, b) => a - b), [10, 30]);
  assert.deepEqual([...clashes(geometryOf('classic'), board)], []);
});

test('jigsaw: the regions replace the boxes, and draw the thick lines', () => {
  const p = PUZZLES.jigsaw;
  const g = geometryFor(p);
  const regions = p.regions ?? '';
  assert.deepEqual(g.region, [...regions].map(Number));
  // Two cells of one region, in different boxes, rows and columns, clash.
  const box = (/** @type {number} */ i) => geometryOf().region[i];
  const pairs = [...Array(81).keys()].flatMap((i) => [...Array(81).keys()].map((j) => [i, j]));
  const [a, b] = pairs.find(([i, j]) => regions[i] === regions[j] && box(i) !== box(j) && rowOf(i) !== rowOf(j) && colOf(i) !== colOf(j)) ?? [-1, -1];
  const board = [...'.'.repeat(81)];
  board[a] = '3';
  board[b] = '3';
  assert.deepEqual([...clashes(g, board)].sort((x, y) => x - y), [a, b].sort((x, y) => x - y));
  for (let i = 0; i < CELLS; i++) {
    const e = edges(g, i);
    assert.equal(e.right, colOf(i) < 8 && regions[i] !== regions[i + 1]);
    assert.equal(e.bottom, rowOf(i) < 8 && regions[i] !== regions[i + 9]);
  }
  // A classic board's thick lines are the boxes'.
  assert.deepEqual(edges(geometryOf(), 2), { right: true, bottom: false });
  assert.deepEqual(edges(geometryOf(), 20), { right: true, bottom: true });
  assert.deepEqual(edges(geometryOf(), 0), { right: false, bottom: false });
});

test('jigsaw: regions that are not nine of nine fall back to the boxes', () => {
  assert.deepEqual(geometryFor({ variant: 'jigsaw', regions: '0'.repeat(81) }).region, geometryOf().region);
  assert.deepEqual(geometryFor({ variant: 'jigsaw', regions: 'nonsense' }).region, geometryOf().region);
});

test('killer: a cage repeats no digit, may not exceed its sum, and once full must make it', () => {
  const p = PUZZLES.killer;
  const g = geometryFor(p);
  const cage = g.cages.find((c) => c.cells.length >= 3) ?? g.cages[0];
  const [a, b, c] = cage.cells;
  const board = [...p.puzzle].map(() => '.');
  // The same digit twice in the cage.
  board[a] = '1';
  board[b] = '1';
  assert.ok(clashes(g, board).has(a) && clashes(g, board).has(b));
  // Over the sum: both digits clash, whatever their houses say.
  board[a] = '9';
  board[b] = '8';
  assert.equal(clashes(g, board).has(a), cage.sum < 17);
  // Full, to the wrong sum: every cell clashes; to the right one: none.
  for (const x of cage.cells) board[x] = p.solution[x];
  assert.deepEqual([...clashes(g, board)], []);
  const wrong = [...'123456789'].find((d) => d !== p.solution[c] && !cage.cells.some((x) => board[x] === d)) ?? '';
  board[c] = wrong;
  const hit = clashes(g, board);
  for (const x of cage.cells) assert.ok(hit.has(x), `cell ${x} of the cage ${cage.cells} summing to ${cage.sum}`);
  assert.equal(g.cageOf[a], g.cages.indexOf(cage));
  assert.equal(sumCell(cage), Math.min(...cage.cells));
});

test('killer: malformed cages are left out; the boxes stay', () => {
  const g = geometryFor({ variant: 'killer', cages: [{ cells: [0, 1], sum: 3 }, { cells: [1, 2], sum: 5 }, { cells: [99], sum: 1 }, /** @type {any} */ ({ cells: 'x' })] });
  assert.equal(g.cages.length, 1);
  assert.equal(g.houses.length, 28);
  assert.deepEqual(geometryFor({ variant: 'killer' }).houses.length, 27);
});

test('cage outline: a 2×2 cage is a square inset by d; an L of three has an inner corner', () => {
  const square = geometry([], { cages: [{ cells: [0, 1, 9, 10], sum: 10 }] });
  const segs = cageOutline(square, 0.1).map((s) => s.map((x) => Math.round(x * 100) / 100));
  assert.deepEqual(segs.sort(), [
    [0.1, 0.1, 0.1, 1], [0.1, 0.1, 1, 0.1], [0.1, 1, 0.1, 1.9], [0.1, 1.9, 1, 1.9],
    [1, 0.1, 1.9, 0.1], [1, 1.9, 1.9, 1.9], [1.9, 0.1, 1.9, 1], [1.9, 1, 1.9, 1.9],
  ].sort());
  // The L: cells 0, 9, 10. Cell 0's right side runs down past its corner to meet cell 10's top.
  const l = geometry([], { cages: [{ cells: [0, 9, 10], sum: 6 }] });
  const ls = cageOutline(l, 0.1).map((s) => s.map((x) => Math.round(x * 100) / 100));
  assert.ok(ls.some((s) => s.join() === [0.9, 0.1, 0.9, 1.1].join()), JSON.stringify(ls));
  assert.ok(ls.some((s) => s.join() === [0.9, 1.1, 1.9, 1.1].join()), JSON.stringify(ls));
  assert.equal(ls.length, 8);
});
