//! The HTTP JSON API of Amendment A6 under `/api/`: leaderboards, player pages and histories,
//! replays of finished races, the daily boards, and the OpenAPI document that describes them
//! (`openapi.json`, embedded). This module owns the paths and what each asks of the store;
//! [`params`] checks what the client sent, [`body`] shapes the answers.
//!
//! The store blocks, so every read runs under `spawn_blocking`. Only finished races are in the
//! store (a race is written at `race_over`), so no answer shows a race in progress, and no store
//! query returns a key or its hash, so none can leak here. Every answer is JSON with
//! `Cache-Control: no-store` (boards change with every race).

pub mod admin;
pub mod body;
pub mod params;
pub mod tv;

use std::sync::Arc;

use engine::Difficulty;
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::header::{HeaderValue, ALLOW, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Method, StatusCode};
use serde::Serialize;

use crate::arena::Arenas;
use crate::room::directory::Directory;
use crate::store::period::utc_date;
use crate::store::{Store, StoreError};
use params::{PlayerRef, Query};

/// The OpenAPI 3.0 description of every route here.
pub const OPENAPI: &str = include_str!("openapi.json");

/// An answer (the same type as the router's, built here so this module needs nothing of it).
pub type Response = hyper::Response<Full<Bytes>>;

/// Rows per difficulty on `/api/daily`.
const DAILY_ROWS: u32 = 20;

/// An API path, with the ids it carries still as sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint<'a> {
    /// `/api/leaderboard`.
    Leaderboard,
    /// `/api/players/HANDLE`.
    Player(&'a str),
    /// `/api/players/HANDLE/races`.
    History(&'a str),
    /// `/api/races/RACE_ID`.
    Race(&'a str),
    /// `/api/daily`.
    Daily,
    /// `/api/openapi.json`.
    OpenApi,
    /// `/api/arenas` (A7).
    Arenas,
    /// `/api/arenas/ARENA_ID` (A7).
    Arena(&'a str),
    /// `/api/tv` (A8).
    Tv,
}

impl Endpoint<'_> {
    /// The endpoint of `path` (which starts `/api`), or `None` for an unknown one.
    pub fn of(path: &str) -> Option<Endpoint<'_>> {
        let rest = path.strip_prefix("/api/")?;
        let parts: Vec<&str> = rest.split('/').collect();
        match parts.as_slice() {
            ["leaderboard"] => Some(Endpoint::Leaderboard),
            ["daily"] => Some(Endpoint::Daily),
            ["openapi.json"] => Some(Endpoint::OpenApi),
            ["arenas"] => Some(Endpoint::Arenas),
            ["tv"] => Some(Endpoint::Tv),
            ["arenas", id] if !id.is_empty() => Some(Endpoint::Arena(id)),
            ["players", h] if !h.is_empty() => Some(Endpoint::Player(h)),
            ["players", h, "races"] if !h.is_empty() => Some(Endpoint::History(h)),
            ["races", id] if !id.is_empty() => Some(Endpoint::Race(id)),
            _ => None,
        }
    }
}

/// A checked request: what to read from the store.
#[derive(Clone, Debug, PartialEq)]
enum Read {
    Leaderboard {
        difficulty: Difficulty,
        period: crate::store::Period,
        limit: u32,
        offset: u32,
    },
    Player(PlayerRef),
    History {
        player: PlayerRef,
        limit: u32,
        offset: u32,
    },
    Race(String),
    Daily,
    Arena(String),
}

/// Why there is no 200.
#[derive(Debug)]
enum Failure {
    /// 400: a parameter or id the client got wrong.
    Bad(String),
    /// 404: no such player or race.
    NotFound(&'static str),
    /// 409: a name that more than one player goes by; their handles.
    Ambiguous(Vec<String>),
    /// 500: the store failed, or its task did (logged where it happened).
    Internal,
}

impl From<params::Refusal> for Failure {
    fn from(why: params::Refusal) -> Self {
        Failure::Bad(why)
    }
}

/// Answer a request whose path starts with `/api`.
pub async fn route(
    method: &Method,
    path: &str,
    query: Option<&str>,
    store: &Arc<dyn Store>,
    arenas: &Arenas,
    directory: &Directory,
    now_unix_ms: i64,
) -> Response {
    let Some(endpoint) = Endpoint::of(path) else {
        return error(StatusCode::NOT_FOUND, "no such API route");
    };
    if !matches!(*method, Method::GET | Method::HEAD) {
        let mut resp = error(
            StatusCode::METHOD_NOT_ALLOWED,
            "the API is GET and HEAD only",
        );
        resp.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return resp;
    }
    let read = match endpoint {
        Endpoint::OpenApi => return json(StatusCode::OK, OPENAPI),
        // Races in progress live in this node's directory, not the store.
        Endpoint::Tv => {
            return match tv::strongest(directory.rooms()) {
                Some(room) => answer(serde_json::to_string(&tv::Tv { room })),
                None => error(StatusCode::NOT_FOUND, "no public race is running"),
            };
        }
        // Arenas live in this node's memory, not the store.
        Endpoint::Arenas => {
            let list = body::Arenas {
                arenas: arenas.list(),
            };
            return answer(serde_json::to_string(&list));
        }
        // One this node runs or keeps in memory; an older one from the store.
        Endpoint::Arena(id) => match arenas.get(id) {
            Some((arena, standings)) => {
                return answer(serde_json::to_string(&body::Arena { arena, standings }))
            }
            None => check(endpoint, query),
        },
        e => check(e, query),
    };
    let result = match read {
        Ok(read) => fetch(store, read, now_unix_ms).await,
        Err(f) => Err(f),
    };
    match result {
        Ok(body) => json(StatusCode::OK, body),
        Err(Failure::Bad(why)) => error(StatusCode::BAD_REQUEST, &why),
        Err(Failure::NotFound(what)) => error(StatusCode::NOT_FOUND, what),
        Err(Failure::Ambiguous(handles)) => {
            let body = body::Ambiguous {
                error: format!(
                    "more than one player goes by that name ({}): ask by handle",
                    handles.join(", ")
                ),
                handles,
            };
            match serde_json::to_string(&body) {
                Ok(body) => json(StatusCode::CONFLICT, body),
                Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal"),
            }
        }
        Err(Failure::Internal) => error(StatusCode::INTERNAL_SERVER_ERROR, "internal"),
    }
}

/// Check every parameter of `endpoint` (unknown ones are ignored).
fn check(endpoint: Endpoint<'_>, query: Option<&str>) -> Result<Read, Failure> {
    let q = Query::parse(query)?;
    Ok(match endpoint {
        Endpoint::Leaderboard => Read::Leaderboard {
            difficulty: q.difficulty()?,
            period: q.period()?,
            limit: q.limit()?,
            offset: q.offset()?,
        },
        Endpoint::Player(p) => Read::Player(params::player(p)?),
        Endpoint::History(p) => Read::History {
            player: params::player(p)?,
            limit: q.limit()?,
            offset: q.offset()?,
        },
        Endpoint::Race(id) => Read::Race(params::race_id(id)?.to_owned()),
        Endpoint::Daily => Read::Daily,
        // Answered before any check: they have no parameters and need no store.
        Endpoint::Arena(id) => Read::Arena(params::race_id(id)?.to_owned()),
        Endpoint::OpenApi | Endpoint::Arenas | Endpoint::Tv => {
            return Err(Failure::NotFound("no such API route"))
        }
    })
}

/// Read from the store on a blocking thread and serialize the answer.
async fn fetch(store: &Arc<dyn Store>, read: Read, now_unix_ms: i64) -> Result<String, Failure> {
    let store = store.clone();
    let what = format!("{read:?}");
    let done = tokio::task::spawn_blocking(move || read_store(&*store, read, now_unix_ms)).await;
    match done {
        Ok(Ok(body)) => Ok(body),
        Ok(Err(Fetch::Failure(f))) => Err(f),
        Ok(Err(Fetch::Store(e))) => {
            tracing::error!(error = %e, read = %what, "api: the store failed");
            Err(Failure::Internal)
        }
        Err(e) => {
            tracing::error!(error = %e, read = %what, "api: the store task panicked");
            Err(Failure::Internal)
        }
    }
}

/// What can go wrong on the blocking thread.
enum Fetch {
    Failure(Failure),
    Store(StoreError),
}

impl From<StoreError> for Fetch {
    fn from(e: StoreError) -> Self {
        Fetch::Store(e)
    }
}

/// The blocking part of [`fetch`].
fn read_store(store: &dyn Store, read: Read, now_unix_ms: i64) -> Result<String, Fetch> {
    match read {
        Read::Leaderboard {
            difficulty,
            period,
            limit,
            offset,
        } => {
            let rows = store.leaderboard(difficulty, period, now_unix_ms, limit, offset)?;
            to_json(&body::Leaderboard {
                difficulty: difficulty.as_str(),
                period: period.as_str(),
                rows: rows.into_iter().map(body::LeaderLine::from).collect(),
            })
        }
        Read::Player(player) => {
            let page = find_player(store, &player)?;
            to_json(&body::Player::from(page))
        }
        Read::History {
            player,
            limit,
            offset,
        } => {
            // An empty history and an unknown player look alike to `history`: ask first.
            let handle = find_player(store, &player)?.handle;
            let rows = store.history(&handle, limit, offset)?;
            to_json(&body::History {
                handle,
                races: rows.into_iter().map(body::HistoryLine::from).collect(),
            })
        }
        Read::Race(id) => {
            let replay = store
                .replay(&id)?
                .ok_or(Fetch::Failure(Failure::NotFound("no such race")))?;
            to_json(&body::Race::from(replay))
        }
        Read::Arena(id) => {
            let kept = store
                .arena(&id)?
                .ok_or(Fetch::Failure(Failure::NotFound("no such arena")))?;
            to_json(&body::Arena {
                arena: kept.info,
                standings: kept.standings,
            })
        }
        Read::Daily => {
            let date = utc_date(now_unix_ms);
            let board = |d| -> Result<Vec<body::DailyLine>, StoreError> {
                let rows = store.daily_board(&date, d, DAILY_ROWS, 0)?;
                Ok(rows.into_iter().map(body::DailyLine::from).collect())
            };
            let boards = body::DailyBoards {
                easy: board(Difficulty::Easy)?,
                medium: board(Difficulty::Medium)?,
                hard: board(Difficulty::Hard)?,
                expert: board(Difficulty::Expert)?,
            };
            to_json(&body::Daily { date, boards })
        }
    }
}

/// The player a path names (A8): a handle-shaped one as a handle first; otherwise, or when no
/// player has that handle, the one player going by that name. Several: 409 with their handles;
/// none: 404.
fn find_player(store: &dyn Store, player: &PlayerRef) -> Result<crate::store::PlayerPage, Fetch> {
    let no_player = || Fetch::Failure(Failure::NotFound("no such player"));
    let name = match player {
        PlayerRef::Handle(h) => {
            if let Some(page) = store.player(h)? {
                return Ok(page);
            }
            h
        }
        PlayerRef::Name(n) => n,
    };
    let mut handles = store.handles_named(name)?;
    match handles.len() {
        0 => Err(no_player()),
        1 => {
            let handle = handles.remove(0);
            store.player(&handle)?.ok_or_else(no_player)
        }
        _ => Err(Fetch::Failure(Failure::Ambiguous(handles))),
    }
}

fn to_json(value: &impl Serialize) -> Result<String, Fetch> {
    // Our own structs of strings and numbers: serializing them cannot fail, but if it ever
    // did, a 500 is the honest answer.
    serde_json::to_string(value).map_err(|e| Fetch::Store(StoreError::Backend(Box::new(e))))
}

/// 200 with `body`, or a 500 if it could not be serialized.
fn answer(body: serde_json::Result<String>) -> Response {
    match body {
        Ok(body) => json(StatusCode::OK, body),
        Err(e) => {
            tracing::error!(error = %e, "api: an answer did not serialize");
            error(StatusCode::INTERNAL_SERVER_ERROR, "internal")
        }
    }
}

/// A JSON answer that no cache keeps.
pub(super) fn json(status: StatusCode, body: impl Into<Bytes>) -> Response {
    let mut resp = hyper::Response::new(Full::new(body.into()));
    *resp.status_mut() = status;
    let headers = resp.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    resp
}

/// `{"error": why}` with `status`.
pub(super) fn error(status: StatusCode, why: &str) -> Response {
    let body = serde_json::to_string(&body::Error { error: why })
        .unwrap_or_else(|_| r#"{"error":"internal"}"#.to_owned());
    json(status, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_path(path: &str, expected: Option<Endpoint>) {
        assert_eq!(Endpoint::of(path), expected, "{path}");
    }

    #[test]
    fn paths() {
        check_path("/api/leaderboard", Some(Endpoint::Leaderboard));
        check_path("/api/daily", Some(Endpoint::Daily));
        check_path("/api/openapi.json", Some(Endpoint::OpenApi));
        check_path("/api/tv", Some(Endpoint::Tv));
        check_path("/api/players/hX", Some(Endpoint::Player("hX")));
        check_path("/api/players/hX/races", Some(Endpoint::History("hX")));
        check_path("/api/races/AB-1", Some(Endpoint::Race("AB-1")));
        for unknown in [
            "/api",
            "/api/",
            "/api/players",
            "/api/players/",
            "/api/players//races",
            "/api/players/hX/races/",
            "/api/races/",
            "/api/leaderboard/",
            "/api/x",
        ] {
            check_path(unknown, None);
        }
    }

    #[test]
    fn the_openapi_document_is_json() {
        let doc: serde_json::Value = serde_json::from_str(OPENAPI).expect("openapi.json parses");
        assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
    }

    #[test]
    fn checks_before_reading() {
        assert!(matches!(
            check(Endpoint::Leaderboard, Some("limit=101")),
            Err(Failure::Bad(_))
        ));
        assert!(matches!(
            check(Endpoint::Player("a%0Ab"), None),
            Err(Failure::Bad(_))
        ));
        assert_eq!(
            check(Endpoint::Player("nope"), None).ok(),
            Some(Read::Player(PlayerRef::Name("nope".into())))
        );
        assert_eq!(
            check(Endpoint::History("hABC"), Some("offset=3&other=x")).ok(),
            Some(Read::History {
                player: PlayerRef::Handle("hABC".into()),
                limit: params::DEFAULT_LIMIT,
                offset: 3
            })
        );
    }
}
