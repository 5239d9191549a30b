// @ts-check
/** The replay page `/#/races/ID`: its pure playback (assets/replay.js), and a real stored race between a browser and the terminal bot played back in Chromium. */

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { at, parseRace, seek, step } from '../public/assets/replay.js';
import { createRoom, newPage, puzzle, resultsTable, shotsDir, sideScroll, solve, solveOnPage, startBot, suite } from './support.mjs';

const env = suite();

test('replay.js: placements in time order, progress and finishes at a cursor, one step at a time', () => {
  const puzzle = `${'.'.repeat(2)}${'1'.repeat(79)}`;
  const r = parseRace({
    race_id: 'R-1', difficulty: 'easy', puzzle, solution: '2'.repeat(81), started_unix_ms: 0, duration_ms: 9000,
    reason: 'all_done', rated: false, daily: null,
    players: [{ player_id: 'a', name: 'ann', handle: null, bot: false }, { player_id: 'b', name: 'bob', handle: null, bot: true }],
    standings: [
      { rank: 1, player_id: 'a', name: 'ann', status: 'solved', time_ms: 7000, filled: 2, mistakes: 1 },
      { rank: 2, player_id: 'b', name: 'bob', status: 'forfeited', time_ms: null, filled: 0, mistakes: 0 },
    ],
    // Out of order on purpose, and one with a cell that is not on the board.
    placements: [
      { player_id: 'a', at_ms: 5000, cell: 1, digit: 2, outcome: 'accepted' },
      { player_id: 'a', at_ms: 1000, cell: 0, digit: 2, outcome: 'accepted' },
      { player_id: 'a', at_ms: 3000, cell: 1, digit: 3, outcome: 'wrong' },
      { player_id: 'b', at_ms: 4000, cell: 81, digit: 2, outcome: 'accepted' },
    ],
  });
  assert.deepEqual(r.events.map((e) => e.at_ms), [1000, 3000, 5000]);
  assert.equal(r.to_fill, 2);
  /** @param {import('../public/assets/replay.js').Cursor} c */
  const lines = (c) => at(r, c).map((l) => `${l.name} ${l.filled}/${l.to_fill} ✗${l.mistakes} ${l.status}`);
  assert.deepEqual(lines(seek(r, 0)), ['ann 0/2 ✗0 racing', 'bob 0/2 ✗0 racing']);
  assert.deepEqual(lines(seek(r, 3000)), ['ann 1/2 ✗1 racing', 'bob 0/2 ✗0 racing']);
  // The solve shows from its placement; the forfeit (no time stored) only at the end.
  assert.deepEqual(lines(seek(r, 5000)), ['ann 2/2 ✗1 solved', 'bob 0/2 ✗0 racing']);
  const end = seek(r, 1e9);
  assert.deepEqual(end, { n: 3, t: 9000 });
  assert.deepEqual(lines(end), ['ann 2/2 ✗1 solved', 'bob 0/2 ✗0 forfeited']);
  assert.deepEqual(step(r, end, -1), { n: 2, t: 3000 });
  assert.deepEqual(step(r, { n: 0, t: 0 }, -1), { n: 0, t: 0 });
  assert.deepEqual(step(r, { n: 3, t: 5000 }, 1), { n: 3, t: 9000 });
  assert.throws(() => parseRace({ puzzle: 'x' }), /cannot read/);
});

/** Each progress line of the replay as `name filled/total ✗mistakes status`. @param {import('playwright-core').Page} page */
function replayProgress(page) {
  return page.$$eval('.screen.replay [data-testid=progress] li', (lis) =>
    lis.map((li) => `${li.querySelector('.name')?.textContent} ${li.querySelector('.count')?.textContent} ${li.getAttribute('data-status')}`));
}

test('a stored race between a browser and the bot replays from the player page: standings, progress, steps, pause, speed', async () => {
  const { page, context, problems } = await newPage(env.browser);
  // Rated: every seat is dealt its own isomorph (A8), so the replay must show each seat's own board.
  const code = await createRoom(page, env.server.url, 'ann', { difficulty: 'easy', max_mistakes: 0, penalty_s: 0, rated: true });
  const bot = startBot(env.server, code, ['--name', 'botty', '--pace-ms', '60', '--mistake-rate', '0.15']);
  await page.waitForSelector('[data-testid=players] li:has-text("botty")');
  await page.click('[data-testid=start]');
  const annPuzzle = await puzzle(page);
  const solution = solve(annPuzzle);
  // Ann leaves one cell until the bot is done, so hers is the race's last placement.
  await solveOnPage(page, solution, 1);
  await page.waitForSelector('[data-testid=progress] li[data-status=solved]:has-text("botty")');
  await solveOnPage(page, solution);
  await bot.done;
  const seen = await resultsTable(page);
  assert.deepEqual(seen.map((r) => r[1]), ['botty', 'ann']);
  const href = (await page.getAttribute('[data-testid=replay-link]', 'href')) ?? '';
  const raceId = decodeURIComponent(/^\/#\/races\/(.+)$/.exec(href)?.[1] ?? '');
  assert.ok(raceId, href);
  await context.close();

  // Ann's page lists the race; its link opens the replay.
  const stored = await (await fetch(`${env.server.url}/api/races/${raceId}`)).json();
  const handle = stored.players.find((/** @type {any} */ p) => p.name === 'ann')?.handle;
  assert.match(handle ?? '', /^h[A-Z0-9]+$/);
  const v = await newPage(env.browser);
  await v.page.goto(`${env.server.url}/#/players/${handle}`);
  await v.page.click(`[data-testid=history] tr[data-race-id="${raceId}"] [data-testid=replay-link]`);
  await v.page.waitForSelector('.screen.replay [data-testid=replay-clock]');
  assert.equal(new URL(v.page.url()).hash, `#/races/${raceId}`);
  const toFill = [...stored.puzzle].filter((c) => c === '.').length;
  const own = Object.fromEntries(stored.players.map((/** @type {any} */ p) => [p.name, p.puzzle]));
  assert.equal(own.ann, annPuzzle, "ann's own puzzle is stored with her seat");
  assert.notEqual(own.botty, own.ann, 'each seat its own isomorph');
  await v.page.selectOption('[data-testid=replay-player]', { label: 'ann' });
  const givens = await v.page.$$eval('.screen.replay [data-cell]', (cells) =>
    cells.map((c) => (c.hasAttribute('data-given') ? (c.textContent ?? '.') : '.')).join(''));
  assert.equal(givens, annPuzzle, "the replay shows ann's own board");
  assert.deepEqual(await replayProgress(v.page), [`botty 0/${toFill} racing`, `ann 0/${toFill} racing`]);
  assert.equal(await v.page.textContent('[data-testid=replay-clock]'), '0:00.0');
  assert.equal(await v.page.isVisible('[data-testid=replay-final]'), false, 'the standings wait for the end');

  // Half way, for the screenshots.
  await v.page.fill('[data-testid=replay-scrub]', String(Math.round(stored.duration_ms / 200) * 100));
  await v.page.screenshot({ path: path.join(shotsDir, 'replay-desktop.png') });

  // The end: the standings and every bar are what the players saw at race_over.
  await v.page.click('[data-testid=replay-end]');
  const shown = await resultsTable(v.page);
  assert.deepEqual(shown, seen.map((r) => r.slice(0, 6)));
  assert.equal(await v.page.locator('.screen.replay [data-testid=results] [data-testid=bot-badge]').count(), 1, 'botty, a bot');
  const final = seen.map((r) => `${r[1]} ${r[4]}/${toFill}${r[5] === '0' ? '' : ` · ✗${r[5]}`} solved`);
  assert.deepEqual(await replayProgress(v.page), final);
  await v.page.screenshot({ path: path.join(shotsDir, 'replay-end-desktop.png'), fullPage: true });

  // One placement back: Ann's last digit goes, and with it her finish; the bot's line stays.
  await v.page.click('[data-testid=replay-back]');
  const back = await replayProgress(v.page);
  assert.equal(back[0], final[0]);
  assert.equal(back[1], `ann ${toFill - 1}/${toFill} racing`);
  assert.equal(await v.page.isVisible('[data-testid=replay-final]'), false);

  // Speed labels, then playing, then pause holds the clock.
  await v.page.click('[data-testid=replay-restart]');
  for (const label of ['×2', '×4', '×8', '×16', '×1']) {
    await v.page.click('[data-testid=replay-speed]');
    assert.equal(await v.page.textContent('[data-testid=replay-speed]'), label);
  }
  await v.page.click('[data-testid=replay-play]');
  await v.page.waitForSelector('.screen.replay[data-playing=true]');
  await v.page.waitForFunction(() => document.querySelector('[data-testid=replay-clock]')?.textContent !== '0:00.0');
  await v.page.click('[data-testid=replay-play]');
  await v.page.waitForSelector('.screen.replay[data-playing=false]');
  const paused = await v.page.textContent('[data-testid=replay-clock]');
  await v.page.waitForTimeout(700);
  assert.equal(await v.page.textContent('[data-testid=replay-clock]'), paused, 'the clock moved while paused');
  assert.notEqual(paused, '0:00.0');
  // At ×16 it plays to the end by itself and stops there.
  await v.page.click('[data-testid=replay-speed]');
  await v.page.click('[data-testid=replay-speed]');
  await v.page.click('[data-testid=replay-speed]');
  await v.page.click('[data-testid=replay-speed]');
  await v.page.click('[data-testid=replay-play]');
  await v.page.waitForSelector('[data-testid=replay-final]:visible');
  assert.equal(await v.page.getAttribute('.screen.replay', 'data-playing'), 'false');
  assert.deepEqual(await replayProgress(v.page), final);
  assert.deepEqual(v.problems, []);
  assert.deepEqual(problems, []);
  await v.context.close();

  // A phone: no sideways scroll, half way and at the end.
  const phone = await newPage(env.browser, { phone: true });
  await phone.page.goto(`${env.server.url}/#/races/${raceId}`);
  await phone.page.waitForSelector('.screen.replay [data-testid=replay-clock]');
  await phone.page.fill('[data-testid=replay-scrub]', String(Math.round(stored.duration_ms / 200) * 100));
  assert.equal(await sideScroll(phone.page), false, 'the replay scrolls sideways');
  await phone.page.screenshot({ path: path.join(shotsDir, 'replay-phone.png') });
  await phone.page.click('[data-testid=replay-end]');
  await phone.page.waitForSelector('[data-testid=replay-final]:visible');
  assert.equal(await sideScroll(phone.page), false, 'the replay end scrolls sideways');
  await phone.page.screenshot({ path: path.join(shotsDir, 'replay-end-phone.png'), fullPage: true });
  await phone.context.close();
});

test('an unknown race says so; a failed load offers Try again, which loads it', async () => {
  const { page, context } = await newPage(env.browser);
  await page.goto(`${env.server.url}/#/races/NO-SUCH-RACE`);
  await page.waitForSelector('.screen.replay[data-problem=no_race]');
  assert.match((await page.textContent('[data-testid=error]')) ?? '', /no finished race NO-SUCH-RACE/);
  assert.equal(await page.isVisible('[data-testid=retry]'), false);
  // The server unreachable for the API: a clear message and a way to try again.
  await page.route('**/api/races/**', (route) => route.abort('connectionrefused'));
  await page.goto(`${env.server.url}/#/races/ANOTHER`);
  await page.waitForSelector('.screen.replay[data-problem=race_unavailable]');
  assert.match((await page.textContent('[data-testid=error]')) ?? '', /cannot be reached/);
  await page.unroute('**/api/races/**');
  await page.click('[data-testid=retry]');
  await page.waitForSelector('.screen.replay[data-problem=no_race]');
  await context.close();
});
