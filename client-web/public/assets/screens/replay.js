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
import { api, ApiError } from '../wire.js';

const SPEEDS = [1, 2, 4, 8, 16];
/** How often the clock moves while playing. */
const TICK_MS = 100;
/** Words for how a race ended. @type {Record<string, string>} */
const ENDED = { all_done: 'everyone done', time_limit: 'time up', shutdown: 'server shut down' };
/** Words for a placement's outcome. @type {Record<string, string>} */
const OUTCOME = { accepted: '✓', wrong: '✗ wrong', conflict: '✗ clashes', given: 'on a given', filled: 'on a placed digit' };

/**
 * @param {string} raceId
 * @returns {import('../state.js').Screen}
 */
export function replayPage(raceId) {
  /** @type {import('../replay.js').Replay | null} */
  let r = null;
  /** @type {import('../replay.js').Cursor} */
  let cur = { n: 0, t: 0 };
  let speed = 1;
  /** @type {ReturnType<typeof setInterval> | null} */
  let timer = null;
  let tickAt = 0;
  /** The player whose board is shown. */
  let who = '';

  /** @param {string} testid @param {string} label @param {string} text @param {() => void} onclick */
  const button = (testid, label, text, onclick) =>
    h('button', { type: 'button', class: 'small', 'data-testid': testid, 'aria-label': label, title: label, onclick, text });
  const play = button('replay-play', 'play or pause', '▶ Play', () => (timer ? pause() : start()));
  const faster = button('replay-speed', 'playback speed ×1', '×1', () => {
    speed = SPEEDS[(SPEEDS.indexOf(speed) + 1) % SPEEDS.length];
    draw();
  });
  const restart = button('replay-restart', 'restart', '⇤', () => go({ n: 0, t: 0 }));
  const back = button('replay-back', '1 placement back', '◀ 1', () => r && go(step(r, cur, -1)));
  const on = button('replay-forward', '1 placement on', '1 ▶', () => r && go(step(r, cur, 1)));
  const end = button('replay-end', 'jump to the end', '⇥', () => r && go(seek(r, r.end_ms)));
  const scrub = h('input', { type: 'range', min: 0, max: 0, step: 100, value: 0, 'aria-label': 'race time', 'data-testid': 'replay-scrub' });
  scrub.addEventListener('input', () => r && go(seek(r, Number(scrub.value)), !!timer));
  const time = h('span', { class: 'clock', 'data-testid': 'replay-clock', 'aria-label': 'race clock' });
  const total = h('span', { class: 'muted' });
  const counter = h('span', { class: 'muted', 'data-testid': 'replay-step' });
  const list = h('ul', { class: 'progress', 'data-testid': 'progress', 'aria-label': 'progress' });
  const pick = h('select', { 'data-testid': 'replay-player', 'aria-label': 'whose board' });
  pick.addEventListener('change', () => {
    who = pick.value;
    draw();
  });
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
      h('div', { class: 'row' }, play, faster, restart, back, on, end), scrub),
    h('div', { class: 'race-grid' },
      h('div', { class: 'play' }, h('label', { class: 'check' }, h('span', { text: 'Board of' }), pick), board.el, said),
      h('div', { class: 'side' }, h('div', { class: 'card' }, h('h2', { text: 'Progress' }), list), final)));
  const el = h('section', { class: 'screen replay' },
    h('p', {}, h('a', { href: '/', text: '← sudoku·race' })), title, meta, problem, body);

  /** @param {import('../replay.js').Cursor} c @param {boolean} [keepPlaying] */
  function go(c, keepPlaying = false) {
    if (!keepPlaying) pause();
    cur = c;
    draw();
  }
  function start() {
    if (!r || timer) return;
    if (cur.t >= r.end_ms) cur = { n: 0, t: 0 };
    tickAt = performance.now();
    timer = setInterval(tick, TICK_MS);
    draw();
  }
  function pause() {
    if (timer) clearInterval(timer);
    timer = null;
    draw();
  }
  function tick() {
    // Left for another page: stop, so nothing runs behind it.
    if (!r || !el.isConnected) return pause();
    const now = performance.now();
    cur = seek(r, cur.t + (now - tickAt) * speed);
    tickAt = now;
    if (cur.t >= r.end_ms) pause();
    else draw();
  }

  function draw() {
    setText(faster, `×${speed}`);
    // The spoken name holds the visible text (WCAG 2.5.3).
    setAttr(faster, 'aria-label', `playback speed ×${speed}`);
    setAttr(el, 'data-playing', timer ? 'true' : 'false');
    if (!r) return;
    const over = cur.n >= r.events.length && cur.t >= r.end_ms;
    setText(play, timer ? '❚❚ Pause' : over ? '▶ Again' : '▶ Play');
    setAttr(play, 'aria-label', timer ? 'Pause' : over ? 'Play again' : 'Play');
    setText(time, raceTime(cur.t));
    setText(counter, `placement ${cur.n}/${r.events.length}`);
    // The slider moves in tenths; its end is the race's end.
    scrub.value = String(cur.t >= r.end_ms ? scrub.max : cur.t);
    list.replaceChildren(...at(r, cur).map((line) => progressLine(line, line.player_id === who)));
    const b = boardAt(r, cur, who);
    const e = b.latest;
    const refused = e && e.outcome !== 'accepted' ? { cells: b.clashes, at: e.at_ms, kind: e.outcome, cell: e.cell, digit: e.digit } : null;
    board.update({ puzzle: seatPuzzle(r, who), board: b.board, pencil: [], flash: refused, pending: new Map() }, e ? e.cell : -1, cur.t, null);
    const name = r.race.players.find((p) => p.player_id === who)?.name ?? '';
    setText(said, e ? `${name}: ${e.digit} at row ${rowOf(e.cell) + 1} column ${colOf(e.cell) + 1} ${OUTCOME[e.outcome] ?? e.outcome}` : `${name} has placed nothing yet`);
    setAttr(final, 'hidden', over ? null : '');
  }

  /**
   * A page-filling error in the problem screen's shape (`data-problem`), with a way on.
   * @param {string} code
   * @param {string} heading
   * @param {string} message
   * @param {boolean} retry
   */
  function fail(code, heading, message, retry) {
    setAttr(el, 'data-problem', code);
    setText(title, heading);
    setAttr(meta, 'hidden', '');
    problem.replaceChildren(h('p', { class: 'error', role: 'alert', 'data-testid': 'error', text: message }),
      h('div', { class: 'row' }, retry ? h('button', { type: 'button', class: 'primary', 'data-testid': 'retry', onclick: load, text: 'Try again' }) : null,
        h('a', { class: 'button', href: '/', text: 'Back to the start' })));
    setAttr(problem, 'hidden', null);
  }

  async function load() {
    setAttr(el, 'data-problem', null);
    setAttr(problem, 'hidden', '');
    setAttr(meta, 'hidden', null);
    setText(meta, 'Loading the race…');
    try {
      r = parseRace(await api(`/api/races/${encodeURIComponent(raceId)}`));
    } catch (e) {
      const status = e instanceof ApiError ? e.status : -1;
      const why = e instanceof Error ? e.message : String(e);
      if (status === 404 || status === 400) fail('no_race', 'No such finished race', `There is no finished race ${raceId}: races in progress are not kept, and the link may be mistyped.`, false);
      else fail('race_unavailable', 'The race cannot be loaded', `The race could not be loaded (${why}).`, status !== -1);
      return;
    }
    const race = r.race;
    setText(title, `Replay: ${race.difficulty} race`);
    setText(meta, [new Date(race.started_unix_ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      `${race.players.length} player${race.players.length === 1 ? '' : 's'}`, race.rated ? 'rated' : 'unrated',
      race.daily ? `daily ${race.daily}` : '', `ended: ${ENDED[race.reason] ?? race.reason}`].filter(Boolean).join(' · '));
    setText(total, `/ ${raceTime(r.end_ms)}`);
    setAttr(scrub, 'max', String(Math.ceil(r.end_ms / 100) * 100));
    pick.replaceChildren(...race.players.map((p) => h('option', { value: p.player_id, text: p.bot ? `${p.name} (bot)` : p.name })));
    who = race.standings[0]?.player_id ?? race.players[0]?.player_id ?? '';
    pick.value = who;
    table.update(race.standings, null, undefined, race.players);
    setAttr(body, 'hidden', null);
    draw();
  }
  load();

  return {
    el,
    update() {},
    onKey(ev) {
      if (!r || (ev.key === ' ' && /** @type {HTMLElement} */ (ev.target).tagName === 'BUTTON')) return;
      /** @type {Record<string, () => void>} */
      const keys = {
        ' ': () => (timer ? pause() : start()),
        ArrowLeft: () => back.click(),
        ArrowRight: () => on.click(),
        Home: () => restart.click(),
        End: () => end.click(),
      };
      const f = keys[ev.key];
      if (f) {
        ev.preventDefault();
        f();
      }
    },
  };
}
