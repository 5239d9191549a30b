// @ts-check
/**
 * `/#/solo`: practice alone on the bank's puzzles (assets/solo/bank.json), with no server. Pick
 * a variant (A10) and a difficulty (or the next puzzle), then play as in a race: the board, the digit pad and the
 * keys (digits, arrows, P for pencil, Backspace to erase, Ctrl+Z to undo, H for a hint), plus a
 * timer, undo, hints and the solved screen. The game lives in solo.js; this screen keeps it in
 * localStorage after every action and every second, so a reload keeps the puzzle, the board,
 * the marks, the undo list and the time. Loaded on demand with its stylesheet (solo.css) and the
 * bank; the service worker keeps all three for offline play.
 */

import { createBoard, doneDigits, moved } from '../board.js';
import { clock, h, setAttr, setText } from '../dom.js';
import { LEVELS, clashes, elapsed, erase, hint, load, newGame, pause, place, resume, save, undo } from '../solo.js';
import { variantSelect } from '../settings.js';

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

/** @typedef {import('../view.js').Env['storage']} Storage */

/**
 * The next puzzle index per difficulty (`easy`, …) and per variant's difficulty (`killer:easy`,
 * …), as kept.
 * @param {Storage} storage
 * @returns {Record<string, number>}
 */
function nextIndex(storage) {
  const o = safe(() => JSON.parse(storage.local.getItem(NEXT_KEY) ?? '{}')) ?? {};
  /** @type {Record<string, number>} */
  const out = {};
  for (const [k, v] of Object.entries(o)) if (Number.isInteger(v) && v >= 0) out[k] = v;
  return out;
}

/**
 * A new game at `level` of `variant`: its next puzzle of that difficulty (the next index is kept).
 * @param {Bank} bank
 * @param {Level} level
 * @param {Storage} storage
 * @param {string} [variant]
 */
function start(bank, level, storage, variant = 'classic') {
  const next = nextIndex(storage);
  const key = variant === 'classic' ? level : `${variant}:${level}`;
  const g = newGame(bank, level, next[key] ?? 0, variant);
  next[key] = g.index + 1;
  safe(() => storage.local.setItem(NEXT_KEY, JSON.stringify(next)));
  return g;
}

/**
 * What a key asks for, or null.
 * @param {KeyboardEvent} ev
 * @param {number} selected
 * @returns {{do: 'undo' | 'erase' | 'pencil' | 'hint'} | {do: 'move', to: number} | {do: 'digit', digit: number} | null}
 */
function keyAction(ev, selected) {
  if ((ev.ctrlKey || ev.metaKey) && (ev.key === 'z' || ev.key === 'Z')) return { do: 'undo' };
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return null;
  const next = moved(selected, ev.key);
  if (next !== null) return { do: 'move', to: next };
  if (/^[1-9]$/.test(ev.key)) return { do: 'digit', digit: Number(ev.key) };
  if (ev.key === 'Backspace' || ev.key === 'Delete' || ev.key === '0') return { do: 'erase' };
  if (ev.key === 'p' || ev.key === 'P') return { do: 'pencil' };
  if (ev.key === 'h' || ev.key === 'H') return { do: 'hint' };
  return null;
}

/**
 * The screen's elements; `on` is what its buttons do.
 * @param {{select: (cell: number) => void, level: (l: Level) => void, variant: (v: string) => void, next: () => void, digit: (d: number) => void,
 *   erase: () => void, pencil: () => void, undo: () => void, hint: () => void}} on
 */
function layout(on) {
  const board = createBoard({ label: 'solo board', onSelect: on.select });
  const levels = LEVELS.map((l) =>
    h('button', { type: 'button', class: 'small', 'data-level': l, 'aria-pressed': 'false', onclick: () => on.level(l), text: l }));
  const variant = variantSelect({ name: 'solo_variant', testid: 'solo-variant' });
  variant.setAttribute('aria-label', 'variant');
  variant.addEventListener('change', () => on.variant(variant.value));
  const ui = {
    board,
    levels,
    variant,
    time: h('span', { class: 'clock', 'data-testid': 'solo-clock', role: 'timer', 'aria-label': 'time' }),
    which: h('span', { class: 'muted', 'data-testid': 'solo-which' }),
    mistakes: h('span', { 'data-testid': 'solo-mistakes' }),
    status: h('p', { class: 'said', role: 'status', 'aria-live': 'polite', 'data-testid': 'solo-said' }),
    pad: h('div', { class: 'pad', role: 'group', 'aria-label': 'digits' }),
    mode: h('button', { type: 'button', 'data-testid': 'solo-pencil', 'aria-pressed': 'false', onclick: on.pencil }),
    undo: h('button', { type: 'button', 'data-testid': 'solo-undo', 'aria-keyshortcuts': 'Control+Z', onclick: on.undo, text: '↶ Undo' }),
    hint: h('button', { type: 'button', 'data-testid': 'solo-hint', 'aria-keyshortcuts': 'H', onclick: on.hint, text: '? Hint' }),
    solvedTime: h('p', { class: 'solved-time', 'data-testid': 'solo-solved-time' }),
    solved: h('div', { class: 'card solo-solved', 'data-testid': 'solo-solved', hidden: true }),
    el: h('section', { class: 'screen solo' }),
  };
  for (let d = 1; d <= 9; d++) ui.pad.append(h('button', { type: 'button', 'data-digit': d, onclick: () => on.digit(d), text: String(d) }));
  ui.pad.append(h('button', { type: 'button', 'data-testid': 'solo-erase', 'aria-label': 'erase', onclick: on.erase, text: '⌫' }));
  ui.solved.append(h('h2', { text: 'Solved!' }), ui.solvedTime,
    h('button', { type: 'button', class: 'primary', onclick: on.next, text: 'Next puzzle' }));
  ui.el.append(
    h('div', { class: 'solo-head' },
      h('h1', {}, 'Solo ', h('span', { text: 'practice' })),
      h('a', { href: '/', class: 'solo-home', text: '← Races' })),
    h('div', { class: 'solo-grid' },
      h('div', { class: 'play' },
        h('div', { class: 'race-bar' }, ui.time, ui.which, ui.mistakes),
        h('div', { class: 'board-wrap' }, board.el),
        ui.status),
      h('div', { class: 'solo-side' },
        h('div', { class: 'row solo-levels', role: 'group', 'aria-label': 'difficulty' }, variant, ...levels,
          h('button', { type: 'button', class: 'small', 'data-testid': 'solo-next', onclick: on.next, text: 'Next puzzle' })),
        h('div', { class: 'controls' }, ui.pad, h('div', { class: 'row' }, ui.mode, ui.undo, ui.hint)),
        ui.solved,
        h('p', { class: 'muted keys', text: 'Keys: 1–9 place, arrows move, P pencil, Backspace erase, Ctrl+Z undo, H hint. Once opened here, it works offline.' }))),
  );
  return ui;
}

/**
 * The hint's cells on the board: its own (`step` or `wrong`) and the pattern's.
 * @param {HTMLElement} board
 * @param {import('../solo.js').Hint | null} shown
 */
function markHint(board, shown) {
  const hinted = new Set(shown?.cells ?? []);
  for (const cell of board.querySelectorAll('[data-cell]')) {
    const i = Number(cell.getAttribute('data-cell'));
    setAttr(cell, 'data-hint', hinted.has(i) ? (i === shown?.cell ? shown.kind : 'pattern') : null);
  }
}

/**
 * What the screen shows: the game, the selected cell, the pencil switch, the hint shown and
 * what was said last.
 * @typedef {{game: Game, selected: number, pencil: boolean, shown: import('../solo.js').Hint | null, said: string}} View
 */

/**
 * Draw the game on the screen's elements.
 * @param {ReturnType<typeof layout>} ui
 * @param {View} v
 * @param {number} now
 */
function render(ui, { game, selected, pencil, shown, said }, now) {
  const clash = clashes(game);
  const done = game.solved_ms !== null;
  ui.board.update(
    { puzzle: game.puzzle, board: [...game.board], pencil: game.pencil, pending: new Map(), layout: game.layout,
      flash: clash.size ? { cells: [...clash], at: now, kind: 'conflict', cell: -1, digit: 0 } : null },
    done ? -1 : selected,
    now,
    null,
  );
  markHint(ui.board.el, shown);
  const done9 = doneDigits(game.board);
  for (const b of ui.pad.querySelectorAll('[data-digit]')) setAttr(b, 'data-done', done9.has(Number(b.getAttribute('data-digit'))) ? 'true' : null);
  for (const b of ui.levels) setAttr(b, 'aria-pressed', b.getAttribute('data-level') === game.level ? 'true' : 'false');
  const v = game.layout.variant ?? 'classic';
  if (ui.variant.value !== v) ui.variant.value = v;
  setText(ui.which, `${v === 'classic' ? '' : `${ui.variant.selectedOptions[0]?.text ?? v} · `}${game.level} #${game.index + 1}`);
  setText(ui.mistakes, `✗ ${game.mistakes} · hints ${game.hints}`);
  setText(ui.mode, pencil ? '✎ Pencil: on' : '✎ Pencil: off');
  setAttr(ui.mode, 'aria-pressed', pencil ? 'true' : 'false');
  setAttr(ui.el, 'data-solved', done ? 'true' : null);
  setAttr(ui.solved, 'hidden', done ? null : '');
  if (done) setText(ui.solvedTime, `${game.level} #${game.index + 1} in ${clock(game.solved_ms ?? 0)} · ${game.mistakes} mistakes · ${game.hints} hints`);
  for (const b of [...ui.pad.querySelectorAll('button'), ui.mode, ui.undo, ui.hint]) setAttr(b, 'disabled', done ? '' : null);
  setText(ui.status, said);
  setText(ui.time, clock(elapsed(game, now)));
}

/**
 * @param {Bank} bank
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function solo(bank, env) {
  styled();
  document.title = 'sudoku-race · solo';
  // The service worker keeps solo practice for offline play once it has been opened (sw.js).
  env.keepSolo();
  /** @type {View} */
  const v = {
    game: load(safe(() => env.storage.local.getItem(GAME_KEY))) ?? start(bank, 'easy', env.storage),
    selected: 0,
    pencil: false,
    shown: null,
    said: '',
  };
  v.selected = Math.max(0, v.game.board.indexOf('.'));
  const keep = () => safe(() => env.storage.local.setItem(GAME_KEY, save(v.game, env.now())));
  const draw = () => render(ui, v, env.now());
  const act = soloActions(bank, v, {
    /** A change: kept, drawn, and what to say. */
    changed: (said) => {
      v.said = said;
      keep();
      draw();
    },
    draw,
    focus: (cell) => {
      v.selected = cell;
      ui.board.focus(cell);
    },
    now: env.now,
    storage: env.storage,
  });
  const ui = layout(act);
  runTimer(ui, v, keep, env);
  resume(v.game, env.now());
  keep();
  draw();

  return {
    el: ui.el,
    focus: () => ui.board.focus(v.selected),
    update: () => setText(ui.time, clock(elapsed(v.game, env.now()))),
    onKey(ev) {
      const a = keyAction(ev, v.selected);
      if (!a) return;
      ev.preventDefault();
      if (a.do === 'move') {
        act.select(a.to);
        ui.board.focus(a.to);
      } else if (a.do === 'digit') act.digit(a.digit);
      else act[a.do]();
    },
  };
}

/**
 * What the screen's controls and keys do to the game `v`.
 * @param {Bank} bank
 * @param {View} v
 * @param {{changed: (said: string) => void, draw: () => void, focus: (cell: number) => void, now: () => number,
 *   storage: Storage}} on
 */
function soloActions(bank, v, on) {
  const { changed, focus } = on;
  const act = {
    /** @param {number} cell */
    select: (cell) => {
      v.selected = cell;
      on.draw();
    },
    /** @param {Level} level @param {string} [variant] */
    level: (level, variant = v.game.layout.variant ?? 'classic') => {
      v.game = start(bank, level, on.storage, variant);
      v.shown = null;
      resume(v.game, on.now());
      changed(`A new ${level} ${variant === 'classic' ? '' : `${variant} `}puzzle.`);
      focus(Math.max(0, v.game.board.indexOf('.')));
      on.draw();
    },
    next: () => act.level(v.game.level),
    /** @param {string} variant */
    variant: (variant) => act.level(v.game.level, variant),
    /** @param {number} digit */
    digit: (digit) => {
      const what = place(v.game, v.selected, digit, v.pencil, on.now());
      if (what === 'same' || what === 'done') return;
      v.shown = null;
      changed(v.game.solved_ms !== null ? `Solved in ${clock(v.game.solved_ms)}.` : SAID[what]);
    },
    erase: () => {
      if (!erase(v.game, v.selected)) return;
      v.shown = null;
      changed('');
    },
    undo: () => {
      const cell = undo(v.game);
      if (cell >= 0) {
        v.shown = null;
        focus(cell);
      }
      changed(cell < 0 ? 'Nothing to undo.' : 'Undone.');
    },
    hint: () => {
      v.shown = hint(v.game, bank);
      if (v.shown) focus(v.shown.cell);
      changed(v.shown?.text ?? '');
    },
    pencil: () => {
      v.pencil = !v.pencil;
      on.draw();
    },
  };
  return act;
}

/**
 * The timer: drawn four times a second while the screen is shown, kept every second; stopped
 * while the page is hidden and when the screen goes.
 * @param {ReturnType<typeof layout>} ui
 * @param {{game: Game}} v
 * @param {() => void} keep
 * @param {import('../view.js').Env} env
 */
function runTimer(ui, v, keep, env) {
  let lastKept = 0;
  function onVisibility() {
    const now = env.now();
    if (document.hidden) pause(v.game, now);
    else resume(v.game, now);
    keep();
  }
  const stop = env.every(() => {
    const now = env.now();
    if (!ui.el.isConnected) {
      stop();
      document.removeEventListener('visibilitychange', onVisibility);
      pause(v.game, now);
      keep();
      return;
    }
    setText(ui.time, clock(elapsed(v.game, now)));
    if (now - lastKept >= 1000 && v.game.solved_ms === null) {
      lastKept = now;
      keep();
    }
  }, 250);
  document.addEventListener('visibilitychange', onVisibility);
}
