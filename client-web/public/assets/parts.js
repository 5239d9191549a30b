// @ts-check
/**
 * Pieces several screens share: the player list of a lobby, everyone's progress bars, a race's
 * standings, the chat, the error slot (`data-testid=error`), and the box of
 * the page's own settings (its fields, prefs.js, imported when it is opened). Each is
 * `{el, update}`; the screens place them. Also when to celebrate a finish (celebrate.js).
 */

import { h, setAttr, setText, raceTime } from './dom.js';

/** @typedef {import('./state.js').State} State */
/** @typedef {import('../../types/wire.js').Settings} Settings */

/** Words for a player's status. @type {Record<string, string>} */
const STATUS = {
  waiting: 'waiting',
  racing: 'racing',
  solved: 'solved',
  forfeited: 'forfeited',
  eliminated: 'eliminated',
  timed_out: 'timed out',
};

/**
 * The badge after a bot's or a ghost's (A7) name.
 * @param {{bot?: boolean, ghost?: boolean} | undefined} p
 */
const botBadge = (p) => (p?.ghost ? h('span', { class: 'badge ghost', 'data-testid': 'ghost-badge', text: 'ghost' })
  : p?.bot ? h('span', { class: 'badge', 'data-testid': 'bot-badge', text: 'bot' }) : null);

/**
 * The lobby's players: ready marks, the host, held seats, and the host's kick buttons.
 * @param {{onKick: (id: string) => void}} opts
 */
export function playerList(opts) {
  const list = h('ul', { class: 'players', 'data-testid': 'players', 'aria-label': 'players' });
  /** @param {State} s */
  function update(s) {
    list.replaceChildren(
      ...s.players.map((p) => {
        const host = p.player_id === s.host;
        const mine = p.player_id === s.you?.player_id;
        const canKick = s.you?.player_id === s.host && !mine && (s.phase === 'lobby' || s.phase === 'finished');
        return h(
          'li',
          { 'data-player-id': p.player_id, 'data-ready': p.ready ? 'true' : 'false', class: mine ? 'mine' : null },
          h('span', { class: 'name', text: p.name }),
          botBadge(p),
          host ? h('span', { class: 'badge', text: 'host' }) : null,
          mine ? h('span', { class: 'badge', text: 'you' }) : null,
          h('span', { class: p.ready ? 'ready yes' : 'ready', text: p.ready ? '✓ ready' : '· not ready' }),
          p.connected ? null : h('span', { class: 'badge away', text: 'reconnecting' }),
          canKick
            ? h('button', { type: 'button', class: 'small', 'data-testid': 'kick', 'aria-label': `Kick ${p.name}`, onclick: () => opts.onKick(p.player_id), text: 'Kick' })
            : null,
        );
      }),
    );
  }
  return { el: list, update };
}

/**
 * One player's progress line, redrawn in place so its bar slides (`.fill`, a CSS transition):
 * name, bar (`role=progressbar`), `filled/total · ✗mistakes`, and status words.
 */
function progressRow() {
  const name = h('span', { class: 'name' });
  const who = h('span', {}, name);
  const fill = h('span', { class: 'fill' });
  const bar = h('span', { class: 'bar', role: 'progressbar', 'aria-valuemin': 0 }, fill);
  const count = h('span', { class: 'count' });
  const status = h('span');
  const li = h('li', {}, who, bar, count, status);
  /** @type {Element | null} */
  let badge = null;
  /**
   * @param {{player_id: string, name: string, filled: number, to_fill: number, mistakes: number,
   *   status: string, time_ms: number | null, bot?: boolean, ghost?: boolean}} p
   * @param {boolean} mine
   */
  function set(p, mine) {
    setAttr(li, 'data-player-id', p.player_id);
    setAttr(li, 'data-status', p.status);
    setAttr(li, 'class', mine ? 'mine' : null);
    setText(name, p.name);
    const b = botBadge(p);
    if ((b?.outerHTML ?? '') !== (badge?.outerHTML ?? '')) {
      badge?.remove();
      badge = b;
      if (b) who.append(b);
    }
    const max = Math.max(1, p.to_fill);
    setAttr(bar, 'aria-valuemax', String(max));
    setAttr(bar, 'aria-valuenow', String(p.filled));
    setAttr(bar, 'aria-label', `${p.name} progress`);
    fill.style.transform = `scaleX(${Math.min(1, p.filled / max)})`;
    setText(count, `${p.filled}/${p.to_fill}${p.mistakes ? ` · ✗${p.mistakes}` : ''}`);
    setAttr(status, 'class', `status ${p.status}`);
    setText(status, p.status === 'solved' && p.time_ms !== null ? `solved ${raceTime(p.time_ms)}` : STATUS[p.status] ?? p.status);
  }
  return { li, set };
}

/**
 * One player's progress line, drawn once (the replay's, redrawn whole at every step).
 * @param {Parameters<ReturnType<typeof progressRow>['set']>[0]} p
 * @param {boolean} mine
 */
export function progressLine(p, mine) {
  const row = progressRow();
  row.set(p, mine);
  return row.li;
}

/** Everyone's progress: one bar per player, never their digits; each line kept while its player is. */
export function progressList() {
  const list = h('ul', { class: 'progress', 'data-testid': 'progress', 'aria-label': 'progress' });
  /** @type {Map<string, ReturnType<typeof progressRow>>} */
  const rows = new Map();
  /** @param {State} s */
  function update(s) {
    const race = s.race;
    const seen = new Set();
    s.players.forEach((p, i) => {
      seen.add(p.player_id);
      let row = rows.get(p.player_id);
      if (!row) rows.set(p.player_id, (row = progressRow()));
      const pr = race?.progress.get(p.player_id);
      const toFill = pr?.to_fill ?? (race?.puzzle ? [...race.puzzle].filter((c) => c === '.').length : 0);
      const done = race?.done.get(p.player_id);
      row.set({ player_id: p.player_id, name: p.name, filled: pr?.filled ?? 0, to_fill: toFill, mistakes: pr?.mistakes ?? 0,
        status: done ? done.status : p.status, time_ms: done ? done.time_ms : null, bot: p.bot, ghost: p.ghost }, p.player_id === s.you?.player_id);
      if (list.children[i] !== row.li) list.insertBefore(row.li, list.children[i] ?? null);
    });
    for (const [id, row] of rows) {
      if (seen.has(id)) continue;
      row.li.remove();
      rows.delete(id);
    }
  }
  return { el: list, update };
}

/**
 * A race's standings (`data-testid=results`): rank, player, result, time, filled, mistakes and,
 * for a room's results, each rated player's change.
 * @param {{rating: boolean}} opts
 */
export function standingsTable(opts) {
  const body = h('tbody');
  const el = h(
    'table',
    { class: 'results', 'data-testid': 'results' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['#', 'Player', 'Result', 'Time', 'Filled'].map((t) => h('th', { scope: 'col', text: t })),
        h('th', { scope: 'col', title: 'mistakes', 'aria-label': 'mistakes', text: '✗' }),
        opts.rating ? h('th', { scope: 'col', 'data-testid': 'rating-head', text: 'Rating' }) : null,
      ),
    ),
    body,
  );
  /**
   * @param {import('../../types/wire.js').Standing[]} standings
   * @param {string | null} mine
   * @param {(playerId: string) => string} [rating]
   * @param {{player_id: string, bot?: boolean, ghost?: boolean}[]} [players] who is a bot or a ghost
   */
  function update(standings, mine, rating, players = []) {
    body.replaceChildren(
      ...standings.map((st) =>
        h(
          'tr',
          { 'data-player-id': st.player_id, class: st.player_id === mine ? 'mine' : null },
          h('td', { text: String(st.rank) }),
          h('td', {}, h('span', { class: 'name', text: st.name }), botBadge(players.find((p) => p.player_id === st.player_id))),
          h('td', { text: st.status.replace('_', ' ') }),
          h('td', {}, h('span', { class: 'time', text: st.status === 'solved' ? raceTime(st.time_ms) : '—' }), lagNote(st)),
          h('td', { text: String(st.filled) }),
          h('td', { text: String(st.mistakes) }),
          rating ? h('td', { 'data-testid': 'rating', text: rating(st.player_id) }) : null,
        ),
      ),
    );
  }
  return { el, update };
}

/**
 * A solver's raw time and lag under its compensated time (A8).
 * @param {import('../../types/wire.js').Standing} st
 */
function lagNote(st) {
  if (st.status !== 'solved' || st.time_ms_raw == null) return null;
  return h('small', { class: 'lag', 'data-testid': 'lag', text: `raw ${raceTime(st.time_ms_raw)}, lag ${st.lag_ms ?? 0} ms` });
}

/**
 * The chat: a log (`role=log`, so a screen reader reads each new line once) and its field.
 * @param {{onSend: (text: string) => void}} opts
 */
export function chatBox(opts) {
  const log = h('ol', { class: 'chat-log', role: 'log', 'aria-live': 'polite', 'aria-relevant': 'additions', 'aria-label': 'chat' });
  const input = h('input', { type: 'text', maxlength: 200, 'aria-label': 'chat message', placeholder: 'Say something', 'data-testid': 'chat-input' });
  const form = h(
    'form',
    {
      class: 'chat-form',
      onsubmit: (ev) => {
        ev.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        opts.onSend(text);
        input.value = '';
      },
    },
    input,
    h('button', { type: 'submit', class: 'small', text: 'Send' }),
  );
  const el = h('section', { class: 'chat', 'data-testid': 'chat' }, log, form);
  /** The lines drawn, in order, as the state's own objects. @type {State['chat']} */
  let drawn = [];
  /** @param {State['chat'][number]} line */
  const item = (line) => h('li', { class: line.player ? null : 'spectator' }, h('b', { text: line.name }), ' ', line.text);
  /** @param {State} s */
  function update(s) {
    if (s.chat === drawn) return;
    // Only the new lines are added (a live region reads what is added: redrawing all of them
    // would say the whole chat again); the lines the state no longer keeps go from the top.
    const lastDrawn = drawn[drawn.length - 1];
    const from = lastDrawn ? s.chat.lastIndexOf(lastDrawn) : -1;
    if (lastDrawn && from < 0) {
      log.replaceChildren(...s.chat.map(item));
    } else {
      const kept = new Set(s.chat);
      const gone = drawn.filter((line) => !kept.has(line)).length;
      for (let i = 0; i < gone; i++) log.firstElementChild?.remove();
      log.append(...s.chat.slice(from + 1).map(item));
    }
    drawn = s.chat;
    log.scrollTop = log.scrollHeight;
  }
  return { el, update };
}

/** The one visible error of a screen. */
export function errorSlot() {
  const el = h('p', { class: 'error', role: 'alert', 'data-testid': 'error', hidden: true });
  /** @param {string | null} text */
  function update(text) {
    setText(el, text ?? '');
    if (text) el.removeAttribute('hidden');
    else el.setAttribute('hidden', '');
  }
  return { el, update };
}

/**
 * The page's own settings (`data-testid=prefs`), closed: its fields (prefs.js) are imported
 * when it is first opened, so the first load does not carry them.
 * @param {import('./state.js').Actions} act
 * @param {import('./view.js').Env} env
 */
export function prefsBox(act, env) {
  const el = h('details', { class: 'prefs', 'data-testid': 'prefs' }, h('summary', { text: 'Settings' }));
  /** @type {State | null} */
  let last = null;
  /** @type {{update: (s: State) => void} | null} */
  let fields = null;
  el.addEventListener('toggle', () => {
    if (!el.open || fields) return;
    import('./prefs.js').then((m) => {
      fields ??= m.prefsFields(el, act, env);
      if (last) fields.update(last);
    }, () => el.removeAttribute('open'));
  });
  /** @param {State} s */
  const update = (s) => {
    last = s;
    fields?.update(s);
  };
  return { el, update };
}

/** The race whose finish was last celebrated (or skipped): once per race. */
let celebrated = '';

/**
 * When this page's player has just solved its race, a short celebration (celebrate.js, imported
 * then). None under `prefers-reduced-motion` (the race screen says the time in words). A reload
 * does not celebrate again: `done` holds only the finishes seen live.
 * @param {State} s
 */
export function celebrate(s) {
  const r = s.race;
  const id = s.you?.player_id;
  const mine = id ? r?.done.get(id) : undefined;
  if (!r || mine?.status !== 'solved' || celebrated === r.race_id) return;
  celebrated = r.race_id;
  if (matchMedia('(prefers-reduced-motion: reduce)').matches) return;
  import('./celebrate.js').then((m) => m.show(mine.time_ms), () => {});
}
