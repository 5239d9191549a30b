#!/usr/bin/env bash
# Every figure of docs/benchmarks.md, measured again in one run, printed as that document's
# tables (markdown on stdout; progress on stderr, every tool's own output in BENCH_LOG).
#
#   scripts/bench.sh              every section (about 40 min on the 2-core machine)
#   scripts/bench.sh server tls   just those sections
#   scripts/bench.sh --list       the sections
#   python3 scripts/bench-paste.py run.md docs/benchmarks.md   puts a run's tables in the document
#
# Knobs (environment): BENCH_RUNS (3: runs of each noisy load, medians shown), BENCH_LOG (the
# tools' outputs; default a new temporary folder), SOAK_S (300), SOAK_ROUND_S (60),
# TAKEOVER_TRIES (6), FAILOVER_TRIES (20), STORE_RACES (100000) and STORE_PLAYERS (10000), WEB_RUNS (20),
# SOLVER_ROUNDS (3), BOARDS_ROUNDS (4), ROLLING_DB (postgres://postgres@127.0.0.1:5432/rolling_bench),
# BENCH_BUILD=0 (skip the build: measure the binaries already in CARGO_TARGET_DIR/release).
# Builds release binaries first (CARGO_TARGET_DIR is respected). The machine is what it is:
# compare a figure with its baseline from the same run, never with another run's.
set -uo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

SECTIONS=(solver engine variants ui server journal tls cluster cluster-floor idle idle-cluster churn deal spectators boards pool
    cluster-pool matcher race_start store web lag takeover failover rolling soak)
# Each section's heading, then what it measures and how long it takes (for --list).
declare -A ABOUT=(
    [solver]="The solver against tdoku|our uniqueness check against tdoku, in-process (about 30 s)"
    [engine]="Engine: solve, generate, grade|solve, generate and grade on the handbook's sets (about 3 min)"
    [variants]="Variant grading (issue 34)|the grader on dug x, windoku, jigsaw and killer puzzles (about 30 s)"
    [ui]="Terminal client|terminal client frames (seconds)"
    [server]="Race server: placements against the bare echo|placements at 25 and 50 rooms against the ws-echo baseline (about 1 min a run)"
    [journal]="The room journal against none|placements with the standalone server's room journal against --no-journal, interleaved, at 1,000/s and 10,000/s (about 1 min a run)"
    [tls]="TLS against plain|the race load over wss against plain (about 35 s a run)"
    [cluster]="Cluster: 3 nodes against one server|3 nodes on one Redis against one server, 50 rooms (about 35 s a run)"
    [cluster-floor]="What splitting costs before any relay|one server against three independent one-worker servers sharing its load, no relay (about 30 s a run)"
    [idle]="Idle connections|memory per idle connection at 10,000 and 19,900 (about 40 s a run)"
    [idle-cluster]="Idle connections over 3 nodes|3 x 19,900 idle at once, one loadgen per node (about 1 min)"
    [churn]="Connection churn|50,000 connect/join/leave/close cycles (about 30 s)"
    [deal]="Time to deal a puzzle|start_race to race_started per difficulty (about 2.5 min)"
    [spectators]="300 chatting spectators|300 chatting spectators on one room (about 15 s a run)"
    [boards]="Delayed boards for spectators|delayed boards for 32 spectators, plain spectators as baseline (about 50 s a round)"
    [pool]="Seated from the pool|quick_race to room_joined on one server (seconds a run)"
    [cluster-pool]="Seated from the cluster-wide pool|the same over 3 nodes, one server as baseline (about 10 s a run)"
    [matcher]="The pool's matcher|pool matcher, criterion (about 1 min)"
    [race_start]="A different isomorph per seat|a race start with one isomorph per seat, criterion (about 30 s)"
    [store]="Players who persist (the store)|leaderboard, history and save_race on a generated SQLite store (about 30 s)"
    [web]="The browser's first load|the browser's first load, br against identity (about 3 min; Chromium, npm ci)"
    [lag]="Lag compensation|lag compensation through a 150 ms delay proxy (about 75 s)"
    [takeover]="Takeover after kill -9 of a room owner|kill -9 of a room owner, until another node answers (about 15 s a try)"
    [failover]="Failover that clients ride through (A12)|kill -9 of a room owner mid-race, racers placing through it: until the room answers again, nothing acknowledged lost (about 8 s a try)"
    [rolling]="A rolling restart under load|a rolling restart of one of 3 nodes under load, PostgreSQL (about 40 s a run)"
    [soak]="A bounded soak|a bounded soak: memory and descriptors after SOAK_S seconds (default 5 min)"
)

if [[ "${1:-}" == "--list" ]]; then
    for s in "${SECTIONS[@]}"; do printf '%-13s %s\n' "$s" "${ABOUT[$s]#*|}"; done
    exit 0
fi
want=("$@")
[[ ${#want[@]} -eq 0 ]] && want=("${SECTIONS[@]}")
for s in "${want[@]}"; do
    [[ -n "${ABOUT[$s]:-}" ]] || { echo "bench: no section '$s' (see --list)" >&2; exit 2; }
done

RUNS=${BENCH_RUNS:-3}
LOG=${BENCH_LOG:-$(mktemp -d -t sudoku-bench.XXXXXX)}
mkdir -p "$LOG"
TARGET=${CARGO_TARGET_DIR:-$repo/target}
BIN="$TARGET/release"
TAB="$repo/scripts/bench-table.py"

note() { echo "bench: $*" >&2; }
# The command as the document shows it.
cmd() { printf '`%s`\n\n' "$*"; }

# `runs STEM N COMMAND...`: N runs, each one's output in LOG/STEM.I.txt and its last JSON line
# (loadgen's summary) in LOG/STEM.I.json. A failed run is reported and its JSON kept if any.
runs() {
    local stem=$1 n=$2 i
    shift 2
    for i in $(seq "$n"); do
        note "$stem run $i/$n: $*"
        "$@" >"$LOG/$stem.$i.txt" 2>&1 || note "$stem run $i exited $? (see $LOG/$stem.$i.txt)"
        grep '^{' "$LOG/$stem.$i.txt" | tail -n 1 >"$LOG/$stem.$i.json"
    done
}

loadgen() { "$BIN/loadgen" "$@"; }

sec_solver() {
    local r=${SOLVER_ROUNDS:-3}
    cmd "shared/benches/solver-vs-tdoku.sh -r $r -p 3"
    shared/benches/solver-vs-tdoku.sh -r "$r" -p 3 >"$LOG/solver.txt" 2>"$LOG/solver.err" || return 1
    grep -v '^#' "$LOG/solver.txt"
    echo
    sed -n 's/^# /- /p' "$LOG/solver.txt"
}

sec_engine() {
    cmd "cargo bench -p sudoku-race-shared --bench engine"
    cargo bench -p sudoku-race-shared --bench engine >"$LOG/engine.txt" 2>"$LOG/engine.err" || return 1
    python3 "$TAB" engine "$LOG/engine.txt"
    echo
    cmd "cargo bench -p sudoku-race-shared --bench grade"
    cargo bench -p sudoku-race-shared --bench grade >"$LOG/grade.txt" 2>"$LOG/grade.err" || return 1
    python3 "$TAB" grade "$LOG/grade.txt"
}

sec_variants() {
    cmd "cargo bench -p sudoku-race-shared --bench grade -- variants"
    cargo bench -p sudoku-race-shared --bench grade -- variants >"$LOG/variants.txt" 2>"$LOG/variants.err" || return 1
    python3 "$TAB" variants "$LOG/variants.txt"
}

sec_ui() {
    cmd "cargo bench -p sudoku-race --bench ui"
    cargo bench -p sudoku-race --bench ui >"$LOG/ui.txt" 2>"$LOG/ui.err" || return 1
    python3 "$TAB" ui "$LOG/ui.txt"
}

sec_server() {
    local a=(--players 8 --rate 10000 --duration 10)
    cmd "target/release/loadgen --rooms 25 ${a[*]}"
    cmd "target/release/loadgen --rooms 50 ${a[*]}"
    runs server25 "$RUNS" loadgen --rooms 25 "${a[@]}"
    runs server50 "$RUNS" loadgen --rooms 50 "${a[@]}"
    python3 "$TAB" json "$LOG" <<'EOF'
| figure | 25 rooms | echo, 25 groups | 50 rooms | echo, 50 groups |
files: server25 server25 server50 server50
placements answered/s | placements_per_s | - | placements_per_s | -
placement p50 (ms) | place_p50_ms | echo_p50_ms | place_p50_ms | echo_p50_ms
placement p99 (ms) | place_p99_ms | echo_p99_ms | place_p99_ms | echo_p99_ms
placement p99.9 (ms) | place_p999_ms | - | place_p999_ms | -
fan-out to all members p99 (ms) | fanout_p99_ms | echo_fanout_p99_ms | fanout_p99_ms | echo_fanout_p99_ms
messages out | msgs_out | echo_msgs_out | msgs_out | echo_msgs_out
CPU per message sent (µs) | server_cpu_us_per_msg | echo_cpu_us_per_msg | server_cpu_us_per_msg | echo_cpu_us_per_msg
`ratio` (echo CPU/msg ÷ server CPU/msg) | ratio | - | ratio | -
loadgen send lag p99 (ms) | send_lag_p99_ms | - | send_lag_p99_ms | -
errors / lost (worst run, both servers) | max:errors / max:lost | - | max:errors / max:lost | -
EOF
}

# The room journal (a standalone server's rooms' logs, fdatasync'd before anything is sent)
# against the same server with --no-journal: runs alternate (without, with) so both see the
# same machine. CPU per placement is the server process's (the ext4 journal thread's work for
# each fdatasync is the kernel's, outside it); commands per fdatasync from the server's own
# count, logged at its stop.
sec_journal() {
    local a=(--rooms 50 --players 8 --duration 10 --no-echo --server-arg=--log-format=json) i rate arm
    cmd "target/release/loadgen --rate R ${a[*]} [--server-arg=--no-journal]  (R = 1000, 10000)"
    for i in $(seq "$RUNS"); do
        for rate in 1000 10000; do
            for arm in off on; do
                local extra=()
                [[ $arm == off ]] && extra=(--server-arg=--no-journal)
                rm -f "$LOG/journal_${arm}_${rate}_$i.server.log"
                runs "journal_${arm}_${rate}_$i" 1 loadgen --rate "$rate" "${a[@]}" "${extra[@]}" \
                    --server-log "$LOG/journal_${arm}_${rate}_$i.server.log"
            done
        done
    done
    python3 - "$LOG" "$RUNS" <<'PY'
import json, statistics, sys
log, runs = sys.argv[1], int(sys.argv[2])
def last_json(path):
    try:
        lines = [l for l in open(path) if l.startswith("{")]
        return json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        return None
def stopped(path):
    try:
        for l in open(path):
            if '"room journal stopped"' in l:
                return json.loads(l)["fields"]
    except (OSError, ValueError):
        pass
    return None
cols = [(rate, arm) for rate in (1000, 10000) for arm in ("off", "on")]
got = {c: [] for c in cols}
per_sync = {rate: [] for rate in (1000, 10000)}
for i in range(1, runs + 1):
    for rate, arm in cols:
        d = last_json(f"{log}/journal_{arm}_{rate}_{i}.1.txt")
        if d and d.get("placements_answered") and d.get("server_cpu_s") is not None:
            d["cpu_us_per_placement"] = d["server_cpu_s"] * 1e6 / d["placements_answered"]
            got[(rate, arm)].append(d)
        s = stopped(f"{log}/journal_{arm}_{rate}_{i}.server.log") if arm == "on" else None
        if s and s.get("fdatasyncs"):
            per_sync[rate].append(s["entries"] / s["fdatasyncs"])
if not all(got.values()):
    sys.exit("no complete run")
def cell(key, fmt="{:.3g}"):
    out = []
    for c in cols:
        xs = [d[key] for d in got[c]]
        out.append(f"{fmt.format(statistics.median(xs))} ({', '.join(fmt.format(x) for x in xs)})")
    return out
rows = [
    ("placements answered/s", "placements_per_s", "{:,.0f}"),
    ("placement p50 (ms)", "place_p50_ms", "{:.3g}"),
    ("placement p99 (ms)", "place_p99_ms", "{:.3g}"),
    ("placement p99.9 (ms)", "place_p999_ms", "{:.3g}"),
    ("fan-out p99 (ms)", "fanout_p99_ms", "{:.3g}"),
    ("server CPU per placement (µs)", "cpu_us_per_placement", "{:.1f}"),
]
print("| figure | 1,000/s: no journal (the baseline) | 1,000/s: journal | 10,000/s: no journal (the baseline) | 10,000/s: journal |")
print("|---|---:|---:|---:|---:|")
for name, key, fmt in rows:
    print(f"| {name} | " + " | ".join(cell(key, fmt)) + " |")
ps = [f"{statistics.median(per_sync[r]):.1f}" if per_sync[r] else "" for r in (1000, 10000)]
print(f"| journal entries per fdatasync | | {ps[0]} | | {ps[1]} |")
worst = lambda k: max(d[k] for c in cols for d in got[c])
print(f"| errors / lost (worst run) | {worst('errors')} / {worst('lost')} | | | |")
print(f"\nRuns: {min(len(v) for v in got.values())} of each, alternating without and with (medians; each run in brackets).")
PY
}

sec_tls() {
    local a=(--rooms 25 --players 8 --rate 10000 --duration 10 --tls --no-echo)
    cmd "target/release/loadgen ${a[*]}"
    runs tls "$RUNS" loadgen "${a[@]}"
    python3 "$TAB" json "$LOG" <<'EOF'
| figure | plain (the baseline) | TLS |
files: tls tls
placements answered/s | placements_per_s | tls_placements_per_s
placement p50 (ms) | place_p50_ms | tls_place_p50_ms
placement p99 (ms) | place_p99_ms | tls_place_p99_ms
fan-out p99 (ms) | fanout_p99_ms | tls_fanout_p99_ms
server CPU per message (µs) | server_cpu_us_per_msg | tls_server_cpu_us_per_msg
`tls_ratio` (TLS CPU/msg ÷ plain) | - | tls_ratio
errors / lost (worst run, both) | max:errors / max:lost | -
EOF
}

sec_cluster() {
    local a=(--cluster 3 --rooms 50 --players 8 --rate 10000 --duration 10 --no-echo)
    cmd "target/release/loadgen ${a[*]}"
    runs cluster "$RUNS" loadgen "${a[@]}"
    python3 "$TAB" json "$LOG" <<'EOF'
| figure | one server (the baseline) | 3 nodes |
files: cluster cluster
placements answered/s | placements_per_s | cluster_placements_per_s
placement p50 (ms) | place_p50_ms | cluster_place_p50_ms
placement p99 (ms) | place_p99_ms | cluster_place_p99_ms
fan-out p99 (ms) | fanout_p99_ms | cluster_fanout_p99_ms
relayed players' placement p99 (ms) | - | cluster_relayed_place_p99_ms
server CPU per message, all nodes (µs) | server_cpu_us_per_msg | cluster_server_cpu_us_per_msg
`cluster_ratio` (3 nodes' CPU/msg ÷ one server's) | - | cluster_ratio
Redis CPU per message (µs) | - | cluster_redis_cpu_us_per_msg
errors / lost (worst run, both) | max:errors / max:lost | -
EOF
}

# The cluster's floor: the one server against three independent servers of one worker each
# (the share of this machine's cores each node gets), rooms split 17/17/16 and the placement
# rate with them, started at once. Nothing is relayed, so what costs more per message here
# than on the one server is the split alone (each process less busy: more wake-ups and
# reads per message), and `cluster_ratio` cannot go below it on this machine.
sec_cluster-floor() {
    local a=(--players 8 --duration 10 --no-echo) i
    cmd "target/release/loadgen --rooms 50 --rate 10000 ${a[*]}"
    cmd "3 at once: target/release/loadgen --rooms R --rate 200R ${a[*]} --server-arg=--workers=1 (R = 17, 17, 16)"
    for i in $(seq "$RUNS"); do
        runs "floor_one_$i" 1 loadgen --rooms 50 --rate 10000 "${a[@]}"
        note "floor run $i/$RUNS: three servers at once"
        local pids=() r k=0
        for r in 17 17 16; do
            k=$((k + 1))
            loadgen --rooms "$r" --rate $((200 * r)) "${a[@]}" --server-arg=--workers=1 \
                >"$LOG/floor_split_${i}_$k.txt" 2>&1 &
            pids+=($!)
        done
        wait "${pids[@]}"
    done
    python3 - "$LOG" "$RUNS" <<'PY'
import json, statistics, sys
log, runs = sys.argv[1], int(sys.argv[2])
def last_json(path):
    try:
        lines = [l for l in open(path) if l.startswith("{")]
        return json.loads(lines[-1]) if lines else None
    except (OSError, ValueError):
        return None
one, split, ratio, p99 = [], [], [], []
for i in range(1, runs + 1):
    o = last_json(f"{log}/floor_one_{i}.1.txt")
    parts = [last_json(f"{log}/floor_split_{i}_{k}.txt") for k in (1, 2, 3)]
    if not o or not all(parts) or not o.get("server_cpu_us_per_msg"):
        continue
    msgs = sum(p["msgs_out"] for p in parts)
    cpu = sum(p["server_cpu_us_per_msg"] * p["msgs_out"] for p in parts) / msgs
    one.append(o["server_cpu_us_per_msg"]); split.append(cpu); ratio.append(cpu / one[-1])
    p99.append(max(p["place_p99_ms"] for p in parts))
if not ratio:
    sys.exit("no complete run")
med = lambda xs: f"{statistics.median(xs):.3f}"
print("| figure | one server (the baseline) | 3 servers, a third of the load each, no relay |")
print("|---|---:|---:|")
print(f"| server CPU per message (µs, median of {len(ratio)}) | {med(one)} | {med(split)} |")
print(f"| ÷ the one server's (the floor of `cluster_ratio`) | - | {med(ratio)} ({', '.join(f'{r:.2f}' for r in ratio)}) |")
print(f"| placement p99, worst of the three (ms) | - | {med(p99)} |")
PY
}

sec_idle() {
    local big=(--idle 19900 --server-arg=--max-connections=20000)
    cmd "target/release/loadgen --idle 10000"
    cmd "target/release/loadgen ${big[*]}"
    runs idle "$RUNS" loadgen --idle 10000
    runs idle19900 "$RUNS" loadgen "${big[@]}"
    python3 "$TAB" json "$LOG" <<'EOF'
| figure | 10,000 idle connections | 19,900 idle connections |
files: idle idle19900
connections open / failed | idle_open / max:idle_failed | idle_open / max:idle_failed
server RSS before (KiB, the baseline) | rss_before_kib | rss_before_kib
server RSS with them open (KiB) | rss_open_kib | rss_open_kib
**per idle connection (KiB)** | kib_per_conn | kib_per_conn
server file descriptors before / open / after | fds_before / fds_open / fds_after | fds_before / fds_open / fds_after
EOF
}

# 3 nodes x 19,900 idle connections at once: one child loadgen per node (a process holds at
# most 20,000 descriptors here); every node's RSS read while all are open.
sec_idle-cluster() {
    local a=(--idle 19900 --cluster 3 --server-arg=--max-connections=20000)
    cmd "target/release/loadgen ${a[*]}"
    runs idlecluster 1 loadgen "${a[@]}"
    python3 - "$LOG/idlecluster.1.json" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit("no summary from the run")
print("| node | connections open | RSS before (KiB) | RSS all open (KiB) | per connection (KiB) | descriptors |")
print("|---|---:|---:|---:|---:|---:|")
for i, n in enumerate(d.get("nodes", []), 1):
    per = n.get("bytes_per_conn")
    print(f"| {i} | {n.get('open')} | {n.get('rss_before_kib')} | {n.get('rss_all_open_kib')} | "
          f"{per / 1024:.2f} | {n.get('fds_all_open')} |" if per else f"| {i} | {n.get('open')} | | | | |")
print()
print(f"Open at once: {d.get('idle_open_at_once')} of {d.get('idle_wanted')} ({d.get('idle_failed')} failed).")
EOF
}

sec_churn() {
    cmd "target/release/loadgen --churn 50000"
    runs churn 1 loadgen --churn 50000
    python3 "$TAB" json "$LOG" <<'EOF'
| figure | at start (the baseline) | after the warm-up | after all cycles |
files: churn churn churn
server RSS (KiB) | rss_start_kib | rss_warm_kib | rss_end_kib
server file descriptors | fds_start | fds_warm | fds_end
cycles per s / failed | churn_per_s / max:errors | - | -
EOF
}

sec_deal() {
    cmd "target/release/loadgen --deal 50"
    runs deal 1 loadgen --deal 50
    python3 "$TAB" json "$LOG" <<'EOF'
| figure | easy | medium | hard | expert |
files: deal deal deal deal
starts | deal_n_easy | deal_n_medium | deal_n_hard | deal_n_expert
wait p50 (ms) | deal_p50_ms_easy | deal_p50_ms_medium | deal_p50_ms_hard | deal_p50_ms_expert
wait p99 (ms) | deal_p99_ms_easy | deal_p99_ms_medium | deal_p99_ms_hard | deal_p99_ms_expert
wait max (ms) | deal_max_ms_easy | deal_max_ms_medium | deal_max_ms_hard | deal_max_ms_expert
errors | max:errors | - | - | -
EOF
}

sec_spectators() {
    local a=(--rooms 25 --players 8 --rate 10000 --duration 10 --spectators 300 --no-echo)
    cmd "target/release/loadgen ${a[*]}"
    runs spectators "$RUNS" loadgen "${a[@]}"
    python3 "$TAB" json "$LOG" <<'EOF'
| figure | the watched room | the other 24 rooms (the baseline) |
files: spectators spectators
placement p99 (ms) | crowd.watched_room_place_p99_ms | crowd.other_rooms_place_p99_ms
fan-out p99, all rooms (ms) | fanout_p99_ms | -
spectators admitted / refused (`room_full`) | crowd.admitted / crowd.refused | -
chat lines sent / refused (`rate_limited`) / heard | crowd.chats_sent / crowd.chats_refused / crowd.chats_heard | -
spectators closed early | crowd.closed_early | -
errors / lost (worst run) | max:errors / max:lost | -
EOF
}

sec_boards() {
    local r=${BOARDS_ROUNDS:-4}
    local a=(--rooms 1 --players 16 --rate 32 --duration 20 --spectators 32 --boards --rounds "$r"
        --server-arg=--spectator-delay-s=1 --no-echo)
    cmd "target/release/loadgen ${a[*]}"
    runs boards 1 loadgen "${a[@]}"
    python3 "$TAB" json "$LOG" <<'EOF'
| figure | plain spectators (the baseline) | spectators with boards |
files: boards boards
server CPU per placement, median of the rounds (µs) | median_plain_us | median_boards_us
boards' share (%) | - | added_percent
`board` messages heard / spectators admitted | - | boards_heard / admitted
EOF
    python3 - "$LOG/boards.1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
f = lambda xs: ", ".join(f"{x:.1f}" for x in xs)
print(f"\nRounds (µs per placement): plain {f(d['server_cpu_us_per_placement_plain'])}; "
      f"boards {f(d['server_cpu_us_per_placement_boards'])}.")
EOF
}

sec_pool() {
    cmd "target/release/loadgen --pool 400 --pool-rate 4000"
    runs pool "$RUNS" loadgen --pool 400 --pool-rate 4000
    python3 "$TAB" json "$LOG" <<'EOF'
| figure | one server |
files: pool
seated | pool_seated
quick_race → room_joined p50 (ms) | pool_p50_ms
p99 (ms) | pool_p99_ms
max (ms) | pool_max_ms
errors | max:errors
EOF
}

sec_cluster-pool() {
    cmd "target/release/loadgen --pool 400 --pool-rate 4000 --cluster 3"
    runs cluster-pool "$RUNS" loadgen --pool 400 --pool-rate 4000 --cluster 3
    python3 "$TAB" json "$LOG" <<'EOF'
| figure | one server (the baseline) | 3 nodes, one pool |
files: cluster-pool cluster-pool
seated | pool_seated | cluster.pool_seated
quick_race → room_joined p50 (ms) | pool_p50_ms | cluster.pool_p50_ms
p99 (ms) | pool_p99_ms | cluster.pool_p99_ms
max (ms) | pool_max_ms | cluster.pool_max_ms
errors | max:errors | max:cluster.errors
EOF
}

sec_matcher() {
    cmd "cargo bench -p sudoku-race-server --bench matcher"
    cargo bench -p sudoku-race-server --bench matcher >"$LOG/matcher.txt" 2>"$LOG/matcher.err" || return 1
    python3 "$TAB" criterion "$LOG/matcher.txt"
}

sec_race_start() {
    cmd "cargo bench -p sudoku-race-server --bench race_start"
    cargo bench -p sudoku-race-server --bench race_start >"$LOG/race_start.txt" 2>"$LOG/race_start.err" || return 1
    python3 "$TAB" criterion "$LOG/race_start.txt"
}

sec_store() {
    local races=${STORE_RACES:-100000} players=${STORE_PLAYERS:-10000}
    cmd "STORE_BENCH_RACES=$races STORE_BENCH_PLAYERS=$players STORE_BENCH_DB=\$BENCH_LOG/store.sqlite3 cargo bench -p sudoku-race-server --bench store"
    rm -f "$LOG/store.sqlite3"*
    STORE_BENCH_RACES=$races STORE_BENCH_PLAYERS=$players STORE_BENCH_DB="$LOG/store.sqlite3" \
        cargo bench -p sudoku-race-server --bench store >"$LOG/store.txt" 2>"$LOG/store.err" || return 1
    grep -v '^store bench:' "$LOG/store.txt"
    rm -f "$LOG/store.sqlite3"*
}

sec_web() {
    local n=${WEB_RUNS:-20}
    if [[ ! -d client-web/node_modules/playwright-core ]]; then
        note "web: npm ci in client-web"
        (cd client-web && npm ci --no-audit --no-fund) >"$LOG/npm.txt" 2>&1 || return 1
    fi
    cmd "cd client-web && SUDOKU_RACE_PROFILE=release node bench/first-load.mjs $n"
    (cd client-web && SUDOKU_RACE_PROFILE=release node bench/first-load.mjs "$n") >"$LOG/web.txt" 2>"$LOG/web.err" || return 1
    grep '^|' "$LOG/web.txt"
    echo
    echo "The baseline, the same server with the browser asking for no compression:"
    echo
    cmd "cd client-web && SUDOKU_RACE_PROFILE=release BENCH_IDENTITY=1 node bench/first-load.mjs 3"
    (cd client-web && SUDOKU_RACE_PROFILE=release BENCH_IDENTITY=1 node bench/first-load.mjs 3) \
        >"$LOG/web-identity.txt" 2>"$LOG/web-identity.err" || return 1
    grep '^|' "$LOG/web-identity.txt" | grep -Ei 'measure|---|first load|demand'
}

sec_lag() {
    cmd "target/release/lag-bench --races 9"
    "$BIN/lag-bench" --races 9 >"$LOG/lag.txt" 2>"$LOG/lag.err" || return 1
    python3 "$TAB" lag "$LOG/lag.txt"
}

sec_takeover() {
    local n=${TAKEOVER_TRIES:-6}
    cmd "target/release/takeover-bench --tries $n"
    "$BIN/takeover-bench" --tries "$n" >"$LOG/takeover.txt" 2>"$LOG/takeover.err" || return 1
    python3 "$TAB" takeover "$LOG/takeover.txt"
}

sec_failover() {
    local n=${FAILOVER_TRIES:-20} rc=0
    cmd "target/release/failover-bench --tries $n"
    # Each try's line and the nodes' JSON logs stay in LOG; the tables come out even when a try
    # failed or lost a placement (the binary's exit status says so).
    "$BIN/failover-bench" --tries "$n" --log-dir "$LOG/failover-nodes" >"$LOG/failover.txt" 2>"$LOG/failover.err" || rc=$?
    cat "$LOG/failover.txt"
    return $rc
}

sec_rolling() {
    local db=${ROLLING_DB:-postgres://postgres@127.0.0.1:5432/rolling_bench}
    cmd "target/release/rolling-bench --rooms 120 --rate 11000 --db $db"
    # The bench's database, made once (the nodes migrate it themselves).
    psql "${db%/*}/postgres" -tAc "select 1 from pg_database where datname = '${db##*/}'" 2>/dev/null | grep -q 1 ||
        psql "${db%/*}/postgres" -c "create database ${db##*/}" >&2 || return 1
    local i files=()
    for i in $(seq "$RUNS"); do
        note "rolling run $i/$RUNS"
        "$BIN/rolling-bench" --rooms 120 --rate 11000 --db "$db" >"$LOG/rolling.$i.txt" 2>"$LOG/rolling.$i.err" ||
            note "rolling run $i exited $?"
        files+=("$LOG/rolling.$i.txt")
    done
    python3 "$TAB" rolling "${files[@]}"
}

sec_soak() {
    local s=${SOAK_S:-300} r=${SOAK_ROUND_S:-60}
    cmd "SOAK_S=$s ROUND_S=$r scripts/soak.sh"
    SOAK_BIN="$BIN" SOAK_S=$s ROUND_S=$r scripts/soak.sh >"$LOG/soak.txt" 2>"$LOG/soak.err" || return 1
    grep '^soak:' "$LOG/soak.txt"
    echo
    grep '^|' "$LOG/soak.txt"
    python3 - "$LOG/soak.txt" <<'EOF'
import re, statistics, sys
rss = [int(m.group(1)) / 1024 for m in re.finditer(r"^round \d+: rss (\d+) KiB", open(sys.argv[1]).read(), re.M)]
if rss:
    print(f"\nResident memory over the {len(rss)} rounds: {min(rss):.1f}–{max(rss):.1f} MiB, median {statistics.median(rss):.1f} MiB.")
EOF
}

needs_build() {
    local s
    for s in "${want[@]}"; do
        case $s in solver | engine | variants | ui | matcher | race_start | store) ;; *) return 0 ;; esac
    done
    return 1
}

if [[ "${BENCH_BUILD:-1}" != 0 ]] && needs_build; then
    note "building release binaries (log: $LOG/build.txt)"
    cargo build --release -p sudoku-race-server -p sudoku-race-load -p sudoku-race >"$LOG/build.txt" 2>&1 ||
        { note "the build failed: see $LOG/build.txt"; exit 1; }
fi

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)
ram=$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
started=$(date -u +%s)
echo "# Benchmark run $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $cpu, $(nproc) cores, $ram, Linux $(uname -r); load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)'); $(rustc --version)"
knobs=$(env | grep -E '^(BENCH_RUNS|SOAK_S|SOAK_ROUND_S|TAKEOVER_TRIES|FAILOVER_TRIES|STORE_RACES|STORE_PLAYERS|WEB_RUNS|SOLVER_ROUNDS|BOARDS_ROUNDS|ROLLING_DB)=' | sort | tr '\n' ' ')
echo "- command: \`${knobs}scripts/bench.sh $*\` (runs of each noisy load: $RUNS; the tools' output: $LOG)"
echo
failed=()
for s in "${want[@]}"; do
    t0=$(date -u +%s)
    note "section $s: ${ABOUT[$s]#*|}"
    echo "## $s — ${ABOUT[$s]%%|*}"
    echo
    if ! "sec_$s"; then
        failed+=("$s")
        echo
        echo "**Failed**: see the tools' output in $LOG."
    fi
    echo
    echo "_(${s}: $(($(date -u +%s) - t0)) s, load average after $(cut -d' ' -f1-3 /proc/loadavg))_"
    echo
done
echo "Total: $(($(date -u +%s) - started)) s.${failed[*]:+ Failed: ${failed[*]}.}"; echo
[[ ${#failed[@]} -eq 0 ]]
