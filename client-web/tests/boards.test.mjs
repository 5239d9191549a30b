// @ts-check
/**
 * Delayed boards in the browser (A8): a spectator with `?watch=boards` sees every player's
 * board side by side (small grids, name and progress above each), a second behind the race here
 * (`--spectator-delay-s 1`); the TV page (`#/tv`) watches the race `/api/tv` names, and once it
 * ends moves on to the next one by itself.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { createRoom, newPage, puzzle, shotsDir, solve, startBot, suite } from './support.mjs';

// A killed bot's seat is let go after a second, so a test's race ends with the test.
const env = suite(['--spectator-delay-s', '1', '--fair-play', 'false', '--resume-grace-s', '1']);

/**
 * A host page racing a bot in a fresh public room; returns the host's page, the room and the
 * bot. The bot places a digit every `paceMs` on average, never wrong.
 * @param {string} name
 * @param {number} paceMs
 */
async function racing(name, paceMs) {
  const host = await newPage(env.browser);
  const code = await createRoom(host.page, env.server.url, name, { difficulty: 'easy', max_players: 2 });
  const bot = startBot(env.server, code, ['--name', `bot-${name}`, '--pace-ms', String(paceMs), '--mistake-rate', '0']);
  await host.page.waitForSelector(`[data-testid=players] li:has-text("bot-${name}")`);
  return { host, code, bot };
}

test('a spectator with boards sees every board side by side, delayed', async () => {
  const { host, code, bot } = await racing('hana', 700);
  const watcher = await newPage(env.browser);
  try {
    await watcher.page.goto(`${env.server.url}/r/${code}?watch=boards`);
    await watcher.page.waitForSelector('[data-testid=room-code]');
    await host.page.click('[data-testid=start]');
    // The host places a few digits of her own.
    const solution = solve(await puzzle(host.page));
    const empty = [...(await puzzle(host.page))].flatMap((c, i) => (c === '.' ? [i] : [])).slice(0, 3);
    for (const i of empty) {
      await host.page.click(`[data-cell="${i}"]`);
      await host.page.keyboard.press(solution[i]);
    }
    const w = watcher.page;
    await w.waitForSelector('[data-testid=boards]');
    assert.equal(await w.locator('[data-testid=mini-board]').count(), 2, 'a board per player');
    // Her digits show once the delay has passed, in colour beside the bold givens.
    const hers = w.locator('[data-testid=mini-board][data-player=p1]');
    await hers.locator('.placed').nth(2).waitFor();
    assert.match((await hers.textContent()) ?? '', /hana\s*\d+\/\d+/);
    assert.match((await w.textContent('[data-testid=boards-note]')) ?? '', /delayed/);
    assert.equal(await w.isVisible('[data-testid=pad] button'), false, 'a spectator has no digit pad');
    await w.screenshot({ path: path.join(shotsDir, 'watch-boards-desktop.png') });
    assert.deepEqual(watcher.problems, []);
  } finally {
    host.page.once('dialog', (d) => d.accept());
    await host.page.click('[data-testid=forfeit]').catch(() => {});
    bot.proc.kill();
    await bot.done.catch(() => {});
    await watcher.context.close();
    await host.context.close();
  }
});

test('the TV page follows /api/tv from one race to the next', async () => {
  const first = await racing('ivy', 150);
  const tv = await newPage(env.browser);
  /** @type {Awaited<ReturnType<typeof newPage>> | null} */
  let solo = null;
  try {
    await first.host.page.click('[data-testid=start]');
    await puzzle(first.host.page);
    await tv.page.goto(`${env.server.url}/#/tv`);
    await tv.page.waitForSelector(`[data-testid=tv-title]:text("${first.code}")`);
    await tv.page.waitForSelector('[data-testid=tv] [data-testid=mini-board] >> nth=1');

    // A second race starts; it has fewer players, so the TV stays on the first until it ends.
    solo = await newPage(env.browser);
    const second = await createRoom(solo.page, env.server.url, 'jo', { difficulty: 'easy', max_players: 1 });
    await solo.page.click('[data-testid=start]');
    await puzzle(solo.page);
    first.host.page.once('dialog', (d) => d.accept());
    await first.host.page.click('[data-testid=forfeit]');
    // The bot solves: the race is over.
    // The final boards, then the next race.
    await tv.page.waitForSelector('[data-testid=tv-status]:text("next race")');
    const finals = await tv.page.locator('[data-testid=tv] .mini-grid span:not(:empty)').count();
    assert.equal(finals > 0, true);
    await tv.page.waitForSelector(`[data-testid=tv-title]:text("${second}")`);
    assert.equal(new URL(tv.page.url()).hash, '#/tv', 'the TV keeps its address');
    assert.deepEqual(tv.problems, []);
  } finally {
    first.bot.proc.kill();
    await first.bot.done.catch(() => {});
    await tv.context.close();
    await first.host.context.close();
    await solo?.context.close();
  }
});
