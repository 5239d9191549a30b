// @ts-check
/** The phone layout (390×844) never scrolls sideways; the page loads nothing from another host, and what it preloads and what it loads on demand; screenshots for docs/playing.md. */

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { createRoom, newPage, puzzle, resultsTable, shotsDir, sideScroll, solve, solveOnPage, suite } from './support.mjs';

const env = suite();

test('phone-sized: every screen fits 390 px wide, and the board is tappable', async () => {
  const { page, context, problems } = await newPage(env.browser, { phone: true });
  // Stills for the screenshots: no finish celebration over the results.
  await page.emulateMedia({ reducedMotion: 'reduce' });
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
  assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `board at ${JSON.stringify(box)}`);
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

/**
 * The page's modules as index.html must list them: `eager` is everything app.js reaches through
 * static imports (app.js itself excluded: it is the script tag), `lazy` what only an `import()`
 * reaches, `files` every module on disk. Type-only `import('…')`s live in JSDoc comments, which
 * are dropped before the scan.
 */
async function moduleGraph() {
  const { readdirSync, readFileSync } = await import('node:fs');
  const pub = new URL('../public/', import.meta.url);
  /** @param {string} rel @returns {string[]} */
  const walk = (rel) =>
    readdirSync(new URL(rel, pub), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? walk(`${rel}${d.name}/`) : d.name.endsWith('.js') ? [`${rel}${d.name}`] : [],
    );
  /** @type {Map<string, {statics: string[], dynamics: string[]}>} */
  const imports = new Map();
  for (const mod of walk('assets/')) {
    const code = readFileSync(new URL(mod, pub), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    /** @param {RegExp} re */
    const targets = (re) => [...code.matchAll(re)].map((m) => new URL(m[1] ?? m[2], new URL(mod, pub)).href.slice(pub.href.length));
    imports.set(mod, {
      statics: targets(/^\s*(?:import|export)\s[^'"`;()]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gm),
      dynamics: targets(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    });
  }
  /** @param {string[]} roots @returns {Set<string>} */
  const closure = (roots) => {
    const seen = new Set();
    const todo = [...roots];
    while (todo.length) {
      const m = /** @type {string} */ (todo.pop());
      if (seen.has(m)) continue;
      seen.add(m);
      todo.push(...(imports.get(m)?.statics ?? []));
    }
    return seen;
  };
  const eager = closure(['assets/app.js']);
  const lazy = [...closure([...imports.values()].flatMap((i) => i.dynamics))].filter((m) => !eager.has(m));
  eager.delete('assets/app.js');
  return { eager: [...eager].sort(), lazy: lazy.sort(), files: [...imports.keys()].sort(), html: readFileSync(new URL('index.html', pub), 'utf8') };
}

test('index.html preloads exactly the modules app.js imports statically; a page imported on demand is not preloaded', async () => {
  const { eager, lazy, files, html } = await moduleGraph();
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="\/([^"]+)">/g)].map((m) => m[1]).sort();
  // The scan found the graph (a broken regex would make every check below vacuous).
  assert.ok(eager.includes('assets/screens/home.js') && lazy.includes('assets/screens/replay.js'), `eager ${eager}, lazy ${lazy}`);
  // Every module statically reachable is preloaded, so a new one cannot fall back to a load waterfall.
  for (const mod of eager) assert.ok(preloaded.includes(mod), `${mod} is imported statically but not preloaded`);
  // A module only an import() reaches stays off the first load.
  for (const mod of lazy) assert.ok(!preloaded.includes(mod), `${mod} is imported on demand but preloaded`);
  assert.deepEqual(preloaded, eager, 'a preload names a module app.js does not import');
  assert.deepEqual([...eager, ...lazy, 'assets/app.js'].sort(), files, 'a module nothing imports');
});

test('the first load fetches no on-demand page; opening one loads it, and a failed load offers Try again', async () => {
  const { lazy } = await moduleGraph();
  const { page, context } = await newPage(env.browser);
  /** @type {string[]} */
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname.slice(1)));
  await page.goto(`${env.server.url}/`);
  await page.waitForSelector('[data-testid=play-now]');
  await page.waitForLoadState('networkidle');
  assert.deepEqual(fetched.filter((f) => lazy.includes(f)), [], 'the home page fetched an on-demand page');
  await page.click('[data-testid=leaderboard-link]');
  await page.waitForSelector('[data-testid=leaderboard]');
  assert.ok(fetched.includes('assets/screens/leaders.js'), fetched.join(' '));
  assert.equal(await page.isVisible('[data-testid=page-loading]'), false);

  // The replay's module unreachable: a clear error, then Try again fetches it afresh.
  await page.route('**/assets/screens/replay.js', (route) => route.abort('connectionrefused'));
  await page.evaluate(() => { location.hash = '#/races/NO-SUCH-RACE'; });
  await page.waitForSelector('[data-testid=page-loading][data-problem=page_unavailable]');
  assert.match((await page.textContent('[data-testid=error]')) ?? '', /could not be fetched/);
  await page.unroute('**/assets/screens/replay.js');
  await page.click('[data-testid=retry]');
  await page.waitForSelector('.screen.replay[data-problem=no_race]');
  assert.equal(await page.isVisible('[data-testid=page-loading]'), false);
  await context.close();
});
