// @ts-check
/**
 * The pool in the browser (A7): Play now → the queue screen (Cancel goes home; the note when
 * nobody comes) → a pool room's race with another browser → its results → Race again → the
 * queue again → the next race. A server whose pool seats two at once and calls one alone fast.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { newPage, puzzle, resultsTable, shotsDir, sideScroll, solve, solveOnPage, suite } from './support.mjs';

const env = suite(['--pool-size', '2', '--pool-wait-ms', '500', '--pool-alone-ms', '1500', '--fair-play', 'false']);

/**
 * Play now from `/` as `name` at `difficulty`; waits for the queue screen unless told not to
 * (one who completes a pool is seated at once, and may never see it).
 * @param {import('playwright-core').Page} page
 * @param {string} name
 * @param {string} difficulty
 * @param {{queue?: boolean}} [opts]
 */
async function playNow(page, name, difficulty, { queue = true } = {}) {
  await page.goto(`${env.server.url}/`);
  await page.fill('[data-testid=name]', name);
  await page.selectOption('[data-testid=play-difficulty]', difficulty);
  await page.click('[data-testid=play-now]');
  if (queue) await page.waitForSelector('[data-testid=queue]');
}

test('Play now queues, Cancel goes home, two queued browsers race, and Race again queues them for the next race', async () => {
  const a = await newPage(env.browser);
  const b = await newPage(env.browser);
  const phone = await newPage(env.browser, { phone: true });
  try {
    // Home leads with Play now; the create form is one click away.
    await a.page.goto(`${env.server.url}/`);
    await a.page.waitForSelector('[data-testid=play-now]');
    assert.equal(await a.page.isVisible('[data-testid=create]'), false, 'the create form shows before it is asked for');
    assert.equal(await a.page.$eval('[data-testid=play-now]', (el) => el.tagName), 'BUTTON');
    assert.match((await a.page.$eval('[data-testid=play-difficulty]', (el) => el.closest('label')?.textContent)) ?? '', /Difficulty/);
    await a.page.screenshot({ path: path.join(shotsDir, 'home-desktop.png') });
    await a.page.click('[data-testid=private-room]');
    await a.page.waitForSelector('[data-testid=create]');

    // Queued alone, then cancelled: home again.
    await playNow(a.page, 'ann', 'easy');
    assert.match((await a.page.textContent('[data-testid=queue-difficulty]')) ?? '', /^easy$/);
    assert.match((await a.page.textContent('[data-testid=queue-waiting]')) ?? '', /only one waiting/);
    await a.page.click('[data-testid=leave-queue]');
    await a.page.waitForSelector('[data-testid=play-now]');
    assert.equal(await a.page.isVisible('[data-testid=queue]'), false);

    // Queued again: nobody comes for a while, and the page says so.
    await a.page.selectOption('[data-testid=play-difficulty]', 'easy');
    await a.page.click('[data-testid=play-now]');
    await a.page.waitForSelector('[data-testid=queue-alone]');
    assert.match((await a.page.textContent('[data-testid=queue-alone]')) ?? '', /Nobody else/);
    assert.match((await a.page.textContent('[data-testid=queue-time]')) ?? '', /^0:0[1-9]$/);
    await a.page.screenshot({ path: path.join(shotsDir, 'queue-desktop.png') });

    // A phone in another pool (medium) meanwhile: the queue fits 360 px.
    await playNow(phone.page, 'pat', 'medium');
    assert.equal(await sideScroll(phone.page), false, 'the queue scrolls sideways');
    await phone.page.screenshot({ path: path.join(shotsDir, 'queue-phone.png') });
    await phone.page.click('[data-testid=leave-queue]');
    await phone.page.waitForSelector('[data-testid=play-now]');

    // A second player: the pool seats both in a race of its own (no host, no invite).
    await playNow(b.page, 'bob', 'easy', { queue: false });
    for (const p of [a.page, b.page]) {
      await p.waitForSelector('.screen.race');
      assert.equal(await p.isVisible('.invite-box'), false, 'a pool room shows an invite link');
      assert.equal(await p.isVisible('[data-testid=start]'), false);
    }
    assert.match(new URL(a.page.url()).pathname, /^\/r\/[A-Z2-9]+$/);
    // A8: a pool race deals each seat its own isomorph.
    const annPuzzle = await puzzle(a.page);
    const bobPuzzle = await puzzle(b.page);
    assert.notEqual(annPuzzle, bobPuzzle);
    const solution = solve(annPuzzle);
    await solveOnPage(a.page, solution);
    await b.page.waitForSelector('[data-testid=forfeit]');
    b.page.once('dialog', (d) => d.accept());
    await b.page.click('[data-testid=forfeit]');

    // Results: no host controls; Race again.
    const rows = await resultsTable(a.page);
    assert.deepEqual(rows.map((r) => r[1]), ['ann', 'bob']);
    for (const p of [a.page, b.page]) {
      await p.waitForSelector('[data-testid=requeue]');
      assert.equal(await p.isVisible('[data-testid=rematch]'), false);
      assert.equal(await p.isVisible('[data-testid=save-settings]'), false);
    }
    // Bob's results show his own isomorph's solution against his board, not ann's or the race's.
    const shown = await b.page.$$eval('.results-screen [data-cell]', (cells) =>
      cells.map((c) => c.getAttribute('data-solution') ?? c.textContent).join(''));
    assert.equal(shown, solve(bobPuzzle));
    await a.page.click('[data-testid=requeue]');
    await a.page.waitForSelector('[data-testid=queue]');
    assert.equal(new URL(a.page.url()).pathname, '/', 'the old room stays in the address bar');
    await a.page.waitForSelector('[data-testid=queue-waiting]:has-text("only one waiting")');

    // The other one races again too: the two are seated together for the next race.
    await b.page.click('[data-testid=requeue]');
    await a.page.waitForSelector('.screen.race');
    await b.page.waitForSelector('.screen.race');
    assert.equal(await a.page.textContent('[data-testid=room-code]'), await b.page.textContent('[data-testid=room-code]'));
    await puzzle(a.page);
    assert.deepEqual([...a.problems, ...b.problems, ...phone.problems], []);
  } finally {
    await a.context.close();
    await b.context.close();
    await phone.context.close();
  }
});
