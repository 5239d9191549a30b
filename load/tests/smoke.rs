//! A short run of each load against in-process servers: it completes with no errors and no
//! lost, duplicated or reordered messages. Figures come from release-mode `loadgen` runs.

use std::time::Duration;

use load::echo::{self, EchoConfig};
use load::run::race::RaceOpts;
use load::run::{churn, deal, echo_load, idle, pool, race, RunReport};
use tokio::net::TcpListener;

fn small() -> RaceOpts {
    RaceOpts {
        rooms: 2,
        players: 3,
        rate: 60.0,
        duration: Duration::from_millis(1500),
        // Readers stop as soon as everything has arrived; the drain only bounds a stall.
        drain: Duration::from_secs(15),
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

/// A race server on loopback with its results in a temporary directory, and its stop switch.
struct RaceServer {
    addr: std::net::SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), server::ServerError>>,
    _dir: tempfile::TempDir,
}

impl RaceServer {
    async fn start() -> RaceServer {
        RaceServer::start_with(tempfile::tempdir().unwrap(), None).await
    }

    /// Serve from `dir`, over TLS with these files when given.
    async fn start_with(dir: tempfile::TempDir, tls: Option<server::TlsFiles>) -> RaceServer {
        let config = server::Config {
            tls,
            ..server::Config::default()
        };
        RaceServer::start_config(dir, config).await
    }

    /// Node `id` of the cluster on the Redis at `url`.
    #[cfg(feature = "cluster-tests")]
    async fn start_node(url: &str, id: &str) -> RaceServer {
        let config = server::Config {
            cluster: Some(url.to_owned()),
            node_id: Some(id.to_owned()),
            ..server::Config::default()
        };
        RaceServer::start_config(tempfile::tempdir().unwrap(), config).await
    }

    /// Serve `config` from `dir`, with a short countdown.
    async fn start_config(dir: tempfile::TempDir, config: server::Config) -> RaceServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let config = server::Config {
            db_path: dir.path().join("results.sqlite3"),
            countdown: Duration::from_millis(100),
            ..config
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(server::run(listener, config, async {
            let _ = stopped.await;
        }));
        RaceServer {
            addr,
            stop: Some(stop),
            task,
            _dir: dir,
        }
    }

    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        (&mut self.task).await.unwrap().unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn race_load_loses_nothing() {
    let server = RaceServer::start().await;
    let opts = small();
    let report = race::run(server.addr, Some(std::process::id()), &opts)
        .await
        .unwrap();
    check_clean(&report);
    // Each placement: a `placement` to the placer and a `progress` to the 3 players.
    assert_eq!(report.tally.received, report.tally.sent * 4);
    assert_eq!(
        report.tally.accepted + report.tally.mistakes,
        report.tally.sent
    );
    assert!(report.tally.accepted > 0, "the bots place correct digits");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn race_load_over_tls_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cert = load::tls::self_signed(dir.path()).unwrap();
    let files = server::TlsFiles {
        cert: cert.cert.clone(),
        key: cert.key.clone(),
    };
    let server = RaceServer::start_with(dir, Some(files)).await;
    let opts = RaceOpts {
        tls: Some(cert.client),
        ..small()
    };
    let report = race::run(server.addr, Some(std::process::id()), &opts)
        .await
        .unwrap();
    check_clean(&report);
    assert_eq!(report.tally.received, report.tally.sent * 4);
    server.stop().await;
}

/// Two nodes on a `redis-server` of the test's own: every room's players are spread over both
/// (so some reach their room through Redis), and nothing is lost on the way.
#[cfg(feature = "cluster-tests")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn race_load_over_a_cluster_loses_nothing() {
    let redis = load::run::spawn::start_redis(&"redis-server".into(), None)
        .await
        .unwrap();
    let url = format!("redis://{}", redis.addr);
    let a = RaceServer::start_node(&url, "a").await;
    let b = RaceServer::start_node(&url, "b").await;
    let procs = load::run::launch::Procs {
        servers: Vec::new(),
        redis: Some(redis.pid()),
    };
    let report = race::run_spread(&[a.addr, b.addr], &procs, &small())
        .await
        .unwrap();
    check_clean(&report);
    assert_eq!(report.tally.received, report.tally.sent * 4);
    assert_eq!(report.nodes, 2);
    // Player 1 of each room (of 3) is on the other node than its room's creator.
    let relayed = report.round_trip_relayed.count();
    assert!(
        relayed > 0 && relayed < report.tally.sent,
        "{relayed} relayed"
    );
    assert!(report.redis_cpu.is_some());
    a.stop().await;
    b.stop().await;
}

/// Two nodes: the pool's players spread over both, every one seated by the one pool.
#[cfg(feature = "cluster-tests")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pool_load_over_a_cluster_seats_everyone() {
    let redis = load::run::spawn::start_redis(&"redis-server".into(), None)
        .await
        .unwrap();
    let url = format!("redis://{}", redis.addr);
    let a = RaceServer::start_node(&url, "pa").await;
    let b = RaceServer::start_node(&url, "pb").await;
    let r = pool::run(&[a.addr, b.addr], 16, 200.0).await.unwrap();
    assert_eq!((r.seated.count(), r.errors), (16, 0));
    a.stop().await;
    b.stop().await;
}

/// Idle connections on two nodes, each set held by a child loadgen: all open at once, each
/// node read while both children hold theirs.
#[cfg(feature = "cluster-tests")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_over_a_cluster_holds_every_connection_at_once() {
    let redis = load::run::spawn::start_redis(&"redis-server".into(), None)
        .await
        .unwrap();
    let url = format!("redis://{}", redis.addr);
    let a = RaceServer::start_node(&url, "ia").await;
    let b = RaceServer::start_node(&url, "ib").await;
    let me = std::process::id();
    let loadgen = std::path::Path::new(env!("CARGO_BIN_EXE_loadgen"));
    let nodes = [(a.addr, me), (b.addr, me)];
    let hold = ["--idle-hold=0".to_owned()];
    let r = load::run::idle_spread::run(loadgen, &nodes, 150, &hold)
        .await
        .unwrap();
    assert_eq!(r.iter().map(|n| n.open).collect::<Vec<_>>(), [150, 150]);
    // Both nodes live in this process: its descriptors count both children's connections.
    assert!(r.iter().all(|n| n.fds_all_open >= 300), "{r:?}");
    let json = load::run::idle_spread::json(&r);
    assert_eq!(json["idle_open_at_once"], 300);
    a.stop().await;
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_churn_deal_and_pool_runs_complete() {
    let server = RaceServer::start().await;
    let pid = Some(std::process::id());
    let idle = idle::run(server.addr, pid, 20, 8, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!((idle.open, idle.failed), (20, 0));
    assert!(idle.bytes_per_conn().is_some());
    let churn = churn::run(server.addr, pid, 40, 4).await.unwrap();
    assert_eq!((churn.cycles, churn.errors), (40, 0));
    let deals = deal::run(server.addr, 1, 2).await.unwrap();
    assert_eq!(deals.len(), 4);
    for d in &deals {
        assert_eq!((d.wait.count(), d.errors), (1, 0), "{:?}", d.difficulty);
    }
    let seated = pool::run(&[server.addr], 16, 200.0).await.unwrap();
    assert_eq!((seated.seated.count(), seated.errors), (16, 0));
    server.stop().await;
}
