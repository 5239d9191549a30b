//! How we come to sit in a room ([`Seating`]): what we asked the server for (the [`Intent`], to
//! ask again under another name or answer a refusal in place), a seat to take once the race we
//! watch ends, and the switch from the spectators' bench to a seat under way. It decides the
//! asks those moves send.

use engine::Difficulty;
use protocol::ClientMsg;

use super::outside;
use crate::net::Intent;

/// What we asked for and the seat we are taking.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Seating {
    /// What we asked the server for (a room to create, join or watch), to ask again.
    intent: Option<Intent>,
    /// Watching a race we were refused a seat in: take one when it ends.
    seat_after_race: bool,
    /// Sent `leave` to take a seat: until `room_joined`, the room on screen is no longer ours.
    switching: bool,
}

impl Seating {
    /// What we last asked the server for.
    pub fn intent(&self) -> Option<&Intent> {
        self.intent.as_ref()
    }

    /// Watching a race we were refused a seat in, to take one when it ends.
    pub fn seat_after_race(&self) -> bool {
        self.seat_after_race
    }

    /// What the connection task asks for first (it sends the ask itself).
    pub(super) fn remember(&mut self, intent: Intent) {
        self.intent = Some(intent);
    }

    /// Ask for `intent` from now on; its first message, for the connection we are on.
    pub(super) fn ask(&mut self, intent: Intent) -> Option<ClientMsg> {
        let ask = intent.first_message();
        self.intent = Some(intent);
        ask
    }

    /// Ask again under `name` what was refused under another; `None` if we asked nothing.
    pub(super) fn rename(&mut self, name: &str) -> Option<Option<ClientMsg>> {
        let intent = outside::renamed(self.intent.as_ref()?, name);
        Some(self.ask(intent))
    }

    /// Refused a seat in `room` mid-race: watch it now, and take a seat when it ends.
    pub(super) fn watch_then_join(&mut self, room: String, name: &str) -> ClientMsg {
        self.seat_after_race = true;
        self.intent = Some(Intent::Spectate {
            room: room.clone(),
            name: name.to_owned(),
            boards: false,
        });
        ClientMsg::Spectate {
            room,
            name: Some(name.to_owned()),
            key: None,
            boards: false,
            variants: crate::net::drawn(),
        }
    }

    /// The race we watched in `room` is over: leave the bench and ask for a seat, if we were
    /// waiting for one. The messages to send, in order.
    pub(super) fn take_a_seat(&mut self, room: String, name: &str) -> Option<Vec<ClientMsg>> {
        if !self.seat_after_race {
            return None;
        }
        self.seat_after_race = false;
        self.switching = true;
        let ask = self.ask(Intent::Join {
            room,
            name: name.to_owned(),
        });
        Some(std::iter::once(ClientMsg::Leave).chain(ask).collect())
    }

    /// `room_joined`: any switch is over.
    pub(super) fn entered(&mut self) {
        self.switching = false;
    }

    /// An `error` came: true if our `leave` for a seat went through before it, so the room on
    /// screen is no longer ours.
    pub(super) fn left_for_a_seat(&mut self) -> bool {
        std::mem::take(&mut self.switching)
    }

    /// The server restarted: no seat is waited for any more.
    pub(super) fn restarted(&mut self) {
        self.seat_after_race = false;
    }

    /// The room an ask named, if any.
    pub(super) fn room(&self) -> Option<&str> {
        outside::intent_room(self.intent.as_ref())
    }

    /// The variant of the pool, daily or ghost we last asked for (classic if none).
    pub fn variant(&self) -> engine::Variant {
        match &self.intent {
            Some(
                Intent::Quick { variant, .. }
                | Intent::Daily { variant, .. }
                | Intent::Ghost { variant, .. },
            ) => *variant,
            _ => engine::Variant::Classic,
        }
    }

    /// The difficulty we last asked for (medium if none).
    pub(super) fn difficulty(&self) -> Difficulty {
        match &self.intent {
            Some(Intent::Quick { difficulty, .. } | Intent::Daily { difficulty, .. }) => {
                *difficulty
            }
            Some(Intent::Ghost {
                difficulty: Some(d),
                ..
            }) => *d,
            Some(Intent::Create {
                settings: Some(s), ..
            }) => s
                .difficulty
                .as_deref()
                .and_then(|d| d.parse().ok())
                .unwrap_or(Difficulty::Medium),
            _ => Difficulty::Medium,
        }
    }
}
