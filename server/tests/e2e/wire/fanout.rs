//! Fan-out limits (A4), safe names and text (A3), and no early solution (A1), over real
//! sockets: many spectators from one address cannot multiply a room's chat, nobody can pass for
//! a player, and a seat that is out does not learn the solution before `race_over`.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::oneshot;

use crate::support::{
    ann_and_bob, chat_until_a_drop, create, host_and_slow_reader, Client, Closed, TestServer,
};
use testkit::{solve, to_fill};

/// Spectators that try to get into one room.
const CROWD: usize = 300;
/// How long the admitted spectators chat.
const CHAT_FOR: Duration = Duration::from_secs(3);

/// Start the race from the host; its puzzle.
async fn start(host: &mut Client, others: &mut [&mut Client]) -> String {
    host.send(json!({"type": "start_race"})).await;
    let rs = host.until("race_started").await;
    for o in others.iter_mut() {
        o.until("race_started").await;
    }
    rs["puzzle"].as_str().expect("puzzle").to_owned()
}

/// Chat at `every` until `until`, reading meanwhile: (chats sent, chats received,
/// `rate_limited` errors).
async fn chat_until(mut c: Client, every: Duration, chat_for: Duration) -> (usize, usize, usize) {
    let (mut chats, mut limited) = (0, 0);
    let mut tick = tokio::time::interval(every);
    let mut n = 0;
    let done = tokio::time::sleep(chat_for);
    tokio::pin!(done);
    loop {
        tokio::select! {
            () = &mut done => break,
            _ = tick.tick() => {
                n += 1;
                c.send(json!({"type": "chat", "text": format!("spam {n}")})).await;
            }
            v = c.recv() => match v {
                Ok(v) if v["type"] == "chat" => chats += 1,
                Ok(v) if v["code"] == "rate_limited" => limited += 1,
                Ok(_) => {}
                Err(e) => panic!("a spectator within its own limit was cut off: {e:#}"),
            },
        }
    }
    (n, chats, limited)
}

// The clock is paused: the chatters' ticks and the server's rate limits run on tokio's clock,
// so the chat window is exactly `CHAT_FOR` and the room's budget over it is exact, however
// slow the machine.
#[tokio::test(start_paused = true)]
async fn three_hundred_spectators_from_one_address_cannot_amplify_chat() {
    // The contract's per-connection limit (the test config raises it for bots).
    let srv = TestServer::start_with(|c| {
        let d = server::Limits::default();
        c.limits.rate_limit = d.rate_limit;
        c.limits.rate_burst = d.rate_burst;
        crate::support::no_journal(c);
    })
    .await;
    let limits = server::Limits::default();
    let mut a = srv.client().await;
    let (room, _) = create(&mut a, "ann", json!({"difficulty": "easy"})).await;
    let puzzle = start(&mut a, &mut []).await;

    // The player reads everything, all along (and hears nothing while the crowd arrives: a
    // long receive timeout, however slow the machine).
    a.set_timeout(Duration::from_secs(120));
    let (stop, stopped) = oneshot::channel::<()>();
    let reader = tokio::spawn(async move {
        let mut stopped = stopped;
        let mut chats = 0usize;
        loop {
            tokio::select! {
                _ = &mut stopped => break,
                v = a.recv() => match v {
                    Ok(v) if v["type"] == "chat" => chats += 1,
                    Ok(_) => {}
                    Err(e) => panic!("the reading player was cut off: {e:#}"),
                },
            }
        }
        (a, chats)
    });

    let mut admitted = Vec::new();
    let mut full = 0;
    for i in 0..CROWD {
        let mut s = srv.client().await;
        s.send(json!({"type": "spectate", "room": room})).await;
        let v = s.recv().await.expect("an answer to spectate");
        match (v["type"].as_str(), v["code"].as_str()) {
            (Some("room_joined"), _) => admitted.push(s),
            (Some("error"), Some("room_full")) => full += 1,
            _ => panic!("spectator {i}: {v}"),
        }
    }
    assert_eq!(admitted.len(), limits.max_spectators);
    assert_eq!(full, CROWD - limits.max_spectators);

    // Each admitted spectator chats as fast as its own limit allows.
    let every = Duration::from_secs(1) / limits.rate_limit;
    let chatters: Vec<_> = admitted
        .into_iter()
        .map(|s| tokio::spawn(chat_until(s, every, CHAT_FOR)))
        .collect();
    let mut results = Vec::new();
    for c in chatters {
        results.push(c.await.expect("a chatter"));
    }
    let _ = stop.send(());
    let (mut a, player_chats) = reader.await.expect("the player's reader");
    let budget =
        f64::from(limits.chat_burst) + f64::from(limits.chat_rate) * CHAT_FOR.as_secs_f64();
    // Every member hears at most the room's budget (a little slack for the edges of the window).
    let cap = budget as usize + 2;
    assert!(
        player_chats <= cap,
        "player heard {player_chats} chats, cap {cap}"
    );
    assert!(
        player_chats >= limits.chat_burst as usize,
        "the burst got through: {player_chats}"
    );
    for (i, &(_, chats, _)) in results.iter().enumerate() {
        assert!(chats <= cap, "spectator {i} heard {chats} chats, cap {cap}");
    }
    let sent: usize = results.iter().map(|r| r.0).sum();
    let limited: usize = results.iter().map(|r| r.2).sum();
    eprintln!("{sent} chats sent, {limited} refused; the player heard {player_chats} (cap {cap})");
    assert!(
        limited > sent / 2,
        "the rest was refused: {limited} of {sent}"
    );

    // The player was never closed and keeps its seat: it still places.
    let (cell, d) = to_fill(&puzzle, &solve(&puzzle))[0];
    a.send(json!({"type": "place", "cell": cell, "digit": d}))
        .await;
    assert_eq!(a.until("placement").await["accepted"], true);
    let (_, metrics) = srv.http_get("/metrics").await.expect("metrics");
    assert!(
        metrics.contains("sudoku_race_slow_consumer_closes_total 0"),
        "{metrics}"
    );
}

#[tokio::test]
async fn nobody_passes_for_a_player_and_unsafe_names_and_chat_are_refused() {
    let srv = TestServer::start().await;
    let mut host = srv.client().await;
    let (room, _) = create(&mut host, "host", json!({})).await;
    let mut s = srv.client().await;
    // The player's name, a case variant, a Cyrillic `о`: taken, to spectators and players.
    for name in ["host", "HOST", "h\u{043e}st", " Host"] {
        for ty in ["spectate", "join_room"] {
            s.send(json!({"type": ty, "room": room, "name": name}))
                .await;
            s.expect_error("name_taken").await;
        }
    }
    // Bidi controls, an isolate, zero-width space, soft hyphen, BOM: not names at all.
    for name in [
        "\u{202E}tsoh",
        "a\u{2066}b",
        "ho\u{200B}st",
        "ho\u{00AD}st",
        "\u{FEFF}x",
    ] {
        for ty in ["spectate", "join_room"] {
            s.send(json!({"type": ty, "room": room, "name": name}))
                .await;
            s.expect_error("invalid_name").await;
        }
    }
    // Spectators share the default name; chat with ESC or bidi controls is refused.
    s.send(json!({"type": "spectate", "room": room})).await;
    s.expect("room_joined").await;
    let mut s2 = srv.client().await;
    s2.send(json!({"type": "spectate", "room": room})).await;
    s2.expect("room_joined").await;
    for text in ["\u{1b}[2Jgone", "a\u{202E}b", "x\u{2067}y", "bell\u{7}"] {
        s.send(json!({"type": "chat", "text": text})).await;
        s.expect_error("bad_message").await;
    }
    s.send(json!({"type": "chat", "text": "fine"})).await;
    let m = host.expect("chat").await;
    assert_eq!(
        (m["player_id"].clone(), m["name"].clone(), m["text"].clone()),
        (Value::Null, json!("spectator"), json!("fine"))
    );
}

#[tokio::test]
async fn a_puppet_seat_that_forfeits_gets_no_solution_before_race_over() {
    let srv = TestServer::start().await;
    let (mut a, mut b, _) = ann_and_bob(&srv, json!({"difficulty": "easy"})).await;
    let puzzle = start(&mut a, &mut [&mut b]).await;
    let solution = solve(&puzzle);
    b.send(json!({"type": "forfeit"})).await;
    let mut seen = vec![b.until("player_finished").await];
    seen.extend(b.sync().await);
    assert!(
        !seen
            .iter()
            .any(|m| m["type"] == "solution" || m.to_string().contains(&solution)),
        "{seen:?}"
    );
    // The other seat is still racing and has not seen it either; race_over brings it to both.
    let (cell, d) = to_fill(&puzzle, &solution)[0];
    a.send(json!({"type": "place", "cell": cell, "digit": d}))
        .await;
    let before = a.collect_until("placement").await;
    assert!(!before.iter().any(|m| m.to_string().contains(&solution)));
    a.send(json!({"type": "forfeit"})).await;
    for c in [&mut a, &mut b] {
        let rest = c.collect_until("race_over").await;
        assert!(!rest.iter().any(|m| m["type"] == "solution"));
        assert_eq!(
            rest.last().expect("race_over")["solution"],
            solution.as_str()
        );
    }
}

#[tokio::test]
async fn a_queue_that_does_not_drain_is_closed_1008_whatever_its_size() {
    // Bytes out of the way: only the drain rule can close it.
    let srv = TestServer::start_with(|c| {
        c.limits.slow_queue_bytes = usize::MAX / 2;
        c.limits.slow_drain = Duration::from_millis(500);
        c.limits.chat_rate = 100_000;
        c.limits.chat_burst = 100_000;
    })
    .await;
    let (mut a, mut slow, _) = host_and_slow_reader(&srv).await;
    let (_, u) = chat_until_a_drop(&mut a)
        .await
        .expect("the stalled client was closed");
    assert_eq!(u["player"]["name"], "slow");
    assert_eq!(u["player"]["connected"], false);
    assert_eq!(slow.closed().await, Closed::Code(1008));
}
