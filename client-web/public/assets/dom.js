// @ts-check
/**
 * Small DOM helpers: building elements without a framework, text that is always text, and the
 * page's theme.
 */

/**
 * @typedef {Record<string, string | number | boolean | null | undefined | EventListener>} Attrs
 * `on…` keys are listeners; `class`, `text` and the rest are attributes (false/null/undefined skip).
 */

/**
 * Build an element.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'text') {
      el.textContent = String(value);
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

/**
 * Set an element's text only when it changed (keeps selection and avoids layout work).
 * @param {Element} el
 * @param {string} text
 */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * Set or remove an attribute.
 * @param {Element} el
 * @param {string} name
 * @param {string | null} value
 */
export function setAttr(el, name, value) {
  if (value === null) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) {
    el.setAttribute(name, value);
  }
}

/**
 * Milliseconds as `m:ss` (or `h:mm:ss` past an hour).
 * @param {number} ms
 */
export function clock(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const hours = Math.floor(total / 3600);
  const ss = String(s).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/**
 * A race time with tenths, as the results show it.
 * @param {number | null} ms
 */
export function raceTime(ms) {
  if (ms === null) return '—';
  return `${clock(ms)}.${Math.floor((ms % 1000) / 100)}`;
}

/** Where the theme is kept: `light`, `dark`, or nothing (the system's). */
export const THEME_KEY = 'sudoku-race:theme';

/**
 * The theme chosen on this browser: `auto` follows `prefers-color-scheme`.
 * @param {{readonly local: {getItem: (key: string) => string | null}}} storage read inside the guard (it may throw)
 */
export function savedTheme(storage) {
  try {
    const t = storage.local.getItem(THEME_KEY);
    return t === 'light' || t === 'dark' ? t : 'auto';
  } catch {
    return 'auto';
  }
}

/**
 * Show a theme: `data-theme` on <html> (style.css reads it), none for `auto`.
 * @param {string} theme
 */
export function applyTheme(theme) {
  setAttr(document.documentElement, 'data-theme', theme === 'light' || theme === 'dark' ? theme : null);
}
