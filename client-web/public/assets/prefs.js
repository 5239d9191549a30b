// @ts-check
/**
 * The fields of the page's own settings, imported when the box (parts.js `prefsBox`) is first
 * opened: the theme (kept in local storage, shown at once) and whether a placed digit clears its
 * pencil mark from its peers (`act.autoClear`, kept by control.js).
 */

import { applyTheme, h, savedTheme, THEME_KEY } from './dom.js';

/**
 * Fill the settings box `el`.
 * @param {HTMLElement} el
 * @param {import('./state.js').Actions} act
 * @param {import('./view.js').Env} env
 */
export function prefsFields(el, act, env) {
  const theme = h('select', { 'data-testid': 'theme', name: 'theme' },
    ...[['auto', 'as the system'], ['light', 'light'], ['dark', 'dark']].map(([value, text]) => h('option', { value, text })));
  theme.value = savedTheme(env.storage);
  theme.addEventListener('change', () => {
    try {
      if (theme.value === 'auto') env.storage.local.removeItem(THEME_KEY);
      else env.storage.local.setItem(THEME_KEY, theme.value);
    } catch {
      // Storage off: the theme lasts as long as the page.
    }
    applyTheme(theme.value);
  });
  const clear = h('input', { type: 'checkbox', 'data-testid': 'auto-clear', onchange: () => act.autoClear(clear.checked) });
  el.append(h('label', {}, h('span', { text: 'Theme' }), theme),
    h('label', { class: 'check' }, clear, h('span', { text: 'A placed digit clears its pencil marks from its row, column and box' })));
  /** @param {import('./state.js').State} s */
  function update(s) {
    if (clear.checked !== s.auto_clear) clear.checked = s.auto_clear;
  }
  return { update };
}
