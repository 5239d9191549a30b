// @ts-check
/**
 * control.js's ghosts and arenas (A7): Race my best / the daily winner / the pool's offered ghost
 * send `race_ghost` with the key; an arena's member keeps its standings, sees the arena page
 * between races, has each arena race's results ask for the next race by themselves while the
 * arena runs (at once on Race again, never after its end), joins it again after a drop, and
 * leaves it on Leave. The arena page's own pure parts (`arenaState`, `nextRaceIn`) too.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SETTINGS } from '../../public/assets/wire.js';
import { NEXT_MS } from '../../public/assets/control.js';
import { arenaState, arenaWhen, nextRaceIn } from '../../public/assets/screens/arena.js';
import { fakePage, joined } from './fakes.mjs';

const KEY = { 'sudoku-race:key': 'k1', 'sudoku-race:name': 'ann' };
const HOUR = 3_600_000;

/**
 * An arena as the server describes it, running now unless told otherwise.
 * @param {{starts?: number, ends?: number}} [opts]
 * @returns {import('../../types/wire.js').ArenaInfo}
 */
function arenaInfo({ starts = Date.now() - HOUR, ends = Date.now() + HOUR } = {}) {
  return { arena_id: 'blitz-1', name: 'Blitz', difficulty: 'easy', starts_unix_ms: starts, ends_unix_ms: ends,
    state: starts > Date.now() ? 'upcoming' : 'running', players: 3 };
}

/** A `room_joined` for one of arena blitz-1's races. @param {string} room @param {'lobby' | 'finished'} [phase] */
function arenaRoom(room, phase = 'lobby') {
  const j = joined(room, { pool: true, token: `tok-${room}`, phase });
  if (j.type === 'room_joined') j.settings = { ...DEFAULT_SETTINGS, public: false, pool: true, arena: 'blitz-1' };
  return j;
}

/** The race in the room runs and ends. @param {ReturnType<typeof fakePage>} p @param {string} id */
async function raceOver(p, id) {
  await p.hear({ type: 'countdown', starts_in_ms: 0 });
  await p.hear({ type: 'race_started', race_id: id, puzzle: `1${'.'.repeat(80)}`, difficulty: 'easy', time_limit_s: 600 });
  await p.hear({ type: 'race_over', race_id: id, reason: 'all_finished', solution: '1'.repeat(81),
    standings: [{ rank: 1, player_id: 'p1', name: 'ann', status: 'solved', time_ms: 1234, filled: 80, mistakes: 0 }] });
}

test('a ghost race asks race_ghost with the key: my best at a difficulty, the daily winner, a race id', async () => {
  const p = fakePage({ local: KEY });
  await p.open();
  p.take();
  p.act.raceGhost('best', 'hard');
  p.act.raceGhost('daily', 'easy');
  p.act.raceGhost('K7QRM-1');
  assert.deepEqual(p.take(), [
    '{"type":"race_ghost","ghost":"best","difficulty":"hard","name":"ann","key":"k1"}',
    '{"type":"race_ghost","ghost":"daily","difficulty":"easy","name":"ann","key":"k1"}',
    '{"type":"race_ghost","ghost":"K7QRM-1","name":"ann","key":"k1"}',
  ]);
  // The ghost's room is a room like any: its seat is marked.
  const j = joined('GHOST1', { token: 'tok-g' });
  if (j.type === 'room_joined') j.players.push({ player_id: 'p2', name: 'ghost of bob', ready: false, connected: true, status: 'waiting', ghost: true });
  await p.hear(j);
  assert.equal(p.screen(), 'lobby');
  assert.equal(p.state.players[1].ghost, true);
});

test('the handle registered is kept, so the player page knows your own', async () => {
  const p = fakePage();
  await p.open();
  p.act.raceGhost('best', 'easy');
  await p.hear({ type: 'registered', key: 'k-new', handle: 'hABCDEFG' });
  assert.equal(p.act.handle(), 'hABCDEFG');
  assert.equal(p.storage.local.items.get('sudoku-race:handle'), 'hABCDEFG');
});

test("the pool's offered ghost: pool_alone keeps it, and racing it leaves the queue first", async () => {
  const p = fakePage({ local: KEY });
  await p.open();
  p.act.playNow('ann', 'easy');
  await p.hear({ type: 'queued', difficulty: 'easy', waiting: 1 });
  await p.hear({ type: 'pool_alone', ghost: 'E-77' });
  assert.equal(p.state.queue?.ghost, 'E-77');
  p.take();
  p.act.raceGhost('E-77');
  assert.deepEqual(p.take(), ['{"type":"leave_queue"}', '{"type":"race_ghost","ghost":"E-77","name":"ann","key":"k1"}']);
});

test('an arena: joined and its standings kept, its page between races, its race results ask for the next race by themselves', async () => {
  const p = fakePage({ local: KEY });
  await p.open();
  p.take();
  p.act.joinArena('blitz-1', 'ann');
  assert.deepEqual(p.take(), ['{"type":"join_arena","arena_id":"blitz-1","name":"ann","key":"k1"}']);
  await p.hear({ type: 'arena_joined', arena: arenaInfo() });
  assert.equal(p.screen(), 'arenas', 'a member in no room sees the arena');
  const standings = [{ handle: 'hA', name: 'ann', points: 6, races: 2, wins: 2, streak: 2 }];
  await p.hear({ type: 'arena_standings', arena_id: 'blitz-1', standings });
  await p.hear({ type: 'arena_standings', arena_id: 'other', standings: [] });
  assert.deepEqual(p.state.arena?.standings, standings, "another arena's table is not ours");

  await p.hear(arenaRoom('AR1'));
  assert.equal(p.screen(), 'race');
  p.clock.now = 50_000;
  await raceOver(p, 'r1');
  assert.equal(p.screen(), 'results');
  assert.equal(p.state.arena?.next_at, 50_000 + NEXT_MS);
  assert.equal(nextRaceIn(p.state, 51_200), 4);
  const timer = p.timers.at(-1);
  assert.equal(timer?.ms, NEXT_MS);
  p.take();
  timer?.f();
  assert.deepEqual(p.take(), ['{"type":"requeue"}']);
  assert.equal(nextRaceIn(p.state, 51_200), null, 'asked: no countdown');
  // The arena's pool answers; between races the page shows the arena, not the open pool's queue.
  await p.hear({ type: 'queued', difficulty: 'easy', waiting: 2 });
  assert.equal(p.screen(), 'arenas');
  // The standings kept across a second arena_joined (joined again after a drop).
  await p.hear({ type: 'arena_joined', arena: arenaInfo() });
  assert.deepEqual(p.state.arena?.standings, standings);

  // Race again at once: the timer that follows asks nothing more.
  await p.hear(arenaRoom('AR2'));
  await raceOver(p, 'r2');
  p.take();
  p.act.requeue();
  assert.deepEqual(p.take(), ['{"type":"requeue"}']);
  p.timers.at(-1)?.f();
  assert.deepEqual(p.take(), [], 'asked twice');
});

test('after the arena ends its results ask for nothing; a pool race outside it neither', async () => {
  const p = fakePage({ local: KEY });
  await p.open();
  await p.hear({ type: 'arena_joined', arena: arenaInfo({ starts: Date.now() - 2 * HOUR, ends: Date.now() - 1 }) });
  await p.hear(arenaRoom('AR1'));
  const n = p.timers.length;
  await raceOver(p, 'r1');
  assert.equal(p.timers.length, n, 'the arena is over');
  assert.equal(p.state.arena?.next_at, null);

  const q = fakePage({ local: KEY });
  await q.open();
  await q.hear({ type: 'arena_joined', arena: arenaInfo() });
  await q.hear(joined('POOL1', { pool: true }));
  const m = q.timers.length;
  await raceOver(q, 'r1');
  assert.equal(q.timers.length, m, 'not an arena room');
});

test('a member that lost its socket joins the arena again between races, resumes its seat in a race; Leave leaves', async () => {
  const p = fakePage({ local: KEY });
  await p.open();
  p.act.joinArena('blitz-1', 'ann');
  await p.hear({ type: 'arena_joined', arena: arenaInfo() });
  await p.hear({ type: 'queued', difficulty: 'easy', waiting: 1 });
  p.take();
  await p.down(1006, true);
  await p.open(true);
  assert.deepEqual(p.take(), ['{"type":"join_arena","arena_id":"blitz-1","name":"ann","key":"k1"}']);

  await p.hear(arenaRoom('AR1'));
  p.take();
  await p.down(1006, true);
  await p.open(true);
  assert.deepEqual(p.take(), ['{"type":"resume","token":"tok-AR1"}']);

  // Leaving the room leaves the arena too.
  p.act.leave();
  assert.deepEqual(p.take(), ['{"type":"leave_arena"}', '{"type":"leave"}']);

  const q = fakePage({ local: KEY, hash: '#/arenas' });
  await q.open();
  await q.hear({ type: 'arena_joined', arena: arenaInfo() });
  q.take();
  q.act.leaveArena();
  assert.deepEqual(q.take(), ['{"type":"leave_arena"}']);
  await q.hear({ type: 'left_arena', arena_id: 'blitz-1' });
  assert.equal(q.state.arena, null);
  assert.equal(q.screen(), 'arenas', 'the list stays at #/arenas');
});

test("an arena's state and its words follow the clock, whatever the list said", () => {
  const a = arenaInfo({ starts: 10_000, ends: 70_000 });
  assert.equal(arenaState(a, 9_999), 'upcoming');
  assert.equal(arenaState(a, 10_000), 'running');
  assert.equal(arenaState(a, 70_000), 'finished');
  assert.equal(arenaState({ ...a, state: 'finished' }, 20_000), 'finished');
  assert.equal(arenaWhen(a, 0), 'starts in 0:10');
  assert.equal(arenaWhen(a, 15_000), 'ends in 0:55');
  assert.equal(arenaWhen(a, 80_000), 'is over');
});
