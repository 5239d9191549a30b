// @ts-check
/**
 * control.js's pool flow (A7): Play now sends `quick_race` (with the kept key, or after
 * registering one), `queued` shows the queue screen with its count, Cancel and `left_queue` go
 * home, a pool room's results lead back to the pool with `requeue`, and a queued page that lost
 * its socket queues again.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { error, fakePage, joined } from './fakes.mjs';

const KEY = { 'sudoku-race:key': 'k1' };

/** A page at / with a key, queued for an easy race as ann. */
async function queued() {
  const p = fakePage({ local: KEY });
  await p.open();
  p.act.playNow('ann', 'easy');
  await p.hear({ type: 'queued', difficulty: 'easy', waiting: 1 });
  p.take();
  return p;
}

test('Play now sends quick_race with the kept key and the name; queued shows the queue with its count', async () => {
  const p = fakePage({ local: KEY });
  await p.open();
  p.take();
  p.act.playNow('ann', 'hard');
  assert.deepEqual(p.take(), ['{"type":"quick_race","difficulty":"hard","name":"ann","key":"k1"}']);
  assert.equal(p.storage.local.items.get('sudoku-race:name'), 'ann');
  assert.equal(p.screen(), 'home', 'queued before the server said so');
  p.clock.now = 2000;
  await p.hear({ type: 'queued', difficulty: 'hard', waiting: 1 });
  assert.equal(p.screen(), 'queue');
  assert.deepEqual(p.state.queue, { difficulty: 'hard', waiting: 1, since: 2000, alone: false });
  p.clock.now = 2500;
  await p.hear({ type: 'queued', difficulty: 'hard', waiting: 3 });
  assert.deepEqual(p.state.queue, { difficulty: 'hard', waiting: 3, since: 2000, alone: false }, 'the wait keeps its start');
  await p.hear({ type: 'pool_alone', ghost: null });
  assert.equal(p.state.queue?.alone, true);
  // The queue's clock moves on the page's tick.
  const n = p.drawn.length;
  p.app.tick();
  assert.equal(p.drawn.length, n + 1);
});

test('Play now without a key registers one first, then queues with it; a forgotten key registers again', async () => {
  const p = fakePage();
  await p.open();
  p.take();
  p.act.playNow('bo', 'easy');
  assert.deepEqual(p.take(), ['{"type":"register","name":"bo"}']);
  await p.hear({ type: 'registered', key: 'k-new', handle: 'bo' });
  assert.deepEqual(p.take(), ['{"type":"quick_race","difficulty":"easy","name":"bo","key":"k-new"}']);

  await p.hear(error('invalid_key'));
  assert.equal(p.storage.local.items.has('sudoku-race:key'), false);
  assert.deepEqual(p.take(), ['{"type":"register","name":"bo"}']);
  await p.hear({ type: 'registered', key: 'k-2', handle: 'bo2' });
  assert.deepEqual(p.take(), ['{"type":"quick_race","difficulty":"easy","name":"bo","key":"k-2"}']);
});

test('Cancel sends leave_queue; left_queue goes home and lists the rooms again', async () => {
  const p = await queued();
  p.act.leaveQueue();
  assert.deepEqual(p.take(), ['{"type":"leave_queue"}']);
  assert.equal(p.screen(), 'queue', 'home before the server let go');
  await p.hear({ type: 'left_queue' });
  assert.equal(p.state.queue, null);
  assert.equal(p.screen(), 'home');
  assert.deepEqual(p.take(), ['{"type":"list_rooms"}']);
});

test('a pool room: the race screen from its first moment, the seat kept, Race again requeues and the page goes back to the queue', async () => {
  const p = await queued();
  await p.hear(joined('POOL7', { pool: true, token: 'tok-p' }));
  assert.equal(p.state.queue, null);
  assert.equal(p.state.host, null);
  assert.equal(p.screen(), 'race', "a pool room's lobby is the race screen's get-ready");
  assert.equal(p.storage.session.items.get('sudoku-race:token:POOL7'), 'tok-p');
  assert.deepEqual(p.replaced, ['/r/POOL7']);
  await p.hear({ type: 'countdown', starts_in_ms: 500 });
  await p.hear({ type: 'race_started', race_id: 'r1', puzzle: `1${'.'.repeat(80)}`, difficulty: 'easy', time_limit_s: 600 });
  // A8: a pool race deals every seat its own isomorph; the results show the one in our standing.
  const own = `1${'2'.repeat(80)}`;
  await p.hear({ type: 'race_over', race_id: 'r1', reason: 'all_finished', solution: '1'.repeat(81),
    standings: [
      { rank: 1, player_id: 'p1', name: 'ann', status: 'solved', time_ms: 1234, filled: 80, mistakes: 0, solution: own },
      { rank: 2, player_id: 'p2', name: 'bob', status: 'forfeited', time_ms: null, filled: 0, mistakes: 0, solution: '3'.repeat(81) },
    ] });
  assert.equal(p.screen(), 'results');
  assert.equal(p.state.standings?.find((t) => t.player_id === 'p1')?.solution, own, 'our own solution is kept for the results');
  p.take();

  p.clock.now = 9000;
  p.act.requeue();
  assert.deepEqual(p.take(), ['{"type":"requeue"}']);
  // The room lets go of the seat, then the pool answers.
  await p.hear({ type: 'player_left', player_id: 'p1' });
  await p.hear({ type: 'queued', difficulty: 'easy', waiting: 1 });
  assert.equal(p.screen(), 'queue');
  assert.deepEqual(p.state.queue, { difficulty: 'easy', waiting: 1, since: 9000, alone: false });
  assert.equal(p.state.room, null);
  assert.equal(p.storage.session.items.has('sudoku-race:token:POOL7'), false);
  assert.deepEqual(p.replaced, ['/r/POOL7', '/'], 'a reload opens the start page, not the old room');
  assert.equal(p.titles.at(-1), 'sudoku-race');

  // Seated again: the next pool room.
  await p.hear(joined('POOL8', { pool: true, phase: 'countdown' }));
  assert.equal(p.screen(), 'race');
});

test('a queued page that lost its socket queues again when it is back; one in a pool room resumes its seat', async () => {
  const p = await queued();
  await p.down(1006, true);
  assert.equal(p.screen(), 'queue');
  await p.open(true);
  assert.deepEqual(p.take(), ['{"type":"quick_race","difficulty":"easy","name":"ann","key":"k1"}']);

  await p.hear(joined('POOL7', { pool: true, token: 'tok-p', phase: 'racing' }));
  p.take();
  await p.down(1006, true);
  await p.open(true);
  assert.deepEqual(p.take(), ['{"type":"resume","token":"tok-p"}']);
});

test('after Race again the page queues again under the name it raced with', async () => {
  const p = fakePage({ local: { ...KEY, 'sudoku-race:name': 'other' } });
  await p.open();
  await p.hear(joined('POOL7', { pool: true, phase: 'finished' }));
  p.act.requeue();
  await p.hear({ type: 'queued', difficulty: 'medium', waiting: 2 });
  p.take();
  await p.down(1006, true);
  await p.open(true);
  assert.deepEqual(p.take(), ['{"type":"quick_race","difficulty":"medium","name":"ann","key":"k1"}']);
});
