// @ts-check
/**
 * What the race screen says aloud (its polite live region, `data-testid=said`), in words: the
 * countdown ("Race starts in 3", then "Go"), a refused digit and why (wrong, clashes with which
 * cells, a given, already filled), each finish ("ann solved in 1:02.3", "bob forfeited", and
 * ours), and where a spectator stands. Pure: no DOM. An announcer remembers what it has said,
 * so a redraw with nothing new says nothing (a live region repeats whatever text it is given).
 */

import { raceTime } from './dom.js';
import { colOf, rowOf } from './geometry.js';

/** @typedef {import('./state.js').State} State */

/**
 * A cell in words: `row 2, column 7`.
 * @param {number} cell
 */
export function where(cell) {
  return `row ${rowOf(cell) + 1}, column ${colOf(cell) + 1}`;
}

/**
 * Why a digit was refused, in words.
 * @param {{cell: number, digit: number, kind: string, cells: number[]}} f
 */
export function refusal(f) {
  switch (f.kind) {
    case 'conflict': {
      const others = f.cells.filter((c) => c !== f.cell).map(where);
      const them = others.length > 1 ? `${others.slice(0, -1).join('; ')} and ${others[others.length - 1]}` : others[0] ?? 'a digit in its row, column or box';
      return `${f.digit} at ${where(f.cell)} clashes with ${them}.`;
    }
    case 'wrong':
      return `${f.digit} at ${where(f.cell)} is wrong.`;
    case 'given':
      return `${where(f.cell)} is a given: it cannot change.`;
    case 'filled':
      return `${where(f.cell)} is already filled.`;
    default:
      return `${f.digit} at ${where(f.cell)} was refused.`;
  }
}

/** Words for how a player finished. @type {Record<string, string>} */
const FINISHED = { forfeited: 'forfeited', eliminated: 'is out: too many mistakes', timed_out: 'ran out of time' };

/**
 * A finish in words: `ann solved in 1:02.3`, `bob forfeited`; ours as `You …`.
 * @param {string} name
 * @param {{status: string, time_ms: number | null}} done
 * @param {boolean} mine
 */
export function finish(name, done, mine) {
  if (mine) {
    if (done.status === 'solved') return `You solved it in ${raceTime(done.time_ms)}. Waiting for the others.`;
    if (done.status === 'eliminated') return 'You are out: too many mistakes. The race goes on.';
    if (done.status === 'forfeited') return 'You gave up. The race goes on.';
    return `You are ${done.status.replace('_', ' ')}. The race goes on.`;
  }
  if (done.status === 'solved') return `${name} solved in ${raceTime(done.time_ms)}.`;
  return `${name} ${FINISHED[done.status] ?? done.status.replace('_', ' ')}.`;
}

/**
 * The countdown's word at `ms` before the start: `Race starts in 3`, … `Go`.
 * @param {number} ms
 */
export function countdownWord(ms) {
  return ms > 0 ? `Race starts in ${Math.ceil(ms / 1000)}` : 'Go';
}

/**
 * What an announcer has said: the last countdown word ('' after a race starts, so the next
 * countdown speaks); the race whose start, refusals and finishes are being said, its last
 * refusal said and the finishes said; what a waiting player is doing, said once per screen.
 * @typedef {{count: string, raceId: string, flashAt: number, finished: Set<string>, standing: string}} Said
 */

/**
 * Before the race: the countdown's words, or Get ready in a pool room's lobby.
 * @param {Said} m
 * @param {State} s
 * @param {number} now
 * @param {string[]} out
 */
function before(m, s, now, out) {
  if (s.phase === 'countdown') {
    const word = countdownWord(s.countdown_at === null ? 0 : s.countdown_at - now);
    if (word !== m.count) out.push(word);
    m.count = word;
  } else if (s.phase === 'lobby' && m.standing !== 'lobby') {
    m.standing = 'lobby';
    out.push('Get ready: the race starts in a moment.');
  }
}

/**
 * A race seen for the first time: Go, and what a spectator is doing.
 * @param {Said} m
 * @param {State} s
 * @param {import('./state.js').Race} r
 * @param {string[]} out
 */
function started(m, s, r, out) {
  m.raceId = r.race_id;
  m.flashAt = r.flash?.at ?? -1;
  m.finished = new Set(r.done.keys());
  // Go, unless the countdown said it when it reached 0 (a page that came in after the
  // start heard no countdown: the race is not starting for it).
  if (m.count !== '' && m.count !== 'Go') out.push('Go');
  m.count = '';
  if (s.you?.role === 'spectator') {
    out.push(s.join_next ? 'You are watching: you join the next race.' : 'You are watching the race.');
  }
}

/**
 * During the race: a refused digit, and each finish not said yet.
 * @param {Said} m
 * @param {State} s
 * @param {import('./state.js').Race} r
 * @param {string[]} out
 */
function during(m, s, r, out) {
  if (r.flash && r.flash.at !== m.flashAt) {
    m.flashAt = r.flash.at;
    out.push(refusal(r.flash));
  }
  for (const [id, done] of r.done) {
    if (m.finished.has(id)) continue;
    m.finished.add(id);
    const name = s.players.find((p) => p.player_id === id)?.name ?? 'a player';
    out.push(finish(name, done, id === s.you?.player_id));
  }
}

/**
 * An announcer: `next(s, now)` is what has happened since it was last asked, in words, or null
 * when nothing has (then the live region is left alone).
 */
export function createAnnouncer() {
  /** @type {Said} */
  const m = { count: '', raceId: '', flashAt: -1, finished: new Set(), standing: '' };
  /**
   * @param {State} s
   * @param {number} now
   * @returns {string | null}
   */
  function next(s, now) {
    /** @type {string[]} */
    const out = [];
    const r = s.race;
    before(m, s, now, out);
    if (s.phase === 'racing' && r && r.race_id !== m.raceId) started(m, s, r, out);
    if (r && r.race_id === m.raceId) during(m, s, r, out);
    return out.length ? out.join(' ') : null;
  }
  return { next };
}
