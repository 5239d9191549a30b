//! The server restarting for an update (A9): a room closed for a drain or a shutdown, or an ask
//! answered `server_draining`. The screen says so plainly and offers a new room (`n`) or the
//! pool (`p`); the connection task sends that ask on a new connection, which a balancer sends to
//! a server that stays. An ask for the pool or an arena answered `server_draining` is asked
//! again by itself ([`Redo`]): after `retry_ms` at the soonest, with backoff and jitter, for up
//! to [`GIVE_UP_AFTER`]; the screen counts down to it.
//!
//! The restart's state is the [`Outside::Restarting`] screen; these are its decisions. The app
//! clears the rest of the screen around them (`on_server`, `on_key`).

use std::time::Duration;

use engine::Difficulty;
use protocol::{ErrorCode, RoomCode, ServerMsg, SettingsRequest};

use super::keys::Action;
use super::{App, Effect, Outside};
use crate::net::{Backoff, Intent, GIVE_UP_AFTER};

/// An ask answered `server_draining` that the app asks again by itself, on a new connection.
#[derive(Clone, Debug, PartialEq)]
pub struct Redo {
    /// What is asked again.
    intent: Intent,
    /// Local clock of the first `server_draining`.
    since_ms: u64,
    /// Local clock of the next ask; `None` while one is out.
    at_ms: Option<u64>,
    /// The asks so far.
    tries: Backoff,
}

/// A wait in ms of the local clock.
fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl App {
    /// `server_draining` answered an ask (`retry_ms` if it said when to come back): one for the
    /// pool (asked, or a pool room's `requeue`) or an arena is asked again by itself later.
    pub(super) fn redo_later(&mut self, retry_ms: Option<u64>) {
        let name = self.name.clone();
        let pool_room = self.room().filter(|r| r.settings.pool);
        let intent = match (&self.arena, pool_room, self.seating.intent()) {
            (Some(arena), _, _) => Intent::Arena {
                arena_id: arena.info.arena_id.clone(),
                name,
            },
            (None, Some(room), _) => Intent::Quick {
                difficulty: room.settings.difficulty,
                variant: room.settings.variant,
                name,
            },
            (
                None,
                None,
                Some(Intent::Quick {
                    difficulty,
                    variant,
                    ..
                }),
            ) => Intent::Quick {
                difficulty: *difficulty,
                variant: *variant,
                name,
            },
            _ => {
                self.redo = None;
                return;
            }
        };
        let now = self.clock_ms;
        let mut redo = self
            .redo
            .take()
            .filter(|r| r.intent == intent)
            .unwrap_or(Redo {
                intent,
                since_ms: now,
                at_ms: None,
                tries: Backoff::default(),
            });
        if now.saturating_sub(redo.since_ms) >= ms(GIVE_UP_AFTER) {
            // Long enough: the screen's own offers stay.
            return;
        }
        redo.at_ms = Some(now + ms(redo.tries.next(retry_ms, now)));
        self.redo = Some(redo);
    }

    /// When the ask goes again by itself, if it does (local clock).
    pub fn redo_at_ms(&self) -> Option<u64> {
        self.redo.as_ref().and_then(|r| r.at_ms)
    }

    /// A tick on the restart screen: the ask goes again when its time has come.
    pub(super) fn redo_tick(&mut self) -> Vec<Effect> {
        let now = self.clock_ms;
        if !matches!(self.outside, Outside::Restarting { .. }) {
            return Vec::new();
        }
        let Some(redo) = self
            .redo
            .as_mut()
            .filter(|r| r.at_ms.is_some_and(|t| t <= now))
        else {
            return Vec::new();
        };
        redo.at_ms = None;
        let ask = self.seating.ask(redo.intent.clone());
        self.outside = Outside::Entering;
        self.notify("asking another server…", false);
        ask.map(Effect::Send).into_iter().collect()
    }
}

impl Outside {
    /// The restart screen, if `msg` is the server restarting; `prev_room` is the room we were
    /// in, and `difficulty` the one we last raced or asked for.
    pub(super) fn restart(
        msg: &ServerMsg,
        prev_room: Option<String>,
        (difficulty, variant): (Difficulty, engine::Variant),
    ) -> Option<Outside> {
        let room = match msg {
            ServerMsg::RoomClosed { room, .. } if crate::net::restarting(msg) => Some(room.clone()),
            ServerMsg::Error {
                code: ErrorCode::ServerDraining,
                ..
            } => prev_room.and_then(|r| RoomCode::try_from(r.as_str()).ok()),
            _ => return None,
        };
        Some(Outside::Restarting {
            room,
            difficulty,
            variant,
        })
    }

    /// `n` (a new room) or `p` (Play now) on the restart screen: what to ask for, under `name`,
    /// on a new connection.
    pub(super) fn again(&self, action: Action, name: &str) -> Option<Intent> {
        let Outside::Restarting {
            difficulty,
            variant,
            ..
        } = *self
        else {
            return None;
        };
        let name = name.to_owned();
        Some(match action {
            Action::PlayNow => Intent::Quick {
                difficulty,
                variant,
                name,
            },
            _ => Intent::Create {
                name,
                settings: Some(SettingsRequest {
                    difficulty: Some(difficulty.as_str().to_owned()),
                    variant: crate::net::wire_variant(variant),
                    ..SettingsRequest::default()
                }),
            },
        })
    }
}
