// @ts-check
/**
 * Waiting in the pool for a race with strangers (A7): the difficulty, how many wait there now,
 * how long this page has waited, a note when nobody has come (with the ghost it offers to race
 * instead), and Cancel. Imported by view.js
 * when the page first queues (not on the first load).
 */

import { clock, h, setAttr, setText } from '../dom.js';
import { errorSlot } from '../parts.js';

/**
 * @param {import('../state.js').Actions} act
 * @returns {import('../state.js').Screen}
 */
export function queue(act) {
  const level = h('b', { 'data-testid': 'queue-difficulty' });
  const waiting = h('p', { 'data-testid': 'queue-waiting', role: 'status', 'aria-live': 'polite' });
  const time = h('span', { class: 'clock', 'data-testid': 'queue-time', role: 'timer', 'aria-label': 'time waited' });
  const alone = h('p', { class: 'muted', 'data-testid': 'queue-alone', role: 'status', hidden: true });
  const away = h('p', { class: 'badge away', role: 'status', hidden: true, text: 'reconnecting…' });
  const cancel = h('button', { type: 'button', 'data-testid': 'leave-queue', onclick: () => act.leaveQueue(), text: 'Cancel' });
  /** The ghost `pool_alone` offered (A7), raced instead of waiting. */
  let ghost = '';
  const race = h('button', { type: 'button', class: 'primary', 'data-testid': 'race-ghost', hidden: true,
    onclick: () => act.raceGhost(ghost), text: 'Race a ghost instead' });
  const error = errorSlot();
  const el = h(
    'section',
    { class: 'screen queue', 'data-testid': 'queue' },
    h('h1', {}, 'sudoku', h('span', { text: '·race' })),
    error.el,
    h(
      'div',
      { class: 'card' },
      h('h2', { text: 'Looking for a race' }),
      h('p', {}, 'Difficulty: ', level),
      h('p', {}, 'Waiting ', time),
      waiting,
      h('p', { class: 'muted', text: 'The race starts by itself once another player is found, after a few seconds for more to come.' }),
      alone,
      away,
      h('div', { class: 'row' }, race, cancel),
    ),
  );
  return {
    el,
    focus: () => cancel.focus({ preventScroll: true }),
    update(s, now) {
      error.update(s.notice);
      const q = s.queue;
      if (!q) return;
      setText(level, q.difficulty);
      setText(time, clock(now - q.since));
      const others = q.waiting - 1;
      setText(waiting, others > 0 ? `${q.waiting} players waiting, you included.` : 'You are the only one waiting so far.');
      setText(alone, `Nobody else is looking for a race at ${q.difficulty} right now. Keep waiting, or cancel and invite friends to a room of your own.`);
      setAttr(alone, 'hidden', q.alone ? null : '');
      ghost = q.ghost ?? '';
      setAttr(race, 'hidden', ghost ? null : '');
      setAttr(away, 'hidden', s.link === 'down' ? null : '');
    },
  };
}
