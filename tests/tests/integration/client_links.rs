//! The terminal client's plumbing against a standalone server (issue 10): a host creates its room
//! on a server it does not run, a friend joins by the invite link the lobby shows, a bot joins by
//! the same link, and a session whose server goes away gives up and says why.

use std::time::Duration;

use client::bot::{self, BotConfig, BotRole};
use client::net::{self, Endpoint, Intent, NetEvent, RoomTarget, ServerUrl};
use protocol::{Role, ServerMsg};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::support::TestServer;

/// Upper bound on any single wait.
const WAIT: Duration = Duration::from_secs(20);

/// The next server message, skipping connection events; panics (fails) on a close or a hang.
async fn next_msg(events: &mut UnboundedReceiver<NetEvent>) -> ServerMsg {
    loop {
        match tokio::time::timeout(WAIT, events.recv()).await {
            Ok(Some(NetEvent::Message(m))) => return *m,
            Ok(Some(NetEvent::Closed { error })) => panic!("closed: {error:?}"),
            Ok(Some(_)) => {}
            Ok(None) => panic!("the session ended"),
            Err(_) => panic!("no message within {WAIT:?}"),
        }
    }
}

async fn until(
    events: &mut UnboundedReceiver<NetEvent>,
    f: impl Fn(&ServerMsg) -> bool,
) -> ServerMsg {
    loop {
        let m = next_msg(events).await;
        if f(&m) {
            return m;
        }
    }
}

#[tokio::test]
async fn a_room_on_a_standalone_server_is_joined_by_its_invite_link() {
    let srv = TestServer::start().await;
    let server: ServerUrl = srv.url().parse().expect("url");
    let (_host, mut host_events) = net::connect(
        &server,
        Intent::Create {
            name: "ann".into(),
            settings: None,
        },
    );
    let ServerMsg::RoomJoined { room, you, .. } = until(&mut host_events, |m| {
        matches!(m, ServerMsg::RoomJoined { .. })
    })
    .await
    else {
        unreachable!("until returned a room_joined")
    };
    assert_eq!(you.role, Role::Player);

    // The lobby's line, and what `join` makes of it.
    let link = server.invite(&room);
    assert_eq!(link, format!("ws://{}/r/{room}", srv.addr));
    let RoomTarget::Link { server: to, code } = link.parse().expect("a link") else {
        panic!("{link} is not a link")
    };
    assert_eq!((to.as_str(), &code), (srv.url().as_str(), &room));

    // Dialled as given (the server upgrades /r/CODE like /ws) and as the server it names.
    for (dial, name) in [(link.clone(), "bea"), (to.to_string(), "cy")] {
        let dial: ServerUrl = dial.parse().expect("url");
        let (_friend, mut friend_events) = net::connect(
            dial,
            Intent::Join {
                room: code.to_string(),
                name: name.into(),
            },
        );
        until(&mut friend_events, |m| {
            matches!(m, ServerMsg::RoomJoined { .. })
        })
        .await;
        let joined = until(&mut host_events, |m| {
            matches!(m, ServerMsg::PlayerJoined { .. })
        })
        .await;
        let ServerMsg::PlayerJoined { player } = joined else {
            unreachable!("until returned a player_joined")
        };
        assert_eq!(player.name, name);
    }

    // A bot by the same link: it joins, and leaves when told to stop.
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let bot = tokio::spawn(bot::run(
        Endpoint::from(to),
        BotConfig {
            name: "bot-1".into(),
            ..BotConfig::default()
        },
        BotRole::Join {
            room: code.to_string(),
        },
        async move {
            let _ = stopped.await;
        },
    ));
    let joined = until(&mut host_events, |m| {
        matches!(m, ServerMsg::PlayerJoined { .. })
    })
    .await;
    assert!(matches!(joined, ServerMsg::PlayerJoined { player } if player.name == "bot-1"));
    let _ = stop.send(());
    tokio::time::timeout(WAIT, bot)
        .await
        .expect("the bot stops")
        .expect("bot task")
        .expect("the bot's run ends well");
}

#[tokio::test]
async fn a_player_whose_server_goes_away_gives_up_and_says_why() {
    let mut srv = TestServer::start().await;
    let server: ServerUrl = srv.url().parse().expect("url");
    let mut to = Endpoint::from(&server);
    to.give_up_after = Duration::from_millis(1000);
    let (_host, mut events) = net::connect(
        to,
        Intent::Create {
            name: "ann".into(),
            settings: None,
        },
    );
    until(&mut events, |m| matches!(m, ServerMsg::RoomJoined { .. })).await;
    srv.shutdown().await.expect("the server stops");
    let why = loop {
        match tokio::time::timeout(WAIT, events.recv()).await {
            Ok(Some(NetEvent::Closed { error })) => break error.expect("a reason"),
            // A9: the server's shutdown says `room_closed` `shutdown`; the session then waits
            // for the caller's next ask, for a new connection (the screens offer one).
            Ok(Some(NetEvent::Message(m))) if net::restarting(&m) => {
                break "the server is restarting".to_owned();
            }
            Ok(Some(_)) => {}
            Ok(None) => panic!("the session ended without a word"),
            Err(_) => panic!("still trying after {WAIT:?}"),
        }
    };
    // The server's shutdown says `room_closed` (A5, A9), or the socket just drops and
    // reconnecting gives up: either way the session says why, never a silent loop.
    assert!(
        why == "the server is restarting"
            || why.contains(&format!("the server at {server} did not answer for 1 s")),
        "{why}"
    );
}
