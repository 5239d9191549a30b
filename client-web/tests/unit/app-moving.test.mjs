// @ts-check
/**
 * A room moving to another server (A12), and the socket dropping mid-race: the race goes on.
 * Placements answered `room_moving` (or typed meanwhile) wait on the board and go again after
 * `retry_ms`; a resume answered `room_moving`, or not known yet right after the drop, goes again;
 * the room shown again (`room_joined` without a token) keeps the pencil marks and selection and
 * takes what its board does not show; a room that does not come back has closed. Also the
 * link's own pauses (wire.js `Link`): growing, with jitter, and given up after GIVE_UP_MS.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { awayText } from '../../public/assets/moving.js';
import { GIVE_UP_MS, Link } from '../../public/assets/wire.js';
import { error, fakePage, joined, roomMoving } from './fakes.mjs';

const PUZZLE = `1${'.'.repeat(80)}`;

/** ann racing in ABCD, with a pencil 7 in cell 5 and cell 9 selected. */
async function racing() {
  const p = fakePage();
  await p.open();
  await p.hear(joined('ABCD', { token: 'tok-1' }));
  await p.hear({ type: 'race_started', race_id: 'r1', puzzle: PUZZLE, difficulty: 'easy', time_limit_s: 600 });
  p.act.pencilMode(true);
  p.act.place(5, 7);
  p.act.pencilMode(false);
  p.act.select(9);
  p.take();
  return p;
}

/**
 * ABCD mid-race as the server that took it over shows it: no token, `board`.
 * @param {string} board
 * @returns {import('../../public/assets/wire.js').ServerMsg}
 */
function shownAgain(board) {
  const race = { race_id: 'r1', puzzle: PUZZLE, difficulty: 'easy', time_limit_s: 600, elapsed_ms: 9000, board, mistakes: 0, progress: [] };
  const players = [{ player_id: 'p1', name: 'ann', ready: false, connected: true, status: /** @type {const} */ ('racing') }];
  return { ...joined('ABCD', { phase: 'racing' }), you: { player_id: 'p1', token: null, role: 'player' }, players, race };
}

/**
 * Run the timers due, as the browser would.
 * @param {ReturnType<typeof fakePage>} p
 */
async function fire(p) {
  for (const t of p.timers.splice(0)) t.f();
  await new Promise((resolve) => setImmediate(resolve));
}

/** @param {ReturnType<typeof fakePage>} p */
function kept(p) {
  assert.equal(p.state.race?.pencil[5], 1 << 7, 'the pencil mark');
  assert.equal(p.state.selected, 9, 'the selection');
}

test('room_moving holds the placement on the board and sends it again after retry_ms; the room shown again takes the rest', async () => {
  const p = await racing();
  p.act.place(1, 5);
  assert.deepEqual(p.take(), ['{"type":"place","cell":1,"digit":5,"id":1}']);
  await p.hear(roomMoving(1500));
  assert.equal(p.state.away?.kind, 'moving');
  assert.deepEqual(p.timers.map((t) => t.ms), [1500]);
  assert.equal(awayText(p.state, p.clock.now), 'The race moved to another server and goes on — back in 2 s');
  assert.equal(p.screen(), 'race', 'the race screen stays');
  // Typed while the room moves: on the board as pending, not sent.
  p.act.place(2, 6);
  assert.deepEqual(p.take(), []);
  assert.deepEqual([...(p.state.race?.pending.keys() ?? [])], [1, 2]);
  p.clock.now += 1500;
  await fire(p);
  assert.deepEqual(p.take(), ['{"type":"place","cell":1,"digit":5,"id":1}', '{"type":"place","cell":2,"digit":6,"id":2}']);
  await p.hear(roomMoving(1000));
  // The new server shows the room: cell 1 was taken before the old one was lost.
  await p.hear(shownAgain(`15${'.'.repeat(79)}`));
  assert.deepEqual(p.take(), ['{"type":"place","cell":2,"digit":6,"id":2}']);
  assert.equal(p.state.away, null);
  assert.equal(p.state.you?.token, 'tok-1', 'the seat keeps its token');
  kept(p);
  await p.hear({ type: 'placement', id: 2, cell: 2, digit: 6, accepted: true, reason: null, conflicts: [], mistakes: 0, penalty_ms: 0 });
  assert.equal(p.state.race?.board[2], '6');
});

test('a placement sent again while the room moves is not sent a third time when the room is shown again before its answer', async () => {
  const p = await racing();
  p.act.place(1, 5);
  p.take();
  await p.hear(roomMoving(250));
  await fire(p);
  assert.deepEqual(p.take(), ['{"type":"place","cell":1,"digit":5,"id":1}']);
  // The new server took the room over as the placement went: it shows the room (its board
  // from before the placement), then answers the placement.
  await p.hear(shownAgain(PUZZLE));
  assert.deepEqual(p.take(), [], 'on its way already');
  assert.equal(p.state.away, null);
  await p.hear({ type: 'placement', id: 1, cell: 1, digit: 5, accepted: true, reason: null, conflicts: [], mistakes: 0, penalty_ms: 0 });
  assert.equal(p.state.race?.board[1], '5');
  assert.equal(p.state.race?.pending.size, 0);
  assert.equal(p.state.race?.flash, null);
});

test('a placement nobody answered goes again a moment after the new server shows the room', async () => {
  // Relayed to an owner in the moment it died: no answer, no room_moving.
  const p = await racing();
  p.act.place(1, 5);
  assert.deepEqual(p.take(), ['{"type":"place","cell":1,"digit":5,"id":1}']);
  await p.hear(shownAgain(PUZZLE));
  assert.deepEqual(p.take(), [], 'it may still be on its way');
  assert.deepEqual(p.timers.map((t) => t.ms), [1000]);
  await fire(p);
  assert.deepEqual(p.take(), ['{"type":"place","cell":1,"digit":5,"id":1}']);
  kept(p);
});

test('a dropped socket: the race goes on, the resume goes again while the room moves, and what waited goes once it is back', async () => {
  const p = await racing();
  p.act.place(1, 5);
  p.take();
  await p.down(1006, true, 1200);
  assert.equal(awayText(p.state, p.clock.now), 'Connection lost — the race goes on. Reconnecting in 2 s…');
  assert.equal(p.state.problem, null);
  p.act.place(2, 6);
  assert.deepEqual(p.take(), [], 'held, not queued on a dead socket');
  await p.open(true);
  assert.deepEqual(p.take(), ['{"type":"resume","token":"tok-1"}']);
  await p.hear(roomMoving(1000));
  assert.equal(awayText(p.state, p.clock.now), 'The race moved to another server and goes on — back in 1 s');
  assert.deepEqual(p.take(), []);
  await fire(p);
  assert.deepEqual(p.take(), ['{"type":"resume","token":"tok-1"}']);
  // Right after the loss the server may not know the room yet: asked again, not gone.
  p.clock.now += 3000;
  await p.hear(error('unknown_room'));
  assert.equal(p.state.problem, null);
  await fire(p);
  assert.deepEqual(p.take(), ['{"type":"resume","token":"tok-1"}']);
  await p.hear(shownAgain(PUZZLE));
  assert.deepEqual(p.take(), ['{"type":"place","cell":1,"digit":5,"id":1}', '{"type":"place","cell":2,"digit":6,"id":2}']);
  assert.equal(p.state.away, null);
  assert.equal(awayText(p.state, p.clock.now), null);
  kept(p);
});

test('a room that does not come back has closed, and the page says so', async () => {
  const p = await racing();
  p.act.place(1, 5);
  await p.hear(roomMoving(250));
  for (let i = 0; i < 40 && !p.state.problem; i++) {
    p.clock.now += 2000;
    await fire(p);
    await p.hear(roomMoving(250));
  }
  assert.equal(p.state.problem?.code, 'room_closed');
  assert.equal(p.state.problem?.message, `Room ABCD has closed: it did not come back on another server within ${GIVE_UP_MS / 1000} s.`);
  assert.ok(p.clock.now - 1000 >= GIVE_UP_MS, 'not before the give-up time');
  assert.equal(p.storage.session.items.has('sudoku-race:token:ABCD'), false);
  assert.equal(p.screen(), 'problem:room_closed');
});

/** A socket that only records and lets the test close it. */
class FakeSocket {
  constructor() {
    this.OPEN = 1;
    this.readyState = 0;
    /** @type {Map<string, (ev: any) => void>} */
    this.on = new Map();
  }

  /** @param {string} type @param {(ev: any) => void} f */
  addEventListener(type, f) {
    this.on.set(type, f);
  }

  /** @param {number} code */
  close(code) {
    this.on.get('close')?.({ code });
  }
}

test('the link pauses longer after each failure, with jitter, and gives up after GIVE_UP_MS', () => {
  const clock = { now: 0 };
  /** @type {{code: number, retrying: boolean, retryInMs: number}[]} */
  const downs = [];
  /** @type {FakeSocket[]} */
  const sockets = [];
  /** @type {(() => void)[]} */
  const timers = [];
  const link = new Link({
    url: 'ws://test/ws',
    socket: () => {
      const ws = new FakeSocket();
      sockets.push(ws);
      return /** @type {any} */ (ws);
    },
    after: (f) => {
      timers.push(f);
      return () => {};
    },
    onMessage: () => {},
    onOpen: () => {},
    onDown: (info) => downs.push(info),
    now: () => clock.now,
    random: () => 0.5,
  });
  link.connect();
  while (downs.length < 40 && (downs.at(-1)?.retrying ?? true)) {
    /** @type {FakeSocket} */ (sockets.at(-1)).close(1006);
    clock.now += downs.at(-1)?.retryInMs ?? 0;
    timers.shift()?.();
  }
  const pauses = downs.filter((d) => d.retrying).map((d) => d.retryInMs);
  // 250 ms doubling up to 5 s, each an eighth more (random 0.5 of a quarter).
  assert.deepEqual(pauses.slice(0, 7), [281, 563, 1125, 2250, 4500, 5625, 5625]);
  const last = downs.at(-1);
  assert.equal(last?.retrying, false, 'given up');
  assert.ok(clock.now >= GIVE_UP_MS, `gave up after ${clock.now} ms`);
});
