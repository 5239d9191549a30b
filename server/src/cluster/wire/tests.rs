use super::*;
use crate::room::handle::RoomMsg;
use engine::{Cell, Digit};
use protocol::MsgId;

#[test]
fn frames_round_trip_and_junk_is_refused() {
    let up = Up {
        from: "n1".into(),
        conn: 7,
        seq: None,
        cmd: Command::Msg {
            msg: RoomMsg::Place {
                cell: Cell::new(80).unwrap(),
                digit: Digit::new(9).unwrap(),
                id: None,
            },
        },
    };
    let f = encode_up(&up, 123);
    assert_eq!(sent_at(&f), Some(123));
    assert_eq!(decode_up(&f).ok(), Some(up.clone()));
    let f = encode_deliver(&[1, 2, u64::MAX], b"{\"type\":\"pong\"}", -5);
    assert_eq!(sent_at(&f), Some(-5));
    let Ok(Down::Deliver { conns, bytes, seq }) = decode_down(Bytes::from(f)) else {
        panic!("a delivery did not decode");
    };
    assert_eq!(conns.iter().collect::<Vec<_>>(), vec![1, 2, u64::MAX]);
    assert_eq!(bytes, Utf8Bytes::from("{\"type\":\"pong\"}"));
    assert_eq!(seq, 0);
    // A numbered delivery carries its number; cut anywhere before its text, it is refused.
    let f = encode_numbered(&[4, 5], b"{}", 77, 1);
    let Ok(Down::Deliver { conns, bytes, seq }) = decode_down(Bytes::from(f.clone())) else {
        panic!("a numbered delivery did not decode");
    };
    assert_eq!(
        (conns.iter().collect::<Vec<_>>(), bytes.as_str(), seq),
        (vec![4, 5], "{}", 77)
    );
    for cut in 0..f.len() - 2 {
        assert!(
            decode_down(Bytes::from(f[..cut].to_vec())).is_err(),
            "cut at {cut}"
        );
    }
    let up = Up {
        from: "n1".into(),
        conn: 7,
        seq: None,
        cmd: Command::Msg {
            msg: RoomMsg::Resync,
        },
    };
    assert_eq!(decode_up(&encode_up(&up, 1)).ok(), Some(up.clone()));
    for id in [
        None,
        Some(MsgId::Number(7u64.into())),
        Some(MsgId::Number((-3i64).into())),
        Some(MsgId::String("x\"y".into())),
        Some(MsgId::from_json("1e400").unwrap()),
        Some(MsgId::from_json("999999999999999999999999999999").unwrap()),
        Some(MsgId::from_json("1.50").unwrap()),
    ] {
        let place = Place {
            from: "a1b2c3d4",
            conn: 9,
            cell: 80,
            digit: 9,
            id,
        };
        let f = encode_place(&place, 5);
        assert!(is_place(&f) && !is_place(&encode_up(&up, 0)));
        assert_eq!(sent_at(&f), Some(5));
        assert_eq!(decode_place(&f).ok(), Some(place));
        for cut in 0..f.len() {
            assert!(decode_place(&f[..cut]).is_err(), "cut at {cut}");
        }
    }
    let ctl = Ctl::Reply {
        conn: 3,
        seq: 4,
        outcome: Outcome::Player { id: "p1".into() },
    };
    assert_eq!(
        decode_down(Bytes::from(encode_ctl(&ctl, 0))).ok(),
        Some(Down::Ctl(ctl))
    );
    // A8: the owner's probe goes down, the member's round trip comes up.
    let probe = Ctl::Probe { conn: 3 };
    assert_eq!(
        decode_down(Bytes::from(encode_ctl(&probe, 0))).ok(),
        Some(Down::Ctl(probe))
    );
    let lag = Up {
        from: "n2".into(),
        conn: 3,
        seq: None,
        cmd: Command::Msg {
            msg: RoomMsg::Lag { ms: 312 },
        },
    };
    let Ok(Up {
        cmd: Command::Msg { msg },
        ..
    }) = decode_up(&encode_up(&lag, 0))
    else {
        panic!("a lag sample did not decode");
    };
    assert_eq!(msg, RoomMsg::Lag { ms: 312 });
    for junk in [
        &b""[..],
        b"U",
        b"X12345678",
        b"D12345678\xff\xff",
        b"U12345678{",
    ] {
        assert!(decode_up(junk).is_err());
        assert!(decode_place(junk).is_err());
        assert!(decode_down(Bytes::copy_from_slice(junk)).is_err());
    }
    let frames = vec![
        encode_ctl(&Ctl::Detach { conn: 1 }, 7),
        encode_deliver(&[2], b"{}", 8),
    ];
    let as_bytes = |fs: &[Vec<u8>]| fs.iter().cloned().map(Bytes::from).collect::<Vec<_>>();
    assert_eq!(
        split_bundle(Bytes::from(encode_bundle(&frames))),
        as_bytes(&frames)
    );
    assert_eq!(
        split_bundle(Bytes::from(frames[0].clone())),
        as_bytes(&frames[..1])
    );
    let mut cut = encode_bundle(&frames);
    cut.truncate(cut.len() - 1);
    assert_eq!(split_bundle(Bytes::from(cut)), as_bytes(&frames[..1]));
    // A cell or digit out of range does not decode (only a broken or hostile node sends one).
    for body in [
        r#"{"t":"msg","from":"n1","conn":7,"msg":{"m":"place","cell":81,"digit":1,"id":null}}"#,
        r#"{"t":"msg","from":"n1","conn":7,"msg":{"m":"place","cell":0,"digit":0,"id":null}}"#,
    ] {
        let mut f = head(UP, 0, body.len());
        f.extend_from_slice(body.as_bytes());
        assert!(decode_up(&f).is_err(), "{body}");
    }
}

/// A node of the version before the one `Command` type (a rolling deploy mixes them) sent
/// and read these bodies: a frame up keeps their JSON, field for field.
#[test]
fn up_frames_keep_the_relays_json() {
    let who = Identity {
        handle: Some("ann".into()),
        bot: false,
        banned: false,
        draws: Default::default(),
    };
    let up = |seq, cmd| Up {
        from: "n1".into(),
        conn: 7,
        seq,
        cmd,
    };
    let join = Command::Join {
        addr: [10, 0, 0, 1].into(),
        name: Some("ann".into()),
        role: protocol::Role::Player,
        who,
    };
    let token = Command::Resume {
        token: "tok".into(),
        draws: Default::default(),
    };
    let kick = Command::Msg {
        msg: RoomMsg::Kick {
            player_id: "p2".into(),
        },
    };
    let cases = [
        (
            up(Some(3), join),
            r#"{"t":"join","from":"n1","conn":7,"seq":3,"addr":"10.0.0.1","name":"ann","role":"player","who":{"handle":"ann","bot":false,"banned":false}}"#,
        ),
        (
            up(Some(4), token),
            r#"{"t":"resume","from":"n1","conn":7,"seq":4,"token":"tok"}"#,
        ),
        (
            up(Some(5), Command::Leave),
            r#"{"t":"leave","from":"n1","conn":7,"seq":5}"#,
        ),
        (
            up(Some(6), Command::Requeue),
            r#"{"t":"requeue","from":"n1","conn":7,"seq":6}"#,
        ),
        (
            up(None, Command::Dropped),
            r#"{"t":"dropped","from":"n1","conn":7}"#,
        ),
        (
            up(None, kick),
            r#"{"t":"msg","from":"n1","conn":7,"msg":{"m":"kick","player_id":"p2"}}"#,
        ),
    ];
    for (up, old) in cases {
        let f = encode_up(&up, 0);
        let ours: serde_json::Value = serde_json::from_slice(&f[HEAD..]).unwrap();
        let theirs: serde_json::Value = serde_json::from_str(old).unwrap();
        assert_eq!(ours, theirs);
        let mut f = head(UP, 0, old.len());
        f.extend_from_slice(old.as_bytes());
        assert_eq!(decode_up(&f).ok(), Some(up));
    }
}
