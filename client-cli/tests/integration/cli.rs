//! The network commands run as the real binary, for what only the binary decides: where the
//! settings come from (`sudoku-race config`), exit codes, and what is refused before any screen.
//! Each run gets its own empty config directory (`XDG_CONFIG_HOME`) and none of the user's
//! `SUDOKU_RACE_*` variables.

use std::path::Path;
use std::process::{Command, Output};

/// Run `sudoku-race ARGS` with `config_home` as its config directory and `env` set.
fn run(config_home: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sudoku-race"));
    cmd.args(args)
        .env("XDG_CONFIG_HOME", config_home)
        .env_remove("SUDOKU_RACE_SERVER")
        .env_remove("SUDOKU_RACE_NAME")
        .env_remove("SUDOKU_RACE_CA_FILE")
        .env("USER", "tester");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A standalone race server on 127.0.0.1:0 on its own runtime; it stops with the test process.
fn standalone_server(dir: &Path) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    listener.set_nonblocking(true).expect("nonblocking");
    let config = server::Config {
        db_path: dir.join("results.sqlite3"),
        ..Default::default()
    };
    std::thread::spawn(move || {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let _ = server::run(listener, config, std::future::pending::<()>()).await;
        });
    });
    format!("ws://{addr}/ws")
}

/// The database of [`standalone_server`] in `dir`, once the server has made it: a second
/// connection, to write finished races into.
fn server_store(dir: &Path) -> server::SqliteStore {
    let db = dir.join("results.sqlite3");
    (0..100)
        .find_map(|_| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            db.exists()
                .then(|| server::SqliteStore::open(&db).ok())
                .flatten()
        })
        .expect("the server's database")
}

#[test]
fn config_says_what_is_in_force_and_where_it_came_from() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = home.path().join("sudoku-race").join("config.toml");
    let out = run(home.path(), &[], &["config"]);
    assert_eq!(
        text(&out.stdout),
        format!(
            "config file: {} (not there: defaults apply)\nserver = \"ws://127.0.0.1:7878/ws\"  # default\nname = \"tester\"  # default\n",
            file.display()
        )
    );
    std::fs::create_dir_all(file.parent().expect("dir")).expect("mkdir");
    std::fs::write(&file, "server = \"ws://file:1/ws\"\nname = \"filed\"\n").expect("write");
    let out = run(
        home.path(),
        &[("SUDOKU_RACE_SERVER", "wss://env/ws")],
        &["config"],
    );
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout),
        format!(
            "config file: {}\nserver = \"wss://env/ws\"  # env SUDOKU_RACE_SERVER\nname = \"filed\"  # config file\n",
            file.display()
        )
    );
}

#[test]
fn a_malformed_config_file_is_named_with_its_line_and_exits_1() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = home.path().join("sudoku-race").join("config.toml");
    std::fs::create_dir_all(file.parent().expect("dir")).expect("mkdir");
    std::fs::write(&file, "name = \"a\"\nserver = ws://h/ws\n").expect("write");
    for args in [&["config"][..], &["join", "ABCD"], &["host"]] {
        let out = run(home.path(), &[], args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.starts_with(&format!(
                "sudoku-race: bad config file {}, line 2: ",
                file.display()
            )),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn failures_exit_1_with_the_reason_before_any_screen() {
    let home = tempfile::tempdir().expect("tempdir");
    let server = standalone_server(home.path());
    let link = format!("{}/r/ZZZZZ", server.trim_end_matches("/ws"));
    let long = "x".repeat(25);
    for (args, says) in [
        (vec!["join", "ZZZZZ", "--server", &server], "unknown_room"),
        (vec!["join", &link], "unknown_room"),
        (vec!["spectate", &link], "unknown_room"),
        (vec!["bot", &link, "--races", "1"], "unknown_room"),
        (
            vec!["join", "ABCD", "--server", "ws://127.0.0.1:1/ws"],
            "cannot connect to ws://127.0.0.1:1/ws",
        ),
        (vec!["join", "K1"], "`K1` is not a room code"),
        (
            vec!["join", &link, "--server", &server],
            "give an invite link or --server, not both",
        ),
        (
            vec!["host", "--name", &long],
            "name is longer than 24 characters",
        ),
        (
            vec!["host", "--name", &long, "--server", &server],
            "name is longer than 24 characters",
        ),
        (vec!["join", "ABCD", "--name", " "], "invalid name"),
        (
            vec!["replay", "NOPE-1", "--server", &server],
            "no such finished race: NOPE-1",
        ),
        (
            vec!["replay", "a/b", "--server", &server],
            "a race id is letters, digits and dashes",
        ),
        (
            vec!["replay", "AB-1", "--server", "ws://127.0.0.1:1/ws"],
            "cannot reach 127.0.0.1",
        ),
    ] {
        let out = run(home.path(), &[], &args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // A name from the environment is named as such.
    let out = run(home.path(), &[("SUDOKU_RACE_NAME", &long)], &["host"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("(from the environment variable SUDOKU_RACE_NAME)"));
}

#[test]
fn host_creates_its_room_on_the_given_server() {
    let home = tempfile::tempdir().expect("tempdir");
    let server = standalone_server(home.path());
    // The room is created on that server (no in-process one starts); only then does the
    // missing terminal stop it, with the not-a-terminal code.
    let out = run(
        home.path(),
        &[],
        &["host", "--server", &server, "--difficulty", "easy"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("terminal"),
        "{}",
        text(&out.stderr)
    );
    // The same from the configured server.
    let out = run(home.path(), &[("SUDOKU_RACE_SERVER", &server)], &["host"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // `--listen` means a server here, configured one or not; both flags at once are refused.
    let out = run(
        home.path(),
        &[("SUDOKU_RACE_SERVER", "ws://127.0.0.1:1/ws")],
        &["host", "--listen", "127.0.0.1:0"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = run(
        home.path(),
        &[],
        &["host", "--listen", "127.0.0.1:0", "--server", &server],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a usage error exits 1: {}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("cannot be used with"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn replay_fetches_a_stored_race_then_needs_a_terminal() {
    use server::store::{PlacementRecord, RaceRecord, SeatRecord};
    use server::Store;
    let home = tempfile::tempdir().expect("tempdir");
    let server = standalone_server(home.path());
    let store = server_store(home.path());
    let puzzle =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    let solution =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
    store
        .save_race(&RaceRecord {
            race_id: "REPLAY-1".into(),
            room: "ROOM".into(),
            difficulty: "easy",
            puzzle: puzzle.into(),
            solution: solution.into(),
            started_unix_ms: 1_700_000_000_000,
            duration_ms: 5_000,
            reason: "all_done",
            rated: false,
            daily: None,
            ghost_of: None,
            standings: vec![protocol::Standing {
                rank: 1,
                player_id: "p1".into(),
                name: "ann".try_into().expect("a name"),
                status: protocol::FinishStatus::Forfeited,
                time_ms: None,
                filled: 1,
                mistakes: 0,
                time_ms_raw: None,
                lag_ms: 0,
                puzzle: None,
                solution: None,
                layout: Default::default(),
            }],
            seats: vec![SeatRecord {
                player_id: "p1".into(),
                handle: None,
                bot: false,
                flags: Vec::new(),
            }],
            placements: vec![PlacementRecord {
                player_id: "p1".into(),
                at_ms: 1_000,
                cell: 2,
                digit: 4,
                outcome: "accepted",
            }],
        })
        .expect("save the race");
    let out = run(
        home.path(),
        &[],
        &["replay", "REPLAY-1", "--server", &server],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("needs an interactive terminal"));
}

#[test]
fn history_prints_the_best_solves_above_the_races() {
    use server::store::{key_hash, RaceRecord, SeatRecord};
    use server::Store;
    let home = tempfile::tempdir().expect("tempdir");
    let server = standalone_server(home.path());
    let store = server_store(home.path());
    store
        .register("hTESTER1", key_hash("k"), "ann", 1_700_000_000_000)
        .expect("register");
    let solved = |race_id: &str, difficulty, time_ms| RaceRecord {
        race_id: race_id.into(),
        room: "ROOM".into(),
        difficulty,
        puzzle: ".".repeat(81),
        solution: "1".repeat(81),
        started_unix_ms: 1_700_000_000_000,
        duration_ms: time_ms,
        reason: "all_done",
        rated: false,
        daily: None,
        ghost_of: None,
        standings: vec![protocol::Standing {
            rank: 1,
            player_id: "p1".into(),
            name: "ann".try_into().expect("a name"),
            status: protocol::FinishStatus::Solved,
            time_ms: Some(time_ms),
            filled: 50,
            mistakes: 0,
            time_ms_raw: None,
            lag_ms: 0,
            puzzle: None,
            solution: None,
            layout: Default::default(),
        }],
        seats: vec![SeatRecord {
            player_id: "p1".into(),
            handle: Some("hTESTER1".into()),
            bot: false,
            flags: Vec::new(),
        }],
        placements: Vec::new(),
    };
    for rec in [
        solved("HARD-1", "hard", 200_000),
        solved("EASY-SLOW", "easy", 90_000),
        solved("EASY-FAST", "easy", 65_000),
    ] {
        store.save_race(&rec).expect("save");
    }
    let out = run(
        home.path(),
        &[],
        &["history", "hTESTER1", "--server", &server],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].contains("best of hTESTER1"), "{stdout}");
    assert!(
        lines[2].starts_with("easy") && lines[2].contains("1:05") && lines[2].contains("EASY-FAST"),
        "{stdout}"
    );
    assert!(
        lines[3].starts_with("hard") && lines[3].contains("3:20"),
        "{stdout}"
    );
    let races_at = lines.iter().position(|l| l.contains("EASY-SLOW"));
    assert!(
        races_at > Some(4),
        "the races come after the best: {stdout}"
    );
}
