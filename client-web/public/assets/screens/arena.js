// @ts-check
/**
 * `/#/arenas`, and the page an arena's member sees between its races (A7): the server's upcoming
 * and running arenas from `/api/arenas` with a Join button each, the finished ones with their
 * final standings, and, once joined, the arena's live standings (points, races, wins, streak)
 * from `arena_standings`, where it stands, and Leave. Below them, ghost races: today's daily
 * winner at a difficulty. Imported by view.js when the page first opens (not on the first load);
 * the results screen shows an arena race's standings with `arenaTable`.
 */

import { clock, h, setAttr, setText } from '../dom.js';
import { errorSlot } from '../parts.js';

/** @typedef {import('../../../types/wire.js').ArenaInfo} ArenaInfo */
/** @typedef {import('../../../types/wire.js').ArenaStanding} ArenaStanding */
/** @typedef {import('../state.js').State} State */

/**
 * Where an arena stands at wall-clock time `wall` (UTC ms): its own word, corrected by its times
 * (a list fetched a while ago may still say `upcoming`).
 * @param {ArenaInfo} a
 * @param {number} wall
 * @returns {ArenaInfo['state']}
 */
export function arenaState(a, wall) {
  if (a.state === 'finished' || wall >= a.ends_unix_ms) return 'finished';
  return wall >= a.starts_unix_ms ? 'running' : 'upcoming';
}

/**
 * What a member is told of the arena: `starts in 3:20`, `ends in 12:05`, `is over`.
 * @param {ArenaInfo} a
 * @param {number} wall
 */
export function arenaWhen(a, wall) {
  switch (arenaState(a, wall)) {
    case 'upcoming':
      return `starts in ${clock(a.starts_unix_ms - wall)}`;
    case 'running':
      return `ends in ${clock(a.ends_unix_ms - wall)}`;
    default:
      return 'is over';
  }
}

/**
 * Seconds until an arena race's results ask for the next race (`next_at` on the page's clock),
 * or null when they will not.
 * @param {State} s
 * @param {number} now
 */
export function nextRaceIn(s, now) {
  const at = s.arena?.next_at;
  return typeof at === 'number' ? Math.max(0, Math.ceil((at - now) / 1000)) : null;
}

/** A local time of day, `14:00`. @param {number} ms */
const hhmm = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/**
 * An arena's standings (`data-testid=arena-standings`): rank, player, points, races, wins and the
 * streak (a streak of 2 wins or more doubles the next race's points: marked `×2`).
 * @param {string} [mine] our name, whose row is marked
 */
export function arenaTable(mine) {
  const body = h('tbody');
  const el = h('table', { class: 'results', 'data-testid': 'arena-standings' },
    h('thead', {}, h('tr', {}, ...['#', 'Player', 'Points', 'Races', 'Wins', 'Streak'].map((t) => h('th', { scope: 'col', text: t })))),
    body);
  /** @type {unknown} */
  let shown = null;
  /** @param {ArenaStanding[]} rows */
  function update(rows) {
    if (rows === shown) return;
    shown = rows;
    body.replaceChildren(...(rows.length ? rows.map((r, i) => h('tr', { 'data-handle': r.handle, class: r.name === mine ? 'mine' : null },
      h('td', { text: String(i + 1) }), h('td', {}, h('span', { class: 'name', text: r.name })),
      h('td', { 'data-testid': 'arena-points', text: String(r.points) }), h('td', { text: String(r.races) }),
      h('td', { text: String(r.wins) }), h('td', { 'data-testid': 'arena-streak', text: r.streak >= 2 ? `${r.streak} · ×2` : String(r.streak) }))) :
      [h('tr', {}, h('td', { colspan: 6, class: 'muted', text: 'No races yet.' }))]));
  }
  return { el, update };
}

/**
 * @param {import('../state.js').Actions} act
 * @param {import('../view.js').Env} env
 * @returns {import('../state.js').Screen}
 */
export function arenas(act, env) {
  const error = errorSlot();
  const name = h('input', { type: 'text', 'data-testid': 'arena-name', maxlength: 24, autocomplete: 'nickname', value: act.savedName(), 'aria-label': 'your name' });
  const member = memberCard(act);

  /** @returns {string | null} */
  function who() {
    const n = name.value.trim();
    if (n) return n;
    act.notice('Type a name first.');
    name.focus();
    return null;
  }

  const list = arenaList(act, who, env);
  list.load();

  const el = h('section', { class: 'screen arenas-page', 'data-testid': 'arenas-page' },
    h('p', {}, h('a', { href: '/', text: '← sudoku·race' })),
    h('h1', { text: 'Arenas' }),
    error.el,
    member.el,
    h('div', { class: 'card' },
      h('p', { class: 'muted', text: 'An arena runs for a set time. Its members race each other back to back; each race scores one point per racer beaten and 2 for a solve, doubled while your last two races were wins.' }),
      h('label', { class: 'name-field' }, h('span', { text: 'Your name' }), name),
      h('h2', {}, 'Arenas ', h('button', { type: 'button', class: 'small', onclick: list.load, text: 'Refresh' })),
      ...list.els),
    ghostCard(act),
  );

  /** @type {string | null} */
  let shownState = null;
  /** @type {string | null} */
  let shownId = null;
  return {
    el,
    update(s) {
      error.update(s.notice);
      const a = s.arena;
      setAttr(member.el, 'hidden', a ? null : '');
      // Joined or left: the list's player counts changed.
      if ((a?.arena_id ?? null) !== shownId) {
        if (shownId !== null || a) list.load();
        shownId = a?.arena_id ?? null;
      }
      if (!a) return;
      const state = member.update(s, a, Date.now());
      // The list's states move with the clock: refetch once when ours changes.
      if (shownState !== state) {
        if (shownState !== null) list.load();
        shownState = state;
      }
    },
  };
}

/**
 * The arena this page is a member of: its name, where it stands, its standings, Leave.
 * @param {import('../state.js').Actions} act
 */
function memberCard(act) {
  const title = h('h2', { 'data-testid': 'arena-title' });
  const when = h('p', { 'data-testid': 'arena-when', role: 'status' });
  const table = arenaTable(act.savedName());
  const leave = h('button', { type: 'button', 'data-testid': 'leave-arena', onclick: () => act.leaveArena(), text: 'Leave the arena' });
  return {
    el: h('div', { class: 'card', 'data-testid': 'arena-member', hidden: true }, title, when, h('div', { class: 'table-wrap' }, table.el), h('div', { class: 'row' }, leave)),
    /**
     * Draw arena `a` at the wall clock `wall`; its state then.
     * @param {import('../state.js').State} s
     * @param {NonNullable<import('../state.js').State['arena']>} a
     * @param {number} wall
     */
    update(s, a, wall) {
      setText(title, `${a.name} (${a.difficulty})`);
      const state = arenaState(a, wall);
      const doing = state === 'upcoming' ? 'You are in: your first race seats you by itself when it starts.'
        : state === 'running' ? (s.room ? '' : 'Waiting for your next race: you are seated with other members by itself.')
          : 'The standings are final.';
      setText(when, `The arena ${arenaWhen(a, wall)}. ${doing}`);
      table.update(a.standings);
      return state;
    },
  };
}

/**
 * The server's arenas (running first, then upcoming, then finished), each with Join or its
 * final standings; `load` fetches them again.
 * @param {import('../state.js').Actions} act
 * @param {() => string | null} who
 * @param {import('../view.js').Env} env
 */
function arenaList(act, who, env) {
  const list = h('ul', { class: 'rooms arenas', 'data-testid': 'arena-list' });
  const listError = h('p', { class: 'error', role: 'alert', hidden: true });
  const finals = h('div', { class: 'table-wrap' });

  /** @param {string} id */
  async function showFinal(id) {
    try {
      const a = await env.api(`/api/arenas/${encodeURIComponent(id)}`);
      const t = arenaTable();
      t.el.setAttribute('data-testid', 'arena-final');
      t.update(a.standings ?? []);
      finals.replaceChildren(h('h3', { text: `${a.name}: final standings` }), t.el);
    } catch (e) {
      finals.replaceChildren(h('p', { class: 'error', text: e instanceof Error ? e.message : String(e) }));
    }
  }

  /** @param {ArenaInfo} a @param {number} wall */
  function row(a, wall) {
    const state = arenaState(a, wall);
    const words = `${a.difficulty} · ${hhmm(a.starts_unix_ms)}–${hhmm(a.ends_unix_ms)} · ${state} · ${a.players} player${a.players === 1 ? '' : 's'} `;
    const button = state === 'finished'
      ? h('button', { type: 'button', class: 'small', 'aria-label': `Standings of arena ${a.name}`, onclick: () => showFinal(a.arena_id), text: 'Standings' })
      : h('button', { type: 'button', class: 'small', 'data-testid': 'join-arena', 'data-arena-id': a.arena_id, 'aria-label': `Join arena ${a.name}`,
        onclick: () => {
          const n = who();
          if (n) act.joinArena(a.arena_id, n);
        }, text: 'Join' });
    return h('li', { 'data-arena-id': a.arena_id, 'data-state': state }, h('b', { text: a.name }), h('span', { text: ` ${words}` }), button);
  }

  async function load() {
    try {
      const v = await env.api('/api/arenas');
      /** @type {ArenaInfo[]} */
      const all = v.arenas ?? [];
      const wall = Date.now();
      const order = { running: 0, upcoming: 1, finished: 2 };
      all.sort((x, y) => order[arenaState(x, wall)] - order[arenaState(y, wall)] || x.starts_unix_ms - y.starts_unix_ms);
      listError.setAttribute('hidden', '');
      list.replaceChildren(...(all.length ? all.map((a) => row(a, wall)) : [h('li', { class: 'muted', text: 'This server runs no arenas.' })]));
    } catch (e) {
      setText(listError, e instanceof Error ? e.message : String(e));
      listError.removeAttribute('hidden');
    }
  }
  return { els: [listError, list, finals], load };
}

/**
 * Ghost races: today's daily winner at a difficulty. The daily and ghosts are classic only (A10:
 * the server refuses another variant), so there is no variant picker here.
 * @param {import('../state.js').Actions} act
 */
function ghostCard(act) {
  const level = h('select', { 'data-testid': 'winner-difficulty', 'aria-label': 'difficulty' },
    ...['easy', 'medium', 'hard', 'expert'].map((d) => h('option', { value: d, text: d })));
  level.value = 'medium';
  return h('div', { class: 'card' },
    h('h2', { text: 'Ghost races' }),
    h('p', { class: 'muted', text: 'Race a stored race replayed move by move: today\'s daily winner here, or your own best from your player page.' }),
    h('div', { class: 'row' }, level,
      h('button', { type: 'button', class: 'primary', 'data-testid': 'race-winner',
        onclick: () => act.raceGhost('daily', /** @type {import('../../../types/wire.js').Difficulty} */ (level.value)),
        text: 'Race the daily winner' })));
}
