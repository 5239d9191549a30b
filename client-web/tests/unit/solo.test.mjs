// @ts-check
/**
 * solo.js without a browser: placing (right, wrong, on a given, as a pencil mark), undo of each,
 * peers' pencil marks, clashes, the timer, hints (a wrong digit first, then the bank's steps in
 * order, with the technique named), the solved state, and what storage gives back. Driven over
 * the committed bank.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { doneDigits } from '../../public/assets/board.js';
import { clashes, elapsed, erase, hint, load, newGame, pause, place, puzzles, resume, save, undo } from '../../public/assets/solo.js';

/** @type {import('../../public/assets/solo.js').Bank} */
const bank = JSON.parse(readFileSync(new URL('../../public/assets/solo/bank.json', import.meta.url), 'utf8'));

/** @param {string} s */
const empties = (s) => [...s].map((c, i) => (c === '.' ? i : -1)).filter((i) => i >= 0);

test('the bank has every difficulty, and a new game wraps around its list', () => {
  for (const level of /** @type {const} */ (['easy', 'medium', 'hard', 'expert'])) {
    assert.ok(bank[level].length >= 10, level);
    const g = newGame(bank, level, bank[level].length + 1);
    assert.equal(g.index, 1);
    assert.equal(g.puzzle, bank[level][1].p);
    assert.equal(g.board, g.puzzle);
  }
});

test('a right digit, a wrong one (counted), a given, and undo of each', () => {
  const g = newGame(bank, 'easy', 0);
  const [a, b] = empties(g.puzzle);
  const right = Number(g.solution[a]);
  const wrong = (right % 9) + 1;
  assert.equal(place(g, g.puzzle.indexOf(g.puzzle.replace(/\./g, '')[0]), 1, false, 0), 'given');
  assert.equal(place(g, a, right, false, 0), 'placed');
  assert.equal(g.board[a], String(right));
  assert.equal(place(g, a, right, false, 0), 'same');
  assert.equal(place(g, b, wrong === Number(g.solution[b]) ? (wrong % 9) + 1 : wrong, false, 0), 'wrong');
  assert.equal(g.mistakes, 1);
  assert.equal(undo(g), b);
  assert.equal(g.board[b], '.');
  assert.equal(undo(g), a);
  assert.equal(g.board, g.puzzle);
  assert.equal(undo(g), -1, 'nothing left to undo');
  assert.equal(g.mistakes, 1, 'undo does not forgive a mistake');
});

test('pencil marks toggle, leave the peers of a placed digit, and come back with undo', () => {
  const g = newGame(bank, 'medium', 0);
  const cells = empties(g.puzzle);
  const a = cells[0];
  // A peer of `a` in its row that is empty.
  const peer = cells.find((i) => i !== a && Math.floor(i / 9) === Math.floor(a / 9));
  assert.ok(peer !== undefined);
  const d = Number(g.solution[a]);
  assert.equal(place(g, peer, d, true, 0), 'marked');
  assert.equal(place(g, a, 3, true, 0), 'marked');
  assert.equal(g.pencil[peer], 1 << d);
  assert.equal(g.pencil[a], 1 << 3);
  place(g, a, d, false, 0);
  assert.equal(g.pencil[peer], 0, "the placed digit left the peer's marks");
  assert.equal(g.pencil[a], 0);
  undo(g);
  assert.equal(g.pencil[peer], 1 << d);
  assert.equal(g.pencil[a], 1 << 3);
  assert.equal(g.board[a], '.');
  undo(g);
  assert.equal(g.pencil[a], 0, 'undo of a pencil mark');
  assert.equal(erase(g, peer), true);
  assert.equal(g.pencil[peer], 0);
  undo(g);
  assert.equal(g.pencil[peer], 1 << d, 'undo of an erase');
});

test('clashes mark both cells; a solved board has all nine of every digit', () => {
  const g = newGame(bank, 'easy', 2);
  const a = empties(g.puzzle)[0];
  const row = Math.floor(a / 9);
  const given = [...Array(9).keys()].map((c) => row * 9 + c).find((i) => g.puzzle[i] !== '.');
  assert.ok(given !== undefined);
  place(g, a, Number(g.puzzle[given]), false, 0);
  assert.deepEqual([...clashes(g)].sort((x, y) => x - y), [a, given].sort((x, y) => x - y));
  assert.deepEqual([...doneDigits(g.solution)].sort(), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.ok(doneDigits(g.puzzle).size < 9);
});

test('the timer counts while it runs, stops on pause, and freezes when solved', () => {
  const g = newGame(bank, 'easy', 3);
  resume(g, 1000);
  assert.equal(elapsed(g, 4000), 3000);
  pause(g, 5000);
  assert.equal(elapsed(g, 99_000), 4000);
  resume(g, 10_000);
  for (const i of empties(g.puzzle)) place(g, i, Number(g.solution[i]), false, 11_000);
  assert.equal(g.solved_ms, 5000);
  assert.equal(elapsed(g, 50_000), 5000);
  assert.equal(place(g, 0, 1, false, 0), 'done');
  assert.equal(undo(g), -1, 'a solved game stays solved');
  assert.equal(hint(g, bank), null);
});

test('hints: a wrong digit first, then the bank steps in order, naming the technique', () => {
  const g = newGame(bank, 'hard', 0);
  const e = bank.hard[0];
  const first = Number(e.h.slice(0, 2));
  const other = empties(g.puzzle).find((i) => i !== first) ?? -1;
  const bad = (Number(g.solution[other]) % 9) + 1;
  place(g, other, bad, false, 0);
  const h1 = hint(g, bank);
  assert.equal(h1?.kind, 'wrong');
  assert.equal(h1?.cell, other);
  undo(g);
  // Follow every hint: each places the solution's digit, and the game ends solved.
  let withVia = 0;
  for (let n = 0; n < 81; n++) {
    const h = hint(g, bank);
    if (!h) break;
    assert.equal(h.kind, 'step');
    if (h.kind !== 'step') return;
    assert.ok(bank.techniques.includes(h.technique), h.technique);
    assert.match(h.text, new RegExp(`r${Math.floor(h.cell / 9) + 1}c${(h.cell % 9) + 1} is ${h.digit}`));
    assert.equal(String(h.digit), g.solution[h.cell]);
    if (h.via) {
      withVia += 1;
      assert.ok(h.text.toLowerCase().startsWith(h.via), h.text);
      assert.ok(h.cells.length > 1);
    }
    assert.equal(place(g, h.cell, h.digit, false, 0), 'placed');
  }
  assert.equal(g.board, g.solution);
  assert.ok(withVia > 0, 'a hard puzzle needs a technique above singles');
  assert.equal(g.hints, empties(g.puzzle).length + 1);
});

test('storage gives back the game as it was, and refuses a damaged one', () => {
  const g = newGame(bank, 'expert', 4);
  resume(g, 0);
  const [a, b] = empties(g.puzzle);
  place(g, a, 5, true, 0);
  place(g, b, Number(g.solution[b]), false, 0);
  const back = load(save(g, 7000));
  assert.ok(back);
  assert.equal(back.board, g.board);
  assert.deepEqual(back.pencil, g.pencil);
  assert.equal(back.elapsed_ms, 7000);
  assert.equal(back.since, null);
  assert.equal(undo(back), b);
  assert.equal(undo(back), a);
  assert.equal(back.pencil[a], 0);
  const kept = JSON.parse(save(g, 0));
  const givenAt = [...g.puzzle].findIndex((c) => c !== '.');
  const damaged = [
    { ...kept, solution: '1'.repeat(80) },
    { ...kept, level: 'x' },
    { ...kept, board: kept.board.slice(0, givenAt) + '.' + kept.board.slice(givenAt + 1) },
    { ...kept, pencil: [1, 2] },
  ].map((o) => JSON.stringify(o));
  for (const bad of [null, '', '{', '{"v":2}', ...damaged]) {
    assert.equal(load(bad), null, String(bad).slice(0, 40));
  }
});

test('variants (A10): the bank has two puzzles of each variant at each difficulty, each solved by its solution without a clash', () => {
  for (const variant of ['x', 'windoku', 'jigsaw', 'killer']) {
    for (const level of /** @type {const} */ (['easy', 'medium', 'hard', 'expert'])) {
      assert.equal(puzzles(bank, level, variant).length, 2, `${variant} ${level}`);
      const g = newGame(bank, level, 3, variant);
      assert.equal(g.index, 1);
      assert.equal(g.layout.variant, variant);
      assert.equal(!!g.layout.regions, variant === 'jigsaw');
      assert.equal(!!g.layout.cages, variant === 'killer');
      g.board = g.solution;
      assert.deepEqual([...clashes(g)], [], `${variant} ${level}`);
    }
  }
  // A variant the bank has none of is a classic game.
  assert.deepEqual(newGame(bank, 'easy', 0, 'sudoku-x2').layout, { variant: 'classic' });
});

test('killer in solo: a cage past its sum clashes; a placed digit clears its mark from its cage; the game keeps its cages', () => {
  const g = newGame(bank, 'easy', 0, 'killer');
  const cages = g.layout.cages ?? [];
  // A cage of two empty cells whose sum is small: two big digits go past it.
  const cage = cages.find((c) => c.cells.length === 2 && c.sum <= 11 && c.cells.every((x) => g.puzzle[x] === '.'));
  assert.ok(cage, 'a small cage of two empty cells');
  const [a, b] = cage.cells;
  place(g, b, 4, true, 0);
  place(g, a, 9, false, 0);
  assert.equal(g.pencil[b] & (1 << 9), 0, 'not marked 9');
  place(g, b, 9, true, 0);
  place(g, a, 4, false, 0);
  assert.equal(g.pencil[b] & (1 << 4), 0, 'the 4 is cleared: the cage is a house');
  place(g, b, 8, false, 0);
  assert.ok(clashes(g).has(a) && clashes(g).has(b), `4 + 8 against ${cage.sum}`);
  const back = load(save(g, 0));
  assert.deepEqual(back?.layout, g.layout);
  // A game kept before variants is classic.
  const old = JSON.parse(save(g, 0));
  delete old.layout;
  assert.deepEqual(load(JSON.stringify(old))?.layout, { variant: 'classic' });
});
