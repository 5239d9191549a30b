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
 *
 * A room moving to another server (A12), or the socket dropping mid-room, is moving.js's: the
 * race goes on, placements wait on the board, and the page tries again until the room answers.
 */

/** How long an arena race's results show before the next race is asked for. */
export const NEXT_MS = 5000;

import { actions, refused, storeOver } from './actions.js';
import { arrived, back, dropped, movingError } from './moving.js';
import { apply, initial, me } from './state.js';

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
 *   onDown: (info: {code: number, retrying: boolean, retryInMs: number}) => void}} LinkEvents
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
 * performance.now(); `later` is setTimeout; `random` (Math.random by default) spreads retries.
 * @typedef {{
 *   link: (events: LinkEvents) => AppLink,
 *   view: (act: Actions) => View,
 *   storage: {session: KeyValue, local: KeyValue},
 *   location: {pathname: string, search: string, hash: string, assign: (url: string) => void},
 *   history: {replaceState: (data: null, unused: string, url: string) => void},
 *   now: () => number,
 *   later: (f: () => void, ms: number) => void,
 *   random?: () => number,
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

/** One page's state and what it remembers between messages. */
export class Page {
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
    /** The room moving's (A12) try in flight: a later try or a change of state bumps it. */
    this.moveTry = 0;
    /** A pool or arena ask answered `server_draining`, asked again (A9). @type {{since: number, tries: number} | null} */
    this.redo = null;
    this.random = deps.random ?? Math.random;
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
    if (s.phase === 'countdown' || s.phase === 'racing' || s.notice || s.queue || s.arena || s.away || s.problem?.retry_at) this.draw();
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

  /** @param {{code: number, retrying: boolean, retryInMs: number}} info */
  onDown({ code, retrying, retryInMs }) {
    const s = this.state;
    if (this.leaving || s.problem) return;
    s.link = 'down';
    if (code === 1000 && s.room && s.you?.role === 'player') {
      s.problem = { code: 'moved', message: 'Your seat moved to another tab or window. Only one can play it.' };
    } else if (!retrying) {
      s.away = null;
      s.problem = { code: 'server_gone', message: 'The connection to the server was lost and it cannot be reached again. It may be restarting.' };
    } else if (s.room) {
      // A12: the race goes on; the link comes back by itself and the seat is resumed.
      dropped(this, retryInMs);
    }
    this.redraw();
  }

  /** @param {ServerMsg} msg */
  onMessage(msg) {
    const now = this.deps.now();
    if (this.keyAnswer(msg)) return;
    if (msg.type === 'error' && movingError(this, msg)) {
      this.redraw();
      return;
    }
    const wasRoom = this.state.room;
    arrived(this, msg);
    switch (apply(this.state, msg, now, this.deps.storage)) {
      case 'joined':
        this.onJoined();
        back(this, true);
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
        if (msg.type === 'error') refused(this, msg.code, msg.message, msg.retry_ms);
        break;
      default:
        break;
    }
    if (msg.type === 'race_over') this.arenaNext(now);
    // The room answers one of our placements: it is not (or no longer) moving.
    if (msg.type === 'placement') back(this);
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
   * Back to a fresh state, keeping `kept` and the player's own settings (the pencil one).
   * @param {Partial<State>} kept
   */
  reset(kept) {
    Object.assign(this.state, initial(), { auto_clear: this.state.auto_clear }, kept);
  }

  /** Which screen the state calls for. */
  screenKey() {
    const s = this.state;
    const hash = this.deps.location.hash;
    // Solo practice needs no server: it opens even when the connection is gone (offline).
    if (!s.room && hash.startsWith('#/solo')) return 'solo';
    if (s.problem) return `problem:${s.problem.code}`;
    if (hash.startsWith('#/tv')) return 'tv';
    if (!s.room) return this.outsideKey(hash);
    // The pool starts its rooms at once: their few lobby moments are the race screen's "Get ready".
    if (s.phase === 'lobby') return s.settings.pool ? 'race' : 'lobby';
    if (s.phase === 'finished') return 'results';
    if (s.phase === 'racing' && s.you?.role === 'spectator' && this.watchBoards) return 'watch';
    return 'race';
  }

  /**
   * The screen outside any room: the arenas, the pool's queue, a `/#/…` page, the invite's or home.
   * @param {string} hash
   */
  outsideKey(hash) {
    const s = this.state;
    if (s.arena || hash.startsWith('#/arenas')) return 'arenas';
    if (s.queue) return 'queue';
    // The read-only pages live under `/#/…`, so the server serves them as `/`.
    if (hash.startsWith('#/leaderboard')) return 'leaderboard';
    // A handle, or a name (A8: percent-encoded, any letter; the server finds its one player).
    const player = /^#\/players\/([^/?#]{1,200})$/.exec(hash);
    if (player) return `player:${player[1]}`;
    const replay = /^#\/races\/([A-Za-z0-9-]{1,64})$/.exec(hash);
    if (replay) return `replay:${replay[1]}`;
    return this.pageRoom ? `join:${this.pageRoom}` : 'home';
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
