// @ts-check
/**
 * The puzzle's geometry, the one description of it the client has: the 81 cells (0..80,
 * row-major on the 9×9 grid) and its houses, the groups of cells that must each hold every
 * digit once. A cell's peers (the cells it may not repeat a digit with) are derived from the
 * houses, so the board's highlight, the pencil clean-up and the clash marks follow whatever
 * houses a puzzle has. Only the classic houses (9 rows, 9 columns, 9 boxes) exist today; a
 * variant (diagonals, irregular regions, cages) is another houses list given to `geometry`.
 *
 * Where a cell is drawn (`rowOf`, `colOf`, `cellAt`: the grid's layout, for labels and arrow
 * keys) is not a rule and stays the same for every variant. No DOM, no state.
 */

/** The grid's side, and its cell count. */
export const SIDE = 9;
export const CELLS = SIDE * SIDE;

/**
 * A puzzle's geometry: its houses, and each cell's peers (sorted, itself excluded).
 * @typedef {{houses: number[][], peers: number[][]}} Geometry
 */

/** @param {number} cell */
export const rowOf = (cell) => Math.floor(cell / SIDE);
/** @param {number} cell */
export const colOf = (cell) => cell % SIDE;
/** @param {number} row @param {number} col */
export const cellAt = (row, col) => row * SIDE + col;

/** The classic houses: rows, then columns, then boxes (3×3, left to right, top to bottom). */
function classicHouses() {
  const nine = [...Array(SIDE).keys()];
  const rows = nine.map((r) => nine.map((c) => cellAt(r, c)));
  const cols = nine.map((c) => nine.map((r) => cellAt(r, c)));
  const boxes = nine.map((b) => nine.map((k) => cellAt(3 * Math.floor(b / 3) + Math.floor(k / 3), 3 * (b % 3) + (k % 3))));
  return [...rows, ...cols, ...boxes];
}

/**
 * The geometry of a houses list: a cell's peers are every other cell of every house it is in.
 * @param {number[][]} houses
 * @returns {Geometry}
 */
export function geometry(houses) {
  /** @type {Set<number>[]} */
  const sets = Array.from({ length: CELLS }, () => new Set());
  for (const house of houses) for (const a of house) for (const b of house) if (a !== b) sets[a].add(b);
  return { houses, peers: sets.map((s) => [...s].sort((a, b) => a - b)) };
}

/** @type {Record<string, Geometry>} */
const KNOWN = { classic: geometry(classicHouses()) };

/**
 * The geometry of a puzzle variant; only `classic` exists, and anything else is read as it.
 * @param {string} [variant]
 * @returns {Geometry}
 */
export function geometryOf(variant = 'classic') {
  return KNOWN[variant] ?? KNOWN.classic;
}

/**
 * The cells that share a house with `cell` (itself excluded), in the classic geometry.
 * @param {number} cell
 * @returns {Set<number>}
 */
export function peers(cell) {
  return new Set(KNOWN.classic.peers[cell]);
}
