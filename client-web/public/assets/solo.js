// @ts-check
/**
 * Solo practice's state: one puzzle from the bank (assets/solo/bank.json, made by `sudoku-race
 * bank`; its variant puzzles, A10, by tools/variant-bank.mjs), played alone with no server. No DOM, no storage, no clock here: screens/solo.js reads
 * and changes a `Game` through these functions and keeps it in localStorage; tests/unit/ drives
 * them in Node.
 *
 * Rules: a wrong digit (not the solution's) is allowed and counted in `mistakes`; a digit that
 * clashes (a peer holds it, or a killer cage goes past its sum) is marked by the screen
 * (`clashes`); a hint points out a wrong digit first, else gives the bank's next step (a variant
 * puzzle has none: the first empty cell's digit). Every change of a digit or a pencil mark can be undone; a
 * placed digit also clears that digit from its peers' pencil marks (and undo puts them back).
 */

import { clashes as clashing, colOf, geometryFor, rowOf } from './geometry.js';

/**
 * The bank as `sudoku-race bank` prints it (see client-cli/src/bank.rs).
 * @typedef {{p: string, s: string, level: string, score: number, h: string,
 *   via: [number, number, string, string][]}} Entry
 * @typedef {{version: number, techniques: string[], easy: Entry[], medium: Entry[],
 *   hard: Entry[], expert: Entry[], variants?: Record<string, Partial<Record<Level, VariantEntry[]>>>}} Bank
 * @typedef {'easy' | 'medium' | 'hard' | 'expert'} Level
 * A variant puzzle (A10): its grid, solution and layout, without hint steps.
 * @typedef {{p: string, s: string, regions?: string, cages?: import('./geometry.js').Cage[]}} VariantEntry
 */

/** The variants solo practice offers, classic first. */
export const SOLO_VARIANTS = /** @type {const} */ (['classic', 'x', 'windoku', 'jigsaw', 'killer']);

/**
 * One cell's state before a change: its index, digit (`.` for none) and pencil bits.
 * @typedef {[number, string, number]} Was
 */

/**
 * A puzzle in play. `board` is 81 characters; `pencil[i]` has bit `d` for pencil mark `d`;
 * `undo` holds, per action, the cells it changed as they were; `elapsed_ms` is the time played
 * up to `since` (the local clock at which the timer last started; `null` while stopped);
 * `solved_ms` is set once the board equals the solution; `layout` is the puzzle's variant and its
 * regions or cages (A10).
 * @typedef {{level: Level, index: number, layout: import('./geometry.js').Layout, puzzle: string, solution: string, board: string,
 *   pencil: number[], undo: Was[][], mistakes: number, hints: number, elapsed_ms: number,
 *   since: number | null, solved_ms: number | null}} Game
 */

/**
 * What a hint says: a wrong digit to erase, or the next step (its cell, digit, technique and
 * the cells to highlight; `via` is the harder technique the step needs first, if any).
 * @typedef {{kind: 'wrong', cell: number, text: string, cells: number[]} |
 *   {kind: 'step', cell: number, digit: number, technique: string, via: string | null,
 *   text: string, cells: number[]}} Hint
 */

/** The difficulties, easiest first. */
export const LEVELS = /** @type {const} */ (['easy', 'medium', 'hard', 'expert']);

/** How many actions undo keeps. */
export const UNDO_LIMIT = 400;

/**
 * The bank's puzzles of a variant at a level (classic's have hint steps).
 * @param {Bank} bank
 * @param {Level} level
 * @param {string} variant
 * @returns {(Entry | VariantEntry)[]}
 */
export function puzzles(bank, level, variant = 'classic') {
  return variant === 'classic' ? bank[level] : (bank.variants?.[variant]?.[level] ?? []);
}

/**
 * A fresh game of the bank's puzzle `index` at `level` (wrapping around the list) of a variant
 * (classic when absent, or when the bank has none of that variant at that level).
 * @param {Bank} bank
 * @param {Level} level
 * @param {number} index
 * @param {string} [variant]
 * @returns {Game}
 */
export function newGame(bank, level, index, variant = 'classic') {
  const own = puzzles(bank, level, variant);
  const list = own.length ? own : bank[level];
  const i = ((index % list.length) + list.length) % list.length;
  const e = /** @type {VariantEntry} */ (list[i]);
  return {
    level,
    index: i,
    layout: own.length && variant !== 'classic' ? { variant, regions: e.regions ?? null, cages: e.cages ?? null } : { variant: 'classic' },
    puzzle: e.p,
    solution: e.s,
    board: e.p,
    pencil: new Array(81).fill(0),
    undo: [],
    mistakes: 0,
    hints: 0,
    elapsed_ms: 0,
    since: null,
    solved_ms: null,
  };
}


/**
 * @param {string} s
 * @param {number} i
 * @param {string} ch
 */
function setChar(s, i, ch) {
  return s.slice(0, i) + ch + s.slice(i + 1);
}

/**
 * Record an action's cells as they are now, then let `f` change them.
 * @param {Game} g
 * @param {number[]} cells
 */
function remember(g, cells) {
  g.undo.push(cells.map((i) => /** @type {Was} */ ([i, g.board[i], g.pencil[i]])));
  if (g.undo.length > UNDO_LIMIT) g.undo.shift();
}

/** @param {Game} g */
export function isSolved(g) {
  return g.board === g.solution;
}

/**
 * The time played at `now`.
 * @param {Game} g
 * @param {number} now
 */
export function elapsed(g, now) {
  if (g.solved_ms !== null) return g.solved_ms;
  return g.elapsed_ms + (g.since === null ? 0 : Math.max(0, now - g.since));
}

/**
 * Start the timer (the screen opened, or came back into view).
 * @param {Game} g
 * @param {number} now
 */
export function resume(g, now) {
  if (g.since === null && g.solved_ms === null) g.since = now;
}

/**
 * Stop the timer, keeping the time played.
 * @param {Game} g
 * @param {number} now
 */
export function pause(g, now) {
  g.elapsed_ms = elapsed(g, now);
  g.since = null;
}

/**
 * @param {Game} g
 * @param {number} now
 */
function checkSolved(g, now) {
  if (isSolved(g) && g.solved_ms === null) g.solved_ms = elapsed(g, now);
}

/**
 * Put `digit` in `cell`, or toggle it as a pencil mark when `pencil`. Returns what happened:
 * `given` (a given cannot change), `same` (nothing to do), `marked`, `placed` (right digit),
 * `wrong` (placed, not the solution's: counted).
 * @param {Game} g
 * @param {number} cell
 * @param {number} digit 1..9
 * @param {boolean} pencil
 * @param {number} now
 * @returns {'given' | 'same' | 'marked' | 'placed' | 'wrong' | 'done'}
 */
export function place(g, cell, digit, pencil, now) {
  if (g.solved_ms !== null) return 'done';
  if (!(cell >= 0 && cell < 81 && digit >= 1 && digit <= 9)) return 'same';
  if (g.puzzle[cell] !== '.') return 'given';
  const ch = String(digit);
  if (pencil) {
    if (g.board[cell] !== '.') return 'same';
    remember(g, [cell]);
    g.pencil[cell] ^= 1 << digit;
    return 'marked';
  }
  if (g.board[cell] === ch) return 'same';
  const bit = 1 << digit;
  const cleared = geometryFor(g.layout).peers[cell].filter((p) => g.pencil[p] & bit);
  remember(g, [cell, ...cleared]);
  g.board = setChar(g.board, cell, ch);
  g.pencil[cell] = 0;
  for (const p of cleared) g.pencil[p] &= ~bit;
  const right = g.solution[cell] === ch;
  if (!right) g.mistakes += 1;
  checkSolved(g, now);
  return right ? 'placed' : 'wrong';
}

/**
 * Clear a cell: its digit, else its pencil marks. Whether anything changed.
 * @param {Game} g
 * @param {number} cell
 */
export function erase(g, cell) {
  if (g.solved_ms !== null || !(cell >= 0 && cell < 81) || g.puzzle[cell] !== '.') return false;
  if (g.board[cell] === '.' && g.pencil[cell] === 0) return false;
  remember(g, [cell]);
  if (g.board[cell] !== '.') g.board = setChar(g.board, cell, '.');
  else g.pencil[cell] = 0;
  return true;
}

/**
 * Take the last action back. Returns the cell it was about, or -1 when there was none.
 * @param {Game} g
 */
export function undo(g) {
  if (g.solved_ms !== null) return -1;
  const was = g.undo.pop();
  if (!was) return -1;
  for (const [i, ch, bits] of was) {
    if (g.puzzle[i] !== '.') continue;
    g.board = setChar(g.board, i, ch);
    g.pencil[i] = bits;
  }
  return was[0][0];
}

/**
 * The cells that clash on the game's board (geometry.js `clashes`: a digit a peer also holds, a
 * killer cage past its sum or full to another).
 * @param {Game} g
 * @returns {Set<number>}
 */
export function clashes(g) {
  return clashing(geometryFor(g.layout), g.board);
}

/** @param {number} cell */
export function cellName(cell) {
  return `r${rowOf(cell) + 1}c${colOf(cell) + 1}`;
}

/**
 * Two-digit cell indices (`"0712"`) as numbers.
 * @param {string} s
 */
function cellList(s) {
  /** @type {number[]} */
  const out = [];
  for (let k = 0; k + 1 < s.length; k += 2) out.push(Number(s.slice(k, k + 2)));
  return out;
}

/** @param {string} name */
function article(name) {
  return /^[aeiox]/.test(name) ? `an ${name}` : `a ${name}`;
}

/**
 * The next hint for the board, or null when it is solved: a wrong digit first, else the bank's
 * first step whose cell is still empty. Counts the hint.
 * @param {Game} g
 * @param {Bank} bank
 * @returns {Hint | null}
 */
export function hint(g, bank) {
  if (isSolved(g)) return null;
  g.hints += 1;
  for (let i = 0; i < 81; i++) {
    if (g.board[i] !== '.' && g.board[i] !== g.solution[i]) {
      return { kind: 'wrong', cell: i, cells: [i], text: `The ${g.board[i]} at ${cellName(i)} is not right: erase it first.` };
    }
  }
  const e = bank[g.level]?.[g.index];
  const names = bank.techniques;
  if (!e || e.p !== g.puzzle || (g.layout.variant ?? 'classic') !== 'classic') return firstEmpty(g);
  for (let k = 0; k + 3 < e.h.length; k += 4) {
    const cell = Number(e.h.slice(k, k + 2));
    if (g.board[cell] !== '.') continue;
    const digit = Number(e.h[k + 2]);
    const technique = names[e.h.charCodeAt(k + 3) - 97] ?? 'step';
    const v = e.via.find((x) => x[0] === k / 4);
    const where = `${cellName(cell)} is ${digit}`;
    if (!v) {
      return { kind: 'step', cell, digit, technique, via: null, cells: [cell], text: `${cap(article(technique))}: ${where}.` };
    }
    const via = names[v[1]] ?? 'a pattern';
    const pattern = cellList(v[2]);
    const on = v[3] ? ` on ${v[3].split('').join(', ')}` : '';
    const text = `${cap(via)}${on} (${pattern.map(cellName).join(' ')}), then ${article(technique)}: ${where}.`;
    return { kind: 'step', cell, digit, technique, via, cells: [...pattern.filter((c) => c !== cell), cell], text };
  }
  return firstEmpty(g);
}

/**
 * A hint without the bank's steps (a game kept from an older bank): the first empty cell's digit.
 * @param {Game} g
 * @returns {Hint | null}
 */
function firstEmpty(g) {
  const cell = g.board.indexOf('.');
  if (cell < 0) return null;
  const digit = Number(g.solution[cell]);
  return { kind: 'step', cell, digit, technique: 'solution', via: null, cells: [cell], text: `${cellName(cell)} is ${digit}.` };
}

/** @param {string} s */
function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * The game as kept in storage (the timer stopped at `now`).
 * @param {Game} g
 * @param {number} now
 */
export function save(g, now) {
  return JSON.stringify({ ...g, elapsed_ms: elapsed(g, now), since: null, v: 1 });
}

/**
 * Whether a parsed kept game has every field of a `Game` of this version, well formed, and a
 * board that keeps its puzzle's givens.
 * @param {any} o
 */
function validGame(o) {
  const grid = /^[1-9.]{81}$/;
  const ok =
    o && o.v === 1 && LEVELS.includes(o.level) && Number.isInteger(o.index) && o.index >= 0 &&
    typeof o.puzzle === 'string' && grid.test(o.puzzle) && typeof o.board === 'string' && grid.test(o.board) &&
    typeof o.solution === 'string' && /^[1-9]{81}$/.test(o.solution);
  if (!ok || !validProgress(o)) return false;
  for (let i = 0; i < 81; i++) if (o.puzzle[i] !== '.' && o.board[i] !== o.puzzle[i]) return false;
  return true;
}

/**
 * Whether a parsed kept game's marks, undo list, counts and times are well formed.
 * @param {any} o
 */
function validProgress(o) {
  return Array.isArray(o.pencil) && o.pencil.length === 81 && o.pencil.every((/** @type {unknown} */ b) => Number.isInteger(b)) &&
    Array.isArray(o.undo) && Number.isFinite(o.elapsed_ms) && Number.isInteger(o.mistakes) && Number.isInteger(o.hints) &&
    (o.solved_ms === null || Number.isFinite(o.solved_ms));
}

/**
 * A kept game back, checked field by field (storage is input like any other): null when it is
 * missing, from another version or damaged.
 * @param {string | null} text
 * @returns {Game | null}
 */
export function load(text) {
  if (!text) return null;
  /** @type {any} */
  let o;
  try {
    o = JSON.parse(text);
  } catch {
    return null;
  }
  if (!validGame(o)) return null;
  const undoOk = o.undo.every((/** @type {unknown} */ a) => Array.isArray(a) && a.every((w) =>
    Array.isArray(w) && Number.isInteger(w[0]) && w[0] >= 0 && w[0] < 81 && /^[1-9.]$/.test(w[1]) && Number.isInteger(w[2])));
  return {
    level: o.level,
    index: o.index,
    layout: keptLayout(o.layout),
    puzzle: o.puzzle,
    solution: o.solution,
    board: o.board,
    pencil: o.pencil,
    undo: undoOk ? o.undo : [],
    mistakes: o.mistakes,
    hints: o.hints,
    elapsed_ms: Math.max(0, o.elapsed_ms),
    since: null,
    solved_ms: o.solved_ms,
  };
}

/**
 * A kept game's variant and layout: classic when it has none (a game kept before variants) or
 * one that is not well formed; geometry.js draws what it can of a layout that does not fit.
 * @param {any} l
 * @returns {import('./geometry.js').Layout}
 */
function keptLayout(l) {
  if (!l || typeof l !== 'object' || !SOLO_VARIANTS.includes(l.variant)) return { variant: 'classic' };
  const regions = typeof l.regions === 'string' ? l.regions : null;
  const cages = Array.isArray(l.cages) ? l.cages : null;
  return { variant: l.variant, regions, cages };
}
