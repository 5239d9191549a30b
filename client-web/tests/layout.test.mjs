// @ts-check
/** The phone layout (360×640) never scrolls sideways; the page loads nothing from another host; screenshots for docs/playing.md. */

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { createRoom, newPage, puzzle, resultsTable, shotsDir, sideScroll, solve, solveOnPage, suite } from './support.mjs';

const env = suite();

test('phone-sized: every screen fits 360 px wide, and the board is tappable', async () => {
  const { page, context, problems } = await newPage(env.browser, { phone: true });
  /** @type {string[]} */
  const foreign = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.host !== env.server.addr) foreign.push(r.url());
  });
  await page.goto(`${env.server.url}/`);
  assert.equal(await sideScroll(page), false, 'home scrolls sideways');
  await page.screenshot({ path: path.join(shotsDir, 'home-phone.png') });
  const code = await createRoom(page, env.server.url, 'pat', { difficulty: 'easy' });
  assert.match(code, /^[A-Z2-9]+$/);
  assert.equal(await sideScroll(page), false, 'lobby scrolls sideways');
  await page.screenshot({ path: path.join(shotsDir, 'lobby-phone.png') });
  await page.click('[data-testid=start]');
  const grid = await puzzle(page);
  assert.equal(await sideScroll(page), false, 'race scrolls sideways');
  const solution = solve(grid);
  // Touch: tap a cell, tap a digit on the pad.
  const cell = grid.indexOf('.');
  await page.tap(`[data-cell="${cell}"]`);
  await page.tap(`.pad [data-digit="${solution[cell]}"]`);
  await page.waitForSelector(`[data-cell="${cell}"]:text-is("${solution[cell]}")`);
  const box = await page.locator('.board').boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= 360, `board at ${JSON.stringify(box)}`);
  await page.screenshot({ path: path.join(shotsDir, 'race-phone.png') });
  await solveOnPage(page, solution);
  await resultsTable(page);
  assert.equal(await sideScroll(page), false, 'results scroll sideways');
  await page.screenshot({ path: path.join(shotsDir, 'results-phone.png'), fullPage: true });
  assert.deepEqual(foreign, [], 'requests to other hosts');
  assert.deepEqual(problems, []);
  await context.close();
});

test('cells are focusable buttons with spoken labels, and arrows move between them', async () => {
  const { page, context } = await newPage(env.browser);
  await createRoom(page, env.server.url, 'quinn');
  await page.click('[data-testid=start]');
  const grid = await puzzle(page);
  const first = grid.indexOf('.');
  await page.click(`[data-cell="${first}"]`);
  const label = await page.getAttribute(`[data-cell="${first}"]`, 'aria-label');
  assert.equal(label, `row ${Math.floor(first / 9) + 1} column ${(first % 9) + 1}, empty`);
  await page.keyboard.press('ArrowDown');
  const below = (first + 9) % 81;
  const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-cell'));
  assert.equal(Number(focused), below);
  assert.equal(await page.getAttribute(`[data-cell="${below}"]`, 'aria-selected'), 'true');
  const given = grid.search(/[1-9]/);
  assert.match((await page.getAttribute(`[data-cell="${given}"]`, 'aria-label')) ?? '', new RegExp(`, ${grid[given]}, given$`));
  await context.close();
});

test('index.html preloads every module, so a new one cannot fall back to a load waterfall', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const pub = new URL('../public/', import.meta.url);
  const html = readFileSync(new URL('index.html', pub), 'utf8');
  /** @param {string} rel @returns {string[]} */
  const walk = (rel) =>
    readdirSync(new URL(rel, pub), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? walk(`${rel}${d.name}/`) : d.name.endsWith('.js') ? [`${rel}${d.name}`] : [],
    );
  for (const mod of walk('assets/')) {
    if (mod === 'assets/app.js') continue;
    assert.ok(html.includes(`<link rel="modulepreload" href="/${mod}">`), `${mod} is not preloaded`);
  }
});
