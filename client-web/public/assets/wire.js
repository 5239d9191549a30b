// @ts-check
/**
 * The one WebSocket a page keeps to its server, the HTTP API, and the contract's setting bounds.
 * The wire's types (../types/wire.d.ts, never loaded by the browser) are the contract's.
 */

import { VARIANTS } from './geometry.js';

/** @typedef {import('../../types/wire.js').Settings} Settings */
/** @typedef {import('../../types/wire.js').ServerMsg} ServerMsg */
/** @typedef {import('../../types/wire.js').ClientMsg} ClientMsg */

/** The setting bounds of the contract, so forms refuse what the server would. */
export const BOUNDS = {
  max_players: [1, 16],
  time_limit_s: [60, 7200],
  max_mistakes: [0, 10],
  penalty_s: [0, 120],
};

/** @type {Settings} */
export const DEFAULT_SETTINGS = {
  difficulty: 'medium',
  max_players: 8,
  time_limit_s: 1800,
  max_mistakes: 3,
  penalty_s: 10,
  public: true,
  rated: false,
};

/** The messages that enter a room, the pool or an arena (A10): each says which variants this page draws. */
const HELLOS = new Set(['create_room', 'join_room', 'spectate', 'resume', 'quick_race', 'race_ghost', 'start_daily', 'join_arena']);

/**
 * A message as it goes out: a hello (`HELLOS`) lists every variant this page draws, so the
 * server never refuses it `unsupported_variant` for one it could show.
 * @param {ClientMsg} msg
 * @returns {ClientMsg}
 */
export function withVariants(msg) {
  return HELLOS.has(msg.type) ? /** @type {ClientMsg} */ ({ ...msg, variants: [...VARIANTS] }) : msg;
}

/** An HTTP API answer that is not a 200: `status` 0 when the server could not be reached. */
export class ApiError extends Error {
  /** @param {string} message @param {number} status */
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/**
 * GET an HTTP API path (A6; `/api/openapi.json`) of the server that served this page: the JSON,
 * or an ApiError with the API's words.
 * @param {(url: string, init: RequestInit) => Promise<Response>} get the browser's `fetch`
 * @param {string} path
 * @returns {Promise<any>}
 */
export async function api(get, path) {
  let res;
  try {
    res = await get(path, { headers: { accept: 'application/json' } });
  } catch {
    throw new ApiError('the server cannot be reached', 0);
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(typeof body.error === 'string' ? body.error : `HTTP ${res.status}`, res.status);
  return body;
}

/**
 * The WebSocket URL of the server that served this page.
 * @param {{protocol: string, host: string}} location the page's
 */
export function wsUrl(location) {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ws`;
}

/** The first pause before a reconnect; it doubles on each failure up to MAX_PAUSE_MS. */
export const FIRST_PAUSE_MS = 250;
/** The longest pause between reconnects. */
export const MAX_PAUSE_MS = 5000;
/**
 * How long after a drop reconnecting may fail before the page gives up: the resume grace, the
 * time the server holds a dropped seat (60 s).
 */
export const GIVE_UP_MS = 60_000;

/**
 * The pause before try `n` (1 for the first): FIRST_PAUSE_MS doubling up to MAX_PAUSE_MS, or the
 * server's `retry_ms` when that is longer, plus up to a quarter more (`random()` in [0, 1)), so
 * pages told the same thing do not all come back at once.
 * @param {number} n
 * @param {number | undefined} retryMs
 * @param {() => number} random
 */
export function backoff(n, retryMs, random) {
  const base = Math.max(Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** Math.max(0, n - 1)), retryMs ?? 0);
  return Math.round(base * (1 + random() / 4));
}

/**
 * The page's connection. It reconnects by itself after a drop (the caller resumes its seat from
 * `onOpen`), with a growing pause and jitter (`backoff`), and gives up when the server has not
 * answered for `giveUpMs` (GIVE_UP_MS) since the drop. The socket, the timer, the clock and the
 * randomness are handed in (app.js: `new WebSocket(url)`, `setTimeout`, `performance.now`,
 * `Math.random`).
 */
export class Link {
  /**
   * @param {{url: string, socket: (url: string) => WebSocket, after: (f: () => void, ms: number) => () => void,
   *   onMessage: (msg: ServerMsg) => void, onOpen: (again: boolean) => void,
   *   onDown: (info: {code: number, retrying: boolean, retryInMs: number}) => void, giveUpMs?: number,
   *   now?: () => number, random?: () => number}} opts
   */
  constructor(opts) {
    this.opts = opts;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.failures = 0;
    /** When the socket dropped, until a new one is welcomed. @type {number | null} */
    this.downSince = null;
    this.opened = false;
    this.stopped = false;
    /** Cancels the pending reconnect. @type {(() => void) | null} */
    this.timer = null;
    /** @type {string[]} */
    this.queue = [];
  }

  /** Open the socket afresh (a caller's try: counted from zero failures). */
  connect() {
    this.failures = 0;
    this.downSince = null;
    this.open();
  }

  /** Open (or reopen) the socket. */
  open() {
    this.stopped = false;
    this.timer?.();
    this.timer = null;
    const ws = this.opts.socket(this.opts.url);
    this.ws = ws;
    let welcomed = false;
    ws.addEventListener('message', (ev) => {
      if (typeof ev.data !== 'string') return;
      /** @type {ServerMsg} */
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return; // The server only sends JSON; anything else is not ours to act on.
      }
      if (!msg || typeof msg !== 'object' || typeof msg.type !== 'string') return;
      if (msg.type === 'welcome' && !welcomed) {
        welcomed = true;
        const again = this.opened;
        this.opened = true;
        this.failures = 0;
        this.downSince = null;
        const queued = this.queue.splice(0);
        this.opts.onOpen(again);
        for (const text of queued) ws.send(text);
      }
      this.opts.onMessage(msg);
    });
    ws.addEventListener('close', (ev) => this.closed(ws, ev.code, welcomed));
  }

  /**
   * The socket `ws` closed with `code`: try again after a pause, unless the page stopped it, the
   * close is final, or the server has not answered for too long.
   * @param {WebSocket} ws
   * @param {number} code
   * @param {boolean} welcomed
   */
  closed(ws, code, welcomed) {
    if (this.ws !== ws) return;
    this.ws = null;
    const now = (this.opts.now ?? Date.now)();
    this.downSince ??= now;
    if (!welcomed || this.failures === 0) this.failures += 1;
    const inTime = now - this.downSince < (this.opts.giveUpMs ?? GIVE_UP_MS);
    const retrying = !this.stopped && this.retryable(code) && inTime;
    const pause = backoff(this.failures, undefined, this.opts.random ?? Math.random);
    this.opts.onDown({ code, retrying, retryInMs: retrying ? pause : 0 });
    if (retrying) this.timer = this.opts.after(() => this.open(), pause);
  }

  /**
   * Closes we come back from: drops (1006), restarts (1001, 1012), overload (1013), idle (1000
   * is also "your seat moved to another tab", which the caller decides about).
   * @param {number} code
   */
  retryable(code) {
    return code !== 1000 && code !== 1008 && code !== 1009 && code !== 1007;
  }

  /**
   * Send a message now, or when the socket is open again.
   * @param {ClientMsg} msg
   */
  send(msg) {
    const text = JSON.stringify(withVariants(msg));
    if (this.ws && this.ws.readyState === this.ws.OPEN) this.ws.send(text);
    else this.queue.push(text);
  }

  /** Whether the socket is open now. */
  get up() {
    return this.ws !== null && this.ws.readyState === this.ws.OPEN;
  }

  /** Close on purpose: no reconnect. */
  stop() {
    this.stopped = true;
    this.timer?.();
    this.ws?.close(1000);
  }
}
