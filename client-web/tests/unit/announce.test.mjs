// @ts-check
/** assets/announce.js: the race's live-region words, and that an announcer says each event once. */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countdownWord, createAnnouncer, finish, refusal, where } from '../../public/assets/announce.js';
import { initial } from '../../public/assets/state.js';

/** A state in a room as the player `me`, with ann and bob. */
function room() {
  const s = initial();
  s.room = 'K7QRM';
  s.you = { player_id: 'me', role: 'player', token: 't' };
  s.players = ['me', 'ann', 'bob'].map((id) => ({ player_id: id, name: id, ready: false, connected: true, status: /** @type {const} */ ('waiting') }));
  return s;
}

/**
 * The race `id` started at `now` 0.
 * @param {import('../../public/assets/state.js').State} s
 * @param {string} id
 */
function started(s, id) {
  s.phase = 'racing';
  s.countdown_at = null;
  s.race = { race_id: id, puzzle: '.'.repeat(81), difficulty: 'easy', time_limit_s: 600, clock0: 0, frozen_ms: null, board: [...'.'.repeat(81)],
    pencil: new Array(81).fill(0), mistakes: 0, penalty_ms: 0, progress: new Map(), done: new Map(), flash: null, pending: new Map() };
  return s.race;
}

test('cells, refusals, finishes and the countdown in words', () => {
  assert.equal(where(0), 'row 1, column 1');
  assert.equal(where(80), 'row 9, column 9');
  assert.equal(refusal({ cell: 2, digit: 5, kind: 'wrong', cells: [] }), '5 at row 1, column 3 is wrong.');
  assert.equal(refusal({ cell: 2, digit: 5, kind: 'conflict', cells: [6] }), '5 at row 1, column 3 clashes with row 1, column 7.');
  assert.equal(refusal({ cell: 2, digit: 5, kind: 'conflict', cells: [6, 2, 20] }),
    '5 at row 1, column 3 clashes with row 1, column 7 and row 3, column 3.');
  assert.equal(refusal({ cell: 2, digit: 5, kind: 'conflict', cells: [] }), '5 at row 1, column 3 clashes with a digit in its row, column or box.');
  assert.equal(refusal({ cell: 9, digit: 1, kind: 'given', cells: [] }), 'row 2, column 1 is a given: it cannot change.');
  assert.equal(refusal({ cell: 9, digit: 1, kind: 'filled', cells: [] }), 'row 2, column 1 is already filled.');
  assert.equal(finish('ann', { status: 'solved', time_ms: 62_345 }, false), 'ann solved in 1:02.3.');
  assert.equal(finish('bob', { status: 'forfeited', time_ms: null }, false), 'bob forfeited.');
  assert.equal(finish('cy', { status: 'timed_out', time_ms: null }, false), 'cy ran out of time.');
  assert.equal(finish('me', { status: 'solved', time_ms: 5000 }, true), 'You solved it in 0:05.0. Waiting for the others.');
  assert.equal(finish('me', { status: 'eliminated', time_ms: null }, true), 'You are out: too many mistakes. The race goes on.');
  assert.deepEqual([3000, 2999, 2001, 1000, 1, 0, -5].map(countdownWord),
    ['Race starts in 3', 'Race starts in 3', 'Race starts in 3', 'Race starts in 1', 'Race starts in 1', 'Go', 'Go']);
});

test('an announcer says each event once: countdown, Go, a refusal (again when repeated), each finish', () => {
  const s = room();
  const a = createAnnouncer();
  s.phase = 'countdown';
  s.countdown_at = 3000;
  /** @type {(string | null)[]} */
  const said = [0, 200, 1100, 1300, 2100, 2900].map((now) => a.next(s, now));
  assert.deepEqual(said, ['Race starts in 3', null, 'Race starts in 2', null, 'Race starts in 1', null]);
  const race = started(s, 'R1');
  assert.equal(a.next(s, 3000), 'Go');
  assert.equal(a.next(s, 3200), null, 'nothing new: nothing said');
  race.flash = { cells: [], at: 3300, kind: 'wrong', cell: 2, digit: 5 };
  assert.equal(a.next(s, 3300), '5 at row 1, column 3 is wrong.');
  assert.equal(a.next(s, 3500), null);
  race.flash = { cells: [], at: 3600, kind: 'wrong', cell: 2, digit: 5 };
  assert.equal(a.next(s, 3600), '5 at row 1, column 3 is wrong.', 'the same refusal twice is said twice');
  race.done.set('ann', { status: 'solved', time_ms: 62_345 });
  race.done.set('bob', { status: 'forfeited', time_ms: null });
  assert.equal(a.next(s, 4000), 'ann solved in 1:02.3. bob forfeited.');
  assert.equal(a.next(s, 4200), null);
  race.done.set('me', { status: 'solved', time_ms: 70_000 });
  assert.equal(a.next(s, 4400), 'You solved it in 1:10.0. Waiting for the others.');
  // A rematch: its countdown and its events are said afresh.
  s.phase = 'countdown';
  s.race = null;
  s.countdown_at = 6000;
  assert.equal(a.next(s, 5500), 'Race starts in 1');
  assert.equal(a.next(s, 6000), 'Go');
  started(s, 'R2');
  assert.equal(a.next(s, 6100), null, 'Go was said when the countdown reached it');
  s.race?.done.set('ann', { status: 'solved', time_ms: 1000 });
  assert.equal(a.next(s, 6200), 'ann solved in 0:01.0.');
});

test('a spectator who comes in mid-race hears that it watches, not a Go', () => {
  const s = room();
  s.you = { player_id: 'spec', role: 'spectator' };
  const a = createAnnouncer();
  started(s, 'R1');
  assert.equal(a.next(s, 100), 'You are watching the race.');
  assert.equal(a.next(s, 300), null);
});
