// @ts-check
/**
 * Between races: the last race's standings and a link to its replay, the solved board, the
 * host's rematch, settings and kicks, and the chat. A pool room (A7) has no host: its players
 * race again through the pool (`requeue`). An arena race's results show the arena's standings
 * and when the next race is asked for by itself (control.js asks; Race again asks at once).
 * Anyone in the room (a spectator too) may report a player of the race to the moderators (A8):
 * a small Report button per row opens a box for the reason.
 */

import { createBoard } from '../board.js';
import { h, setAttr, setText } from '../dom.js';
import { chatBox, errorSlot, playerList, standingsTable } from '../parts.js';
import { describe, settingsForm } from '../settings.js';
import { me } from '../state.js';
import { roomHeader } from './room.js';
import { arenaState, arenaTable, arenaWhen, nextRaceIn } from './arena.js';

/** Before any race_over: the same empty table every redraw. */
const NO_STANDINGS = /** @type {import('../../../types/wire.js').Standing[]} */ ([]);

/**
 * A rated player's change, as `12.3 (+2.4)`; empty when the race was not rated.
 * @param {import('../state.js').State} s
 * @param {string} playerId
 */
function ratingText(s, playerId) {
  const r = s.ratings.find((x) => x.player_id === playerId);
  if (!r) return '';
  const d = r.after - r.before;
  return `${r.after.toFixed(1)} (${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(1)})`;
}

/**
 * The Report button on every row but ours, and the box that asks for the reason: one line of
 * 1 to 200 characters, as the server takes it (A8). A ghost (a replay) is nobody to report.
 * @param {import('../state.js').Actions} act
 */
function reportBox(act) {
  let target = '';
  /** The Report button that opened the box, focused again when it closes. @type {HTMLElement | null} */
  let opener = null;
  const title = h('label', { for: 'report-reason' });
  const input = h('input', { id: 'report-reason', type: 'text', maxlength: 200, required: true, 'data-testid': 'report-reason', placeholder: 'What happened?' });
  const cancel = h('button', { type: 'button', class: 'small', text: 'Cancel', onclick: () => close() });
  const send = h('button', { type: 'submit', class: 'small', 'data-testid': 'report-send', text: 'Send report' });
  const el = h('form', {
    class: 'report-box',
    'data-testid': 'report-box',
    hidden: true,
    onsubmit: (ev) => {
      ev.preventDefault();
      const reason = input.value.trim();
      if (!reason) return;
      act.report(target, reason);
      input.value = '';
      close();
    },
    // Escape leaves the box, as it leaves any dialog.
    onkeydown: (ev) => {
      if (/** @type {KeyboardEvent} */ (ev).key !== 'Escape') return;
      ev.preventDefault();
      close();
    },
  }, title, input, h('div', { class: 'row' }, send, cancel));
  function close() {
    setAttr(el, 'hidden', '');
    if (opener?.isConnected) opener.focus();
    opener = null;
  }
  /**
   * Put the buttons on the table's rows.
   * @param {HTMLElement} table
   * @param {string | null} mine
   * @param {Set<string>} ghosts
   */
  function buttons(table, mine, ghosts) {
    for (const tr of table.querySelectorAll('tbody tr')) {
      const id = tr.getAttribute('data-player-id') ?? '';
      const name = tr.querySelector('.name');
      if (!id || id === mine || ghosts.has(id) || !name?.parentElement) continue;
      const who = name.textContent ?? '';
      name.parentElement.append(' ', h('button', {
        type: 'button',
        class: 'link small',
        'data-testid': 'report',
        'aria-label': `report ${who}`,
        text: 'Report',
        onclick: (ev) => {
          target = id;
          opener = /** @type {HTMLElement} */ (ev.currentTarget);
          setText(title, `Report ${who} to the moderators: why?`);
          setAttr(el, 'hidden', null);
          input.focus();
        },
      }));
    }
  }
  return { el, buttons };
}

/** @typedef {import('../state.js').State} State */

/**
 * @param {import('../state.js').Actions} act
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function results(act, env) {
  const header = roomHeader(act, 'Results', env);
  const players = playerList({ onKick: act.kick });
  const chat = chatBox({ onSend: act.chat });
  const error = errorSlot();
  const outcome = outcomePart(act);
  const solution = solutionPart();
  const rematch = h('button', { type: 'button', class: 'primary', 'data-testid': 'rematch', onclick: () => act.start(), text: 'Rematch' });
  const again = h('button', { type: 'button', class: 'primary', 'data-testid': 'requeue', onclick: () => act.requeue(), text: 'Race again' });
  const waiting = h('p', { class: 'muted' });
  const arena = arenaPart(act);
  // Every finished race is stored before race_over goes out, so its replay is there now; a
  // new tab keeps this page's seat in the room.
  const replay = h('a', { class: 'button', 'data-testid': 'replay-link', target: '_blank', rel: 'noopener', hidden: true, text: 'Replay ↗' });
  const host = hostPart(act);
  const columns = h(
    'div',
    { class: 'columns' },
    h('div', { class: 'card' }, ...outcome.els, h('div', { class: 'row' }, rematch, again, replay), waiting, arena.el),
    solution.el,
    h('div', { class: 'card' }, h('h2', { text: 'Room' }), players.el, host.summary, host.el, chat.el),
  );
  const el = h('section', { class: 'screen results-screen' }, header.el, error.el, columns);
  return {
    el,
    // The outcome first: "Race over: …", then the table below it.
    focus: () => outcome.title.focus({ preventScroll: true }),
    update(s, now) {
      header.update(s, now);
      players.update(s);
      chat.update(s);
      error.update(s.notice);
      outcome.update(s);
      const r = s.race;
      setAttr(replay, 'href', r ? `/#/races/${encodeURIComponent(r.race_id)}` : null);
      setAttr(replay, 'hidden', r ? null : '');
      solution.update(s, now, columns);
      const mine = me(s);
      const isHost = !!mine && s.host === mine.player_id;
      setAttr(rematch, 'hidden', isHost ? null : '');
      host.update(s, isHost);
      const pool = !!s.settings.pool;
      const { a, over } = arena.update(s, now);
      setAttr(again, 'hidden', pool && mine && !over ? null : '');
      let words = isHost ? 'Start a rematch when everyone is back.' : 'The host starts the next race.';
      if (pool) words = 'Race again to look for the next race; players of this one who do are seated together first.';
      if (a) words = over ? '' : "Race again to be seated in the arena's next race now.";
      if (!mine) words = s.join_next ? 'Joining the next race…' : 'You are watching.';
      setText(waiting, words);
    },
  };
}

/**
 * The outcome: its title, the standings (race_over's, with ratings) and their Report buttons.
 * @param {import('../state.js').Actions} act
 */
function outcomePart(act) {
  const report = reportBox(act);
  const title = h('h2', { 'data-testid': 'results-title', tabindex: -1 });
  const table = standingsTable({ rating: true });
  /** @type {unknown} */
  let shown = null;
  return {
    title,
    els: [title, h('div', { class: 'table-wrap' }, table.el), report.el],
    /** @param {State} s */
    update(s) {
      const reason = s.over_reason === 'time_limit' ? 'time is up' : 'everyone is done';
      // The standings are race_over's, or the room view's of the last race (a page that came
      // between races): never guessed from who is here now.
      setText(title, s.standings ? `Race over: ${reason}` : 'The last race');
      const standings = s.standings ?? NO_STANDINGS;
      setAttr(table.el, 'hidden', s.standings ? null : '');
      if (shown === standings) return;
      shown = standings;
      const bots = [...s.bots].map((player_id) => ({ player_id, bot: true }));
      table.update(standings, s.you?.player_id ?? null, (id) => ratingText(s, id), [...s.players, ...bots]);
      const ghosts = new Set(s.players.filter((p) => p.ghost).map((p) => p.player_id));
      report.buttons(table.el, s.you?.player_id ?? null, ghosts);
    },
  };
}

/** The solved board: the player's own board with the solution in its empty cells. */
function solutionPart() {
  const board = createBoard({ label: 'the solution', onSelect: () => {} });
  const el = h('div', { class: 'card small-board', 'data-testid': 'solution-card' }, h('h2', { text: 'Solution' }), board.el);
  return {
    el,
    /** @param {State} s @param {number} now @param {HTMLElement} columns */
    update(s, now, columns) {
      const r = s.race;
      const view = r && r.puzzle ? { puzzle: r.puzzle, board: s.you?.role === 'player' ? r.board : [...r.puzzle], pencil: new Array(81).fill(0), flash: null, pending: new Map(),
        layout: r.layout } : null;
      // A8: our board was our own isomorph: its solution is our standing's (the race's is for spectators).
      const own = s.standings?.find((t) => t.player_id === s.you?.player_id)?.solution;
      const solution = own ?? s.solution;
      // No solution is ours to show (we did not race it): no board of givens alone.
      setAttr(el, 'hidden', view && solution ? null : '');
      // No solution of our own (a late joiner): two columns, the table gets the room's width.
      setAttr(columns, 'data-solution', view && solution ? null : 'none');
      board.update(view, -1, now, solution);
    },
  };
}

/**
 * An arena race's results: the arena's standings and when the next race is asked for.
 * @param {import('../state.js').Actions} act
 */
function arenaPart(act) {
  const arenaTitle = h('h2');
  const arenaNext = h('p', { 'data-testid': 'arena-next', role: 'status' });
  const arena = arenaTable(act.savedName());
  const el = h('div', { class: 'arena-box', 'data-testid': 'arena-box', hidden: true }, arenaTitle, arenaNext, h('div', { class: 'table-wrap' }, arena.el));
  return {
    el,
    /**
     * The room's arena if it is ours, and whether it is over.
     * @param {State} s @param {number} now
     */
    update(s, now) {
      const a = s.arena?.arena_id === s.settings.arena ? s.arena : null;
      const over = !!a && arenaState(a, Date.now()) === 'finished';
      setAttr(el, 'hidden', a ? null : '');
      if (a) {
        setText(arenaTitle, `Arena ${a.name}: it ${arenaWhen(a, Date.now())}`);
        const next = nextRaceIn(s, now);
        setText(arenaNext, over ? 'The arena is over: these standings are final.' : next !== null ? `Next race in ${next} s…` : 'Race again for the next race.');
        arena.update(a.standings);
      }
      return { a, over };
    },
  };
}

/**
 * The room's settings in words, and the host's form for the next race's.
 * @param {import('../state.js').Actions} act
 */
function hostPart(act) {
  const summary = h('p', { class: 'muted', 'data-testid': 'settings' });
  const form = settingsForm({ idPrefix: 'results-' });
  const save = h('button', {
    type: 'button',
    class: 'small',
    'data-testid': 'save-settings',
    onclick: () => {
      const v = form.read();
      if (typeof v === 'string') act.notice(v);
      else act.setSettings(v);
    },
    text: 'Save settings',
  });
  const el = h('details', { class: 'host-settings' }, h('summary', { text: 'Settings for the next race' }), form.el, save);
  /** @type {unknown} */
  let formFor = null;
  return {
    el,
    summary,
    /** @param {State} s @param {boolean} host */
    update(s, host) {
      setAttr(el, 'hidden', host ? null : '');
      setText(summary, describe(s.settings));
      if (formFor !== s.settings) {
        formFor = s.settings;
        form.set(s.settings);
      }
    },
  };
}
