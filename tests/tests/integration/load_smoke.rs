//! A short run of each load against in-process servers: it completes with no errors and no
//! lost, duplicated or reordered messages. Figures come from release-mode `loadgen` runs.

use std::time::Duration;

use sudoku_race_tests::echo::{self, EchoConfig};
use sudoku_race_tests::load::race::RaceOpts;
use sudoku_race_tests::load::{echo_load, RunReport};
use tokio::net::TcpListener;

fn small() -> RaceOpts {
    RaceOpts {
        rooms: 2,
        players: 3,
        rate: 60.0,
        duration: Duration::from_millis(1500),
        drain: Duration::from_secs(5),
        ..RaceOpts::default()
    }
}

#[track_caller]
fn check_clean(r: &RunReport) {
    let t = &r.tally;
    assert_eq!(t.errors, 0, "errors in {t:?}");
    assert_eq!(t.lost, 0, "lost messages in {t:?}");
    assert_eq!(t.disorder, 0, "duplicated or reordered messages in {t:?}");
    assert!(t.sent > 0, "nothing sent");
    assert_eq!(t.replies, t.sent, "every message answered");
    assert_eq!(
        r.fanout_all.count(),
        t.sent,
        "every message reached every member"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_load_loses_nothing() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(echo::serve(listener, EchoConfig::default(), async {
        let _ = stopped.await;
    }));
    let opts = small();
    let report = echo_load::run(addr, Some(std::process::id()), &opts)
        .await
        .unwrap();
    check_clean(&report);
    // Each frame goes to the 3 members of its group.
    assert_eq!(report.tally.received, report.tally.sent * 3);
    assert!(report.server_cpu.is_some());
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}
