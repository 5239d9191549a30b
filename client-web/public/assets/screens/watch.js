// @ts-check
/**
 * The watch screen (A8): every player's board side by side, each as the server shows it to a
 * spectator that asked for boards — `--spectator-delay-s` behind the race while it runs, the
 * final one once it is over — with the player's name and progress above it. Loaded only when a
 * page watches with boards (`?watch=boards`, or the TV page), so a first visit never fetches it.
 */

import { clock, h, setText } from '../dom.js';
import { elapsed } from '../state.js';
import { roomHeader } from './room.js';

/** @typedef {import('../state.js').State} State */

/** Link the screen's stylesheet once (kept out of style.css, which every first visit loads). */
function styled() {
  if (document.getElementById('boards-style')) return;
  document.head.append(h('link', { id: 'boards-style', rel: 'stylesheet', href: '/assets/boards.css' }));
}

/**
 * One small grid: givens bold, placed digits in colour.
 * @param {string} board
 * @param {string} givens
 */
function grid(board, givens) {
  const el = h('div', { class: 'mini-grid', role: 'img', 'aria-label': 'board' });
  for (let i = 0; i < 81; i++) {
    const c = board[i] ?? '.';
    const cls = c === '.' ? '' : givens[i] === c ? 'given' : 'placed';
    el.append(h('span', { class: cls, text: c === '.' ? '' : c }));
  }
  return el;
}

/**
 * Every player's delayed board (`data-testid=boards`), name and progress above each.
 * @returns {{el: HTMLElement, update: (s: State) => void}}
 */
export function boardsGrid() {
  styled();
  const el = h('div', { class: 'boards', 'data-testid': 'boards' });
  /** What was drawn, so an unchanged state draws nothing. */
  let drawn = '';
  /** @param {State} s */
  function update(s) {
    const rows = s.players.map((p) => {
      const b = s.boards.get(p.player_id);
      const pr = s.race?.progress.get(p.player_id);
      const done = s.race?.done.get(p.player_id);
      return { p, b, pr, status: done ? done.status : p.status };
    });
    const key = JSON.stringify(rows.map((r) => [r.p.player_id, r.p.name, r.b?.board, r.pr?.filled, r.status]));
    if (key === drawn) return;
    drawn = key;
    el.replaceChildren(
      ...rows.map(({ p, b, pr, status }) =>
        h(
          'figure',
          { class: 'mini', 'data-testid': 'mini-board', 'data-player': p.player_id },
          h(
            'figcaption',
            {},
            h('strong', { text: p.name }),
            h('span', { class: 'muted', text: pr ? `${pr.filled}/${pr.to_fill}${status === 'racing' ? '' : ` · ${status.replace('_', ' ')}`}` : status }),
          ),
          b ? grid(b.board, b.givens) : h('p', { class: 'muted', text: 'No board yet' }),
        ),
      ),
    );
  }
  return { el, update };
}

/**
 * The screen a spectator with boards sees while the race runs.
 * @param {import('../state.js').Actions} act
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function watch(act, env) {
  const header = roomHeader(act, 'Watching the boards', env);
  const boards = boardsGrid();
  const time = h('span', { class: 'clock', 'data-testid': 'clock', 'aria-label': 'race clock' });
  const note = h('p', { class: 'muted boards-note', 'data-testid': 'boards-note' });
  const el = h('section', { class: 'screen watch' }, header.el, h('div', { class: 'race-bar' }, time), note, boards.el);
  return {
    el,
    focus: () => header.heading.focus({ preventScroll: true }),
    update(s, now) {
      header.update(s, now);
      boards.update(s);
      setText(time, clock(s.race ? elapsed(s.race, now) : 0));
      setText(note, boardsNote(s));
    },
  };
}

/**
 * What the boards show, in words.
 * @param {State} s
 */
export function boardsNote(s) {
  if (s.phase === 'finished') return 'The race is over: the final boards.';
  const at = Math.max(0, ...[...s.boards.values()].map((b) => b.at_ms));
  return `Boards are shown as they were at ${clock(at)} (delayed, so nobody can pass digits to a racer).`;
}
