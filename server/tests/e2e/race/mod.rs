//! Races as the server runs them: a race from start to `race_over`, the host's controls, the
//! boards and replays, isomorphic deals, ghosts, the pool that always has a race, and arenas.

mod arena;
mod boards;
mod ghost;
mod host_controls;
mod isomorphs;
mod pool;
mod start_to_finish;
mod variants;
