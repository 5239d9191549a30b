// @ts-check
/**
 * Issue 23, item 1: a browser that joins a room between races sees the last race as its
 * players saw it: the standings of its `race_over` (times, a player who left as forfeited),
 * not itself as a "waiting" racer, and no solution board of a race it did not play.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRoom, joinByLink, newPage, puzzle, resultsTable, solve, solveOnPage, suite } from './support.mjs';

const env = suite();

test('a player who joins between races sees the last race as its players did', async () => {
  const ann = await newPage(env.browser);
  const bob = await newPage(env.browser);
  const cy = await newPage(env.browser);
  const code = await createRoom(ann.page, env.server.url, 'ann', { difficulty: 'easy' });
  await joinByLink(bob.page, env.server.url, code, 'bob');
  await ann.page.waitForSelector('[data-testid=players] li:has-text("bob")');
  await ann.page.click('[data-testid=start]');
  const grid = await puzzle(ann.page);
  await puzzle(bob.page);
  // Bob leaves mid-race: his seat is gone, his forfeit stays in the race's standings.
  await bob.page.click('[data-testid=leave]');
  await bob.page.waitForSelector('[data-testid=play-now]');
  await solveOnPage(ann.page, solve(grid));
  const seen = await resultsTable(ann.page);
  assert.equal(seen.length, 2, JSON.stringify(seen));
  assert.match((await ann.page.textContent('[data-testid=results-title]')) ?? '', /Race over: everyone is done/);

  await joinByLink(cy.page, env.server.url, code, 'cy');
  await cy.page.waitForSelector('.results-screen [data-testid=players] li.mine:has-text("cy")');
  const late = await resultsTable(cy.page);
  assert.deepEqual(late, seen, 'the standings race_over sent, times and all');
  const annRow = late.find((r) => r[1] === 'ann');
  const bobRow = late.find((r) => r[1] === 'bob');
  assert.ok(annRow && bobRow, JSON.stringify(late));
  assert.equal(annRow[2], 'solved');
  assert.match(annRow[3], /^\d+:\d\d\.\d$/);
  assert.equal(bobRow[2], 'forfeited');
  assert.ok(!late.some((r) => r[1] === 'cy' || r[2] === 'waiting'), JSON.stringify(late));
  assert.match((await cy.page.textContent('[data-testid=results-title]')) ?? '', /Race over: everyone is done/);
  // No solution board of a race cy did not play (it would show only the givens).
  assert.equal(await cy.page.isVisible('[data-testid=solution-card]'), false);
  assert.equal(await ann.page.isVisible('[data-testid=solution-card]'), true);
  // Without the solution's column the table has the room it needs: its Rating column is whole.
  const head = await cy.page.locator('[data-testid=rating-head]').boundingBox();
  const wrap = await cy.page.locator('.results-screen .table-wrap').first().boundingBox();
  assert.ok(head && wrap && head.x + head.width <= wrap.x + wrap.width + 0.5, `Rating ${JSON.stringify(head)} in ${JSON.stringify(wrap)}`);
  // The same on a phone.
  const dee = await newPage(env.browser, { phone: true });
  await joinByLink(dee.page, env.server.url, code, 'dee');
  await dee.page.waitForSelector('.results-screen [data-testid=players] li.mine:has-text("dee")');
  assert.deepEqual(await resultsTable(dee.page), seen);
  assert.equal(await dee.page.isVisible('[data-testid=solution-card]'), false);
  for (const p of [ann, bob, cy, dee]) {
    assert.deepEqual(p.problems, []);
    await p.context.close();
  }
});
