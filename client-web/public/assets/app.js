// @ts-check
/**
 * The page: one connection (wire.js), one state (state.js), one screen at a time (screens/).
 * Server messages and the player's actions change the state; a redraw follows. This module is
 * the only one that touches the network, the URL and storage.
 *
 * Storage: the seat's resume token is kept in sessionStorage per room (a reload or a dropped
 * connection takes the seat back; another tab does not share it); the name and the identity
 * key (A6: registered on the first room entered, sent with every entry after) in localStorage.
 *
 * What `/` needs is imported statically (and preloaded by index.html); the read-only pages a
 * first visit does not need are imported when their route opens (`pages` below, not preloaded).
 */

import { Link, wsUrl } from './wire.js';
import { apply, canPlace, clearPencil, initial, togglePencil } from './state.js';
import { home } from './screens/home.js';
import { joinRoom } from './screens/join.js';
import { lobby } from './screens/lobby.js';
import { race } from './screens/race.js';
import { results } from './screens/results.js';
import { problem } from './screens/problem.js';
import { h } from './dom.js';

/** @typedef {import('./state.js').Screen} Screen */

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
const invite = /^\/r\/([A-Za-z2-9]{4,8})\/?$/.exec(location.pathname);
/** The room this page is about: the invite link's, then the one joined. */
let pageRoom = invite ? invite[1].toUpperCase() : null;
const watchOnly = new URLSearchParams(location.search).has('watch');

const state = initial();
/** What the page last asked to enter, so an error can be read against it. */
let intent = /** @type {{kind: 'create' | 'join' | 'watch' | 'resume', room?: string, name?: string, retried?: boolean} | null} */ (null);
/** What to send once `registered` brings a key (A6). */
let awaitingKey = /** @type {((key: string | undefined) => void) | null} */ (null);
let leaving = false;
let placeSeq = 0;
/** The name a spectator watches under, to watch again after a drop. */
let watchName = 'spectator';

const store = {
  /** @param {string} room */
  token: (room) => safe(() => sessionStorage.getItem(`sudoku-race:token:${room}`)),
  /** @param {string} room @param {string} token */
  keepToken: (room, token) => safe(() => sessionStorage.setItem(`sudoku-race:token:${room}`, token)),
  /** @param {string} room */
  dropToken: (room) => safe(() => sessionStorage.removeItem(`sudoku-race:token:${room}`)),
  name: () => safe(() => localStorage.getItem('sudoku-race:name')) ?? '',
  /** @param {string} name */
  keepName: (name) => safe(() => localStorage.setItem('sudoku-race:name', name)),
  key: () => safe(() => localStorage.getItem('sudoku-race:key')) ?? undefined,
  /** @param {string} key */
  keepKey: (key) => safe(() => localStorage.setItem('sudoku-race:key', key)),
  dropKey: () => safe(() => localStorage.removeItem('sudoku-race:key')),
};

/**
 * Run `then` with this browser's identity key, registering one under `name` first if there is
 * none. A server that cannot register (an older one) leaves the player anonymous.
 * @param {string} name
 * @param {(key: string | undefined) => void} then
 */
function withKey(name, then) {
  const key = store.key();
  if (key) return then(key);
  awaitingKey = then;
  link.send({ type: 'register', name });
}

/**
 * Storage can be off or full (private windows); the page then forgets more, nothing else.
 * @template T
 * @param {() => T} f
 * @returns {T | null}
 */
function safe(f) {
  try {
    return f();
  } catch {
    return null;
  }
}

const link = new Link({
  url: wsUrl(),
  onMessage,
  onOpen(again) {
    state.link = 'up';
    if (again) {
      // Back after a drop: take the seat (or the spectator's place) back.
      const token = state.you?.token;
      if (token) {
        intent = { kind: 'resume', room: state.room ?? undefined };
        link.send({ type: 'resume', token });
      } else if (state.room && state.you?.role === 'spectator') {
        link.send({ type: 'spectate', room: state.room, name: watchName });
      }
    } else if (pageRoom) {
      const token = store.token(pageRoom);
      if (token) {
        intent = { kind: 'resume', room: pageRoom };
        link.send({ type: 'resume', token });
      } else if (watchOnly) {
        act.watch(pageRoom, store.name() || 'spectator');
      }
    } else {
      link.send({ type: 'list_rooms' });
    }
    redraw();
  },
  onDown({ code, retrying }) {
    if (leaving || state.problem) return;
    state.link = 'down';
    if (code === 1000 && state.room && state.you?.role === 'player') {
      state.problem = { code: 'moved', message: 'Your seat moved to another tab or window. Only one can play it.' };
    } else if (!retrying) {
      state.problem = { code: 'server_gone', message: 'The connection to the server was lost and it cannot be reached again. It may be restarting.' };
    }
    redraw();
  },
});

/** @param {import('./wire.js').ServerMsg} msg */
function onMessage(msg) {
  const now = performance.now();
  if (msg.type === 'registered') {
    store.keepKey(msg.key);
    const then = awaitingKey;
    awaitingKey = null;
    then?.(msg.key);
    return;
  }
  if (msg.type === 'error' && awaitingKey) {
    // Registering failed: a bad name is said on the form; anything else plays anonymously.
    const then = awaitingKey;
    awaitingKey = null;
    if (msg.code !== 'invalid_name') return then(undefined);
  }
  const wasRoom = state.room;
  const what = apply(state, msg, now);
  switch (what) {
    case 'joined': {
      intent = null;
      if (state.room) pageRoom = state.room;
      const token = state.you?.token;
      if (state.room && token) store.keepToken(state.room, token);
      if (state.you?.role === 'player') state.join_next = null;
      state.notice = state.join_next ? 'A race is in progress: you are watching it, and you join the next race.' : null;
      const url = `/r/${state.room}${state.you?.role === 'spectator' && !state.join_next ? '?watch' : ''}`;
      if (location.pathname + location.search !== url) history.replaceState(null, '', url);
      document.title = `sudoku-race · ${state.room}`;
      break;
    }
    case 'left':
      if (wasRoom) store.dropToken(wasRoom);
      if (state.problem?.code === 'room_closed') link.stop();
      break;
    case 'join_next': {
      const name = state.join_next;
      const room = state.room;
      if (name && room) {
        link.send({ type: 'leave' });
        intent = { kind: 'join', room, name };
        withKey(name, (key) => link.send({ type: 'join_room', room, name, key }));
      }
      break;
    }
    case 'error':
      if (msg.type === 'error') onError(msg.code, msg.message);
      break;
    default:
      break;
  }
  redraw();
}

/**
 * @param {string} code
 * @param {string} message
 */
function onError(code, message) {
  const room = intent?.room ?? state.room ?? pageRoom ?? '';
  switch (code) {
    case 'invalid_key':
      // The server forgot this identity (a new database): register again, once.
      store.dropKey();
      if (intent && !intent.retried && intent.name) {
        const again = { ...intent, retried: true };
        if (again.kind === 'create') act.create(again.name ?? '', state.settings);
        else if (again.kind === 'join' && again.room) act.join(again.room, again.name ?? '');
        else if (again.kind === 'watch' && again.room) act.watch(again.room, again.name ?? '');
        if (intent) intent.retried = true;
      }
      break;
    case 'invalid_token': {
      // The seat is gone (expired while away, or the race went on without it): join afresh.
      if (room) store.dropToken(room);
      const kept = { rooms: state.rooms, link: state.link };
      Object.assign(state, initial(), kept);
      pageRoom = room || pageRoom;
      state.notice = 'Your seat from before is gone. Join again.';
      if (pageRoom && location.pathname !== `/r/${pageRoom}`) history.replaceState(null, '', `/r/${pageRoom}`);
      break;
    }
    case 'unknown_room':
      state.problem = { code, message: `There is no room ${room}. It may have closed, or the code is mistyped.`, room };
      break;
    case 'room_full':
      state.problem = { code, message: `Room ${room} has no free seat.`, room };
      break;
    case 'race_in_progress':
      if (intent?.kind === 'join' && intent.room && intent.name) {
        state.join_next = intent.name;
        act.watch(intent.room, intent.name);
        state.join_next = intent?.name ?? null;
      }
      break;
    case 'kicked':
      if (room) store.dropToken(room);
      state.problem = { code, message: `The host removed you from room ${room}. You cannot come back for a while.`, room };
      Object.assign(state, { room: null, you: null, phase: null, race: null });
      break;
    case 'server_full':
      state.problem = { code, message: 'The server has no room for more players right now. Try again in a minute.' };
      break;
    case 'name_taken':
      state.join_next = null;
      state.notice = 'That name is taken in this room. Pick another.';
      break;
    case 'invalid_name':
      state.notice = 'That name cannot be used: 1 to 24 visible characters.';
      break;
    case 'rate_limited':
      state.notice = 'Too fast: wait a moment.';
      break;
    default:
      state.notice = message || code;
      break;
  }
  state.notice_at = performance.now();
}

/** @type {import('./state.js').Actions} */
const act = {
  create(name, settings) {
    store.keepName(name);
    state.notice = null;
    const retried = intent?.retried && intent.kind === 'create';
    intent = { kind: 'create', name, retried };
    withKey(name, (key) => link.send({ type: 'create_room', name, settings, key }));
  },
  join(room, name) {
    store.keepName(name);
    state.notice = null;
    const retried = intent?.retried && intent.kind === 'join';
    intent = { kind: 'join', room, name, retried };
    withKey(name, (key) => link.send({ type: 'join_room', room, name, key }));
  },
  watch(room, name) {
    state.problem = null;
    watchName = name;
    const retried = intent?.retried && intent.kind === 'watch';
    intent = { kind: 'watch', room, name, retried };
    // Watching needs no identity: send the key only if there is one already.
    link.send({ type: 'spectate', room, name, key: store.key() });
    redraw();
  },
  listRooms: () => link.send({ type: 'list_rooms' }),
  ready: (on) => link.send({ type: 'set_ready', ready: on }),
  start: () => link.send({ type: 'start_race' }),
  place(cell, digit) {
    const r = state.race;
    if (!r || !canPlace(state) || cell < 0 || cell > 80) return;
    if (state.pencil_mode) {
      togglePencil(r, cell, digit);
    } else if (r.board[cell] !== '.') {
      r.flash = { cells: [], at: performance.now(), kind: r.puzzle?.[cell] !== '.' ? 'given' : 'filled', cell, digit };
    } else {
      placeSeq += 1;
      r.pending.set(placeSeq, { cell, digit });
      link.send({ type: 'place', cell, digit, id: placeSeq });
    }
    redraw();
  },
  erase(cell) {
    if (state.race) clearPencil(state.race, cell);
    redraw();
  },
  select(cell) {
    state.selected = cell;
    redraw();
  },
  pencilMode(on) {
    state.pencil_mode = on;
    redraw();
  },
  forfeit: () => link.send({ type: 'forfeit' }),
  chat: (text) => link.send({ type: 'chat', text }),
  setSettings: (settings) => link.send({ type: 'set_settings', settings }),
  kick: (playerId) => link.send({ type: 'kick', player_id: playerId }),
  leave() {
    leaving = true;
    if (state.room) store.dropToken(state.room);
    link.send({ type: 'leave' });
    // Give the leave a moment to go out before the socket closes.
    setTimeout(() => {
      link.stop();
      location.assign('/');
    }, 150);
  },
  retry() {
    state.problem = null;
    state.link = 'connecting';
    link.failures = 0;
    link.connect();
    redraw();
  },
  notice(text) {
    state.notice = text;
    state.notice_at = performance.now();
    redraw();
  },
  savedName: () => store.name(),
};

/**
 * The pages a first visit does not need, imported when their route first opens; index.html
 * does not preload them (tests/layout.test.mjs holds index.html to both rules). The replay's
 * playback module is asked for beside its screen, so the two fetches do not wait on each other.
 */
const pages = {
  leaders: () => import('./screens/leaders.js'),
  replay: () => Promise.all([import('./screens/replay.js'), import('./replay.js')]).then(([screen]) => screen),
};

/**
 * A screen that says "Loading…" while `load` imports a page's module, then becomes the page
 * `make` builds from it (the same element the page would have been, so its styles and test
 * hooks are unchanged). A failed import gets a clear error and Try again, which imports afresh
 * (a failed fetch is not kept in the browser's module map).
 * @template M
 * @param {string} name the page, for the `page:NAME` performance mark when it is in
 * @param {() => Promise<M>} load
 * @param {(m: M) => Screen} make
 * @returns {Screen}
 */
function lazyScreen(name, load, make) {
  /** @type {Screen | null} */
  let page = null;
  /** @type {{s: import('./state.js').State, now: number} | null} */
  let last = null;
  const el = h('section', { class: 'screen loading', 'data-testid': 'page-loading' });
  function attempt() {
    el.removeAttribute('data-problem');
    el.replaceChildren(h('p', { class: 'muted', role: 'status', text: 'Loading…' }));
    load().then(
      (m) => {
        // The route changed while the module came: the screen after this one is in charge.
        if (!el.isConnected) return;
        page = make(m);
        el.replaceWith(page.el);
        if (last) page.update(last.s, last.now);
        page.focus?.();
        performance.mark(`page:${name}`);
      },
      (e) => {
        el.setAttribute('data-problem', 'page_unavailable');
        el.replaceChildren(
          h('h1', { text: 'This page did not load' }),
          h('p', { class: 'error', role: 'alert', 'data-testid': 'error',
            text: `Its code could not be fetched from the server (${e instanceof Error ? e.message : String(e)}). Check the connection and try again.` }),
          h('div', { class: 'row' },
            h('button', { type: 'button', class: 'primary', 'data-testid': 'retry', onclick: attempt, text: 'Try again' }),
            h('a', { class: 'button', href: '/', text: 'Back to the start' })),
        );
      },
    );
  }
  attempt();
  return {
    el,
    update(s, now) {
      last = { s, now };
      page?.update(s, now);
    },
    onKey: (ev, s) => page?.onKey?.(ev, s),
  };
}

/** @type {{key: string, screen: Screen} | null} */
let current = null;

/** Which screen the state calls for. */
function screenKey() {
  if (state.problem) return `problem:${state.problem.code}`;
  // The read-only pages live under `/#/…`, so the server serves them as `/`.
  if (!state.room && location.hash.startsWith('#/leaderboard')) return 'leaderboard';
  const player = /^#\/players\/([A-Za-z0-9]{1,32})$/.exec(location.hash);
  if (!state.room && player) return `player:${player[1]}`;
  const replay = /^#\/races\/([A-Za-z0-9-]{1,64})$/.exec(location.hash);
  if (!state.room && replay) return `replay:${replay[1]}`;
  if (!state.room) return pageRoom ? `join:${pageRoom}` : 'home';
  if (state.phase === 'lobby') return 'lobby';
  if (state.phase === 'finished') return 'results';
  return 'race';
}

/** @param {string} key @returns {Screen} */
function makeScreen(key) {
  if (state.problem) return problem(act, state.problem);
  if (key.startsWith('join:') && pageRoom) return joinRoom(act, pageRoom);
  if (key === 'leaderboard') return lazyScreen('leaderboard', pages.leaders, (m) => m.leaderboard());
  if (key.startsWith('player:')) return lazyScreen('player', pages.leaders, (m) => m.playerPage(key.slice('player:'.length)));
  if (key.startsWith('replay:')) return lazyScreen('replay', pages.replay, (m) => m.replayPage(key.slice('replay:'.length)));
  switch (key) {
    case 'lobby':
      return lobby(act);
    case 'results':
      return results(act);
    case 'race':
      return race(act);
    default:
      return home(act);
  }
}

let queued = false;
/** Redraw once, after the current burst of messages. */
function redraw() {
  if (queued) return;
  queued = true;
  queueMicrotask(() => {
    queued = false;
    draw();
  });
}

function draw() {
  const now = performance.now();
  // Notices inside a room fade; a form's stay until the next try.
  if (state.notice && state.room && !state.join_next && now - state.notice_at > 6000) state.notice = null;
  const key = screenKey();
  if (!current || current.key !== key) {
    const screen = makeScreen(key);
    current = { key, screen };
    root.replaceChildren(screen.el);
    root.setAttribute('data-screen', key.split(':')[0]);
    screen.update(state, now);
    // For bench/first-load.mjs: when each screen first appeared, on the page's own clock.
    performance.mark(`screen:${key.split(':')[0]}`);
    // A new screen starts at its top, whatever the last one was scrolled to.
    window.scrollTo(0, 0);
    screen.focus?.();
    return;
  }
  current.screen.update(state, now);
}

document.addEventListener('keydown', (ev) => {
  const t = /** @type {HTMLElement | null} */ (ev.target);
  if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
  current?.screen.onKey?.(ev, state);
});

window.addEventListener('hashchange', () => redraw());

// The clock, the countdown and fading marks move on their own.
setInterval(() => {
  if (state.phase === 'countdown' || state.phase === 'racing' || state.notice) draw();
}, 200);

link.connect();
draw();
