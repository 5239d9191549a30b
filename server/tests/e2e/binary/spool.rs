//! A9, results never lost: a rated race that ends while the database cannot take it still
//! ends (`race_over` at once, without ratings), its result waits in the spool, and lands when
//! the database answers again, its `ratings` then sent to the room. Two real ways the database
//! goes away: its disk fills up (a small tmpfs, filled for real), and PostgreSQL is stopped
//! across a restart of the server.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use testkit::{solve, to_fill};

use crate::support::process::{get_json, player, register, two_in_a_room, Server, Ws};

/// A quick race, every digit at once, no fair-play flags.
const FLAGS: [&str; 10] = [
    "--countdown-ms",
    "10",
    "--puzzle-stock",
    "1",
    "--fair-play",
    "false",
    "--rate-limit",
    "1000",
    "--rate-burst",
    "1000",
];

/// Two registered players racing a rated race: ann, bob, the race id, ann's puzzle.
struct Duel {
    ann: Ws,
    bob: Ws,
    race_id: String,
    puzzle: String,
    handle: String,
}

/// Ann and bob register, race rated, and bob places one digit (A8: else he is unrated).
async fn rated_race(srv: &Server) -> Duel {
    let (mut ann, mut bob) = (player(srv).await, player(srv).await);
    let (ann_key, handle) = register(&mut ann, "ann").await;
    let (bob_key, _) = register(&mut bob, "bob").await;
    two_in_a_room(
        (
            &mut ann,
            json!({"type": "create_room", "name": "ann", "key": ann_key,
                   "settings": {"difficulty": "easy", "rated": true}}),
        ),
        (
            &mut bob,
            json!({"type": "join_room", "name": "bob", "key": bob_key}),
        ),
    )
    .await;
    ann.send(json!({"type": "start_race"})).await;
    let rs = ann.until("race_started").await;
    let race_id = rs["race_id"].as_str().expect("race_id").to_owned();
    let puzzle = rs["puzzle"].as_str().expect("puzzle").to_owned();
    let bobs = bob.until("race_started").await;
    let bobs = bobs["puzzle"].as_str().expect("bob's puzzle").to_owned();
    let (cell, digit) = to_fill(&bobs, &solve(&bobs))[0];
    bob.send(json!({"type": "place", "cell": cell, "digit": digit}))
        .await;
    bob.until("placement").await;
    Duel {
        ann,
        bob,
        race_id,
        puzzle,
        handle,
    }
}

/// Ann solves, bob forfeits: both hear `race_over` at once, without rating changes.
async fn finish(d: &mut Duel) {
    for (cell, digit) in to_fill(&d.puzzle, &solve(&d.puzzle)) {
        d.ann
            .send(json!({"type": "place", "cell": cell, "digit": digit}))
            .await;
    }
    d.bob.until("player_finished").await;
    d.bob.send(json!({"type": "forfeit"})).await;
    for ws in [&mut d.ann, &mut d.bob] {
        let over = ws.until("race_over").await;
        assert_eq!(over["race_id"], d.race_id.as_str(), "{over}");
        assert_eq!(over["ratings"], json!([]), "the result waits: {over}");
    }
}

/// The value of an OpenMetrics sample line `name value`.
async fn metric(srv: &Server, name: &str) -> f64 {
    let text = srv.http_get("/metrics").await;
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or_else(|| panic!("{name} in {text}"))
}

/// Results waiting, by `/healthz`.
async fn queued(srv: &Server) -> u64 {
    let (status, h) = get_json(srv, "/healthz").await;
    assert_eq!(status, 200, "{h}");
    h["results_queued"].as_u64().expect("results_queued")
}

/// The spool's result files.
fn spooled(dir: &Path) -> Vec<PathBuf> {
    let files = std::fs::read_dir(dir).expect("the spool exists");
    files
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect()
}

/// Wait (at most 20 s) until nothing waits.
async fn landed(srv: &Server) {
    let drained = async {
        while queued(srv).await > 0 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    testkit::wait::within("the result landed", Duration::from_secs(20), drained).await;
}

/// The stored race by the API: its standings' names and statuses.
async fn stored(srv: &Server, race_id: &str) -> Vec<(String, String)> {
    let (status, race) = get_json(srv, &format!("/api/races/{race_id}")).await;
    assert_eq!(status, 200, "{race}");
    let rows = race["standings"].as_array().expect("standings").iter();
    rows.map(|s| {
        let f = |k: &str| s[k].as_str().unwrap_or_default().to_owned();
        (f("name"), f("status"))
    })
    .collect()
}

/// A tmpfs of `size` mounted at `dir` (created), unmounted when dropped.
pub(super) struct Tmpfs(PathBuf);

impl Tmpfs {
    pub(super) fn mount(dir: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).expect("mount point");
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .expect("run mount");
        assert!(
            out.status.success(),
            "this test mounts a small tmpfs to fill it (it needs root): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Tmpfs(dir.to_owned())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        // Lazy: the server may still hold its files open while it exits.
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Write `path` until the filesystem is full; the error says so.
pub(super) fn fill(path: &Path) {
    use std::io::Write;
    let mut f = std::fs::File::create(path).expect("the filler file");
    let chunk = vec![0xa5_u8; 64 * 1024];
    let err = loop {
        if let Err(e) = f.write_all(&chunk).and_then(|()| f.sync_all()) {
            break e;
        }
    };
    assert_eq!(err.kind(), std::io::ErrorKind::StorageFull, "{err}");
}

#[tokio::test]
async fn a_result_waits_out_a_full_disk_in_the_spool_and_lands_when_space_returns() {
    let dir = tempfile::tempdir().expect("temp dir");
    let small = dir.path().join("small");
    let _mount = Tmpfs::mount(&small, "4m");
    let (db, spool) = (small.join("results.sqlite3"), dir.path().join("spool"));
    let mut args = FLAGS.to_vec();
    let spool_arg = spool.to_str().expect("a UTF-8 path");
    args.extend(["--spool", spool_arg]);
    let srv = Server::start_on(db.to_str(), &args, None);
    let mut d = rated_race(&srv).await;
    let filler = small.join("filler");
    fill(&filler);
    finish(&mut d).await;
    assert_eq!(queued(&srv).await, 1);
    assert_eq!(spooled(&spool).len(), 1, "the result is on disk");
    assert_eq!(metric(&srv, "sudoku_race_results_spooled_total").await, 1.0);
    assert_eq!(metric(&srv, "sudoku_race_results_queued").await, 1.0);
    assert_eq!(
        get_json(&srv, &format!("/api/races/{}", d.race_id)).await.0,
        404,
        "not stored yet"
    );
    std::fs::remove_file(&filler).expect("free the space");
    // The late ratings reach both players, still in the room.
    for ws in [&mut d.ann, &mut d.bob] {
        let r = ws.until("ratings").await;
        assert_eq!(r["race_id"], d.race_id.as_str(), "{r}");
        assert_eq!(r["ratings"].as_array().map(Vec::len), Some(2), "{r}");
    }
    landed(&srv).await;
    assert!(spooled(&spool).is_empty());
    let names = stored(&srv, &d.race_id).await;
    assert_eq!(names[0], ("ann".into(), "solved".into()), "{names:?}");
    assert_eq!(names.len(), 2, "{names:?}");
    let (_, page) = get_json(&srv, &format!("/api/players/{}", d.handle)).await;
    assert_eq!(page["ratings"][0]["races"], 1, "{page}");
    assert_eq!(metric(&srv, "sudoku_race_results_retried_total").await, 1.0);
    assert_eq!(metric(&srv, "sudoku_race_results_refused_total").await, 0.0);
    assert_eq!(metric(&srv, "sudoku_race_results_dropped_total").await, 0.0);
}

#[cfg(feature = "pg-tests")]
#[tokio::test]
async fn a_result_spooled_before_a_restart_lands_when_postgres_returns() {
    let pg = crate::support::own_pg::Postgres::start();
    let url = pg.url();
    let spool = tempfile::tempdir().expect("temp dir");
    let mut args = FLAGS.to_vec();
    let spool_arg = spool.path().to_str().expect("a UTF-8 path");
    args.extend(["--spool", spool_arg]);
    let mut srv = Server::start_with_db(&url, &args);
    let mut d = rated_race(&srv).await;
    pg.down();
    finish(&mut d).await;
    assert_eq!(queued(&srv).await, 1);
    srv.signal("-TERM");
    assert!(srv.exit(Duration::from_secs(15)).await.success());
    assert_eq!(
        spooled(spool.path()).len(),
        1,
        "the result survives the stop"
    );
    // The server starts again while PostgreSQL is still away: it waits for it.
    let back = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(1));
        pg.up();
        pg
    });
    let srv = Server::start_with_db(&url, &args);
    let _pg = back.join().expect("PostgreSQL back");
    landed(&srv).await;
    assert!(spooled(spool.path()).is_empty());
    let names = stored(&srv, &d.race_id).await;
    assert_eq!(names.len(), 2, "{names:?}");
    let (_, page) = get_json(&srv, &format!("/api/players/{}", d.handle)).await;
    assert_eq!(page["ratings"][0]["races"], 1, "{page}");
    assert_eq!(metric(&srv, "sudoku_race_results_retried_total").await, 1.0);
}
