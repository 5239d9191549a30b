// @ts-check
/**
 * The race settings form (the creator's, and the host's between races), its summary in words,
 * and the variant picker (A10) that the room form (create and the host's settings) and solo practice share.
 */

import { h, setAttr } from './dom.js';
import { VARIANT_NAMES, VARIANTS } from './geometry.js';
import { BOUNDS } from './wire.js';

/** @typedef {import('../../types/wire.js').Settings} Settings */
/** @typedef {import('../../types/wire.js').Variant} Variant */

/**
 * A select of the five variants, classic first.
 * @param {{name: string, testid: string}} opts
 */
export function variantSelect(opts) {
  const el = h('select', { name: opts.name, 'data-testid': opts.testid }, ...VARIANTS.map((v) => h('option', { value: v, text: VARIANT_NAMES[v] })));
  el.value = 'classic';
  return el;
}

/**
 * A variant's name in words; classic (or none) is `Classic`.
 * @param {string | null | undefined} variant
 */
export const variantName = (variant) => VARIANT_NAMES[variant ?? 'classic'] ?? String(variant);

/**
 * A number field inside the contract's bounds.
 * @param {string} label
 * @param {string} name
 * @param {number} min
 * @param {number} max
 */
function numberField(label, name, min, max) {
  const input = h('input', { type: 'number', name, min, max, step: 1, required: true, inputmode: 'numeric' });
  return { input, el: h('label', {}, h('span', { text: label }), input) };
}

/**
 * The race settings: the creator's form, and the host's between races. Time is in minutes.
 * @param {{idPrefix: string}} opts
 */
export function settingsForm(opts) {
  const difficulty = h(
    'select',
    { name: 'difficulty', 'data-testid': `${opts.idPrefix}difficulty` },
    ...['easy', 'medium', 'hard', 'expert'].map((d) => h('option', { value: d, text: d })),
  );
  const variant = variantSelect({ name: 'variant', testid: `${opts.idPrefix}variant` });
  const players = numberField('Players', 'max_players', BOUNDS.max_players[0], BOUNDS.max_players[1]);
  const minutes = numberField('Minutes', 'time_limit_m', 1, 120);
  const mistakes = numberField('Mistakes allowed (0 = any)', 'max_mistakes', BOUNDS.max_mistakes[0], BOUNDS.max_mistakes[1]);
  const penalty = numberField('Penalty per mistake (s)', 'penalty_s', BOUNDS.penalty_s[0], BOUNDS.penalty_s[1]);
  const pub = h('input', { type: 'checkbox', name: 'public' });
  const rated = h('input', { type: 'checkbox', name: 'rated', 'data-testid': `${opts.idPrefix}rated` });
  const el = h(
    'fieldset',
    { class: 'settings' },
    h('legend', { text: 'Race settings' }),
    h('label', {}, h('span', { text: 'Difficulty' }), difficulty),
    h('label', {}, h('span', { text: 'Variant' }), variant),
    players.el,
    minutes.el,
    mistakes.el,
    penalty.el,
    h('label', { class: 'check' }, pub, h('span', { text: 'Listed publicly' })),
    h('label', { class: 'check' }, rated, h('span', { text: 'Rated (two signed-in players or more)' })),
  );
  /** @param {Settings} s */
  function set(s) {
    difficulty.value = s.difficulty;
    variant.value = s.variant ?? 'classic';
    players.input.value = String(s.max_players);
    minutes.input.value = String(Math.round(s.time_limit_s / 60));
    mistakes.input.value = String(s.max_mistakes);
    penalty.input.value = String(s.penalty_s);
    pub.checked = s.public;
    rated.checked = !!s.rated;
  }
  /** @returns {Settings | string} the settings, or what is wrong with them */
  function read() {
    /** @param {{input: HTMLInputElement}} f @param {string} what */
    const num = (f, what) => {
      const v = Number(f.input.value);
      const min = Number(f.input.min);
      const max = Number(f.input.max);
      if (!Number.isInteger(v) || v < min || v > max) throw new Error(`${what} must be a whole number from ${min} to ${max}`);
      return v;
    };
    try {
      return {
        difficulty: /** @type {Settings['difficulty']} */ (difficulty.value),
        // Classic is the absent variant (A10): a server before variants reads the settings as ever.
        variant: variant.value === 'classic' ? undefined : /** @type {Variant} */ (variant.value),
        max_players: num(players, 'Players'),
        time_limit_s: num(minutes, 'Minutes') * 60,
        max_mistakes: num(mistakes, 'Mistakes allowed'),
        penalty_s: num(penalty, 'Penalty'),
        public: pub.checked,
        rated: rated.checked,
      };
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }
  /** @param {boolean} on */
  function enable(on) {
    for (const f of [difficulty, variant, players.input, minutes.input, mistakes.input, penalty.input, pub, rated]) {
      setAttr(f, 'disabled', on ? null : '');
    }
  }
  return { el, set, read, enable };
}

/**
 * A settings summary in words.
 * @param {Settings} s
 */
export function describe(s) {
  const mistakes = s.max_mistakes === 0 ? 'no mistake limit' : `${s.max_mistakes} mistakes out`;
  const v = s.variant && s.variant !== 'classic' ? `${variantName(s.variant)} · ` : '';
  return `${v}${s.difficulty} · up to ${s.max_players} players · ${Math.round(s.time_limit_s / 60)} min · ${mistakes} · +${s.penalty_s} s per mistake · ${s.public ? 'public' : 'private'}${s.rated ? ' · rated' : ''}`;
}
