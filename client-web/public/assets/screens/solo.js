// @ts-check
/**
 * `/#/solo`: practice alone on the bank's puzzles (assets/solo/bank.json), with no server. Pick
 * a difficulty (or the next puzzle), then play as in a race: the board, the digit pad and the
 * keys (digits, arrows, P for pencil, Backspace to erase, Ctrl+Z to undo, H for a hint), plus a
 * timer, undo, hints and the solved screen. The game lives in solo.js; this screen keeps it in
 * localStorage after every action and every second, so a reload keeps the puzzle, the board,
 * the marks, the undo list and the time. Loaded on demand with its stylesheet (solo.css) and the
 * bank; the service worker keeps all three for offline play.
 */

import { createBoard, moved } from '../board.js';
import { clock, h, setAttr, setText } from '../dom.js';
import { LEVELS, clashes, counts, elapsed, erase, hint, load, newGame, pause, place, resume, save, undo } from '../solo.js';

/** @typedef {import('../solo.js').Bank} Bank */
/** @typedef {import('../solo.js').Game} Game */
/** @typedef {import('../solo.js').Level} Level */

/** Where the game and the next puzzle per difficulty are kept. */
const GAME_KEY = 'sudoku-race:solo';
const NEXT_KEY = 'sudoku-race:solo-next';

/** Words for what a placement did. */
const SAID = {
  given: 'That cell is a given.',
  wrong: 'Counted as a mistake.',
  same: '',
  marked: '',
  placed: '',
  done: '',
};

/** Link the screen's stylesheet once (kept out of style.css, which every first visit loads). */
function styled() {
  if (document.getElementById('solo-style')) return;
  document.head.append(h('link', { id: 'solo-style', rel: 'stylesheet', href: '/assets/solo.css' }));
}

/** @template T @param {() => T} f @returns {T | null} */
function safe(f) {
  try {
    return f();
  } catch {
    return null;
  }
}

/**
 * The next puzzle index per difficulty, as kept.
 * @returns {Record<Level, number>}
 */
function nextIndex() {
  const o = safe(() => JSON.parse(localStorage.getItem(NEXT_KEY) ?? '{}')) ?? {};
  /** @type {Record<string, number>} */
  const out = {};
  for (const l of LEVELS) out[l] = Number.isInteger(o[l]) && o[l] >= 0 ? o[l] : 0;
  return /** @type {Record<Level, number>} */ (out);
}

/**
 * @param {Bank} bank
 * @returns {import('../state.js').Screen}
 */
export function solo(bank) {
  styled();
  document.title = 'sudoku-race · solo';
  /** @type {Game} */
  let game = load(safe(() => localStorage.getItem(GAME_KEY))) ?? start('easy');
  let selected = Math.max(0, game.board.indexOf('.'));
  let pencil = false;
  /** @type {import('../solo.js').Hint | null} */
  let shown = null;
  let said = '';

  /**
   * A new game at `level`: the next puzzle of that difficulty.
   * @param {Level} level
   */
  function start(level) {
    const next = nextIndex();
    const g = newGame(bank, level, next[level]);
    next[level] = (g.index + 1) % bank[level].length;
    safe(() => localStorage.setItem(NEXT_KEY, JSON.stringify(next)));
    return g;
  }

  function keep() {
    safe(() => localStorage.setItem(GAME_KEY, save(game, performance.now())));
  }

  /** @param {Level} level */
  function begin(level) {
    game = start(level);
    selected = Math.max(0, game.board.indexOf('.'));
    shown = null;
    said = `A new ${level} puzzle.`;
    resume(game, performance.now());
    keep();
    draw();
    board.focus(selected);
  }

  /** @param {number} digit */
  function put(digit) {
    const what = place(game, selected, digit, pencil, performance.now());
    if (what === 'same' || what === 'done') return;
    shown = null;
    said = SAID[what];
    if (game.solved_ms !== null) said = `Solved in ${clock(game.solved_ms)}.`;
    keep();
    draw();
  }

  function wipe() {
    if (!erase(game, selected)) return;
    shown = null;
    said = '';
    keep();
    draw();
  }

  function back() {
    const cell = undo(game);
    said = cell < 0 ? 'Nothing to undo.' : 'Undone.';
    if (cell >= 0) {
      selected = cell;
      shown = null;
      board.focus(cell);
    }
    keep();
    draw();
  }

  function help() {
    shown = hint(game, bank);
    if (shown) {
      said = shown.text;
      selected = shown.cell;
      board.focus(selected);
    }
    keep();
    draw();
  }

  /** @param {boolean} on */
  function setPencil(on) {
    pencil = on;
    draw();
  }

  const board = createBoard({
    label: 'solo board',
    onSelect: (cell) => {
      selected = cell;
      draw();
    },
  });
  const levelButtons = LEVELS.map((l) =>
    h('button', { type: 'button', class: 'small', 'data-level': l, 'aria-pressed': 'false', onclick: () => begin(l), text: l }));
  const nextButton = h('button', { type: 'button', class: 'small', 'data-testid': 'solo-next', onclick: () => begin(game.level), text: 'Next puzzle' });
  const time = h('span', { class: 'clock', 'data-testid': 'solo-clock', role: 'timer', 'aria-label': 'time' });
  const which = h('span', { class: 'muted', 'data-testid': 'solo-which' });
  const mistakes = h('span', { 'data-testid': 'solo-mistakes' });
  const status = h('p', { class: 'said', role: 'status', 'aria-live': 'polite', 'data-testid': 'solo-said' });
  const pad = h('div', { class: 'pad', role: 'group', 'aria-label': 'digits' });
  for (let d = 1; d <= 9; d++) pad.append(h('button', { type: 'button', 'data-digit': d, onclick: () => put(d), text: String(d) }));
  pad.append(h('button', { type: 'button', 'data-testid': 'solo-erase', 'aria-label': 'erase', onclick: wipe, text: '⌫' }));
  const mode = h('button', { type: 'button', 'data-testid': 'solo-pencil', 'aria-pressed': 'false', onclick: () => setPencil(!pencil) });
  const undoButton = h('button', { type: 'button', 'data-testid': 'solo-undo', 'aria-keyshortcuts': 'Control+Z', onclick: back, text: '↶ Undo' });
  const hintButton = h('button', { type: 'button', 'data-testid': 'solo-hint', 'aria-keyshortcuts': 'H', onclick: help, text: '? Hint' });
  const solvedTime = h('p', { class: 'solved-time', 'data-testid': 'solo-solved-time' });
  const solved = h('div', { class: 'card solo-solved', 'data-testid': 'solo-solved', hidden: true },
    h('h2', { text: 'Solved!' }), solvedTime,
    h('button', { type: 'button', class: 'primary', onclick: () => begin(game.level), text: 'Next puzzle' }));

  const el = h(
    'section',
    { class: 'screen solo' },
    h('div', { class: 'solo-head' },
      h('h1', {}, 'Solo ', h('span', { text: 'practice' })),
      h('a', { href: '/', class: 'solo-home', text: '← Races' })),
    h('div', { class: 'solo-grid' },
      h('div', { class: 'play' },
        h('div', { class: 'race-bar' }, time, which, mistakes),
        h('div', { class: 'board-wrap' }, board.el),
        status),
      h('div', { class: 'solo-side' },
        h('div', { class: 'row solo-levels', role: 'group', 'aria-label': 'difficulty' }, ...levelButtons, nextButton),
        h('div', { class: 'controls' }, pad, h('div', { class: 'row' }, mode, undoButton, hintButton)),
        solved,
        h('p', { class: 'muted keys', text: 'Keys: 1–9 place, arrows move, P pencil, Backspace erase, Ctrl+Z undo, H hint. Works offline once loaded.' }))),
  );

  function draw() {
    const now = performance.now();
    const clash = clashes(game.board);
    board.update(
      {
        puzzle: game.puzzle,
        board: [...game.board],
        pencil: game.pencil,
        flash: clash.size ? { cells: [...clash], at: now, kind: 'conflict', cell: -1, digit: 0 } : null,
        pending: new Map(),
      },
      game.solved_ms === null ? selected : -1,
      now,
      null,
    );
    const hinted = new Set(shown?.cells ?? []);
    for (const cell of board.el.querySelectorAll('[data-cell]')) {
      const i = Number(cell.getAttribute('data-cell'));
      setAttr(cell, 'data-hint', hinted.has(i) ? (i === shown?.cell ? shown.kind : 'pattern') : null);
    }
    const n = counts(game.board);
    for (const b of pad.querySelectorAll('[data-digit]')) {
      const d = Number(b.getAttribute('data-digit'));
      setAttr(b, 'data-complete', n[d] >= 9 ? 'true' : null);
    }
    for (const b of levelButtons) setAttr(b, 'aria-pressed', b.getAttribute('data-level') === game.level ? 'true' : 'false');
    setText(which, `${game.level} #${game.index + 1}`);
    setText(mistakes, `✗ ${game.mistakes} · hints ${game.hints}`);
    setText(mode, pencil ? '✎ Pencil: on' : '✎ Pencil: off');
    setAttr(mode, 'aria-pressed', pencil ? 'true' : 'false');
    setAttr(el, 'data-solved', game.solved_ms !== null ? 'true' : null);
    setAttr(solved, 'hidden', game.solved_ms !== null ? null : '');
    if (game.solved_ms !== null) {
      setText(solvedTime, `${game.level} #${game.index + 1} in ${clock(game.solved_ms)} · ${game.mistakes} mistakes · ${game.hints} hints`);
    }
    for (const b of [...pad.querySelectorAll('button'), mode, undoButton, hintButton]) setAttr(b, 'disabled', game.solved_ms !== null ? '' : null);
    setText(status, said);
    tick();
  }

  function tick() {
    setText(time, clock(elapsed(game, performance.now())));
  }

  // The timer runs while the screen is shown and the page visible; it is kept every second.
  let lastKept = 0;
  const timer = setInterval(() => {
    if (!el.isConnected) {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisibility);
      pause(game, performance.now());
      keep();
      return;
    }
    tick();
    const now = performance.now();
    if (now - lastKept >= 1000 && game.solved_ms === null) {
      lastKept = now;
      keep();
    }
  }, 250);
  function onVisibility() {
    const now = performance.now();
    if (document.hidden) pause(game, now);
    else resume(game, now);
    keep();
  }
  document.addEventListener('visibilitychange', onVisibility);
  resume(game, performance.now());
  keep();
  draw();

  return {
    el,
    focus: () => board.focus(selected),
    update: () => tick(),
    onKey(ev) {
      if ((ev.ctrlKey || ev.metaKey) && (ev.key === 'z' || ev.key === 'Z')) {
        ev.preventDefault();
        back();
        return;
      }
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      const next = moved(selected, ev.key);
      if (next !== null) {
        ev.preventDefault();
        selected = next;
        draw();
        board.focus(next);
      } else if (/^[1-9]$/.test(ev.key)) {
        ev.preventDefault();
        put(Number(ev.key));
      } else if (ev.key === 'Backspace' || ev.key === 'Delete' || ev.key === '0') {
        ev.preventDefault();
        wipe();
      } else if (ev.key === 'p' || ev.key === 'P') {
        ev.preventDefault();
        setPencil(!pencil);
      } else if (ev.key === 'h' || ev.key === 'H') {
        ev.preventDefault();
        help();
      }
    },
  };
}
