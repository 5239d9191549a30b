// @ts-check
/**
 * The page's DOM side: the one screen shown in `#app`, built by the screen module the app's key
 * names (control.js decides the key; this module only shows it), the keys passed to it, and the
 * pages a first visit does not need, imported when their route first opens (`pages` below, not
 * preloaded by index.html).
 *
 * Focus is never left on the page's body: a new screen takes it (its own `focus`, else its first
 * heading), and when the focused control is removed or hidden by a redraw, the screen takes it
 * again.
 */

import { home } from './screens/home.js';
import { joinRoom } from './screens/join.js';
import { lobby } from './screens/lobby.js';
import { race } from './screens/race.js';
import { problem } from './screens/problem.js';
import { h } from './dom.js';
import { celebrate } from './parts.js';

/** @typedef {import('./state.js').Screen} Screen */
/** @typedef {import('./state.js').State} State */
/** @typedef {import('./state.js').Actions} Actions */

/**
 * What the screens use of the browser besides their DOM, handed in by app.js (the page's
 * composition root): the monotonic clock and its performance marks, timers (`every` returns
 * its stop), the HTTP API and plain GETs of this server, local storage (read on every use: it
 * may throw), the page's origin, the clipboard, and the service worker's `keep-solo`.
 * @typedef {{
 *   now: () => number,
 *   mark: (name: string) => void,
 *   every: (f: () => void, ms: number) => () => void,
 *   later: (f: () => void, ms: number) => void,
 *   api: (path: string) => Promise<any>,
 *   get: (url: string, init?: RequestInit) => Promise<Response>,
 *   storage: {readonly local: import('./control.js').KeyValue},
 *   origin: string,
 *   copy: (text: string) => Promise<void>,
 *   keepSolo: () => void,
 * }} Env
 */

/**
 * The pages a first visit does not need, imported when their route first opens (the queue
 * screen when the page first queues); index.html does not preload them (tests/layout.test.mjs
 * holds index.html to both rules). The replay's playback module is asked for beside its screen,
 * so the two fetches do not wait on each other. The results screen is asked for when a race
 * screen opens, so it is in long before the race ends (and the first load stays under 100 KB).
 */
const pages = (/** @type {Env} */ env) => ({
  leaders: () => import('./screens/leaders.js'),
  queue: () => import('./screens/queue.js'),
  arenas: () => import('./screens/arena.js'),
  results: () => import('./screens/results.js'),
  replay: () => Promise.all([import('./screens/replay.js'), import('./replay.js')]).then(([screen]) => screen),
  watch: () => import('./screens/watch.js'),
  tv: () => import('./screens/tv.js'),
  // Solo practice: the screen and its puzzle bank, fetched side by side.
  solo: () => {
    const bank = env.get('/assets/solo/bank.json').then((r) => {
      if (!r.ok) throw new Error(`the puzzle bank: HTTP ${r.status}`);
      return r.json();
    });
    return Promise.all([import('./screens/solo.js'), bank]).then(([m, b]) => ({ m, bank: b }));
  },
});

/**
 * A screen that says "Loading…" while `load` imports a page's module, then becomes the page
 * `make` builds from it (the same element the page would have been, so its styles and test
 * hooks are unchanged). A failed import gets a clear error and Try again, which imports afresh
 * (a failed fetch is not kept in the browser's module map).
 * @template M
 * @param {string} name the page, for the `page:NAME` performance mark when it is in
 * @param {() => Promise<M>} load
 * @param {(m: M) => Screen} make
 * @param {Env} env
 * @returns {Screen}
 */
function lazyScreen(name, load, make, env) {
  /** @type {Screen | null} */
  let page = null;
  /** @type {{s: State, now: number} | null} */
  let last = null;
  const el = h('section', { class: 'screen loading', 'data-testid': 'page-loading' });
  function attempt() {
    el.removeAttribute('data-problem');
    el.replaceChildren(h('p', { class: 'muted', role: 'status', text: 'Loading…' }));
    load().then(
      (m) => {
        // The route changed while the module came: the screen after this one is in charge.
        if (!el.isConnected) return;
        page = make(m);
        el.replaceWith(page.el);
        if (last) page.update(last.s, last.now);
        // Focus where the Loading… line had it (or nowhere); a control chosen since keeps it.
        if (document.activeElement === document.body || document.activeElement === null) focusStart(page);
        env.mark(`page:${name}`);
      },
      (e) => {
        el.setAttribute('data-problem', 'page_unavailable');
        const heading = h('h1', { tabindex: -1, text: 'This page did not load' });
        el.replaceChildren(
          heading,
          h('p', { class: 'error', role: 'alert', 'data-testid': 'error',
            text: `Its code could not be fetched from the server (${e instanceof Error ? e.message : String(e)}). Check the connection and try again.` }),
          h('div', { class: 'row' },
            h('button', { type: 'button', class: 'primary', 'data-testid': 'retry', onclick: attempt, text: 'Try again' }),
            h('a', { class: 'button', href: '/', text: 'Back to the start' })),
        );
        if (el.isConnected && (document.activeElement === document.body || document.activeElement === null)) heading.focus({ preventScroll: true });
      },
    );
  }
  attempt();
  return {
    el,
    update(s, now) {
      last = { s, now };
      page?.update(s, now);
    },
    onKey: (ev, s) => page?.onKey?.(ev, s),
    focus: () => page && focusStart(page),
  };
}

/**
 * Give a screen the focus: its own choice, else its first heading (made focusable by script
 * only, so it is no extra tab stop).
 * @param {Screen} screen
 */
export function focusStart(screen) {
  if (screen.focus) return screen.focus();
  const heading = /** @type {HTMLElement | null} */ (screen.el.querySelector('h1, h2'));
  if (!heading) return;
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus({ preventScroll: true });
}

/**
 * Whether the focus was lost: on the body (or nowhere) after `was`, the last focused element,
 * went away or out of sight.
 * @param {Element | null} was
 */
function focusLost(was) {
  const at = document.activeElement;
  if (at !== null && at !== document.body) return false;
  return !!was && (!was.isConnected || was.getClientRects().length === 0);
}

/**
 * The screen a key names (control.js's `screenKey`: `problem:CODE`, `join:ROOM`, `player:ID`, …).
 * @param {string} key
 * @param {State} s
 * @param {Actions} act
 * @param {Env} env
 * @param {ReturnType<typeof pages>} load
 * @returns {Screen}
 */
function makeScreen(key, s, act, env, load) {
  /** @type {<M>(name: string, l: () => Promise<M>, make: (m: M) => Screen) => Screen} */
  const lazy = (name, l, make) => lazyScreen(name, l, make, env);
  if (s.problem) return problem(act, s.problem);
  if (key.startsWith('join:')) return joinRoom(act, key.slice('join:'.length));
  if (key === 'leaderboard') return lazy('leaderboard', load.leaders, (m) => m.leaderboard(env));
  if (key.startsWith('player:')) return lazy('player', load.leaders, (m) => m.playerPage(key.slice('player:'.length), act, env));
  if (key.startsWith('replay:')) return lazy('replay', load.replay, (m) => m.replayPage(key.slice('replay:'.length), env));
  switch (key) {
    case 'queue':
      return lazy('queue', load.queue, (m) => m.queue(act));
    case 'arenas':
      return lazy('arenas', load.arenas, (m) => m.arenas(act, env));
    case 'lobby':
      return lobby(act, env);
    case 'results':
      return lazy('results', load.results, (m) => m.results(act, env));
    case 'watch':
      return lazy('watch', load.watch, (m) => m.watch(act, env));
    case 'tv':
      return lazy('tv', load.tv, (m) => m.tv(act, env));
    case 'solo':
      return lazy('solo', load.solo, ({ m, bank }) => m.solo(bank, env));
    case 'race':
      // Fetched now, it is there when the race ends; a failure is retried then.
      load.results().catch(() => {});
      return race(act, env);
    default:
      return home(act, env);
  }
}

/**
 * The view of the page whose actions are `act`, drawing into `root`; it passes the keys typed
 * outside a form field to the screen shown.
 * @param {HTMLElement} root
 * @param {Actions} act
 * @param {Env} env
 * @returns {import('./control.js').View}
 */
export function createView(root, act, env) {
  const load = pages(env);
  /** @type {{key: string, screen: Screen, s: State} | null} */
  let current = null;
  /** The element last focused in the page, to tell a lost focus from a click on nothing. @type {Element | null} */
  let focused = null;
  document.addEventListener('focusin', (ev) => {
    focused = /** @type {Element | null} */ (ev.target);
  });
  document.addEventListener('keydown', (ev) => {
    const t = /** @type {HTMLElement | null} */ (ev.target);
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
    current?.screen.onKey?.(ev, current.s);
  });
  return {
    draw(key, s, now) {
      celebrate(s);
      if (current && current.key === key) {
        current.screen.update(s, now);
        if (focusLost(focused)) {
          focused = null;
          focusStart(current.screen);
        }
        return;
      }
      const screen = makeScreen(key, s, act, env, load);
      current = { key, screen, s };
      root.replaceChildren(screen.el);
      root.setAttribute('data-screen', key.split(':')[0]);
      screen.update(s, now);
      // For bench/first-load.mjs: when each screen first appeared, on the page's own clock.
      env.mark(`screen:${key.split(':')[0]}`);
      // A new screen starts at its top, whatever the last one was scrolled to.
      window.scrollTo(0, 0);
      focusStart(screen);
    },
    title(text) {
      document.title = text;
    },
  };
}
