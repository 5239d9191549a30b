// @ts-check
/** `/r/CODE`: a friend's invite link. A name, then the lobby; or watch instead. */

import { h } from '../dom.js';
import { errorSlot } from '../parts.js';

/**
 * @param {import('../state.js').Actions} act
 * @param {string} room
 * @returns {import('../state.js').Screen}
 */
export function joinRoom(act, room) {
  const name = h('input', { type: 'text', 'data-testid': 'name', maxlength: 24, autocomplete: 'nickname', required: true, value: act.savedName() });
  const error = errorSlot();
  const el = h(
    'section',
    { class: 'screen join' },
    h('h1', {}, 'sudoku', h('span', { text: '·race' })),
    h('p', { class: 'lead' }, 'You are invited to room ', h('code', { 'data-testid': 'room-code', text: room }), '.'),
    h(
      'form',
      {
        class: 'card',
        onsubmit: (ev) => {
          ev.preventDefault();
          const n = name.value.trim();
          if (!n) return act.notice('Type a name first.');
          act.join(room, n);
        },
      },
      h('label', { class: 'name-field' }, h('span', { text: 'Your name' }), name),
      error.el,
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'submit', class: 'primary', 'data-testid': 'join', text: 'Join the race' }),
        h('button', {
          type: 'button',
          'data-testid': 'watch',
          onclick: () => act.watch(room, name.value.trim() || 'spectator'),
          text: 'Just watch',
        }),
      ),
    ),
    h('p', {}, h('a', { href: '/', text: 'Start your own room instead' })),
  );
  return {
    el,
    focus: () => name.focus({ preventScroll: true }),
    update(s) {
      error.update(s.notice);
    },
  };
}
