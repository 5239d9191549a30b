//! The client's address for the rooms-per-address limit and the logs: the TCP peer, or, behind
//! a reverse proxy that the operator trusts (`--trust-proxy`), the address the proxy appended
//! to `X-Forwarded-For` (the right-most entry: those left of it are the client's own say) or,
//! failing that, the last `for=` of `Forwarded` (RFC 7239). Never from headers without the flag:
//! anyone could claim any address.

use std::net::{IpAddr, SocketAddr};

use hyper::header::{HeaderMap, FORWARDED};

/// The client's address.
pub fn client_ip(peer: SocketAddr, headers: &HeaderMap, trust_proxy: bool) -> IpAddr {
    if !trust_proxy {
        return peer.ip();
    }
    forwarded_for(headers)
        .or_else(|| forwarded(headers))
        .unwrap_or_else(|| peer.ip())
}

/// The right-most address of every `X-Forwarded-For` header, read in order.
fn forwarded_for(headers: &HeaderMap) -> Option<IpAddr> {
    let last = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .rfind(|s| !s.is_empty())?;
    parse_node(last)
}

/// The last `for=` of every `Forwarded` header, read in order.
fn forwarded(headers: &HeaderMap) -> Option<IpAddr> {
    let last = headers
        .get_all(FORWARDED)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split([',', ';']))
        .filter_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            k.trim().eq_ignore_ascii_case("for").then_some(v.trim())
        })
        .next_back()?;
    parse_node(last)
}

/// An address as proxies write it: `192.0.2.1`, `192.0.2.1:4711`, `"[2001:db8::1]:4711"`,
/// `2001:db8::1`. Obfuscated names (`unknown`, `_hidden`) are `None`.
fn parse_node(s: &str) -> Option<IpAddr> {
    let s = s.trim_matches('"');
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sa) = s.parse::<SocketAddr>() {
        return Some(sa.ip());
    }
    let inner = s.strip_prefix('[')?.split(']').next()?;
    inner.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    #[track_caller]
    fn check(headers: &[(&'static str, &str)], trust: bool, expected: &str) {
        let mut h = HeaderMap::new();
        for (k, v) in headers {
            h.append(*k, HeaderValue::from_str(v).expect("a header value"));
        }
        let peer: SocketAddr = "10.0.0.9:5000".parse().expect("an address");
        let expected: IpAddr = expected.parse().expect("an address");
        assert_eq!(client_ip(peer, &h, trust), expected, "{headers:?}");
    }

    #[test]
    fn proxy_headers_only_when_trusted() {
        check(&[("x-forwarded-for", "1.2.3.4")], false, "10.0.0.9");
        check(&[("x-forwarded-for", "1.2.3.4")], true, "1.2.3.4");
        check(&[("x-forwarded-for", "6.6.6.6, 1.2.3.4")], true, "1.2.3.4");
        check(
            &[
                ("x-forwarded-for", "6.6.6.6"),
                ("x-forwarded-for", "5.5.5.5"),
            ],
            true,
            "5.5.5.5",
        );
        check(&[("x-forwarded-for", "garbage")], true, "10.0.0.9");
        check(
            &[("forwarded", "for=192.0.2.60;proto=http;by=203.0.113.43")],
            true,
            "192.0.2.60",
        );
        check(
            &[("forwarded", "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\"")],
            true,
            "2001:db8:cafe::17",
        );
        check(
            &[("forwarded", "for=\"192.0.2.43:47011\"")],
            true,
            "192.0.2.43",
        );
        check(&[("forwarded", "for=unknown")], true, "10.0.0.9");
        check(&[], true, "10.0.0.9");
    }
}
