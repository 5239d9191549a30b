// @ts-check
/**
 * Delayed boards in the page's logic (A8): `?watch=boards` spectates with `boards` and keeps
 * each player's board (its first as the givens), the watch screen shows while the race runs,
 * and the TV (`#/tv`) keeps its address and its screen from room to room; `unwatch` forgets the
 * room and keeps the page open.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakePage, joined } from './fakes.mjs';

test('?watch=boards watches with boards, keeps the boards and shows the watch screen', async () => {
  const p = fakePage({ path: '/r/ABCD', search: '?watch=boards' });
  await p.open();
  assert.deepEqual(p.take(), ['{"type":"spectate","room":"ABCD","name":"spectator","boards":true}']);
  await p.hear(joined('ABCD', { role: 'spectator', phase: 'racing' }));
  assert.deepEqual(p.replaced, [], '/r/ABCD?watch=boards is already the address');
  assert.equal(p.screen(), 'watch');
  const givens = '1'.padEnd(81, '.');
  await p.hear({ type: 'board', player_id: 'p1', board: givens, at_ms: 0 });
  await p.hear({ type: 'board', player_id: 'p1', board: '12'.padEnd(81, '.'), at_ms: 4000 });
  assert.deepEqual(p.state.boards.get('p1'), { board: '12'.padEnd(81, '.'), at_ms: 4000, givens });
  await p.hear({ type: 'race_started', race_id: 'r2', puzzle: givens, difficulty: 'easy', time_limit_s: 600 });
  assert.equal(p.state.boards.size, 0, 'a new race starts with no boards');
});

test('the TV keeps its screen and address in a room, and unwatch leaves it for the next', async () => {
  const p = fakePage({ hash: '#/tv' });
  await p.open();
  p.take();
  assert.equal(p.screen(), 'tv');
  p.act.watch('ABCD', 'tv', true);
  assert.deepEqual(p.take(), ['{"type":"spectate","room":"ABCD","name":"tv","boards":true}']);
  await p.hear(joined('ABCD', { role: 'spectator', phase: 'racing' }));
  assert.equal(p.screen(), 'tv');
  assert.deepEqual(p.replaced, [], 'the TV keeps #/tv');
  p.act.unwatch();
  assert.deepEqual(p.take(), ['{"type":"leave"}']);
  assert.equal(p.state.room, null);
  assert.equal(p.state.link, 'up', 'the socket stays open');
});
