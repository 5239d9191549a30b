//! The race load: `rooms` rooms of `players` bots each, every room racing, every bot placing
//! digits open-loop at its share of the target rate. Rooms use `max_mistakes: 0` (unlimited),
//! `penalty_s: 0` and the longest time limit, so the races last the whole run.
//!
//! Over a cluster ([`run_spread`]), room `r`'s player `j` connects to node `(r + j) % n`: the
//! creator of room `r` is on node `r % n`, so every node owns rooms, and the other players of
//! a room are spread over every node (those not on the owner's node are relayed).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use engine::Grid;
use futures::future::try_join_all;
use protocol::{ClientMsg, MsgId, PlaceReason, ServerMsg, SettingsRequest};
use rand::SeedableRng;
use tokio::time::Instant;

use super::launch::{Launched, Procs};
use super::plan::Plan;
use super::{Event, Group, RunReport, Schedule};
use crate::wsclient::{self, Ws};

/// What to run.
#[derive(Clone, Debug)]
pub struct RaceOpts {
    /// Rooms racing at once.
    pub rooms: usize,
    /// Players per room.
    pub players: usize,
    /// Target placements per second, over all players.
    pub rate: f64,
    /// How long placements are sent.
    pub duration: Duration,
    /// Difficulty of the rooms (`easy` .. `expert`).
    pub difficulty: String,
    /// How long to wait after the last send for answers still on their way.
    pub drain: Duration,
    /// Longest wait for any one setup step (connect, join, race start).
    pub step_timeout: Duration,
    /// Seed of the bots' placement orders.
    pub seed: u64,
    /// Connect over TLS with this client config (wss), else plain.
    pub tls: Option<std::sync::Arc<tokio_rustls::rustls::ClientConfig>>,
    /// Spectators that try to watch the first room, chatting while the race runs.
    pub spectators: usize,
    /// How often each spectator chats.
    pub chat_every: Duration,
    /// The spectators ask for the delayed boards (A8).
    pub boards: bool,
    /// The spectators chat (every `chat_every`); off in boards mode, so that only the boards
    /// differ between its rounds.
    pub crowd_chats: bool,
}

impl Default for RaceOpts {
    fn default() -> Self {
        RaceOpts {
            rooms: 2,
            players: 8,
            rate: 100.0,
            duration: Duration::from_secs(2),
            difficulty: "medium".into(),
            drain: Duration::from_secs(3),
            step_timeout: Duration::from_secs(20),
            seed: 1,
            tls: None,
            spectators: 0,
            chat_every: Duration::from_millis(100),
            boards: false,
            crowd_chats: true,
        }
    }
}

/// One room, set up and racing.
struct Room {
    code: protocol::RoomCode,
    conns: Vec<Ws>,
    player_ids: Vec<protocol::PlayerId>,
    puzzle: Grid,
}

/// The node of room `r`'s player `j` among `n`.
fn node_of(r: usize, j: usize, n: usize) -> usize {
    (r + j) % n.max(1)
}

async fn setup_room(addrs: &[SocketAddr], r: usize, opts: &RaceOpts) -> Result<Room> {
    let t = opts.step_timeout;
    let mut conns = Vec::with_capacity(opts.players);
    let mut player_ids = Vec::with_capacity(opts.players);
    let mut code = None;
    for j in 0..opts.players {
        let addr = addrs[node_of(r, j, addrs.len())];
        let mut ws = wsclient::connect_tls(addr, "/ws", 16 * 1024, opts.tls.as_ref()).await?;
        wsclient::welcomed(&mut ws, t).await?;
        let name = format!("bot{r}-{j}");
        let msg = if j == 0 {
            ClientMsg::CreateRoom {
                name,
                settings: Some(SettingsRequest {
                    difficulty: Some(opts.difficulty.clone()),
                    max_players: Some(i64::try_from(opts.players).context("players")?),
                    time_limit_s: Some(7200),
                    max_mistakes: Some(0),
                    penalty_s: Some(0),
                    public: Some(false),
                    rated: None,
                    isomorphs: None,
                    variant: None,
                }),
                bot: false,
                key: None,
                variants: None,
            }
        } else {
            ClientMsg::JoinRoom {
                room: code.clone().map(String::from).unwrap_or_default(),
                name,
                bot: false,
                key: None,
                variants: None,
            }
        };
        wsclient::send(&mut ws, &msg).await?;
        let (room, pid) = wsclient::recv_until(&mut ws, t, |m| match m {
            ServerMsg::RoomJoined { room, you, .. } => Some((room, you.player_id)),
            _ => None,
        })
        .await
        .with_context(|| format!("room {r}: player {j} joins"))?;
        if j == 0 {
            code = Some(room);
        }
        player_ids.push(pid.context("a player has a player_id")?);
        conns.push(ws);
    }
    wsclient::send(&mut conns[0], &ClientMsg::StartRace).await?;
    let mut puzzle = None;
    for ws in &mut conns {
        let p = wsclient::recv_until(ws, t, |m| match m {
            ServerMsg::RaceStarted { puzzle, .. } => Some(puzzle),
            _ => None,
        })
        .await
        .with_context(|| format!("room {r}: race start"))?;
        if *puzzle.get_or_insert(p) != p {
            bail!("room {r}: players got different puzzles");
        }
    }
    let puzzle = puzzle.context("a room has players")?;
    Ok(Room {
        code: code.context("a room has a code")?,
        conns,
        player_ids,
        puzzle,
    })
}

/// What a bot's stream means to the tracker.
fn parse(text: &str, ids: &HashMap<protocol::PlayerId, usize>) -> Event {
    match serde_json::from_str::<ServerMsg>(text) {
        Ok(ServerMsg::Placement {
            id: Some(MsgId::Number(id)),
            accepted,
            reason,
            ..
        }) => {
            let mistake = matches!(reason, Some(PlaceReason::Wrong | PlaceReason::Conflict));
            match id.as_u64() {
                // `given` or `filled` means the bot's own board went wrong.
                Some(id) if accepted || mistake => Event::Reply {
                    id,
                    accepted,
                    mistake,
                },
                _ => Event::Error,
            }
        }
        Ok(ServerMsg::Progress(p)) => match ids.get(&p.player_id) {
            Some(&from) => Event::Copy {
                from,
                seq: u64::from(p.filled) + u64::from(p.mistakes),
            },
            None => Event::Error,
        },
        Ok(ServerMsg::Placement { .. } | ServerMsg::Error { .. }) | Err(_) => Event::Error,
        Ok(_) => Event::Other,
    }
}

/// Runs the race load against the server at `addr` (pid `pid`, if known, for its CPU time).
pub async fn run(addr: SocketAddr, pid: Option<u32>, opts: &RaceOpts) -> Result<RunReport> {
    run_spread(&[addr], &Procs::one(pid), opts).await
}

/// Runs the race load with every room's players spread over the nodes at `addrs` (see the
/// module's doc), measuring the CPU of `procs`. The spectators watch from the first node.
pub async fn run_spread(addrs: &[SocketAddr], procs: &Procs, opts: &RaceOpts) -> Result<RunReport> {
    let first_node = *addrs.first().context("a run has a server")?;
    let rooms = try_join_all((0..opts.rooms).map(|r| setup_room(addrs, r, opts))).await?;
    let n = opts.rooms * opts.players;
    let t0 = Instant::now() + Duration::from_millis(200);
    let schedule = Schedule::new(t0, opts.rate, n, opts.duration);
    let deadline = schedule.end + opts.drain;
    let mut rng = rand::rngs::StdRng::seed_from_u64(opts.seed);
    let crowd = match rooms.first() {
        Some(first) if opts.spectators > 0 => Some(tokio::spawn(super::crowd::run(
            first_node,
            first.code.clone(),
            opts.spectators,
            super::crowd::Watch {
                chat_every: opts.crowd_chats.then_some(opts.chat_every),
                boards: opts.boards,
            },
            schedule.end,
            opts.tls.clone(),
        ))),
        _ => None,
    };

    let mut launched = Launched::default();
    for (r, room) in rooms.into_iter().enumerate() {
        // Without a unique solution (never, from this server), bots make clashing moves only.
        let solution = engine::solver::solve_unique(&room.puzzle).ok();
        let offsets = (0..opts.players)
            .map(|j| schedule.offset(r * opts.players + j, n))
            .collect();
        let group = Arc::new(Group::new(schedule, offsets));
        launched.groups.push(Arc::clone(&group));
        let ids: Arc<HashMap<protocol::PlayerId, usize>> = Arc::new(
            room.player_ids
                .iter()
                .enumerate()
                .map(|(j, id)| (id.clone(), j))
                .collect(),
        );
        for (j, ws) in room.conns.into_iter().enumerate() {
            let plan = Plan::new(&room.puzzle, solution.as_ref(), &mut rng)
                .with_context(|| format!("room {r}: no placement can be made"))?;
            let ids = Arc::clone(&ids);
            launched.start(
                ws,
                &group,
                j,
                deadline,
                move |k| {
                    let (cell, digit) = plan.placement(k);
                    format!(r#"{{"type":"place","cell":{cell},"digit":{digit},"id":{k}}}"#)
                },
                move |text| parse(text, &ids),
            );
            if node_of(r, j, addrs.len()) != node_of(r, 0, addrs.len()) {
                launched.relayed_last();
            }
        }
    }
    // Leave politely: the races end (everyone left) and their results are stored.
    let mut report = launched.measure(t0, procs, true).await?;
    report.nodes = addrs.len();
    if let Some(c) = crowd {
        report.crowd = Some(c.await.context("the crowd's task")?);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text: &str, expected: &str) {
        let ids: HashMap<protocol::PlayerId, usize> = [("p1".into(), 0), ("p2".into(), 1)].into();
        let got = match parse(text, &ids) {
            Event::Reply {
                id,
                accepted,
                mistake,
            } => format!("reply {id} {accepted} {mistake}"),
            Event::Copy { from, seq } => format!("copy {from} {seq}"),
            Event::ReplyAndCopy { id } => format!("both {id}"),
            Event::Other => "other".to_owned(),
            Event::Error => "error".to_owned(),
        };
        assert_eq!(got, expected, "{text}");
    }

    #[test]
    fn rooms_rotate_their_creator_over_the_nodes() {
        // Room r's players, by node, over 3 nodes: the creator (player 0) on node r % 3.
        let nodes = |r| (0..5).map(|j| node_of(r, j, 3)).collect::<Vec<_>>();
        assert_eq!(nodes(0), [0, 1, 2, 0, 1]);
        assert_eq!(nodes(1), [1, 2, 0, 1, 2]);
        assert_eq!(nodes(5), [2, 0, 1, 2, 0]);
        assert_eq!(node_of(7, 3, 1), 0);
    }

    #[test]
    fn server_messages_become_events() {
        let placement = |id: &str, accepted: bool, reason: &str| {
            format!(
                r#"{{"type":"placement","id":{id},"cell":3,"digit":4,"accepted":{accepted},"reason":{reason},"conflicts":[],"mistakes":0,"penalty_ms":0}}"#
            )
        };
        check(&placement("7", true, "null"), "reply 7 true false");
        check(
            &placement("8", false, r#""conflict""#),
            "reply 8 false true",
        );
        check(&placement("9", false, r#""wrong""#), "reply 9 false true");
        check(&placement("9", false, r#""given""#), "error");
        check(&placement("null", true, "null"), "error");
        check(
            r#"{"type":"progress","player_id":"p2","filled":3,"to_fill":50,"mistakes":4}"#,
            "copy 1 7",
        );
        check(
            r#"{"type":"progress","player_id":"p9","filled":3,"to_fill":50,"mistakes":4}"#,
            "error",
        );
        check(
            r#"{"type":"error","code":"rate_limited","message":"slow down"}"#,
            "error",
        );
        check(r#"{"type":"pong","id":null}"#, "other");
        check("not json", "error");
    }
}
