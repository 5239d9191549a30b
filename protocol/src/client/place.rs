//! `place`, the message a race is made of, read as a plain struct: the general way (serde's
//! internally tagged [`ClientMsg`]) buffers every field before it reads the tag, which was most
//! of the cost of parsing a placement. Only a message this takes whole is taken; anything
//! else, including every error, is left to the general way, which a property test holds it to.

use serde::Deserialize;

use super::ClientMsg;
use crate::ids::MsgId;

#[derive(Deserialize)]
struct Place<'a> {
    #[serde(rename = "type", borrow)]
    ty: &'a str,
    cell: i64,
    digit: i64,
    #[serde(default)]
    id: Option<MsgId>,
}

/// `text` as a `place`, when it is one the general way reads the same.
pub(super) fn parse(text: &str) -> Option<ClientMsg> {
    let p: Place<'_> = serde_json::from_str(text).ok()?;
    (p.ty == "place").then_some(ClientMsg::Place {
        cell: p.cell,
        digit: p.digit,
        id: p.id,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A JSON value of the kinds a field might hold.
    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<i64>().prop_map(|n| n.to_string()),
            (0i64..100).prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            Just("1.5".to_owned()),
            Just("1e400".to_owned()),
            Just("-0".to_owned()),
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("\"place\"".to_owned()),
            Just("\"ping\"".to_owned()),
            Just("\"Place\"".to_owned()),
            "[a-z\\\\\"é]{0,6}".prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
            Just("[1,2]".to_owned()),
            Just("{\"a\":1}".to_owned()),
        ]
    }

    fn key() -> impl Strategy<Value = &'static str> {
        proptest::sample::select(vec!["type", "cell", "digit", "id", "x", "ty\\u0070e"])
    }

    /// Objects of those keys (repeats included) and values, mostly well-formed placements.
    fn message() -> impl Strategy<Value = String> {
        let place = (0i64..90, 0i64..12, value()).prop_map(|(c, d, id)| {
            format!("{{\"type\":\"place\",\"cell\":{c},\"digit\":{d},\"id\":{id}}}")
        });
        let fields = proptest::collection::vec((key(), value()), 0..6).prop_map(|fields| {
            let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            format!("{{{}}}", body.join(","))
        });
        prop_oneof![place, fields]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Whatever the fast way takes, the general way reads the same.
        #[test]
        fn it_takes_only_what_the_general_way_reads_alike(text in message()) {
            if let Some(fast) = parse(&text) {
                let general = serde_json::from_str::<ClientMsg>(&text);
                prop_assert!(general.is_ok(), "{} read only the fast way", text);
                prop_assert_eq!(Some(fast), general.ok());
            }
        }
    }

    #[test]
    fn a_placement_is_taken_and_other_messages_are_not() {
        let taken = parse("{\"id\":7,\"digit\":5,\"type\":\"place\",\"cell\":40,\"extra\":[1]}");
        assert_eq!(
            taken,
            Some(ClientMsg::Place {
                cell: 40,
                digit: 5,
                id: Some(MsgId::Number(7.into()))
            })
        );
        assert_eq!(parse("{\"type\":\"ping\",\"id\":1}"), None);
        assert_eq!(parse("{\"type\":\"place\",\"cell\":1.5,\"digit\":5}"), None);
        assert_eq!(
            parse("{\"type\":\"place\",\"cell\":1,\"cell\":2,\"digit\":5}"),
            None
        );
    }
}
