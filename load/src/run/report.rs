//! Tables for people and one JSON line for tools, from the load runs' reports.

use serde_json::{json, Value};

use super::churn::ChurnReport;
use super::deal::DealReport;
use super::idle::{self, IdleReport};
use super::race::RaceOpts;
use super::RunReport;

fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

fn opt(x: Option<f64>, places: i32) -> Value {
    x.map_or(Value::Null, |x| json!(round(x, places)))
}

/// The crowd's line and the watched room against the others, when a crowd ran.
fn crowd_lines(r: &RunReport) -> String {
    let Some(c) = &r.crowd else {
        return String::new();
    };
    let (first, others) = first_and_others(r);
    format!(
        "\n  crowd       {tried} spectators tried the first room: {adm} admitted, {refd} refused (room_full), \
         {early} closed early\n\
         \x20             chats sent {sent}, refused (rate_limited) {cref}, heard {heard}\n\
         \x20 watched room placement p99 {first:.3} ms; other rooms p99 {others:.3} ms",
        tried = c.tried,
        adm = c.admitted,
        refd = c.refused,
        early = c.closed_early,
        sent = c.chats_sent,
        cref = c.chats_refused,
        heard = c.chats_heard,
    )
}

/// The cluster's line, when the players were spread over several nodes.
fn cluster_lines(r: &RunReport) -> String {
    if r.nodes < 2 {
        return String::new();
    }
    let relayed = &r.round_trip_relayed;
    let redis = match (r.redis_cpu, r.redis_us_per_msg()) {
        (Some(cpu), Some(us)) => format!("{:.2} s = {us:.2} us/msg", cpu.as_secs_f64()),
        _ => "n/a".to_owned(),
    };
    format!(
        "\n  cluster     {nodes} nodes; relayed players' round trip p50 {r50:.3} ms  p99 {r99:.3} \
         ({n} of them); Redis CPU {redis}",
        nodes = r.nodes,
        r50 = relayed.quantile_ms(0.5),
        r99 = relayed.quantile_ms(0.99),
        n = relayed.count(),
    )
}

/// Placement p99 of the first room, and of every other room together.
fn first_and_others(r: &RunReport) -> (f64, f64) {
    let mut others = crate::hist::Latency::new();
    for l in r.round_trip_by_group.iter().skip(1) {
        others.merge(l);
    }
    let first = r
        .round_trip_by_group
        .first()
        .map_or(0.0, |l| l.quantile_ms(0.99));
    (first, others.quantile_ms(0.99))
}

/// A table of one run (`what`: "race server" or "echo").
pub fn table(what: &str, opts: &RaceOpts, r: &RunReport) -> String {
    let t = &r.tally;
    let cpu = |d: Option<std::time::Duration>| {
        d.map_or("n/a".to_owned(), |d| format!("{:.2} s", d.as_secs_f64()))
    };
    format!(
        "{what}: {rooms} groups x {players} = {conns} connections, target {rate}/s for {dur:.1} s\n\
         \x20 sent        {sent}  answered {replies} ({rps:.1}/s; accepted {acc}, mistakes {mis})\n\
         \x20 round trip  p50 {p50:.3} ms  p99 {p99:.3}  p99.9 {p999:.3}  max {pmax:.3}\n\
         \x20 fan-out all p50 {f50:.3} ms  p99 {f99:.3}  p99.9 {f999:.3}  max {fmax:.3}  (last member of the group)\n\
         \x20 fan-out one p50 {m50:.3} ms  p99 {m99:.3}  (each member)\n\
         \x20 messages out {out} ({ops:.0}/s over {win:.2} s); server CPU {scpu} = {uspm} us/msg; loadgen CPU {lcpu}\n\
         \x20 send lag    p50 {l50:.3} ms  p99 {l99:.3}  (loadgen timer and scheduling, inside every figure above)\n\
         \x20 errors {err}  lost {lost}  duplicated or out of order {dis}{cluster}{crowd}",
        rooms = opts.rooms,
        players = opts.players,
        conns = r.connections,
        rate = opts.rate,
        dur = r.send_window.as_secs_f64(),
        sent = t.sent,
        replies = t.replies,
        rps = r.replies_per_s(),
        acc = t.accepted,
        mis = t.mistakes,
        p50 = t.round_trip.quantile_ms(0.5),
        p99 = t.round_trip.quantile_ms(0.99),
        p999 = t.round_trip.quantile_ms(0.999),
        pmax = t.round_trip.max_ms(),
        f50 = r.fanout_all.quantile_ms(0.5),
        f99 = r.fanout_all.quantile_ms(0.99),
        f999 = r.fanout_all.quantile_ms(0.999),
        fmax = r.fanout_all.max_ms(),
        m50 = t.fanout_member.quantile_ms(0.5),
        m99 = t.fanout_member.quantile_ms(0.99),
        out = t.received,
        ops = r.out_per_s(),
        win = r.window.as_secs_f64(),
        scpu = cpu(r.server_cpu),
        uspm = r
            .cpu_us_per_msg()
            .map_or("n/a".to_owned(), |u| format!("{u:.2}")),
        lcpu = cpu(r.self_cpu),
        l50 = r.send_lag.quantile_ms(0.5),
        l99 = r.send_lag.quantile_ms(0.99),
        err = t.errors,
        lost = t.lost,
        dis = t.disorder,
        cluster = cluster_lines(r),
        crowd = crowd_lines(r),
    )
}

/// The JSON summary of a race run and, if it ran, the echo run beside it.
pub fn race_json(opts: &RaceOpts, race: &RunReport, echo: Option<&RunReport>) -> Value {
    let t = &race.tally;
    let server_us = race.cpu_us_per_msg();
    let echo_us = echo.and_then(RunReport::cpu_us_per_msg);
    let ratio = match (echo_us, server_us) {
        (Some(e), Some(s)) if s > 0.0 => Some(e / s),
        _ => None,
    };
    let crowd = race.crowd.as_ref().map(|c| {
        let (first, others) = first_and_others(race);
        json!({
            "tried": c.tried,
            "admitted": c.admitted,
            "refused": c.refused,
            "closed_early": c.closed_early,
            "chats_sent": c.chats_sent,
            "chats_refused": c.chats_refused,
            "chats_heard": c.chats_heard,
            "watched_room_place_p99_ms": round(first, 3),
            "other_rooms_place_p99_ms": round(others, 3),
        })
    });
    let (e_err, e_lost, e_dis) = echo.map_or((0, 0, 0), |e| {
        (e.tally.errors, e.tally.lost, e.tally.disorder)
    });
    json!({
        "rooms": opts.rooms,
        "players": opts.players,
        "target_rate": opts.rate,
        "duration_s": round(race.send_window.as_secs_f64(), 3),
        "placements_sent": t.sent,
        "placements_answered": t.replies,
        "accepted": t.accepted,
        "mistakes": t.mistakes,
        "placements_per_s": round(race.replies_per_s(), 1),
        "place_p50_ms": round(t.round_trip.quantile_ms(0.5), 3),
        "place_p99_ms": round(t.round_trip.quantile_ms(0.99), 3),
        "place_p999_ms": round(t.round_trip.quantile_ms(0.999), 3),
        "place_max_ms": round(t.round_trip.max_ms(), 3),
        "fanout_p50_ms": round(race.fanout_all.quantile_ms(0.5), 3),
        "fanout_p99_ms": round(race.fanout_all.quantile_ms(0.99), 3),
        "fanout_p999_ms": round(race.fanout_all.quantile_ms(0.999), 3),
        "msgs_out": t.received,
        "msgs_out_per_s": round(race.out_per_s(), 1),
        "server_cpu_s": opt(race.server_cpu.map(|d| d.as_secs_f64()), 3),
        "server_cpu_us_per_msg": opt(server_us, 3),
        "echo_cpu_us_per_msg": opt(echo_us, 3),
        "echo_msgs_out": echo.map(|e| e.tally.received),
        "echo_p50_ms": opt(echo.map(|e| e.tally.round_trip.quantile_ms(0.5)), 3),
        "echo_p99_ms": opt(echo.map(|e| e.tally.round_trip.quantile_ms(0.99)), 3),
        "echo_fanout_p99_ms": opt(echo.map(|e| e.fanout_all.quantile_ms(0.99)), 3),
        "ratio": opt(ratio, 3),
        "send_lag_p50_ms": round(race.send_lag.quantile_ms(0.5), 3),
        "send_lag_p99_ms": round(race.send_lag.quantile_ms(0.99), 3),
        "loadgen_cpu_s": opt(race.self_cpu.map(|d| d.as_secs_f64()), 3),
        "nodes": race.nodes,
        "redis_cpu_us_per_msg": opt(race.redis_us_per_msg(), 3),
        "relayed_place_p99_ms": round(race.round_trip_relayed.quantile_ms(0.99), 3),
        "errors": t.errors + e_err,
        "lost": t.lost + t.disorder + e_lost + e_dis,
        "disorder": t.disorder + e_dis,
        "crowd": crowd,
    })
}

/// Quantile `q` of `l`, in milliseconds, rounded for the JSON line.
fn quantile(l: &crate::hist::Latency, q: f64) -> Value {
    json!(round(l.quantile_ms(q), 3))
}

/// Another run's figures beside the plain run's, as `{prefix}_…`: its latencies, its CPU per
/// message and `{prefix}_ratio` (its CPU per message ÷ the plain run's), its errors counted in.
fn add_beside(json: &mut Value, prefix: &str, plain: &RunReport, other: &RunReport) {
    let t = &other.tally;
    let ratio = match (other.cpu_us_per_msg(), plain.cpu_us_per_msg()) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let mut set = |key: &str, v: Value| json[format!("{prefix}_{key}")] = v;
    set("place_p50_ms", quantile(&t.round_trip, 0.5));
    set("place_p99_ms", quantile(&t.round_trip, 0.99));
    set("fanout_p50_ms", quantile(&other.fanout_all, 0.5));
    set("fanout_p99_ms", quantile(&other.fanout_all, 0.99));
    set("placements_per_s", json!(round(other.replies_per_s(), 1)));
    set("server_cpu_us_per_msg", opt(other.cpu_us_per_msg(), 3));
    set("ratio", opt(ratio, 3));
    let add = |json: &mut Value, key: &str, n: u64| {
        let before = json[key].as_u64().unwrap_or(0);
        json[key] = json!(before + n);
    };
    add(json, "errors", t.errors);
    add(json, "lost", t.lost + t.disorder);
}

/// The TLS run's figures beside the plain run's, as `tls_…`; the target of `tls_ratio` (TLS
/// CPU per message ÷ plain) is at most 1.3.
pub fn add_tls(json: &mut Value, plain: &RunReport, tls: &RunReport) {
    add_beside(json, "tls", plain, tls);
}

/// The cluster run's figures beside the one server's, as `cluster_…`: `cluster_ratio` is the
/// nodes' CPU per message (all nodes added up) ÷ the one server's (target at most 1.5), and
/// `cluster_redis_cpu_us_per_msg` Redis's CPU per message the nodes sent.
pub fn add_cluster(json: &mut Value, one: &RunReport, cluster: &RunReport) {
    add_beside(json, "cluster", one, cluster);
    let relayed = &cluster.round_trip_relayed;
    json["cluster_nodes"] = json!(cluster.nodes);
    json["cluster_relayed_place_p50_ms"] = quantile(relayed, 0.5);
    json["cluster_relayed_place_p99_ms"] = quantile(relayed, 0.99);
    json["cluster_redis_cpu_s"] = opt(cluster.redis_cpu.map(|d| d.as_secs_f64()), 3);
    json["cluster_redis_cpu_us_per_msg"] = opt(cluster.redis_us_per_msg(), 3);
    json["cluster_msgs_out"] = json!(cluster.tally.received);
    json["cluster_send_lag_p99_ms"] = quantile(&cluster.send_lag, 0.99);
}

/// A table of an idle run.
pub fn idle_table(r: &IdleReport) -> String {
    let kib = |k: Option<u64>| k.map_or("n/a".to_owned(), |k| format!("{k} KiB"));
    format!(
        "idle: {open} of {wanted} connections open ({failed} failed)\n\
         \x20 server RSS before {b}, open {o}, after close {a}; per connection {per}\n\
         \x20 server fds (before, open, after) {fds}",
        open = r.open,
        wanted = r.wanted,
        failed = r.failed,
        b = kib(r.rss_before_kib),
        o = kib(r.rss_open_kib),
        a = kib(r.rss_after_kib),
        per = idle::per_conn_text(r.bytes_per_conn()),
        fds = r.fds.map_or("n/a".to_owned(), |f| format!("{f:?}")),
    )
}

/// The JSON summary of an idle run.
pub fn idle_json(r: &IdleReport) -> Value {
    json!({
        "idle_wanted": r.wanted,
        "idle_open": r.open,
        "idle_failed": r.failed,
        "rss_before_kib": r.rss_before_kib,
        "rss_open_kib": r.rss_open_kib,
        "rss_after_kib": r.rss_after_kib,
        "bytes_per_conn": opt(r.bytes_per_conn(), 0),
        "kib_per_conn": opt(r.bytes_per_conn().map(|b| b / 1024.0), 3),
        "fds_before": r.fds.map(|f| f.0),
        "fds_open": r.fds.map(|f| f.1),
        "fds_after": r.fds.map(|f| f.2),
        "errors": r.failed,
    })
}

/// A table of a churn run.
pub fn churn_table(r: &ChurnReport) -> String {
    let s = |x: Option<crate::procfs::ProcSample>| {
        x.map_or("n/a".to_owned(), |x| {
            format!("RSS {} KiB, {} fds", x.rss_kib, x.fds)
        })
    };
    format!(
        "churn: {c} connect/join/leave/close cycles in {e:.2} s ({rate:.0}/s), {err} failed\n\
         \x20 server at start: {s0}\n\
         \x20 after {w} warm-up cycles: {s1}\n\
         \x20 after all cycles: {s2}",
        c = r.cycles,
        e = r.elapsed.as_secs_f64(),
        rate = r.cycles as f64 / r.elapsed.as_secs_f64().max(1e-9),
        err = r.errors,
        s0 = s(r.start),
        w = r.warmup,
        s1 = s(r.warm),
        s2 = s(r.end),
    )
}

/// The JSON summary of a churn run.
pub fn churn_json(r: &ChurnReport) -> Value {
    json!({
        "churn_cycles": r.cycles,
        "churn_per_s": round(r.cycles as f64 / r.elapsed.as_secs_f64().max(1e-9), 1),
        "rss_start_kib": r.start.map(|s| s.rss_kib),
        "rss_warm_kib": r.warm.map(|s| s.rss_kib),
        "rss_end_kib": r.end.map(|s| s.rss_kib),
        "fds_start": r.start.map(|s| s.fds),
        "fds_warm": r.warm.map(|s| s.fds),
        "fds_end": r.end.map(|s| s.fds),
        "errors": r.errors,
    })
}

/// A table of the deal waits.
pub fn deal_table(reports: &[DealReport]) -> String {
    let mut out = String::from("deal: start_race to race_started, less the announced countdown\n");
    for r in reports {
        out.push_str(&format!(
            "  {:<7} n {:>4}  p50 {:.3} ms  p99 {:.3}  max {:.3}  errors {}\n",
            r.difficulty.to_string(),
            r.wait.count(),
            r.wait.quantile_ms(0.5),
            r.wait.quantile_ms(0.99),
            r.wait.max_ms(),
            r.errors
        ));
    }
    out.trim_end().to_owned()
}

/// The JSON summary of the deal waits: `deal_p99_ms_<difficulty>` and friends.
pub fn deal_json(reports: &[DealReport]) -> Value {
    let mut m = serde_json::Map::new();
    let mut errors = 0;
    for r in reports {
        let d = r.difficulty.to_string();
        m.insert(format!("deal_n_{d}"), json!(r.wait.count()));
        m.insert(
            format!("deal_p50_ms_{d}"),
            json!(round(r.wait.quantile_ms(0.5), 3)),
        );
        m.insert(
            format!("deal_p99_ms_{d}"),
            json!(round(r.wait.quantile_ms(0.99), 3)),
        );
        m.insert(format!("deal_max_ms_{d}"), json!(round(r.wait.max_ms(), 3)));
        errors += r.errors;
    }
    m.insert("errors".into(), json!(errors));
    Value::Object(m)
}

/// The pool run as a table: `quick_race` to `room_joined`.
pub fn pool_table(what: &str, r: &super::pool::PoolReport) -> String {
    format!(
        "pool on {what}: quick_race to room_joined, {} players\n  seated {}  p50 {:.3} ms  p99 {:.3}  max {:.3}  errors {}",
        r.players,
        r.seated.count(),
        r.seated.quantile_ms(0.5),
        r.seated.quantile_ms(0.99),
        r.seated.max_ms(),
        r.errors
    )
}

/// The JSON summary of a pool run.
pub fn pool_json(r: &super::pool::PoolReport) -> Value {
    json!({
        "pool_players": r.players,
        "pool_seated": r.seated.count(),
        "pool_p50_ms": round(r.seated.quantile_ms(0.5), 3),
        "pool_p99_ms": round(r.seated.quantile_ms(0.99), 3),
        "pool_max_ms": round(r.seated.max_ms(), 3),
        "errors": r.errors,
    })
}
