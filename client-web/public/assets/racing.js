// @ts-check
/**
 * The race's part of the page's state (state.js): a race's clock, board and pencil marks, and
 * what the race's messages (`countdown` to `race_over`, `ratings`) change. Pencil
 * marks are kept in the session storage handed in (control.js's, a getter that may throw). No
 * DOM and no network here.
 */

import { geometryFor } from './geometry.js';

/** @typedef {import('./state.js').State} State */
/** @typedef {import('./state.js').Race} Race */
/** @typedef {import('./state.js').Outcome} Outcome */
/** @typedef {import('../../types/wire.js').ServerMsg} ServerMsg */

/**
 * Where pencil marks are kept: this tab's session storage, read on every use (any call may throw).
 * @typedef {{readonly session: {getItem: (key: string) => string | null, setItem: (key: string, value: string) => void}}} PencilStorage
 */

/**
 * The handler of the message type `K`: it changes the state and says what the caller must do.
 * @template {ServerMsg['type']} K
 * @typedef {(s: State, msg: Extract<ServerMsg, {type: K}>, now: number, storage: PencilStorage) => Outcome} Handler
 */
/** @typedef {{[K in ServerMsg['type']]?: Handler<K>}} Handlers */

/**
 * A fresh race from what the server said of it: its variant and the seat's layout (A10) too.
 * @param {{race_id: string, puzzle: string | null, difficulty: string, time_limit_s: number} & import('./geometry.js').Layout} r
 * @param {number} clock0
 * @param {string | null} board
 * @returns {Race}
 */
export function newRace(r, clock0, board) {
  const grid = board ?? r.puzzle ?? '.'.repeat(81);
  return {
    race_id: r.race_id,
    puzzle: r.puzzle,
    difficulty: r.difficulty,
    time_limit_s: r.time_limit_s,
    layout: { variant: r.variant ?? 'classic', regions: r.regions ?? null, cages: r.cages ?? null },
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
 * Set a player's status.
 * @param {State} s
 * @param {string} id
 * @param {import('../../types/wire.js').Status} status
 */
function setStatus(s, id, status) {
  s.players = s.players.map((p) => (p.player_id === id ? { ...p, status } : p));
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
 * The answer to a placement: the digit in, or the refusal's flash.
 * @type {Handler<'placement'>}
 */
function placement(s, msg, now, storage) {
  const race = s.race;
  if (!race) return null;
  if (typeof msg.id === 'number') race.pending.delete(msg.id);
  race.mistakes = msg.mistakes;
  race.penalty_ms = msg.penalty_ms;
  if (msg.accepted) {
    race.board[msg.cell] = String(msg.digit);
    race.pencil[msg.cell] = 0;
    if (s.auto_clear) clearPeersMark(race, msg.cell, msg.digit, storage);
    else savePencil(race, storage);
    race.flash = null;
  } else {
    race.flash = { cells: msg.conflicts, at: now, kind: msg.reason ?? 'wrong', cell: msg.cell, digit: msg.digit };
  }
  return null;
}

/** The race's messages, from the countdown to the results. @type {Handlers} */
export const RACE = {
  countdown(s, msg, now) {
    Object.assign(s, { phase: 'countdown', countdown_at: now + msg.starts_in_ms, standings: null, solution: null, ratings: [], race: null });
    s.players = s.players.map((p) => ({ ...p, status: 'waiting', ready: false }));
    return null;
  },
  race_started(s, msg, now, storage) {
    Object.assign(s, { boards: new Map(), phase: 'racing', countdown_at: null });
    const race = newRace(msg, now, null);
    s.race = race;
    s.players = s.players.map((p) => ({ ...p, status: 'racing' }));
    s.selected = firstEmpty(race.board);
    restorePencil(race, storage);
    return null;
  },
  placement,
  progress(s, msg) {
    s.race?.progress.set(msg.player_id, { player_id: msg.player_id, filled: msg.filled, to_fill: msg.to_fill, mistakes: msg.mistakes });
    return null;
  },
  player_finished(s, msg) {
    setStatus(s, msg.player_id, msg.status);
    s.race?.done.set(msg.player_id, { status: msg.status, time_ms: msg.time_ms });
    return null;
  },
  race_over(s, msg, now) {
    Object.assign(s, { phase: 'finished', standings: msg.standings, solution: msg.solution, over_reason: msg.reason, ratings: msg.ratings ?? [] });
    if (s.race) {
      s.race.frozen_ms = elapsed(s.race, now);
      s.race.pending.clear();
    }
    for (const st of msg.standings) setStatus(s, st.player_id, st.status);
    return s.join_next !== null ? 'join_next' : null;
  },
  ratings(s, msg) {
    // A9: the rating changes of a result the server stored after `race_over`; only those
    // of the race whose results are shown.
    if (s.phase === 'finished' && s.race?.race_id === msg.race_id) s.ratings = msg.ratings;
    return null;
  },
};

/**
 * A placed digit can no longer be a candidate of its peers (its row, column and box, and the
 * variant's other houses: diagonals, windows, regions, cages).
 * @param {Race} race
 * @param {number} cell
 * @param {number} digit
 * @param {PencilStorage} storage
 */
function clearPeersMark(race, cell, digit, storage) {
  const bit = 1 << digit;
  for (const p of geometryFor(race.layout).peers[cell]) race.pencil[p] &= ~bit;
  savePencil(race, storage);
}

/**
 * Toggle a pencil mark on an empty cell.
 * @param {Race} race
 * @param {number} cell
 * @param {number} digit
 * @param {PencilStorage} storage
 */
export function togglePencil(race, cell, digit, storage) {
  if (race.board[cell] !== '.') return;
  race.pencil[cell] ^= 1 << digit;
  savePencil(race, storage);
}

/**
 * Clear a cell's pencil marks.
 * @param {Race} race
 * @param {number} cell
 * @param {PencilStorage} storage
 */
export function clearPencil(race, cell, storage) {
  race.pencil[cell] = 0;
  savePencil(race, storage);
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
 * session storage per race, so a reload keeps them.
 * @param {Race} race
 * @param {PencilStorage} storage
 */
function savePencil(race, storage) {
  try {
    storage.session.setItem(`sudoku-race:pencil:${race.race_id}`, race.pencil.join(','));
  } catch {
    // Storage may be full or off; marks then live as long as the page.
  }
}

/**
 * @param {Race} race
 * @param {PencilStorage} storage
 */
export function restorePencil(race, storage) {
  try {
    const saved = storage.session.getItem(`sudoku-race:pencil:${race.race_id}`);
    if (!saved) return;
    const bits = saved.split(',').map((x) => Number(x) & 0x3fe);
    if (bits.length === 81) race.pencil = bits.map((b, i) => (race.board[i] === '.' ? b : 0));
  } catch {
    // As above.
  }
}
