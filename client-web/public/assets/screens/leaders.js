// @ts-check
/**
 * `/#/leaderboard` and `/#/players/HANDLE`: the server's boards and a player's page, read from
 * its HTTP API (A6; `/api/openapi.json`). Read-only: no room, no socket needed.
 */

import { clock, h, setText } from '../dom.js';

/** @param {number | null | undefined} ms */
const time = (ms) => (typeof ms === 'number' ? clock(ms) : '—');
/** @param {number | null | undefined} r */
const rating = (r) => (typeof r === 'number' ? r.toFixed(1) : '—');

/**
 * A link to a player's page.
 * @param {string} handle
 * @param {string} name
 */
function playerLink(handle, name) {
  return h('a', { href: `/#/players/${encodeURIComponent(handle)}`, text: name || handle });
}

/**
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function leaderboard(env) {
  const difficulty = h('select', { 'data-testid': 'lb-difficulty', 'aria-label': 'difficulty' },
    ...['easy', 'medium', 'hard', 'expert'].map((d) => h('option', { value: d, text: d })));
  const period = h('select', { 'data-testid': 'lb-period', 'aria-label': 'period' },
    ...['day', 'week', 'month', 'all'].map((p) => h('option', { value: p, text: p })));
  difficulty.value = 'medium';
  period.value = 'all';
  const body = h('tbody');
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'error', hidden: true });
  const table = h('table', { class: 'results', 'data-testid': 'leaderboard' },
    h('thead', {}, h('tr', {}, ...['#', 'Player', 'Rating', 'Races', 'Wins', 'Best'].map((t) => h('th', { scope: 'col', text: t })))),
    body);
  // Answers can land out of order (the first load races a quick change of difficulty): only the
  // latest choice's answer is shown.
  let asked = 0;
  async function load() {
    const mine = ++asked;
    try {
      const v = await env.api(`/api/leaderboard?difficulty=${difficulty.value}&period=${period.value}&limit=50`);
      if (mine !== asked) return;
      error.setAttribute('hidden', '');
      /** @type {any[]} */
      const rows = v.rows ?? [];
      body.replaceChildren(...(rows.length ? rows.map((r) => h('tr', { 'data-handle': r.handle },
        h('td', { text: String(r.rank) }), h('td', {}, playerLink(r.handle, r.name)),
        h('td', { text: rating(r.rating) }), h('td', { text: String(r.races) }),
        h('td', { text: String(r.wins) }), h('td', { text: time(r.best_time_ms) }))) :
        [h('tr', {}, h('td', { colspan: 6, class: 'muted', text: 'Nobody is rated here yet.' }))]));
    } catch (e) {
      if (mine !== asked) return;
      setText(error, e instanceof Error ? e.message : String(e));
      error.removeAttribute('hidden');
    }
  }
  difficulty.addEventListener('change', load);
  period.addEventListener('change', load);
  load();
  const el = h('section', { class: 'screen leaders' },
    h('p', {}, h('a', { href: '/', text: '← sudoku·race' })),
    h('h1', { text: 'Leaderboard' }),
    h('p', { class: 'muted', text: 'Conservative Weng-Lin ratings (μ − 3σ) from rated races; flagged results are left out.' }),
    h('div', { class: 'row' }, difficulty, period),
    error, h('div', { class: 'card table-wrap' }, table));
  return { el, update() {} };
}

/**
 * A player's `best` (A7: the fastest solve per difficulty solved, rated or not) as table rows,
 * easiest first, each linking to its race's replay; with `race`, each offers to race it as a
 * ghost (A7 `race_ghost`): "Race my best" on your own page, "Race this ghost" on another's.
 * @param {Record<string, { time_ms: number, race_id: string } | undefined>} best
 * @param {{mine: boolean, race: (ghost: string, difficulty?: import('../../../types/wire.js').Difficulty) => void}} [ghost]
 */
export function bestRows(best, ghost) {
  const rows = ['easy', 'medium', 'hard', 'expert'].flatMap((d) => {
    const b = best[d];
    const level = /** @type {import('../../../types/wire.js').Difficulty} */ (d);
    const race = !b || !ghost ? null : ghost.mine
      ? h('button', { type: 'button', class: 'small', 'data-testid': 'race-best', onclick: () => ghost.race('best', level), text: 'Race my best' })
      : h('button', { type: 'button', class: 'small', 'data-testid': 'race-this', onclick: () => ghost.race(b.race_id), text: 'Race this ghost' });
    return b ? [h('tr', { 'data-difficulty': d }, h('td', { text: d }), h('td', { text: time(b.time_ms) }),
      h('td', {}, h('a', { href: `/#/races/${encodeURIComponent(b.race_id)}`, title: 'replay this race', text: '▶ replay' }), race ? ' ' : null, race))] : [];
  });
  return rows.length ? rows : [h('tr', {}, h('td', { colspan: 3, class: 'muted', text: 'No solves yet.' }))];
}

/**
 * @param {string} handle a handle, or a name as the route carries it (percent-encoded): the
 *   server answers for the one player going by it, or lists the handles sharing it (A8)
 * @param {import('../state.js').Actions | undefined} act to race a best solve as a ghost
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function playerPage(handle, act, env) {
  try {
    handle = decodeURIComponent(handle);
  } catch {
    // Not valid percent-encoding: asked as it is, and the server refuses it.
  }
  const title = h('h1', { 'data-testid': 'player-name', text: handle });
  const best = h('tbody');
  const ratings = h('tbody');
  const races = h('tbody');
  const error = h('p', { class: 'error', role: 'alert', 'data-testid': 'error', hidden: true });
  (async () => {
    try {
      const p = await env.api(`/api/players/${encodeURIComponent(handle)}`);
      setText(title, `${p.name} (${p.handle})`);
      best.replaceChildren(...bestRows(p.best ?? {}, act && { mine: act.handle() === p.handle, race: act.raceGhost }));
      /** @type {any[]} */
      const rs = p.ratings ?? [];
      ratings.replaceChildren(...rs.map((r) => h('tr', {}, h('td', { text: r.difficulty }),
        h('td', { text: rating(r.rating) }), h('td', { text: String(r.races) }), h('td', { text: String(r.wins) }),
        h('td', { text: time(r.best_time_ms) }))));
      const hist = await env.api(`/api/players/${encodeURIComponent(p.handle)}/races?limit=50`);
      /** @type {any[]} */
      const list = hist.races ?? [];
      races.replaceChildren(...list.map((r) => {
        const change = typeof r.rating_before === 'number' && typeof r.rating_after === 'number'
          ? `${rating(r.rating_after)} (${r.rating_after >= r.rating_before ? '+' : '−'}${Math.abs(r.rating_after - r.rating_before).toFixed(1)})`
          : 'unrated';
        return h('tr', { 'data-race-id': r.race_id },
          h('td', {}, h('a', { href: `/#/races/${encodeURIComponent(r.race_id)}`, 'data-testid': 'replay-link',
            title: 'replay this race', text: '▶ ' + new Date(r.finished_unix_ms).toISOString().slice(0, 16).replace('T', ' ') })),
          h('td', { text: r.difficulty }), h('td', { text: `${r.rank}/${r.players}` }),
          h('td', { text: String(r.status).replace('_', ' ') }), h('td', { text: time(r.time_ms) }),
          h('td', { text: change }), h('td', { text: (r.flags ?? []).join(', ') }));
      }));
    } catch (e) {
      setText(error, e instanceof Error ? e.message : String(e));
      error.removeAttribute('hidden');
    }
  })();
  const head = (/** @type {string[]} */ cols) => h('thead', {}, h('tr', {}, ...cols.map((t) => h('th', { scope: 'col', text: t }))));
  const el = h('section', { class: 'screen player' },
    h('p', {}, h('a', { href: '/#/leaderboard', text: '← leaderboard' })),
    title, error,
    h('div', { class: 'card table-wrap' }, h('h2', { text: 'Best solves' }),
      h('table', { class: 'results', 'data-testid': 'player-best' }, head(['Level', 'Time', 'Race']), best)),
    h('div', { class: 'card table-wrap' }, h('h2', { text: 'Ratings' }),
      h('table', { class: 'results', 'data-testid': 'ratings' }, head(['Level', 'Rating', 'Races', 'Wins', 'Best']), ratings)),
    h('div', { class: 'card table-wrap' }, h('h2', { text: 'Races' }),
      h('table', { class: 'results', 'data-testid': 'history' }, head(['When (UTC)', 'Level', 'Rank', 'Result', 'Time', 'Rating', 'Flags']), races)));
  return { el, update() {} };
}
