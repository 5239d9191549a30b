#!/usr/bin/env bash
# A bounded soak: one release server on loopback with a SQLite file, and rounds of racing
# (loadgen's race load: rooms race to the end and are stored) and connection churn (join,
# leave, close) against it until SOAK_S seconds have passed. Prints the server's resident
# memory and open descriptors after the first round and after the last, so a leak shows as
# growth between them (docs/benchmarks.md).
#
#   cargo build --release -p sudoku-race-server -p sudoku-race-load
#   SOAK_S=3600 scripts/soak.sh
#
# Knobs (environment): SOAK_S (3600), ROOMS (20), RATE (placements/s, 400), CHURN (cycles per
# round, 2000), ROUND_S (seconds of racing per round, 60), SOAK_BIN (below).
set -euo pipefail
cd "$(dirname "$0")/.."
SOAK_S=${SOAK_S:-3600}
ROOMS=${ROOMS:-20}
RATE=${RATE:-400}
CHURN=${CHURN:-2000}
ROUND_S=${ROUND_S:-60}

# SOAK_BIN: a folder holding the two binaries (a copy, so a rebuild during an hour's soak
# changes nothing); by default cargo's release folder, wherever CARGO_TARGET_DIR puts it.
if [[ -n "${SOAK_BIN:-}" ]]; then
    bin=$SOAK_BIN
else
    target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
    bin="$target/release"
fi
for b in sudoku-race-server loadgen; do
    [[ -x "$bin/$b" ]] || { echo "soak: $bin/$b is missing: build it with cargo build --release first" >&2; exit 1; }
done

work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$bin/sudoku-race-server" --listen "127.0.0.1:$port" --db "$work/soak.db" \
    --rate-limit 200 --rate-burst 400 --max-rooms-per-ip 100000 --countdown-ms 200 \
    >"$work/server.log" 2>&1 &
pid=$!
stop() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap stop EXIT
for _ in $(seq 50); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { echo "soak: the server did not come up" >&2; cat "$work/server.log" >&2; exit 1; }

sample() { # rss_kb fds
    echo "$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status") $(ls "/proc/$pid/fd" | wc -l)"
}
round() {
    "$bin/loadgen" --server "127.0.0.1:$port" --server-pid "$pid" --no-echo \
        --rooms "$ROOMS" --players 4 --rate "$RATE" --duration "$ROUND_S" --drain 3 >>"$work/load.log" 2>&1
    "$bin/loadgen" --server "127.0.0.1:$port" --server-pid "$pid" --no-echo \
        --churn "$CHURN" >>"$work/load.log" 2>&1
}

start=$(date +%s)
round
read -r rss0 fd0 < <(sample)
rounds=1
echo "round 1: rss ${rss0} KiB, fds ${fd0}"
while (( $(date +%s) - start < SOAK_S )); do
    round
    rounds=$((rounds + 1))
    read -r rss fd < <(sample)
    echo "round $rounds: rss ${rss} KiB, fds ${fd} ($(( $(date +%s) - start )) s)"
done
read -r rss1 fd1 < <(sample)
races=$(python3 -c "import sqlite3; print(sqlite3.connect('$work/soak.db').execute('select count(*) from races').fetchone()[0])")
python3 - "$rss0" "$rss1" "$fd0" "$fd1" "$rounds" "$races" "$(( $(date +%s) - start ))" <<'EOF'
import sys
rss0, rss1, fd0, fd1, rounds, races, secs = map(int, sys.argv[1:])
print(f"soak: {secs} s, {rounds} rounds, {races} races stored")
print(f"| | after round 1 | at the end | change |")
print(f"|---|---|---|---|")
print(f"| resident memory | {rss0/1024:.1f} MiB | {rss1/1024:.1f} MiB | {100*(rss1-rss0)/rss0:+.1f} % |")
print(f"| open descriptors | {fd0} | {fd1} | {100*(fd1-fd0)/fd0:+.1f} % |")
EOF
