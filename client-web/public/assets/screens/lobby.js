// @ts-check
/**
 * The lobby: who is in, ready marks, the host's settings, start and kick, and the chat. The
 * ready button says what pressing it does; whether you are ready is said beside it.
 */

import { h, setAttr, setText } from '../dom.js';
import { chatBox, errorSlot, playerList } from '../parts.js';
import { describe, settingsForm } from '../settings.js';
import { me } from '../state.js';
import { roomHeader } from './room.js';

/**
 * @param {import('../state.js').Actions} act
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function lobby(act, env) {
  const header = roomHeader(act, 'Lobby', env);
  const players = playerList({ onKick: act.kick });
  const chat = chatBox({ onSend: act.chat });
  const error = errorSlot();
  const ready = h('button', { type: 'button', 'data-testid': 'ready', class: 'primary' });
  const readyState = h('span', { class: 'ready-state', 'data-testid': 'ready-state' });
  const start = h('button', { type: 'button', 'data-testid': 'start', class: 'primary', onclick: () => act.start(), text: 'Start the race' });
  const summary = h('p', { class: 'muted', 'data-testid': 'settings' });
  const form = settingsForm({ idPrefix: 'lobby-' });
  const save = h('button', { type: 'button', class: 'small', 'data-testid': 'save-settings', text: 'Save settings' });
  const hostBox = h('div', { class: 'host-settings' }, form.el, save);
  const waiting = h('p', { class: 'muted' });
  let isReady = false;
  ready.addEventListener('click', () => act.ready(!isReady));
  save.addEventListener('click', () => {
    const s = form.read();
    if (typeof s === 'string') act.notice(s);
    else act.setSettings(s);
  });
  /** @type {unknown} */
  let formFor = null;

  const el = h(
    'section',
    { class: 'screen lobby' },
    header.el,
    error.el,
    h(
      'div',
      { class: 'columns' },
      h('div', { class: 'card' }, h('h2', { text: 'Players' }), players.el, h('div', { class: 'row' }, readyState, ready, start), waiting),
      h('div', { class: 'card' }, h('h2', { text: 'Race' }), summary, hostBox, chat.el),
    ),
  );
  return {
    el,
    focus: () => header.heading.focus({ preventScroll: true }),
    update(s, now) {
      header.update(s, now);
      players.update(s);
      chat.update(s);
      error.update(s.notice);
      const mine = me(s);
      const host = !!mine && s.host === mine.player_id;
      isReady = !!mine?.ready;
      setText(ready, isReady ? 'Not ready yet — cancel' : "I'm ready");
      setText(readyState, isReady ? '✓ You are ready.' : 'You are not ready.');
      setAttr(ready, 'hidden', mine ? null : '');
      setAttr(readyState, 'hidden', mine ? null : '');
      setAttr(start, 'hidden', host ? null : '');
      setAttr(hostBox, 'hidden', host ? null : '');
      setText(summary, describe(s.settings));
      if (formFor !== s.settings) {
        formFor = s.settings;
        form.set(s.settings);
      }
      const n = s.players.length;
      const nReady = s.players.filter((p) => p.ready).length;
      let words = `${nReady} of ${n} ready.`;
      if (!mine) words = s.join_next ? 'You are watching; you join the next race.' : 'You are watching.';
      else if (!host) words += ' The host starts the race.';
      else words += ' Start whenever you like; nobody has to be ready.';
      setText(waiting, words);
    },
  };
}
