//! `sudoku-race rooms`: the public rooms waiting for players, as a table.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use client::net::{self, Intent, NetEvent};
use client::term;
use protocol::{ClientMsg, ServerMsg};

use crate::cmd::{endpoint, settings, ServerArg};

/// `sudoku-race rooms`.
#[derive(Args, Debug)]
pub struct RoomsArgs {
    #[command(flatten)]
    server: ServerArg,
}

/// `sudoku-race rooms`: print the public rooms as a table.
pub fn rooms(rt: &tokio::runtime::Runtime, a: RoomsArgs) -> anyhow::Result<ExitCode> {
    term::log_to_stderr();
    let settings = settings(&a.server, None)?;
    let to = endpoint(&settings.server, a.server.ca_file.as_deref())?;
    let url = to.url.clone();
    let rooms = rt.block_on(async {
        let (session, mut events) = net::connect(to, Intent::Nothing);
        session.send(ClientMsg::ListRooms);
        let wait = async {
            while let Some(ev) = events.recv().await {
                match ev {
                    NetEvent::Message(m) => match *m {
                        ServerMsg::RoomList { rooms } => return Ok(rooms),
                        ServerMsg::Error { code, message, .. } => {
                            bail!("{}: {message}", code.as_str())
                        }
                        _ => {}
                    },
                    NetEvent::Closed { error } => {
                        bail!("{}", error.unwrap_or_else(|| "connection closed".into()))
                    }
                    _ => {}
                }
            }
            bail!("connection closed")
        };
        tokio::time::timeout(Duration::from_secs(10), wait)
            .await
            .with_context(|| format!("no answer from {url} in 10 s"))?
    })?;
    print!("{}", rooms_table(&rooms));
    Ok(ExitCode::SUCCESS)
}

/// The `rooms` table.
pub fn rooms_table(rooms: &[protocol::RoomSummary]) -> String {
    if rooms.is_empty() {
        return "no public rooms are waiting for players\n".to_owned();
    }
    let mut out = format!(
        "{:<10} {:>7}  {:<10}  {}\n",
        "ROOM", "PLAYERS", "DIFFICULTY", "STATE"
    );
    for r in rooms {
        let state = match r.phase {
            protocol::Phase::Finished => "between races",
            _ => "waiting",
        };
        out.push_str(&format!(
            "{:<10} {:>7}  {:<10}  {state}\n",
            r.room,
            format!("{}/{}", r.players, r.max_players),
            r.difficulty.as_str()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Difficulty;
    use protocol::RoomSummary;

    #[test]
    fn rooms_print_as_a_table() {
        let rooms = [
            RoomSummary {
                room: "K7QX".try_into().unwrap(),
                players: 2,
                max_players: 8,
                phase: protocol::Phase::Lobby,
                difficulty: Difficulty::Hard,
            },
            RoomSummary {
                room: "M2NPQ".try_into().unwrap(),
                players: 3,
                max_players: 4,
                phase: protocol::Phase::Finished,
                difficulty: Difficulty::Easy,
            },
        ];
        assert_eq!(
            rooms_table(&rooms),
            "ROOM       PLAYERS  DIFFICULTY  STATE\n\
             K7QX           2/8  hard        waiting\n\
             M2NPQ          3/4  easy        between races\n"
        );
        assert_eq!(
            rooms_table(&[]),
            "no public rooms are waiting for players\n"
        );
    }
}
