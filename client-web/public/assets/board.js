// @ts-check
/**
 * The 9×9 board: 81 focusable cells (`data-cell` 0..80, row-major, the digit as their only
 * text, `data-given` on givens), pencil marks and clash marks drawn from attributes so a cell's
 * text stays its digit. Around the selected cell it marks its row, column and box (`data-peer`)
 * and every cell holding its digit (`data-same`). Its size is the CSS's `--board`. It draws a
 * race; what a key or a tap means is the caller's.
 */

import { h, setAttr, setText } from './dom.js';
import { cellAt, colOf, peers, rowOf, SIDE } from './geometry.js';
import { marks } from './state.js';

/** How long a rejected digit's marks stay on the board. */
export const FLASH_MS = 1600;

/**
 * @typedef {{puzzle: string | null, board: string[], pencil: number[],
 *   flash: import('./state.js').Race['flash'], pending: Map<number, {cell: number, digit: number}>}} BoardView
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

  /**
   * @param {BoardView | null} view
   * @param {number} selected
   * @param {number} now
   * @param {string | null} solution shown in the empty cells once the race is over
   */
  function update(view, selected, now, solution) {
    const flash = view?.flash && now - view.flash.at < FLASH_MS ? view.flash : null;
    const clashing = new Set(flash?.cells ?? []);
    const pendingAt = new Map();
    for (const p of view?.pending.values() ?? []) pendingAt.set(p.cell, p.digit);
    const lit = view && selected >= 0 ? highlights(view.board, selected) : null;
    for (let i = 0; i < 81; i++) {
      const cell = cells[i];
      const given = view?.puzzle ? view.puzzle[i] !== '.' : false;
      const ch = view ? (view.board[i] ?? '.') : '.';
      const digit = ch === '.' ? '' : ch;
      setText(cell, digit);
      setAttr(cell, 'data-given', given ? 'true' : null);
      const fromSolution = !digit && solution ? solution[i] : null;
      setAttr(cell, 'data-solution', fromSolution);
      const bits = !digit && view ? (view.pencil[i] ?? 0) : 0;
      const ds = marks(bits);
      setAttr(cell, 'data-marks', ds.length ? pencilText(ds) : null);
      setAttr(cell, 'data-clash', clashing.has(i) ? 'true' : null);
      const rejected = flash && flash.cell === i ? String(flash.digit) : null;
      setAttr(cell, 'data-rejected', rejected);
      setAttr(cell, 'data-reason', rejected ? flash?.kind ?? null : null);
      setAttr(cell, 'data-pending', pendingAt.has(i) ? String(pendingAt.get(i)) : null);
      const sel = i === selected;
      setAttr(cell, 'aria-selected', sel ? 'true' : 'false');
      setAttr(cell, 'data-peer', lit?.peers.has(i) ? 'true' : null);
      setAttr(cell, 'data-same', lit?.same.has(i) ? 'true' : null);
      setAttr(cell, 'tabindex', sel ? '0' : '-1');
      const r = rowOf(i) + 1;
      const c = colOf(i) + 1;
      let label = `row ${r} column ${c}, ${digit ? digit : 'empty'}`;
      if (given) label += ', given';
      if (fromSolution) label += `, solution ${fromSolution}`;
      if (ds.length) label += `, pencil ${ds.join(' ')}`;
      if (clashing.has(i)) label += ', clashes';
      if (rejected) label += `, ${rejected} ${flash?.kind === 'conflict' ? 'clashes' : 'is wrong'}`;
      setAttr(cell, 'aria-label', label);
    }
  }

  /** @param {number} cell */
  function focus(cell) {
    cells[cell]?.focus({ preventScroll: true });
  }

  return { el: grid, update, focus };
}

/**
 * What the selected cell lights up: the cells of its row, column and box, and every cell
 * (itself too) holding its digit, none when it is empty.
 * @param {string[]} board `.` for empty
 * @param {number} selected
 */
export function highlights(board, selected) {
  const digit = board[selected];
  /** @type {Set<number>} */
  const same = new Set();
  if (digit && digit !== '.') board.forEach((d, i) => d === digit && same.add(i));
  return { peers: peers(selected), same };
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
