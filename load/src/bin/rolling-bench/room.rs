//! One room's players, driven by one task: forming the room (again, when it closes), the
//! races and rematches, the paced placements, and each player's reconnect and `resume`.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use engine::Grid;
use futures::stream::SplitSink;
use futures::{SinkExt, StreamExt};
use load::wsclient::{self, Ws};
use protocol::{ClientMsg, ClosedReason, ErrorCode, MsgId, PlayerId, ServerMsg, SettingsRequest};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

use super::stats::Stats;
use super::Balancer;

/// Longest wait for one setup step (connect, join, resume).
const STEP: Duration = Duration::from_secs(10);

/// When the load runs.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub t0: Instant,
    pub end: Instant,
    /// How long answers are waited for after `end`.
    pub settle: Duration,
    /// This room's placements per second.
    pub per_room: f64,
}

/// Which room.
pub struct RoomCfg {
    pub index: usize,
    pub players: usize,
    pub difficulty: String,
    pub seed: u64,
}

/// What a reader tells the room: a message, or that its connection ended.
enum In {
    Msg(Box<ServerMsg>),
    Closed,
}

/// One player.
struct Seat {
    sink: Option<SplitSink<Ws, Message>>,
    reader: Option<tokio::task::JoinHandle<()>>,
    epoch: u64,
    node: usize,
    token: Option<String>,
    pid: Option<PlayerId>,
    puzzle: Option<Grid>,
    race: Option<String>,
    todo: VecDeque<(u8, u8)>,
    pending: HashMap<u64, (u8, u8, Instant)>,
    accepted: HashSet<u8>,
    next_id: u64,
    down_since: Option<Instant>,
}

impl Seat {
    fn new() -> Seat {
        Seat {
            sink: None,
            reader: None,
            epoch: 0,
            node: 0,
            token: None,
            pid: None,
            puzzle: None,
            race: None,
            todo: VecDeque::new(),
            pending: HashMap::new(),
            accepted: HashSet::new(),
            next_id: 0,
            down_since: None,
        }
    }

    fn hang_up(&mut self) {
        self.sink = None;
        if let Some(r) = self.reader.take() {
            r.abort();
        }
    }
}

struct Room {
    cfg: RoomCfg,
    bal: Arc<Balancer>,
    seats: Vec<Seat>,
    tx: mpsc::UnboundedSender<(usize, u64, In)>,
    racing: bool,
    over: HashSet<String>,
    want_start: bool,
    rr: usize,
    rng: rand::rngs::StdRng,
    st: Stats,
    t0: Instant,
}

/// Runs room `cfg` until the end of the load, then counts what is still unanswered.
pub async fn run(cfg: RoomCfg, bal: Arc<Balancer>, t: Timing) -> Stats {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let seats = (0..cfg.players).map(|_| Seat::new()).collect();
    let rng = rand::rngs::StdRng::seed_from_u64(cfg.seed);
    let mut room = Room {
        cfg,
        bal,
        seats,
        tx,
        racing: false,
        over: HashSet::new(),
        want_start: false,
        rr: 0,
        rng,
        st: Stats::default(),
        t0: t.t0,
    };
    if let Err(e) = room.form().await {
        eprintln!("room {}: {e:#}", room.cfg.index);
        room.st.errors += 1;
    }
    let period = Duration::from_secs_f64(1.0 / t.per_room.max(0.001));
    let mut tick = tokio::time::interval_at(t.t0, period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let hard_end = t.end + t.settle;
    loop {
        tokio::select! {
            _ = tick.tick(), if Instant::now() < t.end => room.place().await,
            Some((j, epoch, m)) = rx.recv() => {
                if let Err(e) = room.on_msg(j, epoch, m, t.end).await {
                    eprintln!("room {}: {e:#}", room.cfg.index);
                    room.st.errors += 1;
                }
            }
            _ = tokio::time::sleep_until(hard_end) => break,
        }
    }
    for s in &mut room.seats {
        room.st.lost_at_end += s.pending.len() as u64;
        if let Some(mut sink) = s.sink.take() {
            let _ = sink.close().await;
        }
        s.hang_up();
    }
    room.st
}

impl Room {
    /// Opens the room on a node up (the host's), its players joining through the balancer,
    /// and starts its first race.
    async fn form(&mut self) -> Result<()> {
        let r = self.cfg.index;
        let mut code: Option<String> = None;
        for j in 0..self.cfg.players {
            let (node, mut ws) = self.connect(r + j).await?;
            let name = format!("p{r}-{j}");
            let msg = match &code {
                None => ClientMsg::CreateRoom {
                    name,
                    settings: Some(settings(&self.cfg)?),
                    bot: false,
                    key: None,
                    variants: None,
                },
                Some(c) => ClientMsg::JoinRoom {
                    room: c.clone(),
                    name,
                    bot: false,
                    key: None,
                    variants: None,
                },
            };
            wsclient::send(&mut ws, &msg).await?;
            let joined = wsclient::recv_until(&mut ws, STEP, |m| match m {
                ServerMsg::RoomJoined { room, you, .. } => Some((room, you)),
                _ => None,
            })
            .await
            .with_context(|| format!("player {j} joins"))?;
            code.get_or_insert_with(|| joined.0.to_string());
            let seat = &mut self.seats[j];
            seat.token = joined.1.token.map(|t| t.as_str().to_owned());
            seat.pid = joined.1.player_id;
            self.attach(j, node, ws);
        }
        self.racing = false;
        self.want_start = true;
        self.start().await;
        Ok(())
    }

    /// A connection to a node up, from node `pref % n` on, welcomed.
    async fn connect(&self, pref: usize) -> Result<(usize, Ws)> {
        let (node, addr) = self.bal.pick(pref % self.bal.nodes());
        let mut ws = wsclient::connect(addr, "/ws", 16 * 1024).await?;
        wsclient::welcomed(&mut ws, STEP).await?;
        Ok((node, ws))
    }

    /// Gives seat `j` the connection `ws`: its reader forwards to the room's channel.
    fn attach(&mut self, j: usize, node: usize, ws: Ws) {
        let seat = &mut self.seats[j];
        seat.hang_up();
        seat.epoch += 1;
        seat.node = node;
        let (sink, mut stream) = ws.split();
        seat.sink = Some(sink);
        let (tx, epoch) = (self.tx.clone(), seat.epoch);
        seat.reader = Some(tokio::spawn(async move {
            while let Some(frame) = stream.next().await {
                match frame {
                    Ok(Message::Text(text)) => {
                        if let Ok(m) = serde_json::from_str::<ServerMsg>(text.as_str()) {
                            let _ = tx.send((j, epoch, In::Msg(Box::new(m))));
                        }
                    }
                    Ok(Message::Close(_)) | Err(_) => break,
                    Ok(_) => {}
                }
            }
            let _ = tx.send((j, epoch, In::Closed));
        }));
    }

    /// The host starts the next race, if it is connected; else when it is back.
    async fn start(&mut self) {
        if !self.want_start {
            return;
        }
        if let Some(sink) = self.seats[0].sink.as_mut() {
            if send(sink, &ClientMsg::StartRace).await.is_ok() {
                self.want_start = false;
            }
        }
    }

    /// One placement from the next player that can place.
    async fn place(&mut self) {
        if !self.racing {
            return;
        }
        let n = self.seats.len();
        for k in 0..n {
            let j = (self.rr + k) % n;
            let seat = &mut self.seats[j];
            let Some(sink) = seat.sink.as_mut() else {
                continue;
            };
            let Some(&(cell, digit)) = seat.todo.front() else {
                continue;
            };
            let id = seat.next_id;
            let text = format!(r#"{{"type":"place","cell":{cell},"digit":{digit},"id":{id}}}"#);
            if sink.send(Message::text(text)).await.is_err() {
                continue;
            }
            seat.todo.pop_front();
            seat.next_id += 1;
            seat.pending.insert(id, (cell, digit, Instant::now()));
            self.st.sent += 1;
            self.rr = j + 1;
            return;
        }
    }

    async fn on_msg(&mut self, j: usize, epoch: u64, m: In, end: Instant) -> Result<()> {
        if self.seats[j].epoch != epoch {
            return Ok(());
        }
        match m {
            In::Closed => {
                let now = Instant::now();
                self.st.saw_close(now.saturating_duration_since(self.t0));
                if let Some(oldest) = self.seats[j].pending.values().map(|p| p.2).min() {
                    self.st.stalled.record(now - oldest);
                }
                self.on_closed(j, end).await
            }
            In::Msg(m) => self.on_server(j, *m, end).await,
        }
    }

    async fn on_server(&mut self, j: usize, m: ServerMsg, end: Instant) -> Result<()> {
        match m {
            ServerMsg::RaceStarted {
                race_id, puzzle, ..
            } => self.race_started(j, race_id.to_string(), puzzle)?,
            ServerMsg::Placement {
                id: Some(MsgId::Number(id)),
                accepted,
                cell,
                ..
            } => {
                let seat = &mut self.seats[j];
                if let Some((_, _, at)) = id.as_u64().and_then(|id| seat.pending.remove(&id)) {
                    self.st.round_trip.record(at.elapsed());
                }
                self.st.answered += 1;
                if accepted {
                    self.st.accepted += 1;
                    seat.accepted.insert(cell.get());
                } else {
                    self.st.rejected += 1;
                }
            }
            ServerMsg::RaceOver {
                race_id, standings, ..
            } => self.race_over(race_id.to_string(), &standings, end).await,
            ServerMsg::RoomClosed { reason, .. } => {
                if self.racing {
                    self.st.races_ended_early += 1;
                }
                match reason {
                    Some(ClosedReason::Drain) => self.st.closed_drain += 1,
                    _ => self.st.closed_other += 1,
                }
                self.reform(end).await;
            }
            ServerMsg::Error { code, message, .. } => {
                if code == ErrorCode::ServerDraining {
                    self.st.refused_draining += 1;
                    self.reform(end).await;
                } else {
                    self.st.errors += 1;
                    eprintln!(
                        "room {} player {j}: {} {message}",
                        self.cfg.index,
                        code.as_str()
                    );
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A race's end, once per race: its standings settle its players' placements.
    async fn race_over(&mut self, race_id: String, standings: &[protocol::Standing], end: Instant) {
        if !self.over.insert(race_id) {
            return;
        }
        self.st.races_over += 1;
        for s in standings {
            let Some(seat) = self
                .seats
                .iter_mut()
                .find(|x| x.pid.as_ref() == Some(&s.player_id))
            else {
                continue;
            };
            // Solved: every cell is in `filled`, those whose answer is still on
            // its way (relayed) too.
            if seat.puzzle.map(|p| p.n_empty()) == Some(s.filled as usize) {
                for (_, (cell, _, _)) in seat.pending.drain() {
                    self.st.settled_by_race_over += 1;
                    seat.accepted.insert(cell);
                }
            }
            let mine = seat.accepted.len() as u64;
            self.st.lost_accepted += mine.saturating_sub(u64::from(s.filled));
        }
        self.racing = false;
        if Instant::now() < end {
            self.want_start = true;
            self.start().await;
        }
    }

    /// A race's start for seat `j`: its placements are the solution's digits, shuffled.
    fn race_started(&mut self, j: usize, race_id: String, puzzle: Grid) -> Result<()> {
        let solution = engine::solver::solve_unique(&puzzle)
            .map_err(|e| anyhow::anyhow!("no unique solution: {e:?}"))?;
        let (p, sol) = (puzzle.as_bytes(), solution.as_bytes());
        let mut todo: Vec<(u8, u8)> = (0u8..81)
            .filter(|&c| p[usize::from(c)] == 0)
            .map(|c| (c, sol[usize::from(c)]))
            .collect();
        todo.shuffle(&mut self.rng);
        let seat = &mut self.seats[j];
        seat.todo = todo.into();
        seat.accepted.clear();
        seat.pending.clear();
        seat.puzzle = Some(puzzle);
        seat.race = Some(race_id);
        self.racing = true;
        Ok(())
    }

    /// Seat `j`'s connection ended without its room closing: reconnect through the balancer
    /// and resume.
    async fn on_closed(&mut self, j: usize, end: Instant) -> Result<()> {
        self.seats[j].hang_up();
        self.st.closes += 1;
        let since = Instant::now();
        self.seats[j].down_since = Some(since);
        let mut tries = 0;
        loop {
            tries += 1;
            match self.resume(j).await {
                Ok(()) => break,
                Err(e) if tries >= 5 || Instant::now() >= end => {
                    self.st.resume_failed += 1;
                    eprintln!("room {} player {j}: resume failed: {e:#}", self.cfg.index);
                    self.reform(end).await;
                    return Ok(());
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
        self.st.resumes += 1;
        self.st.resume_time.record(since.elapsed());
        if j == 0 {
            self.start().await;
        }
        Ok(())
    }

    /// One try at resuming seat `j` on a node up; the board it gets back settles the
    /// placements that had no answer.
    async fn resume(&mut self, j: usize) -> Result<()> {
        let token = self.seats[j].token.clone().context("a seat has a token")?;
        let (node, mut ws) = self.connect(self.seats[j].node + 1).await?;
        wsclient::send(
            &mut ws,
            &ClientMsg::Resume {
                token,
                variants: None,
            },
        )
        .await?;
        let race = wsclient::recv_until(&mut ws, STEP, |m| match m {
            ServerMsg::RoomJoined { race, phase, .. } => Some((race, phase)),
            _ => None,
        })
        .await?;
        let seat = &mut self.seats[j];
        let racing = race.1 == protocol::Phase::Racing;
        let board = race
            .0
            .filter(|v| seat.race.as_deref() == Some(v.race_id.as_str()))
            .and_then(|v| v.board);
        for (_, (cell, digit, _)) in seat.pending.drain() {
            let on_board = board.map(|b| b.as_bytes()[usize::from(cell)]);
            if on_board == Some(digit) {
                self.st.applied_seen_on_resume += 1;
                seat.accepted.insert(cell);
            } else if racing && board.is_some() {
                self.st.resent += 1;
                seat.todo.push_front((cell, digit));
            } else {
                // The race ended meanwhile: what it stored is in its race_over.
                self.st.lost_on_resume += 1;
            }
        }
        self.attach(j, node, ws);
        Ok(())
    }

    /// The room is gone (or may not race again): every player leaves it and the room is
    /// opened again on a node up.
    async fn reform(&mut self, end: Instant) {
        for s in &mut self.seats {
            if let Some(sink) = s.sink.as_mut() {
                let _ = send(sink, &ClientMsg::Leave).await;
            }
            // What had no answer is settled by the race_over already counted, if any.
            self.st.lost_on_reform += s.pending.len() as u64;
            s.pending.clear();
            s.todo.clear();
            s.accepted.clear();
            s.hang_up();
            s.epoch += 1;
        }
        self.racing = false;
        if Instant::now() >= end {
            return;
        }
        self.st.reformed += 1;
        if let Err(e) = self.form().await {
            self.st.errors += 1;
            eprintln!("room {}: opening again: {e:#}", self.cfg.index);
        }
    }
}

fn settings(cfg: &RoomCfg) -> Result<SettingsRequest> {
    if cfg.players > 8 {
        bail!("at most 8 players per room");
    }
    Ok(SettingsRequest {
        difficulty: Some(cfg.difficulty.clone()),
        max_players: Some(i64::try_from(cfg.players).context("players")?),
        time_limit_s: Some(600),
        max_mistakes: Some(0),
        penalty_s: Some(0),
        public: Some(false),
        rated: None,
        isomorphs: None,
        variant: None,
    })
}

async fn send(sink: &mut SplitSink<Ws, Message>, msg: &ClientMsg) -> Result<()> {
    let text = serde_json::to_string(msg).context("serialize")?;
    sink.send(Message::text(text)).await.context("send")
}
