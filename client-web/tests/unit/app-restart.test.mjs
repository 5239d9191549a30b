// @ts-check
/**
 * A server restarting for an update (A9): a room closed for a drain or a shutdown, or an ask
 * answered `server_draining`, fills the screen with those words and offers Play now or a new
 * room, each on a new connection.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SETTINGS } from '../../public/assets/wire.js';
import { error, fakePage, joined } from './fakes.mjs';

/** A page with a key, seated as ann in room ABCD, a hard room. */
async function seated() {
  const p = fakePage({ local: { 'sudoku-race:key': 'k1' } });
  await p.open();
  p.act.join('ABCD', 'ann');
  await p.hear({ ...joined('ABCD'), settings: { ...DEFAULT_SETTINGS, difficulty: 'hard' } });
  p.take();
  return p;
}

test('a room closed for a drain says the server is restarting, and Play now queues on a new connection', async () => {
  for (const reason of /** @type {const} */ (['drain', 'shutdown'])) {
    const p = await seated();
    await p.hear({ type: 'room_closed', room: 'ABCD', reason });
    assert.equal(p.screen(), 'problem:restarting', reason);
    assert.equal(
      p.state.problem?.message,
      'Room ABCD has closed: the server is restarting for an update. Races that ended are saved: connect again to play on.',
    );
    assert.equal(p.link.stops, 1, 'the old connection is let go');
    assert.equal(p.storage.session.items.size, 0, 'the seat token goes with the room');
    const connects = p.link.connects;
    p.act.again('pool');
    assert.equal(p.link.connects, connects + 1, 'a new connection');
    assert.deepEqual(p.take(), ['{"type":"quick_race","difficulty":"hard","name":"ann","key":"k1"}']);
    assert.equal(p.state.problem, null);
    await p.hear({ type: 'queued', difficulty: 'hard', waiting: 1 });
    assert.equal(p.screen(), 'queue');
  }
});

test('server_draining for Play now offers the same, and New room asks for a room at that difficulty', async () => {
  const p = fakePage({ local: { 'sudoku-race:key': 'k1' } });
  await p.open();
  p.act.playNow('ann', 'expert');
  p.take();
  await p.hear(error('server_draining'));
  assert.equal(p.screen(), 'problem:restarting');
  assert.equal(
    p.state.problem?.message,
    'The server is restarting for an update. Races that ended are saved: connect again to play on.',
  );
  assert.equal(p.link.stops, 1);
  p.act.again('room');
  const [sent, ...rest] = p.take();
  assert.deepEqual(rest, []);
  const msg = JSON.parse(sent);
  assert.equal(msg.type, 'create_room');
  assert.equal(msg.name, 'ann');
  assert.equal(msg.settings.difficulty, 'expert');
});

test('a room the host closed stays closed: nothing to reconnect to', async () => {
  const p = await seated();
  await p.hear({ type: 'room_closed', room: 'ABCD', reason: 'host_closed' });
  assert.equal(p.screen(), 'problem:room_closed');
  assert.equal(p.state.problem?.message, 'Room ABCD has closed: the host left, or its server was lost.');
});

test('server_draining for the pool asks again by itself on a new connection, backing off', async () => {
  const p = fakePage({ local: { 'sudoku-race:key': 'k1' } });
  await p.open();
  p.act.playNow('ann', 'expert');
  p.take();
  await p.hear({ ...error('server_draining'), retry_ms: 1500 });
  assert.equal(p.screen(), 'problem:restarting');
  assert.equal(p.state.problem?.retry_at, p.clock.now + 1500);
  assert.deepEqual(p.timers.map((t) => t.ms), [1500]);
  const connects = p.link.connects;
  p.timers.splice(0).forEach((t) => t.f());
  assert.equal(p.link.connects, connects + 1, 'a new connection');
  assert.deepEqual(p.take(), ['{"type":"quick_race","difficulty":"expert","name":"ann","key":"k1"}']);
  // That server drains too: again, later; then the pool takes the page.
  await p.hear(error('server_draining'));
  assert.deepEqual(p.timers.map((t) => t.ms), [500]);
  p.timers.splice(0).forEach((t) => t.f());
  assert.equal(p.take().length, 1);
  await p.hear({ type: 'queued', difficulty: 'expert', waiting: 2 });
  assert.equal(p.screen(), 'queue');
  assert.equal(p.state.problem, null);
});

test('a room that is not the pool, closed for a drain, is not asked for again by itself', async () => {
  const p = await seated();
  await p.hear({ type: 'room_closed', room: 'ABCD', reason: 'drain' });
  await p.hear(error('server_draining'));
  assert.deepEqual(p.timers, []);
  assert.equal(p.state.problem?.retry_at, undefined);
});
