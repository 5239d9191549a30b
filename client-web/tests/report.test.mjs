// @ts-check
/** Reporting a player from the results screen (A8), in a real Chromium against the real server with its admin API on. */

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createRoom, newPage, puzzle, resultsTable, solve, solveOnPage, startBot, suite } from './support.mjs';

const TOKEN = 'browser-test-admin-token-0123456789';
const dir = mkdtempSync(path.join(tmpdir(), 'sudoku-race-admin-'));
const tokenFile = path.join(dir, 'admin-token');
writeFileSync(tokenFile, `${TOKEN}\n`);
after(() => rmSync(dir, { recursive: true, force: true }));

// Fair play off: the bot solves faster than a human, and this test is about the report.
const env = suite(['--admin-token-file', tokenFile, '--fair-play', 'false']);

test('a player reports another from the results with a reason, and the moderators see it once', async () => {
  const { page, context, problems } = await newPage(env.browser);
  const code = await createRoom(page, env.server.url, 'ann', { difficulty: 'easy' });
  const bot = startBot(env.server, code, ['--name', 'botty', '--pace-ms', '40']);
  await page.waitForSelector('[data-testid=players] li:has-text("botty")');
  await page.click('[data-testid=start]');
  const grid = await puzzle(page);
  await solveOnPage(page, solve(grid));
  await bot.done;
  await resultsTable(page);
  // A Report button on the other player's row, none on ours.
  assert.equal(await page.locator('[data-testid=results] tr:has-text("ann") [data-testid=report]').count(), 0);
  const button = page.locator('[data-testid=results] tr:has-text("botty") [data-testid=report]');
  assert.equal(await button.count(), 1);
  assert.ok(await page.isHidden('[data-testid=report-box]'));
  for (let i = 0; i < 2; i++) {
    await button.click();
    await page.waitForSelector('[data-testid=report-box]:has-text("Report botty")');
    // An empty reason is not sent (the field is required).
    await page.click('[data-testid=report-send]');
    assert.ok(await page.isVisible('[data-testid=report-box]'));
    await page.fill('[data-testid=report-reason]', 'x'.repeat(250));
    assert.equal((await page.inputValue('[data-testid=report-reason]')).length, 200, 'the box takes 200 characters, as the server');
    await page.fill('[data-testid=report-reason]', 'filled cells faster than anyone reads');
    await page.click('[data-testid=report-send]');
    await page.waitForSelector('text=Reported botty to the moderators.');
    assert.ok(await page.isHidden('[data-testid=report-box]'));
  }
  const res = await fetch(`${env.server.url}/api/admin/reports`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.reports.length, 1, 'reported twice, kept once');
  assert.equal(body.reports[0].name, 'botty');
  assert.equal(body.reports[0].reporter_name, 'ann');
  assert.equal(body.reports[0].reason, 'filled cells faster than anyone reads');
  assert.equal(body.reports[0].room, code);
  const refused = await fetch(`${env.server.url}/api/admin/reports`);
  assert.equal(refused.status, 401);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the player page takes a name as well as a handle', async () => {
  const { page, context, problems } = await newPage(env.browser);
  // The race above stored ann (identified: the browser registered her key) under her name.
  await page.goto(`${env.server.url}/#/players/ann`);
  await page.waitForSelector('[data-testid=history] tbody tr[data-race-id]');
  assert.match((await page.textContent('[data-testid=player-name]')) ?? '', /^ann \(h[A-Z0-9]+\)$/);
  await page.goto(`${env.server.url}/#/players/nobody%20here`);
  await page.waitForSelector('[data-testid=error]:has-text("no such player")');
  // The browser logs the API's 404 itself; nothing else went wrong.
  assert.deepEqual(problems.filter((p) => !p.includes('404 (Not Found)')), []);
  await context.close();
});
