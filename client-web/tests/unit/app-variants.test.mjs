// @ts-check
/**
 * Variants in the page (A10): a race keeps its variant and the seat's layout, from race_started
 * or from a race view (the room's variant); a placed digit clears its mark from the variant's
 * houses; Play now and the daily ghost ask for a variant; `unsupported_variant` fills the screen.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { geometryFor } from '../../public/assets/geometry.js';
import { DEFAULT_SETTINGS } from '../../public/assets/wire.js';
import { error, fakePage, joined } from './fakes.mjs';
import { PUZZLES } from './variants.mjs';

const KILLER = PUZZLES.killer;

/** A page in room ABCD whose killer race has started. */
async function racingKiller() {
  const p = fakePage({ local: { 'sudoku-race:key': 'k1' } });
  await p.open();
  await p.hear(joined('ABCD'));
  await p.hear({ type: 'settings_changed', settings: { ...DEFAULT_SETTINGS, variant: 'killer' } });
  await p.hear({ type: 'race_started', race_id: 'r1', puzzle: KILLER.puzzle, difficulty: 'easy', time_limit_s: 600, variant: 'killer', cages: KILLER.cages });
  return p;
}

test('race_started keeps the variant and the cages; a digit placed clears its mark from its cage too', async () => {
  const p = await racingKiller();
  const race = p.state.race;
  assert.ok(race);
  assert.equal(race.layout.variant, 'killer');
  assert.deepEqual(race.layout.cages, KILLER.cages);
  const geo = geometryFor(race.layout);
  // Two empty cells of one cage that share no row, column or box: only the cage makes them peers.
  const classic = geometryFor(null);
  const empty = geo.cages.flatMap((c) => c.cells.filter((x) => KILLER.puzzle[x] === '.').map((x) => [x, c.cells]));
  const [a, b] = empty.flatMap(([x, cells]) => /** @type {number[]} */ (cells).map((y) => [/** @type {number} */ (x), y]))
    .find(([x, y]) => x !== y && KILLER.puzzle[y] === '.' && !classic.peers[x].includes(y)) ?? [-1, -1];
  assert.ok(a >= 0, 'two such cells');
  const digit = Number(KILLER.solution[a]);
  p.act.pencilMode(true);
  p.act.place(b, digit);
  assert.ok(race.pencil[b] & (1 << digit));
  p.act.pencilMode(false);
  p.act.place(a, digit);
  await p.hear({ type: 'placement', id: 1, cell: a, digit, accepted: true, reason: null, conflicts: [], mistakes: 0, penalty_ms: 0 });
  assert.equal(race.pencil[b] & (1 << digit), 0, `the mark at ${b} is gone: it shares the cage with ${a}, nothing else`);
});

test("a race view takes the room's variant and the seat's regions", async () => {
  const p = fakePage();
  await p.open();
  const msg = joined('ABCD', { phase: 'racing' });
  assert.equal(msg.type, 'room_joined');
  if (msg.type !== 'room_joined') return;
  msg.settings = { ...msg.settings, variant: 'jigsaw' };
  msg.race = { race_id: 'r2', puzzle: PUZZLES.jigsaw.puzzle, difficulty: 'easy', time_limit_s: 600, elapsed_ms: 1000, board: PUZZLES.jigsaw.puzzle,
    mistakes: 0, progress: [], regions: PUZZLES.jigsaw.regions };
  await p.hear(msg);
  assert.deepEqual(p.state.race?.layout, { variant: 'jigsaw', regions: PUZZLES.jigsaw.regions, cages: null });
  assert.equal(p.screen(), 'race');
});

test('Play now, its queueing again after a drop, and the daily ghost never ask for a variant (the server deals them classic only)', async () => {
  const p = fakePage({ local: { 'sudoku-race:key': 'k1' } });
  await p.open();
  p.take();
  p.act.playNow('ann', 'easy');
  assert.deepEqual(p.take().map((t) => JSON.parse(t)), [{ type: 'quick_race', difficulty: 'easy', name: 'ann', key: 'k1' }]);
  await p.hear({ type: 'queued', difficulty: 'easy', waiting: 1 });
  await p.down(1006, true);
  await p.open(true);
  assert.deepEqual(p.take().map((t) => JSON.parse(t)), [{ type: 'quick_race', difficulty: 'easy', name: 'ann', key: 'k1' }]);
  p.act.raceGhost('daily', 'hard');
  assert.deepEqual(p.take().map((t) => JSON.parse(t)).at(-1), { type: 'race_ghost', ghost: 'daily', difficulty: 'hard', name: 'ann', key: 'k1' });
  p.act.joinArena('E-1', 'ann');
  assert.equal(p.take().map((t) => JSON.parse(t)).filter((m) => 'variant' in m).length, 0);
});

test('unsupported_variant fills the screen and names the room', async () => {
  const p = fakePage({ local: { 'sudoku-race:key': 'k1' } });
  await p.open();
  p.act.join('ABCD', 'ann');
  await p.hear(error('unsupported_variant', 'room ABCD plays sudoku-x2'));
  assert.equal(p.screen(), 'problem:unsupported_variant');
  assert.match(p.state.problem?.message ?? '', /^Room ABCD plays a sudoku variant this page cannot draw \(room ABCD plays sudoku-x2\)\. Reload/);
});
