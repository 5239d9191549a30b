//! [`ServerMsg`] to JSON, with the two messages every placement sends (`placement` to the
//! placer, `progress` to the room) written directly: through serde's internally tagged enum
//! they were 3 % of the race server's CPU under load. The bytes are exactly serde's (same keys,
//! same order, same numbers; strings and ids still escaped by serde_json), which a test checks
//! over arbitrary values.

use std::fmt::Write as _;

use crate::server::{Progress, ServerMsg};

/// The JSON text of `msg`, as `serde_json::to_string` writes it.
pub fn to_json(msg: &ServerMsg) -> serde_json::Result<String> {
    match msg {
        ServerMsg::Progress(p) => Ok(progress(p)),
        ServerMsg::Placement {
            id,
            cell,
            digit,
            accepted,
            reason,
            conflicts,
            mistakes,
            penalty_ms,
        } => {
            let mut out = String::with_capacity(160);
            out.push_str("{\"type\":\"placement\",\"id\":");
            match id {
                Some(id) => out.push_str(&serde_json::to_string(id)?),
                None => out.push_str("null"),
            }
            // Writing to a String cannot fail.
            let _ = write!(
                out,
                ",\"cell\":{},\"digit\":{},\"accepted\":{accepted},\"reason\":",
                cell.get(),
                digit.get()
            );
            match reason {
                Some(r) => push_str(&mut out, r.as_str()),
                None => out.push_str("null"),
            }
            out.push_str(",\"conflicts\":[");
            for (i, c) in conflicts.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}", c.get());
            }
            let _ = write!(
                out,
                "],\"mistakes\":{mistakes},\"penalty_ms\":{penalty_ms}}}"
            );
            Ok(out)
        }
        other => serde_json::to_string(other),
    }
}

fn progress(p: &Progress) -> String {
    let mut out = String::with_capacity(96);
    out.push_str("{\"type\":\"progress\",\"player_id\":");
    push_str(&mut out, p.player_id.as_str());
    let _ = write!(
        out,
        ",\"filled\":{},\"to_fill\":{},\"mistakes\":{}}}",
        p.filled, p.to_fill, p.mistakes
    );
    out
}

/// `s` as a JSON string: as is when it needs no escape (ids are short and plain), else by
/// serde_json.
fn push_str(out: &mut String, s: &str) {
    if s.bytes()
        .all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b < 0x7f)
    {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        // A &str always serializes.
        out.push_str(&serde_json::to_string(s).unwrap_or_default());
    }
}

#[cfg(test)]
mod tests {
    use engine::{Cell, Digit};
    use proptest::prelude::*;

    use super::*;
    use crate::server::PlaceReason;
    use crate::{MsgId, PlayerId};

    fn msg_id() -> impl Strategy<Value = Option<MsgId>> {
        prop_oneof![
            Just(None),
            any::<i64>().prop_map(|n| Some(MsgId::Number(n.into()))),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| serde_json::Number::from_f64(f).map(MsgId::Number)),
            any::<String>().prop_map(|s| Some(MsgId::String(s))),
            Just(
                serde_json::value::RawValue::from_string("1.50e3".into())
                    .ok()
                    .map(MsgId::Raw)
            ),
        ]
    }

    fn reason() -> impl Strategy<Value = Option<PlaceReason>> {
        prop_oneof![
            Just(None),
            proptest::sample::select(PlaceReason::ALL).prop_map(Some)
        ]
    }

    proptest! {
        #[test]
        fn placement_is_serdes_text(
            id in msg_id(),
            cell in 0u8..81,
            digit in 1u8..=9,
            accepted: bool,
            reason in reason(),
            conflicts in proptest::collection::vec(0u8..81, 0..4),
            mistakes: u32,
            penalty_ms: u64,
        ) {
            let msg = ServerMsg::Placement {
                id,
                cell: Cell::try_from(cell).expect("a cell"),
                digit: Digit::try_from(digit).expect("a digit"),
                accepted,
                reason,
                conflicts: conflicts.into_iter().map(|c| Cell::try_from(c).expect("a cell")).collect(),
                mistakes,
                penalty_ms,
            };
            prop_assert_eq!(to_json(&msg).expect("json"), serde_json::to_string(&msg).expect("json"));
        }

        #[test]
        fn progress_is_serdes_text(player in any::<String>(), filled: u32, to_fill: u32, mistakes: u32) {
            for player_id in [PlayerId::from(player.as_str()), PlayerId::from("p12")] {
                let msg = ServerMsg::Progress(Progress { player_id, filled, to_fill, mistakes });
                prop_assert_eq!(to_json(&msg).expect("json"), serde_json::to_string(&msg).expect("json"));
            }
        }
    }

    #[test]
    fn other_messages_go_through_serde() {
        let msg = ServerMsg::Pong { id: None };
        assert_eq!(to_json(&msg).ok(), serde_json::to_string(&msg).ok());
    }
}
