// @ts-check
/**
 * control.js's `createApp` without a browser: what it sends when the socket opens, on entering a
 * room and after a drop (the exact text on the wire), what it keeps in storage and the address
 * bar, and which screen it asks for.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakePage, joined } from './fakes.mjs';

const TOKEN_ABCD = 'sudoku-race:token:ABCD';

test('nothing opens before start; a page at / lists the rooms once the socket is open', async () => {
  const p = fakePage();
  await Promise.resolve();
  assert.equal(p.link.connects, 0, 'a socket opened before start');
  assert.deepEqual(p.drawn, []);
  await p.open();
  assert.equal(p.link.connects, 1);
  assert.deepEqual(p.take(), ['{"type":"list_rooms"}']);
  assert.equal(p.state.link, 'up');
  assert.equal(p.screen(), 'home');
  await p.hear({ type: 'room_list', rooms: [{ room: 'QRST', players: 1, max_players: 8, difficulty: 'easy' }] });
  assert.deepEqual(p.state.rooms.map((r) => r.room), ['QRST']);
});

test("an invite link takes this tab's seat back with the token kept for its room", async () => {
  const p = fakePage({ path: '/r/abcd', session: { [TOKEN_ABCD]: 'tok-9' } });
  await p.open();
  assert.deepEqual(p.take(), ['{"type":"resume","token":"tok-9"}']);
  await p.hear(joined('ABCD', { token: 'tok-9', phase: 'racing' }));
  assert.equal(p.screen(), 'race');
  assert.deepEqual(p.replaced, ['/r/ABCD'], 'the address takes the code as the server spells it');
});

test('an invite link without a kept seat shows the join form and sends nothing', async () => {
  const p = fakePage({ path: '/r/ABCD/' });
  await p.open();
  assert.deepEqual(p.take(), []);
  assert.equal(p.screen(), 'join:ABCD');
});

test('an invite link with ?watch watches under the saved name and key, or as "spectator"', async () => {
  const saved = fakePage({ path: '/r/ABCD', search: '?watch', local: { 'sudoku-race:name': 'bo', 'sudoku-race:key': 'k1' } });
  await saved.open();
  assert.deepEqual(saved.take(), ['{"type":"spectate","room":"ABCD","name":"bo","key":"k1"}']);

  const fresh = fakePage({ path: '/r/ABCD', search: '?watch' });
  await fresh.open();
  assert.deepEqual(fresh.take(), ['{"type":"spectate","room":"ABCD","name":"spectator"}']);
  await fresh.hear(joined('ABCD', { role: 'spectator', phase: 'racing' }));
  assert.deepEqual(fresh.replaced, [], '/r/ABCD?watch is already the address');
  assert.deepEqual(fresh.storage.session.items, new Map(), 'a spectator has no seat to keep');
});

test('the first room entered registers a key, keeps it, and enters with it; room_joined keeps the seat', async () => {
  const p = fakePage();
  await p.open();
  p.take();
  p.act.create('ann', /** @type {any} */ ({ difficulty: 'easy' }));
  assert.deepEqual(p.take(), ['{"type":"register","name":"ann"}']);
  assert.equal(p.storage.local.items.get('sudoku-race:name'), 'ann');
  await p.hear({ type: 'registered', key: 'k-new', handle: 'ann' });
  assert.equal(p.storage.local.items.get('sudoku-race:key'), 'k-new');
  assert.deepEqual(p.take(), ['{"type":"create_room","name":"ann","settings":{"difficulty":"easy"},"key":"k-new"}']);

  await p.hear(joined('WXYZ', { token: 'tok-w' }));
  assert.equal(p.storage.session.items.get('sudoku-race:token:WXYZ'), 'tok-w');
  assert.deepEqual(p.replaced, ['/r/WXYZ']);
  assert.deepEqual(p.titles, ['sudoku-race · WXYZ']);
  assert.equal(p.screen(), 'lobby');
});

test('a kept key is sent with every entry, without registering again', async () => {
  const p = fakePage({ local: { 'sudoku-race:key': 'k1' } });
  await p.open();
  p.take();
  p.act.join('ABCD', 'ann');
  assert.deepEqual(p.take(), ['{"type":"join_room","room":"ABCD","name":"ann","key":"k1"}']);
});

test('a failed registration enters anonymously; a bad name stops at the form instead', async () => {
  const p = fakePage();
  await p.open();
  p.act.join('ABCD', 'ann');
  p.take();
  await p.hear({ type: 'error', code: 'internal', message: 'no store' });
  assert.deepEqual(p.take(), ['{"type":"join_room","room":"ABCD","name":"ann"}']);
  assert.equal(p.state.notice, null, 'the failed registration is not shown');

  const q = fakePage();
  await q.open();
  q.act.join('ABCD', ' ');
  q.take();
  await q.hear({ type: 'error', code: 'invalid_name', message: 'bad name' });
  assert.deepEqual(q.take(), [], 'entered with a name the server refused');
  assert.equal(q.state.notice, 'That name cannot be used: 1 to 24 visible characters.');
});

test('after a drop a player resumes with its token and a spectator watches again under its name', async () => {
  const p = fakePage();
  await p.open();
  await p.hear(joined('ABCD', { token: 'tok-1' }));
  p.take();
  await p.down(1006, true);
  assert.equal(p.state.link, 'down');
  assert.equal(p.state.problem, null, 'a drop that is retried is no problem');
  await p.open(true);
  assert.deepEqual(p.take(), ['{"type":"resume","token":"tok-1"}']);
  assert.equal(p.state.link, 'up');

  const s = fakePage({ local: { 'sudoku-race:key': 'k1' } });
  await s.open();
  s.act.watch('ABCD', 'cy');
  await s.hear(joined('ABCD', { role: 'spectator' }));
  assert.deepEqual(s.replaced, ['/r/ABCD?watch']);
  s.take();
  await s.down(1012, true);
  await s.open(true);
  assert.deepEqual(s.take(), ['{"type":"spectate","room":"ABCD","name":"cy"}']);
});

test('a close the link gives up on, or a seat taken by another tab, fills the screen', async () => {
  const gone = fakePage();
  await gone.open();
  await gone.down(1006, false);
  assert.equal(gone.state.problem?.code, 'server_gone');
  assert.equal(gone.screen(), 'problem:server_gone');
  // Try again: a fresh connection, counted from zero failures.
  gone.act.retry();
  assert.equal(gone.state.link, 'connecting');
  assert.equal(gone.link.failures, 0);
  assert.equal(gone.link.connects, 2);
  await gone.open(true);
  assert.equal(gone.screen(), 'home');

  const moved = fakePage();
  await moved.open();
  await moved.hear(joined('ABCD'));
  await moved.down(1000, false);
  assert.equal(moved.state.problem?.code, 'moved');
  // The problem stays what it was: a later close does not replace it.
  await moved.down(1006, false);
  assert.equal(moved.screen(), 'problem:moved');
});

test('leaving drops the seat, says leave, then stops the link and goes home; the close is no problem', async () => {
  const p = fakePage();
  await p.open();
  await p.hear(joined('ABCD', { token: 'tok-1' }));
  p.take();
  p.act.leave();
  assert.equal(p.storage.session.items.has(TOKEN_ABCD), false);
  assert.deepEqual(p.take(), ['{"type":"leave"}']);
  assert.deepEqual(p.timers.map((t) => t.ms), [150]);
  assert.equal(p.link.stops, 0, 'stopped before the leave went out');
  p.timers[0].f();
  assert.equal(p.link.stops, 1);
  assert.deepEqual(p.location.assigned, ['/']);
  await p.down(1000, false);
  assert.equal(p.state.problem, null);
});

test('a closed room drops its seat and stops the link', async () => {
  const p = fakePage();
  await p.open();
  await p.hear(joined('ABCD', { token: 'tok-1' }));
  await p.hear({ type: 'room_closed', room: 'ABCD' });
  assert.equal(p.storage.session.items.has(TOKEN_ABCD), false);
  assert.equal(p.link.stops, 1);
  assert.equal(p.screen(), 'problem:room_closed');
});

test('a digit is sent with the next id on an empty cell, flashes on a given, and is a mark in pencil mode', async () => {
  const p = fakePage();
  await p.open();
  await p.hear(joined('ABCD'));
  const puzzle = `1${'.'.repeat(80)}`;
  await p.hear({ type: 'race_started', race_id: 'r1', puzzle, difficulty: 'easy', time_limit_s: 600 });
  p.take();
  p.act.place(1, 5);
  p.act.place(2, 6);
  assert.deepEqual(p.take(), ['{"type":"place","cell":1,"digit":5,"id":1}', '{"type":"place","cell":2,"digit":6,"id":2}']);
  assert.deepEqual([...(p.state.race?.pending.keys() ?? [])], [1, 2]);
  p.clock.now = 5000;
  p.act.place(0, 3);
  assert.deepEqual(p.take(), []);
  assert.deepEqual(p.state.race?.flash, { cells: [], at: 5000, kind: 'given', cell: 0, digit: 3 });
  p.act.pencilMode(true);
  p.act.place(3, 4);
  assert.deepEqual(p.take(), []);
  assert.equal(p.state.race?.pencil[3], 1 << 4);
  p.act.place(81, 4);
  assert.deepEqual(p.take(), [], 'a cell off the board');
});

test('with storage off the page forgets, and works', async () => {
  const p = fakePage({ path: '/r/ABCD', session: { [TOKEN_ABCD]: 'tok-9' } });
  p.storage.session.off = true;
  p.storage.local.off = true;
  await p.open();
  assert.deepEqual(p.take(), [], 'a token it cannot read');
  assert.equal(p.screen(), 'join:ABCD');
  assert.equal(p.act.savedName(), '');
  p.act.join('ABCD', 'ann');
  assert.deepEqual(p.take(), ['{"type":"register","name":"ann"}']);
  await p.hear({ type: 'registered', key: 'k1', handle: 'ann' });
  await p.hear(joined('ABCD'));
  assert.equal(p.screen(), 'lobby');
});

test('a notice in a room fades after 6 s on the clock; one on a form stays', async () => {
  const p = fakePage();
  await p.open();
  p.act.notice('on the form');
  p.clock.now += 7000;
  p.app.tick();
  assert.equal(p.state.notice, 'on the form');

  await p.hear(joined('ABCD'));
  p.act.notice('in the room');
  p.clock.now += 5000;
  p.app.tick();
  assert.equal(p.state.notice, 'in the room');
  p.clock.now += 2000;
  p.app.tick();
  assert.equal(p.state.notice, null);
});

test('the read-only pages are routed by the hash, outside a room only', async () => {
  const p = fakePage({ hash: '#/leaderboard' });
  await p.open();
  assert.equal(p.screen(), 'leaderboard');
  p.location.hash = '#/players/ann7';
  p.app.redraw();
  await Promise.resolve();
  assert.equal(p.screen(), 'player:ann7');
  p.location.hash = '#/races/r-1';
  p.app.redraw();
  await Promise.resolve();
  assert.equal(p.screen(), 'replay:r-1');
  await p.hear(joined('ABCD'));
  assert.equal(p.screen(), 'lobby');
});

test('a room view without a token (a room taken over by another server, A9) keeps the seat\'s token', async () => {
  const { initial, apply } = await import('../../public/assets/state.js');
  const s = initial();
  apply(s, joined('ABCD', { token: 'tok-1', phase: 'racing' }), 0);
  apply(s, { ...joined('ABCD', { phase: 'racing' }), you: { player_id: 'p1', token: null, role: 'player' } }, 1);
  assert.equal(s.you?.token, 'tok-1');
  assert.equal(s.phase, 'racing');
});

test('/#/solo needs no server: it is the screen with the connection gone for good', async () => {
  const p = fakePage({ hash: '#/solo' });
  p.app.start();
  await p.down(1006, false);
  assert.equal(p.state.problem?.code, 'server_gone');
  assert.equal(p.screen(), 'solo');
  p.location.hash = '';
  p.app.redraw();
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(p.screen(), 'problem:server_gone', 'leaving solo shows the problem');
});
