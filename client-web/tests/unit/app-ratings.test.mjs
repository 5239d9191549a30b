// @ts-check
/**
 * Ratings that land late (A9): a `race_over` without rating changes (the server's database
 * could not take the result yet), then `ratings` for that race fills in the results table's
 * rating column and redraws it; `ratings` for another race changes nothing.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakePage, joined } from './fakes.mjs';

const change = (before, after) => [{ player_id: 'p1', handle: 'hABCDEFG', before, after }];

test('late ratings for the race shown fill in its results; another race’s do not', async () => {
  const p = fakePage({ path: '/r/ABCD' });
  await p.open();
  await p.hear(joined('ABCD'));
  await p.hear({ type: 'race_started', race_id: 'r1', puzzle: `1${'.'.repeat(80)}`, difficulty: 'easy', time_limit_s: 600 });
  await p.hear({ type: 'race_over', race_id: 'r1', reason: 'all_finished', solution: '1'.repeat(81), ratings: [],
    standings: [{ rank: 1, player_id: 'p1', name: 'ann', status: 'solved', time_ms: 1234, filled: 80, mistakes: 0 }] });
  assert.equal(p.screen(), 'results');
  assert.deepEqual(p.state.ratings, [], 'no change yet: the result waits on the server');
  const before = p.drawn.length;
  await p.hear({ type: 'ratings', race_id: 'r0', ratings: change(9, 1) });
  assert.deepEqual(p.state.ratings, [], 'another race');
  await p.hear({ type: 'ratings', race_id: 'r1', ratings: change(1.5, 3.75) });
  assert.deepEqual(p.state.ratings, change(1.5, 3.75));
  assert.ok(p.drawn.length > before, 'the results are drawn again');
  assert.equal(p.screen(), 'results');
  // Once the next race counts down, a late notice of the old one is stale.
  await p.hear({ type: 'countdown', starts_in_ms: 500 });
  await p.hear({ type: 'ratings', race_id: 'r1', ratings: change(1.5, 3.75) });
  assert.deepEqual(p.state.ratings, []);
});
