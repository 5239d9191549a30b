// @ts-check
/**
 * The TV page (`#/tv`, A8): it asks `/api/tv` for the strongest race running, watches it with
 * boards, and when that race ends shows the final boards for a moment, then asks again and moves
 * on; with no race running it asks again every few seconds. Loaded only when `#/tv` opens.
 */

import { h, setText } from '../dom.js';
import { boardsGrid, boardsNote } from './watch.js';

/** How long a finished race's final boards stay before the next race is looked for. */
export const PAUSE_MS = 4000;
/** How long the page waits to ask again when no race runs (or the server did not answer). */
export const RETRY_MS = 5000;

/**
 * @param {import('../state.js').Actions} act
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function tv(act, env) {
  const boards = boardsGrid();
  const title = h('h1', { 'data-testid': 'tv-title', text: 'sudoku-race TV' });
  const status = h('p', { class: 'muted', role: 'status', 'data-testid': 'tv-status' });
  const el = h('section', { class: 'screen tv', 'data-testid': 'tv' }, title, status, boards.el);
  /** 'idle': look for a race; 'asking': /api/tv asked; 'watching': in a room; 'waiting': a timer runs. */
  let mode = 'idle';
  /** The room being watched, so its end is acted on once. */
  let room = '';
  /** @type {import('../state.js').State | null} */
  let last = null;

  function ask() {
    mode = 'asking';
    setText(status, 'Looking for the strongest race running…');
    env.get('/api/tv', { cache: 'no-store' })
      .then((r) => (r.ok ? r.json() : null))
      .then(
        (body) => {
          if (!el.isConnected) return;
          if (body && typeof body.room === 'string') {
            mode = 'watching';
            room = body.room;
            act.watch(body.room, 'tv', true);
          } else {
            later('No race is running right now. Looking again in a few seconds.');
          }
        },
        () => el.isConnected && later('The server did not answer. Trying again in a few seconds.'),
      );
  }

  /** @param {string} words */
  function later(words) {
    mode = 'waiting';
    setText(status, words);
    env.later(() => {
      mode = 'idle';
      if (el.isConnected && last) update(last);
    }, RETRY_MS);
  }

  /** @param {import('../state.js').State} s */
  function update(s) {
    last = s;
    boards.update(s);
    if (mode === 'idle' && !s.room) return ask();
    if (mode !== 'watching' || s.room !== room) {
      // The room closed under the page (room_closed): look for the next race.
      if (mode === 'watching' && !s.room) {
        mode = 'idle';
        return ask();
      }
      return;
    }
    setText(title, `sudoku-race TV · room ${room}`);
    if (s.phase === 'finished') {
      mode = 'waiting';
      setText(status, `${boardsNote(s)} The next race comes in a moment.`);
      env.later(() => {
        act.unwatch();
        mode = 'idle';
      }, PAUSE_MS);
      return;
    }
    setText(status, s.phase === 'racing' ? boardsNote(s) : 'The race is about to start.');
  }

  return { el, update: (s) => update(s) };
}
