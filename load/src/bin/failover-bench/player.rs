//! One racer of a try. It places its puzzle's digits one at a time, each 50–100 ms after the
//! last was answered, and rides through its room's owner being killed as the clients do (A12):
//! a placement answered `room_moving` is sent again after `retry_ms`, or at once when the new
//! owner shows the room (`room_joined`); a placement unanswered by then is looked up on that
//! view's board (found: it was applied) and, missing, sent again: at once if it was sent before
//! the kill, else when still unanswered 250 ms after the view. The owner's own
//! player loses its socket with the node, connects to another node and `resume`s with its
//! token, again after `retry_ms` while that is answered `room_moving`.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use futures::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::Rng;
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

/// How long a placement may go unanswered (outside a `room_moving` wait) before it is sent again.
const SILENCE: Duration = Duration::from_secs(2);
/// How long after the new owner's view a placement sent after the kill may still be answered
/// (it may have reached the new owner before the view reached us); `retry_ms`'s 250.
const VIEW_GRACE: Duration = Duration::from_millis(250);
/// The longest wait for anything else (a `welcome`, a `resume`'s answer, `race_over`).
const LONG: Duration = Duration::from_secs(20);

/// A JSON WebSocket whose sends and receives fail instead of panicking: a killed node's socket
/// is an event here, not a bug.
pub struct Conn {
    ws: load::wsclient::Ws,
}

impl Conn {
    /// Connects to the node at `addr` and reads its `welcome`.
    pub async fn open(addr: SocketAddr) -> Result<Conn> {
        let ws = load::wsclient::connect(addr, "/ws", 64 << 10).await?;
        let mut conn = Conn { ws };
        conn.until("welcome").await?;
        Ok(conn)
    }

    /// Sends a JSON value as a text frame.
    pub async fn send(&mut self, v: Value) -> Result<()> {
        let text = Message::Text(v.to_string().into());
        self.ws.send(text).await.context("send")
    }

    /// The next JSON message, or `None` at `deadline`.
    pub async fn recv_by(&mut self, deadline: Instant) -> Result<Option<Value>> {
        loop {
            let Ok(next) = tokio::time::timeout_at(deadline, self.ws.next()).await else {
                return Ok(None);
            };
            match next {
                Some(Ok(Message::Text(t))) => return Ok(Some(serde_json::from_str(&t)?)),
                Some(Ok(Message::Close(_))) | None => bail!("the connection ended"),
                Some(Ok(_)) => {}
                Some(Err(e)) => bail!("read error: {e}"),
            }
        }
    }

    /// Skips messages until one of type `ty` (an `error` fails), within [`LONG`].
    pub async fn until(&mut self, ty: &str) -> Result<Value> {
        let deadline = Instant::now() + LONG;
        loop {
            match self.recv_by(deadline).await? {
                Some(v) if v["type"] == ty => return Ok(v),
                Some(v) if v["type"] == "error" => bail!("waiting for {ty}: {v}"),
                Some(_) => {}
                None => bail!("no {ty} within {LONG:?}"),
            }
        }
    }

    /// Says goodbye (errors ignored: the bench is done with this racer).
    pub async fn leave(mut self) {
        let _ = self.send(json!({"type": "leave"})).await;
        let _ = self.ws.close(None).await;
    }
}

/// Where a racer sits, and so how it rides through the kill.
pub enum Role {
    /// On a node that lives: its commands are relayed; the new owner shows it the room.
    Member,
    /// On the owner: its socket dies with the node; it resumes by `token` at `elsewhere`.
    Host {
        /// Its seat's resume token.
        token: String,
        /// The live node it reconnects to.
        elsewhere: SocketAddr,
    },
}

/// A placement answered `accepted`.
#[derive(Clone, Copy, Debug)]
pub struct Acked {
    /// Its cell and digit.
    pub cell: usize,
    /// Its digit.
    pub digit: u8,
    /// When it was sent (this copy: a placement sent again has a new time).
    pub sent: Instant,
    /// When the answer came.
    pub at: Instant,
}

/// What a racer saw.
#[derive(Debug, Default)]
pub struct Ride {
    /// Every placement answered `accepted`, in order.
    pub acked: Vec<Acked>,
    /// The first `room_joined` after the kill: when it came.
    pub view_at: Option<Instant>,
    /// Placements answered `accepted` before that view that its board lacked.
    pub missing_at_view: usize,
    /// Placements answered `accepted` before that view.
    pub acked_at_view: usize,
    /// Answers `room_moving` (placements and resumes).
    pub moving: usize,
    /// When each placement was sent that the owner never answered before it died, nor applied
    /// (sent again on the view).
    pub unanswered: Vec<Instant>,
    /// When each placement was sent, after the kill, that was neither answered nor refused
    /// [`VIEW_GRACE`] after the view (then sent again): dropped on its way.
    pub dropped: Vec<Instant>,
    /// When each placement was sent that went unanswered for [`SILENCE`] (then sent again).
    pub silent: Vec<Instant>,
    /// Cells the view showed applied whose answer never came (the owner died first).
    pub applied_unanswered: usize,
}

/// What a placement sent waits for.
#[derive(Clone, Copy)]
enum Wait {
    /// Its answer.
    Answer,
    /// The end of a `room_moving`'s `retry_ms`.
    Moving,
    /// Its answer, the room back.
    AfterView,
}

/// What one message was, to the racer's loops.
enum Heard {
    Other,
    /// The answer to a placement in `cell` (accepted, or the cell was filled already).
    Answer(usize),
    /// `room_moving`: try again after this long.
    Moving(Duration),
    /// A `room_joined`: the room as it stands.
    View,
    /// `race_over`.
    Over,
}

/// A racer: its connection, its digits and what it knows of its board.
pub struct Racer {
    conn: Conn,
    role: Role,
    fill: Vec<(usize, u8)>,
    done: HashSet<usize>,
    sent: HashMap<u64, (usize, u8, Instant)>,
    next_id: u64,
    resumed: bool,
    kill: watch::Receiver<Option<Instant>>,
    rng: StdRng,
    ride: Ride,
}

impl Racer {
    /// A racer on `conn` (its race started) that will place `fill`.
    pub fn new(
        conn: Conn,
        role: Role,
        fill: Vec<(usize, u8)>,
        kill: watch::Receiver<Option<Instant>>,
        rng: StdRng,
    ) -> Racer {
        Racer {
            conn,
            role,
            fill,
            done: HashSet::new(),
            sent: HashMap::new(),
            next_id: 0,
            resumed: false,
            kill,
            rng,
            ride: Ride::default(),
        }
    }

    /// Places every digit, then waits for `race_over`.
    pub async fn race(mut self) -> Result<Ride> {
        while let Some((cell, digit)) = self.next_cell() {
            self.pace().await?;
            if !self.done.contains(&cell) {
                self.place(cell, digit).await?;
            }
        }
        let deadline = Instant::now() + LONG;
        loop {
            match self.conn.recv_by(deadline).await {
                Ok(Some(v)) => {
                    if let Heard::Over = self.heard(&v)? {
                        break;
                    }
                }
                Ok(None) => bail!("no race_over within {LONG:?} of the last digit"),
                Err(e) => self.lost(e).await?,
            }
        }
        self.conn.leave().await;
        Ok(self.ride)
    }

    fn next_cell(&self) -> Option<(usize, u8)> {
        self.fill
            .iter()
            .copied()
            .find(|(c, _)| !self.done.contains(c))
    }

    fn killed_at(&self) -> Option<Instant> {
        *self.kill.borrow()
    }

    /// Waits 50–100 ms, reading what comes; a view after the kill ends the wait at once (the
    /// room is back: a player goes on).
    async fn pace(&mut self) -> Result<()> {
        let deadline = Instant::now() + Duration::from_millis(self.rng.gen_range(50..=100));
        loop {
            match self.conn.recv_by(deadline).await {
                Ok(None) => return Ok(()),
                Ok(Some(v)) => match self.heard(&v)? {
                    Heard::View if self.killed_at().is_some() => return Ok(()),
                    Heard::Over => bail!("the race ended before this racer's last digit"),
                    _ => {}
                },
                Err(e) => return self.lost(e).await,
            }
        }
    }

    /// Sends `digit` for `cell` until the cell is known filled: answered, or seen on a board.
    async fn place(&mut self, cell: usize, digit: u8) -> Result<()> {
        let mut sent = match self.send_place(cell, digit).await {
            Ok(at) => at,
            Err(e) => return self.lost(e).await,
        };
        let (mut wait, mut deadline) = (Wait::Answer, sent + SILENCE);
        loop {
            let again = match self.conn.recv_by(deadline).await {
                Err(e) => return self.lost(e).await,
                Ok(None) => {
                    match wait {
                        Wait::Answer => self.ride.silent.push(sent),
                        Wait::Moving => {}
                        Wait::AfterView => self.ride.dropped.push(sent),
                    }
                    true
                }
                Ok(Some(v)) => match self.heard(&v)? {
                    Heard::Answer(c) if c == cell => return Ok(()),
                    Heard::Moving(after) => {
                        (wait, deadline) = (Wait::Moving, Instant::now() + after);
                        false
                    }
                    Heard::View if self.done.contains(&cell) => return Ok(()),
                    Heard::View => match (wait, self.killed_at()) {
                        (_, None) => false,
                        (Wait::Moving, _) => true,
                        // Sent to the owner before it died, not applied: sent again now.
                        (_, Some(kill)) if sent < kill => {
                            self.ride.unanswered.push(sent);
                            true
                        }
                        // Perhaps on its way to the new owner still: a moment more.
                        _ => {
                            (wait, deadline) = (Wait::AfterView, Instant::now() + VIEW_GRACE);
                            false
                        }
                    },
                    Heard::Over => bail!("the race ended before this racer's last digit"),
                    _ => false,
                },
            };
            if again {
                sent = match self.send_place(cell, digit).await {
                    Ok(at) => at,
                    Err(e) => return self.lost(e).await,
                };
                (wait, deadline) = (Wait::Answer, sent + SILENCE);
            }
        }
    }

    async fn send_place(&mut self, cell: usize, digit: u8) -> Result<Instant> {
        let id = self.next_id;
        self.next_id += 1;
        let at = Instant::now();
        self.sent.insert(id, (cell, digit, at));
        let msg = json!({"type": "place", "cell": cell, "digit": digit, "id": id});
        self.conn.send(msg).await?;
        Ok(at)
    }

    /// Takes one message in: answers, views and the end are recorded; an unexpected error or
    /// refusal fails the racer.
    fn heard(&mut self, v: &Value) -> Result<Heard> {
        match v["type"].as_str().unwrap_or_default() {
            "placement" => {
                let id = v["id"].as_u64().context("a placement without our id")?;
                let &(cell, digit, sent) = self.sent.get(&id).context("an unknown id")?;
                if v["accepted"] == true {
                    let at = Instant::now();
                    self.ride.acked.push(Acked {
                        cell,
                        digit,
                        sent,
                        at,
                    });
                } else if v["reason"] != "filled" {
                    bail!("a right digit was refused: {v}");
                }
                self.done.insert(cell);
                Ok(Heard::Answer(cell))
            }
            "error" if v["code"] == "room_moving" => {
                self.ride.moving += 1;
                let ms = v["retry_ms"].as_u64().unwrap_or(250);
                Ok(Heard::Moving(Duration::from_millis(ms)))
            }
            "error" => bail!("an error: {v}"),
            "room_joined" => {
                self.viewed(v)?;
                Ok(Heard::View)
            }
            "race_over" => Ok(Heard::Over),
            _ => Ok(Heard::Other),
        }
    }

    /// A view of the room: the cells its board holds are done; the first after the kill is
    /// checked against every placement answered before it.
    fn viewed(&mut self, v: &Value) -> Result<()> {
        let board = v["race"]["board"]
            .as_str()
            .context("a room_joined without a board")?
            .as_bytes()
            .to_vec();
        let holds = |cell: usize, digit: u8| board.get(cell).copied() == Some(b'0' + digit);
        if self.killed_at().is_some() && self.ride.view_at.is_none() {
            self.ride.view_at = Some(Instant::now());
            self.ride.acked_at_view = self.ride.acked.len();
            self.ride.missing_at_view = self
                .ride
                .acked
                .iter()
                .filter(|a| !holds(a.cell, a.digit))
                .count();
            let answered: HashSet<usize> = self.ride.acked.iter().map(|a| a.cell).collect();
            self.ride.applied_unanswered = self
                .fill
                .iter()
                .filter(|&&(c, d)| holds(c, d) && !answered.contains(&c))
                .count();
        }
        for &(cell, digit) in &self.fill {
            if holds(cell, digit) {
                self.done.insert(cell);
            }
        }
        Ok(())
    }

    /// The connection failed: a member cannot ride that; the host resumes elsewhere, once.
    async fn lost(&mut self, e: anyhow::Error) -> Result<()> {
        let Role::Host { token, elsewhere } = &self.role else {
            return Err(e.context("a member's connection failed"));
        };
        if self.resumed {
            return Err(e.context("the host's connection failed again"));
        }
        let (token, elsewhere) = (token.clone(), *elsewhere);
        let mut kill = self.kill.clone();
        tokio::time::timeout(LONG, kill.wait_for(Option::is_some))
            .await
            .context("the host's connection failed with no kill")?
            .context("the bench is gone")?;
        self.resumed = true;
        self.conn = Conn::open(elsewhere).await?;
        loop {
            self.conn
                .send(json!({"type": "resume", "token": token}))
                .await?;
            let deadline = Instant::now() + LONG;
            let wait = loop {
                let v = self.conn.recv_by(deadline).await?;
                let v = v.context("no answer to resume")?;
                match self.heard(&v)? {
                    Heard::View => return Ok(()),
                    Heard::Moving(wait) => break wait,
                    _ => {}
                }
            };
            tokio::time::sleep(wait).await;
        }
    }
}
