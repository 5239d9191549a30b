//! The browser client on the server's one port: `/` and `/r/CODE` get the page, `/assets/…` its
//! files, byte for byte what `client-web/public` holds (scripts and stylesheets without their
//! comments), with caching and security headers;
//! nothing else on disk is reachable, and the page's own origin may open the WebSocket. Text
//! files come Brotli- or gzip-compressed to a client that accepts it, and decompress to the
//! same bytes.

use std::path::{Path, PathBuf};

use tokio_tungstenite::tungstenite::Error as WsError;

use crate::support::{HttpResponse, TestServer};

const OK: &str = "HTTP/1.1 200 OK";
const NOT_FOUND: &str = "HTTP/1.1 404 Not Found";

fn public_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../client-web/public")
}

/// Every file under `dir`, as paths relative to it with `/` between folders.
fn files_under(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("read the client folder") {
        let entry = entry.expect("a folder entry");
        let name = entry.file_name().into_string().expect("a UTF-8 file name");
        let rel = format!("{prefix}{name}");
        if entry.file_type().expect("a file type").is_dir() {
            files_under(&entry.path(), &format!("{rel}/"), out);
        } else {
            out.push(rel);
        }
    }
}

async fn get(srv: &TestServer, path: &str) -> HttpResponse {
    srv.http(&format!("GET {path}"), &[])
        .await
        .unwrap_or_else(|e| panic!("GET {path}: {e:#}"))
}

#[tokio::test]
async fn the_page_at_the_root_and_at_invite_links() {
    let srv = TestServer::start().await;
    let page = get(&srv, "/").await;
    assert_eq!(page.status, OK);
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let html = String::from_utf8(page.body.clone()).expect("the page is UTF-8");
    assert!(html.contains("<script type=\"module\""), "{html}");
    let csp = page.header("content-security-policy").expect("a CSP");
    assert!(csp.contains("default-src 'self'"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));

    for path in ["/r/ABCD", "/r/abcd?watch", "/?watch"] {
        let r = get(&srv, path).await;
        assert_eq!(r.status, OK, "{path}");
        assert_eq!(r.body, page.body, "{path}");
    }
    assert_eq!(get(&srv, "/r/A").await.status, NOT_FOUND);

    let head = srv.http("HEAD /", &[]).await.expect("HEAD /");
    assert_eq!(head.status, OK);
    assert_eq!(
        head.header("content-length"),
        Some(page.body.len().to_string().as_str())
    );
    assert!(head.body.is_empty());

    for line in ["POST /", "PUT /r/ABCD", "DELETE /assets/app.js"] {
        let r = srv
            .http(line, &[("content-length", "0")])
            .await
            .expect(line);
        assert_eq!(r.status, "HTTP/1.1 405 Method Not Allowed", "{line}");
        assert_eq!(r.header("allow"), Some("GET, HEAD"), "{line}");
    }
}

#[tokio::test]
async fn assets_revalidate_by_etag() {
    let srv = TestServer::start().await;
    let js = get(&srv, "/assets/app.js").await;
    assert_eq!(js.status, OK);
    assert_eq!(
        js.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(js.header("cache-control"), Some("no-cache"));
    assert_eq!(js.header("x-content-type-options"), Some("nosniff"));
    assert_eq!(js.header("content-security-policy"), None);
    let etag = js.header("etag").expect("an ETag").to_owned();
    assert!(
        etag.len() == 66 && etag.starts_with('"') && etag.ends_with('"'),
        "{etag}"
    );

    for matching in [etag.clone(), format!("\"x\", {etag}"), "*".to_owned()] {
        let r = srv
            .http("GET /assets/app.js", &[("if-none-match", &matching)])
            .await
            .expect("conditional GET");
        assert_eq!(r.status, "HTTP/1.1 304 Not Modified", "{matching}");
        assert_eq!(r.header("etag"), Some(etag.as_str()));
        assert!(r.body.is_empty());
    }
    let r = srv
        .http("GET /assets/app.js", &[("if-none-match", "\"stale\"")])
        .await
        .expect("conditional GET");
    assert_eq!(r.status, OK);
    assert_eq!(r.body, js.body);
    let css = get(&srv, "/assets/style.css").await;
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
    assert_ne!(css.header("etag"), Some(etag.as_str()));
}

/// `body` decoded from `coding` (`br` or `gzip`).
fn decode(coding: &str, body: &[u8]) -> Vec<u8> {
    use std::io::Read as _;
    let mut out = Vec::new();
    match coding {
        "br" => brotli::Decompressor::new(body, 4096).read_to_end(&mut out),
        "gzip" => flate2::read::GzDecoder::new(body).read_to_end(&mut out),
        other => panic!("no decoder for {other}"),
    }
    .unwrap_or_else(|e| panic!("a valid {coding} body: {e}"));
    out
}

#[tokio::test]
async fn text_files_come_compressed_to_who_accepts_it() {
    let srv = TestServer::start().await;
    let mut files = Vec::new();
    files_under(&public_dir().join("assets"), "/assets/", &mut files);
    files.push("/".to_owned());
    let (mut plain_total, mut br_total) = (0, 0);
    for url in files.iter().filter(|f| !f.ends_with(".png")) {
        let plain = get(&srv, url).await;
        assert_eq!(plain.status, OK, "{url}");
        assert_eq!(plain.header("content-encoding"), None, "{url}");
        let plain_tag = plain.header("etag").expect("an ETag").to_owned();
        plain_total += plain.body.len();
        let mut tags = vec![plain_tag.clone()];
        for (accept, coding, suffix) in [
            ("gzip, deflate, br, zstd", "br", "-br\""),
            ("gzip;q=1, br;q=0.5", "gzip", "-gz\""),
        ] {
            let r = srv
                .http(&format!("GET {url}"), &[("accept-encoding", accept)])
                .await
                .expect("GET");
            assert_eq!(r.status, OK, "{url}");
            assert_eq!(r.header("vary"), Some("Accept-Encoding"), "{url}");
            assert_eq!(r.header("content-type"), plain.header("content-type"));
            let tag = r.header("etag").expect("an ETag").to_owned();
            if r.header("content-encoding").is_none() {
                // Kept plain when compressing saves nothing (a tiny file): the same answer.
                assert_eq!(r.body, plain.body, "{url}");
                assert_eq!(tag, plain_tag, "{url}");
                continue;
            }
            assert_eq!(r.header("content-encoding"), Some(coding), "{url}");
            assert_eq!(
                r.header("content-length"),
                Some(r.body.len().to_string().as_str())
            );
            assert!(r.body.len() < plain.body.len(), "{url} {coding}");
            assert!(
                decode(coding, &r.body) == plain.body,
                "{url}: {coding} decodes to the file"
            );
            assert!(
                tag.ends_with(suffix) && tag.starts_with(&plain_tag[..65]),
                "{tag}"
            );
            if coding == "br" {
                br_total += r.body.len();
            }
            tags.push(tag);
        }
        // Every tag of the file revalidates whatever coding is asked for now.
        for tag in &tags {
            for accept in ["br", "gzip", "identity"] {
                let r = srv
                    .http(
                        &format!("GET {url}"),
                        &[("accept-encoding", accept), ("if-none-match", tag)],
                    )
                    .await
                    .expect("conditional GET");
                assert_eq!(
                    r.status, "HTTP/1.1 304 Not Modified",
                    "{url} {tag} {accept}"
                );
                assert!(r.body.is_empty());
            }
        }
    }
    // The client as a whole: Brotli takes it to well under a half.
    assert!(br_total * 2 < plain_total, "{br_total} of {plain_total}");

    // `q=0` refuses, HEAD tells the length of what GET would send.
    let r = srv
        .http(
            "GET /assets/state.js",
            &[("accept-encoding", "br;q=0, gzip;q=0")],
        )
        .await
        .expect("GET");
    assert_eq!(r.header("content-encoding"), None);
    assert_eq!(r.header("vary"), Some("Accept-Encoding"));
    let full = get(&srv, "/assets/state.js").await;
    assert_eq!(r.body, full.body);
    let get_br = srv
        .http("GET /assets/state.js", &[("accept-encoding", "br")])
        .await
        .expect("GET");
    let head = srv
        .http("HEAD /assets/state.js", &[("accept-encoding", "br")])
        .await
        .expect("HEAD");
    assert_eq!(head.status, OK);
    assert_eq!(head.header("content-encoding"), Some("br"));
    assert_eq!(
        head.header("content-length"),
        Some(get_br.body.len().to_string().as_str())
    );
    assert!(head.body.is_empty());
}

#[tokio::test]
async fn nothing_outside_the_client_is_reachable() {
    let srv = TestServer::start().await;
    for path in [
        "/assets/nope.js",
        "/assets/",
        "/assets",
        "/assets/../Cargo.toml",
        "/assets/../../Cargo.toml",
        "/assets/%2e%2e/Cargo.toml",
        "/assets/%2E%2E%2FCargo.toml",
        "/assets/..%2f..%2fCargo.toml",
        "/assets/.%2e/index.html",
        "/assets//app.js",
        "/assets/./app.js",
        "/assets/app.js/",
        "/index.html",
        "/Cargo.toml",
    ] {
        assert_eq!(get(&srv, path).await.status, NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn every_client_file_is_served_as_it_is_or_slimmed() {
    let srv = TestServer::start().await;
    let mut files = Vec::new();
    files_under(&public_dir(), "", &mut files);
    assert!(files.iter().any(|f| f == "index.html"), "{files:?}");
    for rel in files {
        // Hidden files (a `.gitkeep`) are not part of the client, and not served.
        if rel.split('/').any(|seg| seg.starts_with('.')) {
            continue;
        }
        let url = match rel.as_str() {
            "index.html" => "/".to_owned(),
            // The service worker is served at the root, so that its scope is the whole site.
            "sw.js" => "/sw.js".to_owned(),
            r if r.starts_with("assets/") => format!("/{r}"),
            r => panic!(
                "client-web/public/{r}: the server serves only index.html, sw.js and assets/"
            ),
        };
        let on_disk = std::fs::read(public_dir().join(&rel)).expect("read a client file");
        // Scripts and stylesheets go out without their comments (net::slim; the Chromium
        // suite's served.test.mjs checks that they are the same program); the rest as it is.
        let expected = server::net::slim::slim(&rel, &on_disk).unwrap_or(on_disk);
        let served = get(&srv, &url).await;
        assert_eq!(served.status, OK, "{url}");
        assert!(served.body == expected, "{url} differs from {rel}");
    }
}

/// Whether a line of a page, script or style sheet names a URL on another host. `ws://` and
/// `wss://` are allowed: the client builds its socket's URL from `location`.
fn names_another_host(line: &str) -> bool {
    // The SVG namespace's name is an identifier (`createElementNS`, `xmlns`), never fetched.
    const SVG: &str = "http://www.w3.org/2000/svg";
    let line = line
        .replace(&format!("'{SVG}'"), "''")
        .replace(&format!("\"{SVG}\""), "\"\"");
    let mut rest = line.as_str();
    while let Some(at) = rest.find("://") {
        let scheme = rest[..at]
            .rsplit(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("");
        if !matches!(scheme, "ws" | "wss") {
            return true;
        }
        rest = &rest[at + 3..];
    }
    false
}

#[test]
fn the_url_scan_sees_what_it_should() {
    assert!(names_another_host(
        r#"<script src="https://cdn.example/x.js">"#
    ));
    assert!(names_another_host("@import url(http://x.example/a.css);"));
    assert!(!names_another_host(
        "const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');"
    ));
    assert!(names_another_host(
        r#"<script src="http://www.w3.org/2000/svg.js">"#
    ));
    assert!(!names_another_host(
        "const url = `${location.protocol === 'https:' ? 'wss://' : 'ws://'}${location.host}/ws`;"
    ));
    assert!(!names_another_host(
        r#"<link rel="stylesheet" href="/assets/style.css">"#
    ));
}

#[test]
fn no_client_file_loads_from_another_host() {
    let mut files = Vec::new();
    files_under(&public_dir(), "", &mut files);
    for rel in files.iter().filter(|f| {
        [".html", ".js", ".mjs", ".css"]
            .iter()
            .any(|e| f.ends_with(e))
    }) {
        let text = std::fs::read_to_string(public_dir().join(rel)).expect("a UTF-8 client file");
        let mut in_block = false;
        for (n, line) in text.lines().enumerate() {
            // Comments may cite a URL (a spec, a source); code and markup may not.
            let mut line = line.trim();
            if in_block || line.starts_with("/*") || line.starts_with("<!--") {
                in_block = !(line.contains("*/") || line.contains("-->"));
                continue;
            }
            if line.starts_with("//") || line.starts_with('*') {
                continue;
            }
            if let Some((code, _)) = line.split_once(" // ") {
                line = code;
            }
            assert!(
                !names_another_host(line),
                "client-web/public/{rel}:{}: names another host: {line}",
                n + 1
            );
        }
    }
}

#[tokio::test]
async fn the_page_origin_may_open_the_socket_at_an_invite_link() {
    let srv = TestServer::start().await;
    // What a browser sends from the page this server served: Origin is the Host it asked.
    let own = format!("http://{}", srv.addr);
    srv.client_at_with_headers("/r/ABCD", &[("origin", &own)])
        .await
        .unwrap_or_else(|e| panic!("{own} refused: {e}"));
    match srv
        .client_at_with_headers("/r/ABCD", &[("origin", "http://evil.example")])
        .await
    {
        Err(WsError::Http(resp)) => assert_eq!(resp.status(), 403),
        Err(e) => panic!("refused, but not with 403: {e}"),
        Ok(_) => panic!("a foreign origin was let in"),
    }
}

/// The `{ … }` literal after `export const NAME = ` in a client module, a `key: value` a line.
fn js_object(source: &str, name: &str) -> Vec<(String, String)> {
    let start = source
        .find(&format!("export const {name} = {{"))
        .unwrap_or_else(|| panic!("wire.js defines {name}"));
    let body = &source[start..];
    let body = &body[body.find('{').unwrap_or(0) + 1..body.find("};").unwrap_or(0)];
    body.lines()
        .filter_map(|l| l.trim().trim_end_matches(',').split_once(": "))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// The browser's settings form holds the contract's defaults and ranges: its copies in
/// `wire.js` are checked against the protocol crate, so neither can drift alone.
#[test]
fn the_browsers_settings_defaults_and_bounds_are_the_protocols() {
    let wire = std::fs::read_to_string(public_dir().join("assets/wire.js")).expect("wire.js");
    let defaults: serde_json::Map<String, serde_json::Value> = js_object(&wire, "DEFAULT_SETTINGS")
        .into_iter()
        .map(|(k, v)| {
            let v = v.replace('\'', "\"");
            (k, serde_json::from_str(&v).expect("a JSON value"))
        })
        .collect();
    let mut ours = serde_json::to_value(protocol::Settings::default()).expect("settings as JSON");
    // `arena` (A7) is the server's to set on an arena's rooms; no form asks for it.
    // `isomorphs` (A8) follows `rated` unless asked for, so the form leaves it out.
    if let Some(o) = ours.as_object_mut() {
        o.remove("arena");
        o.remove("isomorphs");
    }
    assert_eq!(serde_json::Value::Object(defaults), ours);

    let bounds = js_object(&wire, "BOUNDS");
    assert_eq!(bounds.len(), 4, "{bounds:?}");
    for (field, range) in bounds {
        let (lo, hi): (i64, i64) = serde_json::from_str::<(i64, i64)>(&range).expect("[lo, hi]");
        let resolves = |v: i64| {
            serde_json::from_value::<protocol::SettingsRequest>(serde_json::json!({ &field: v }))
                .expect("a request")
                .resolve()
                .is_ok()
        };
        assert!(
            resolves(lo) && resolves(hi),
            "{field}: {lo}..={hi} accepted"
        );
        assert!(
            !resolves(lo - 1) && !resolves(hi + 1),
            "{field}: nothing past {lo}..={hi}"
        );
    }
}
