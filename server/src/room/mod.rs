//! Rooms: where they are found, how connections reach them, the task that owns each one,
//! and the rules it runs.
//!
//! - [`backlog`]: results waiting for the database to come back.
//! - [`command`]: a room command, defined once: dispatched to the rules, logged, relayed.
//! - [`handle`]: the handle, commands and join outcomes connections use.
//! - [`journal`]: a room's command log, and the room rebuilt from it (A9 takeover).
//! - [`local_journal`]: a standalone server's journal of its rooms' logs on disk, and the
//!   rooms rebuilt from it after a crash.
//! - [`directory`]: the one owner of open rooms, resume tokens and per-address counts.
//! - `listing`: what the directory and `/api/tv` see of a room, kept current by its task.
//! - [`endpoint`]: how a room reaches a member, here or on another node (the relay seam).
//! - [`rooms`]: finding and opening rooms, on this node or across a cluster (the lookup seam).
//! - [`task`]: the task that alone owns one room's state and carries out its effects.
//! - [`rules`]: the rules as a pure state machine.

pub mod backlog;
pub mod command;
pub mod directory;
pub mod endpoint;
pub mod handle;
pub mod journal;
mod listing;
pub mod local_journal;
pub mod rooms;
pub mod rules;
pub mod task;
