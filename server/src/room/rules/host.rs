//! What the host may do between races (Amendment A5): change the settings for the next race,
//! and kick a player, whose name and address are then barred from the room for a while.

use std::net::IpAddr;

use protocol::{ErrorCode, PlayerName, ServerMsg, Settings};
use tokio::time::Instant;

use super::seats::Refusal;
use super::{Effect, Room, State};
use crate::outbox::ConnId;

/// A kicked player's name (by its key) and address, barred from the room until `until`.
#[derive(Debug)]
pub(super) struct Bar {
    key: String,
    addr: Option<IpAddr>,
    until: Instant,
}

impl Room {
    /// Whether `conn` is the host and the room is between races; else the error is sent.
    fn host_between_races(&mut self, conn: ConnId, what: &str) -> bool {
        let Some(i) = self.seat_of(conn) else {
            return false;
        };
        if self.seats.host() != Some(&self.seats.seat(i).player_id) {
            self.fx.error(
                conn,
                ErrorCode::NotHost,
                format!("only the host can {what}"),
            );
            return false;
        }
        if !matches!(self.state, State::Lobby | State::Finished) {
            self.fx.error(
                conn,
                ErrorCode::WrongPhase,
                format!("the host can {what} only between races"),
            );
            return false;
        }
        true
    }

    /// `set_settings` from `conn` (already resolved, so in range): they apply from the next
    /// race. Fewer `max_players` than seats taken (held ones included) is `invalid_settings`:
    /// nobody is unseated by a setting.
    pub fn set_settings(&mut self, conn: ConnId, settings: Settings) {
        if !self.host_between_races(conn, "change the settings") {
            return;
        }
        if usize::from(settings.max_players) < self.seats.len() {
            self.fx.error(
                conn,
                ErrorCode::InvalidSettings,
                format!(
                    "max_players {} is below the {} players seated",
                    settings.max_players,
                    self.seats.len()
                ),
            );
            return;
        }
        let settings = self.kept(settings);
        tracing::info!(room = %self.code, ?settings, "settings changed");
        self.settings = settings.clone();
        self.send_all(ServerMsg::SettingsChanged { settings });
    }

    /// `kick` from `conn`: the player `player_id` (connected or held) gets `kicked` and leaves;
    /// the others get `player_left`. An unknown id, or the host's own, is `bad_message`.
    pub fn kick(&mut self, conn: ConnId, player_id: &str, now: Instant) {
        if !self.host_between_races(conn, "kick a player") {
            return;
        }
        let Some(i) = self.seats.by_player_id(player_id) else {
            self.fx
                .error(conn, ErrorCode::BadMessage, "no such player in this room");
            return;
        };
        if self.seats.seat(i).conn == Some(conn) {
            self.fx.error(
                conn,
                ErrorCode::BadMessage,
                "you cannot kick yourself; leave instead",
            );
            return;
        }
        let until = now + self.opts.kick_bar;
        self.bars.retain(|b| b.until > now);
        let seat = self.seats.seat_mut(i);
        self.bars.push(Bar {
            key: seat.name.key(),
            addr: seat.addr,
            until,
        });
        tracing::info!(room = %self.code, player_id, "kicked");
        if let Some(kicked) = seat.conn.take() {
            self.fx.error(
                kicked,
                ErrorCode::Kicked,
                "the host removed you from the room",
            );
            self.fx.push(Effect::Detach(kicked));
        }
        self.remove_seat(i, now);
    }

    /// A join by `name` from `addr` at `now` is refused while a kick bars either.
    pub(super) fn check_bars(
        &self,
        name: &PlayerName,
        addr: IpAddr,
        now: Instant,
    ) -> Result<(), Refusal> {
        let key = name.key();
        let barred = self
            .bars
            .iter()
            .any(|b| b.until > now && (b.key == key || b.addr == Some(addr)));
        if barred {
            return Err(Refusal::new(
                ErrorCode::Kicked,
                "you were removed from this room; try again later",
            ));
        }
        Ok(())
    }
}
