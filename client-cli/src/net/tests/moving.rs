//! A12 over a real socket: a seat whose room moves to another server while its connection is
//! down comes back (resumes again after `room_moving`, and after `unknown_room` or
//! `invalid_token` within the moving window), and gives up with the reason when the room is gone.

use super::*;

/// An `error` `code` from the server, with `retry_ms`.
fn error(code: ErrorCode, retry_ms: Option<u64>) -> ServerMsg {
    ServerMsg::Error {
        code,
        message: format!("server says {}", code.as_str()),
        retry_ms,
    }
}

/// A session seated in ABCD with token `tok1`, whose socket the server then dropped; the
/// client's next connection, and what the caller heard up to the drop.
async fn seated_then_dropped(
    to: Endpoint,
    listener: &tokio::net::TcpListener,
) -> (Session, mpsc::UnboundedReceiver<NetEvent>) {
    let (session, mut events) = connect(
        to,
        Intent::Join {
            room: "ABCD".into(),
            name: "ann".into(),
        },
    );
    let mut ws = accept(listener).await;
    recv_client(&mut ws).await;
    let seated = joined(Role::Player, Some("tok1"));
    send_server(&mut ws, &seated).await;
    until_message(&mut events, &seated).await;
    drop(ws);
    (session, events)
}

/// The events until `Moving`, which must come before anything else but reconnecting.
async fn until_moving(events: &mut mpsc::UnboundedReceiver<NetEvent>) -> (u32, Duration) {
    loop {
        match next_event(events).await {
            NetEvent::Moving { attempt, delay } => return (attempt, delay),
            NetEvent::Reconnecting { .. } | NetEvent::Connected { reconnect: true } => {}
            NetEvent::Message(m) if matches!(*m, ServerMsg::Welcome { .. }) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_resume_answered_room_moving_goes_again_and_what_waited_goes_once_the_seat_is_back_less_placements(
) {
    let (url, listener) = fake_server().await;
    let (session, mut events) = seated_then_dropped(Endpoint::from(&url), &listener).await;
    let mut ws = accept(&listener).await;
    let resume = ClientMsg::Resume {
        token: "tok1".into(),
        variants: crate::net::drawn(),
    };
    assert_eq!(recv_client(&mut ws).await, resume);
    let place = ClientMsg::Place {
        cell: 2,
        digit: 4,
        id: Some(protocol::MsgId::Number(7.into())),
    };
    let chat = ClientMsg::Chat {
        text: "still here".into(),
    };
    assert!(session.send(place));
    assert!(session.send(chat.clone()));
    // The room's new server is still taking it over: the resume goes again after retry_ms.
    send_server(&mut ws, &error(ErrorCode::RoomMoving, Some(300))).await;
    let (attempt, delay) = until_moving(&mut events).await;
    assert_eq!(attempt, 1);
    assert!(
        (300..=375).contains(&delay.as_millis()),
        "retry_ms 300 plus jitter: {delay:?}"
    );
    assert_eq!(
        recv_client(&mut ws).await,
        resume,
        "the resume again, and the chat still waits"
    );
    // Right after the loss a node may not know the room yet: not gone within the window.
    send_server(&mut ws, &error(ErrorCode::InvalidToken, None)).await;
    assert_eq!(until_moving(&mut events).await.0, 2);
    assert_eq!(recv_client(&mut ws).await, resume);
    // Back: the room as it stands (its new server sends no token), then what waited, less the
    // placement: the caller holds its placements and sends them again against that board.
    let back = joined(Role::Player, None);
    send_server(&mut ws, &back).await;
    assert_eq!(
        next_event(&mut events).await,
        NetEvent::Message(Box::new(back))
    );
    assert_eq!(recv_client(&mut ws).await, chat);
    // On a live seat `room_moving` is the caller's to read (a placement not taken).
    let moving = error(ErrorCode::RoomMoving, Some(250));
    send_server(&mut ws, &moving).await;
    assert_eq!(
        next_event(&mut events).await,
        NetEvent::Message(Box::new(moving))
    );
    // The token kept from before still takes the seat back after the next drop.
    drop(ws);
    let mut ws = accept(&listener).await;
    assert_eq!(recv_client(&mut ws).await, resume);
}

#[tokio::test]
async fn a_room_still_unknown_after_the_moving_window_has_closed() {
    let (url, listener) = fake_server().await;
    let mut to = Endpoint::from(&url);
    to.moving_window = Duration::from_millis(600);
    let (_session, mut events) = seated_then_dropped(to, &listener).await;
    let mut ws = accept(&listener).await;
    let mut tries = 0;
    let why = loop {
        assert!(matches!(
            recv_client(&mut ws).await,
            ClientMsg::Resume { .. }
        ));
        tries += 1;
        send_server(&mut ws, &error(ErrorCode::UnknownRoom, None)).await;
        let ended = loop {
            match next_event(&mut events).await {
                NetEvent::Moving { .. } => break None,
                NetEvent::Closed { error } => break Some(error),
                _ => {}
            }
        };
        if let Some(error) = ended {
            break error.expect("a reason");
        }
    };
    assert!(tries > 1, "asked again within the window: {tries}");
    assert!(
        why.starts_with("the room has closed: its server was lost and no other server took it over (unknown_room"),
        "{why}"
    );
}

#[tokio::test]
async fn a_room_that_keeps_moving_past_the_give_up_time_has_closed() {
    let (url, listener) = fake_server().await;
    let mut to = Endpoint::from(&url);
    to.give_up_after = Duration::from_millis(700);
    let (_session, mut events) = seated_then_dropped(to, &listener).await;
    let mut ws = accept(&listener).await;
    let why = loop {
        recv_client(&mut ws).await;
        send_server(&mut ws, &error(ErrorCode::RoomMoving, Some(100))).await;
        let ended = loop {
            match next_event(&mut events).await {
                NetEvent::Moving { .. } => break None,
                NetEvent::Closed { error } => break Some(error),
                _ => {}
            }
        };
        if let Some(error) = ended {
            break error.expect("a reason");
        }
    };
    assert!(
        why.starts_with("the room has closed: it did not come back on another server within 0.7 s"),
        "{why}"
    );
}
