//! The HTTP face on the WebSocket port: one router ([`route`]) from path and method to an
//! answer, so later routes (`/api/…`) are a variant and an arm each. `/ws` and `/r/CODE` upgrade
//! to WebSocket ([`super::upgrade`]); a plain GET of `/` or `/r/CODE` gets the browser client's
//! page, `/assets/…` its files ([`super::assets`]) and `/sw.js` its service worker (at the root,
//! so its scope is the whole site) — a WebSocket upgrade on any other
//! path is 404, never the page; `/api/…` is the JSON API ([`super::api`],
//! async: it reads the store); `/healthz` and `/metrics` answer here; unknown paths get 404,
//! wrong methods 405. HEAD is GET without a body (hyper drops it).

use hyper::body::Incoming;
use hyper::header::{HeaderValue, ALLOW};
use hyper::{Method, StatusCode};

use super::reply::{answer, error, Response, Socket};
use super::{api, assets, upgrade};

/// The service worker's embedded name (public/sw.js).
const WORKER: &str = "sw.js";

/// Where a request goes, by its path alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route<'a> {
    /// `/`: the browser client's page.
    Page,
    /// `/assets/…`: one of the page's files, by its embedded name (`assets/app.js`); only clean
    /// names ([`assets::is_clean`]) get here.
    Asset(&'a str),
    /// `/sw.js`: the page's service worker (public/sw.js). Served from the root rather than
    /// under `/assets/`, because a worker controls only the pages under its own path.
    Worker,
    /// `/ws`: the WebSocket upgrade.
    Ws,
    /// `/r/CODE`, an invite link (Amendment A5): upgrades like `/ws`; a plain GET gets the page.
    Invite,
    /// `/healthz`.
    Healthz,
    /// `/metrics`.
    Metrics,
    /// `/api` and everything under `/api/`: the JSON API, which answers its own 404s and 405s
    /// (in JSON).
    Api,
    /// Anything else: 404.
    NotFound,
}

impl Route<'_> {
    /// The route of a request path (without its query).
    pub fn of(path: &str) -> Route<'_> {
        let asset = path.strip_prefix('/').filter(|name| {
            name.strip_prefix(assets::ASSETS_DIR)
                .is_some_and(assets::is_clean)
        });
        if let Some(name) = asset {
            return Route::Asset(name);
        }
        match path {
            "/" => Route::Page,
            "/sw.js" => Route::Worker,
            "/ws" => Route::Ws,
            "/healthz" => Route::Healthz,
            "/metrics" => Route::Metrics,
            p if p == "/api" || p.starts_with("/api/") => Route::Api,
            p if p
                .strip_prefix("/r/")
                .is_some_and(|code| protocol::RoomCode::try_from(code).is_ok()) =>
            {
                Route::Invite
            }
            _ => Route::NotFound,
        }
    }
}

/// Answer one request.
pub async fn route(req: hyper::Request<Incoming>, ctx: &Socket) -> Response {
    ctx.head_seen.cancel();
    let get = matches!(*req.method(), Method::GET | Method::HEAD);
    let route = Route::of(req.uri().path());
    // `/ws` is always a handshake (a bad one gets 400); an invite link when it asks for one.
    let handshake = route == Route::Ws || (route == Route::Invite && upgrade::is_upgrade(&req));
    match route {
        Route::Ws | Route::Invite if handshake => match *req.method() {
            Method::GET => upgrade::accept(req, ctx),
            _ => method_not_allowed("GET"),
        },
        // A WebSocket asked for where there is none (`/` included): 404 (A2), never the page.
        _ if upgrade::is_websocket_upgrade(&req) => not_found(),
        Route::Api if api::admin::is_admin(req.uri().path()) => {
            let (method, uri) = (req.method().clone(), req.uri().clone());
            let auth = req.headers().get(hyper::header::AUTHORIZATION).cloned();
            // The body is never read: dropped before the store's await.
            drop(req);
            let server = &ctx.slot.server;
            api::admin::route(
                &method,
                uri.path(),
                uri.query(),
                auth.as_ref(),
                server.config.admin_token.as_ref(),
                server.play.store(),
            )
            .await
        }
        Route::Api => {
            // Owned, so the request (and its body) is not held across the store's await.
            let (method, uri) = (req.method().clone(), req.uri().clone());
            drop(req);
            let store = ctx.slot.server.play.store();
            api::route(
                &method,
                uri.path(),
                uri.query(),
                store,
                &ctx.slot.server.play.arenas,
                ctx.slot.server.play.rooms.here(),
                crate::clock::unix_ms(),
            )
            .await
        }
        // `/ws` is never here: it is always a handshake, above.
        Route::NotFound | Route::Ws => not_found(),
        _ if !get => method_not_allowed("GET, HEAD"),
        // The page reads the room code and `?watch` from its own URL.
        Route::Invite | Route::Page => file(assets::PAGE, &req),
        Route::Asset(name) => file(name, &req),
        Route::Worker => file(WORKER, &req),
        Route::Healthz => healthz(ctx),
        Route::Metrics => answer(
            StatusCode::OK,
            crate::metrics::CONTENT_TYPE,
            ctx.slot.server.metrics.render(),
        ),
    }
}

/// `/healthz`: rooms, connections, the database's and (in a cluster) Redis's state; 503
/// while draining.
fn healthz(ctx: &Socket) -> Response {
    let server = &ctx.slot.server;
    let mut body = serde_json::json!({
        "rooms": server.play.rooms.len(),
        "connections": server.metrics.connections.get(),
    });
    // The database is "down" while results wait for it (the retry task's word).
    let queued = server.play.env().backlog.len();
    body["db"] = if queued == 0 { "up" } else { "down" }.into();
    body["results_queued"] = queued.into();
    if let Some(node) = server.play.rooms.health() {
        body["node"] = node.node.into();
        body["redis"] = if node.bus_up { "up" } else { "down" }.into();
    }
    // Draining (A9): 503, so a balancer sends nobody new here.
    let status = if server.play.rooms.draining() {
        body["draining"] = true.into();
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    };
    answer(status, "application/json", body.to_string())
}

/// An embedded file, or 404 if there is none by that name.
fn file<B>(name: &str, req: &hyper::Request<B>) -> Response {
    assets::answer(name, req.headers()).unwrap_or_else(not_found)
}

fn not_found() -> Response {
    error(StatusCode::NOT_FOUND)
}

fn method_not_allowed(allow: &'static str) -> Response {
    let mut resp = error(StatusCode::METHOD_NOT_ALLOWED);
    resp.headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(path: &str, expected: Route) {
        assert_eq!(Route::of(path), expected, "{path}");
    }

    #[test]
    fn routes_by_path() {
        check("/ws", Route::Ws);
        check("/r/ABCD", Route::Invite);
        check("/r/abcd", Route::Invite);
        check("/r/AB", Route::NotFound);
        check("/r/ABCD/x", Route::NotFound);
        check("/healthz", Route::Healthz);
        check("/metrics", Route::Metrics);
        check("/ws/", Route::NotFound);
        check("/api", Route::Api);
        check("/api/leaderboard", Route::Api);
        check("/api/nope/deeper", Route::Api);
        check("/apix", Route::NotFound);
    }

    #[test]
    fn routes_to_the_browser_client() {
        check("/", Route::Page);
        check("/assets/app.js", Route::Asset("assets/app.js"));
        check("/sw.js", Route::Worker);
        check("/assets/sw.js", Route::Asset("assets/sw.js"));
        check("/sw.js/x", Route::NotFound);
        check("/assets/screens/x.js", Route::Asset("assets/screens/x.js"));
        check("/assets/../x", Route::NotFound);
        check("/assets/%2e%2e/x", Route::NotFound);
        check("/assets/", Route::NotFound);
        check("/assets", Route::NotFound);
        check("/assets//x.js", Route::NotFound);
        check("/index.html", Route::NotFound);
        check("//", Route::NotFound);
    }
}
