// @ts-check
/**
 * Real clients ride through a dead node (A12, issue 33): three cluster nodes behind a TCP
 * balancer; a race between the terminal client (the real binary in tmux), a browser (Chromium)
 * and a bot, one on each node; the room's owner is killed with SIGKILL mid-race. Every one
 * finishes, and the stored race holds every placement each was told of before the kill.
 */

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { joinByLink, launch, newPage, place, puzzle, resultsTable, solve, solveOnPage } from './support.mjs';
import { balancer, keysTo, logLine, startBot, startNodes, startRedis, terminal, termBoard, termProgress, until } from './cluster.mjs';

const outDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test-output');

/** What the terminal says while away from its room (client-cli/src/ui/mod.rs `away_line`). */
const TERM_AWAY = /^.*(connection lost|moved to another server).*$/m;

/**
 * The page's placed digits the server has answered (neither given nor pending).
 * @param {import('playwright-core').Page} page
 */
function ackedOnPage(page) {
  return page.$$eval('.screen.race [data-cell]', (cells) =>
    cells
      .filter((c) => !c.hasAttribute('data-given') && !c.hasAttribute('data-pending') && /^[1-9]$/.test((c.textContent ?? '').trim()))
      .map((c) => ({ cell: Number(c.getAttribute('data-cell')), digit: (c.textContent ?? '').trim() })),
  );
}

/**
 * The digits a terminal board shows beyond the givens.
 * @param {string} board
 * @param {string} grid
 */
function placedOn(board, grid) {
  return [...board].flatMap((d, cell) => (d !== '.' && grid[cell] === '.' ? [{ cell, digit: d }] : []));
}

test('a terminal client, a browser and a bot on three nodes ride through the owner killed mid-race, keeping every acknowledged placement', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sudoku-race-failover-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const redis = await startRedis();
  t.after(() => redis.stop());
  const nodes = await startNodes(redis, 3, path.join(dir, 'results.sqlite3'));
  t.after(() => Promise.all(nodes.map((n) => n.stop())));
  const lb = await balancer(nodes);
  t.after(() => lb.stop());
  const browser = await launch();
  t.after(() => browser.close());

  // One on each node, by the balancer: the terminal hosts on n0 (so n0 owns the room), the
  // browser joins on n1, the bot on n2.
  lb.steer(0);
  const term = terminal(['host', '--server', lb.ws, '--name', 'term', '--difficulty', 'easy']);
  t.after(() => term.stop());
  const code = await until('the terminal lobby', () => /Room code: ([A-Z0-9]+)/.exec(term.screen())?.[1], { detail: () => term.screen() });
  lb.steer(1);
  const { page, problems } = await newPage(browser);
  await joinByLink(page, lb.url, code, 'web');
  await page.waitForSelector('[data-testid=ready]');
  lb.steer(2);
  const bot = startBot(lb.ws, code, ['--name', 'botty', '--seed', '7', '--pace-ms', '100', '--mistake-rate', '0']);
  t.after(() => bot.stop());
  await until('all three in the lobby', () => /botty/.test(term.screen()) && /web/.test(term.screen()), { detail: () => term.screen() });
  lb.steer(null);
  assert.ok(logLine(nodes[0], 'room opened', code), 'n0, the terminal client’s node, owns the room');
  await until('one WebSocket on each node', async () => {
    const open = await Promise.all(nodes.map(async (n) => /^sudoku_race_connections (\d+)$/m.exec(await (await fetch(`${n.url}/metrics`)).text())?.[1]));
    return open.every((c) => c === '1');
  });

  term.keys('s');
  const grid = await puzzle(page);
  const solution = solve(grid);
  await until('the terminal’s board', () => termBoard(term.screen()) === grid, { detail: () => term.screen() });
  const empties = [...grid].flatMap((c, i) => (c === '.' ? [i] : []));
  // The browser fills the board from the top, the terminal from the bottom.
  const webOrder = empties;
  const termOrder = [...empties].reverse();
  let cursor = 0;
  /** @param {number[]} cells */
  const termPlace = (cells) => {
    const keys = [];
    for (const c of cells) {
      keys.push(...keysTo(cursor, c, solution[c]));
      cursor = c;
    }
    term.keys(...keys);
  };

  // Before the kill: each places some digits and is told they are taken.
  await solveOnPage(page, solution, empties.length - 6);
  const marked = webOrder[20];
  await page.click(`.screen.race [data-cell="${marked}"]`);
  for (const key of ['p', solution[marked], 'p']) await page.keyboard.press(key);
  termPlace(termOrder.slice(0, 6));
  await until('the browser’s placements answered', async () => (await page.locator('.screen.race [data-pending]').count()) === 0);
  const termScreen = await until('the terminal’s placements answered', () => {
    const s = term.screen();
    return termProgress(s, 'term') === 6 && placedOn(termBoard(s) ?? '', grid).length === 6 && s;
  }, { detail: () => term.screen() });
  await until('the bot’s placements answered', () => bot.acked().length >= 3);
  const acked = {
    web: await ackedOnPage(page),
    term: placedOn(termBoard(termScreen) ?? '', grid),
    botty: bot.acked(),
  };
  assert.equal(acked.web.length, 6);
  t.diagnostic(`acknowledged before the kill: ${Object.entries(acked).map(([k, v]) => `${k} ${v.length}`).join(', ')} of ${empties.length}`);

  await nodes[0].stop();

  // The gap: the browser and the terminal each place two more digits, held until the room
  // answers again; both say the race goes on, then come back.
  for (const cell of webOrder.slice(6, 8)) await place(page, cell, solution[cell]);
  termPlace(termOrder.slice(6, 8));
  /** @type {{web: Set<string>, term: Set<string>}} */
  const seen = { web: new Set(), term: new Set() };
  mkdirSync(outDir, { recursive: true });
  await until('both clients back after saying the race goes on', async () => {
    const away = (await page.isVisible('[data-testid=away]')) ? ((await page.textContent('[data-testid=away]')) ?? '') : '';
    if (away && !seen.web.size) await page.screenshot({ path: path.join(outDir, 'failover-gap.png') });
    if (away) seen.web.add(away);
    const screen = term.screen();
    const said = TERM_AWAY.exec(screen)?.[0];
    if (said && !seen.term.size) writeFileSync(path.join(outDir, 'failover-gap-terminal.txt'), screen);
    if (said) seen.term.add(said.trim());
    const webBack = !away && (await page.locator('.screen.race [data-pending]').count()) === 0;
    return seen.web.size > 0 && seen.term.size > 0 && webBack && !said && termProgress(screen, 'term') === 8;
  }, { detail: () => `browser saw ${[...seen.web]}; terminal saw ${[...seen.term]}\n${term.screen()}` });
  t.diagnostic(`browser during the gap: ${[...seen.web].join(' / ')}`);
  t.diagnostic(`terminal during the gap: ${[...seen.term].join(' / ')}`);
  assert.ok([...seen.web].some((s) => /goes on/.test(s)), [...seen.web].join('\n'));
  assert.ok([...seen.term].some((s) => /goes on/.test(s)), [...seen.term].join('\n'));
  assert.match((await page.getAttribute(`.screen.race [data-cell="${marked}"]`, 'data-marks')) ?? '', new RegExp(solution[marked]), 'the pencil mark stays');

  // Every one finishes.
  await solveOnPage(page, solution);
  termPlace(termOrder.slice(8));
  const botOut = await bot.done(60_000);
  const rows = await resultsTable(page);
  assert.deepEqual(rows.map((r) => r[2]), ['solved', 'solved', 'solved'], JSON.stringify(rows));
  await until('the terminal’s results', () => /Your time: \d+:\d\d\.\d \(rank \d\)/.test(term.screen()), { detail: () => term.screen() });
  term.keys('q');
  assert.equal(await until('the terminal client to quit', () => term.status(), { detail: () => term.screen() }), 0);
  assert.deepEqual(problems, []);

  // The stored race (on the node that took the room over) holds, for each player, every
  // placement it was told of before the kill, as its first placements, each cell once.
  const raceId = /race (\S+): solved/.exec(botOut)?.[1];
  assert.ok(raceId, botOut);
  const taker = nodes.find((n) => logLine(n, 'room taken over', code));
  assert.ok(taker && taker !== nodes[0], 'a live node took the room over');
  const race = await (await fetch(`${taker.url}/api/races/${raceId}`)).json();
  for (const [name, before] of Object.entries(acked)) {
    const id = race.players.find((/** @type {{name: string}} */ p) => p.name === name)?.player_id;
    assert.ok(id, `${name} in ${JSON.stringify(race.players)}`);
    /** @type {{cell: number, digit: number, outcome: string}[]} */
    const mine = race.placements.filter((/** @type {{player_id: string}} */ p) => p.player_id === id);
    assert.ok(mine.every((p) => p.outcome === 'accepted'), `${name}: ${JSON.stringify(mine)}`);
    assert.deepEqual(mine.map((p) => p.cell).sort((a, b) => a - b), empties, `${name} filled each empty cell once`);
    const first = mine.slice(0, before.length).map((p) => `${p.cell}:${p.digit}`).sort();
    assert.deepEqual(first, before.map((p) => `${p.cell}:${p.digit}`).sort(), `${name}: acknowledged before the kill`);
  }
});
