// @ts-check
/**
 * The page's room moving to another server (A12), and its socket dropping mid-room: the race
 * goes on. While the page is away (`State.away`) its placements are held on the board as
 * pending; a `room_moving` answer (to a placement, or to the `resume` after a drop) is tried
 * again after the server's `retry_ms`, with backoff and jitter; right after a drop a room the
 * server does not know yet (`unknown_room`, `invalid_token`) is tried again too, for
 * MOVE_WINDOW_MS. When the room answers again (its `room_joined`, or an answer to a placement)
 * the held placements go. A room that does not come back has closed, and the page says so.
 * control.js's `Page` calls these; the screens show `State.away` as a countdown.
 *
 * Also the server restarting (A9): an ask for the pool or an arena answered `server_draining` is
 * asked again by itself on a new connection (`askAgainLater`), which a balancer sends to a
 * server that stays.
 */

import { backoff, GIVE_UP_MS } from './wire.js';

/** @typedef {import('./control.js').Page} Page */
/** @typedef {import('./state.js').State} State */
/** @typedef {import('../../types/wire.js').ServerMsg} ServerMsg */

/**
 * How long after a drop a room may still be moving: a lost server's lease lapses 10 s after its
 * last renewal and another server takes its rooms over within 5 s of that. Until then a server
 * may not know the room yet; after it, not knowing it means the room is gone.
 */
export const MOVE_WINDOW_MS = 20_000;

/**
 * Where the page stands while away from its room: the socket is `down` (the link reconnects by
 * itself), or the room is `moving` (the page tries again at `retry_at`); `since` is when it
 * began, `tries` the tries so far.
 * @typedef {{kind: 'down' | 'moving', since: number, retry_at: number, tries: number}} Away
 */

/**
 * The socket dropped in a room and the link tries again in `retryInMs`.
 * @param {Page} page
 * @param {number} retryInMs
 */
export function dropped(page, retryInMs) {
  const s = page.state;
  const now = page.deps.now();
  s.away = { kind: 'down', since: s.away?.since ?? now, retry_at: now + retryInMs, tries: s.away?.tries ?? 0 };
  page.moveTry += 1;
  hold(s);
}

/**
 * An `error` read for the room moving: `room_moving` in a room or to our resume after a drop,
 * and a room not known yet right after a drop. Whether it was (else it is an ordinary refusal).
 * @param {Page} page
 * @param {Extract<ServerMsg, {type: 'error'}>} msg
 */
export function movingError(page, msg) {
  const s = page.state;
  const resuming = page.intent?.kind === 'resume' && s.away !== null;
  if (msg.code === 'room_moving' && (resuming || s.room)) {
    // Not taken: what is unanswered waits for the room to answer again.
    hold(s);
    again(page, msg.retry_ms, resuming);
    return true;
  }
  if (!resuming || (msg.code !== 'unknown_room' && msg.code !== 'invalid_token')) return false;
  if (page.deps.now() - (s.away?.since ?? 0) < MOVE_WINDOW_MS) again(page, undefined, true);
  else closed(page, 'its server was lost and no other server took it over');
  return true;
}

/**
 * Try again after `retryMs` at the soonest, with backoff and jitter: the resume (`resuming`), or
 * the held placements. A try already due later stays (several answers to one round of re-sends
 * move it once). It holds nothing itself: placements sent again are on their way until answered
 * (a room taken over as they went shows itself, then answers them).
 * @param {Page} page
 * @param {number | undefined} retryMs
 * @param {boolean} resuming
 */
function again(page, retryMs, resuming) {
  const s = page.state;
  const now = page.deps.now();
  const a = s.away ?? { kind: 'moving', since: now, retry_at: now, tries: 0 };
  if (!resuming && a.kind === 'moving' && a.retry_at > now) {
    a.retry_at = Math.max(a.retry_at, now + (retryMs ?? 0));
    s.away = a;
    return;
  }
  if (now - a.since >= GIVE_UP_MS) {
    closed(page, `it did not come back on another server within ${GIVE_UP_MS / 1000} s`);
    return;
  }
  a.tries += 1;
  const pause = backoff(a.tries, retryMs, page.random);
  Object.assign(a, { kind: 'moving', retry_at: now + pause });
  s.away = a;
  const mine = ++page.moveTry;
  page.deps.later(() => {
    if (page.moveTry !== mine || s.away !== a) return;
    if (resuming) {
      page.takeBack();
    } else {
      // This try is due now: the next is scheduled from here.
      a.retry_at = page.deps.now();
      sendHeld(page);
      again(page, undefined, false);
    }
    page.redraw();
  }, pause);
}

/**
 * The room answers again (its `room_joined`, or an answer to one of our placements): the held
 * placements go now. After a `room_joined` (`view`), the room's whole state, what is still on
 * its way is looked at again a moment later ([`recheck`]).
 * @param {Page} page
 * @param {boolean} [view]
 */
export function back(page, view = false) {
  if (view) recheck(page);
  if (page.state.away === null) return;
  page.state.away = null;
  page.moveTry += 1;
  sendHeld(page);
}

/** How long after the room's whole view a placement still unanswered goes again. */
const UNANSWERED_MS = 1000;

/**
 * After the room's whole view (`room_joined`): a placement on its way then and still unanswered
 * UNANSWERED_MS later was not taken (relayed to an owner in the moment it died, it is answered by
 * nobody), so it goes again. One the room's new server has yet to answer is answered well within
 * that time, and is not sent twice.
 * @param {Page} page
 */
function recheck(page) {
  const race = page.state.race;
  const waiting = [...(race?.pending.entries() ?? [])].filter(([, p]) => !p.held).map(([id]) => id);
  if (!race || waiting.length === 0) return;
  page.deps.later(() => {
    if (page.state.race?.race_id !== race.race_id) return;
    const pending = page.state.race.pending;
    for (const id of waiting) {
      const p = pending.get(id);
      if (p) p.held = true;
    }
    if (page.state.away === null) sendHeld(page);
    page.redraw();
  }, UNANSWERED_MS);
}

/**
 * The room did not come back: it has closed (`why`), and its seat is gone.
 * @param {Page} page
 * @param {string} why
 */
function closed(page, why) {
  const s = page.state;
  const room = s.room ?? page.intent?.room ?? '';
  if (room) page.store.dropToken(room);
  s.away = null;
  page.moveTry += 1;
  s.problem = { code: 'room_closed', message: `Room ${room} has closed: ${why}.`, room };
}

/**
 * Every placement not yet answered is held for the room to answer again.
 * @param {State} s
 */
function hold(s) {
  for (const p of s.race?.pending.values() ?? []) p.held = true;
}

/**
 * Send the held placements again.
 * @param {Page} page
 */
function sendHeld(page) {
  for (const [id, p] of page.state.race?.pending ?? []) {
    if (!p.held) continue;
    p.held = false;
    page.link.send({ type: 'place', cell: p.cell, digit: p.digit, id });
  }
}

/**
 * `server_draining` answered an ask for the pool (or the arena `arenaId`): ask again by itself,
 * on a new connection, after `retryMs` at the soonest with backoff and jitter, for up to
 * GIVE_UP_MS; the restart screen counts down to it (`Problem.retry_at`).
 * @param {Page} page
 * @param {number | undefined} retryMs
 * @param {string | null} arenaId
 */
export function askAgainLater(page, retryMs, arenaId) {
  const s = page.state;
  const now = page.deps.now();
  const r = page.redo ?? { since: now, tries: 0 };
  if (now - r.since >= GIVE_UP_MS || !s.problem) {
    page.redo = null;
    return;
  }
  r.tries += 1;
  page.redo = r;
  const pause = backoff(r.tries, retryMs, page.random);
  s.problem.retry_at = now + pause;
  const mine = ++page.moveTry;
  page.deps.later(() => {
    if (page.moveTry !== mine || s.problem?.code !== 'restarting') return;
    if (!arenaId) return page.act.again('pool');
    const name = page.store.name() || 'player';
    page.reset({ rooms: s.rooms });
    page.link.connect();
    page.act.joinArena(arenaId, name);
    page.redraw();
  }, pause);
}

/**
 * An answer that puts the page somewhere (a room, the pool, an arena): nothing is asked again.
 * @param {Page} page
 * @param {ServerMsg} msg
 */
export function arrived(page, msg) {
  if (msg.type === 'queued' || msg.type === 'room_joined' || msg.type === 'arena_joined') page.redo = null;
}

/**
 * What the page tells the player while away from its room, or null: the race goes on, and when
 * the next try is.
 * @param {State} s
 * @param {number} now
 */
export function awayText(s, now) {
  const a = s.away;
  if (!a) return s.link === 'down' ? 'reconnecting…' : null;
  const what = s.phase === 'racing' ? 'race' : 'room';
  const secs = Math.max(0, Math.ceil((a.retry_at - now) / 1000));
  if (a.kind === 'down') {
    return `Connection lost — the ${what} goes on. ${secs > 0 ? `Reconnecting in ${secs} s…` : 'Reconnecting…'}`;
  }
  return `The ${what} moved to another server and goes on — ${secs > 0 ? `back in ${secs} s` : 'trying again…'}`;
}
