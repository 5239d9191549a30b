#!/bin/sh
# The server at a file-descriptor limit of 64 (issue 33): N clients (default 70) at once, and
# one every 20 ms, against
#   start    a server started under `ulimit -n 64` (default --max-connections: the cap is lowered
#            to fit, and clients past it are refused by the cap's rules), and
#   lowered  a server started under `ulimit -n 1024` whose limit is lowered to 64 while it runs
#            (`prlimit`): its cap stays high, so accept itself runs out of descriptors — what a
#            server sees when anything else takes its descriptors;
#   nodev    (NODEV=1, root: `unshare -m`) `lowered` in a mount namespace with an empty /dev,
#            like a sandbox with no /dev/null.
# Each line counts the clients as scripts/fd-limit-probe.py does: served (welcome and pong; the
# first creates a room), full (welcome, server_full, close 1013), closed (refused or reset before
# welcome), hung (no answer within 5 s: must be 0).
#
# Usage: scripts/fd-limit.sh [BIN] [N]   (BIN: target/release/sudoku-race-server)
set -eu
BIN=${1:-${CARGO_TARGET_DIR:-target}/release/sudoku-race-server}
N=${2:-70}
PROBE=$(dirname "$0")/fd-limit-probe.py
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

# run SCENARIO STAGGER_MS: start the server, probe it, stop it.
run() {
    d=$(mktemp -d "$DIR/run.XXXX")
    args="--listen 127.0.0.1:0 --log-format json --db $d/results.sqlite3 --spool $d/spool"
    case $1 in
    start) (ulimit -n 64 && exec "$BIN" $args) >"$d/log" 2>&1 & ;;
    lowered) (ulimit -n 1024 && exec "$BIN" $args) >"$d/log" 2>&1 & ;;
    nodev) (ulimit -n 1024 && exec unshare -m sh -c \
        "mount -t tmpfs none /dev && exec \"$BIN\" $args") >"$d/log" 2>&1 </dev/null & ;;
    esac
    pid=$!
    i=0
    until grep -q '"listening"' "$d/log" 2>/dev/null; do
        i=$((i + 1))
        [ $i -lt 100 ] || { echo "$1: no listening line" >&2; kill "$pid"; return 1; }
        sleep 0.1
    done
    addr=$(grep -o '"addr":"[^"]*"' "$d/log" | head -1 | cut -d'"' -f4)
    [ "$1" = start ] || prlimit --pid="$pid" --nofile=64:64
    printf '%-8s %-14s ' "$1" "$([ "$2" = 0 ] && echo 'at once' || echo "one per $2 ms")"
    python3 "$PROBE" "$addr" "$N" 5 "$2" 2>/dev/null | head -1
    kill "$pid"
    wait "$pid" 2>/dev/null || true
}

for scenario in start lowered ${NODEV:+nodev}; do
    for stagger in 0 20; do
        run "$scenario" "$stagger"
    done
done
