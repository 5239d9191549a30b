// @ts-check
/**
 * `/#/races/RACE_ID`: a finished race played back from `GET /api/races/ID`. A clock, play and
 * pause at ×1 to ×16, one placement back or on, restart, the end, and a scrubber over race time;
 * everyone's bar, one player's board (read-only: givens and their accepted digits) and, at the
 * end, the standings. What is shown at a time is ../replay.js's; this module only draws it.
 */

import { createBoard } from '../board.js';
import { h, raceTime, setAttr, setText } from '../dom.js';
import { colOf, rowOf } from '../geometry.js';
import { progressLine, standingsTable } from '../parts.js';
import { at, boardAt, parseRace, seatPuzzle, seek, step } from '../replay.js';
import { ApiError } from '../wire.js';

const SPEEDS = [1, 2, 4, 8, 16];
/** How often the clock moves while playing. */
const TICK_MS = 100;
/** Words for how a race ended. @type {Record<string, string>} */
const ENDED = { all_done: 'everyone done', time_limit: 'time up', shutdown: 'server shut down' };
/** Words for a placement's outcome. @type {Record<string, string>} */
const OUTCOME = { accepted: '✓', wrong: '✗ wrong', conflict: '✗ clashes', given: 'on a given', filled: 'on a placed digit' };

/**
 * What the page plays: the race once loaded, the cursor, the speed, the running clock's stop
 * (null while paused) and when it last moved, and the player whose board is shown.
 * @typedef {{r: import('../replay.js').Replay | null, cur: import('../replay.js').Cursor, speed: number,
 *   stop: (() => void) | null, tickAt: number, who: string}} Playback
 */

/** @param {string} testid @param {string} label @param {string} text @param {() => void} onclick */
const button = (testid, label, text, onclick) =>
  h('button', { type: 'button', class: 'small', 'data-testid': testid, 'aria-label': label, title: label, onclick, text });

/**
 * @param {string} raceId
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function replayPage(raceId, env) {
  /** @type {Playback} */
  const v = { r: null, cur: { n: 0, t: 0 }, speed: 1, stop: null, tickAt: 0, who: '' };
  const ui = replayParts({
    toggle: () => (v.stop ? pause() : start()),
    faster: () => {
      v.speed = SPEEDS[(SPEEDS.indexOf(v.speed) + 1) % SPEEDS.length];
      draw();
    },
    restart: () => go({ n: 0, t: 0 }),
    go: (f) => v.r && go(f(v.r, v.cur)),
    scrub: (ms) => v.r && go(seek(v.r, ms), !!v.stop),
    pick: (who) => {
      v.who = who;
      draw();
    },
  });
  const el = ui.el;

  /** @param {import('../replay.js').Cursor} c @param {boolean} [keepPlaying] */
  function go(c, keepPlaying = false) {
    if (!keepPlaying) pause();
    v.cur = c;
    draw();
  }
  function start() {
    if (!v.r || v.stop) return;
    if (v.cur.t >= v.r.end_ms) v.cur = { n: 0, t: 0 };
    v.tickAt = env.now();
    v.stop = env.every(tick, TICK_MS);
    draw();
  }
  function pause() {
    v.stop?.();
    v.stop = null;
    draw();
  }
  function tick() {
    // Left for another page: stop, so nothing runs behind it.
    if (!v.r || !el.isConnected) return pause();
    const now = env.now();
    v.cur = seek(v.r, v.cur.t + (now - v.tickAt) * v.speed);
    v.tickAt = now;
    if (v.cur.t >= v.r.end_ms) pause();
    else draw();
  }
  const draw = () => drawReplay(ui, v);

  async function load() {
    setAttr(el, 'data-problem', null);
    setAttr(ui.problem, 'hidden', '');
    setAttr(ui.meta, 'hidden', null);
    setText(ui.meta, 'Loading the race…');
    try {
      v.r = parseRace(await env.api(`/api/races/${encodeURIComponent(raceId)}`));
    } catch (e) {
      const status = e instanceof ApiError ? e.status : -1;
      const why = e instanceof Error ? e.message : String(e);
      if (status === 404 || status === 400) fail(ui, load, 'no_race', 'No such finished race', `There is no finished race ${raceId}: races in progress are not kept, and the link may be mistyped.`, false);
      else fail(ui, load, 'race_unavailable', 'The race cannot be loaded', `The race could not be loaded (${why}).`, status !== -1);
      return;
    }
    v.who = showRace(ui, v.r);
    draw();
  }
  load();

  return {
    el,
    update() {},
    onKey(ev) {
      if (v.r) replayKey(ev, ui, () => (v.stop ? pause() : start()));
    },
  };
}

/**
 * A key on the loaded replay: space plays or pauses (unless it presses a button), the arrows
 * step, Home and End jump.
 * @param {KeyboardEvent} ev
 * @param {ReturnType<typeof replayParts>} ui
 * @param {() => void} toggle
 */
function replayKey(ev, ui, toggle) {
  if (ev.key === ' ' && /** @type {HTMLElement} */ (ev.target).tagName === 'BUTTON') return;
  /** @type {Record<string, () => void>} */
  const keys = {
    ' ': toggle,
    ArrowLeft: () => ui.back.click(),
    ArrowRight: () => ui.on.click(),
    Home: () => ui.restart.click(),
    End: () => ui.end.click(),
  };
  const f = keys[ev.key];
  if (f) {
    ev.preventDefault();
    f();
  }
}

/**
 * The page's elements: the bar (clock, buttons, scrubber), the board with whose it is and what
 * was placed, everyone's progress and the final standings.
 * @param {{toggle: () => void, faster: () => void, pick: (who: string) => void, restart: () => void, scrub: (ms: number) => void,
 *   go: (f: (r: import('../replay.js').Replay, c: import('../replay.js').Cursor) => import('../replay.js').Cursor) => void}} on
 */
function replayParts(on) {
  const play = button('replay-play', 'play or pause', '▶ Play', on.toggle);
  const faster = button('replay-speed', 'playback speed ×1', '×1', on.faster);
  const restart = button('replay-restart', 'restart', '⇤', on.restart);
  const back = button('replay-back', '1 placement back', '◀ 1', () => on.go((r, c) => step(r, c, -1)));
  const forward = button('replay-forward', '1 placement on', '1 ▶', () => on.go((r, c) => step(r, c, 1)));
  const end = button('replay-end', 'jump to the end', '⇥', () => on.go((r) => seek(r, r.end_ms)));
  const scrub = h('input', { type: 'range', min: 0, max: 0, step: 100, value: 0, 'aria-label': 'race time', 'data-testid': 'replay-scrub' });
  scrub.addEventListener('input', () => on.scrub(Number(scrub.value)));
  const time = h('span', { class: 'clock', 'data-testid': 'replay-clock', 'aria-label': 'race clock' });
  const total = h('span', { class: 'muted' });
  const counter = h('span', { class: 'muted', 'data-testid': 'replay-step' });
  const list = h('ul', { class: 'progress', 'data-testid': 'progress', 'aria-label': 'progress' });
  const pick = h('select', { 'data-testid': 'replay-player', 'aria-label': 'whose board' });
  pick.addEventListener('change', () => on.pick(pick.value));
  const board = createBoard({ label: 'the board', onSelect: () => {} });
  const said = h('p', { class: 'said', 'data-testid': 'said' });
  const table = standingsTable({ rating: false });
  const final = h('div', { class: 'card', 'data-testid': 'replay-final', hidden: true },
    h('h2', { text: 'Final standings' }), h('div', { class: 'table-wrap' }, table.el));
  const meta = h('p', { class: 'muted', 'data-testid': 'replay-meta', text: 'Loading the race…' });
  const title = h('h1', { text: 'Replay' });
  const problem = h('div', { hidden: true });
  const body = h('div', { hidden: true },
    h('div', { class: 'card replay-bar' },
      h('div', { class: 'race-bar' }, time, total, counter),
      h('div', { class: 'row' }, play, faster, restart, back, forward, end), scrub),
    h('div', { class: 'race-grid' },
      h('div', { class: 'play' }, h('label', { class: 'check' }, h('span', { text: 'Board of' }), pick), board.el, said),
      h('div', { class: 'side' }, h('div', { class: 'card' }, h('h2', { text: 'Progress' }), list), final)));
  const el = h('section', { class: 'screen replay' },
    h('p', {}, h('a', { href: '/', text: '← sudoku·race' })), title, meta, problem, body);
  return { el, play, faster, restart, back, on: forward, end, scrub, time, total, counter, list, pick, board, said, table, final, meta, title, problem, body };
}

/**
 * Draw the playback `v` at its cursor.
 * @param {ReturnType<typeof replayParts>} ui
 * @param {Playback} v
 */
function drawReplay(ui, v) {
  const { r, cur, who } = v;
  setText(ui.faster, `×${v.speed}`);
  // The spoken name holds the visible text (WCAG 2.5.3).
  setAttr(ui.faster, 'aria-label', `playback speed ×${v.speed}`);
  setAttr(ui.el, 'data-playing', v.stop ? 'true' : 'false');
  if (!r) return;
  const over = cur.n >= r.events.length && cur.t >= r.end_ms;
  setText(ui.play, v.stop ? '❚❚ Pause' : over ? '▶ Again' : '▶ Play');
  setAttr(ui.play, 'aria-label', v.stop ? 'Pause' : over ? 'Play again' : 'Play');
  setText(ui.time, raceTime(cur.t));
  setText(ui.counter, `placement ${cur.n}/${r.events.length}`);
  // The slider moves in tenths; its end is the race's end.
  ui.scrub.value = String(cur.t >= r.end_ms ? ui.scrub.max : cur.t);
  ui.list.replaceChildren(...at(r, cur).map((line) => progressLine(line, line.player_id === who)));
  const b = boardAt(r, cur, who);
  const e = b.latest;
  const refused = e && e.outcome !== 'accepted' ? { cells: b.clashes, at: e.at_ms, kind: e.outcome, cell: e.cell, digit: e.digit } : null;
  ui.board.update({ puzzle: seatPuzzle(r, who), board: b.board, pencil: [], flash: refused, pending: new Map() }, e ? e.cell : -1, cur.t, null);
  const name = r.race.players.find((p) => p.player_id === who)?.name ?? '';
  setText(ui.said, e ? `${name}: ${e.digit} at row ${rowOf(e.cell) + 1} column ${colOf(e.cell) + 1} ${OUTCOME[e.outcome] ?? e.outcome}` : `${name} has placed nothing yet`);
  setAttr(ui.final, 'hidden', over ? null : '');
}

/**
 * The race is in: its title, what it was, its length, whose board to show (the winner's
 * first); the player shown.
 * @param {ReturnType<typeof replayParts>} ui
 * @param {import('../replay.js').Replay} r
 */
function showRace(ui, r) {
  const race = r.race;
  setText(ui.title, `Replay: ${race.difficulty} race`);
  setText(ui.meta, [new Date(race.started_unix_ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    `${race.players.length} player${race.players.length === 1 ? '' : 's'}`, race.rated ? 'rated' : 'unrated',
    race.daily ? `daily ${race.daily}` : '', `ended: ${ENDED[race.reason] ?? race.reason}`].filter(Boolean).join(' · '));
  setText(ui.total, `/ ${raceTime(r.end_ms)}`);
  setAttr(ui.scrub, 'max', String(Math.ceil(r.end_ms / 100) * 100));
  ui.pick.replaceChildren(...race.players.map((p) => h('option', { value: p.player_id, text: p.bot ? `${p.name} (bot)` : p.name })));
  const who = race.standings[0]?.player_id ?? race.players[0]?.player_id ?? '';
  ui.pick.value = who;
  ui.table.update(race.standings, null, undefined, race.players);
  setAttr(ui.body, 'hidden', null);
  return who;
}

/**
 * A page-filling error in the problem screen's shape (`data-problem`), with a way on.
 * @param {ReturnType<typeof replayParts>} ui
 * @param {() => void} load
 * @param {string} code
 * @param {string} heading
 * @param {string} message
 * @param {boolean} retry
 */
function fail(ui, load, code, heading, message, retry) {
  setAttr(ui.el, 'data-problem', code);
  setText(ui.title, heading);
  setAttr(ui.meta, 'hidden', '');
  ui.problem.replaceChildren(h('p', { class: 'error', role: 'alert', 'data-testid': 'error', text: message }),
    h('div', { class: 'row' }, retry ? h('button', { type: 'button', class: 'primary', 'data-testid': 'retry', onclick: load, text: 'Try again' }) : null,
      h('a', { class: 'button', href: '/', text: 'Back to the start' })));
  setAttr(ui.problem, 'hidden', null);
}
