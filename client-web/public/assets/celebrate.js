// @ts-check
/**
 * A finish's celebration (`data-testid=celebration`): a CSS animation of about 1.5 s (style.css
 * `.celebrate`), gone when it ends, at any key or click, or by Skip. Imported when this page's
 * player first solves a race (parts.js `celebrate` decides when).
 */

import { h, raceTime } from './dom.js';

/** @param {number | null} timeMs */
export function show(timeMs) {
  const skip = h('button', { type: 'button', class: 'small', text: 'Skip' });
  const el = h('div', { class: 'celebrate', role: 'status', 'data-testid': 'celebration' },
    h('p', { text: `Solved in ${raceTime(timeMs)}!` }), skip);
  const end = () => {
    el.remove();
    document.removeEventListener('keydown', end, true);
    document.removeEventListener('pointerdown', end, true);
  };
  skip.addEventListener('click', end);
  el.addEventListener('animationend', end);
  document.addEventListener('keydown', end, true);
  document.addEventListener('pointerdown', end, true);
  document.body.append(el);
}
