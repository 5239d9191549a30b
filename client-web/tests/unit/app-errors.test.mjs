// @ts-check
/**
 * control.js's reading of the server's `error`s, against what the page last asked for: which
 * fill the screen, which are a notice, and which it recovers from by itself (a forgotten key, a
 * seat gone, a race already running).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { error, fakePage, joined } from './fakes.mjs';

/** A page at / with a key, after asking to join ABCD as ann. */
async function joining() {
  const p = fakePage({ local: { 'sudoku-race:key': 'k1' } });
  await p.open();
  p.act.join('ABCD', 'ann');
  p.take();
  p.clock.now = 4242;
  return p;
}

test('a room that is not there, or full, or a full server fills the screen with words of the room asked for', async () => {
  /** @type {[string, string][]} */
  const cases = [
    ['unknown_room', 'There is no room ABCD. It may have closed, or the code is mistyped.'],
    ['room_full', 'Room ABCD has no free seat.'],
    ['server_full', 'The server has no room for more players right now. Try again in a minute.'],
  ];
  for (const [code, message] of cases) {
    const p = await joining();
    await p.hear(error(code));
    assert.equal(p.state.problem?.code, code);
    assert.equal(p.state.problem?.message, message, code);
    assert.equal(p.screen(), `problem:${code}`);
    assert.equal(p.state.notice_at, 4242);
  }
});

test('the errors a form can fix are a notice: its words, else the server message, else the code', async () => {
  /** @type {[string, string, string][]} */
  const cases = [
    ['name_taken', 'ignored', 'That name is taken in this room. Pick another.'],
    ['invalid_name', 'ignored', 'That name cannot be used: 1 to 24 visible characters.'],
    ['rate_limited', 'ignored', 'Too fast: wait a moment.'],
    ['bad_settings', 'max_players must be 1 to 16', 'max_players must be 1 to 16'],
    ['bad_settings', '', 'bad_settings'],
  ];
  for (const [code, message, notice] of cases) {
    const p = await joining();
    await p.hear(error(code, message));
    assert.equal(p.state.notice, notice, code);
    assert.equal(p.state.notice_at, 4242);
    assert.equal(p.state.problem, null);
    assert.equal(p.screen(), 'home');
    assert.deepEqual(p.take(), [], `${code} sent something`);
  }
});

test('a forgotten key is dropped and registered again, once', async () => {
  const p = await joining();
  await p.hear(error('invalid_key'));
  assert.equal(p.storage.local.items.has('sudoku-race:key'), false);
  assert.deepEqual(p.take(), ['{"type":"register","name":"ann"}']);
  await p.hear({ type: 'registered', key: 'k2', handle: 'ann' });
  assert.deepEqual(p.take(), ['{"type":"join_room","room":"ABCD","name":"ann","key":"k2"}']);
  await p.hear(error('invalid_key'));
  assert.deepEqual(p.take(), [], 'registered a second time');
  assert.equal(p.storage.local.items.has('sudoku-race:key'), false);
});

test('a seat gone on resume drops its token, forgets the room and offers the join form again', async () => {
  const p = fakePage({ path: '/r/ABCD', session: { 'sudoku-race:token:ABCD': 'tok-9' } });
  await p.open();
  assert.deepEqual(p.take(), ['{"type":"resume","token":"tok-9"}']);
  await p.hear(error('invalid_token'));
  assert.equal(p.storage.session.items.size, 0);
  assert.equal(p.state.notice, 'Your seat from before is gone. Join again.');
  assert.equal(p.screen(), 'join:ABCD');
  assert.deepEqual(p.replaced, []);

  // After a drop the room may be moving (A12): tried again, and gone only after the window.
  const q = fakePage();
  await q.open();
  await q.hear(joined('WXYZ', { token: 'tok-w', phase: 'racing' }));
  await q.down(1006, true);
  await q.open(true);
  q.take();
  await q.hear(error('invalid_token'));
  assert.equal(q.state.problem, null);
  assert.equal(q.timers.length, 1, 'the resume goes again');
  q.clock.now += 20_000;
  await q.hear(error('invalid_token'));
  assert.equal(q.state.problem?.code, 'room_closed');
  assert.equal(q.state.problem?.message, 'Room WXYZ has closed: its server was lost and no other server took it over.');
  assert.equal(q.storage.session.items.has('sudoku-race:token:WXYZ'), false);
  assert.equal(q.screen(), 'problem:room_closed');
});

test('a host that kicks this page: its seat is dropped and the room is left', async () => {
  const p = fakePage();
  await p.open();
  await p.hear(joined('ABCD', { token: 'tok-1' }));
  await p.hear(error('kicked'));
  assert.equal(p.storage.session.items.has('sudoku-race:token:ABCD'), false);
  assert.equal(p.state.room, null);
  assert.equal(p.state.problem?.message, 'The host removed you from room ABCD. You cannot come back for a while.');
  assert.equal(p.screen(), 'problem:kicked');
});

test('a race in progress: the page watches it, then joins the next race under the name it asked for', async () => {
  const p = await joining();
  await p.hear(error('race_in_progress'));
  assert.deepEqual(p.take(), ['{"type":"spectate","room":"ABCD","name":"ann","key":"k1"}']);
  assert.equal(p.state.join_next, 'ann');
  await p.hear(joined('ABCD', { role: 'spectator', phase: 'racing' }));
  assert.equal(p.state.notice, 'A race is in progress: you are watching it, and you join the next race.');
  assert.deepEqual(p.replaced, ['/r/ABCD'], 'a page that joins next is not a ?watch page');
  await p.hear({ type: 'race_over', race_id: 'r1', reason: 'solved', standings: [], solution: '1'.repeat(81) });
  assert.deepEqual(p.take(), ['{"type":"leave"}', '{"type":"join_room","room":"ABCD","name":"ann","key":"k1"}']);
  await p.hear(joined('ABCD', { token: 'tok-2' }));
  assert.equal(p.state.join_next, null);
  assert.equal(p.state.notice, null);
  assert.equal(p.storage.session.items.get('sudoku-race:token:ABCD'), 'tok-2');
});

test('a name taken while waiting to join the next race ends the wait', async () => {
  const p = await joining();
  await p.hear(error('race_in_progress'));
  await p.hear(joined('ABCD', { role: 'spectator', phase: 'racing' }));
  await p.hear(error('name_taken'));
  assert.equal(p.state.join_next, null);
  assert.equal(p.state.notice, 'That name is taken in this room. Pick another.');
});
