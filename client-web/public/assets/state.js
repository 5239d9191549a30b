// @ts-check
/**
 * The page's picture of its room, changed only by `apply` (a server message) and the small
 * local edits below (selection, pencil marks). No DOM and no network here: the screens read it,
 * control.js feeds it.
 */

import { newRace, RACE, restorePencil } from './racing.js';
import { DEFAULT_SETTINGS } from './wire.js';

export { peers } from './geometry.js';
export { clearPencil, elapsed, marks, restorePencil, togglePencil } from './racing.js';

/** @typedef {import('../../types/wire.js').ServerMsg} ServerMsg */
/** @typedef {import('../../types/wire.js').Player} Player */
/** @typedef {import('../../types/wire.js').Progress} Progress */
/** @typedef {import('../../types/wire.js').Standing} Standing */
/** @typedef {import('../../types/wire.js').Settings} Settings */
/** @typedef {import('../../types/wire.js').You} You */
/** @typedef {import('./racing.js').PencilStorage} PencilStorage */
/**
 * @template {ServerMsg['type']} K
 * @typedef {import('./racing.js').Handler<K>} Handler
 */
/** @typedef {import('./racing.js').Handlers} Handlers */
/** @typedef {import('./moving.js').Away} Away */

/**
 * @typedef {{race_id: string, puzzle: string | null, difficulty: string, time_limit_s: number,
 *   layout: import('./geometry.js').Layout, clock0: number, frozen_ms: number | null, board: string[], pencil: number[],
 *   mistakes: number, penalty_ms: number, progress: Map<string, Progress>,
 *   done: Map<string, {status: string, time_ms: number | null}>,
 *   flash: {cells: number[], at: number, kind: string, cell: number, digit: number} | null,
 *   pending: Map<number, {cell: number, digit: number, held: boolean}>}} Race
 * `layout`: the race's variant and this seat's regions or cages (A10), what the board draws and
 * the pencil clean-up reads. `clock0` is the local `now` at which the race clock read 0; `frozen_ms` is set once it stopped.
 * A pending placement is `held` while the room cannot take it (A12: moving, or the socket down).
 */

/**
 * @typedef {{code: string, message: string, room?: string,
 *   difficulty?: import('../../types/wire.js').Difficulty, retry_at?: number}} Problem
 * A screen-filling error (unknown room, room full, server gone, the server restarting, …);
 * `difficulty` is what a new room or Play now asks for after a restart (A9), and `retry_at`
 * when the page asks again by itself (the local `now`).
 */

/**
 * What the caller of `apply` must do besides redrawing: nothing, or the action named.
 * @typedef {null | 'joined' | 'left' | 'error' | 'join_next' | 'queued' | 'left_queue'} Outcome
 */

/**
 * @typedef {{room: string | null, you: You | null, host: string | null, settings: Settings,
 *   phase: import('../../types/wire.js').Phase | null, players: Player[], race: Race | null,
 *   countdown_at: number | null, standings: Standing[] | null, solution: string | null,
 *   over_reason: string | null, ratings: import('../../types/wire.js').RatingChange[], chat: {name: string, text: string, player: boolean}[],
 *   rooms: import('../../types/wire.js').RoomEntry[], problem: Problem | null, notice: string | null,
 *   notice_at: number, selected: number, pencil_mode: boolean, auto_clear: boolean, link: 'connecting' | 'up' | 'down',
 *   join_next: string | null, queue: Queue | null, bots: Set<string>, arena: Arena | null,
 *   boards: Map<string, {board: string, at_ms: number, givens: string}>, away: Away | null}} State
 * `join_next` holds a name while the page watches a race it will join once it ends; `queue` is
 * set while the page waits in the pool for a race with strangers (A7); `bots` are the player ids
 * of the room's bots, kept after they leave so the results still mark them; `arena` is the arena
 * this page is a member of (A7); `boards` each player's delayed board (A8), the first seen as givens;
 * `auto_clear`: an accepted digit clears its mark from its row, column and box (a setting);
 * `away`: the page's socket is down or its room moving to another server (A12, moving.js).
 */

/**
 * @typedef {import('../../types/wire.js').ArenaInfo & {standings: import('../../types/wire.js').ArenaStanding[],
 *   next_at: number | null}} Arena
 * `next_at`: the local `now` at which the results of an arena race ask for the next one.
 */

/**
 * @typedef {{difficulty: import('../../types/wire.js').Difficulty, waiting: number, since: number, alone: boolean,
 *   ghost?: string | null}} Queue
 * `since` is the local `now` of the first `queued`; `alone` once `pool_alone` said nobody came,
 * with the `ghost` it offered instead.
 */

/** @returns {State} */
export function initial() {
  return {
    room: null,
    you: null,
    host: null,
    settings: { ...DEFAULT_SETTINGS },
    phase: null,
    players: [],
    bots: new Set(),
    race: null,
    boards: new Map(),
    countdown_at: null,
    standings: null,
    solution: null,
    over_reason: null,
    ratings: [],
    chat: [],
    rooms: [],
    problem: null,
    notice: null,
    notice_at: 0,
    selected: 40,
    pencil_mode: false,
    auto_clear: true,
    link: 'connecting',
    join_next: null,
    queue: null,
    arena: null,
    away: null,
  };
}

/**
 * Out of the room (a pool room left for the pool again): what the page knew of it goes.
 * @param {State} s
 */
function leaveRoom(s) {
  Object.assign(s, { room: null, you: null, host: null, phase: null, players: [], bots: new Set(), race: null, countdown_at: null,
    standings: null, solution: null, over_reason: null, ratings: [], chat: [], join_next: null, away: null });
}

/**
 * The server restarting for an update (A9): a new room or Play now, at the difficulty the page
 * last raced or waited at, on a new connection.
 * @param {State} s
 * @param {string} [first] what closed, said first
 * @returns {Problem}
 */
export function restarting(s, first = '') {
  const difficulty = s.queue?.difficulty ?? s.settings.difficulty ?? 'medium';
  const message = `${first}the server is restarting for an update. Races that ended are saved: connect again to play on.`;
  return { code: 'restarting', message: message[0].toUpperCase() + message.slice(1), difficulty };
}

/** The chat lines a page keeps. */
const CHAT_KEEP = 100;

/**
 * Whether this page's player may place digits now.
 * @param {State} s
 */
export function canPlace(s) {
  if (s.phase !== 'racing' || !s.race || !s.you || s.you.role !== 'player') return false;
  const me = s.players.find((p) => p.player_id === s.you?.player_id);
  return !!me && me.status === 'racing';
}

/**
 * The player this page is, if it is one.
 * @param {State} s
 */
export function me(s) {
  return s.players.find((p) => p.player_id === s.you?.player_id) ?? null;
}

/**
 * Replace or add a player, keeping join order.
 * @param {Player[]} players
 * @param {Player} p
 */
function upsert(players, p) {
  const i = players.findIndex((q) => q.player_id === p.player_id);
  if (i < 0) return [...players, p];
  const next = players.slice();
  next[i] = p;
  return next;
}

/**
 * In a room: the room as the server shows it (entered, or taken back: a resume, or the room shown
 * again by the server that took it over, A12). The same race keeps the page's pencil marks and
 * its placements still unanswered in cells the board leaves empty; a race seen for the first time
 * by this page takes the tab's saved marks (a reload).
 * @type {Handler<'room_joined'>}
 */
function roomJoined(s, msg, now, storage) {
  // A room taken over by another server (A9) shows a seat the room as it stands without
  // its token: the seat keeps the one it has.
  const kept = msg.you.token == null && s.room === msg.room && s.you?.player_id === msg.you.player_id ? s.you?.token : undefined;
  // The race's own solution (race_over's) is kept when the view is of the race we saw end.
  const seen = msg.race && s.race?.race_id === msg.race.race_id ? s.solution : null;
  const prev = msg.race && s.race?.race_id === msg.race.race_id ? s.race : null;
  Object.assign(s, { queue: null, room: msg.room, you: kept ? { ...msg.you, token: kept } : msg.you, host: msg.host, settings: msg.settings,
    phase: msg.phase, players: msg.players, bots: new Set(msg.players.filter((p) => p.bot).map((p) => p.player_id)), problem: null,
    standings: null, solution: seen, countdown_at: null, race: null, boards: new Map() });
  if (msg.race) s.race = raceView(s, msg, msg.race, now, storage, prev);
  if (msg.phase === 'countdown') s.countdown_at = now;
  return 'joined';
}

/**
 * The race a `room_joined` shows; `prev` is the page's own picture of the same race, if it had one.
 * @param {State} s
 * @param {Extract<ServerMsg, {type: 'room_joined'}>} msg
 * @param {import('../../types/wire.js').RaceView} r
 * @param {number} now
 * @param {PencilStorage} storage
 * @param {Race | null} prev
 */
function raceView(s, msg, r, now, storage, prev) {
  // Between races the view carries the last race's standings (ours, additive): a page
  // that joins or comes back now shows that race as its players saw it.
  if (msg.phase === 'finished' && r.standings) {
    s.standings = r.standings;
    s.over_reason = r.reason ?? null;
  }
  // The view has no variant of its own: it is the room's (A10).
  const race = newRace({ ...r, variant: msg.settings.variant ?? r.variant }, now - r.elapsed_ms, r.board);
  race.mistakes = r.mistakes;
  // The view carries no penalty: it is the settings' price per mistake.
  race.penalty_ms = r.mistakes * msg.settings.penalty_s * 1000;
  for (const p of r.progress) race.progress.set(p.player_id, p);
  if (msg.phase === 'finished') race.frozen_ms = r.elapsed_ms;
  if (prev) {
    race.pencil = prev.pencil.map((b, i) => (race.board[i] === '.' ? b : 0));
    for (const [id, p] of prev.pending) if (msg.phase === 'racing' && race.board[p.cell] === '.') race.pending.set(id, p);
  } else if (r.puzzle) {
    restorePencil(race, storage);
  }
  return race;
}

/** @type {Handler<'player_joined' | 'player_updated'>} */
function playerSeen(s, msg) {
  s.players = upsert(s.players, msg.player);
  if (msg.player.bot) s.bots.add(msg.player.player_id);
  return null;
}

/** The room's messages: who is in it, its host, settings, chat, its end. @type {Handlers} */
const ROOM = {
  room_joined: roomJoined,
  room_list(s, msg) {
    s.rooms = msg.rooms;
    return null;
  },
  player_joined: playerSeen,
  player_updated: playerSeen,
  player_left(s, msg) {
    if (msg.player_id === s.you?.player_id) return 'left';
    s.players = s.players.filter((p) => p.player_id !== msg.player_id);
    return null;
  },
  host_changed(s, msg) {
    s.host = msg.player_id;
    return null;
  },
  settings_changed(s, msg) {
    s.settings = msg.settings;
    return null;
  },
  chat(s, msg) {
    s.chat = [...s.chat.slice(-(CHAT_KEEP - 1)), { name: msg.name, text: msg.text, player: msg.player_id !== null }];
    return null;
  },
  room_closed(s, msg) {
    if (msg.reason === 'drain' || msg.reason === 'shutdown') {
      s.problem = restarting(s, `Room ${msg.room} has closed: `);
    } else {
      s.problem = { code: 'room_closed', message: `Room ${msg.room} has closed: the host left, or its server was lost.`, room: msg.room };
    }
    return 'left';
  },
  reported(s, msg, now) {
    // A8: the server kept the report for the moderators.
    const who = s.standings?.find((x) => x.player_id === msg.player_id)?.name ?? 'the player';
    s.notice = `Reported ${who} to the moderators.`;
    s.notice_at = now;
    return null;
  },
  board(s, msg) {
    s.boards.set(msg.player_id, { board: msg.board, at_ms: msg.at_ms, givens: s.boards.get(msg.player_id)?.givens ?? msg.board });
    return null;
  },
  error: () => 'error',
};

/** The pool's and the arenas' messages (A7). @type {Handlers} */
const POOL = {
  queued(s, msg, now) {
    // The count changes while the page waits: the wait's start and `alone` stay.
    const q = s.queue?.difficulty === msg.difficulty ? s.queue : null;
    s.queue = { difficulty: msg.difficulty, waiting: msg.waiting, since: q?.since ?? now, alone: q?.alone ?? false };
    if (s.room) leaveRoom(s);
    return 'queued';
  },
  left_queue(s) {
    s.queue = null;
    return 'left_queue';
  },
  pool_alone(s, msg) {
    if (s.queue) Object.assign(s.queue, { alone: true, ghost: msg.ghost });
    return null;
  },
  arena_joined(s, msg) {
    const a = s.arena?.arena_id === msg.arena.arena_id ? s.arena : null;
    s.arena = { ...msg.arena, standings: a?.standings ?? [], next_at: null };
    return null;
  },
  arena_standings(s, msg) {
    if (s.arena?.arena_id === msg.arena_id) s.arena.standings = msg.standings;
    return null;
  },
  left_arena(s) {
    s.arena = null;
    if (!s.room) s.queue = null;
    return null;
  },
};

/** Every message's handler, by type; a type not here changes nothing. @type {Handlers} */
const HANDLERS = { ...ROOM, ...RACE, ...POOL };

/**
 * Apply one server message. `now` is the page's monotonic clock (performance.now()); `storage`
 * keeps the race's pencil marks.
 * Returns what the caller must do besides redrawing: `null`, or an action name.
 * @param {State} s
 * @param {ServerMsg} msg
 * @param {number} now
 * @param {PencilStorage} storage
 * @returns {Outcome}
 */
export function apply(s, msg, now, storage) {
  const handler = /** @type {Handler<ServerMsg['type']> | undefined} */ (HANDLERS[msg.type]);
  return handler ? handler(s, msg, now, storage) : null;
}

/**
 * What a screen may ask of the page (control.js implements it).
 * @typedef {{
 *   create: (name: string, settings: Settings) => void,
 *   join: (room: string, name: string) => void,
 *   watch: (room: string, name: string, boards?: boolean) => void,
 *   unwatch: () => void,
 *   listRooms: () => void,
 *   ready: (on: boolean) => void,
 *   start: () => void,
 *   place: (cell: number, digit: number) => void,
 *   erase: (cell: number) => void,
 *   select: (cell: number) => void,
 *   pencilMode: (on: boolean) => void,
 *   autoClear: (on: boolean) => void,
 *   forfeit: () => void,
 *   chat: (text: string) => void,
 *   setSettings: (settings: Settings) => void,
 *   kick: (playerId: string) => void,
 *   report: (playerId: string, reason: string) => void,
 *   leave: () => void,
 *   retry: () => void,
 *   again: (to: 'room' | 'pool') => void,
 *   notice: (text: string | null) => void,
 *   savedName: () => string,
 *   playNow: (name: string, difficulty: import('../../types/wire.js').Difficulty) => void,
 *   leaveQueue: () => void,
 *   requeue: () => void,
 *   raceGhost: (ghost: string, difficulty?: import('../../types/wire.js').Difficulty) => void,
 *   joinArena: (id: string, name: string) => void,
 *   leaveArena: () => void,
 *   handle: () => string | null,
 * }} Actions
 */

/**
 * A screen: its element, and how it redraws from the state.
 * @typedef {{el: HTMLElement, update: (s: State, now: number) => void, focus?: () => void,
 *   onKey?: (ev: KeyboardEvent, s: State) => void}} Screen
 */
