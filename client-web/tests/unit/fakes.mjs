// @ts-check
/**
 * A page for control.js without a browser: `createApp` over a fake link (it keeps the text each
 * message would go out as), storages in memory, an address bar, a clock the test sets, timers it
 * runs, and a view that records the screens drawn.
 */

import { createApp } from '../../public/assets/control.js';
import { DEFAULT_SETTINGS } from '../../public/assets/wire.js';

/** @typedef {import('../../public/assets/control.js').LinkEvents} LinkEvents */
/** @typedef {import('../../public/assets/wire.js').ServerMsg} ServerMsg */

/** A Storage in memory; `off` makes every call throw, as a browser with storage disabled does. */
export class MemoryStorage {
  /** @param {Record<string, string>} [items] */
  constructor(items = {}) {
    this.items = new Map(Object.entries(items));
    this.off = false;
  }

  /** @param {string} key */
  getItem(key) {
    this.check();
    return this.items.get(key) ?? null;
  }

  /** @param {string} key @param {string} value */
  setItem(key, value) {
    this.check();
    this.items.set(key, value);
  }

  /** @param {string} key */
  removeItem(key) {
    this.check();
    this.items.delete(key);
  }

  check() {
    if (this.off) throw new Error('SecurityError: storage is disabled');
  }
}

/** Let queued microtasks (the app's redraw) run. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A page opened at `path` (`search` and `hash` as the address bar has them), with what its
 * storages already hold; not started.
 * @param {{path?: string, search?: string, hash?: string, session?: Record<string, string>,
 *   local?: Record<string, string>}} [opts]
 */
export function fakePage({ path = '/', search = '', hash = '', session = {}, local = {} } = {}) {
  /** @type {string[]} */
  const sent = [];
  const link = {
    failures: 3,
    connects: 0,
    stops: 0,
    /** @param {unknown} msg */
    send(msg) {
      // What the page asks wire.js's Link to send (the Link adds `variants` to a hello:
      // tests/unit/wire.test.mjs).
      sent.push(JSON.stringify(msg));
    },
    connect() {
      this.connects += 1;
    },
    stop() {
      this.stops += 1;
    },
  };
  /** @type {LinkEvents | null} */
  let events = null;
  const location = {
    pathname: path,
    search,
    hash,
    /** @type {string[]} */
    assigned: [],
    /** @param {string} url */
    assign(url) {
      this.assigned.push(url);
    },
  };
  /** @type {string[]} */
  const replaced = [];
  const history = {
    /** @param {null} _data @param {string} _unused @param {string} url */
    replaceState(_data, _unused, url) {
      replaced.push(url);
      const u = new URL(url, 'http://page.test');
      location.pathname = u.pathname;
      location.search = u.search;
    },
  };
  const storage = { session: new MemoryStorage(session), local: new MemoryStorage(local) };
  const clock = { now: 1000 };
  /** @type {{f: () => void, ms: number}[]} */
  const timers = [];
  /** @type {string[]} */
  const drawn = [];
  /** @type {string[]} */
  const titles = [];
  const app = createApp({
    link: (e) => {
      events = e;
      return link;
    },
    view: () => ({ draw: (key) => drawn.push(key), title: (text) => titles.push(text) }),
    storage,
    location,
    history,
    now: () => clock.now,
    later: (f, ms) => timers.push({ f, ms }),
    // No jitter: waits are exact.
    random: () => 0,
  });
  const on = () => {
    if (!events) throw new Error('createApp made no link');
    return events;
  };
  return {
    app,
    state: app.state,
    act: app.act,
    sent,
    link,
    location,
    replaced,
    storage,
    clock,
    timers,
    drawn,
    titles,
    /** The screen drawn last. */
    screen: () => drawn.at(-1),
    /** Start, and let the socket open: `onOpen` and the `welcome`, as the Link calls them. */
    async open(again = false) {
      if (!again) app.start();
      on().onOpen(again);
      on().onMessage({ type: 'welcome', protocol: 1, server: 'test' });
      await settle();
    },
    /** The server says `msg`; the redraw runs. @param {ServerMsg} msg */
    async hear(msg) {
      on().onMessage(msg);
      await settle();
    },
    /**
     * The socket closed; the link tries again in `retryInMs` if `retrying`.
     * @param {number} code @param {boolean} retrying @param {number} [retryInMs]
     */
    async down(code, retrying, retryInMs = 250) {
      on().onDown({ code, retrying, retryInMs: retrying ? retryInMs : 0 });
      await settle();
    },
    /** Take and forget what was sent so far. */
    take() {
      return sent.splice(0);
    },
  };
}

/**
 * A `room_joined` for this page as a player (with a resume token) or a spectator; `pool` makes
 * it a pool room (A7: no host).
 * @param {string} room
 * @param {{role?: 'player' | 'spectator', token?: string, phase?: import('../../public/assets/wire.js').Phase,
 *   pool?: boolean}} [opts]
 * @returns {ServerMsg}
 */
export function joined(room, { role = 'player', token = 'tok-1', phase = 'lobby', pool = false } = {}) {
  const player = role === 'player';
  return {
    type: 'room_joined',
    room,
    you: { player_id: player ? 'p1' : null, token: player ? token : null, role },
    host: pool ? null : 'p1',
    settings: pool ? { ...DEFAULT_SETTINGS, public: false, pool: true } : { ...DEFAULT_SETTINGS },
    phase,
    players: player ? [{ player_id: 'p1', name: 'ann', ready: false, connected: true, status: 'waiting' }] : [],
    race: null,
  };
}

/**
 * An `error` from the server.
 * @param {string} code
 * @param {string} [message]
 * @returns {ServerMsg}
 */
export const error = (code, message = `server says ${code}`) => ({ type: 'error', code, message });

/**
 * `room_moving` (A12): the room's server was lost and another is taking it over.
 * @param {number} [retry_ms]
 * @returns {ServerMsg}
 */
export const roomMoving = (retry_ms) => ({ type: 'error', code: 'room_moving', message: 'the race is moving', retry_ms });
