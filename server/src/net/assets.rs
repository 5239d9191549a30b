//! The embedded browser client and its answers: every file under `client-web/public/` is in
//! the binary (rust-embed, with `debug-embed` so debug builds and tests serve the same bytes as
//! release), and a request for one gets it with its type, a strong ETag from the content hash
//! rust-embed computed at build time, `Cache-Control: no-cache` and the security headers; a
//! matching `If-None-Match` gets 304. No request reads the disk. Which paths reach a file is the
//! router's business ([`super::http`]); this module only knows the files.
//!
//! Text files (page, scripts, styles, SVG, JSON, manifest) are also kept compressed, Brotli
//! (quality 11) and gzip (level 9), each only where it is smaller than the file: made once, at
//! start ([`prepare`]), not at build time, so the build stays rust-embed's alone and a change
//! to `public/` costs no build-script run. A request gets the coding its `Accept-Encoding`
//! prefers ([`super::encoding`]) with `Content-Encoding`, and every answer for such a file says
//! `Vary: Accept-Encoding`. Each coding has its own ETag (the hash, then `-br` or `-gz`) so no
//! cache hands one coding's bytes for another's; `If-None-Match` with any of a file's tags is
//! 304, since all of them name the same content.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::LazyLock;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{
    HeaderMap, HeaderValue, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_SECURITY_POLICY, CONTENT_TYPE,
    ETAG, IF_NONE_MATCH, REFERRER_POLICY, VARY, X_CONTENT_TYPE_OPTIONS,
};
use hyper::StatusCode;
use rust_embed::RustEmbed;

use super::encoding::{negotiate, Coding};

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

/// One coding of a file: its bytes and its ETag, shared, never copied.
struct Variant {
    body: Bytes,
    etag: HeaderValue,
}

/// One embedded file, ready to answer with.
struct File {
    plain: Variant,
    /// Brotli, if the file is text and it saves bytes.
    br: Option<Variant>,
    /// gzip, likewise.
    gzip: Option<Variant>,
    content_type: &'static str,
}

impl File {
    fn new(name: &str, body: Bytes, hash: [u8; 32]) -> File {
        let mut hex = String::with_capacity(64);
        for b in hash {
            let _ = write!(hex, "{b:02x}");
        }
        let variant = |body: Bytes, suffix: &str| Variant {
            body,
            etag: HeaderValue::try_from(format!("\"{hex}{suffix}\""))
                .expect("quoted hex is a valid header value"),
        };
        let text = is_text(name);
        let smaller = |packed: Vec<u8>| (packed.len() < body.len()).then(|| Bytes::from(packed));
        let br = text.then(|| smaller(brotli(&body))).flatten();
        let gzip = text.then(|| smaller(gzip(&body))).flatten();
        File {
            br: br.map(|b| variant(b, "-br")),
            gzip: gzip.map(|b| variant(b, "-gz")),
            plain: variant(body, ""),
            content_type: content_type(name),
        }
    }

    /// The file in `coding`, which [`negotiate`] only picks among those the file is kept in.
    fn variant(&self, coding: Coding) -> &Variant {
        let packed = match coding {
            Coding::Br => self.br.as_ref(),
            Coding::Gzip => self.gzip.as_ref(),
            Coding::Identity => None,
        };
        packed.unwrap_or(&self.plain)
    }

    /// Whether the answer depends on `Accept-Encoding`.
    fn varies(&self) -> bool {
        self.br.is_some() || self.gzip.is_some()
    }

    fn etags(&self) -> impl Iterator<Item = &HeaderValue> + Clone {
        [Some(&self.plain), self.br.as_ref(), self.gzip.as_ref()]
            .into_iter()
            .flatten()
            .map(|v| &v.etag)
    }
}

/// Brotli at its best (quality 11, a 4 MiB window).
fn brotli(data: &[u8]) -> Vec<u8> {
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: 22,
        size_hint: data.len(),
        ..Default::default()
    };
    let mut out = Vec::with_capacity(data.len() / 3);
    brotli::BrotliCompress(&mut &data[..], &mut out, &params)
        .expect("compressing from memory into memory cannot fail");
    out
}

/// gzip at its best (level 9; no name, mtime 0: the same bytes every start).
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(
        Vec::with_capacity(data.len() / 3),
        flate2::Compression::best(),
    );
    enc.write_all(data)
        .and_then(|()| enc.finish())
        .expect("compressing into memory cannot fail")
}

/// Every embedded file by its path under `public/`, built on first use ([`prepare`] makes that
/// the server's start). rust-embed's own `get` allocates a key per call; this table makes a
/// lookup allocation-free.
static FILES: LazyLock<HashMap<Cow<'static, str>, File>> = LazyLock::new(|| {
    Public::iter()
        .filter_map(|name| {
            let file = Public::get(&name)?;
            // Scripts and stylesheets are served without their comments (the ETag still
            // follows the source: the slim copy is a function of it).
            let body = match (super::slim::slim(&name, &file.data), file.data) {
                (Some(slim), _) => Bytes::from(slim),
                (None, Cow::Borrowed(b)) => Bytes::from_static(b),
                (None, Cow::Owned(v)) => Bytes::from(v),
            };
            let file = File::new(&name, body, file.metadata.sha256_hash());
            Some((name, file))
        })
        .collect()
});

/// What [`prepare`] made: bytes of the embedded files, and of what a Brotli client downloads
/// if it fetches each once.
#[derive(Clone, Copy, Debug)]
pub struct Prepared {
    /// Files embedded.
    pub files: usize,
    /// Their bytes as they are.
    pub plain_bytes: usize,
    /// Their bytes in Brotli where they are kept so, else as they are.
    pub br_bytes: usize,
}

/// Build the file table and its compressed codings now (CPU work: call it off the async
/// workers, before serving), rather than on the first request for a file.
pub fn prepare() -> Prepared {
    let files = &*FILES;
    Prepared {
        files: files.len(),
        plain_bytes: files.values().map(|f| f.plain.body.len()).sum(),
        br_bytes: files
            .values()
            .map(|f| f.variant(Coding::Br).body.len())
            .sum(),
    }
}

/// Whether a file is text worth compressing, by its extension (PNG and ICO are compressed
/// already).
fn is_text(name: &str) -> bool {
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext.to_ascii_lowercase().as_str(),
        "html" | "js" | "mjs" | "css" | "svg" | "json" | "webmanifest"
    )
}

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

/// Whether an `If-None-Match` (any number of headers, each a list) names one of `etags` or is
/// `*`. The comparison is weak (RFC 9110 §13.1.2), so `W/"…"` matches too.
fn none_match<'a>(
    request: &HeaderMap,
    etags: impl Iterator<Item = &'a HeaderValue> + Clone,
) -> bool {
    request
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|tag| {
            let tag = tag.trim_start_matches("W/").as_bytes();
            tag == b"*" || etags.clone().any(|etag| etag.as_bytes() == tag)
        })
}

/// The answer for the embedded file `name` (its path under `public/`), given the request's
/// headers: 200 with the file in the coding the client prefers, or 304 if the client's copy
/// (in any coding) is current; `None` if there is no such file.
pub fn answer(name: &str, request: &HeaderMap) -> Option<hyper::Response<Full<Bytes>>> {
    let file = FILES.get(name)?;
    let coding = negotiate(request, file.br.is_some(), file.gzip.is_some());
    let variant = file.variant(coding);
    let mut resp = if none_match(request, file.etags()) {
        let mut r = hyper::Response::new(Full::default());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let mut r = hyper::Response::new(Full::new(variant.body.clone()));
        r.headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(file.content_type));
        if let Some(token) = coding.token() {
            r.headers_mut()
                .insert(CONTENT_ENCODING, HeaderValue::from_static(token));
        }
        r
    };
    let headers = resp.headers_mut();
    headers.insert(ETAG, variant.etag.clone());
    if file.varies() {
        headers.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    }
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

    fn accepting(coding: &'static str) -> HeaderMap {
        let mut req = HeaderMap::new();
        req.insert(
            hyper::header::ACCEPT_ENCODING,
            HeaderValue::from_static(coding),
        );
        req
    }

    fn body(resp: &hyper::Response<Full<Bytes>>) -> Bytes {
        use http_body_util::BodyExt as _;
        let mut body = resp.body().clone();
        let frame = futures::executor::block_on(body.frame());
        frame
            .and_then(|f| f.ok())
            .and_then(|f| f.into_data().ok())
            .unwrap_or_default()
    }

    #[test]
    fn text_is_kept_compressed_and_each_coding_has_its_tag() {
        let plain = answer(PAGE, &HeaderMap::new()).expect("embedded");
        assert_eq!(plain.headers().get(CONTENT_ENCODING), None);
        assert_eq!(plain.headers()[VARY], "Accept-Encoding");
        let mut tags = vec![plain.headers()[ETAG].clone()];
        for (accept, token, suffix) in [("gzip", "gzip", "-gz\""), ("br, gzip", "br", "-br\"")] {
            let resp = answer(PAGE, &accepting(accept)).expect("embedded");
            assert_eq!(resp.headers()[CONTENT_ENCODING], token, "{accept}");
            assert_eq!(resp.headers()[VARY], "Accept-Encoding");
            let tag = resp.headers()[ETAG].clone();
            assert!(tag.to_str().expect("ascii").ends_with(suffix), "{tag:?}");
            assert!(body(&resp).len() < body(&plain).len(), "{accept}");
            tags.push(tag);
        }
        tags.dedup();
        assert_eq!(tags.len(), 3, "{tags:?}");

        // Any coding's tag is the same content: 304, with the tag of the coding asked for now.
        for tag in &tags {
            let mut req = accepting("gzip");
            req.insert(IF_NONE_MATCH, tag.clone());
            let resp = answer(PAGE, &req).expect("embedded");
            assert_eq!(resp.status(), StatusCode::NOT_MODIFIED, "{tag:?}");
            assert_eq!(resp.headers()[ETAG], tags[1]);
            assert_eq!(resp.headers()[VARY], "Accept-Encoding");
            assert_eq!(resp.headers().get(CONTENT_ENCODING), None);
        }
    }

    #[test]
    fn brotli_and_gzip_give_back_the_file() {
        use std::io::Read as _;
        let plain = body(&answer("assets/state.js", &HeaderMap::new()).expect("embedded"));
        let br = body(&answer("assets/state.js", &accepting("br")).expect("embedded"));
        let mut out = Vec::new();
        brotli::Decompressor::new(&br[..], 4096)
            .read_to_end(&mut out)
            .expect("valid brotli");
        assert_eq!(out, plain);
        let gz = body(&answer("assets/state.js", &accepting("gzip")).expect("embedded"));
        out.clear();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut out)
            .expect("valid gzip");
        assert_eq!(out, plain);
    }

    #[test]
    fn only_text_is_compressed_and_only_when_smaller() {
        assert!(is_text("a.html") && is_text("b/c.JS") && is_text("m.webmanifest"));
        assert!(is_text("x.svg") && is_text("x.json") && is_text("x.css"));
        assert!(!is_text("x.png") && !is_text("x.ico") && !is_text("noext"));

        let tiny = File::new("x.js", Bytes::from_static(b"1"), [7; 32]);
        assert!(tiny.br.is_none() && tiny.gzip.is_none() && !tiny.varies());
        let png = File::new("x.png", Bytes::from(vec![0u8; 4096]), [7; 32]);
        assert!(png.br.is_none() && png.gzip.is_none());
        let js = File::new("x.js", Bytes::from(vec![b'a'; 4096]), [7; 32]);
        assert!(js.varies());
        assert_eq!(js.etags().count(), 3);
    }
}
