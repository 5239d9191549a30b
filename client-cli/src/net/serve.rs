//! One socket's life ([`Task::serve`]): the hello and its answer (asked again while the room
//! moves, A12), then the server's messages to the caller and the caller's to the server, and a
//! keepalive ping, until the socket ends ([`End`]).

use futures::{SinkExt, StreamExt};
use protocol::text::terminal_safe;
use protocol::{ClientMsg, ErrorCode, ServerMsg};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tracing::{debug, warn};

use super::rejoin::{Hello, Verdict};
use super::{
    keep, parse_server_msg, restarting, send, End, NetEvent, Task, Ws, CLOSE_WAIT, KEEPALIVE,
};

impl Task {
    /// Serve one socket: send `hello` (what the caller sent meanwhile waits for its answer),
    /// then carry messages both ways until the socket ends.
    pub(super) async fn serve(&mut self, mut ws: Ws, mut hello: Option<Hello>) -> End {
        let sent = match &hello {
            Some(h) => send(&mut ws, &h.msg).await.map_err(End::Dropped),
            None => self.flush(&mut ws).await,
        };
        if let Err(end) = sent {
            return end;
        }
        let mut keepalive = tokio::time::interval(KEEPALIVE);
        keepalive.tick().await;
        let mut leaving = false;
        // When the hello goes again (its room is moving).
        let mut again_at: Option<Instant> = None;
        loop {
            let again = async move {
                match again_at {
                    Some(t) => tokio::time::sleep_until(t).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                frame = ws.next() => {
                    let frame = match frame {
                        None => return if leaving { End::CallerDone } else { End::Dropped("closed".into()) },
                        Some(Err(e)) => return if leaving { End::CallerDone } else { End::Dropped(e.to_string()) },
                        Some(Ok(f)) => f,
                    };
                    match frame {
                        Message::Text(text) => {
                            let step = self.on_server_text(&mut ws, text.as_str(), &mut hello, &mut again_at);
                            if let Some(end) = step.await {
                                return end;
                            }
                        }
                        Message::Close(frame) => return closed_by_server(frame, leaving, self.seat.token.is_some()),
                        Message::Binary(_) | Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
                    }
                }
                msg = self.rx.recv() => {
                    let end = if hello.is_some() {
                        self.hold(&mut ws, msg).await
                    } else {
                        self.on_caller(&mut ws, msg, &mut leaving).await
                    };
                    if let Some(end) = end {
                        return end;
                    }
                }
                () = again => {
                    again_at = None;
                    if let Some(h) = &hello {
                        if let Err(e) = send(&mut ws, &h.msg).await {
                            return End::Dropped(e);
                        }
                    }
                }
                _ = keepalive.tick() => {
                    if let Err(e) = ws.send(Message::Ping(Vec::new().into())).await {
                        return End::Dropped(format!("ping: {e}"));
                    }
                }
            }
        }
    }

    /// Send what the caller sent while the socket was down or the hello unanswered. What could
    /// not go out stays queued.
    async fn flush(&mut self, ws: &mut Ws) -> Result<(), End> {
        while let Some(m) = self.queued.pop_front() {
            if let Err(e) = send(ws, &m).await {
                self.queued.push_front(m);
                return Err(End::Dropped(e));
            }
        }
        Ok(())
    }

    /// One text frame from the server: parsed (made terminal-safe), remembered by the seat,
    /// read against the `hello` waiting for its answer, and handed to the caller. `Some` when
    /// it ends the connection: a room gone, a full server, a closed room, a caller gone.
    async fn on_server_text(
        &mut self,
        ws: &mut Ws,
        text: &str,
        hello: &mut Option<Hello>,
        again_at: &mut Option<Instant>,
    ) -> Option<End> {
        let msg = match parse_server_msg(text) {
            Ok(m) => m,
            Err(e) => {
                let text = terminal_safe(text);
                warn!(error = %e, %text, "unparsable server message skipped");
                return None;
            }
        };
        debug!(?msg, "recv");
        self.seat.observe(&msg);
        let verdict = match hello.as_mut() {
            Some(h) => h.answer(&msg, &self.to, Instant::now(), rand::random()),
            None => Verdict::Pass,
        };
        match verdict {
            Verdict::Pass => {}
            Verdict::Again { attempt, delay } => {
                debug!(attempt, ?delay, "the room is moving: asking again");
                *again_at = Some(Instant::now() + delay);
                let _ = self.events.send(NetEvent::Moving { attempt, delay });
                return None;
            }
            Verdict::Gone(why) => {
                // The reason names the answer; the caller hears it once, as the session's end
                // (not as a refusal of something it asked).
                self.seat.token = None;
                self.seat.spectating = None;
                return Some(End::Fatal(why));
            }
            Verdict::Back | Verdict::Answered => {
                if verdict == Verdict::Back {
                    self.away_since = None;
                }
                *hello = None;
                *again_at = None;
                if let Some(end) = self.deliver(ws, msg).await {
                    return Some(end);
                }
                return self.flush(ws).await.err();
            }
        }
        self.deliver(ws, msg).await
    }

    /// Hand `msg` to the caller, unless it ends the connection: a full server, a server
    /// restarting (A9), a closed room.
    async fn deliver(&mut self, ws: &mut Ws, msg: ServerMsg) -> Option<End> {
        if let ServerMsg::Error {
            code: ErrorCode::ServerFull,
            message,
            ..
        } = &msg
        {
            let why = format!("server full: {message}");
            let _ = self.events.send(NetEvent::Message(Box::new(msg)));
            return Some(End::Fatal(why));
        }
        if restarting(&msg) {
            let _ = self.events.send(NetEvent::Message(Box::new(msg)));
            let _ = tokio::time::timeout(CLOSE_WAIT, ws.close(None)).await;
            return Some(End::Restart);
        }
        if let ServerMsg::RoomClosed { room, .. } = &msg {
            // Final (A5: `room_closed`, then 1001 from a host that quit): the seat
            // is gone with the room, so there is nothing to come back to.
            let why = format!("room {room} was closed: the host closed the room");
            self.seat.token = None;
            self.seat.spectating = None;
            let _ = self.events.send(NetEvent::Message(Box::new(msg)));
            let _ = tokio::time::timeout(CLOSE_WAIT, ws.close(None)).await;
            return Some(End::Fatal(why));
        }
        if self.events.send(NetEvent::Message(Box::new(msg))).is_err() {
            let _ = ws.close(None).await;
            return Some(End::CallerDone);
        }
        None
    }

    /// One message from the caller while the hello waits for its answer: kept for after it (a
    /// `leave`, or the caller gone, ends the session: there is no seat here to leave yet).
    async fn hold(&mut self, ws: &mut Ws, msg: Option<ClientMsg>) -> Option<End> {
        match msg {
            None | Some(ClientMsg::Leave) => {
                let _ = ws.close(None).await;
                Some(End::CallerDone)
            }
            Some(m) => {
                self.seat.sent(&m);
                keep(&mut self.queued, m);
                None
            }
        }
    }

    /// One message from the caller (`None`: the caller is gone), sent on. `Some` when it ends
    /// the connection; a message that could not go out is queued for the next one.
    async fn on_caller(
        &mut self,
        ws: &mut Ws,
        msg: Option<ClientMsg>,
        leaving: &mut bool,
    ) -> Option<End> {
        let Some(m) = msg else {
            let _ = ws.close(None).await;
            return Some(End::CallerDone);
        };
        let is_leave = matches!(m, ClientMsg::Leave);
        self.seat.sent(&m);
        if let Err(e) = send(ws, &m).await {
            if is_leave {
                return Some(End::CallerDone);
            }
            keep(&mut self.queued, m);
            return Some(End::Dropped(e));
        }
        // After a leave there is nothing to come back to: the socket stays for
        // what may follow (a spectator taking a seat sends `join_room` next),
        // and its end is then the caller's, not a drop.
        *leaving = is_leave;
        if is_leave {
            self.seat.token = None;
            self.seat.spectating = None;
        }
        None
    }
}

/// The server's Close frame: the caller's end after a leave, final when our seat (we hold its
/// token: `seated`) moved to another terminal, else a drop to come back from.
fn closed_by_server(frame: Option<CloseFrame>, leaving: bool, seated: bool) -> End {
    if leaving {
        return End::CallerDone;
    }
    // 1000 after a resume elsewhere: our seat moved to another terminal.
    if let Some(f) = &frame {
        if u16::from(f.code) == 1000 && seated {
            let reason = terminal_safe(f.reason.as_str());
            return End::Fatal(format!("connection closed by the server: {reason}"));
        }
    }
    End::Dropped(format!("closed by the server: {frame:?}"))
}
