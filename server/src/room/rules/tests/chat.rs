//! Chat (A4): checked by A3 and budgeted per room.

use super::*;

#[test]
fn chat_is_checked_and_budgeted_per_room() {
    let t0 = Instant::now();
    let mut r = room(settings());
    assert!(join(&mut r, 1, Some("ann"), Role::Player, t0));
    assert!(join(&mut r, 2, None, Role::Spectator, t0));
    assert!(join(&mut r, 3, None, Role::Spectator, t0));
    r.take_effects();
    for bad in ["", "\u{1b}[2J", "a\u{202E}b", "x\u{2066}", &"é".repeat(201)] {
        r.chat(ConnId(2), bad.into(), t0);
        check_error(&r.take_effects(), 2, ErrorCode::BadMessage);
    }
    // Bursts of 10 over all senders, then 5 per second; the refused sender alone hears of it.
    let mut passed = 0;
    for i in 0..30u64 {
        let c = 1 + i % 3;
        r.chat(ConnId(c), format!("m{i}"), t0);
        let fx = r.take_effects();
        match &to(&fx, c)[..] {
            [ServerMsg::Chat { .. }] => passed += 1,
            [ServerMsg::Error {
                code: ErrorCode::RateLimited,
                ..
            }] => assert!(to(&fx, 1 + (c % 3)).is_empty(), "nothing is broadcast"),
            m => panic!("{m:?}"),
        }
    }
    assert_eq!(passed, 10);
    let t1 = t0 + Duration::from_secs(1);
    let passed = (0..30)
        .filter(|_| {
            r.chat(ConnId(2), "again".into(), t1);
            matches!(&to(&r.take_effects(), 1)[..], [ServerMsg::Chat { .. }])
        })
        .count();
    assert_eq!(passed, 5);
}
