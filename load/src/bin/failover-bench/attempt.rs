//! One try: a room on the owner node with one racer there and one on each other node, a race,
//! `kill -9` of the owner at a random moment of it, the race ridden to its end, and what the
//! cluster kept: the views after the takeover, the stored race, the new owner's log line.

use std::collections::HashSet;
use std::time::{Duration, SystemTime};

use anyhow::{bail, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::nodes::Nodes;
use crate::player::{Conn, Racer, Ride, Role};
use crate::probe::{self, Resp, TakenOver};

/// How the tries are run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The rooms' difficulty.
    pub difficulty: String,
    /// The kill comes this long after `race_started`, drawn uniformly.
    pub kill_after: (Duration, Duration),
    /// Seed of the kill moments and the racers' paces.
    pub seed: u64,
}

/// What one try saw.
#[derive(Debug)]
pub struct Outcome {
    /// The owner's index.
    pub owner: usize,
    /// The room's code.
    pub code: String,
    /// The kill, after `race_started`.
    pub kill_after: Duration,
    /// The owner's node key's time to live just before the kill.
    pub lease_left: Option<Duration>,
    /// The kill.
    pub kill: Instant,
    /// The racers: the owner's, then those on the two live nodes.
    pub rides: Vec<Ride>,
    /// Which live node stored the race, and the acknowledged placements it lacks.
    pub stored: (usize, usize),
    /// The new owner's "room taken over": which node, when (s after the kill), its gap_ms.
    pub taken: Option<(usize, f64, u64)>,
}

/// A room on node `owner` raced by one player per node, its owner killed mid-race.
pub async fn attempt(nodes: &mut Nodes, owner: usize, t: usize, plan: &Plan) -> Result<Outcome> {
    let live = [(owner + 1) % 3, (owner + 2) % 3];
    let room = Room::open(nodes, owner, live, &plan.difficulty).await?;
    let (kill_tx, kill_rx) = watch::channel(None);
    let mut rng = StdRng::seed_from_u64(plan.seed.wrapping_add(t as u64));
    let mut race_id = String::new();
    let mut racers = tokio::task::JoinSet::new();
    for (k, mut c) in room.conns.into_iter().enumerate() {
        let started = c.until("race_started").await?;
        race_id = started["race_id"].as_str().context("a race id")?.to_owned();
        let puzzle = started["puzzle"].as_str().context("a puzzle")?;
        let fill = testkit::to_fill(puzzle, &testkit::solve(puzzle));
        let role = match k {
            0 => Role::Host {
                token: room.token.clone(),
                elsewhere: nodes.addr(live[0]),
            },
            _ => Role::Member,
        };
        let racer = Racer::new(
            c,
            role,
            fill,
            kill_rx.clone(),
            StdRng::seed_from_u64(rng.gen()),
        );
        racers.spawn(async move { (k, racer.race().await) });
    }
    let started = Instant::now();
    let kill_after = rng.gen_range(plan.kill_after.0..=plan.kill_after.1);
    tokio::time::sleep_until(started + kill_after).await;
    let mut resp = Resp::connect(nodes.redis.addr).await?;
    let lease_left = resp.pttl(&format!("sr:node:n{owner}")).await?;
    let (kill, kill_unix_s) = (Instant::now(), probe::unix_s(SystemTime::now()));
    nodes.kill(owner);
    let _ = kill_tx.send(Some(kill));
    let rides = finish(racers).await?;
    let stored = stored(nodes, &live, &race_id, &room.ids, &rides).await?;
    let taken = live.iter().find_map(|&i| {
        let TakenOver { at_unix_s, gap_ms } = probe::taken_over(&nodes.log(i), &room.code)?;
        Some((i, at_unix_s - kill_unix_s, gap_ms))
    });
    Ok(Outcome {
        owner,
        code: room.code,
        kill_after,
        lease_left,
        kill,
        rides,
        stored,
        taken,
    })
}

/// A room whose race was asked to start: the racers' connections (the owner's first), the
/// room's code, the owner's player's token, and every racer's player id.
struct Room {
    conns: Vec<Conn>,
    code: String,
    token: String,
    ids: Vec<String>,
}

impl Room {
    async fn open(nodes: &Nodes, owner: usize, live: [usize; 2], difficulty: &str) -> Result<Room> {
        let mut host = Conn::open(nodes.addr(owner)).await?;
        let settings = json!({"difficulty": difficulty, "public": false});
        host.send(json!({"type": "create_room", "name": "ann", "settings": settings}))
            .await?;
        let created = host.until("room_joined").await?;
        let code = created["room"].as_str().context("a room code")?.to_owned();
        let token = created["you"]["token"]
            .as_str()
            .context("a token")?
            .to_owned();
        let mut conns = vec![host];
        let mut ids = vec![player_id(&created)?];
        for (i, name) in live.iter().zip(["bob", "cat"]) {
            let mut c = Conn::open(nodes.addr(*i)).await?;
            c.send(json!({"type": "join_room", "room": code, "name": name}))
                .await?;
            ids.push(player_id(&c.until("room_joined").await?)?);
            conns.push(c);
        }
        conns[0].send(json!({"type": "start_race"})).await?;
        Ok(Room {
            conns,
            code,
            token,
            ids,
        })
    }
}

/// Every racer's ride, in their order; a racer that fails or takes over a minute fails the try
/// (the others are stopped when the set drops).
async fn finish(mut racers: tokio::task::JoinSet<(usize, Result<Ride>)>) -> Result<Vec<Ride>> {
    let mut rides: Vec<Option<Ride>> = (0..racers.len()).map(|_| None).collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while let Some(done) = tokio::time::timeout_at(deadline, racers.join_next())
        .await
        .context("a racer took over 60 s")?
    {
        let (k, ride) = done.context("a racer's task")?;
        rides[k] = Some(ride.with_context(|| format!("racer {k}"))?);
    }
    rides.into_iter().map(|r| r.context("a racer")).collect()
}

fn player_id(joined: &Value) -> Result<String> {
    let id = joined["you"]["player_id"].as_str();
    Ok(id.context("a player id")?.to_owned())
}

/// The race as a live node stored it: which node, and how many acknowledged placements its
/// `placements` lack (as `accepted`, by player, cell and digit).
async fn stored(
    nodes: &Nodes,
    live: &[usize],
    race_id: &str,
    ids: &[String],
    rides: &[Ride],
) -> Result<(usize, usize)> {
    let path = format!("/api/races/{race_id}");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        for &i in live {
            let (status, body) = probe::http_get(nodes.addr(i), &path).await?;
            if status != 200 {
                continue;
            }
            let race: Value = serde_json::from_str(&body).context("the stored race")?;
            let kept: HashSet<(String, u64, u64)> = race["placements"]
                .as_array()
                .context("placements")?
                .iter()
                .filter(|p| p["outcome"] == "accepted")
                .filter_map(|p| {
                    let who = p["player_id"].as_str()?.to_owned();
                    Some((who, p["cell"].as_u64()?, p["digit"].as_u64()?))
                })
                .collect();
            let missing = ids
                .iter()
                .zip(rides)
                .flat_map(|(id, r)| r.acked.iter().map(move |a| (id, a)))
                .filter(|(id, a)| {
                    !kept.contains(&((*id).clone(), a.cell as u64, u64::from(a.digit)))
                })
                .count();
            return Ok((i, missing));
        }
        if Instant::now() >= deadline {
            bail!("no live node has race {race_id} stored");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
