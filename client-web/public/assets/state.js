// @ts-check
/**
 * The page's picture of its room, changed only by `apply` (a server message) and the small
 * local edits below (selection, pencil marks). No DOM and no network here: the screens read it,
 * control.js feeds it.
 */

import { DEFAULT_SETTINGS } from './wire.js';

/** @typedef {import('../../types/wire.js').ServerMsg} ServerMsg */
/** @typedef {import('../../types/wire.js').Player} Player */
/** @typedef {import('../../types/wire.js').Progress} Progress */
/** @typedef {import('../../types/wire.js').Standing} Standing */
/** @typedef {import('../../types/wire.js').Settings} Settings */
/** @typedef {import('../../types/wire.js').You} You */

/**
 * @typedef {{race_id: string, puzzle: string | null, difficulty: string, time_limit_s: number,
 *   clock0: number, frozen_ms: number | null, board: string[], pencil: number[],
 *   mistakes: number, penalty_ms: number, progress: Map<string, Progress>,
 *   done: Map<string, {status: string, time_ms: number | null}>,
 *   flash: {cells: number[], at: number, kind: string, cell: number, digit: number} | null,
 *   pending: Map<number, {cell: number, digit: number}>}} Race
 * `clock0` is the local `now` at which the race clock read 0; `frozen_ms` is set once it stopped.
 */

/**
 * @typedef {{code: string, message: string, room?: string,
 *   difficulty?: import('../../types/wire.js').Difficulty}} Problem
 * A screen-filling error (unknown room, room full, server gone, the server restarting, …);
 * `difficulty` is what a new room or Play now asks for after a restart (A9).
 */

/**
 * @typedef {{room: string | null, you: You | null, host: string | null, settings: Settings,
 *   phase: import('../../types/wire.js').Phase | null, players: Player[], race: Race | null,
 *   countdown_at: number | null, standings: Standing[] | null, solution: string | null,
 *   over_reason: string | null, ratings: import('../../types/wire.js').RatingChange[], chat: {name: string, text: string, player: boolean}[],
 *   rooms: import('../../types/wire.js').RoomEntry[], problem: Problem | null, notice: string | null,
 *   notice_at: number, selected: number, pencil_mode: boolean, auto_clear: boolean, link: 'connecting' | 'up' | 'down',
 *   join_next: string | null, queue: Queue | null, bots: Set<string>, arena: Arena | null,
 *   boards: Map<string, {board: string, at_ms: number, givens: string}>}} State
 * `join_next` holds a name while the page watches a race it will join once it ends; `queue` is
 * set while the page waits in the pool for a race with strangers (A7); `bots` are the player ids
 * of the room's bots, kept after they leave so the results still mark them; `arena` is the arena
 * this page is a member of (A7); `boards` each player's delayed board (A8), the first seen as givens;
 * `auto_clear`: an accepted digit clears its mark from its row, column and box (a setting).
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
  };
}

/**
 * Out of the room (a pool room left for the pool again): what the page knew of it goes.
 * @param {State} s
 */
function leaveRoom(s) {
  Object.assign(s, { room: null, you: null, host: null, phase: null, players: [], bots: new Set(), race: null, countdown_at: null,
    standings: null, solution: null, over_reason: null, ratings: [], chat: [], join_next: null });
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
 * A fresh race from what the server said of it.
 * @param {{race_id: string, puzzle: string | null, difficulty: string, time_limit_s: number}} r
 * @param {number} clock0
 * @param {string | null} board
 * @returns {Race}
 */
function newRace(r, clock0, board) {
  const grid = board ?? r.puzzle ?? '.'.repeat(81);
  return {
    race_id: r.race_id,
    puzzle: r.puzzle,
    difficulty: r.difficulty,
    time_limit_s: r.time_limit_s,
    clock0,
    frozen_ms: null,
    board: [...grid],
    pencil: new Array(81).fill(0),
    mistakes: 0,
    penalty_ms: 0,
    progress: new Map(),
    done: new Map(),
    flash: null,
    pending: new Map(),
  };
}

/**
 * The race clock now, in milliseconds (without penalties).
 * @param {Race} race
 * @param {number} now
 */
export function elapsed(race, now) {
  if (race.frozen_ms !== null) return race.frozen_ms;
  if (race.puzzle === null) return 0;
  return Math.max(0, Math.min(now - race.clock0, race.time_limit_s * 1000));
}

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
 * Set a player's status.
 * @param {State} s
 * @param {string} id
 * @param {import('../../types/wire.js').Status} status
 */
function setStatus(s, id, status) {
  s.players = s.players.map((p) => (p.player_id === id ? { ...p, status } : p));
}

/**
 * Apply one server message. `now` is the page's monotonic clock (performance.now()).
 * Returns what the caller must do besides redrawing: `null`, or an action name.
 * @param {State} s
 * @param {ServerMsg} msg
 * @param {number} now
 * @returns {null | 'joined' | 'left' | 'error' | 'join_next' | 'queued' | 'left_queue'}
 */
export function apply(s, msg, now) {
  switch (msg.type) {
    case 'room_joined': {
      s.queue = null;
      // A room taken over by another server (A9) shows a seat the room as it stands without
      // its token: the seat keeps the one it has.
      const kept = msg.you.token == null && s.room === msg.room && s.you?.player_id === msg.you.player_id ? s.you?.token : undefined;
      s.room = msg.room;
      s.you = kept ? { ...msg.you, token: kept } : msg.you;
      s.host = msg.host;
      s.settings = msg.settings;
      s.phase = msg.phase;
      s.players = msg.players;
      s.bots = new Set(msg.players.filter((p) => p.bot).map((p) => p.player_id));
      s.problem = null;
      // The race's own solution (race_over's) is kept when the view is of the race we saw end.
      const seen = msg.race && s.race?.race_id === msg.race.race_id ? s.solution : null;
      s.standings = null;
      s.solution = seen;
      s.countdown_at = null;
      s.race = null;
      s.boards = new Map();
      if (msg.race) {
        const r = msg.race;
        // Between races the view carries the last race's standings (ours, additive): a page
        // that joins or comes back now shows that race as its players saw it.
        if (msg.phase === 'finished' && r.standings) {
          s.standings = r.standings;
          s.over_reason = r.reason ?? null;
        }
        const race = newRace(r, now - r.elapsed_ms, r.board);
        race.mistakes = r.mistakes;
        // The view carries no penalty: it is the settings' price per mistake.
        race.penalty_ms = r.mistakes * msg.settings.penalty_s * 1000;
        for (const p of r.progress) race.progress.set(p.player_id, p);
        if (msg.phase === 'finished') race.frozen_ms = r.elapsed_ms;
        s.race = race;
      }
      if (msg.phase === 'countdown') s.countdown_at = now;
      return 'joined';
    }
    case 'room_list':
      s.rooms = msg.rooms;
      return null;
    case 'player_joined':
    case 'player_updated':
      s.players = upsert(s.players, msg.player);
      if (msg.player.bot) s.bots.add(msg.player.player_id);
      return null;
    case 'player_left':
      if (msg.player_id === s.you?.player_id) {
        return 'left';
      }
      s.players = s.players.filter((p) => p.player_id !== msg.player_id);
      return null;
    case 'host_changed':
      s.host = msg.player_id;
      return null;
    case 'settings_changed':
      s.settings = msg.settings;
      return null;
    case 'countdown':
      s.phase = 'countdown';
      s.countdown_at = now + msg.starts_in_ms;
      s.standings = null;
      s.solution = null;
      s.ratings = [];
      s.race = null;
      s.players = s.players.map((p) => ({ ...p, status: 'waiting', ready: false }));
      return null;
    case 'race_started':
      s.boards = new Map();
      s.phase = 'racing';
      s.countdown_at = null;
      s.race = newRace(msg, now, null);
      s.players = s.players.map((p) => ({ ...p, status: 'racing' }));
      s.selected = firstEmpty(s.race.board);
      restorePencil(s.race);
      return null;
    case 'placement': {
      const race = s.race;
      if (!race) return null;
      if (typeof msg.id === 'number') race.pending.delete(msg.id);
      race.mistakes = msg.mistakes;
      race.penalty_ms = msg.penalty_ms;
      if (msg.accepted) {
        race.board[msg.cell] = String(msg.digit);
        race.pencil[msg.cell] = 0;
        if (s.auto_clear) clearPeersMark(race, msg.cell, msg.digit);
        else savePencil(race);
        race.flash = null;
      } else {
        race.flash = {
          cells: msg.conflicts,
          at: now,
          kind: msg.reason ?? 'wrong',
          cell: msg.cell,
          digit: msg.digit,
        };
      }
      return null;
    }
    case 'progress':
      if (s.race) {
        s.race.progress.set(msg.player_id, {
          player_id: msg.player_id,
          filled: msg.filled,
          to_fill: msg.to_fill,
          mistakes: msg.mistakes,
        });
      }
      return null;
    case 'player_finished':
      setStatus(s, msg.player_id, msg.status);
      s.race?.done.set(msg.player_id, { status: msg.status, time_ms: msg.time_ms });
      return null;
    case 'race_over':
      s.phase = 'finished';
      s.standings = msg.standings;
      s.solution = msg.solution;
      s.over_reason = msg.reason;
      s.ratings = msg.ratings ?? [];
      if (s.race) {
        s.race.frozen_ms = elapsed(s.race, now);
        s.race.pending.clear();
      }
      for (const st of msg.standings) setStatus(s, st.player_id, st.status);
      return s.join_next !== null ? 'join_next' : null;
    case 'ratings':
      // A9: the rating changes of a result the server stored after `race_over`; only those
      // of the race whose results are shown.
      if (s.phase === 'finished' && s.race?.race_id === msg.race_id) s.ratings = msg.ratings;
      return null;
    case 'solution':
      s.solution = msg.solution;
      return null;
    case 'chat':
      s.chat = [...s.chat.slice(-(CHAT_KEEP - 1)), { name: msg.name, text: msg.text, player: msg.player_id !== null }];
      return null;
    case 'room_closed':
      if (msg.reason === 'drain' || msg.reason === 'shutdown') {
        s.problem = restarting(s, `Room ${msg.room} has closed: `);
      } else {
        s.problem = { code: 'room_closed', message: `Room ${msg.room} has closed: the host left, or its server was lost.`, room: msg.room };
      }
      return 'left';
    case 'queued': {
      // The count changes while the page waits: the wait's start and `alone` stay.
      const q = s.queue?.difficulty === msg.difficulty ? s.queue : null;
      s.queue = { difficulty: msg.difficulty, waiting: msg.waiting, since: q?.since ?? now, alone: q?.alone ?? false };
      if (s.room) leaveRoom(s);
      return 'queued';
    }
    case 'left_queue':
      s.queue = null;
      return 'left_queue';
    case 'pool_alone':
      if (s.queue) Object.assign(s.queue, { alone: true, ghost: msg.ghost });
      return null;
    case 'arena_joined': {
      const a = s.arena?.arena_id === msg.arena.arena_id ? s.arena : null;
      s.arena = { ...msg.arena, standings: a?.standings ?? [], next_at: null };
      return null;
    }
    case 'arena_standings':
      if (s.arena?.arena_id === msg.arena_id) s.arena.standings = msg.standings;
      return null;
    case 'left_arena':
      s.arena = null;
      if (!s.room) s.queue = null;
      return null;
    case 'reported': {
      // A8: the server kept the report for the moderators.
      const who = s.standings?.find((x) => x.player_id === msg.player_id)?.name ?? 'the player';
      s.notice = `Reported ${who} to the moderators.`;
      s.notice_at = now;
      return null;
    }
    case 'board':
      s.boards.set(msg.player_id, { board: msg.board, at_ms: msg.at_ms, givens: s.boards.get(msg.player_id)?.givens ?? msg.board });
      return null;
    case 'error':
      return 'error';
    default:
      return null;
  }
}

/**
 * The first empty cell, or the centre.
 * @param {string[]} board
 */
function firstEmpty(board) {
  const i = board.indexOf('.');
  return i < 0 ? 40 : i;
}

/**
 * The cells that share a row, column or box with `cell` (itself excluded).
 * @param {number} cell
 */
export function peers(cell) {
  const r = Math.floor(cell / 9);
  const c = cell % 9;
  const br = r - (r % 3);
  const bc = c - (c % 3);
  /** @type {Set<number>} */
  const out = new Set();
  for (let i = 0; i < 9; i++) {
    out.add(r * 9 + i);
    out.add(i * 9 + c);
    out.add((br + Math.floor(i / 3)) * 9 + bc + (i % 3));
  }
  out.delete(cell);
  return out;
}

/**
 * A placed digit can no longer be a candidate of its row, column or box.
 * @param {Race} race
 * @param {number} cell
 * @param {number} digit
 */
function clearPeersMark(race, cell, digit) {
  const bit = 1 << digit;
  for (const p of peers(cell)) race.pencil[p] &= ~bit;
  savePencil(race);
}

/**
 * Toggle a pencil mark on an empty cell.
 * @param {Race} race
 * @param {number} cell
 * @param {number} digit
 */
export function togglePencil(race, cell, digit) {
  if (race.board[cell] !== '.') return;
  race.pencil[cell] ^= 1 << digit;
  savePencil(race);
}

/**
 * Clear a cell's pencil marks.
 * @param {Race} race
 * @param {number} cell
 */
export function clearPencil(race, cell) {
  race.pencil[cell] = 0;
  savePencil(race);
}

/**
 * The digits marked in a cell.
 * @param {number} bits
 */
export function marks(bits) {
  /** @type {number[]} */
  const out = [];
  for (let d = 1; d <= 9; d++) if (bits & (1 << d)) out.push(d);
  return out;
}

/**
 * Pencil marks are the player's own notes, not the server's: they live in this tab's
 * sessionStorage per race, so a reload keeps them.
 * @param {Race} race
 */
function savePencil(race) {
  try {
    sessionStorage.setItem(`sudoku-race:pencil:${race.race_id}`, race.pencil.join(','));
  } catch {
    // Storage may be full or off; marks then live as long as the page.
  }
}

/** @param {Race} race */
export function restorePencil(race) {
  try {
    const saved = sessionStorage.getItem(`sudoku-race:pencil:${race.race_id}`);
    if (!saved) return;
    const bits = saved.split(',').map((x) => Number(x) & 0x3fe);
    if (bits.length === 81) race.pencil = bits.map((b, i) => (race.board[i] === '.' ? b : 0));
  } catch {
    // As above.
  }
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
