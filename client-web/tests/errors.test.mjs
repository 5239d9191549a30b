// @ts-check
/** Every error screen: unknown room, room full, race in progress (watch, then join the next race), name taken, kicked, the server lost mid-race (A12), server restarting (A9). */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { board, createRoom, joinByLink, newPage, openPrivateRoom, place, puzzle, resultsTable, solve, solveOnPage, startServer, suite } from './support.mjs';

const env = suite();

test('an unknown room gets its own screen', async () => {
  const { page, context } = await newPage(env.browser);
  await joinByLink(page, env.server.url, 'ZZZZ', 'gus');
  await page.waitForSelector('[data-problem=unknown_room]');
  assert.match((await page.textContent('[data-testid=error]')) ?? '', /no room ZZZZ/);
  await context.close();
});

test('a full room says so and offers to watch', async () => {
  const host = await newPage(env.browser);
  const late = await newPage(env.browser);
  const code = await createRoom(host.page, env.server.url, 'hal', { max_players: 1 });
  await joinByLink(late.page, env.server.url, code, 'ida');
  await late.page.waitForSelector('[data-problem=room_full]');
  assert.match((await late.page.textContent('[data-testid=error]')) ?? '', /no free seat/);
  await late.page.click('[data-testid=watch]');
  await late.page.waitForSelector('.screen.lobby');
  assert.equal(await late.page.isVisible('[data-testid=ready]'), false);
  await host.context.close();
  await late.context.close();
});

test('a race in progress: the joiner watches it, then joins the next race', async () => {
  const host = await newPage(env.browser);
  const late = await newPage(env.browser);
  const code = await createRoom(host.page, env.server.url, 'jo', { difficulty: 'easy' });
  await host.page.click('[data-testid=start]');
  const grid = await puzzle(host.page);
  await joinByLink(late.page, env.server.url, code, 'kim');
  await late.page.waitForSelector('.screen.race');
  assert.match((await late.page.textContent('[data-testid=error]')) ?? '', /race is in progress/);
  await solveOnPage(host.page, solve(grid));
  await resultsTable(host.page);
  // Kim is seated for the next race.
  await host.page.waitForSelector('[data-testid=players] li:has-text("kim")');
  await late.page.waitForSelector('.results-screen [data-testid=players] li.mine:has-text("kim")');
  await host.page.click('[data-testid=rematch]');
  await late.page.waitForSelector('.screen.race .pad:not([hidden])');
  await host.context.close();
  await late.context.close();
});

test('a taken name is answered in place, and another name gets in', async () => {
  const host = await newPage(env.browser);
  const other = await newPage(env.browser);
  const code = await createRoom(host.page, env.server.url, 'lee');
  await joinByLink(other.page, env.server.url, code, 'LEE');
  await other.page.waitForSelector('[data-testid=error]:has-text("taken")');
  assert.equal(await other.page.isVisible('[data-testid=name]'), true, 'the form stays');
  await other.page.fill('[data-testid=name]', 'lee2');
  await other.page.click('[data-testid=join]');
  await other.page.waitForSelector('.screen.lobby');
  await host.context.close();
  await other.context.close();
});

test('a bad name is refused in place', async () => {
  const { page, context } = await newPage(env.browser);
  await page.goto(`${env.server.url}/`);
  await page.fill('[data-testid=name]', '\u200b\u200b');
  await openPrivateRoom(page);
  await page.click('[data-testid=create]');
  await page.waitForSelector('[data-testid=error]:has-text("cannot be used")');
  await context.close();
});

test('a kicked player is told so', async () => {
  const host = await newPage(env.browser);
  const guest = await newPage(env.browser);
  const code = await createRoom(host.page, env.server.url, 'max');
  await joinByLink(guest.page, env.server.url, code, 'ned');
  await host.page.waitForSelector('[data-testid=players] li:has-text("ned") [data-testid=kick]');
  await host.page.click('[data-testid=players] li:has-text("ned") [data-testid=kick]');
  await guest.page.waitForSelector('[data-problem=kicked]');
  await host.page.waitForFunction(() => !document.querySelector('[data-testid=players]')?.textContent?.includes('ned'));
  await host.context.close();
  await guest.context.close();
});

test('the server lost mid-race: the race goes on and counts down, the page comes back, and says the room has closed when the new server does not know it', async () => {
  const own = await startServer();
  const { page, context } = await newPage(env.browser);
  try {
    await createRoom(page, own.url, 'oli', { difficulty: 'easy' });
    await page.click('[data-testid=start]');
    const grid = await puzzle(page);
    const solution = solve(grid);
    const placed = await solveOnPage(page, solution, 40);
    // kill -9: the socket drops without a close.
    await own.stop();
    await page.waitForSelector('[data-testid=away]:has-text("Connection lost — the race goes on. Reconnecting")');
    assert.equal(await page.isVisible('[data-testid=error]'), false, 'no error: the race goes on');
    // A digit typed meanwhile waits on the board; the digits placed stay.
    const next = [...(await board(page))].findIndex((c) => c === '.');
    await place(page, next, solution[next]);
    await page.waitForSelector(`[data-cell="${next}"][data-pending]`);
    const kept = await board(page);
    for (const i of placed) assert.equal(kept[i], solution[i], `cell ${i} kept`);
    // A server comes back on the address without the room (a standalone server keeps none
    // across a crash yet): the page resumes and, while another server might still be taking
    // the room over (20 s from the drop), asks again; then the room has closed.
    const again = await startServer([], { listen: own.addr });
    try {
      await page.waitForSelector('[data-testid=away]:has-text("moved to another server and goes on")', { timeout: 30_000 });
      await page.waitForSelector('[data-problem=room_closed]', { timeout: 40_000 });
      assert.match((await page.textContent('[data-testid=error]')) ?? '', /has closed: its server was lost and no other server took it over/);
    } finally {
      await again.stop();
    }
  } finally {
    await context.close();
    await own.stop();
  }
});

test('a rolling restart: the drained server says it restarts, and New room gets one from the next server', async () => {
  const own = await startServer(['--drain-s', '60']);
  const { page, context } = await newPage(env.browser);
  try {
    await createRoom(page, own.url, 'pia', { difficulty: 'hard' });
    const exited = new Promise((r) => own.proc.once('exit', r));
    own.proc.kill('SIGTERM');
    await page.waitForSelector('[data-problem=restarting]');
    assert.match((await page.textContent('[data-testid=error]')) ?? '', /restarting for an update/);
    assert.equal(await page.isVisible('[data-testid=again-pool]'), true, 'Play now is offered');
    // The lobby was the drained server's last room: it exits by itself; the next takes its address.
    await exited;
    const next = await startServer([], { listen: own.addr });
    try {
      await page.click('[data-testid=again-room]');
      await page.waitForSelector('[data-testid=ready]');
      assert.match((await page.textContent('[data-testid=room-code]')) ?? '', /^[A-Z2-9]{4,8}$/);
    } finally {
      await next.stop();
    }
  } finally {
    await context.close();
    await own.stop();
  }
});
