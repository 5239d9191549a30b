// @ts-check
/**
 * The board's helpers for the eye (issue 23): a cell's peers, the cells holding the selected
 * digit, the digits all placed; and pencil marks cleared from the peers of an accepted digit,
 * a setting kept in local storage (`sudoku-race:auto-clear`).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { doneDigits, highlights } from '../../public/assets/board.js';
import { peers } from '../../public/assets/state.js';
import { fakePage, joined } from './fakes.mjs';

/** Row-major cell of a row and column (1-based, as a player says them). @param {number} r @param {number} c */
const rc = (r, c) => (r - 1) * 9 + (c - 1);

test('peers: the 8 others of the row, of the column and of the box, 20 in all', () => {
  const check = (/** @type {number} */ cell, /** @type {number[]} */ some, /** @type {number[]} */ none) => {
    const p = peers(cell);
    assert.equal(p.size, 20, `cell ${cell}`);
    assert.ok(!p.has(cell), 'not itself');
    for (const x of some) assert.ok(p.has(x), `${x} is a peer of ${cell}`);
    for (const x of none) assert.ok(!p.has(x), `${x} is no peer of ${cell}`);
  };
  check(rc(1, 1), [rc(1, 9), rc(9, 1), rc(3, 3), rc(2, 2)], [rc(4, 4), rc(2, 4), rc(4, 2)]);
  check(rc(5, 5), [rc(5, 1), rc(1, 5), rc(4, 4), rc(6, 6)], [rc(1, 1), rc(3, 4), rc(7, 6)]);
  check(rc(9, 9), [rc(9, 1), rc(1, 9), rc(7, 7)], [rc(6, 6), rc(8, 6)]);
});

test('highlights: the selected digit everywhere (itself too), none for an empty cell', () => {
  const board = [...`12.${'.'.repeat(6)}${'.'.repeat(9)}..1${'.'.repeat(59)}1`];
  assert.equal(board.length, 81);
  const on1 = highlights(board, 0);
  assert.deepEqual([...on1.same].sort((a, b) => a - b), [0, 20, 80]);
  assert.equal(on1.peers.size, 20);
  assert.deepEqual([...highlights(board, 1).same], [1]);
  const empty = highlights(board, 2);
  assert.equal(empty.same.size, 0);
  assert.equal(empty.peers.size, 20);
});

test('doneDigits: a digit counts once all nine are on the board', () => {
  const solved = [...'534678912672195348198342567859761423426853791713924856961537284287419635345286179'];
  assert.deepEqual([...doneDigits(solved)].sort(), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const one5Missing = solved.map((d, i) => (i === 0 ? '.' : d));
  assert.ok(!doneDigits(one5Missing).has(5));
  assert.equal(doneDigits(one5Missing).size, 8);
  assert.equal(doneDigits([...'.'.repeat(81)]).size, 0);
});

/**
 * A page in a racing room with an empty board, a pencil mark of `digit` on `peer`, after
 * `digit` was accepted at `cell`: the peer's marks.
 * @param {Record<string, string>} local
 * @param {(p: ReturnType<typeof fakePage>) => void} [before]
 */
async function markThenAccept(local, before) {
  const p = fakePage({ local });
  await p.open();
  await p.hear(joined('ABCD'));
  await p.hear({ type: 'countdown', starts_in_ms: 0 });
  await p.hear({ type: 'race_started', race_id: 'r1', puzzle: '.'.repeat(81), difficulty: 'easy', time_limit_s: 600 });
  before?.(p);
  p.act.pencilMode(true);
  p.act.place(rc(1, 9), 4);
  p.act.place(rc(1, 9), 6);
  p.act.place(rc(5, 5), 4);
  p.act.pencilMode(false);
  p.take();
  p.act.place(rc(1, 1), 4);
  const [place] = p.take().map((m) => JSON.parse(m));
  assert.equal(place.type, 'place');
  await p.hear({ type: 'placement', id: place.id, cell: rc(1, 1), digit: 4, accepted: true, conflicts: [], mistakes: 0, penalty_ms: 0 });
  const race = p.state.race;
  assert.ok(race);
  return { p, peer: race.pencil[rc(1, 9)], far: race.pencil[rc(5, 5)] };
}

test('an accepted digit clears its mark from the peers by default; a far cell keeps it', async () => {
  const { p, peer, far } = await markThenAccept({});
  assert.equal(p.state.auto_clear, true);
  assert.equal(peer, 1 << 6, 'the 4 is gone from r1c9, its 6 stays');
  assert.equal(far, 1 << 4, 'r5c5 is no peer of r1c1');
});

test('with the setting off the marks stay; the setting is kept, and read on the next page', async () => {
  const { p, peer } = await markThenAccept({}, (page) => page.act.autoClear(false));
  assert.equal(peer, (1 << 4) | (1 << 6));
  assert.equal(p.storage.local.getItem('sudoku-race:auto-clear'), 'off');
  const again = await markThenAccept({ 'sudoku-race:auto-clear': 'off' });
  assert.equal(again.p.state.auto_clear, false);
  assert.equal(again.peer, (1 << 4) | (1 << 6));
  // Leaving the room keeps it.
  again.p.act.again('room');
  assert.equal(again.p.state.auto_clear, false);
});
