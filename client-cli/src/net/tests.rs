//! The connection task against a scripted server, and the seat's memory of how to come back.

use super::rejoin::Seat;
use super::*;
use futures::StreamExt;
use protocol::{Phase, Role, Settings, You};

fn joined(role: Role, token: Option<&str>) -> ServerMsg {
    ServerMsg::RoomJoined {
        room: "ABCD".try_into().unwrap(),
        you: You {
            player_id: token.map(|_| "p1".into()),
            token: token.map(Into::into),
            role,
        },
        host: Some("p1".into()),
        settings: Settings::default(),
        phase: Phase::Lobby,
        players: vec![],
        race: None,
    }
}

/// A scripted server: each accepted connection gets `welcome`, then `script` decides.
pub(crate) async fn fake_server() -> (ServerUrl, tokio::net::TcpListener) {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = ServerUrl::local(l.local_addr().expect("addr"));
    (url, l)
}

pub(crate) async fn accept(l: &tokio::net::TcpListener) -> WebSocketStream<TcpStream> {
    let (tcp, _) = l.accept().await.expect("accept");
    let mut ws = tokio_tungstenite::accept_async(tcp).await.expect("upgrade");
    let welcome = ServerMsg::Welcome {
        protocol: 1,
        server: "fake/0".into(),
    };
    ws.send(Message::text(
        serde_json::to_string(&welcome).expect("json"),
    ))
    .await
    .expect("send");
    ws
}

pub(crate) async fn recv_client(ws: &mut WebSocketStream<TcpStream>) -> ClientMsg {
    loop {
        let f = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("client message in time")
            .expect("open")
            .expect("frame");
        if let Message::Text(t) = f {
            return serde_json::from_str(t.as_str()).expect("client json");
        }
    }
}

async fn next_event(rx: &mut mpsc::UnboundedReceiver<NetEvent>) -> NetEvent {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("event in time")
        .expect("event")
}

#[tokio::test]
async fn a_dropped_player_reconnects_resumes_and_flushes_what_was_queued() {
    let (url, listener) = fake_server().await;
    let (session, mut events) = connect(
        url,
        Intent::Create {
            name: "ann".into(),
            settings: None,
        },
    );
    let mut ws = accept(&listener).await;
    assert_eq!(
        recv_client(&mut ws).await,
        ClientMsg::CreateRoom {
            name: "ann".into(),
            settings: None,
            bot: false,
            key: None,
            variants: crate::net::drawn(),
        }
    );
    let joined = joined(Role::Player, Some("tok1"));
    ws.send(Message::text(serde_json::to_string(&joined).expect("json")))
        .await
        .expect("send");
    assert_eq!(
        next_event(&mut events).await,
        NetEvent::Connected { reconnect: false }
    );
    assert!(
        matches!(next_event(&mut events).await, NetEvent::Message(m) if matches!(*m, ServerMsg::Welcome { .. }))
    );
    assert_eq!(
        next_event(&mut events).await,
        NetEvent::Message(Box::new(joined.clone()))
    );
    // The server drops the connection without a close frame.
    drop(ws);
    assert!(matches!(
        next_event(&mut events).await,
        NetEvent::Reconnecting { attempt: 1, .. }
    ));
    // A placement the caller sends meanwhile is not queued: the caller holds its placements
    // and sends them again once the room answers (A12).
    assert!(session.send(ClientMsg::Place {
        cell: 2,
        digit: 4,
        id: Some(protocol::MsgId::Number(7.into())),
    }));
    assert!(session.send(ClientMsg::Chat {
        text: "back soon".into()
    }));
    let mut ws = accept(&listener).await;
    assert_eq!(
        recv_client(&mut ws).await,
        ClientMsg::Resume {
            token: "tok1".into(),
            variants: crate::net::drawn(),
        }
    );
    // What waited goes once the seat is back.
    send_server(&mut ws, &joined).await;
    assert_eq!(
        recv_client(&mut ws).await,
        ClientMsg::Chat {
            text: "back soon".into()
        }
    );
    assert_eq!(
        next_event(&mut events).await,
        NetEvent::Connected { reconnect: true }
    );
    // A deliberate leave ends the session without reconnecting.
    session.send(ClientMsg::Leave);
    assert_eq!(recv_client(&mut ws).await, ClientMsg::Leave);
    drop(ws);
    loop {
        match next_event(&mut events).await {
            NetEvent::Closed { error } => {
                assert_eq!(error, None);
                break;
            }
            NetEvent::Message(_) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_first_connection_that_fails_is_reported_at_once() {
    let (url, listener) = fake_server().await;
    drop(listener);
    let (_session, mut events) = connect(url, Intent::Nothing);
    assert!(matches!(
        next_event(&mut events).await,
        NetEvent::Closed { error: Some(e) } if e.contains("cannot connect") && e.contains("nothing is listening")
    ));
}

#[track_caller]
fn check(seat: &Seat, expected: Option<ClientMsg>) {
    assert_eq!(seat.rejoin_message(), expected);
}

#[test]
fn seat_remembers_how_to_come_back() {
    let mut seat = Seat::default();
    check(&seat, None);
    seat.observe(&joined(Role::Player, Some("tok")));
    check(
        &seat,
        Some(ClientMsg::Resume {
            token: "tok".into(),
            variants: crate::net::drawn(),
        }),
    );
    let mut seat = Seat {
        spectating: Some(("XXXX".into(), "eve".into())),
        ..Seat::default()
    };
    seat.observe(&joined(Role::Spectator, None));
    check(
        &seat,
        Some(ClientMsg::Spectate {
            room: "ABCD".into(),
            name: Some("eve".into()),
            key: None,
            boards: false,
            variants: crate::net::drawn(),
        }),
    );
    seat.observe(&ServerMsg::RoomClosed {
        room: "ABCD".try_into().unwrap(),
        reason: None,
    });
    check(&seat, None);
}

/// A room taken over by another server (A9) shows the seat the room again without its
/// token: the seat still comes back with the one it had.
#[test]
fn a_room_view_without_a_token_keeps_the_seats_token() {
    let mut seat = Seat::default();
    seat.observe(&joined(Role::Player, Some("tok")));
    let mut again = joined(Role::Player, None);
    if let ServerMsg::RoomJoined { you, .. } = &mut again {
        you.player_id = Some("p1".into());
    }
    seat.observe(&again);
    check(
        &seat,
        Some(ClientMsg::Resume {
            token: "tok".into(),
            variants: crate::net::drawn(),
        }),
    );
}

/// A player whose server is gone for good: reconnecting gives up after `give_up_after` and
/// says why, instead of looping.
#[tokio::test]
async fn reconnecting_gives_up_and_says_why() {
    let (url, listener) = fake_server().await;
    let mut to = Endpoint::from(&url);
    to.give_up_after = Duration::from_millis(800);
    let (_session, mut events) = connect(
        to,
        Intent::Create {
            name: "ann".into(),
            settings: None,
        },
    );
    let mut ws = accept(&listener).await;
    recv_client(&mut ws).await;
    let msg = serde_json::to_string(&joined(Role::Player, Some("tok"))).expect("json");
    ws.send(Message::text(msg)).await.expect("send");
    drop(ws);
    drop(listener);
    let mut attempts = 0;
    let why = loop {
        match next_event(&mut events).await {
            NetEvent::Reconnecting { .. } => attempts += 1,
            NetEvent::Closed { error } => break error,
            _ => {}
        }
    };
    let why = why.expect("a reason");
    assert!(attempts >= 1, "{attempts}");
    assert!(
        why.starts_with(&format!(
            "connection lost: the server at {url} did not answer for 0.8 s"
        )),
        "{why}"
    );
}

/// `room_closed` (then 1001) is final: the session ends with the reason and does not reconnect.
#[tokio::test]
async fn room_closed_ends_the_session_without_reconnecting() {
    let (url, listener) = fake_server().await;
    let (_session, mut events) = connect(
        url,
        Intent::Join {
            room: "ABCD".into(),
            name: "bea".into(),
        },
    );
    let mut ws = accept(&listener).await;
    recv_client(&mut ws).await;
    for msg in [
        joined(Role::Player, Some("tok")),
        ServerMsg::RoomClosed {
            room: "ABCD".try_into().unwrap(),
            reason: None,
        },
    ] {
        let text = serde_json::to_string(&msg).expect("json");
        ws.send(Message::text(text)).await.expect("send");
    }
    let _ = ws
        .close(Some(tokio_tungstenite::tungstenite::protocol::CloseFrame {
            code: 1001.into(),
            reason: "".into(),
        }))
        .await;
    let mut saw_closed_room = false;
    let why = loop {
        match next_event(&mut events).await {
            NetEvent::Message(m) if matches!(*m, ServerMsg::RoomClosed { .. }) => {
                saw_closed_room = true
            }
            NetEvent::Reconnecting { .. } => panic!("reconnected after room_closed"),
            NetEvent::Closed { error } => break error,
            _ => {}
        }
    };
    assert!(saw_closed_room);
    assert_eq!(
        why.as_deref(),
        Some("room ABCD was closed: the host closed the room")
    );
}

async fn send_server(ws: &mut WebSocketStream<TcpStream>, msg: &ServerMsg) {
    let text = serde_json::to_string(msg).expect("json");
    ws.send(Message::text(text)).await.expect("send");
}

/// Events until the message `msg` has arrived.
async fn until_message(rx: &mut mpsc::UnboundedReceiver<NetEvent>, msg: &ServerMsg) {
    loop {
        if let NetEvent::Message(m) = next_event(rx).await {
            if *m == *msg {
                return;
            }
        }
    }
}

/// A7: `quick` asks the pool with the session's key; dropped while queued it queues again (no
/// seat to resume), and once seated it resumes like any player.
#[tokio::test]
async fn a_quick_session_queues_with_its_key_and_queues_again_until_seated() {
    let (url, listener) = fake_server().await;
    let who = Identity {
        key: Some(protocol::IdentityKey::from("k-ann".to_owned())),
        bot: false,
    };
    let intent = Intent::Quick {
        variant: engine::Variant::Classic,
        difficulty: engine::Difficulty::Hard,
        name: "ann".into(),
    };
    let (_session, mut events) = connect_as(url, intent, who);
    let quick = ClientMsg::QuickRace {
        difficulty: "hard".into(),
        name: "ann".into(),
        key: Some(protocol::IdentityKey::from("k-ann".to_owned())),
        bot: false,
        variant: None,
        variants: crate::net::drawn(),
    };
    let mut ws = accept(&listener).await;
    assert_eq!(recv_client(&mut ws).await, quick);
    let queued = ServerMsg::Queued {
        difficulty: engine::Difficulty::Hard,
        waiting: 1,
    };
    send_server(&mut ws, &queued).await;
    until_message(&mut events, &queued).await;
    drop(ws);
    let mut ws = accept(&listener).await;
    assert_eq!(recv_client(&mut ws).await, quick, "queued again");
    let seated = joined(Role::Player, Some("tok-pool"));
    send_server(&mut ws, &seated).await;
    until_message(&mut events, &seated).await;
    drop(ws);
    let mut ws = accept(&listener).await;
    assert_eq!(
        recv_client(&mut ws).await,
        ClientMsg::Resume {
            token: "tok-pool".into(),
            variants: crate::net::drawn(),
        }
    );
}

#[test]
fn a_queued_seat_forgets_the_room_it_requeued_from_and_leaving_the_queue_ends_it() {
    let mut seat = Seat {
        pool_name: Some("bob".into()),
        ..Seat::default()
    };
    seat.observe(&joined(Role::Player, Some("tok")));
    seat.observe(&ServerMsg::Queued {
        difficulty: engine::Difficulty::Easy,
        waiting: 3,
    });
    check(
        &seat,
        Some(ClientMsg::QuickRace {
            difficulty: "easy".into(),
            name: "bob".into(),
            key: None,
            bot: false,
            variant: None,
            variants: crate::net::drawn(),
        }),
    );
    seat.sent(&ClientMsg::LeaveQueue);
    check(&seat, None);
    assert!(!seat.can_come_back());
}

/// A7: an arena session joins with its key; dropped between the arena's races it joins the
/// arena again (its pool is the arena's, never the open one), in a race it resumes its seat.
#[tokio::test]
async fn an_arena_session_joins_with_its_key_and_joins_again_between_races() {
    let (url, listener) = fake_server().await;
    let key = protocol::IdentityKey::from("k-ann".to_owned());
    let who = Identity {
        key: Some(key.clone()),
        bot: false,
    };
    let intent = Intent::Arena {
        arena_id: "blitz-1".into(),
        name: "ann".into(),
    };
    let (_session, mut events) = connect_as(url, intent, who);
    let join = ClientMsg::JoinArena {
        arena_id: "blitz-1".into(),
        name: "ann".into(),
        key: Some(key),
        variant: None,
        variants: crate::net::drawn(),
    };
    assert!(carries_key(&join), "a key is never logged");
    let mut ws = accept(&listener).await;
    assert_eq!(recv_client(&mut ws).await, join);
    let queued = ServerMsg::Queued {
        difficulty: engine::Difficulty::Easy,
        waiting: 1,
    };
    send_server(&mut ws, &queued).await;
    until_message(&mut events, &queued).await;
    drop(ws);
    let mut ws = accept(&listener).await;
    assert_eq!(recv_client(&mut ws).await, join, "joined again");
    let seated = joined(Role::Player, Some("tok-arena"));
    send_server(&mut ws, &seated).await;
    until_message(&mut events, &seated).await;
    drop(ws);
    let mut ws = accept(&listener).await;
    assert_eq!(
        recv_client(&mut ws).await,
        ClientMsg::Resume {
            token: "tok-arena".into(),
            variants: crate::net::drawn(),
        }
    );
}

#[test]
fn leaving_the_arena_forgets_it_and_a_ghost_race_carries_the_key() {
    let mut seat = Seat::default();
    seat.sent(&ClientMsg::JoinArena {
        arena_id: "blitz-1".into(),
        name: "bob".into(),
        key: None,
        variant: None,
        variants: crate::net::drawn(),
    });
    assert!(seat.can_come_back());
    seat.sent(&ClientMsg::LeaveArena);
    check(&seat, None);
    seat.sent(&ClientMsg::JoinArena {
        arena_id: "blitz-1".into(),
        name: "bob".into(),
        key: None,
        variant: None,
        variants: crate::net::drawn(),
    });
    seat.observe(&ServerMsg::LeftArena {
        arena_id: "blitz-1".into(),
    });
    assert!(!seat.can_come_back());

    let who = Identity {
        key: Some(protocol::IdentityKey::from("k".to_owned())),
        bot: false,
    };
    let mut msg = super::intent::race_ghost(
        "best",
        Some(engine::Difficulty::Hard),
        engine::Variant::Classic,
        "bob",
    );
    who.stamp(&mut msg);
    assert_eq!(
        msg,
        ClientMsg::RaceGhost {
            ghost: "best".into(),
            difficulty: Some("hard".into()),
            name: "bob".into(),
            key: Some(protocol::IdentityKey::from("k".to_owned())),
            variant: None,
            variants: crate::net::drawn(),
        }
    );
    assert!(carries_key(&msg));
}

#[tokio::test]
async fn a_restarting_server_ends_the_socket_and_the_next_ask_goes_out_on_a_new_one() {
    let (url, listener) = fake_server().await;
    let (session, mut events) = connect(
        url,
        Intent::Quick {
            variant: engine::Variant::Classic,
            difficulty: engine::Difficulty::Easy,
            name: "ann".into(),
        },
    );
    let mut ws = accept(&listener).await;
    assert!(matches!(
        recv_client(&mut ws).await,
        ClientMsg::QuickRace { .. }
    ));
    let draining = ServerMsg::Error {
        code: ErrorCode::ServerDraining,
        message: "the server is restarting for an update".into(),
        retry_ms: None,
    };
    ws.send(Message::text(
        serde_json::to_string(&draining).expect("json"),
    ))
    .await
    .expect("send");
    // The client closes this socket: what it asks next is for a server that stays.
    loop {
        let f = tokio::time::timeout(Duration::from_secs(5), ws.next())
            .await
            .expect("the client's close in time");
        match f {
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
            Some(Ok(_)) => {}
        }
    }
    loop {
        match next_event(&mut events).await {
            NetEvent::Message(m) if restarting(&m) => break,
            NetEvent::Message(_) | NetEvent::Connected { .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    // Nothing goes out for what has no room to go to; the next ask opens a new connection.
    assert!(session.send(ClientMsg::SetReady { ready: true }));
    assert!(session.send(ClientMsg::CreateRoom {
        name: "ann".into(),
        settings: None,
        key: None,
        bot: false,
        variants: crate::net::drawn(),
    }));
    let mut again = accept(&listener).await;
    assert!(
        matches!(recv_client(&mut again).await, ClientMsg::CreateRoom { .. }),
        "the ask, and no resume or quick_race of the old session"
    );
}

mod moving;
