// @ts-check
/**
 * The countdown and the race: the board, the digit pad, the clock from the server's
 * `elapsed_ms`, mistakes and penalty, everyone's progress, and the chat. Spectators see the
 * givens and the bars; nobody sees another player's digits, and a spectator's board has no
 * selection. The layout (style.css `.race-layout`): the board as large as the window allows,
 * the clock, pad and settings beside it and the progress and chat beside those on a desktop;
 * one column on a phone.
 */

import { createBoard, doneDigits, FLASH_MS, moved } from '../board.js';
import { clock, h, raceTime, setAttr, setText } from '../dom.js';
import { chatBox, errorSlot, prefsBox, progressList } from '../parts.js';
import { canPlace, elapsed, me } from '../state.js';
import { roomHeader } from './room.js';

/** Words for why a digit was refused. */
const REASON = {
  wrong: 'is not right there',
  conflict: 'clashes with the marked cells',
  given: 'cannot go on a given',
  filled: 'cannot replace a placed digit',
};

/**
 * @param {import('../state.js').Actions} act
 * @returns {import('../state.js').Screen}
 */
export function race(act) {
  const header = roomHeader(act);
  /** @type {import('../state.js').State | null} */
  let last = null;
  const board = createBoard({ label: 'your board', onSelect: (cell) => act.select(cell) });
  const progress = progressList();
  const chat = chatBox({ onSend: act.chat });
  const error = errorSlot();
  const prefs = prefsBox(act);
  const time = h('span', { class: 'clock', 'data-testid': 'clock', 'aria-label': 'race clock' });
  const left = h('span', { class: 'muted', 'data-testid': 'time-left' });
  const mistakes = h('span', { 'data-testid': 'mistakes' });
  const mode = h('button', { type: 'button', class: 'small', 'data-testid': 'pencil', 'aria-pressed': 'false' });
  const said = h('p', { class: 'said', role: 'status', 'aria-live': 'polite', 'data-testid': 'said' });
  const overlay = h('div', { class: 'countdown', 'data-testid': 'countdown', hidden: true });
  const forfeit = h('button', {
    type: 'button',
    class: 'small danger',
    'data-testid': 'forfeit',
    onclick: () => {
      if (confirm('Give up this race? Your result becomes "forfeited".')) act.forfeit();
    },
    text: 'Give up',
  });
  mode.addEventListener('click', () => last && act.pencilMode(!last.pencil_mode));

  const pad = h('div', { class: 'pad', role: 'group', 'aria-label': 'digits' });
  /** The digits whose nine are all placed: greyed, and the pad does not place them. */
  let done = new Set();
  for (let d = 1; d <= 9; d++) {
    pad.append(h('button', { type: 'button', 'data-digit': d, onclick: () => last && !done.has(d) && act.place(last.selected, d), text: String(d) }));
  }
  pad.append(h('button', { type: 'button', 'data-testid': 'erase', 'aria-label': 'clear pencil marks', onclick: () => last && act.erase(last.selected), text: '⌫' }));

  const el = h(
    'section',
    { class: 'screen race' },
    header.el,
    error.el,
    h(
      'div',
      { class: 'race-layout' },
      h('div', { class: 'race-bar' }, time, left, mistakes),
      h('div', { class: 'board-wrap' }, board.el, overlay),
      said,
      h('div', { class: 'controls' }, pad, h('div', { class: 'row' }, mode, forfeit), prefs.el),
      h('div', { class: 'side' }, h('h2', { text: 'Progress' }), progress.el, chat.el),
    ),
  );

  /** @type {unknown} */
  let saidFor = null;
  return {
    el,
    focus: () => last?.you?.role === 'player' && board.focus(last.selected),
    update(s, now) {
      last = s;
      header.update(s);
      progress.update(s);
      chat.update(s);
      prefs.update(s);
      error.update(s.notice);
      const r = s.race;
      const player = s.you?.role === 'player';
      const mine = me(s);
      const playing = canPlace(s);
      const view = r && r.puzzle ? { puzzle: r.puzzle, board: player ? r.board : [...r.puzzle], pencil: r.pencil, flash: r.flash, pending: r.pending } : null;
      board.update(view, playing ? s.selected : -1, now, null);
      setAttr(el, 'data-phase', s.phase);
      // The countdown, from the server's starts_in_ms.
      if (s.phase === 'countdown') {
        const ms = s.countdown_at === null ? 0 : s.countdown_at - now;
        setText(overlay, ms > 0 ? `${Math.ceil(ms / 1000)}` : 'Go!');
        overlay.removeAttribute('hidden');
      } else {
        overlay.setAttribute('hidden', '');
      }
      const t = r ? elapsed(r, now) : 0;
      setText(time, clock(t));
      setText(left, r && r.puzzle ? `${clock(r.time_limit_s * 1000 - t)} left` : '');
      const limit = s.settings.max_mistakes;
      const m = r?.mistakes ?? 0;
      setText(mistakes, player ? `✗ ${m}${limit ? `/${limit}` : ''} · +${Math.round((r?.penalty_ms ?? 0) / 1000)} s` : 'watching');
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
      // What just happened, in words (a refused digit, or where this player stands).
      let words = '';
      const fl = r?.flash && now - r.flash.at < FLASH_MS * 2 ? r.flash : null;
      if (fl) words = `✗ ${fl.digit} ${REASON[/** @type {keyof typeof REASON} */ (fl.kind)] ?? 'was refused'}.`;
      else if (!player) words = s.join_next ? 'Watching: you join the next race.' : 'Watching the race.';
      else if (mine && mine.status === 'solved') words = `Solved in ${raceTime(r?.done.get(mine.player_id)?.time_ms ?? null)}. Waiting for the others.`;
      else if (mine && mine.status !== 'racing' && s.phase === 'racing') words = `You are ${mine.status.replace('_', ' ')}. The race goes on.`;
      else if (s.phase === 'countdown' || s.phase === 'lobby') words = 'Get ready…';
      if (words !== saidFor) {
        saidFor = words;
        setText(said, words);
      }
    },
    onKey(ev, s) {
      // A spectator has no selection to move.
      if (ev.ctrlKey || ev.metaKey || ev.altKey || s.you?.role !== 'player') return;
      const next = moved(s.selected, ev.key);
      if (next !== null) {
        ev.preventDefault();
        act.select(next);
        board.focus(next);
        return;
      }
      if (/^[1-9]$/.test(ev.key)) {
        ev.preventDefault();
        act.place(s.selected, Number(ev.key));
      } else if (ev.key === 'Backspace' || ev.key === 'Delete') {
        ev.preventDefault();
        act.erase(s.selected);
      } else if (ev.key === 'p' || ev.key === 'P') {
        ev.preventDefault();
        act.pencilMode(!s.pencil_mode);
      }
    },
  };
}
