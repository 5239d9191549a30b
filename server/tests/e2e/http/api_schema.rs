//! The API's answers held to `/api/openapi.json`: the document parses as OpenAPI 3, names every
//! route, and each route's 200, 400 and 404 answers fit the schema it documents, checked by a
//! small checker of the JSON Schema subset the document uses (so a renamed, missing or
//! undocumented field fails here).

use serde_json::{json, Value};

use super::api::raced;

/// The subset of JSON Schema `openapi.json` uses: `$ref` (to `#/components/schemas/…`),
/// `type` (with `nullable`), `enum`, `required`, `properties`, `additionalProperties: false`,
/// `items`, `minimum`/`maximum`, `minLength`/`maxLength`. `pattern` is checked by the tests
/// above, not here. Returns every violation, with where it is.
fn violations(doc: &Value, schema: &Value, v: &Value, at: &str, out: &mut Vec<String>) {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r
            .strip_prefix("#/components/schemas/")
            .expect("a local $ref");
        let target = &doc["components"]["schemas"][name];
        assert!(target.is_object(), "dangling $ref {r}");
        return violations(doc, target, v, at, out);
    }
    if v.is_null() {
        if schema["nullable"] != true {
            out.push(format!("{at}: null is not allowed"));
        }
        return;
    }
    let ty = schema["type"].as_str();
    let fits = match ty {
        Some("object") => v.is_object(),
        Some("array") => v.is_array(),
        Some("string") => v.is_string(),
        Some("integer") => v.is_i64() || v.is_u64(),
        Some("number") => v.is_number(),
        Some("boolean") => v.is_boolean(),
        Some(other) => panic!("{at}: type {other} is not in the checker"),
        None => true,
    };
    if !fits {
        out.push(format!("{at}: {v} is not {ty:?}"));
        return;
    }
    if let Some(allowed) = schema["enum"].as_array() {
        if !allowed.contains(v) {
            out.push(format!("{at}: {v} is not one of {allowed:?}"));
        }
    }
    if let (Some(n), Some(min)) = (v.as_f64(), schema["minimum"].as_f64()) {
        if n < min {
            out.push(format!("{at}: {n} < {min}"));
        }
    }
    if let (Some(n), Some(max)) = (v.as_f64(), schema["maximum"].as_f64()) {
        if n > max {
            out.push(format!("{at}: {n} > {max}"));
        }
    }
    if let Some(s) = v.as_str() {
        let len = s.chars().count() as u64;
        if schema["minLength"].as_u64().is_some_and(|m| len < m)
            || schema["maxLength"].as_u64().is_some_and(|m| len > m)
        {
            out.push(format!("{at}: length {len} is out of bounds"));
        }
    }
    if let Some(obj) = v.as_object() {
        let props = schema["properties"].as_object();
        for req in schema["required"].as_array().into_iter().flatten() {
            let name = req.as_str().expect("a required name");
            if !obj.contains_key(name) {
                out.push(format!("{at}: {name} is missing"));
            }
        }
        for (k, field) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(s) => violations(doc, s, field, &format!("{at}.{k}"), out),
                None if schema["additionalProperties"] == false => {
                    out.push(format!("{at}: {k} is not documented"));
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), v.as_array()) {
        for (i, item) in arr.iter().enumerate() {
            violations(doc, items, item, &format!("{at}[{i}]"), out);
        }
    }
}

/// The schema `doc` documents for `route`'s answer with `status`.
fn documented<'a>(doc: &'a Value, route: &str, status: u16) -> &'a Value {
    documented_op(doc, route, "get", status)
}

/// [`documented`] for `method` (`get`, `post`).
fn documented_op<'a>(doc: &'a Value, route: &str, method: &str, status: u16) -> &'a Value {
    let op = &doc["paths"][route][method];
    assert!(op.is_object(), "{route} is not documented");
    let schema = &op["responses"][status.to_string()]["content"]["application/json"]["schema"];
    assert!(schema.is_object(), "{route} {status} is not documented");
    schema
}

#[test]
fn the_checker_catches_a_renamed_field() {
    let doc = json!({"components": {"schemas": {"E": {"type": "object", "additionalProperties": false,
        "required": ["error"], "properties": {"error": {"type": "string"}}}}}});
    let schema = json!({"$ref": "#/components/schemas/E"});
    let mut out = Vec::new();
    violations(&doc, &schema, &json!({"error": "x"}), "$", &mut out);
    assert!(out.is_empty(), "{out:?}");
    violations(&doc, &schema, &json!({"eror": "x"}), "$", &mut out);
    assert_eq!(out.len(), 2, "missing and undocumented: {out:?}");
    out.clear();
    violations(&doc, &schema, &json!({"error": null}), "$", &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
}

#[tokio::test]
async fn every_answer_matches_the_openapi_document() {
    let mut r = raced().await;
    let doc = r.get("/api/openapi.json").await;
    assert_eq!(doc.status, 200);
    let doc = doc.body;
    assert!(
        doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")),
        "{}",
        doc["openapi"]
    );
    let (ha, race) = (r.ann.1.clone(), r.race_id.clone());
    let arenas = r.get("/api/arenas").await.body;
    let arena = arenas["arenas"][0]["arena_id"]
        .as_str()
        .expect("an arena")
        .to_owned();
    // A member, so its standings have a row to check.
    let mut member = r.srv.client().await;
    member
        .send(json!({"type": "join_arena", "arena_id": arena, "name": "ann", "key": r.ann.0}))
        .await;
    member.expect("arena_joined").await;
    // (documented route, a request to it, the status it must get)
    let cases = [
        (
            "/api/leaderboard",
            "/api/leaderboard?difficulty=easy".to_owned(),
            200,
        ),
        (
            "/api/leaderboard",
            "/api/leaderboard?period=year".to_owned(),
            400,
        ),
        ("/api/players/{handle}", format!("/api/players/{ha}"), 200),
        (
            "/api/players/{handle}",
            "/api/players/a%0Ab".to_owned(),
            400,
        ),
        (
            "/api/players/{handle}",
            "/api/players/hZZZZZZZ".to_owned(),
            404,
        ),
        (
            "/api/players/{handle}/races",
            format!("/api/players/{ha}/races"),
            200,
        ),
        (
            "/api/players/{handle}/races",
            format!("/api/players/{ha}/races?limit=101"),
            400,
        ),
        (
            "/api/players/{handle}/races",
            "/api/players/hZZZZZZZ/races".to_owned(),
            404,
        ),
        ("/api/races/{race_id}", format!("/api/races/{race}"), 200),
        ("/api/races/{race_id}", "/api/races/a.b".to_owned(), 400),
        ("/api/races/{race_id}", "/api/races/NOPE-1".to_owned(), 404),
        ("/api/daily", "/api/daily".to_owned(), 200),
        ("/api/arenas", "/api/arenas".to_owned(), 200),
        (
            "/api/arenas/{arena_id}",
            format!("/api/arenas/{arena}"),
            200,
        ),
        (
            "/api/arenas/{arena_id}",
            "/api/arenas/nope-1".to_owned(),
            404,
        ),
        // The race is over: none runs (a running one's 200 is checked in `boards`).
        ("/api/tv", "/api/tv".to_owned(), 404),
    ];
    let paths = doc["paths"].as_object().expect("paths");
    for route in [
        "/api/leaderboard",
        "/api/players/{handle}",
        "/api/players/{handle}/races",
        "/api/races/{race_id}",
        "/api/daily",
        "/api/openapi.json",
        "/api/arenas",
        "/api/arenas/{arena_id}",
        "/api/tv",
    ] {
        assert!(paths.contains_key(route), "{route} is not documented");
    }
    for (route, path, status) in cases {
        let got = r.get(&path).await;
        assert_eq!(got.status, status, "{path}: {}", got.body);
        let mut out = Vec::new();
        violations(
            &doc,
            documented(&doc, route, status),
            &got.body,
            "$",
            &mut out,
        );
        assert!(
            out.is_empty(),
            "{path} ({status}) against the document:\n{}",
            out.join("\n")
        );
        // Arrays must not be empty, or their items would go unchecked.
        if status == 200 {
            for field in [
                "rows",
                "ratings",
                "races",
                "players",
                "standings",
                "placements",
            ] {
                if let Some(a) = got.body[field].as_array() {
                    assert!(!a.is_empty(), "{path}: {field} is empty: items unchecked");
                }
            }
        }
    }
    r.assert_no_keys();
}

#[tokio::test]
async fn the_admin_answers_match_the_openapi_document() {
    use crate::support::rated::{admin_server, call, join, race, TOKEN};
    use crate::support::rated::{rated_room, register};
    let srv = admin_server(true).await;
    let doc = srv.get_json("/api/openapi.json").await;
    let (mut a, mut b) = (srv.client().await, srv.client().await);
    let (ka, ha) = register(&mut a, "ann").await;
    let (kb, _) = register(&mut b, "bob").await;
    let room = rated_room(&mut a, &ka).await;
    join(&mut b, &room, "bob", &kb).await;
    // A machine's solve: flagged `too_fast`, so the flags list has a row to check.
    let over = race(&mut a, &mut [&mut b]).await;
    let ann = over["standings"][0]["player_id"].clone();
    b.send(json!({"type": "report", "player_id": ann, "reason": "quick"}))
        .await;
    b.until("reported").await;
    let bearer = format!("Bearer {TOKEN}");
    let cases = [
        (
            "/api/admin/flags",
            "get",
            "GET /api/admin/flags".to_owned(),
            Some(&bearer),
            200,
        ),
        (
            "/api/admin/flags",
            "get",
            "GET /api/admin/flags?limit=0".to_owned(),
            Some(&bearer),
            400,
        ),
        (
            "/api/admin/flags",
            "get",
            "GET /api/admin/flags".to_owned(),
            None,
            401,
        ),
        (
            "/api/admin/reports",
            "get",
            "GET /api/admin/reports".to_owned(),
            Some(&bearer),
            200,
        ),
        (
            "/api/admin/players/{handle}/ban",
            "post",
            format!("POST /api/admin/players/{ha}/ban"),
            Some(&bearer),
            200,
        ),
        (
            "/api/admin/players/{handle}/unban",
            "post",
            "POST /api/admin/players/hZZZZZZZ/unban".to_owned(),
            Some(&bearer),
            404,
        ),
    ];
    for (route, method, line, auth, status) in cases {
        let (got, body, _) = call(&srv, &line, auth.map(String::as_str)).await;
        assert_eq!(got, status, "{line}: {body}");
        let mut out = Vec::new();
        violations(
            &doc,
            documented_op(&doc, route, method, status),
            &body,
            "$",
            &mut out,
        );
        assert!(out.is_empty(), "{line} ({status}):\n{}", out.join("\n"));
        for field in ["flags", "reports"] {
            if let Some(a) = body[field].as_array() {
                assert!(!a.is_empty(), "{line}: {field} is empty: items unchecked");
            }
        }
    }
}
