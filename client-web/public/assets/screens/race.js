// @ts-check
/**
 * The countdown and the race: the board, the digit pad, the clock from the server's
 * `elapsed_ms`, mistakes and penalty, everyone's progress, and the chat. Spectators see the
 * givens and the bars; nobody sees another player's digits, and a spectator's board has no
 * selection. The layout (style.css `.race-layout`): the board as large as the window allows,
 * the clock, pad and settings beside it and the progress and chat beside those on a desktop;
 * one column on a phone. The whole race plays from the keyboard: the board is one tab stop
 * (roving tabindex) with the arrows inside it, and what happens is said in one polite live
 * region (`said`, words from ../announce.js).
 */

import { createAnnouncer } from '../announce.js';
import { createBoard, doneDigits, moved } from '../board.js';
import { clock, h, setAttr, setText } from '../dom.js';
import { chatBox, errorSlot, prefsBox, progressList } from '../parts.js';
import { canPlace, elapsed, me } from '../state.js';
import { roomHeader } from './room.js';

/** @typedef {ReturnType<typeof createBoard>} Board */

/** The keys of the board, shown under it and named by its `aria-describedby`. */
export const KEYS_HELP = 'Keys: arrows move, 1–9 place a digit, P switches pencil marks, Backspace, Delete or 0 clears the marks, Tab leaves the board.';

/**
 * @param {import('../state.js').Actions} act
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function race(act, env) {
  const header = roomHeader(act, 'Race', env);
  /** @type {import('../state.js').State | null} */
  let last = null;
  const board = createBoard({ label: 'your board', onSelect: (cell) => act.select(cell) });
  const progress = progressList();
  const chat = chatBox({ onSend: act.chat });
  const error = errorSlot();
  const prefs = prefsBox(act, env);
  const bar = raceBar();
  const said = h('p', { class: 'said', role: 'status', 'aria-live': 'polite', 'data-testid': 'said' });
  const announcer = createAnnouncer();
  const keys = h('p', { class: 'muted keys', id: 'race-keys', 'data-testid': 'keys', text: KEYS_HELP });
  board.el.setAttribute('aria-describedby', 'race-keys');
  // The countdown's digits are for the eye: the live region says them.
  const overlay = h('div', { class: 'countdown', 'data-testid': 'countdown', 'aria-hidden': 'true', hidden: true });
  const pad = digitPad(act, () => last);
  // Escape from the chat goes back to the board.
  chat.el.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && last && canPlace(last)) {
      ev.preventDefault();
      board.focus(last.selected);
    }
  });

  const el = h(
    'section',
    { class: 'screen race' },
    header.el,
    error.el,
    h(
      'div',
      { class: 'race-layout' },
      bar.el,
      h('div', { class: 'board-wrap' }, board.el, overlay),
      said,
      h('div', { class: 'controls' }, pad.el, h('div', { class: 'row' }, pad.mode, pad.forfeit), keys, prefs.el),
      h('div', { class: 'side' }, h('h2', { text: 'Progress' }), progress.el, chat.el),
    ),
  );

  /** Where focus goes when the screen opens: a player's board, else the heading. */
  function focus() {
    const p = last ? me(last) : null;
    if (last && p && (p.status === 'racing' || p.status === 'waiting')) board.focus(last.selected);
    else header.heading.focus({ preventScroll: true });
  }
  return {
    el,
    focus,
    update(s, now) {
      last = s;
      header.update(s, now);
      progress.update(s);
      chat.update(s);
      prefs.update(s);
      error.update(s.notice);
      const r = s.race;
      const player = s.you?.role === 'player';
      const playing = canPlace(s);
      const view = r && r.puzzle ? { puzzle: r.puzzle, board: player ? r.board : [...r.puzzle], pencil: r.pencil, flash: r.flash, pending: r.pending,
        layout: r.layout } : null;
      board.update(view, playing ? s.selected : -1, now, null);
      setAttr(el, 'data-phase', s.phase);
      countdown(overlay, s, now);
      bar.update(s, now);
      pad.update(s);
      setAttr(keys, 'hidden', player ? null : '');
      // What just happened, in words, said once.
      const words = announcer.next(s, now);
      if (words !== null) setText(said, words === said.textContent ? `${words}\u00a0` : words);
      // The race started, or the selection moved by a tap: the focus follows it into the board.
      if (playing) followSelection(board, header.heading, s.selected);
    },
    onKey: (ev, s) => raceKey(ev, s, act, board, pad.el),
  };
}

/**
 * The countdown over the board, from the server's starts_in_ms.
 * @param {HTMLElement} overlay
 * @param {import('../state.js').State} s
 * @param {number} now
 */
function countdown(overlay, s, now) {
  if (s.phase === 'countdown') {
    const ms = s.countdown_at === null ? 0 : s.countdown_at - now;
    setText(overlay, ms > 0 ? `${Math.ceil(ms / 1000)}` : 'Go!');
    overlay.removeAttribute('hidden');
  } else {
    overlay.setAttribute('hidden', '');
  }
}

/** The bar above the board: the clock, the time left, and the mistakes with their penalty. */
function raceBar() {
  const time = h('span', { class: 'clock', 'data-testid': 'clock', 'aria-label': 'race clock' });
  const left = h('span', { class: 'muted', 'data-testid': 'time-left' });
  const mistakes = h('span', { 'data-testid': 'mistakes' });
  return {
    el: h('div', { class: 'race-bar' }, time, left, mistakes),
    /** @param {import('../state.js').State} s @param {number} now */
    update(s, now) {
      const r = s.race;
      const t = r ? elapsed(r, now) : 0;
      setText(time, clock(t));
      setText(left, r && r.puzzle ? `${clock(r.time_limit_s * 1000 - t)} left` : '');
      const limit = s.settings.max_mistakes;
      const m = r?.mistakes ?? 0;
      setText(mistakes, s.you?.role === 'player' ? `✗ ${m}${limit ? `/${limit}` : ''} · +${Math.round((r?.penalty_ms ?? 0) / 1000)} s` : 'watching');
    },
  };
}

/**
 * The digit pad with its erase key, the pencil switch and the Give up button (a player's only).
 * @param {import('../state.js').Actions} act
 * @param {() => import('../state.js').State | null} last the state drawn last
 */
function digitPad(act, last) {
  const mode = h('button', { type: 'button', class: 'small', 'data-testid': 'pencil', 'aria-pressed': 'false', 'aria-keyshortcuts': 'P' });
  const forfeit = h('button', {
    type: 'button',
    class: 'small danger',
    'data-testid': 'forfeit',
    onclick: () => {
      if (confirm('Give up this race? Your result becomes "forfeited".')) act.forfeit();
    },
    text: 'Give up',
  });
  mode.addEventListener('click', () => {
    const s = last();
    return s && act.pencilMode(!s.pencil_mode);
  });
  const pad = h('div', { class: 'pad', role: 'group', 'aria-label': 'digits' });
  /** The digits whose nine are all placed: greyed, and the pad does not place them. */
  let done = new Set();
  for (let d = 1; d <= 9; d++) {
    pad.append(h('button', { type: 'button', 'data-digit': d, 'aria-keyshortcuts': String(d), onclick: () => {
      const s = last();
      return s && !done.has(d) && act.place(s.selected, d);
    }, text: String(d) }));
  }
  pad.append(h('button', { type: 'button', 'data-testid': 'erase', 'aria-label': 'clear pencil marks', 'aria-keyshortcuts': 'Backspace Delete 0',
    onclick: () => {
      const s = last();
      return s && act.erase(s.selected);
    }, text: '⌫' }));
  return {
    el: pad,
    mode,
    forfeit,
    /** @param {import('../state.js').State} s */
    update(s) {
      const r = s.race;
      const player = s.you?.role === 'player';
      const playing = canPlace(s);
      setText(mode, s.pencil_mode ? '✎ pencil: on' : '✎ pencil: off');
      setAttr(mode, 'aria-pressed', s.pencil_mode ? 'true' : 'false');
      setAttr(pad, 'hidden', player ? null : '');
      setAttr(mode, 'hidden', player ? null : '');
      setAttr(forfeit, 'hidden', playing ? null : '');
      done = player && r ? doneDigits(r.board) : new Set();
      for (const b of pad.querySelectorAll('button')) {
        setAttr(b, 'disabled', playing ? null : '');
        const d = Number(b.getAttribute('data-digit'));
        setAttr(b, 'data-done', done.has(d) ? 'true' : null);
        setAttr(b, 'aria-disabled', done.has(d) ? 'true' : null);
      }
    },
  };
}

/**
 * A key on the race screen (outside a form field).
 * @param {KeyboardEvent} ev
 * @param {import('../state.js').State} s
 * @param {import('../state.js').Actions} act
 * @param {Board} board
 * @param {HTMLElement} pad
 */
function raceKey(ev, s, act, board, pad) {
  // A spectator has no selection to move.
  if (ev.ctrlKey || ev.metaKey || ev.altKey || s.you?.role !== 'player') return;
  // The arrows move in the board, from the board or the pad (a header's button keeps them).
  const next = moved(s.selected, ev.key);
  const from = /** @type {Node | null} */ (ev.target);
  if (next !== null && (!from || from === document.body || board.el.contains(from) || pad.contains(from))) {
    ev.preventDefault();
    act.select(next);
    board.focus(next);
    return;
  }
  if (/^[1-9]$/.test(ev.key)) {
    ev.preventDefault();
    act.place(s.selected, Number(ev.key));
  } else if (ev.key === 'Backspace' || ev.key === 'Delete' || ev.key === '0') {
    ev.preventDefault();
    act.erase(s.selected);
  } else if (ev.key === 'p' || ev.key === 'P') {
    ev.preventDefault();
    act.pencilMode(!s.pencil_mode);
  }
}

/**
 * Move the focus to the selected cell when it is in the board on another cell, or nowhere
 * in particular (the heading the countdown left it on, or the page's body).
 * @param {Board} board
 * @param {HTMLElement} heading
 * @param {number} selected
 */
function followSelection(board, heading, selected) {
  const at = document.activeElement;
  const cell = at?.getAttribute('data-cell');
  const inBoard = !!at && board.el.contains(at);
  if ((inBoard && Number(cell) !== selected) || at === heading || at === document.body || at === null) board.focus(selected);
}
