// @ts-check
/**
 * A finished race replayed, with no DOM and no clock: `parseRace` checks the API's
 * `GET /api/races/ID` body, `at` says where everyone was after the first `n` placements at race
 * time `t`, and `step` moves one placement. screens/replay.js drives it.
 */

import { peers } from './geometry.js';

/** @typedef {import('../../types/wire.js').Standing} Standing */
/**
 * @typedef {{player_id: string, at_ms: number, cell: number, digit: number,
 *   outcome: 'accepted' | 'wrong' | 'conflict' | 'given' | 'filled'}} Placement
 * @typedef {{race_id: string, difficulty: string, puzzle: string, solution: string,
 *   started_unix_ms: number, duration_ms: number, reason: string, rated: boolean, daily: string | null,
 *   players: {player_id: string, name: string, handle: string | null, bot: boolean, puzzle?: string}[],
 *   standings: Standing[], placements: Placement[]}} StoredRace
 * @typedef {{race: StoredRace, to_fill: number, end_ms: number, events: Placement[], last: Map<string, number>}} Replay
 * `events` are the placements by race time; `last` is each player's last event's index.
 * @typedef {{n: number, t: number}} Cursor  the first `n` events have happened; the clock reads `t`
 * @typedef {{player_id: string, name: string, filled: number, to_fill: number, mistakes: number,
 *   status: string, time_ms: number | null}} Line
 */

/**
 * Check an API body; an Error says what is wrong with it.
 * @param {any} v
 * @returns {Replay}
 */
export function parseRace(v) {
  const grid = /^[.1-9]{81}$/;
  const ok = v && typeof v === 'object' && grid.test(v.puzzle) && /^[1-9]{81}$/.test(v.solution)
    && [v.players, v.standings, v.placements].every(Array.isArray) && typeof v.duration_ms === 'number';
  if (!ok) throw new Error('the server sent a race this page cannot read');
  /** @type {Placement[]} */
  const events = v.placements
    .filter((/** @type {any} */ p) => Number.isInteger(p?.cell) && p.cell >= 0 && p.cell < 81 && typeof p.at_ms === 'number')
    .sort((/** @type {Placement} */ a, /** @type {Placement} */ b) => a.at_ms - b.at_ms);
  const last = new Map(events.map((p, i) => [p.player_id, i]));
  const end = Math.max(v.duration_ms, events.at(-1)?.at_ms ?? 0);
  return { race: v, to_fill: [...v.puzzle].filter((c) => c === '.').length, end_ms: end, events, last };
}

/** @param {Placement['outcome']} o */
const isMistake = (o) => o === 'wrong' || o === 'conflict';

/**
 * Every player's progress at `c`, in the race's seat order. A solve or an elimination shows from
 * the placement that ended it; a forfeit or a time-out (the store keeps no time for them) at the end.
 * @param {Replay} r
 * @param {Cursor} c
 * @returns {Line[]}
 */
export function at(r, c) {
  const over = c.n >= r.events.length && c.t >= r.end_ms;
  return r.race.players.map((p) => {
    let filled = 0;
    let mistakes = 0;
    for (const e of r.events.slice(0, c.n)) {
      if (e.player_id !== p.player_id) continue;
      if (e.outcome === 'accepted') filled += 1;
      else if (isMistake(e.outcome)) mistakes += 1;
    }
    const st = r.race.standings.find((s) => s.player_id === p.player_id);
    const done = (st?.status === 'solved' && filled === r.to_fill)
      || (st?.status === 'eliminated' && c.n > (r.last.get(p.player_id) ?? -1)) || over;
    const status = done && st ? st.status : 'racing';
    return { player_id: p.player_id, name: p.name, filled, to_fill: r.to_fill, mistakes, status, time_ms: status === 'solved' ? st?.time_ms ?? null : null, bot: p.bot };
  });
}

/**
 * A seat's own givens (A8: its own isomorph when the race dealt one per seat; the race's
 * from a server that sends none): its placements are on them.
 * @param {Replay} r
 * @param {string} playerId
 */
export function seatPuzzle(r, playerId) {
  const own = r.race.players.find((p) => p.player_id === playerId)?.puzzle;
  return own && /^[.1-9]{81}$/.test(own) ? own : r.race.puzzle;
}

/**
 * One player's board at `c` (givens and their accepted digits), and their latest placement.
 * @param {Replay} r
 * @param {Cursor} c
 * @param {string} playerId
 */
export function boardAt(r, c, playerId) {
  const board = [...seatPuzzle(r, playerId)];
  /** @type {Placement | null} */
  let latest = null;
  for (const e of r.events.slice(0, c.n)) {
    if (e.player_id !== playerId) continue;
    if (e.outcome === 'accepted') board[e.cell] = String(e.digit);
    latest = e;
  }
  /** The cells a refused digit clashed with, as the race showed them. */
  const clashes = latest?.outcome === 'conflict'
    ? [...peers(latest.cell)].filter((i) => board[i] === String(latest?.digit)) : [];
  return { board, latest, clashes };
}

/**
 * How many events have happened by race time `t`.
 * @param {Replay} r
 * @param {number} t
 */
export function count(r, t) {
  let lo = 0;
  let hi = r.events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (r.events[mid].at_ms <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The cursor at race time `t` (clamped to the race).
 * @param {Replay} r
 * @param {number} t
 * @returns {Cursor}
 */
export function seek(r, t) {
  const at = Math.max(0, Math.min(t, r.end_ms));
  return { n: count(r, at), t: at };
}

/**
 * One placement on (`by` 1) or back (`by` -1); on past the last placement is the end of the race.
 * @param {Replay} r
 * @param {Cursor} c
 * @param {1 | -1} by
 * @returns {Cursor}
 */
export function step(r, c, by) {
  if (by > 0 && c.n >= r.events.length) return { n: c.n, t: r.end_ms };
  const n = Math.max(0, Math.min(r.events.length, c.n + by));
  return { n, t: n > 0 ? r.events[n - 1].at_ms : 0 };
}
