// @ts-check
/**
 * Ghost races in the browser (A7 `race_ghost`): a solo race stored first, then "Race my best" on
 * the player's own page opens a race against it: the ghost is marked in the progress list, its
 * progress comes by itself, it finishes at its stored time, and the results mark it too.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { createRoom, newPage, puzzle, resultsTable, shotsDir, solve, solveOnPage, suite } from './support.mjs';

const env = suite(['--fair-play', 'false']);

test('Race my best on your own player page races your stored solve as a ghost', async () => {
  const { page, context, problems } = await newPage(env.browser);
  try {
    // A solo race, stored as this browser's best at easy.
    await createRoom(page, env.server.url, 'gus', { difficulty: 'easy', max_players: 1 });
    await page.click('[data-testid=start]');
    const solution = solve(await puzzle(page));
    await solveOnPage(page, solution);
    await resultsTable(page);
    const handle = await page.evaluate(() => localStorage.getItem('sudoku-race:handle'));
    assert.match(handle ?? '', /^[A-Za-z0-9]+$/, 'the registered handle is kept');

    // Your own page offers to race your best; another's would offer "Race this ghost".
    await page.goto(`${env.server.url}/#/players/${handle}`);
    await page.waitForSelector('[data-testid=player-best] tr[data-difficulty=easy] [data-testid=race-best]');
    await page.click('[data-testid=player-best] tr[data-difficulty=easy] [data-testid=race-best]');

    // The race: you and the ghost, which plays by itself and finishes.
    await puzzle(page);
    const ghostLine = '[data-testid=progress] li:has([data-testid=ghost-badge])';
    assert.match((await page.textContent(ghostLine)) ?? '', /ghost of gus/);
    await page.waitForSelector(`${ghostLine} [role=progressbar]:not([aria-valuenow="0"])`, { state: 'attached' });
    await page.screenshot({ path: path.join(shotsDir, 'ghost-race-desktop.png') });
    await page.waitForSelector(`${ghostLine}[data-status=solved]`);

    // You give up: the ghost wins, marked in the results.
    page.once('dialog', (d) => d.accept());
    await page.click('[data-testid=forfeit]');
    const rows = await resultsTable(page);
    assert.deepEqual(rows.map((r) => r[1]), ['ghost of gus', 'gus']);
    assert.equal(await page.isVisible('[data-testid=results] [data-testid=ghost-badge]'), true);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
