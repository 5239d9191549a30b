//! The daily challenge through the terminal client's daily intent.

use engine::Difficulty;

use crate::support::rated::register;
use crate::support::TestServer;

/// The terminal client's daily intent sends `start_daily` with the session's key and lands in
/// the race at once.
#[tokio::test]
async fn the_terminal_clients_daily_intent_starts_the_race() {
    use client::net::{self, Endpoint, Identity, Intent, NetEvent, ServerUrl};
    use protocol::ServerMsg;

    let srv = TestServer::start().await;
    let mut a = srv.client().await;
    let (key, _) = register(&mut a, "dora").await;
    let url: ServerUrl = srv.url().parse().expect("url");
    let who = Identity {
        key: Some(protocol::IdentityKey::from(key)),
        bot: false,
    };
    let intent = Intent::Daily {
        difficulty: Difficulty::Easy,
        variant: engine::Variant::Classic,
        name: "dora".into(),
    };
    let (_session, mut events) = net::connect_as(Endpoint::from(&url), intent, who);
    let started = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        while let Some(ev) = events.recv().await {
            if let NetEvent::Message(m) = ev {
                if let ServerMsg::RaceStarted { difficulty, .. } = *m {
                    return Some(difficulty);
                }
            }
        }
        None
    })
    .await
    .expect("race_started in time");
    assert_eq!(started, Some(Difficulty::Easy));
}
