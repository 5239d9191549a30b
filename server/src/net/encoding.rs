//! Content-coding negotiation: which of the codings the server keeps a file in (`br`, `gzip`,
//! none) a request's `Accept-Encoding` takes (RFC 9110 §12.5.3). Knows nothing of files; the
//! compression itself is [`super::assets`]'s.

use hyper::header::{HeaderMap, ACCEPT_ENCODING};

/// A content coding the server can answer in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    /// Brotli (`br`): the smallest, preferred.
    Br,
    /// `gzip` (and its old name `x-gzip`).
    Gzip,
    /// The file as it is.
    Identity,
}

impl Coding {
    /// The `Content-Encoding` token (`None` for identity, which is never named there).
    pub fn token(self) -> Option<&'static str> {
        match self {
            Coding::Br => Some("br"),
            Coding::Gzip => Some("gzip"),
            Coding::Identity => None,
        }
    }
}

/// The q-values (in thousandths, 0..=1000) a request gives `br`, `gzip` and identity; `None`
/// where it says nothing of one, not even through `*`.
#[derive(Debug, Default, PartialEq, Eq)]
struct Weights {
    br: Option<u16>,
    gzip: Option<u16>,
    identity: Option<u16>,
}

/// Parse a q-value (`1`, `0.5`, `1.000`; at most three decimals) to thousandths.
fn qvalue(s: &str) -> Option<u16> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac_value = frac.bytes().enumerate().fold(0u16, |acc, (i, b)| {
        acc + u16::from(b - b'0') * [100, 10, 1][i]
    });
    match int {
        "0" => Some(frac_value),
        "1" if frac_value == 0 => Some(1000),
        _ => None,
    }
}

/// The weights of every `Accept-Encoding` header (each a list). An element whose q-value does
/// not parse is skipped; an explicit name wins over `*` whatever the order.
fn weights(request: &HeaderMap) -> Weights {
    let (mut named, mut star) = (Weights::default(), None);
    let elements = request
        .get_all(ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','));
    for element in elements {
        let mut parts = element.split(';').map(str::trim);
        let name = parts.next().unwrap_or("");
        let mut q = Some(1000);
        for param in parts {
            if let Some((key, value)) = param.split_once('=') {
                if key.trim().eq_ignore_ascii_case("q") {
                    q = qvalue(value.trim());
                }
            }
        }
        let Some(q) = q else { continue };
        let slot = match name.to_ascii_lowercase().as_str() {
            "br" => &mut named.br,
            "gzip" | "x-gzip" => &mut named.gzip,
            "identity" => &mut named.identity,
            "*" => &mut star,
            _ => continue,
        };
        // Named twice: the higher weight stands.
        *slot = Some(slot.map_or(q, |old| old.max(q)));
    }
    Weights {
        br: named.br.or(star),
        gzip: named.gzip.or(star),
        identity: named.identity.or(star),
    }
}

/// The coding to answer in, among those the file is kept in (`has_br`, `has_gzip`; identity
/// always): the acceptable one with the highest q-value, `br` before `gzip` before identity on
/// a tie. No header means identity; a coding with `q=0` is refused. Identity is the answer
/// when nothing else is acceptable, even if refused too (a file is better than a 406).
pub fn negotiate(request: &HeaderMap, has_br: bool, has_gzip: bool) -> Coding {
    let w = weights(request);
    // Identity is acceptable unless refused; unnamed, it loses every tie with a named coding.
    let mut best = (Coding::Identity, w.identity.unwrap_or(0));
    for (coding, kept, q) in [(Coding::Gzip, has_gzip, w.gzip), (Coding::Br, has_br, w.br)] {
        match q {
            Some(q) if kept && q > 0 && q >= best.1 => best = (coding, q),
            _ => {}
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use hyper::header::HeaderValue;

    use super::*;

    #[track_caller]
    fn check(accept: &[&str], expected: Coding) {
        check_kept(accept, (true, true), expected);
    }

    #[track_caller]
    fn check_kept(accept: &[&str], (br, gzip): (bool, bool), expected: Coding) {
        let mut headers = HeaderMap::new();
        for value in accept {
            headers.append(
                ACCEPT_ENCODING,
                HeaderValue::from_str(value).expect("a header value"),
            );
        }
        assert_eq!(negotiate(&headers, br, gzip), expected, "{accept:?}");
    }

    #[test]
    fn browsers_get_brotli() {
        check(&["gzip, deflate, br, zstd"], Coding::Br);
        check(&["gzip, deflate, br"], Coding::Br);
        check(&["br;q=1.0, gzip;q=0.8, *;q=0.1"], Coding::Br);
        check(&["gzip", "br"], Coding::Br);
        check(&["BR"], Coding::Br);
    }

    #[test]
    fn gzip_without_brotli() {
        check(&["gzip, deflate"], Coding::Gzip);
        check(&["x-gzip"], Coding::Gzip);
        check(&["gzip;q=1, br;q=0.5"], Coding::Gzip);
        check(&["br;q=0, gzip"], Coding::Gzip);
        check(&["br ; q=0 , gzip ; q=0.001"], Coding::Gzip);
        check_kept(&["br, gzip"], (false, true), Coding::Gzip);
    }

    #[test]
    fn identity_when_nothing_else_fits() {
        check(&[], Coding::Identity);
        check(&[""], Coding::Identity);
        check(&["identity"], Coding::Identity);
        check(&["deflate, zstd"], Coding::Identity);
        check(&["br;q=0, gzip;q=0"], Coding::Identity);
        check(&["br;q=0.000"], Coding::Identity);
        check(&["*;q=0"], Coding::Identity);
        check(&["identity;q=1, gzip;q=0.5"], Coding::Identity);
        check_kept(&["br, gzip"], (false, false), Coding::Identity);
        check_kept(&["br"], (false, true), Coding::Identity);
    }

    #[test]
    fn the_star_stands_for_what_is_not_named() {
        check(&["*"], Coding::Br);
        check(&["*;q=0.5, br;q=0"], Coding::Gzip);
        check(&["br;q=0, *"], Coding::Gzip);
        check(&["gzip;q=0.9, *;q=0.1"], Coding::Gzip);
        check(&["identity;q=0, *;q=0"], Coding::Identity);
    }

    #[test]
    fn bad_q_values_skip_their_element() {
        check(&["br;q=2, gzip"], Coding::Gzip);
        check(&["br;q=0.5x, gzip;q=0.1"], Coding::Gzip);
        check(&["br;q=0.0001, gzip;q=0.1"], Coding::Gzip);
        check(&["br;q=, gzip;q=-1"], Coding::Identity);
        // A refusal that does not parse refuses nothing.
        check(&["br;q=zero"], Coding::Identity);
        check(&["gzip;level=9"], Coding::Gzip);
    }

    #[test]
    fn q_values_parse() {
        for (s, q) in [
            ("1", Some(1000)),
            ("1.", Some(1000)),
            ("1.000", Some(1000)),
            ("0", Some(0)),
            ("0.5", Some(500)),
            ("0.25", Some(250)),
            ("0.125", Some(125)),
            ("1.001", None),
            ("0.1234", None),
            ("2", None),
            ("", None),
            (".5", None),
            ("0.-1", None),
        ] {
            assert_eq!(qvalue(s), q, "{s}");
        }
    }
}
