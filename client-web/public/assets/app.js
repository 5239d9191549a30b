// @ts-check
/**
 * The page's entry, index.html's one script: it hands the browser's socket, storage, address
 * bar, clock, timer and DOM to `createApp` (control.js, the page's logic) and starts it. Whatever
 * decides something lives in control.js, which tests/unit/ drives in Node without a browser;
 * view.js draws the screens.
 *
 * What `/` needs is imported statically (and preloaded by index.html); the read-only pages a
 * first visit does not need are imported by view.js when their route opens (not preloaded).
 */

import { Link, wsUrl } from './wire.js';
import { createApp } from './control.js';
import { createView } from './view.js';
import { applyTheme, savedTheme } from './dom.js';

// The chosen theme before the first screen is drawn (auto needs nothing: style.css follows
// prefers-color-scheme by itself).
applyTheme(savedTheme());

const root = /** @type {HTMLElement} */ (document.getElementById('app'));

const app = createApp({
  link: (events) => new Link({ url: wsUrl(), ...events }),
  view: (act) => createView(root, act),
  // Getters: a browser with storage off throws when it is touched, inside the app's guard.
  storage: {
    get session() {
      return sessionStorage;
    },
    get local() {
      return localStorage;
    },
  },
  location,
  history,
  now: () => performance.now(),
  later: (f, ms) => {
    setTimeout(f, ms);
  },
});

window.addEventListener('hashchange', () => app.redraw());
setInterval(() => app.tick(), 200);
app.start();

// The service worker (public/sw.js, at /sw.js): installable, and solo practice offline. It is
// registered once the page has loaded, so its downloads never delay the first screen.
if ('serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js').catch(() => {});
  });
}
