// @ts-check
/**
 * The header every in-room screen shares: the screen's heading (for screen readers, and where
 * focus goes when the screen opens), the room code, its variant when it is not classic (A10),
 * its invite link, and the way out.
 */

import { h, setAttr, setText } from '../dom.js';
import { VARIANT_NAMES } from '../geometry.js';
import { awayText } from '../moving.js';

/**
 * @param {import('../state.js').Actions} act
 * @param {string} what the screen, as its heading starts: `Lobby`, `Race`, `Results`, …
 * @param {import('../view.js').Env} env
 */
export function roomHeader(act, what, env) {
  const heading = h('h1', { class: 'sr-only', tabindex: -1, 'data-testid': 'screen-heading' });
  const code = h('code', { 'data-testid': 'room-code' });
  const link = h('input', { type: 'text', readonly: true, class: 'invite', 'aria-label': 'invite link', 'data-testid': 'invite' });
  const copy = h('button', {
    type: 'button',
    class: 'small',
    onclick: async () => {
      link.select();
      try {
        await env.copy(link.value);
        setText(copy, 'Copied');
      } catch {
        setText(copy, 'Select and copy');
      }
    },
    text: 'Copy link',
  });
  const role = h('span', { class: 'badge' });
  const variant = h('span', { class: 'badge variant', 'data-testid': 'variant', hidden: true });
  const link_state = h('span', { class: 'badge away', hidden: true, role: 'status', 'data-testid': 'away' });
  const invite = h('span', { class: 'invite-box' }, link, copy);
  const el = h(
    'header',
    { class: 'room-header' },
    heading,
    h('span', { class: 'logo' }, 'sudoku', h('span', { text: '·race' })),
    h('span', { class: 'room' }, 'Room ', code),
    variant,
    role,
    link_state,
    invite,
    h('button', { type: 'button', class: 'small', 'data-testid': 'leave', onclick: () => act.leave(), text: 'Leave' }),
  );
  /**
   * @param {import('../state.js').State} s
   * @param {number} now
   */
  function update(s, now) {
    setText(code, s.room ?? '');
    setText(heading, `${what}, room ${s.room ?? ''}`);
    const url = `${env.origin}/r/${s.room ?? ''}`;
    if (link.value !== url) link.value = url;
    setText(role, s.you?.role === 'spectator' ? 'watching' : 'player');
    const v = s.settings.variant ?? 'classic';
    setText(variant, VARIANT_NAMES[v] ?? v);
    setAttr(variant, 'hidden', v === 'classic' ? '' : null);
    // A pool room takes nobody by its link, nor a ghost's (A7).
    if (s.settings.pool || s.players.some((p) => p.ghost)) invite.setAttribute('hidden', '');
    else invite.removeAttribute('hidden');
    // Away from the room (A12): the race goes on, and the next try counts down.
    const away = awayText(s, now);
    setText(link_state, away ?? '');
    if (away) link_state.removeAttribute('hidden');
    else link_state.setAttribute('hidden', '');
  }
  return { el, update, heading };
}
