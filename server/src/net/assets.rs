//! The embedded browser client and its answers: every file under `client-web/public/` is in
//! the binary (rust-embed, with `debug-embed` so debug builds and tests serve the same bytes as
//! release), and a request for one gets it with its type, a strong ETag from the content hash
//! rust-embed computed at build time, `Cache-Control: no-cache` and the security headers; a
//! matching `If-None-Match` gets 304. No request reads the disk. Which paths reach a file is the
//! router's business ([`super::http`]); this module only knows the files.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{
    HeaderMap, HeaderValue, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG,
    IF_NONE_MATCH, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
};
use hyper::StatusCode;
use rust_embed::RustEmbed;

/// The page every browser route opens (`/`, `/r/CODE`): its script reads the path and `?watch`.
pub const PAGE: &str = "index.html";

/// The prefix under which files other than the page are served, as `/assets/…`.
pub const ASSETS_DIR: &str = "assets/";

/// Nothing on the page comes from another host, and no other site may frame it.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// A relative folder is taken from this crate's manifest directory; `build.rs` reruns the
// build when anything in it changes, so a new file is embedded without a `cargo clean`.
#[derive(RustEmbed)]
#[folder = "../client-web/public"]
struct Public;

/// One embedded file, ready to answer with: the body and the ETag are shared, never copied.
struct File {
    body: Bytes,
    etag: HeaderValue,
    content_type: &'static str,
}

/// Every embedded file by its path under `public/`, built on first use. rust-embed's own `get`
/// allocates a key per call; this table makes a lookup allocation-free.
static FILES: LazyLock<HashMap<Cow<'static, str>, File>> = LazyLock::new(|| {
    Public::iter()
        .filter_map(|name| {
            let file = Public::get(&name)?;
            let body = match file.data {
                Cow::Borrowed(b) => Bytes::from_static(b),
                Cow::Owned(v) => Bytes::from(v),
            };
            let mut etag = String::with_capacity(66);
            etag.push('"');
            for b in file.metadata.sha256_hash() {
                let _ = write!(etag, "{b:02x}");
            }
            etag.push('"');
            let etag = HeaderValue::try_from(etag).expect("quoted hex is a valid header value");
            let content_type = content_type(&name);
            Some((
                name,
                File {
                    body,
                    etag,
                    content_type,
                },
            ))
        })
        .collect()
});

/// Whether `rel` (a path below `assets/`, from the URL) can name a file: segments of letters,
/// digits, `.`, `_` and `-`, none empty or starting with a dot. This shuts out `..`, `//`,
/// percent-escapes and backslashes before any lookup, whatever the table holds.
pub fn is_clean(rel: &str) -> bool {
    !rel.is_empty()
        && rel.split('/').all(|seg| {
            !seg.is_empty()
                && !seg.starts_with('.')
                && seg
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
        })
}

/// The `Content-Type` for a file name, by its extension.
pub fn content_type(name: &str) -> &'static str {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext.to_ascii_lowercase().as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        "ico" => "image/x-icon",
        "webmanifest" => "application/manifest+json",
        _ => "application/octet-stream",
    }
}

/// Whether an `If-None-Match` (any number of headers, each a list) names `etag` or is `*`.
/// The comparison is weak (RFC 9110 §13.1.2), so `W/"…"` matches too.
fn none_match(request: &HeaderMap, etag: &HeaderValue) -> bool {
    request
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.trim_start_matches("W/").as_bytes() == etag.as_bytes())
}

/// The answer for the embedded file `name` (its path under `public/`), given the request's
/// headers: 200 with the file, or 304 if the client's copy is current; `None` if there is no
/// such file.
pub fn answer(name: &str, request: &HeaderMap) -> Option<hyper::Response<Full<Bytes>>> {
    let file = FILES.get(name)?;
    let fresh = none_match(request, &file.etag);
    let mut resp = if fresh {
        let mut r = hyper::Response::new(Full::default());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let mut r = hyper::Response::new(Full::new(file.body.clone()));
        r.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(file.content_type));
        r
    };
    let headers = resp.headers_mut();
    headers.insert(ETAG, file.etag.clone());
    // The names carry no hash, so every use asks again; the ETag makes asking cheap.
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // Room codes are in the page's URL: it is not to leave with a link.
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    if file.content_type.starts_with("text/html") {
        headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    }
    Some(resp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_paths() {
        for ok in ["app.js", "screens/lobby.js", "a-b_c.min.css"] {
            assert!(is_clean(ok), "{ok}");
        }
        for bad in [
            "", "/", "..", "../x", "a/../b", "a//b", "a/", ".hidden", "%2e%2e/x", "a\\b", "a b",
        ] {
            assert!(!is_clean(bad), "{bad}");
        }
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("a/b.mjs"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("x.CSS"), "text/css; charset=utf-8");
        assert_eq!(content_type("m.webmanifest"), "application/manifest+json");
        assert_eq!(content_type("noext"), "application/octet-stream");
    }

    #[test]
    fn the_page_is_embedded_with_its_hash() {
        let resp = answer(PAGE, &HeaderMap::new()).expect("index.html is embedded");
        assert_eq!(resp.status(), StatusCode::OK);
        let etag = resp.headers()[ETAG].clone();
        assert_eq!(etag.len(), 66, "{etag:?}");
        assert!(resp.headers().contains_key(CONTENT_SECURITY_POLICY));

        let mut req = HeaderMap::new();
        let list = format!("\"nope\", W/{}", etag.to_str().expect("ascii"));
        req.insert(
            IF_NONE_MATCH,
            HeaderValue::try_from(list).expect("a header"),
        );
        let resp = answer(PAGE, &req).expect("embedded");
        assert_eq!(resp.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(resp.headers()[ETAG], etag);

        req.insert(IF_NONE_MATCH, HeaderValue::from_static("\"other\""));
        assert_eq!(
            answer(PAGE, &req).expect("embedded").status(),
            StatusCode::OK
        );
        assert!(answer("nope.html", &req).is_none());
    }
}
