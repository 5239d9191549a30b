// @ts-check
/**
 * The puzzle's geometry, the one description of it the client has: the 81 cells (0..80,
 * row-major on the 9×9 grid) and its houses, the groups of cells that may not repeat a digit.
 * A cell's peers (the cells it may not repeat a digit with) are derived from the houses, so the
 * board's highlight, the pencil clean-up and the clash marks follow whatever houses a puzzle has.
 *
 * The variants (A10) are houses lists built from a variant's name and the seat's layout:
 * `classic` (rows, columns, boxes), `x` (and both main diagonals), `windoku` (and four 3×3
 * windows), `jigsaw` (nine regions instead of the boxes, from `regions`) and `killer` (the boxes,
 * and each cage of `cages`, whose digits must also add up to its sum). Besides the houses a
 * geometry says what the board draws: each cell's region (its box, or its jigsaw region: the
 * thick lines), the shaded cells (diagonals, windows) and the cages.
 *
 * Where a cell is drawn (`rowOf`, `colOf`, `cellAt`: the grid's layout, for labels and arrow
 * keys) is not a rule and stays the same for every variant. No DOM, no state.
 */

/** The grid's side, and its cell count. */
export const SIDE = 9;
export const CELLS = SIDE * SIDE;

/** Every variant this client draws (A10), the name it sends in `variants`. */
export const VARIANTS = /** @type {const} */ (['classic', 'x', 'windoku', 'jigsaw', 'killer']);

/** A variant's name in words, for the lobby, the results and the pickers. */
export const VARIANT_NAMES = /** @type {Record<string, string>} */ ({
  classic: 'Classic',
  x: 'X (diagonals)',
  windoku: 'Windoku',
  jigsaw: 'Jigsaw',
  killer: 'Killer',
});

/** The top-left cells of windoku's four extra windows. */
const WINDOWS = [10, 14, 46, 50];

/**
 * A killer cage: its cells and the sum of their digits.
 * @typedef {{cells: number[], sum: number}} Cage
 */

/**
 * What the server says of a seat's puzzle besides its grid (A10): the variant (absent means
 * classic), and its layout where it has one.
 * @typedef {{variant?: string | null, regions?: string | null, cages?: Cage[] | null}} Layout
 */

/**
 * A puzzle's geometry: its variant, its houses (cages included), each cell's peers (sorted,
 * itself excluded), each cell's region (0..8: its box, or its jigsaw region), the shaded cells
 * (`zone`: a diagonal's or a window's), its cages, and each cell's cage (-1 for none).
 * @typedef {{variant: string, houses: number[][], peers: number[][], region: number[], zone: boolean[],
 *   cages: Cage[], cageOf: number[]}} Geometry
 */

/** @param {number} cell */
export const rowOf = (cell) => Math.floor(cell / SIDE);
/** @param {number} cell */
export const colOf = (cell) => cell % SIDE;
/** @param {number} row @param {number} col */
export const cellAt = (row, col) => row * SIDE + col;

const NINE = [...Array(SIDE).keys()];
/** Each cell's box (0..8, left to right, top to bottom). */
const BOXES = Array.from({ length: CELLS }, (_, i) => 3 * Math.floor(rowOf(i) / 3) + Math.floor(colOf(i) / 3));

/** The 3×3 block of cells whose top-left cell is `top`. @param {number} top */
const block = (top) => NINE.map((k) => top + cellAt(Math.floor(k / 3), k % 3));

/** The cells of each of the nine groups a per-cell group index names. @param {number[]} of */
const groups = (of) => NINE.map((g) => of.flatMap((x, i) => (x === g ? [i] : [])));

/** The rows, then the columns. */
const LINES = [...NINE.map((r) => NINE.map((c) => cellAt(r, c))), ...NINE.map((c) => NINE.map((r) => cellAt(r, c)))];
const DIAGONALS = [NINE.map((i) => cellAt(i, i)), NINE.map((i) => cellAt(i, SIDE - 1 - i))];

/**
 * The geometry of a houses list: a cell's peers are every other cell of every house it is in.
 * `extra` says what the board draws besides (classic boxes, no shading, no cages by default).
 * @param {number[][]} houses
 * @param {{variant?: string, region?: number[], zone?: number[][], cages?: Cage[]}} [extra]
 * @returns {Geometry}
 */
export function geometry(houses, extra = {}) {
  /** @type {Set<number>[]} */
  const sets = Array.from({ length: CELLS }, () => new Set());
  for (const house of houses) for (const a of house) for (const b of house) if (a !== b) sets[a].add(b);
  const cages = extra.cages ?? [];
  const cageOf = new Array(CELLS).fill(-1);
  cages.forEach((cage, k) => cage.cells.forEach((c) => (cageOf[c] = k)));
  const zone = new Array(CELLS).fill(false);
  for (const z of extra.zone ?? []) for (const c of z) zone[c] = true;
  return {
    variant: extra.variant ?? 'classic',
    houses,
    peers: sets.map((s) => [...s].sort((a, b) => a - b)),
    region: extra.region ?? BOXES,
    zone,
    cages,
    cageOf,
  };
}

/**
 * Each cell's jigsaw region from `regions`, or null when it is not nine regions of nine cells.
 * @param {string | null | undefined} regions
 */
function jigsawRegions(regions) {
  if (typeof regions !== 'string' || !/^[0-8]{81}$/.test(regions)) return null;
  const of = [...regions].map(Number);
  return groups(of).every((g) => g.length === SIDE) ? of : null;
}

/**
 * The well-formed cages of `cages`: whole-number sums, cells on the grid, no cell in two cages.
 * @param {Cage[] | null | undefined} cages
 * @returns {Cage[]}
 */
function validCages(cages) {
  if (!Array.isArray(cages)) return [];
  /** @type {Set<number>} */
  const seen = new Set();
  /** @type {Cage[]} */
  const out = [];
  for (const cage of cages) {
    const cells = cage && Array.isArray(cage.cells) ? cage.cells : [];
    const ok = cells.length > 0 && Number.isInteger(cage.sum) &&
      cells.every((c) => Number.isInteger(c) && c >= 0 && c < CELLS && !seen.has(c)) && new Set(cells).size === cells.length;
    if (!ok) continue;
    for (const c of cells) seen.add(c);
    out.push({ cells: [...cells], sum: cage.sum });
  }
  return out;
}

/**
 * Build a layout's geometry. A variant this client does not know, or a layout that does not
 * fit its variant, draws as much as it can: the rows, columns and boxes at least.
 * @param {Layout} layout
 * @returns {Geometry}
 */
function build(layout) {
  const variant = layout.variant ?? 'classic';
  const boxes = groups(BOXES);
  switch (variant) {
    case 'x':
      return geometry([...LINES, ...boxes, ...DIAGONALS], { variant, zone: DIAGONALS });
    case 'windoku': {
      const windows = WINDOWS.map(block);
      return geometry([...LINES, ...boxes, ...windows], { variant, zone: windows });
    }
    case 'jigsaw': {
      const region = jigsawRegions(layout.regions) ?? BOXES;
      return geometry([...LINES, ...groups(region)], { variant, region });
    }
    case 'killer': {
      const cages = validCages(layout.cages);
      return geometry([...LINES, ...boxes, ...cages.map((c) => c.cells)], { variant, cages });
    }
    default:
      return geometry([...LINES, ...boxes], { variant: 'classic' });
  }
}

/** The last geometries built, by layout: a race asks for its own on every redraw. */
const CACHE = new Map();
const CACHE_KEEP = 16;

/**
 * The geometry of a seat's puzzle: its variant with its layout (A10).
 * @param {Layout | null | undefined} layout
 * @returns {Geometry}
 */
export function geometryFor(layout) {
  const l = layout ?? {};
  const key = `${l.variant ?? 'classic'}|${l.regions ?? ''}|${l.cages ? JSON.stringify(l.cages) : ''}`;
  let g = CACHE.get(key);
  if (!g) {
    g = build(l);
    if (CACHE.size >= CACHE_KEEP) CACHE.delete(CACHE.keys().next().value);
    CACHE.set(key, g);
  }
  return g;
}

/**
 * The geometry of a variant without a layout (classic, x, windoku); anything unknown is classic.
 * @param {string} [variant]
 * @returns {Geometry}
 */
export function geometryOf(variant = 'classic') {
  return geometryFor({ variant: VARIANTS.includes(/** @type {any} */ (variant)) ? variant : 'classic' });
}

/**
 * The cells that share a house with `cell` (itself excluded), in the classic geometry.
 * @param {number} cell
 * @returns {Set<number>}
 */
export function peers(cell) {
  return new Set(geometryOf('classic').peers[cell]);
}

/**
 * The cells that clash on `board` (A10): a digit that another cell of one of its houses also
 * holds, and every filled cell of a cage whose digits add up to more than its sum, or that is
 * full and adds up to another sum.
 * @param {Geometry} geo
 * @param {string | string[]} board 81 cells, `.` for empty
 * @returns {Set<number>}
 */
export function clashes(geo, board) {
  /** @type {Set<number>} */
  const out = new Set();
  for (let i = 0; i < CELLS; i++) {
    const ch = board[i];
    if (ch === '.' || ch === undefined) continue;
    for (const p of geo.peers[i]) if (board[p] === ch) out.add(i);
  }
  for (const cage of geo.cages) {
    const filled = cage.cells.filter((c) => board[c] >= '1' && board[c] <= '9');
    const sum = filled.reduce((t, c) => t + Number(board[c]), 0);
    if (sum > cage.sum || (filled.length === cage.cells.length && sum !== cage.sum)) for (const c of filled) out.add(c);
  }
  return out;
}

/**
 * Where a cell's thick lines are: on its right and below it, where the next cell is in another
 * region (box or jigsaw region).
 * @param {Geometry} geo
 * @param {number} cell
 */
export function edges(geo, cell) {
  const r = geo.region[cell];
  return {
    right: colOf(cell) < SIDE - 1 && geo.region[cell + 1] !== r,
    bottom: rowOf(cell) < SIDE - 1 && geo.region[cell + SIDE] !== r,
  };
}

/**
 * The cell a cage's sum is written in: its top-left one (the first in reading order).
 * @param {Cage} cage
 */
export const sumCell = (cage) => Math.min(...cage.cells);

/**
 * The dashed outline of every cage, as line segments `[x1, y1, x2, y2]` in cell units (the
 * grid is 9×9, (0, 0) its top-left corner), `inset` inside the cage's cells: each side of a cell
 * that borders another cage is a segment, lengthened or shortened at its ends so that segments
 * meet at the cage's corners, outer and inner alike.
 * @param {Geometry} geo
 * @param {number} inset in cell units (0.1: a tenth of a cell)
 * @returns {[number, number, number, number][]}
 */
export function cageOutline(geo, inset) {
  /** @type {[number, number, number, number][]} */
  const out = [];
  const d = inset;
  for (let i = 0; i < CELLS; i++) {
    const k = geo.cageOf[i];
    if (k < 0) continue;
    const r = rowOf(i);
    const c = colOf(i);
    /** Whether the cell `dr` rows and `dc` columns away is in the same cage. */
    const same = (/** @type {number} */ dr, /** @type {number} */ dc) =>
      r + dr >= 0 && r + dr < SIDE && c + dc >= 0 && c + dc < SIDE && geo.cageOf[cellAt(r + dr, c + dc)] === k;
    /** Where a side ends: short of the corner, at it, or past it (an inner corner). */
    const end = (/** @type {boolean} */ along, /** @type {boolean} */ diagonal, /** @type {number} */ at, /** @type {number} */ sign) =>
      !along ? at - sign * d : diagonal ? at + sign * d : at;
    if (!same(-1, 0)) out.push([end(same(0, -1), same(-1, -1), c, -1), r + d, end(same(0, 1), same(-1, 1), c + 1, 1), r + d]);
    if (!same(1, 0)) out.push([end(same(0, -1), same(1, -1), c, -1), r + 1 - d, end(same(0, 1), same(1, 1), c + 1, 1), r + 1 - d]);
    if (!same(0, -1)) out.push([c + d, end(same(-1, 0), same(-1, -1), r, -1), c + d, end(same(1, 0), same(1, -1), r + 1, 1)]);
    if (!same(0, 1)) out.push([c + 1 - d, end(same(-1, 0), same(-1, 1), r, -1), c + 1 - d, end(same(1, 0), same(1, 1), r + 1, 1)]);
  }
  return out;
}
