// @ts-check
/**
 * The 9×9 board: 81 focusable cells (`data-cell` 0..80, row-major, the digit as their only
 * text, `data-given` on givens), pencil marks and clash marks drawn from attributes so a cell's
 * text stays its digit. Around the selected cell it marks its peers (`data-peer`: its row,
 * column and box, and the variant's other houses) and every cell holding its digit
 * (`data-same`). Its size is the CSS's `--board`. It draws a race; what a key or a tap means is
 * the caller's.
 *
 * The variant (A10) is drawn from the view's layout: the thick lines between regions (boxes, or
 * jigsaw regions: `data-edge`), the shaded diagonals and windows (`data-zone`), and killer cages
 * in a layer over the cells (`.cages`, hidden from assistive technology: each cell's label
 * says its cage's sum): dashed outlines inset in the cells, each cage's sum in its top-left cell.
 */

import { h, setAttr, setText } from './dom.js';
import { cageOutline, cellAt, colOf, edges, geometryFor, rowOf, SIDE, sumCell } from './geometry.js';
import { marks } from './state.js';

/** @typedef {import('./geometry.js').Geometry} Geometry */

/** How long a rejected digit's marks stay on the board. */
export const FLASH_MS = 1600;

/**
 * @typedef {{puzzle: string | null, board: string[], pencil: number[],
 *   flash: import('./state.js').Race['flash'], pending: Map<number, {cell: number, digit: number}>,
 *   layout?: import('./geometry.js').Layout | null}} BoardView
 * `layout`: the puzzle's variant and the seat's regions or cages (absent: classic).
 */

/**
 * @param {{onSelect: (cell: number) => void, label: string}} opts
 */
export function createBoard(opts) {
  /** @type {HTMLButtonElement[]} */
  const cells = [];
  const grid = h('div', { class: 'board', role: 'grid', 'aria-label': opts.label });
  for (let r = 0; r < SIDE; r++) {
    const row = h('div', { class: 'board-row', role: 'row' });
    for (let c = 0; c < SIDE; c++) {
      const i = cellAt(r, c);
      const cell = h('button', {
        type: 'button',
        class: 'cell',
        role: 'gridcell',
        'data-cell': i,
        'data-row': r,
        'data-col': c,
        tabindex: -1,
        onclick: () => opts.onSelect(i),
      });
      cells.push(cell);
      row.append(cell);
    }
    grid.append(row);
  }
  const layer = cageLayer();
  /** The geometry drawn now: classic until a view says otherwise. */
  let drawn = geometryFor(null);
  drawGeometry(grid, cells, layer, drawn);

  /**
   * @param {BoardView | null} view
   * @param {number} selected
   * @param {number} now
   * @param {string | null} solution shown in the empty cells once the race is over
   */
  function update(view, selected, now, solution) {
    const flash = view?.flash && now - view.flash.at < FLASH_MS ? view.flash : null;
    const pendingAt = new Map();
    for (const p of view?.pending.values() ?? []) pendingAt.set(p.cell, p.digit);
    const geo = geometryFor(view?.layout);
    if (geo !== drawn) {
      drawn = geo;
      drawGeometry(grid, cells, layer, geo);
    }
    /** @type {Drawing} */
    const d = {
      geo,
      view,
      selected,
      solution,
      flash,
      clashing: new Set(flash?.cells ?? []),
      pendingAt,
      lit: view && selected >= 0 ? highlights(view.board, selected, geo) : null,
    };
    for (let i = 0; i < 81; i++) drawCell(cells[i], i, d);
  }

  /** @param {number} cell */
  function focus(cell) {
    cells[cell]?.focus({ preventScroll: true });
  }

  return { el: grid, update, focus };
}

/**
 * The layer over the cells that draws killer cages: an SVG of their dashed outlines (the grid
 * as 900×900 units, a cell 100) and their sums, placed on a 9×9 CSS grid.
 */
function cageLayer() {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 900 900');
  svg.setAttribute('preserveAspectRatio', 'none');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  svg.append(path);
  const sums = h('div', { class: 'cage-sums' });
  const el = h('div', { class: 'cages', 'aria-hidden': 'true', 'data-testid': 'cages' }, svg, sums);
  return { el, path, sums };
}

/**
 * Draw a geometry's fixed parts: each cell's thick lines and shading, the cages' layer, and the
 * board's `data-variant`.
 * @param {HTMLElement} grid
 * @param {HTMLButtonElement[]} cells
 * @param {ReturnType<typeof cageLayer>} layer
 * @param {Geometry} geo
 */
function drawGeometry(grid, cells, layer, geo) {
  setAttr(grid, 'data-variant', geo.variant);
  cells.forEach((cell, i) => {
    const e = edges(geo, i);
    setAttr(cell, 'data-edge', [e.right && 'right', e.bottom && 'bottom'].filter(Boolean).join(' ') || null);
    setAttr(cell, 'data-zone', geo.zone[i] ? (geo.variant === 'x' ? 'diagonal' : 'window') : null);
    setAttr(cell, 'data-cage-sum', null);
  });
  if (!geo.cages.length) {
    layer.el.remove();
    return;
  }
  const segs = cageOutline(geo, 0.09).map((s) => s.map((x) => Math.round(x * 100)));
  layer.path.setAttribute('d', segs.map(([x1, y1, x2, y2]) => `M${x1} ${y1}H${x2}V${y2}`).join(''));
  layer.sums.replaceChildren(...geo.cages.map((cage) => {
    const at = sumCell(cage);
    setAttr(cells[at], 'data-cage-sum', String(cage.sum));
    const label = h('span', { class: 'cage-sum', 'data-testid': 'cage-sum', text: String(cage.sum) });
    // The stylesheet may come only from the server (CSP): placed through the CSSOM.
    label.style.gridArea = `${rowOf(at) + 1} / ${colOf(at) + 1}`;
    return label;
  }));
  grid.append(layer.el);
}

/**
 * What one redraw of the board knows: the race drawn, the selection, the solution, the flash
 * of a refused digit (and the cells it clashed with), the digits awaiting an answer by cell,
 * and what the selection lights up.
 * @typedef {{geo: Geometry, view: BoardView | null, selected: number, solution: string | null,
 *   flash: import('./state.js').Race['flash'], clashing: Set<number>, pendingAt: Map<number, number>,
 *   lit: {peers: Set<number>, same: Set<number>} | null}} Drawing
 */

/**
 * What cell `i` shows in one redraw.
 * @param {number} i
 * @param {Drawing} d
 */
function cellFacts(i, d) {
  const { view, flash } = d;
  const ch = view ? (view.board[i] ?? '.') : '.';
  const digit = ch === '.' ? '' : ch;
  const bits = !digit && view ? (view.pencil[i] ?? 0) : 0;
  const rejected = flash && flash.cell === i ? String(flash.digit) : null;
  return {
    digit,
    given: view?.puzzle ? view.puzzle[i] !== '.' : false,
    fromSolution: !digit && d.solution ? d.solution[i] : null,
    ds: marks(bits),
    clash: d.clashing.has(i),
    rejected,
    reason: rejected ? flash?.kind ?? null : null,
  };
}

/**
 * Draw cell `i` (its digit, marks and attributes) and its spoken label.
 * @param {HTMLButtonElement} cell
 * @param {number} i
 * @param {Drawing} d
 */
function drawCell(cell, i, d) {
  const f = cellFacts(i, d);
  setText(cell, f.digit);
  setAttr(cell, 'data-given', f.given ? 'true' : null);
  setAttr(cell, 'data-solution', f.fromSolution);
  setAttr(cell, 'data-marks', f.ds.length ? pencilText(f.ds) : null);
  setAttr(cell, 'data-clash', f.clash ? 'true' : null);
  setAttr(cell, 'data-rejected', f.rejected);
  setAttr(cell, 'data-reason', f.reason);
  setAttr(cell, 'data-pending', d.pendingAt.has(i) ? String(d.pendingAt.get(i)) : null);
  const sel = i === d.selected;
  setAttr(cell, 'aria-selected', sel ? 'true' : 'false');
  setAttr(cell, 'data-peer', d.lit?.peers.has(i) ? 'true' : null);
  setAttr(cell, 'data-same', d.lit?.same.has(i) ? 'true' : null);
  setAttr(cell, 'tabindex', sel ? '0' : '-1');
  setAttr(cell, 'aria-label', cellLabel(i, f) + shape(i, d.geo));
}

/**
 * What a cell's label adds for the variant: its cage's sum and size, its jigsaw region, or that
 * it is on a diagonal or in a window.
 * @param {number} i
 * @param {Geometry} geo
 */
function shape(i, geo) {
  const k = geo.cageOf[i];
  if (k >= 0) return `, cage of ${geo.cages[k].cells.length} adding to ${geo.cages[k].sum}`;
  if (geo.variant === 'jigsaw') return `, region ${geo.region[i] + 1}`;
  if (geo.zone[i]) return geo.variant === 'x' ? ', on a diagonal' : ', in a window';
  return '';
}

/**
 * A cell in words: where it is, its digit or `empty`, and what is marked on it.
 * @param {number} i
 * @param {ReturnType<typeof cellFacts>} f
 */
function cellLabel(i, f) {
  let label = `row ${rowOf(i) + 1} column ${colOf(i) + 1}, ${f.digit ? f.digit : 'empty'}`;
  if (f.given) label += ', given';
  if (f.fromSolution) label += `, solution ${f.fromSolution}`;
  if (f.ds.length) label += `, pencil ${f.ds.join(' ')}`;
  if (f.clash) label += ', clashes';
  if (f.rejected) label += `, ${f.rejected} ${f.reason === 'conflict' ? 'clashes' : 'is wrong'}`;
  return label;
}

/**
 * What the selected cell lights up: its peers (its row, column and box, and the variant's
 * other houses), and every cell (itself too) holding its digit, none when it is empty.
 * @param {string[]} board `.` for empty
 * @param {number} selected
 * @param {Geometry} [geo] classic when absent
 */
export function highlights(board, selected, geo = geometryFor(null)) {
  const digit = board[selected];
  /** @type {Set<number>} */
  const same = new Set();
  if (digit && digit !== '.') board.forEach((d, i) => d === digit && same.add(i));
  return { peers: new Set(geo.peers[selected]), same };
}

/**
 * The digits whose nine are all on the board.
 * @param {Iterable<string>} board a race's cells, or solo's board string
 * @returns {Set<number>}
 */
export function doneDigits(board) {
  const n = new Array(10).fill(0);
  for (const d of board) if (d >= '1' && d <= '9') n[Number(d)] += 1;
  return new Set(n.flatMap((k, d) => (k >= 9 ? [d] : [])));
}

/**
 * Pencil marks as a 3×3 block of text for the CSS to show (`content: attr(data-marks)`).
 * @param {number[]} ds
 */
function pencilText(ds) {
  const rows = [];
  for (let r = 0; r < 3; r++) {
    let line = '';
    for (let c = 1; c <= 3; c++) {
      const d = r * 3 + c;
      line += (ds.includes(d) ? String(d) : '\u2007') + (c < 3 ? ' ' : '');
    }
    rows.push(line);
  }
  return rows.join('\n');
}

/**
 * The cell the arrow keys move to.
 * @param {number} cell
 * @param {string} key
 * @returns {number | null}
 */
export function moved(cell, key) {
  const r = rowOf(cell);
  const c = colOf(cell);
  switch (key) {
    case 'ArrowUp':
      return cellAt((r + SIDE - 1) % SIDE, c);
    case 'ArrowDown':
      return cellAt((r + 1) % SIDE, c);
    case 'ArrowLeft':
      return cellAt(r, (c + SIDE - 1) % SIDE);
    case 'ArrowRight':
      return cellAt(r, (c + 1) % SIDE);
    default:
      return null;
  }
}
