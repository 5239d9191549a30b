//! A crowd of chatting spectators against one room (`loadgen --spectators N`): the fan-out
//! attack of issue 9. Every spectator connects from this machine (one address), asks to watch
//! the first room, and chats at its own pace while reading everything; the race load measures
//! that room's players against the others'. With `--boards` (A8) they ask for the players'
//! delayed boards instead, and stay quiet, so that the boards are all they add.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use protocol::{ClientMsg, ErrorCode, RoomCode, ServerMsg};
use tokio::time::Instant;
use tokio_rustls::rustls::ClientConfig;
use tokio_tungstenite::tungstenite::Message;

use crate::wsclient;

/// What the crowd did and got.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrowdReport {
    /// Spectators that tried to get in.
    pub tried: usize,
    /// Admitted (`room_joined`).
    pub admitted: usize,
    /// Refused with `room_full` (the room's spectator cap).
    pub refused: usize,
    /// Chat lines sent by the admitted.
    pub chats_sent: u64,
    /// Chat lines refused with `rate_limited` (the room's chat budget, or a spectator's own).
    pub chats_refused: u64,
    /// Chat lines the admitted received (everyone's, broadcast by the room).
    pub chats_heard: u64,
    /// Admitted spectators whose connection the server closed before the end.
    pub closed_early: usize,
    /// `board` messages the admitted received (A8).
    pub boards_heard: u64,
}

/// How the crowd watches.
#[derive(Clone, Copy, Debug)]
pub struct Watch {
    /// Each spectator's pace of chat lines; `None`: silent.
    pub chat_every: Option<Duration>,
    /// Ask for the delayed boards (A8).
    pub boards: bool,
}

/// One spectator's share of the report.
async fn one(
    addr: SocketAddr,
    room: RoomCode,
    i: usize,
    watch: Watch,
    until: Instant,
    tls: Option<Arc<ClientConfig>>,
) -> CrowdReport {
    let mut r = CrowdReport {
        tried: 1,
        ..CrowdReport::default()
    };
    let Ok(mut ws) = wsclient::connect_tls(addr, "/ws", 4096, tls.as_ref()).await else {
        return r;
    };
    let name = format!("watcher{i}");
    let spectate = ClientMsg::Spectate {
        room: room.to_string(),
        name: Some(name),
        key: None,
        boards: watch.boards,
        variants: None,
    };
    if wsclient::send(&mut ws, &spectate).await.is_err() {
        return r;
    }
    let step = Duration::from_secs(10);
    let joined = wsclient::recv_until(&mut ws, step, |m| match m {
        ServerMsg::RoomJoined { .. } => Some(()),
        _ => None,
    })
    .await;
    if let Err(e) = joined {
        if e.to_string().contains(ErrorCode::RoomFull.as_str()) {
            r.refused = 1;
        }
        return r;
    }
    r.admitted = 1;
    let mut tick = tokio::time::interval(watch.chat_every.unwrap_or(Duration::from_secs(86_400)));
    if watch.chat_every.is_none() {
        // An interval's first tick is at once: a silent spectator's next is a day away.
        tick.tick().await;
    }
    let chat = serde_json::json!({"type": "chat", "text": "go go go"}).to_string();
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(until) => break,
            _ = tick.tick() => {
                if ws.send(Message::text(chat.clone())).await.is_err() {
                    r.closed_early = 1;
                    break;
                }
                r.chats_sent += 1;
            }
            frame = ws.next() => match frame {
                Some(Ok(Message::Text(t))) => match serde_json::from_str::<ServerMsg>(t.as_str()) {
                    Ok(ServerMsg::Chat { .. }) => r.chats_heard += 1,
                    Ok(ServerMsg::Board { .. }) => r.boards_heard += 1,
                    Ok(ServerMsg::Error { code: ErrorCode::RateLimited, .. }) => r.chats_refused += 1,
                    _ => {}
                },
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => {
                    r.closed_early = 1;
                    break;
                }
                Some(Ok(_)) => {}
            },
        }
    }
    wsclient::close(ws, Duration::from_secs(1)).await;
    r
}

/// `n` spectators try to watch `room` as `watch` says until `until`.
pub async fn run(
    addr: SocketAddr,
    room: RoomCode,
    n: usize,
    watch: Watch,
    until: Instant,
    tls: Option<Arc<ClientConfig>>,
) -> CrowdReport {
    let all = futures::future::join_all(
        (0..n).map(|i| one(addr, room.clone(), i, watch, until, tls.clone())),
    )
    .await;
    all.into_iter()
        .fold(CrowdReport::default(), |a, b| CrowdReport {
            tried: a.tried + b.tried,
            admitted: a.admitted + b.admitted,
            refused: a.refused + b.refused,
            chats_sent: a.chats_sent + b.chats_sent,
            chats_refused: a.chats_refused + b.chats_refused,
            chats_heard: a.chats_heard + b.chats_heard,
            closed_early: a.closed_early + b.closed_early,
            boards_heard: a.boards_heard + b.boards_heard,
        })
}
