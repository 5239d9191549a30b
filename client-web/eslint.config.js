// The browser client's lints (`npm test` runs them first): ESLint's recommended rules, and the
// size limits the Rust code is held to: no function over 80 lines and no file over 400 (lines
// as the file has them, comments and blank lines included: stricter than clippy's
// `too_many_lines`, which counts code only). `complexity` 20: ESLint counts every `if`, `case`,
// loop, `&&`, `||`, `??`, `?.` and `? :`, so a screen's redraw reaches the teens honestly (the
// highest today are 17), while a 26-case switch or a 40-branch redraw does not pass.
// `no-restricted-globals`: every side effect is handed in (à la 2048's `GameManager`); only
// app.js, the composition root, and the service worker reach the browser's globals. The size
// rules hold the page's code (public/); a Chromium test's scenario may run longer.

import js from '@eslint/js';
import globals from 'globals';

/** @param {string} why @param {string[]} names */
const restricted = (why, names) => names.map((name) => ({ name, message: `${why} (app.js hands it in)` }));

/** What app.js hands in: storage, the address bar, the network, timers, the clock, navigator. */
const INJECTED = restricted('side effects are injected', [
  'sessionStorage', 'localStorage', 'indexedDB', 'caches', 'location', 'history', 'fetch', 'WebSocket', 'XMLHttpRequest',
  'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'requestAnimationFrame', 'performance', 'navigator',
]);

/** The DOM: only the view's modules draw (view.js, dom.js, board.js, parts.js, prefs.js, celebrate.js, screens/). */
const DOM = restricted('no DOM outside the view: the view is injected as `view`', ['document', 'window', 'alert', 'confirm', 'prompt']);

/** The page's logic and state: no DOM, no IO of its own. tests/unit/ runs them in Node. */
const LOGIC = ['state.js', 'racing.js', 'geometry.js', 'control.js', 'actions.js', 'announce.js', 'replay.js', 'solo.js', 'wire.js']
  .map((f) => `public/assets/${f}`);

export default [
  { ignores: ['node_modules/', 'test-output/'] },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
  // The Chromium tests and the benchmark run functions in the page (`page.evaluate`).
  { files: ['tests/*.mjs', 'bench/*.mjs'], languageOptions: { globals: { ...globals.browser, ...globals.node } } },
  {
    files: ['public/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'max-lines-per-function': ['error', { max: 80 }],
      complexity: ['error', { max: 20 }],
      'no-restricted-globals': ['error', ...INJECTED],
    },
  },
  { files: LOGIC, rules: { 'no-restricted-globals': ['error', ...INJECTED, ...DOM] } },
  // The composition root hands the browser in; the service worker is its own world.
  { files: ['public/assets/app.js'], rules: { 'no-restricted-globals': 'off' } },
  { files: ['public/sw.js'], languageOptions: { sourceType: 'script', globals: { ...globals.serviceworker } }, rules: { 'no-restricted-globals': 'off' } },
];
