/**
 * The wire contract (../shared/spec/protocol.md with Amendments A1–A10; the project's words are
 * docs/protocol.md) as types for the browser client's JSDoc. Type-only: the browser never loads
 * this file (it lives outside public/, so the first load carries none of it); `tsc -p
 * jsconfig.json` reads it where a module writes `import('…/types/wire.js').Name`. The Rust twins
 * of these types live in the `protocol/` crate.
 */

export type Difficulty = 'easy' | 'medium' | 'hard' | 'expert';
export type Phase = 'lobby' | 'countdown' | 'racing' | 'finished';
/** A10: the variants; a room's `settings.variant` absent means classic. */
export type Variant = 'classic' | 'x' | 'windoku' | 'jigsaw' | 'killer';
/** A10: a killer cage, its cells (0..80) and the sum of their digits. */
export type Cage = { cells: number[]; sum: number };
/** A10: a seat's geometry beside its puzzle: `regions` (jigsaw), `cages` (killer); absent for the others. */
export type Layout = { variant?: Variant | null; regions?: string | null; cages?: Cage[] | null };
export type Status = 'waiting' | 'racing' | 'solved' | 'forfeited' | 'eliminated' | 'timed_out';

/** `pool`: a pool room (A7); `arena`: the arena whose race this room runs, else null. */
export type Settings = {
  difficulty: Difficulty; max_players: number; time_limit_s: number;
  max_mistakes: number; penalty_s: number; public: boolean; rated?: boolean; pool?: boolean;
  arena?: string | null;
  /** A10 (absent: classic). */
  variant?: Variant | null;
};

/** `ghost`: a stored race replayed by the server (A7 `race_ghost`). */
export type Player = {
  player_id: string; name: string; ready: boolean; connected: boolean; status: Status;
  handle?: string | null; bot?: boolean; ghost?: boolean;
};

export type Standing = {
  rank: number; player_id: string; name: string; status: Status; time_ms: number | null;
  filled: number; mistakes: number;
  /** A8: the server-clock time (penalties included) and the lag `time_ms` was compensated by. */
  time_ms_raw?: number | null; lag_ms?: number;
  /** A8: the seat's own puzzle and solution (its own isomorph when the race dealt one per seat). */
  puzzle?: string | null; solution?: string | null;
  /** A10: the seat's own geometry. */
  regions?: string | null; cages?: Cage[] | null;
};
export type Progress = { player_id: string; filled: number; to_fill: number; mistakes: number };
export type RatingChange = { player_id: string; handle: string; before: number; after: number };
export type RaceView = {
  race_id: string; puzzle: string | null; difficulty: Difficulty; time_limit_s: number;
  elapsed_ms: number; board: string | null; mistakes: number; progress: Progress[];
  /** Phase `finished` only (ours, additive): the standings and reason of the race's `race_over`. */
  standings?: Standing[]; reason?: string;
} & Layout;
export type You = { player_id: string | null; token: string | null; role: 'player' | 'spectator' };
export type RoomEntry = { room: string; players: number; max_players: number; difficulty: Difficulty; phase?: Phase; variant?: Variant | null };

/** One arena (A7), as `/api/arenas` and `arena_joined` show it. */
export type ArenaInfo = {
  arena_id: string; name: string; difficulty: Difficulty; starts_unix_ms: number; ends_unix_ms: number;
  state: 'upcoming' | 'running' | 'finished'; players: number; variant?: Variant | null;
};
/** One member's row of an arena's standings (A7), best first. */
export type ArenaStanding = { handle: string; name: string; points: number; races: number; wins: number; streak: number };

/** Every server message this client reads (others are ignored, as the contract says). */
export type ServerMsg =
  | { type: 'welcome'; protocol: number; server: string }
  | { type: 'room_joined'; room: string; you: You; host: string | null; settings: Settings; phase: Phase;
      players: Player[]; race: RaceView | null }
  | { type: 'room_list'; rooms: RoomEntry[] }
  | { type: 'player_joined'; player: Player }
  | { type: 'player_left'; player_id: string }
  | { type: 'player_updated'; player: Player }
  | { type: 'host_changed'; player_id: string }
  | { type: 'settings_changed'; settings: Settings }
  | { type: 'countdown'; starts_in_ms: number }
  | ({ type: 'race_started'; race_id: string; puzzle: string; difficulty: Difficulty; time_limit_s: number } & Layout)
  | { type: 'placement'; id: unknown; cell: number; digit: number; accepted: boolean;
      reason: null | 'wrong' | 'conflict' | 'given' | 'filled'; conflicts: number[]; mistakes: number;
      penalty_ms: number }
  | ({ type: 'progress' } & Progress)
  | { type: 'player_finished'; player_id: string; status: Status; time_ms: number | null }
  | { type: 'race_over'; race_id: string; reason: string; standings: Standing[]; solution: string;
      ratings?: RatingChange[] }
  | { type: 'registered'; key: string; handle: string }
  /** Reserved by A1 and never sent by our server: deprecated, not handled. */
  | { type: 'solution'; solution: string }
  | { type: 'chat'; player_id: string | null; name: string; text: string }
  | { type: 'room_closed'; room: string; reason?: 'host_closed' | 'shutdown' | 'drain' | 'node_lost' }
  | { type: 'ratings'; race_id: string; ratings: RatingChange[] }
  | { type: 'pong'; id: unknown }
  | { type: 'reported'; player_id: string }
  | { type: 'queued'; difficulty: Difficulty; waiting: number; variant?: Variant | null }
  | { type: 'left_queue' }
  | { type: 'pool_alone'; ghost: string | null }
  | { type: 'arena_joined'; arena: ArenaInfo }
  | { type: 'arena_standings'; arena_id: string; standings: ArenaStanding[] }
  | { type: 'left_arena'; arena_id: string }
  | { type: 'board'; player_id: string; board: string; at_ms: number }
  | { type: 'error'; code: string; message: string; retry_ms?: number };

/** A10: the variants a client draws, in every message that enters a room, a pool or an arena. */
type Draws = { variants?: string[] };

/** Every client message this client sends. */
export type ClientMsg =
  | ({ type: 'create_room'; name: string; settings?: Partial<Settings>; key?: string } & Draws)
  | ({ type: 'join_room'; room: string; name: string; key?: string } & Draws)
  | ({ type: 'spectate'; room: string; name?: string; key?: string; boards?: boolean } & Draws)
  | { type: 'register'; name: string }
  | ({ type: 'resume'; token: string } & Draws)
  | { type: 'list_rooms' }
  | { type: 'set_ready'; ready: boolean }
  | { type: 'start_race' }
  | { type: 'place'; cell: number; digit: number; id?: number }
  | { type: 'forfeit' }
  | { type: 'chat'; text: string }
  | { type: 'leave' }
  | { type: 'ping'; id?: number }
  | { type: 'set_settings'; settings: Partial<Settings> }
  | { type: 'kick'; player_id: string }
  | { type: 'report'; player_id: string; reason: string }
  // The pool, the daily, ghosts and arenas are classic only so far (A10): the page never sends them a `variant`.
  | ({ type: 'quick_race'; difficulty: Difficulty; name: string; key?: string } & Draws)
  | { type: 'leave_queue' }
  | { type: 'requeue' }
  | ({ type: 'race_ghost'; ghost: string; difficulty?: Difficulty; name: string; key?: string } & Draws)
  | ({ type: 'start_daily'; difficulty?: Difficulty; name: string; key?: string } & Draws)
  | ({ type: 'join_arena'; arena_id: string; name: string; key?: string } & Draws)
  | { type: 'leave_arena' };
