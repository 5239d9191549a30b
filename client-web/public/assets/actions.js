// @ts-check
/**
 * What the screens may ask of the page (`Actions`), what the server's refusals (`error`) do to
 * it, and what it keeps in storage, by key. control.js's `Page` owns the state and the link;
 * these act on it through the side effects it was handed.
 */

import { askAgainLater } from './moving.js';
import { canPlace, clearPencil, me, restarting, togglePencil } from './state.js';

/** @typedef {import('./control.js').Page} Page */
/** @typedef {import('./control.js').KeyValue} KeyValue */
/** @typedef {import('./state.js').Actions} Actions */

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

/**
 * What the page keeps, by its keys.
 * @param {{session: KeyValue, local: KeyValue}} storage
 */
export function storeOver(storage) {
  return {
    /** @param {string} room */
    token: (room) => safe(() => storage.session.getItem(`sudoku-race:token:${room}`)),
    /** @param {string} room @param {string} token */
    keepToken: (room, token) => safe(() => storage.session.setItem(`sudoku-race:token:${room}`, token)),
    /** @param {string} room */
    dropToken: (room) => safe(() => storage.session.removeItem(`sudoku-race:token:${room}`)),
    name: () => safe(() => storage.local.getItem('sudoku-race:name')) ?? '',
    /** @param {string} name */
    keepName: (name) => safe(() => storage.local.setItem('sudoku-race:name', name)),
    key: () => safe(() => storage.local.getItem('sudoku-race:key')) ?? undefined,
    /** @param {string} key */
    keepKey: (key) => safe(() => storage.local.setItem('sudoku-race:key', key)),
    dropKey: () => safe(() => storage.local.removeItem('sudoku-race:key')),
    handle: () => safe(() => storage.local.getItem('sudoku-race:handle')),
    /** @param {string} h */
    keepHandle: (h) => safe(() => storage.local.setItem('sudoku-race:handle', h)),
    autoClear: () => safe(() => storage.local.getItem('sudoku-race:auto-clear')) !== 'off',
    /** @param {boolean} on */
    keepAutoClear: (on) => safe(() => storage.local.setItem('sudoku-race:auto-clear', on ? 'on' : 'off')),
  };
}

/**
 * How the page answers one refusal: `room` is the one it was about; `retryMs` the server's
 * `retry_ms`, if it said when to come back.
 * @typedef {(page: Page, code: string, message: string, room: string, retryMs?: number) => void} Answer
 */

/**
 * The refusals that need more than a notice.
 * @type {Record<string, Answer>}
 */
const ANSWERS = {
  invalid_key: (page) => registerAgain(page),
  invalid_token: (page, _code, _message, room) => seatGone(page, room),
  unknown_room(page, code, _message, room) {
    page.state.problem = { code, message: `There is no room ${room}. It may have closed, or the code is mistyped.`, room };
  },
  room_full(page, code, _message, room) {
    page.state.problem = { code, message: `Room ${room} has no free seat.`, room };
  },
  race_in_progress(page) {
    const { intent, state: s } = page;
    if (intent?.kind === 'join' && intent.room && intent.name) {
      s.join_next = intent.name;
      page.act.watch(intent.room, intent.name);
      s.join_next = page.intent?.name ?? null;
    }
  },
  kicked(page, code, _message, room) {
    const s = page.state;
    if (room) page.store.dropToken(room);
    s.problem = { code, message: `The host removed you from room ${room}. You cannot come back for a while.`, room };
    Object.assign(s, { room: null, you: null, phase: null, race: null });
  },
  unsupported_variant(page, code, message, room) {
    // A10: a room or pool of a variant this page cannot draw (one newer than this page).
    const what = room ? `Room ${room} plays` : 'That race is';
    page.state.problem = { code, room, message: `${what} a sudoku variant this page cannot draw (${message || code}). Reload the page for the newest version, or pick another race.` };
  },
  server_full(page, code) {
    page.state.problem = { code, message: 'The server has no room for more players right now. Try again in a minute.' };
  },
  server_draining(page, _code, _message, _room, retryMs) {
    // A9: this server takes nothing new; the next ask goes out on a new connection (by itself
    // for the pool or an arena).
    const s = page.state;
    const arena = s.arena?.arena_id ?? null;
    const pool = !!arena || page.intent?.kind === 'quick' || !!s.queue || (!!s.room && !!s.settings.pool);
    s.problem = restarting(s);
    if (page.intent?.difficulty) s.problem.difficulty = page.intent.difficulty;
    if (s.room) page.store.dropToken(s.room);
    Object.assign(s, { room: null, you: null, phase: null, race: null, queue: null });
    page.link.stop();
    if (pool) askAgainLater(page, retryMs, arena);
  },
};

/**
 * An `error`, read against what `page` last asked for.
 * @param {Page} page
 * @param {string} code
 * @param {string} message
 * @param {number} [retryMs]
 */
export function refused(page, code, message, retryMs) {
  const s = page.state;
  const room = page.intent?.room ?? s.room ?? page.pageRoom ?? '';
  const answer = ANSWERS[code];
  if (answer) {
    answer(page, code, message, room, retryMs);
  } else {
    s.notice = notice(code, message);
    if (code === 'name_taken') s.join_next = null;
  }
  s.notice_at = page.deps.now();
}

/**
 * The server forgot this identity (a new database): register again, once.
 * @param {Page} page
 */
function registerAgain(page) {
  const { act, state } = page;
  page.store.dropKey();
  const intent = page.intent;
  if (!intent || intent.retried || !intent.name) return;
  const again = { ...intent, retried: true };
  if (again.kind === 'create') act.create(again.name ?? '', state.settings);
  else if (again.kind === 'join' && again.room) act.join(again.room, again.name ?? '');
  else if (again.kind === 'watch' && again.room) act.watch(again.room, again.name ?? '');
  else if (again.kind === 'quick' && again.difficulty) act.playNow(again.name ?? '', again.difficulty);
  // The entry just made is the retry: a second invalid_key does not try again.
  if (page.intent) page.intent.retried = true;
}

/**
 * The seat is gone (expired while away, or the race went on without it): join afresh.
 * @param {Page} page
 * @param {string} room
 */
function seatGone(page, room) {
  const s = page.state;
  if (room) page.store.dropToken(room);
  page.reset({ rooms: s.rooms, link: s.link });
  page.pageRoom = room || page.pageRoom;
  s.notice = 'Your seat from before is gone. Join again.';
  const { location, history } = page.deps;
  if (page.pageRoom && location.pathname !== `/r/${page.pageRoom}`) history.replaceState(null, '', `/r/${page.pageRoom}`);
}

/**
 * The words for an error that only needs a notice.
 * @param {string} code
 * @param {string} message the server's, for a code this page has no words of its own for
 */
function notice(code, message) {
  switch (code) {
    case 'name_taken':
      return 'That name is taken in this room. Pick another.';
    case 'invalid_name':
      return 'That name cannot be used: 1 to 24 visible characters.';
    case 'rate_limited':
      return 'Too fast: wait a moment.';
    default:
      return message || code;
  }
}

/**
 * What the screens may ask of `page`.
 * @param {Page} page
 * @returns {Actions}
 */
export function actions(page) {
  return { ...entering(page), ...inRoom(page), ...leaving(page) };
}

/**
 * Entering a room, the pool or an arena, and watching.
 * @param {Page} page
 * @returns {Pick<Actions, 'create' | 'join' | 'watch' | 'unwatch' | 'playNow' | 'leaveQueue' | 'requeue' | 'raceGhost' |
 *   'joinArena' | 'leaveArena' | 'handle' | 'listRooms' | 'savedName'>}
 */
function entering(page) {
  const { state, store } = page;
  return {
    create(name, settings) {
      store.keepName(name);
      state.notice = null;
      const retried = page.intent?.retried && page.intent.kind === 'create';
      page.intent = { kind: 'create', name, retried };
      page.withKey(name, (key) => page.link.send({ type: 'create_room', name, settings, key }));
    },
    join(room, name) {
      store.keepName(name);
      state.notice = null;
      const retried = page.intent?.retried && page.intent.kind === 'join';
      page.intent = { kind: 'join', room, name, retried };
      page.withKey(name, (key) => page.link.send({ type: 'join_room', room, name, key }));
    },
    watch(room, name, boards = false) {
      state.problem = null;
      page.watchName = name;
      page.watchBoards = boards;
      const retried = page.intent?.retried && page.intent.kind === 'watch';
      page.intent = { kind: 'watch', room, name, retried };
      // Watching needs no identity: send the key only if there is one already.
      page.link.send({ type: 'spectate', room, name, key: store.key(), boards: boards || undefined });
      page.redraw();
    },
    unwatch() {
      // A spectator's `leave` has no answer.
      if (state.you?.role !== 'spectator') return;
      page.link.send({ type: 'leave' });
      page.reset({ rooms: state.rooms, link: state.link });
      page.redraw();
    },
    ...pooling(page),
    handle: () => store.handle(),
    listRooms: () => page.link.send({ type: 'list_rooms' }),
    savedName: () => store.name(),
  };
}

/**
 * The pool, ghosts and arenas (A7).
 * @param {Page} page
 * @returns {Pick<Actions, 'playNow' | 'leaveQueue' | 'requeue' | 'raceGhost' | 'joinArena' | 'leaveArena'>}
 */
function pooling(page) {
  const { state, store } = page;
  return {
    playNow(name, difficulty) {
      store.keepName(name);
      state.notice = null;
      page.poolName = name;
      const retried = page.intent?.retried && page.intent.kind === 'quick';
      page.intent = { kind: 'quick', name, difficulty, retried };
      // The pool deals classic only (A10): never a `variant` here.
      page.withKey(name, (key) => page.link.send({ type: 'quick_race', difficulty, name, key }));
    },
    leaveQueue: () => page.link.send({ type: 'leave_queue' }),
    requeue() {
      page.poolName = me(state)?.name ?? store.name();
      if (state.arena) state.arena.next_at = null;
      page.link.send({ type: 'requeue' });
    },
    raceGhost(ghost, difficulty) {
      const name = page.poolName || store.name() || 'player';
      state.notice = null;
      page.intent = { kind: 'ghost', name };
      if (state.queue) page.link.send({ type: 'leave_queue' });
      page.withKey(name, (key) => page.link.send({ type: 'race_ghost', ghost, difficulty, name, key }));
    },
    joinArena(arena_id, name) {
      store.keepName(name);
      state.notice = null;
      page.poolName = name;
      page.intent = { kind: 'arena', name };
      page.withKey(name, (key) => page.link.send({ type: 'join_arena', arena_id, name, key }));
    },
    leaveArena: () => page.link.send({ type: 'leave_arena' }),
  };
}

/**
 * In a room: the lobby, the race, the chat and the host's tools.
 * @param {Page} page
 * @returns {Pick<Actions, 'ready' | 'start' | 'place' | 'erase' | 'select' | 'pencilMode' | 'autoClear' | 'forfeit' |
 *   'chat' | 'setSettings' | 'kick' | 'report'>}
 */
function inRoom(page) {
  const { state, store } = page;
  return {
    ready: (on) => page.link.send({ type: 'set_ready', ready: on }),
    start: () => page.link.send({ type: 'start_race' }),
    place: (cell, digit) => place(page, cell, digit),
    erase(cell) {
      if (state.race) clearPencil(state.race, cell, page.deps.storage);
      page.redraw();
    },
    select(cell) {
      state.selected = cell;
      page.redraw();
    },
    pencilMode(on) {
      state.pencil_mode = on;
      page.redraw();
    },
    autoClear(on) {
      state.auto_clear = on;
      store.keepAutoClear(on);
      page.redraw();
    },
    forfeit: () => page.link.send({ type: 'forfeit' }),
    chat: (text) => page.link.send({ type: 'chat', text }),
    setSettings: (settings) => page.link.send({ type: 'set_settings', settings }),
    kick: (playerId) => page.link.send({ type: 'kick', player_id: playerId }),
    report: (playerId, reason) => page.link.send({ type: 'report', player_id: playerId, reason }),
  };
}

/**
 * Leaving, starting over, and the page's notices.
 * @param {Page} page
 * @returns {Pick<Actions, 'leave' | 'again' | 'retry' | 'notice'>}
 */
function leaving(page) {
  const { state, store } = page;
  return {
    leave() {
      page.leaving = true;
      if (state.room) store.dropToken(state.room);
      if (state.arena) page.link.send({ type: 'leave_arena' });
      page.link.send({ type: 'leave' });
      // Give the leave a moment to go out before the socket closes.
      page.deps.later(() => {
        page.link.stop();
        page.deps.location.assign('/');
      }, 150);
    },
    again(to) {
      if (to !== 'pool') page.redo = null;
      const difficulty = state.problem?.difficulty ?? 'medium';
      const name = store.name() || 'player';
      page.reset({ rooms: state.rooms });
      page.pageRoom = null;
      page.link.failures = 0;
      page.link.connect();
      if (to === 'pool') page.act.playNow(name, difficulty);
      else page.act.create(name, { ...state.settings, difficulty });
      page.redraw();
    },
    retry() {
      state.problem = null;
      state.link = 'connecting';
      page.link.failures = 0;
      page.link.connect();
      page.redraw();
    },
    notice(text) {
      state.notice = text;
      state.notice_at = page.deps.now();
      page.redraw();
    },
  };
}

/**
 * A digit: a pencil mark, a flash on a filled cell, or a placement with the next id.
 * @param {Page} page
 * @param {number} cell
 * @param {number} digit
 */
function place(page, cell, digit) {
  const s = page.state;
  const r = s.race;
  if (!r || !canPlace(s) || cell < 0 || cell > 80) return;
  if (s.pencil_mode) {
    togglePencil(r, cell, digit, page.deps.storage);
  } else if (r.board[cell] !== '.') {
    r.flash = { cells: [], at: page.deps.now(), kind: r.puzzle?.[cell] !== '.' ? 'given' : 'filled', cell, digit };
  } else {
    page.placeSeq += 1;
    // Away from the room (A12): held on the board, and sent once the room answers again.
    const held = s.away !== null;
    r.pending.set(page.placeSeq, { cell, digit, held });
    if (!held) page.link.send({ type: 'place', cell, digit, id: page.placeSeq });
  }
  page.redraw();
}
