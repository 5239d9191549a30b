// @ts-check
/**
 * The page's logic: one connection, one state (state.js), one screen at a time. Server messages
 * and the player's actions change the state; a redraw follows. Every side effect is handed to
 * `createApp` (app.js hands in the browser's; tests/unit/ fakes).
 *
 * Storage: the seat's resume token is kept in session storage per room (a reload or a dropped
 * connection takes the seat back; another tab does not share it); the name and the identity
 * key (A6: registered on the first room entered, sent with every entry after) in local storage,
 * with the pencil setting (`auto-clear`; the theme is the view's, parts.js).
 *
 * The pool (A7): Play now queues the page for a race with strangers; the queue screen shows while
 * it waits, a pool room's race and results follow, and "Race again" queues it again. A queued
 * page that loses its socket queues again when it is back (the pool has no seat to resume).
 * A ghost race (`race_ghost`) is a room like any. An arena's member (`join_arena`) is seated
 * race after race; each race's results ask for the next one after NEXT_MS while the arena runs,
 * and a dropped page joins the arena again.
 */

/** How long an arena race's results show before the next race is asked for. */
export const NEXT_MS = 5000;

import { apply, canPlace, clearPencil, initial, me, restarting, togglePencil } from './state.js';

/** @typedef {import('./state.js').State} State */
/** @typedef {import('./state.js').Actions} Actions */
/** @typedef {import('../../types/wire.js').ServerMsg} ServerMsg */
/** @typedef {import('../../types/wire.js').ClientMsg} ClientMsg */

/**
 * What the app needs of wire.js's `Link`.
 * @typedef {{send: (msg: ClientMsg) => void, connect: () => void, stop: () => void, failures: number}} AppLink
 */
/**
 * What the link tells the app.
 * @typedef {{onMessage: (msg: ServerMsg) => void, onOpen: (again: boolean) => void,
 *   onDown: (info: {code: number, retrying: boolean}) => void}} LinkEvents
 */
/**
 * A browser storage (any call may throw).
 * @typedef {{getItem: (key: string) => string | null, setItem: (key: string, value: string) => void,
 *   removeItem: (key: string) => void}} KeyValue
 */
/**
 * view.js: `draw` shows the screen `key` names, `title` sets the document's.
 * @typedef {{draw: (key: string, s: State, now: number) => void, title: (text: string) => void}} View
 */
/**
 * Every side effect. `storage`'s two are read on every use (app.js passes getters); `now` is
 * performance.now(); `later` is setTimeout.
 * @typedef {{
 *   link: (events: LinkEvents) => AppLink,
 *   view: (act: Actions) => View,
 *   storage: {session: KeyValue, local: KeyValue},
 *   location: {pathname: string, search: string, hash: string, assign: (url: string) => void},
 *   history: {replaceState: (data: null, unused: string, url: string) => void},
 *   now: () => number,
 *   later: (f: () => void, ms: number) => void,
 * }} Deps
 */
/**
 * A page: `start` connects and draws, `tick` is the clock's redraw (every 200 ms).
 * @typedef {{state: State, act: Actions, start: () => void, tick: () => void, redraw: () => void}} App
 */
/**
 * @typedef {{kind: 'create' | 'join' | 'watch' | 'resume' | 'quick' | 'ghost' | 'arena', room?: string, name?: string,
 *   difficulty?: import('../../types/wire.js').Difficulty, retried?: boolean}} Intent
 */

/**
 * The page over `deps`; it opens nothing until `start`.
 * @param {Deps} deps
 * @returns {App}
 */
export function createApp(deps) {
  const page = new Page(deps);
  return {
    state: page.state,
    act: page.act,
    start: () => page.start(),
    tick: () => page.tick(),
    redraw: () => page.redraw(),
  };
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

/**
 * What the page keeps, by its keys.
 * @param {{session: KeyValue, local: KeyValue}} storage
 */
function storeOver(storage) {
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

/** One page's state and what it remembers between messages. */
class Page {
  /** @param {Deps} deps */
  constructor(deps) {
    this.deps = deps;
    this.state = initial();
    this.store = storeOver(deps.storage);
    this.state.auto_clear = this.store.autoClear();
    const invite = /^\/r\/([A-Za-z2-9]{4,8})\/?$/.exec(deps.location.pathname);
    /** The room this page is about: the invite link's, then the one joined. */
    this.pageRoom = invite ? invite[1].toUpperCase() : null;
    const watch = new URLSearchParams(deps.location.search).get('watch');
    this.watchOnly = watch !== null;
    /** Watch with the delayed boards (A8): `?watch=boards`, or the TV. */
    this.watchBoards = watch === 'boards';
    /**
     * What the page last asked to enter, so an error can be read against it.
     * @type {Intent | null}
     */
    this.intent = null;
    /**
     * What to send once `registered` brings a key (A6).
     * @type {((key: string | undefined) => void) | null}
     */
    this.awaitingKey = null;
    this.leaving = false;
    this.placeSeq = 0;
    /** The name a spectator watches under, to watch again after a drop. */
    this.watchName = 'spectator';
    /** The name this page waits in the pool under, to queue again after a drop. */
    this.poolName = '';
    /** Whether a redraw waits for the end of the current burst. */
    this.queued = false;
    this.act = actions(this);
    this.link = deps.link({
      onMessage: (msg) => this.onMessage(msg),
      onOpen: (again) => this.onOpen(again),
      onDown: (info) => this.onDown(info),
    });
    this.view = deps.view(this.act);
  }

  start() {
    this.link.connect();
    this.draw();
  }

  /** The clock, the countdown and fading marks move on their own. */
  tick() {
    const s = this.state;
    if (s.phase === 'countdown' || s.phase === 'racing' || s.notice || s.queue || s.arena) this.draw();
  }

  /**
   * Run `then` with this browser's identity key, registering one under `name` first if there is
   * none. A server that cannot register (an older one) leaves the player anonymous.
   * @param {string} name
   * @param {(key: string | undefined) => void} then
   */
  withKey(name, then) {
    const key = this.store.key();
    if (key) return then(key);
    this.awaitingKey = then;
    this.link.send({ type: 'register', name });
  }

  /** @param {boolean} again */
  onOpen(again) {
    this.state.link = 'up';
    if (again) this.takeBack();
    else if (this.pageRoom) this.enterPageRoom(this.pageRoom);
    else this.link.send({ type: 'list_rooms' });
    this.redraw();
  }

  /** Back after a drop: take the seat (or the spectator's place, or the place in the pool) back. */
  takeBack() {
    const s = this.state;
    const token = s.you?.token;
    if (!s.room && s.arena) {
      this.act.joinArena(s.arena.arena_id, this.poolName);
    } else if (!s.room && s.queue) {
      // A dropped connection left the pool: queue again.
      this.link.send({ type: 'quick_race', difficulty: s.queue.difficulty, name: this.poolName, key: this.store.key() });
    } else if (token) {
      this.intent = { kind: 'resume', room: s.room ?? undefined };
      this.link.send({ type: 'resume', token });
    } else if (s.room && s.you?.role === 'spectator') {
      this.link.send({ type: 'spectate', room: s.room, name: this.watchName, boards: this.watchBoards || undefined });
    }
  }

  /**
   * The first open on an invite link: this tab's seat back, or watch when the link says so.
   * @param {string} room
   */
  enterPageRoom(room) {
    const token = this.store.token(room);
    if (token) {
      this.intent = { kind: 'resume', room };
      this.link.send({ type: 'resume', token });
    } else if (this.watchOnly) {
      this.act.watch(room, this.store.name() || 'spectator', this.watchBoards);
    }
  }

  /** @param {{code: number, retrying: boolean}} info */
  onDown({ code, retrying }) {
    const s = this.state;
    if (this.leaving || s.problem) return;
    s.link = 'down';
    if (code === 1000 && s.room && s.you?.role === 'player') {
      s.problem = { code: 'moved', message: 'Your seat moved to another tab or window. Only one can play it.' };
    } else if (!retrying) {
      s.problem = { code: 'server_gone', message: 'The connection to the server was lost and it cannot be reached again. It may be restarting.' };
    }
    this.redraw();
  }

  /** @param {ServerMsg} msg */
  onMessage(msg) {
    const now = this.deps.now();
    if (this.keyAnswer(msg)) return;
    const wasRoom = this.state.room;
    switch (apply(this.state, msg, now)) {
      case 'joined':
        this.onJoined();
        break;
      case 'left':
        if (wasRoom) this.store.dropToken(wasRoom);
        // Nothing to come back to; after a restart (A9) the next ask opens a new connection.
        if (this.state.problem?.code === 'room_closed' || this.state.problem?.code === 'restarting') this.link.stop();
        break;
      case 'join_next':
        this.joinNext();
        break;
      case 'queued':
        this.onQueued(wasRoom);
        break;
      case 'left_queue':
        this.link.send({ type: 'list_rooms' });
        break;
      case 'error':
        if (msg.type === 'error') this.onError(msg.code, msg.message);
        break;
      default:
        break;
    }
    if (msg.type === 'race_over') this.arenaNext(now);
    this.redraw();
  }

  /**
   * The results of one of our arena's races: while the arena runs, the next race is asked for
   * NEXT_MS later (Race again asks at once).
   * @param {number} now
   */
  arenaNext(now) {
    const s = this.state;
    const a = s.arena;
    if (!a || s.settings.arena !== a.arena_id || !me(s) || Date.now() >= a.ends_unix_ms) return;
    const at = (a.next_at = now + NEXT_MS);
    this.deps.later(() => {
      if (s.arena?.next_at === at && s.phase === 'finished') this.act.requeue();
    }, NEXT_MS);
  }

  /**
   * The answer to an awaited `register`: a key, or a failure (anonymous, but a bad name goes on
   * to the form). Whether `msg` is done with.
   * @param {ServerMsg} msg
   */
  keyAnswer(msg) {
    const then = this.awaitingKey;
    if (msg.type === 'registered') {
      this.store.keepKey(msg.key);
      this.store.keepHandle(msg.handle);
      this.awaitingKey = null;
      then?.(msg.key);
      return true;
    }
    if (msg.type !== 'error' || !then) return false;
    this.awaitingKey = null;
    if (msg.code === 'invalid_name') return false;
    then(undefined);
    return true;
  }

  /** In a room (entered, or taken back): keep its seat, and put its address in the bar. */
  onJoined() {
    const s = this.state;
    const { location, history } = this.deps;
    this.intent = null;
    if (s.room) this.pageRoom = s.room;
    const token = s.you?.token;
    if (s.room && token) this.store.keepToken(s.room, token);
    if (s.you?.role === 'player') s.join_next = null;
    s.notice = s.join_next ? 'A race is in progress: you are watching it, and you join the next race.' : null;
    const url = `/r/${s.room}${s.you?.role === 'spectator' && !s.join_next ? (this.watchBoards ? '?watch=boards' : '?watch') : ''}`;
    // The TV keeps its address.
    if (!location.hash.startsWith('#/tv') && location.pathname + location.search !== url) history.replaceState(null, '', url);
    this.view.title(`sudoku-race · ${s.room}`);
  }

  /**
   * In the pool (Play now, or Race again from the pool room `wasRoom`): the room's seat and
   * address go, so a reload opens the start page.
   * @param {string | null} wasRoom
   */
  onQueued(wasRoom) {
    const { location, history } = this.deps;
    this.intent = null;
    if (!wasRoom) return;
    this.store.dropToken(wasRoom);
    this.pageRoom = null;
    if (location.pathname + location.search !== '/') history.replaceState(null, '', '/');
    this.view.title('sudoku-race');
  }

  /** The race watched is over: leave the spectators' seats and join as `join_next`. */
  joinNext() {
    const name = this.state.join_next;
    const room = this.state.room;
    if (!name || !room) return;
    this.link.send({ type: 'leave' });
    this.intent = { kind: 'join', room, name };
    this.withKey(name, (key) => this.link.send({ type: 'join_room', room, name, key }));
  }

  /**
   * An `error`, read against what the page last asked for.
   * @param {string} code
   * @param {string} message
   */
  onError(code, message) {
    const s = this.state;
    const room = this.intent?.room ?? s.room ?? this.pageRoom ?? '';
    switch (code) {
      case 'invalid_key':
        this.registerAgain();
        break;
      case 'invalid_token':
        this.seatGone(room);
        break;
      case 'unknown_room':
        s.problem = { code, message: `There is no room ${room}. It may have closed, or the code is mistyped.`, room };
        break;
      case 'room_full':
        s.problem = { code, message: `Room ${room} has no free seat.`, room };
        break;
      case 'race_in_progress':
        if (this.intent?.kind === 'join' && this.intent.room && this.intent.name) {
          s.join_next = this.intent.name;
          this.act.watch(this.intent.room, this.intent.name);
          s.join_next = this.intent?.name ?? null;
        }
        break;
      case 'kicked':
        if (room) this.store.dropToken(room);
        s.problem = { code, message: `The host removed you from room ${room}. You cannot come back for a while.`, room };
        Object.assign(s, { room: null, you: null, phase: null, race: null });
        break;
      case 'server_full':
        s.problem = { code, message: 'The server has no room for more players right now. Try again in a minute.' };
        break;
      case 'server_draining':
        // A9: this server takes nothing new; the next ask goes out on a new connection.
        s.problem = restarting(s);
        if (this.intent?.difficulty) s.problem.difficulty = this.intent.difficulty;
        if (s.room) this.store.dropToken(s.room);
        Object.assign(s, { room: null, you: null, phase: null, race: null, queue: null });
        this.link.stop();
        break;
      default:
        s.notice = notice(code, message);
        if (code === 'name_taken') s.join_next = null;
        break;
    }
    s.notice_at = this.deps.now();
  }

  /** The server forgot this identity (a new database): register again, once. */
  registerAgain() {
    const { act, state } = this;
    this.store.dropKey();
    const intent = this.intent;
    if (!intent || intent.retried || !intent.name) return;
    const again = { ...intent, retried: true };
    if (again.kind === 'create') act.create(again.name ?? '', state.settings);
    else if (again.kind === 'join' && again.room) act.join(again.room, again.name ?? '');
    else if (again.kind === 'watch' && again.room) act.watch(again.room, again.name ?? '');
    else if (again.kind === 'quick' && again.difficulty) act.playNow(again.name ?? '', again.difficulty);
    // The entry just made is the retry: a second invalid_key does not try again.
    if (this.intent) this.intent.retried = true;
  }

  /**
   * Back to a fresh state, keeping `kept` and the player's own settings (the pencil one).
   * @param {Partial<State>} kept
   */
  reset(kept) {
    Object.assign(this.state, initial(), { auto_clear: this.state.auto_clear }, kept);
  }

  /**
   * The seat is gone (expired while away, or the race went on without it): join afresh.
   * @param {string} room
   */
  seatGone(room) {
    const s = this.state;
    if (room) this.store.dropToken(room);
    this.reset({ rooms: s.rooms, link: s.link });
    this.pageRoom = room || this.pageRoom;
    s.notice = 'Your seat from before is gone. Join again.';
    const { location, history } = this.deps;
    if (this.pageRoom && location.pathname !== `/r/${this.pageRoom}`) history.replaceState(null, '', `/r/${this.pageRoom}`);
  }

  /** Which screen the state calls for. */
  screenKey() {
    const s = this.state;
    const hash = this.deps.location.hash;
    // Solo practice needs no server: it opens even when the connection is gone (offline).
    if (!s.room && hash.startsWith('#/solo')) return 'solo';
    if (s.problem) return `problem:${s.problem.code}`;
    if (hash.startsWith('#/tv')) return 'tv';
    if (!s.room && (s.arena || hash.startsWith('#/arenas'))) return 'arenas';
    if (!s.room && s.queue) return 'queue';
    // The read-only pages live under `/#/…`, so the server serves them as `/`.
    if (!s.room && hash.startsWith('#/leaderboard')) return 'leaderboard';
    // A handle, or a name (A8: percent-encoded, any letter; the server finds its one player).
    const player = /^#\/players\/([^/?#]{1,200})$/.exec(hash);
    if (!s.room && player) return `player:${player[1]}`;
    const replay = /^#\/races\/([A-Za-z0-9-]{1,64})$/.exec(hash);
    if (!s.room && replay) return `replay:${replay[1]}`;
    if (!s.room) return this.pageRoom ? `join:${this.pageRoom}` : 'home';
    // The pool starts its rooms at once: their few lobby moments are the race screen's "Get ready".
    if (s.phase === 'lobby') return s.settings.pool ? 'race' : 'lobby';
    if (s.phase === 'finished') return 'results';
    if (s.phase === 'racing' && s.you?.role === 'spectator' && this.watchBoards) return 'watch';
    return 'race';
  }

  /** Redraw once, after the current burst of messages. */
  redraw() {
    if (this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      this.draw();
    });
  }

  draw() {
    const s = this.state;
    const now = this.deps.now();
    // Notices inside a room fade; a form's stay until the next try.
    if (s.notice && s.room && !s.join_next && now - s.notice_at > 6000) s.notice = null;
    this.view.draw(this.screenKey(), s, now);
  }
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
function actions(page) {
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
    playNow(name, difficulty) {
      store.keepName(name);
      state.notice = null;
      page.poolName = name;
      const retried = page.intent?.retried && page.intent.kind === 'quick';
      page.intent = { kind: 'quick', name, difficulty, retried };
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
    handle: () => store.handle(),
    listRooms: () => page.link.send({ type: 'list_rooms' }),
    ready: (on) => page.link.send({ type: 'set_ready', ready: on }),
    start: () => page.link.send({ type: 'start_race' }),
    place: (cell, digit) => place(page, cell, digit),
    erase(cell) {
      if (state.race) clearPencil(state.race, cell);
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
    savedName: () => store.name(),
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
    togglePencil(r, cell, digit);
  } else if (r.board[cell] !== '.') {
    r.flash = { cells: [], at: page.deps.now(), kind: r.puzzle?.[cell] !== '.' ? 'given' : 'filled', cell, digit };
  } else {
    page.placeSeq += 1;
    r.pending.set(page.placeSeq, { cell, digit });
    page.link.send({ type: 'place', cell, digit, id: page.placeSeq });
  }
  page.redraw();
}
