//! The moderators' API (A8) under `/api/admin/`: flagged results, players' reports, bans.
//!
//! Without `--admin-token-file` none of it exists: every path answers 404 like any unknown
//! route, so a scan cannot tell that the server has an admin API at all. With it, every
//! request needs `Authorization: Bearer TOKEN` ([`AdminToken::admits`], constant time);
//! anything else is 401 before the path is even looked at. The token is never logged, never
//! counted in a metric and never echoed: a refusal logs that it happened, not what was sent.

use std::sync::Arc;

use hyper::header::{HeaderValue, ALLOW, WWW_AUTHENTICATE};
use hyper::{Method, StatusCode};
use serde::Serialize;

use super::params::{self, Query};
use super::{error, json, Response};
use crate::config::AdminToken;
use crate::store::{FlaggedResult, ReportRecord, Store, StoreError};

/// An admin path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Admin<'a> {
    /// `GET /api/admin/flags`.
    Flags,
    /// `GET /api/admin/reports`.
    Reports,
    /// `POST /api/admin/players/HANDLE/ban` (`true`) or `/unban` (`false`).
    Ban(&'a str, bool),
}

impl Admin<'_> {
    fn of(path: &str) -> Option<Admin<'_>> {
        let rest = path.strip_prefix("/api/admin/")?;
        let parts: Vec<&str> = rest.split('/').collect();
        match parts.as_slice() {
            ["flags"] => Some(Admin::Flags),
            ["reports"] => Some(Admin::Reports),
            ["players", h, "ban"] if !h.is_empty() => Some(Admin::Ban(h, true)),
            ["players", h, "unban"] if !h.is_empty() => Some(Admin::Ban(h, false)),
            _ => None,
        }
    }

    fn method(self) -> (Method, &'static str) {
        match self {
            Admin::Flags | Admin::Reports => (Method::GET, "GET, HEAD"),
            Admin::Ban(..) => (Method::POST, "POST"),
        }
    }
}

/// Whether `path` is the admin API's (`/api/admin` and under).
pub fn is_admin(path: &str) -> bool {
    path == "/api/admin" || path.starts_with("/api/admin/")
}

/// The bearer token of an `Authorization` header, if it is one.
fn bearer(header: Option<&HeaderValue>) -> Option<&str> {
    let value = header?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then_some(token.trim())
}

/// Answer an admin request. `token` is the server's (`None`: no admin API, 404);
/// `authorization` the request's header.
pub async fn route(
    method: &Method,
    path: &str,
    query: Option<&str>,
    authorization: Option<&HeaderValue>,
    token: Option<&AdminToken>,
    store: &Arc<dyn Store>,
) -> Response {
    let Some(token) = token else {
        return error(StatusCode::NOT_FOUND, "no such API route");
    };
    if !bearer(authorization).is_some_and(|offered| token.admits(offered)) {
        tracing::warn!(path, "admin: refused a request without the admin token");
        let mut resp = error(
            StatusCode::UNAUTHORIZED,
            "the admin API needs its bearer token",
        );
        resp.headers_mut()
            .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return resp;
    }
    let Some(admin) = Admin::of(path) else {
        return error(StatusCode::NOT_FOUND, "no such API route");
    };
    let (wanted, allow) = admin.method();
    let head_for_get = wanted == Method::GET && *method == Method::HEAD;
    if *method != wanted && !head_for_get {
        let mut resp = error(
            StatusCode::METHOD_NOT_ALLOWED,
            "wrong method for this route",
        );
        resp.headers_mut()
            .insert(ALLOW, HeaderValue::from_static(allow));
        return resp;
    }
    match answer(admin, query, store).await {
        Ok(body) => json(StatusCode::OK, body),
        Err((status, why)) => error(status, &why),
    }
}

/// `/api/admin/flags`.
#[derive(Serialize)]
struct Flags {
    flags: Vec<FlagLine>,
}

#[derive(Serialize)]
struct FlagLine {
    race_id: String,
    room: String,
    difficulty: String,
    player_id: String,
    handle: Option<String>,
    name: String,
    flags: Vec<String>,
    status: String,
    time_ms: Option<u64>,
    finished_unix_ms: i64,
}

impl From<FlaggedResult> for FlagLine {
    fn from(f: FlaggedResult) -> FlagLine {
        FlagLine {
            race_id: f.race_id,
            room: f.room,
            difficulty: f.difficulty,
            player_id: f.player_id,
            handle: f.handle,
            name: f.name,
            flags: f.flags,
            status: f.status,
            time_ms: f.time_ms,
            finished_unix_ms: f.finished_unix_ms,
        }
    }
}

/// `/api/admin/reports`.
#[derive(Serialize)]
struct Reports {
    reports: Vec<ReportLine>,
}

#[derive(Serialize)]
struct ReportLine {
    race_id: String,
    room: String,
    reporter_handle: Option<String>,
    reporter_name: String,
    player_id: String,
    handle: Option<String>,
    name: String,
    reason: String,
    created_unix_ms: i64,
}

impl From<ReportRecord> for ReportLine {
    fn from(r: ReportRecord) -> ReportLine {
        ReportLine {
            race_id: r.race_id,
            room: r.room,
            reporter_handle: r.reporter_handle,
            reporter_name: r.reporter_name,
            player_id: r.target,
            handle: r.target_handle,
            name: r.target_name,
            reason: r.reason,
            created_unix_ms: r.created_unix_ms,
        }
    }
}

/// A ban's answer.
#[derive(Serialize)]
struct Banned<'a> {
    handle: &'a str,
    banned: bool,
}

type Refused = (StatusCode, String);

/// What to do on the blocking thread, owned.
enum Job {
    Flags,
    Reports,
    Ban(String, bool),
}

/// The store's part, on a blocking thread.
async fn answer(
    admin: Admin<'_>,
    query: Option<&str>,
    store: &Arc<dyn Store>,
) -> Result<String, Refused> {
    let bad = |why: String| (StatusCode::BAD_REQUEST, why);
    let q = Query::parse(query).map_err(bad)?;
    let (limit, offset) = (q.limit().map_err(bad)?, q.offset().map_err(bad)?);
    let job = match admin {
        Admin::Flags => Job::Flags,
        Admin::Reports => Job::Reports,
        Admin::Ban(h, banned) => Job::Ban(params::handle(h).map_err(bad)?.to_owned(), banned),
    };
    let store = store.clone();
    let done =
        tokio::task::spawn_blocking(move || -> Result<Result<String, Refused>, StoreError> {
            Ok(Ok(match job {
                Job::Flags => {
                    let flags = store.flagged(limit, offset)?;
                    text(&Flags {
                        flags: flags.into_iter().map(FlagLine::from).collect(),
                    })
                }
                Job::Reports => {
                    let reports = store.reports(limit, offset)?;
                    text(&Reports {
                        reports: reports.into_iter().map(ReportLine::from).collect(),
                    })
                }
                Job::Ban(handle, banned) => {
                    if !store.set_banned(&handle, banned)? {
                        return Ok(Err((StatusCode::NOT_FOUND, "no such player".into())));
                    }
                    tracing::info!(%handle, banned, "admin: ban changed");
                    text(&Banned {
                        handle: &handle,
                        banned,
                    })
                }
            }))
        })
        .await;
    match done {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => {
            tracing::error!(error = %e, "admin: the store failed");
            Err((StatusCode::INTERNAL_SERVER_ERROR, "internal".into()))
        }
        Err(e) => {
            tracing::error!(error = %e, "admin: the store task panicked");
            Err((StatusCode::INTERNAL_SERVER_ERROR, "internal".into()))
        }
    }
}

/// An answer as JSON: our own structs of strings and numbers, which cannot fail to serialize
/// (if one ever did, the client gets the contract's error shape, not a panic).
fn text(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| r#"{"error":"internal"}"#.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admin_paths_and_bearer_headers() {
        assert_eq!(Admin::of("/api/admin/flags"), Some(Admin::Flags));
        assert_eq!(Admin::of("/api/admin/reports"), Some(Admin::Reports));
        assert_eq!(
            Admin::of("/api/admin/players/hA/ban"),
            Some(Admin::Ban("hA", true))
        );
        assert_eq!(
            Admin::of("/api/admin/players/hA/unban"),
            Some(Admin::Ban("hA", false))
        );
        for none in [
            "/api/admin",
            "/api/admin/",
            "/api/admin/players//ban",
            "/api/admin/flags/",
        ] {
            assert_eq!(Admin::of(none), None, "{none}");
        }
        assert!(is_admin("/api/admin") && is_admin("/api/admin/x") && !is_admin("/api/administer"));
        let h = |s: &'static str| HeaderValue::from_static(s);
        assert_eq!(bearer(Some(&h("Bearer abc"))), Some("abc"));
        assert_eq!(bearer(Some(&h("bearer abc"))), Some("abc"));
        assert_eq!(bearer(Some(&h("Basic abc"))), None);
        assert_eq!(bearer(Some(&h("abc"))), None);
        assert_eq!(bearer(None), None);
    }
}
