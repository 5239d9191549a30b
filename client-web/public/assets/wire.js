// @ts-check
/**
 * The wire contract (../shared/spec/protocol.md with Amendments A1–A7; the project's words are
 * docs/protocol.md), as JSDoc types, and the one WebSocket a page keeps to its server.
 * The Rust twins of these types live in the `protocol/` crate.
 */

/** @typedef {'easy' | 'medium' | 'hard' | 'expert'} Difficulty */
/** @typedef {'lobby' | 'countdown' | 'racing' | 'finished'} Phase */
/** @typedef {'waiting' | 'racing' | 'solved' | 'forfeited' | 'eliminated' | 'timed_out'} Status */
/**
 * @typedef {{difficulty: Difficulty, max_players: number, time_limit_s: number,
 *   max_mistakes: number, penalty_s: number, public: boolean, rated?: boolean, pool?: boolean}} Settings
 */
/**
 * @typedef {{player_id: string, name: string, ready: boolean, connected: boolean, status: Status,
 *   handle?: string | null, bot?: boolean}} Player
 */
/**
 * @typedef {{rank: number, player_id: string, name: string, status: Status, time_ms: number | null,
 *   filled: number, mistakes: number}} Standing
 */
/** @typedef {{player_id: string, filled: number, to_fill: number, mistakes: number}} Progress */
/** @typedef {{player_id: string, handle: string, before: number, after: number}} RatingChange */
/**
 * @typedef {{race_id: string, puzzle: string | null, difficulty: Difficulty, time_limit_s: number,
 *   elapsed_ms: number, board: string | null, mistakes: number, progress: Progress[]}} RaceView
 */
/** @typedef {{player_id: string | null, token: string | null, role: 'player' | 'spectator'}} You */
/** @typedef {{room: string, players: number, max_players: number, difficulty: Difficulty, phase?: Phase}} RoomEntry */

/**
 * Every server message this client reads (others are ignored, as the contract says).
 * @typedef {{type: 'welcome', protocol: number, server: string}
 *   | {type: 'room_joined', room: string, you: You, host: string | null, settings: Settings, phase: Phase,
 *      players: Player[], race: RaceView | null}
 *   | {type: 'room_list', rooms: RoomEntry[]}
 *   | {type: 'player_joined', player: Player}
 *   | {type: 'player_left', player_id: string}
 *   | {type: 'player_updated', player: Player}
 *   | {type: 'host_changed', player_id: string}
 *   | {type: 'settings_changed', settings: Settings}
 *   | {type: 'countdown', starts_in_ms: number}
 *   | {type: 'race_started', race_id: string, puzzle: string, difficulty: Difficulty, time_limit_s: number}
 *   | {type: 'placement', id: unknown, cell: number, digit: number, accepted: boolean,
 *      reason: null | 'wrong' | 'conflict' | 'given' | 'filled', conflicts: number[], mistakes: number,
 *      penalty_ms: number}
 *   | ({type: 'progress'} & Progress)
 *   | {type: 'player_finished', player_id: string, status: Status, time_ms: number | null}
 *   | {type: 'race_over', race_id: string, reason: string, standings: Standing[], solution: string,
 *      ratings?: RatingChange[]}
 *   | {type: 'registered', key: string, handle: string}
 *   | {type: 'solution', solution: string}
 *   | {type: 'chat', player_id: string | null, name: string, text: string}
 *   | {type: 'room_closed', room: string}
 *   | {type: 'pong', id: unknown}
 *   | {type: 'queued', difficulty: Difficulty, waiting: number}
 *   | {type: 'left_queue'}
 *   | {type: 'pool_alone', ghost: string | null}
 *   | {type: 'error', code: string, message: string}} ServerMsg
 */

/**
 * Every client message this client sends.
 * @typedef {{type: 'create_room', name: string, settings?: Partial<Settings>, key?: string}
 *   | {type: 'join_room', room: string, name: string, key?: string}
 *   | {type: 'spectate', room: string, name?: string, key?: string}
 *   | {type: 'register', name: string}
 *   | {type: 'resume', token: string}
 *   | {type: 'list_rooms'}
 *   | {type: 'set_ready', ready: boolean}
 *   | {type: 'start_race'}
 *   | {type: 'place', cell: number, digit: number, id?: number}
 *   | {type: 'forfeit'}
 *   | {type: 'chat', text: string}
 *   | {type: 'leave'}
 *   | {type: 'ping', id?: number}
 *   | {type: 'set_settings', settings: Partial<Settings>}
 *   | {type: 'kick', player_id: string}
 *   | {type: 'quick_race', difficulty: Difficulty, name: string, key?: string}
 *   | {type: 'leave_queue'}
 *   | {type: 'requeue'}} ClientMsg
 */

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
 * @param {string} path
 * @returns {Promise<any>}
 */
export async function api(path) {
  let res;
  try {
    res = await fetch(path, { headers: { accept: 'application/json' } });
  } catch {
    throw new ApiError('the server cannot be reached', 0);
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(typeof body.error === 'string' ? body.error : `HTTP ${res.status}`, res.status);
  return body;
}

/** The WebSocket URL of the server that served this page. */
export function wsUrl() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/ws`;
}

/**
 * The page's connection. It reconnects by itself after a drop (the caller resumes its seat from
 * `onOpen`), with a growing pause, and gives up after `maxRetries` failures in a row.
 */
export class Link {
  /**
   * @param {{url: string, onMessage: (msg: ServerMsg) => void, onOpen: (again: boolean) => void,
   *   onDown: (info: {code: number, retrying: boolean}) => void, maxRetries?: number}} opts
   */
  constructor(opts) {
    this.opts = opts;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.failures = 0;
    this.opened = false;
    this.stopped = false;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    /** @type {string[]} */
    this.queue = [];
  }

  /** Open (or reopen) the socket. */
  connect() {
    this.stopped = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ws = new WebSocket(this.opts.url);
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
        const queued = this.queue.splice(0);
        this.opts.onOpen(again);
        for (const text of queued) ws.send(text);
      }
      this.opts.onMessage(msg);
    });
    ws.addEventListener('close', (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (!welcomed) this.failures += 1;
      const retrying = !this.stopped && this.retryable(ev.code) && this.failures <= (this.opts.maxRetries ?? 5);
      this.opts.onDown({ code: ev.code, retrying });
      if (retrying) {
        const pause = Math.min(4000, 250 * 2 ** this.failures);
        this.timer = setTimeout(() => this.connect(), pause);
      }
    });
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
    const text = JSON.stringify(msg);
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
    else this.queue.push(text);
  }

  /** Whether the socket is open now. */
  get up() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /** Close on purpose: no reconnect. */
  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.close(1000);
  }
}
