// @ts-check
/**
 * The puzzle's geometry (geometry.js): the classic houses, the peers derived from them, the
 * grid's layout, and a houses list other than the classic one.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CELLS, cellAt, colOf, geometry, geometryOf, peers, rowOf } from '../../public/assets/geometry.js';

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
