//! The store suite on PostgreSQL, each case in a database of its own, and what only a shared
//! database has: migrations and rating updates from several nodes at once, the daily secret,
//! and being dropped inside a runtime. The live tests need the PostgreSQL of
//! [`super::scratch::DEFAULT_ADMIN_URL`], so they run under `--features pg-tests`.

use super::{is_url, PgStore};
use crate::store::StoreError;

#[test]
fn postgres_urls_are_told_from_file_paths() {
    for url in [
        "postgres://h/db",
        "postgresql://u@h:5432/db",
        "POSTGRES://h",
    ] {
        assert!(is_url(url), "{url}");
    }
    for path in [
        "results.sqlite3",
        "/var/lib/postgres/x.db",
        "postgres",
        "./postgres://x",
    ] {
        assert!(!is_url(path), "{path}");
    }
}

#[test]
fn a_server_that_is_not_there_is_a_backend_error() {
    // Port 1 on loopback: nothing listens, the connection is refused at once.
    let got = PgStore::open("postgres://postgres@127.0.0.1:1/none?connect_timeout=2");
    assert!(matches!(got, Err(StoreError::Backend(_))), "{got:?}");
    // A9: nobody there may be back later; a malformed URL never will be.
    assert!(got.is_err_and(|e| e.is_transient()));
    let bad = PgStore::open("postgres://[not a url");
    assert!(matches!(bad, Err(StoreError::Backend(_))), "{bad:?}");
    assert!(bad.is_err_and(|e| !e.is_transient()));
}

#[cfg(feature = "pg-tests")]
mod live {
    use std::sync::Arc;

    use protocol::FinishStatus;

    use super::super::scratch::ScratchDb;
    use super::super::{schema, PgStore};
    use crate::store::recompute::recompute;
    use crate::store::tests::{
        check_old_solves, race, register, store_suite, Fixture, Racer, NOW, OLD_SOLVES,
    };
    use crate::store::StoreError;

    fn scratch() -> ScratchDb {
        ScratchDb::create().expect("a scratch database: is PostgreSQL on 127.0.0.1:5432?")
    }

    /// A store on a database of its own.
    fn open() -> Fixture {
        let db = scratch();
        let store = Arc::new(PgStore::open(&db.url()).expect("open the scratch database"));
        Fixture {
            store: store.clone(),
            exec: Box::new(move |sql| {
                store
                    .with_client(|c| Ok(c.batch_execute(sql)?))
                    .expect("raw SQL");
            }),
            _keep: Box::new(db),
        }
    }

    store_suite!(open);

    #[test]
    fn nodes_that_start_together_migrate_once_and_a_newer_schema_is_refused() {
        let db = scratch();
        let url = db.url();
        let opened: Vec<Result<PgStore, StoreError>> = std::thread::scope(|s| {
            let starts: Vec<_> = (0..4).map(|_| s.spawn(|| PgStore::open(&url))).collect();
            starts
                .into_iter()
                .map(|t| t.join().expect("no panic"))
                .collect()
        });
        let stores: Vec<PgStore> = opened
            .into_iter()
            .collect::<Result<_, _>>()
            .expect("every node opens");
        let version = stores[0].with_client(schema::version).expect("version");
        assert_eq!(version, schema::MIGRATIONS.len() as i64);
        stores[0]
            .with_client(|c| Ok(c.batch_execute("UPDATE schema_version SET version = 99")?))
            .expect("bump");
        assert!(matches!(PgStore::open(&url), Err(StoreError::Migration(_))));
    }

    #[test]
    fn a_database_from_before_ghosts_gets_its_best_solves() {
        use r2d2_postgres::postgres::{Client, NoTls};
        let db = scratch();
        {
            let mut c = Client::connect(&db.url(), NoTls).expect("connect");
            c.batch_execute(schema::MIGRATIONS[0]).expect("version 1");
            c.batch_execute(
                "CREATE TABLE schema_version (
                     id BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id),
                     version BIGINT NOT NULL
                 );
                 INSERT INTO schema_version (version) VALUES (1);
                 INSERT INTO players VALUES ('hA', '\\x01', 'ann', 0), ('hB', '\\x02', 'bob', 0);",
            )
            .expect("players");
            c.batch_execute(OLD_SOLVES).expect("old solves");
        }
        check_old_solves(&PgStore::open(&db.url()).expect("migrate"));
    }

    #[test]
    fn every_node_gets_the_first_daily_secret() {
        let db = scratch();
        let (a, b) = (
            PgStore::open(&db.url()).expect("node a"),
            PgStore::open(&db.url()).expect("node b"),
        );
        assert_eq!(a.daily_secret("first").expect("a"), "first");
        assert_eq!(b.daily_secret("second").expect("b"), "first");
        assert_eq!(a.daily_secret("third").expect("a again"), "first");
    }

    #[test]
    fn rated_races_stored_at_once_still_follow_from_history() {
        let f = open();
        let handles = ["hA", "hB", "hC"];
        register(&*f.store, &handles);
        // Every race has hA in it, so every pair of them contends for hA's rating.
        std::thread::scope(|s| {
            for t in 0..4 {
                let store = &f.store;
                s.spawn(move || {
                    for i in 0..5 {
                        let other = handles[1 + (t + i) % 2];
                        let rec = race(
                            &format!("r{t}-{i}"),
                            NOW,
                            &[
                                Racer("p1", Some("hA"), FinishStatus::Solved, Some(60_000), 1),
                                Racer("p2", Some(other), FinishStatus::TimedOut, None, 2),
                            ],
                        );
                        assert_eq!(store.save_race(&rec).expect("save").len(), 2);
                    }
                });
            }
        });
        let got = recompute(&*f.store).expect("recompute");
        assert_eq!(got.races, 20);
        assert_eq!(got.mismatches, Vec::<String>::new());
        let page = f.store.player("hA").expect("page").expect("hA");
        assert_eq!(page.ratings[0].stats.races, 20);
    }

    #[test]
    fn a_store_dropped_inside_a_runtime_closes_quietly() {
        let db = scratch();
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        rt.block_on(async {
            let url = db.url();
            let store = tokio::task::spawn_blocking(move || PgStore::open(&url))
                .await
                .expect("no panic")
                .expect("open");
            // The last handle goes on an async worker, as the server's does at shutdown.
            drop(store);
        });
    }
}
