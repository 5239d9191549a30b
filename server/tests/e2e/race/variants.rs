//! Variant races (A10) over real sockets: a killer room deals every seat its own isomorph with
//! its cages beside it, judges each placement against the seat's own solution, and shows a
//! cage-sum clash as a clash; a client that does not say it draws a variant is kept out of its
//! rooms (`unsupported_variant`), and an unknown variant is an invalid setting.

use engine::solver::geometric::solutions_in;
use engine::validator::placement_conflicts_in;
use engine::{Cell, Digit, Geometry, Grid, Variant};
use protocol::variant::WireLayout;
use serde_json::{json, Value};

use crate::support::{Client, TestServer};

/// Every variant's name: what a client that draws them all sends.
fn all() -> Value {
    json!(["classic", "x", "windoku", "jigsaw", "killer"])
}

/// The seat's rules from its `race_started` (or a view): its variant and layout.
fn geometry_of(v: &Value) -> Geometry {
    let variant: Variant = v["variant"]
        .as_str()
        .unwrap_or("classic")
        .parse()
        .expect("a variant");
    let layout: WireLayout = serde_json::from_value(v.clone()).expect("a layout");
    layout
        .geometry(variant)
        .expect("its layout fits its variant")
}

async fn place(c: &mut Client, cell: usize, digit: u8) -> Value {
    c.send(json!({"type": "place", "cell": cell, "digit": digit}))
        .await;
    c.until("placement").await
}

/// A killer room of two, started: each one's `race_started`.
async fn killer_race(srv: &TestServer) -> (Client, Client, Value, Value) {
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let settings = json!({"difficulty": "easy", "variant": "killer", "isomorphs": true});
    a.send(
        json!({"type": "create_room", "name": "ann", "settings": settings, "variants": ["killer"]}),
    )
    .await;
    let joined = a.expect("room_joined").await;
    assert_eq!(joined["settings"]["variant"], "killer", "{joined}");
    let room = joined["room"].as_str().expect("code").to_owned();
    // A client that draws classic only is kept out, and told why.
    b.send(json!({"type": "join_room", "room": room, "name": "bob"}))
        .await;
    b.expect_error("unsupported_variant").await;
    b.send(json!({"type": "join_room", "room": room, "name": "bob", "variants": all()}))
        .await;
    b.expect("room_joined").await;
    a.until("player_joined").await;
    a.send(json!({"type": "start_race"})).await;
    let (sa, sb) = (a.until("race_started").await, b.until("race_started").await);
    (a, b, sa, sb)
}

#[tokio::test]
async fn a_killer_race_deals_each_seat_its_cages_and_shows_a_cage_sum_clash() {
    let srv = TestServer::start().await;
    let (mut a, _b, sa, sb) = killer_race(&srv).await;
    for s in [&sa, &sb] {
        assert_eq!(s["variant"], "killer", "{s}");
        assert!(s.get("regions").is_none(), "{s}");
        let g = geometry_of(s);
        assert_eq!(g.variant(), Variant::Killer);
        let puzzle = Grid::parse(s["puzzle"].as_str().expect("puzzle")).expect("grid");
        assert_eq!(
            solutions_in(&g, &puzzle, 2).len(),
            1,
            "one solution by its cages"
        );
    }
    // Ann's board, judged by her own cages: right digits taken, until a cage whose last cell
    // takes a digit that repeats nothing in its houses yet makes the cage's sum wrong.
    let g = geometry_of(&sa);
    let puzzle = Grid::parse(sa["puzzle"].as_str().expect("puzzle")).expect("grid");
    let solution = solutions_in(&g, &puzzle, 1)[0];
    let mut board = *puzzle.as_bytes();
    let mut clash = None;
    'cages: for (cells, _) in g.layout().cages {
        let open: Vec<Cell> = cells
            .iter()
            .copied()
            .filter(|c| board[c.idx()] == 0)
            .collect();
        let Some((&last, rest)) = open.split_last() else {
            continue;
        };
        if cells.len() < 2 {
            continue;
        }
        for &c in rest {
            let d = solution.as_bytes()[c.idx()];
            let p = place(&mut a, c.idx(), d).await;
            assert_eq!(p["accepted"], true, "{p}");
            board[c.idx()] = d;
        }
        let now = Grid::from_bytes(board).expect("board");
        for d in Digit::all() {
            let house_clash =
                !placement_conflicts_in(Geometry::classic(), &now, last, d).is_empty();
            let cage_clash = placement_conflicts_in(&g, &now, last, d);
            if !house_clash && !cage_clash.is_empty() {
                clash = Some((last, d, cage_clash));
                break 'cages;
            }
        }
    }
    let (cell, digit, expected) = clash.expect("some cage to break by its sum alone");
    let p = place(&mut a, cell.idx(), digit.get()).await;
    assert_eq!(p["accepted"], false, "{p}");
    assert_eq!(p["reason"], "conflict", "{p}");
    let shown: Vec<usize> = p["conflicts"]
        .as_array()
        .expect("conflicts")
        .iter()
        .filter_map(Value::as_u64)
        .map(|c| c as usize)
        .collect();
    assert_eq!(
        shown,
        expected.iter().map(|c| c.idx()).collect::<Vec<_>>(),
        "the cage's other cells clash"
    );
}

#[tokio::test]
async fn variants_are_refused_where_a_client_cannot_draw_them() {
    let srv = TestServer::start().await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let create = |settings: Value, variants: Option<Value>| {
        let mut m = json!({"type": "create_room", "name": "ann", "settings": settings});
        if let Some(v) = variants {
            m["variants"] = v;
        }
        m
    };
    a.send(create(json!({"variant": "hexadoku"}), Some(all())))
        .await;
    let e = a.expect_error("invalid_settings").await;
    assert!(
        e["message"].as_str().is_some_and(|m| m.contains("variant")),
        "{e}"
    );
    a.send(create(json!({"variant": "jigsaw"}), None)).await;
    a.expect_error("unsupported_variant").await;
    // A classic room with a classic-only player: the host may not turn it into a jigsaw.
    a.send(create(json!({}), Some(all()))).await;
    let joined = a.expect("room_joined").await;
    assert!(joined["settings"].get("variant").is_none(), "{joined}");
    let room = joined["room"].as_str().expect("code").to_owned();
    b.send(json!({"type": "join_room", "room": room, "name": "bob"}))
        .await;
    let bob = b.expect("room_joined").await;
    a.until("player_joined").await;
    a.send(json!({"type": "set_settings", "settings": {"variant": "jigsaw"}}))
        .await;
    let e = a.expect_error("unsupported_variant").await;
    assert!(
        e["message"].as_str().is_some_and(|m| m.contains("bob")),
        "{e}"
    );
    // Once Bob is back on a client that draws every variant, the change is taken.
    let token = bob["you"]["token"].as_str().expect("token").to_owned();
    drop(b);
    let mut b = srv.client().await;
    b.send(json!({"type": "resume", "token": token, "variants": all()}))
        .await;
    b.expect("room_joined").await;
    a.send(json!({"type": "set_settings", "settings": {"variant": "jigsaw"}}))
        .await;
    let changed = a.until("settings_changed").await;
    assert_eq!(changed["settings"]["variant"], "jigsaw", "{changed}");
    // A seat's holder whose client draws classic only cannot resume into it now.
    let mut c = srv.client().await;
    c.send(json!({"type": "join_room", "room": room, "name": "cat", "variants": all()}))
        .await;
    let cat = c.expect("room_joined").await;
    let token = cat["you"]["token"].as_str().expect("token").to_owned();
    drop(c);
    let mut c = srv.client().await;
    c.send(json!({"type": "resume", "token": token})).await;
    c.expect_error("unsupported_variant").await;
    // The pool deals classic only so far: a variant's is refused, never dealt classic.
    let mut d = srv.client().await;
    let quick = |variant: &str| json!({"type": "quick_race", "difficulty": "easy", "name": "dan", "variant": variant, "variants": all()});
    d.send(quick("killer")).await;
    d.expect_error("unsupported_variant").await;
    d.send(quick("hexadoku")).await;
    d.expect_error("invalid_settings").await;
    d.send(quick("classic")).await;
    d.expect("queued").await;
}
