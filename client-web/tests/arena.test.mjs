// @ts-check
/**
 * Arenas in the browser (A7), end to end, in an arena that runs all day (only a run across UTC
 * midnight could see it end): two browsers join it from the arenas page, are seated together,
 * race; the results show the arena's standings with the streak and count down to the next race,
 * which seats them again by itself; Leave leaves the arena.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { newPage, puzzle, resultsTable, shotsDir, solve, solveOnPage, suite } from './support.mjs';

const env = suite(['--arena', 'Day,easy,1d,1d', '--pool-wait-ms', '500', '--fair-play', 'false']);

/**
 * Open the arenas page from home as `name` and join the running arena.
 * @param {import('playwright-core').Page} page
 * @param {string} name
 */
async function joinArena(page, name) {
  await page.goto(`${env.server.url}/`);
  await page.click('[data-testid=arenas]');
  await page.waitForSelector('[data-testid=arena-list] li[data-state=running] [data-testid=join-arena]');
  await page.fill('[data-testid=arena-name]', name);
  await page.click('[data-testid=arena-list] li[data-state=running] [data-testid=join-arena]');
}

test('two browsers join a running arena, race, see its standings, and are seated again by themselves', async () => {
  const a = await newPage(env.browser);
  const b = await newPage(env.browser);
  try {
    await joinArena(a.page, 'ann');
    await a.page.waitForSelector('[data-testid=arena-member]:not([hidden])');
    assert.match((await a.page.textContent('[data-testid=arena-title]')) ?? '', /Day/);
    await a.page.screenshot({ path: path.join(shotsDir, 'arena-desktop.png') });
    await joinArena(b.page, 'bob');

    // Seated together in an arena race.
    for (const p of [a.page, b.page]) await p.waitForSelector('.screen.race');
    const solution = solve(await puzzle(a.page));
    await solveOnPage(a.page, solution);
    await b.page.waitForSelector('[data-testid=forfeit]');
    b.page.once('dialog', (d) => d.accept());
    await b.page.click('[data-testid=forfeit]');

    // The results: the race's table, the arena's standings, the next race counting down.
    const rows = await resultsTable(a.page);
    assert.deepEqual(rows.map((r) => r[1]), ['ann', 'bob']);
    await a.page.waitForSelector('[data-testid=arena-standings] tbody tr[data-handle]');
    const standings = await a.page.$$eval('[data-testid=arena-standings] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    assert.equal(standings[0][1], 'ann');
    assert.ok(Number(standings[0][2]) > Number(standings[1][2]), JSON.stringify(standings));
    assert.match((await a.page.textContent('[data-testid=arena-next]')) ?? '', /Next race in \d s/);
    await a.page.screenshot({ path: path.join(shotsDir, 'arena-results-desktop.png') });

    // Nobody clicks: both are seated in the next race by themselves.
    const first = await a.page.textContent('[data-testid=room-code]');
    for (const p of [a.page, b.page]) {
      await p.waitForFunction((old) => document.querySelector('.screen.race [data-testid=room-code]')?.textContent !== old, first, { timeout: 20_000 });
    }
    await puzzle(b.page);

    // Leaving the room leaves the arena.
    await b.page.click('[data-testid=leave]');
    await b.page.waitForSelector('[data-testid=play-now]');
    assert.deepEqual([...a.problems, ...b.problems], []);
  } finally {
    await a.context.close();
    await b.context.close();
  }
});
