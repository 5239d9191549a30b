// @ts-check
/**
 * `/`: pick a name, then Play now (a race with strangers at a difficulty, A7); or join a room by
 * its code, or pick a public one; or, one click further, create a room with settings. The page's
 * settings (theme, pencil marks) at the bottom.
 */

import { h } from '../dom.js';
import { errorSlot, prefsBox } from '../parts.js';
import { settingsForm, variantName } from '../settings.js';
import { DEFAULT_SETTINGS } from '../wire.js';

/** @typedef {import('../state.js').Actions} Actions */
/** @typedef {() => string | null} Who the name typed, or null (and a notice) when there is none */

/**
 * @param {Actions} act
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function home(act, env) {
  const name = h('input', { type: 'text', 'data-testid': 'name', maxlength: 24, autocomplete: 'nickname', required: true, value: act.savedName() });
  const settings = settingsForm({ idPrefix: '' });
  settings.set(DEFAULT_SETTINGS);
  const error = errorSlot();
  const prefs = prefsBox(act, env);
  const rooms = h('ul', { class: 'rooms', 'data-testid': 'rooms' });

  /** @type {Who} */
  function who() {
    const n = name.value.trim();
    if (!n) {
      act.notice('Type a name first.');
      name.focus();
      return null;
    }
    return n;
  }

  const el = h(
    'section',
    { class: 'screen home' },
    h('h1', {}, 'sudoku', h('span', { text: '·race' })),
    h('p', { class: 'lead', text: 'Race strangers or friends on the same puzzle. Everyone sees how far the others are, never their digits.' }),
    h('p', {}, h('a', { href: '/#/leaderboard', 'data-testid': 'leaderboard-link', text: 'Leaderboard' }), ' · ',
      h('a', { href: '/#/arenas', 'data-testid': 'arenas', text: 'Arenas & ghosts' }), ' · ',
      h('a', { href: '/#/solo', 'data-testid': 'solo-link', text: 'Solo practice (offline)' })),
    h('label', { class: 'name-field' }, h('span', { text: 'Your name' }), name),
    error.el,
    playNowCard(act, who),
    h('div', { class: 'columns' }, joinCard(act, who, rooms), privateRoom(act, who, settings)),
    prefs.el,
  );

  /** @type {unknown} */
  let shownRooms = null;
  return {
    el,
    focus: () => name.focus({ preventScroll: true }),
    update(s) {
      error.update(s.notice);
      prefs.update(s);
      if (s.rooms === shownRooms) return;
      shownRooms = s.rooms;
      if (s.rooms.length === 0) {
        rooms.replaceChildren(h('li', { class: 'muted', text: 'No open rooms right now.' }));
        return;
      }
      rooms.replaceChildren(...s.rooms.map((r) => roomItem(act, who, r)));
    },
  };
}

/**
 * Play now: a difficulty and the big button. The pool deals classic only (A10: the server refuses
 * `quick_race` with another variant), so there is no variant picker here: variants are raced in rooms.
 * @param {Actions} act
 * @param {Who} who
 */
function playNowCard(act, who) {
  const level = h('select', { 'data-testid': 'play-difficulty', name: 'play_difficulty' },
    ...['easy', 'medium', 'hard', 'expert'].map((d) => h('option', { value: d, text: d })));
  level.value = DEFAULT_SETTINGS.difficulty;
  return h(
    'form',
    {
      class: 'card play-now',
      onsubmit: (ev) => {
        ev.preventDefault();
        const n = who();
        if (n) act.playNow(n, /** @type {import('../../../types/wire.js').Difficulty} */ (level.value));
      },
    },
    h('h2', { text: 'Play now' }),
    h('p', { class: 'muted', text: 'Race whoever else is looking for a classic race at that difficulty. Variants are raced in rooms.' }),
    h('div', { class: 'row' },
      h('label', {}, h('span', { text: 'Difficulty' }), level),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'play-now', text: 'Play now' })),
  );
}

/**
 * Join a room by its code, or from the list of open rooms (`rooms`, filled by `update`).
 * @param {Actions} act
 * @param {Who} who
 * @param {HTMLElement} rooms
 */
function joinCard(act, who, rooms) {
  const code = h('input', { type: 'text', 'data-testid': 'code', maxlength: 8, autocapitalize: 'characters', spellcheck: 'false', placeholder: 'K7QRM', 'aria-label': 'room code' });
  return h(
    'div',
    { class: 'card' },
    h(
      'form',
      {
        onsubmit: (ev) => {
          ev.preventDefault();
          const n = who();
          if (!n) return;
          const c = code.value.trim().toUpperCase();
          if (!/^[A-Z2-9]{4,8}$/.test(c)) return act.notice('A room code is 4 to 8 letters and digits (2–9).');
          act.join(c, n);
        },
      },
      h('h2', { text: 'Join a room' }),
      h('label', {}, h('span', { text: 'Room code' }), code),
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'join', text: 'Join' }),
    ),
    h('h2', {}, 'Open rooms ', h('button', { type: 'button', class: 'small', onclick: () => act.listRooms(), text: 'Refresh' })),
    rooms,
  );
}

/**
 * A private room, its settings one click further.
 * @param {Actions} act
 * @param {Who} who
 * @param {ReturnType<typeof settingsForm>} settings
 */
function privateRoom(act, who, settings) {
  return h(
    'details',
    { class: 'card' },
    h('summary', { 'data-testid': 'private-room', text: 'Private room with settings' }),
    h(
      'form',
      {
        onsubmit: (ev) => {
          ev.preventDefault();
          const n = who();
          if (!n) return;
          const s = settings.read();
          if (typeof s === 'string') return act.notice(s);
          act.create(n, s);
        },
      },
      settings.el,
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'create', text: 'Create room' }),
    ),
  );
}

/**
 * One open room in the list, with its Join button.
 * @param {Actions} act
 * @param {Who} who
 * @param {import('../../../types/wire.js').RoomEntry} r
 */
function roomItem(act, who, r) {
  return h(
    'li',
    {},
    h('code', { text: r.room }),
    h('span', { text: ` ${r.variant && r.variant !== 'classic' ? `${variantName(r.variant)} · ` : ''}${r.difficulty} · ${r.players}/${r.max_players}${r.phase === 'finished' ? ' · between races' : ''} ` }),
    h('button', {
      type: 'button',
      class: 'small',
      'aria-label': `Join room ${r.room}`,
      onclick: () => {
        const n = who();
        if (n) act.join(r.room, n);
      },
      text: 'Join',
    }),
  );
}
