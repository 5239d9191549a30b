//! The store at scale, as a bench binary that prints a table: a SQLite results file with
//! `STORE_BENCH_RACES` finished rated races (default 1,000,000) among `STORE_BENCH_PLAYERS`
//! registered players (default 100,000), spread over 90 days, then the latency of leaderboards
//! and history pages, `save_race` with its rating update, and bytes per race.
//!
//! Full size:  `cargo bench -p sudoku-race-server --bench store`
//! Quick try:  `STORE_BENCH_RACES=20000 STORE_BENCH_PLAYERS=2000 cargo bench -p sudoku-race-server --bench store`
//! `STORE_BENCH_DB=path` keeps the file and reuses it when it already holds the races.
//!
//! The bulk races go through the store's own write path (`save_races`: `save_race` for each,
//! many per transaction) with one placement per seat (a seat that placed nothing is unrated),
//! so generation takes minutes, not hours; the
//! measured `save_race` calls carry a full placement log, and their file growth is the
//! "bytes per race with placements" line.
// A benchmark reads the clock: that is what it measures (server/clippy.toml keeps it out of the
// server itself).
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use engine::Difficulty;
use protocol::{FinishStatus, Standing};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use server::store::{
    key_hash, Period, PlacementRecord, RaceRecord, SeatRecord, SqliteStore, Store, StoreError,
};

/// 2026-12-01 13:14:15 UTC: the bench's "now"; every bulk race ends in the 90 days before it.
const NOW: i64 = 1_796_130_855_000;
const DAY_MS: i64 = 86_400_000;
const SPAN_DAYS: i64 = 90;
const BATCH: u64 = 10_000;
const PUZZLE: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const SOLUTION: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn handle(i: u64) -> String {
    format!("h{i:07}")
}

/// One finished race among 2..=4 random registered players; `log` adds a placement log
/// (45 accepted cells and a few mistakes per player).
fn race(rng: &mut impl Rng, id: &str, n_players: u64, finished: i64, log: bool) -> RaceRecord {
    let n = rng.gen_range(2..=4usize);
    let mut picked: Vec<u64> = Vec::with_capacity(n);
    while picked.len() < n {
        let p = rng.gen_range(0..n_players);
        if !picked.contains(&p) {
            picked.push(p);
        }
    }
    let mut solved: Vec<(u64, u64)> = Vec::new();
    let mut rest = Vec::new();
    for k in 0..picked.len() {
        if rng.gen_bool(0.8) {
            solved.push((rng.gen_range(120_000..900_000), k as u64));
        } else {
            rest.push(k as u64);
        }
    }
    solved.sort_unstable();
    let n_solved = solved.len() as u32;
    let mut standings = Vec::with_capacity(n);
    for (i, &(t, k)) in solved.iter().enumerate() {
        standings.push((i as u32 + 1, k, FinishStatus::Solved, Some(t)));
    }
    for &k in &rest {
        standings.push((n_solved + 1, k, FinishStatus::Forfeited, None));
    }
    let pid = |k: u64| format!("p{}", k + 1);
    let mut placements = Vec::new();
    // Without the log, still one placement per seat: a seat that placed nothing is unrated
    // (A8), and a store of unrated races has empty leaderboards to time.
    let per_seat = if log { 50 } else { 1 };
    for k in 0..n as u64 {
        for j in 0..per_seat {
            placements.push(PlacementRecord {
                player_id: pid(k),
                at_ms: j * 4_000 + rng.gen_range(0..3_000),
                cell: rng.gen_range(0..81),
                digit: rng.gen_range(1..=9),
                outcome: if j % 10 == 9 { "wrong" } else { "accepted" },
            });
        }
    }
    placements.shuffle(rng);
    placements.sort_by_key(|p| p.at_ms);
    let duration = solved.last().map_or(600_000, |&(t, _)| t);
    RaceRecord {
        race_id: id.to_owned(),
        room: "BNCH".into(),
        difficulty: Difficulty::ALL[rng.gen_range(0..4)].as_str(),
        puzzle: PUZZLE.into(),
        solution: SOLUTION.into(),
        started_unix_ms: finished - duration as i64,
        duration_ms: duration,
        reason: "all_done",
        rated: true,
        daily: None,
        ghost_of: None,
        standings: standings
            .iter()
            .map(|&(rank, k, status, time_ms)| Standing {
                rank,
                player_id: pid(k).into(),
                name: format!("racer{k}")
                    .as_str()
                    .try_into()
                    .expect("a plain name"),
                status,
                time_ms,
                filled: 45,
                mistakes: 2,
                time_ms_raw: None,
                lag_ms: 0,
                puzzle: None,
                solution: None,
                layout: Default::default(),
            })
            .collect(),
        seats: picked
            .iter()
            .enumerate()
            .map(|(k, &p)| SeatRecord {
                player_id: pid(k as u64),
                handle: Some(handle(p)),
                bot: false,
                flags: Vec::new(),
            })
            .collect(),
        placements,
    }
}

fn count(store: &SqliteStore, table: &str) -> Result<u64, StoreError> {
    store.with_conn(|c| {
        let n: i64 = c.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))?;
        Ok(n as u64)
    })
}

/// File bytes after folding the WAL back in.
fn db_bytes(store: &SqliteStore, path: &Path) -> Result<u64, Box<dyn std::error::Error>> {
    store.with_conn(|c| Ok(c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")?))?;
    Ok(std::fs::metadata(path)?.len())
}

fn generate(
    store: &SqliteStore,
    rng: &mut impl Rng,
    n_races: u64,
    n_players: u64,
) -> Result<(), StoreError> {
    let t0 = Instant::now();
    // One transaction around every registration, through the store's own `register`.
    store.with_conn(|c| Ok(c.execute_batch("BEGIN")?))?;
    for i in 0..n_players {
        let h = handle(i);
        store.register(&h, key_hash(&format!("key-{h}")), &format!("name {i}"), 0)?;
    }
    store.with_conn(|c| Ok(c.execute_batch("COMMIT")?))?;
    eprintln!("{n_players} players in {:.1?}", t0.elapsed());
    let first = NOW - SPAN_DAYS * DAY_MS;
    let step = (SPAN_DAYS * DAY_MS) / n_races.max(1) as i64;
    let mut batch = Vec::with_capacity(BATCH as usize);
    for i in 0..n_races {
        batch.push(race(
            rng,
            &format!("r{i:08}"),
            n_players,
            first + i as i64 * step,
            false,
        ));
        if batch.len() as u64 == BATCH || i + 1 == n_races {
            store.save_races(&batch)?;
            batch.clear();
            if (i + 1) % 100_000 == 0 || i + 1 == n_races {
                eprintln!("{} races in {:.1?}", i + 1, t0.elapsed());
            }
        }
    }
    Ok(())
}

/// (p50, p99) of `samples`.
fn pct(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort_unstable();
    let at = |q: usize| samples[(samples.len() * q / 100).min(samples.len() - 1)];
    (at(50), at(99))
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n_races = env("STORE_BENCH_RACES", 1_000_000);
    let n_players = env("STORE_BENCH_PLAYERS", 100_000);
    let tmp = tempfile::tempdir()?;
    let path = std::env::var_os("STORE_BENCH_DB")
        .map(PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("bench.sqlite3"));
    let store = SqliteStore::open(&path)?;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let t0 = Instant::now();
    if count(&store, "races")? < n_races {
        generate(&store, &mut rng, n_races, n_players)?;
    }
    let generated = t0.elapsed();
    let bytes = db_bytes(&store, &path)?;
    let races = count(&store, "races")?;

    println!("store bench: {races} races, {n_players} players, {path:?}");
    println!("generation {:.1?}", generated);
    println!();
    println!("| query | n | p50 ms | p99 ms |");
    println!("|---|---|---|---|");
    let boards = [
        (Difficulty::Easy, Period::Day, 0),
        (Difficulty::Easy, Period::Week, 0),
        (Difficulty::Easy, Period::Month, 0),
        (Difficulty::Easy, Period::All, 0),
        (Difficulty::Hard, Period::Day, 0),
        (Difficulty::Hard, Period::All, 0),
        (Difficulty::Expert, Period::Week, 1_000),
    ];
    for (difficulty, period, offset) in boards {
        let mut samples = Vec::new();
        let mut rows = 0;
        for _ in 0..300 {
            let t = Instant::now();
            rows = store
                .leaderboard(difficulty, period, NOW, 50, offset)?
                .len();
            samples.push(t.elapsed());
        }
        let (p50, p99) = pct(samples);
        println!(
            "| leaderboard {} {} limit 50 offset {offset} ({rows} rows) | 300 | {} | {} |",
            difficulty.as_str(),
            period.as_str(),
            ms(p50),
            ms(p99)
        );
    }
    for offset in [0, 20] {
        let mut samples = Vec::new();
        let mut rows = 0;
        for _ in 0..2_000 {
            let h = handle(rng.gen_range(0..n_players));
            let t = Instant::now();
            rows += store.history(&h, 20, offset)?.len();
            samples.push(t.elapsed());
        }
        let (p50, p99) = pct(samples);
        println!(
            "| history page, random player, limit 20 offset {offset} ({:.1} rows avg) | 2000 | {} | {} |",
            rows as f64 / 2000.0,
            ms(p50),
            ms(p99)
        );
    }
    let n_saves = 1_000u64;
    let mut samples = Vec::new();
    let mut changes = 0;
    for i in 0..n_saves {
        let rec = race(&mut rng, &format!("s{i:06}"), n_players, NOW, true);
        let t = Instant::now();
        changes += store.save_race(&rec)?.len();
        samples.push(t.elapsed());
    }
    let (p50, p99) = pct(samples);
    println!(
        "| save_race, rated, 2-4 players, ~150 placements ({changes} rating changes) | {n_saves} | {} | {} |",
        ms(p50),
        ms(p99)
    );
    let after = db_bytes(&store, &path)?;
    println!();
    println!(
        "database: {bytes} bytes after generation = {:.0} bytes per race (no placements)",
        bytes as f64 / races.max(1) as f64
    );
    println!(
        "save_race phase: {:.0} bytes per race with its placement log",
        after.saturating_sub(bytes) as f64 / n_saves as f64
    );
    Ok(())
}
