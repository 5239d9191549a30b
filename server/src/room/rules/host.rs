//! The host's kicks (Amendment A5): a kicked player's name and address are barred from the
//! room for a while. What the host may do and when is the room's member commands' (`members`).

use std::net::IpAddr;
use std::time::Duration;

use protocol::{ErrorCode, PlayerName};
use tokio::time::Instant;

use super::seats::Refusal;

/// A kicked player's name (by its key) and address, barred from the room until `until`.
#[derive(Debug)]
struct Bar {
    key: String,
    addr: Option<IpAddr>,
    until: Instant,
}

/// The names and addresses kicked from a room and still barred.
#[derive(Debug)]
pub(super) struct Bars {
    /// How long a kick bars (`--kick-bar`).
    length: Duration,
    bars: Vec<Bar>,
}

impl Bars {
    /// No bars yet; each kick bars for `length`.
    pub(super) fn new(length: Duration) -> Bars {
        Bars {
            length,
            bars: Vec::new(),
        }
    }

    /// Bar `name` and `addr` from `now` on (the bars already over are forgotten).
    pub(super) fn bar(&mut self, name: &PlayerName, addr: Option<IpAddr>, now: Instant) {
        let until = now + self.length;
        self.bars.retain(|b| b.until > now);
        self.bars.push(Bar {
            key: name.key(),
            addr,
            until,
        });
    }

    /// A join by `name` from `addr` at `now` is refused while a kick bars either.
    pub(super) fn check(
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
