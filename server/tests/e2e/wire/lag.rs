//! Lag compensation end to end (A8), over real sockets: two players race one puzzle at the
//! same pace, one of them behind a proxy that delays every byte by 150 ms each way. The
//! server's own pings measure her round trip (about 300 ms), her time is compensated by it,
//! and the stored race keeps the same figures.

use std::time::Duration;

use serde_json::{json, Value};
use testkit::lag::{race_at_pace, DelayProxy};
use testkit::JsonWs;
use tokio::net::TcpStream;
use tokio_tungstenite::MaybeTlsStream;

use crate::support::TestServer;

/// Each way, in front of the far player.
const DELAY: Duration = Duration::from_millis(150);
/// One digit every so often: the race lasts several probe intervals.
const PACE: Duration = Duration::from_millis(120);
/// Any single receive.
const RECV: Duration = Duration::from_secs(20);

type Ws = JsonWs<MaybeTlsStream<TcpStream>>;

async fn connect(addr: std::net::SocketAddr, srv: &TestServer) -> Ws {
    let stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let (ws, _) = tokio_tungstenite::client_async(srv.url(), MaybeTlsStream::Plain(stream))
        .await
        .expect("handshake");
    let mut ws = JsonWs::new(ws, RECV);
    let w = ws.recv().await.expect("welcome");
    assert_eq!(w["type"], "welcome");
    ws
}

fn row<'a>(standings: &'a [Value], name: &str) -> &'a Value {
    standings
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {standings:?}"))
}

#[tokio::test]
async fn a_far_players_time_is_compensated_by_her_measured_round_trip() {
    let srv = TestServer::start_with(|c| c.lag_cap_ms = 500).await;
    let proxy = DelayProxy::start(srv.addr, DELAY).await.expect("proxy");
    let mut far = connect(proxy.addr, &srv).await;
    let mut near = connect(srv.addr, &srv).await;
    far.send(json!({"type": "create_room", "name": "far", "settings": {"difficulty": "easy"}}))
        .await;
    let joined = far.until("room_joined").await;
    let room = joined["room"].as_str().expect("code").to_owned();
    near.send(json!({"type": "join_room", "room": room, "name": "near"}))
        .await;
    near.until("room_joined").await;
    far.until("player_joined").await;
    far.send(json!({"type": "start_race"})).await;
    let (far_over, near_over) =
        tokio::join!(race_at_pace(&mut far, PACE), race_at_pace(&mut near, PACE));
    let far_over = far_over.expect("far's race");
    let near_over = near_over.expect("near's race");
    assert_eq!(far_over["standings"], near_over["standings"]);
    let standings = near_over["standings"].as_array().expect("standings");
    let (f, n) = (row(standings, "far"), row(standings, "near"));
    for s in [f, n] {
        assert_eq!(s["status"], "solved", "{s}");
        let (t, raw, lag) = (
            s["time_ms"].as_u64().expect("time"),
            s["time_ms_raw"].as_u64().expect("raw"),
            s["lag_ms"].as_u64().expect("lag"),
        );
        assert_eq!(t, raw - lag, "{s}");
    }
    // Bands wide enough for a loaded machine; the benchmark measures how close it comes.
    let far_lag = f["lag_ms"].as_u64().expect("lag");
    let near_lag = n["lag_ms"].as_u64().expect("lag");
    assert!((240..=500).contains(&far_lag), "far: {f}");
    assert!(near_lag < 150 && near_lag < far_lag, "near: {n}");

    // The stored race says the same.
    let race_id = far_over["race_id"].as_str().expect("race id");
    let path = format!("/api/races/{race_id}");
    let (_, body) = srv.http_get(&path).await.expect("the race over HTTP");
    let kept: Value = serde_json::from_str(&body).expect("json");
    for s in kept["standings"].as_array().expect("standings") {
        let sent = row(standings, s["name"].as_str().expect("name"));
        for k in ["time_ms", "time_ms_raw", "lag_ms", "rank"] {
            assert_eq!(s[k], sent[k], "{k} of {s}");
        }
    }
}
