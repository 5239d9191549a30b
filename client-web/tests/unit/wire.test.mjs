// @ts-check
/**
 * wire.js's Link on a fake socket: every message that enters a room, the pool or an arena says
 * which variants this page draws (A10: all five); the others go out as they are.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VARIANTS } from '../../public/assets/geometry.js';
import { Link } from '../../public/assets/wire.js';

/** A Link on a socket that is open and records what it is sent. */
function openLink() {
  /** @type {string[]} */
  const sent = [];
  const socket = { OPEN: 1, readyState: 1, send: (/** @type {string} */ t) => sent.push(t), addEventListener() {}, close() {} };
  const link = new Link({
    url: 'ws://test/ws',
    socket: () => /** @type {any} */ (socket),
    after: () => () => {},
    onMessage() {},
    onOpen() {},
    onDown() {},
  });
  link.open();
  return { link, sent: () => sent.map((t) => JSON.parse(t)) };
}

/** @type {import('../../types/wire.js').ClientMsg[]} */
const HELLOS = [
  { type: 'create_room', name: 'ann', settings: { variant: 'killer' } },
  { type: 'join_room', room: 'ABCD', name: 'ann' },
  { type: 'spectate', room: 'ABCD' },
  { type: 'resume', token: 't' },
  { type: 'quick_race', difficulty: 'easy', name: 'ann', variant: 'jigsaw' },
  { type: 'race_ghost', ghost: 'daily', difficulty: 'easy', name: 'ann', variant: 'x' },
  { type: 'start_daily', difficulty: 'easy', name: 'ann', variant: 'windoku' },
  { type: 'join_arena', arena_id: 'a1', name: 'ann' },
];

test('every hello lists the five variants; its own fields go unchanged', () => {
  const { link, sent } = openLink();
  for (const msg of HELLOS) link.send(msg);
  const out = sent();
  assert.equal(out.length, HELLOS.length);
  out.forEach((m, i) => assert.deepEqual(m, { ...HELLOS[i], variants: ['classic', 'x', 'windoku', 'jigsaw', 'killer'] }));
  assert.deepEqual([...VARIANTS], ['classic', 'x', 'windoku', 'jigsaw', 'killer']);
});

test('other messages carry no variants', () => {
  const { link, sent } = openLink();
  link.send({ type: 'place', cell: 3, digit: 4, id: 1 });
  link.send({ type: 'list_rooms' });
  link.send({ type: 'set_settings', settings: { variant: 'killer' } });
  assert.deepEqual(sent(), [{ type: 'place', cell: 3, digit: 4, id: 1 }, { type: 'list_rooms' }, { type: 'set_settings', settings: { variant: 'killer' } }]);
});
