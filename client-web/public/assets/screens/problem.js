// @ts-check
/** A screen-filling error: what happened in words, and the way on from it. */

import { h, setAttr, setText } from '../dom.js';

/** Titles for the errors that end a visit. */
const TITLES = {
  unknown_room: 'No such room',
  room_full: 'This room is full',
  kicked: 'You were removed from the room',
  server_full: 'The server is full',
  server_gone: 'The server is gone',
  room_closed: 'The room has closed',
  restarting: 'The server is restarting',
  moved: 'Playing in another tab',
  unsupported_variant: 'A variant this page cannot draw',
};

/**
 * @param {import('../state.js').Actions} act
 * @param {import('../state.js').Problem} p
 * @returns {import('../state.js').Screen}
 */
export function problem(act, p) {
  const title = TITLES[/** @type {keyof typeof TITLES} */ (p.code)] ?? 'Something went wrong';
  /** @type {HTMLElement[]} */
  const ways = [];
  if (p.code === 'room_full' && p.room) {
    const room = p.room;
    ways.push(h('button', { type: 'button', 'data-testid': 'watch', onclick: () => act.watch(room, act.savedName() || 'spectator'), text: 'Watch instead' }));
  }
  if (p.code === 'server_gone' || p.code === 'server_full' || p.code === 'moved') {
    ways.push(h('button', { type: 'button', class: 'primary', 'data-testid': 'retry', onclick: () => act.retry(), text: p.code === 'moved' ? 'Play here instead' : 'Try again' }));
  }
  if (p.code === 'restarting') {
    ways.push(h('button', { type: 'button', class: 'primary', 'data-testid': 'again-pool', onclick: () => act.again('pool'), text: 'Play now' }));
    ways.push(h('button', { type: 'button', 'data-testid': 'again-room', onclick: () => act.again('room'), text: 'New room' }));
  }
  ways.push(h('a', { class: 'button', href: '/', text: 'Back to the start' }));
  // When the page asks again by itself (a pool ask after a restart, A9): counted down.
  const redo = h('p', { class: 'muted', 'data-testid': 'redo', hidden: true });
  const el = h(
    'section',
    { class: 'screen problem', 'data-problem': p.code },
    h('h1', { text: title }),
    h('p', { class: 'error', role: 'alert', 'data-testid': 'error', text: p.message }),
    redo,
    h('div', { class: 'row' }, ...ways),
  );
  return {
    el,
    update(s, now) {
      const at = s.problem?.retry_at;
      const secs = at === undefined ? null : Math.max(0, Math.ceil((at - now) / 1000));
      setText(redo, secs === null ? '' : secs > 0 ? `Asking another server by itself in ${secs} s…` : 'Asking another server…');
      setAttr(redo, 'hidden', secs === null ? '' : null);
    },
  };
}
