#!/usr/bin/env bash
# Three sudoku-race-server nodes on this machine, sharing a Redis and a PostgreSQL of their own
# (nothing else on the machine is touched): ports 7871-7873 for the nodes, 6390 for Redis, 5440
# for PostgreSQL, everything under ${CLUSTER_DIR:-/tmp/sudoku-race-cluster}. Ctrl-C stops it all.
# SUDOKU_RACE_PROFILE=debug uses a debug build. The binary is the one cargo builds, wherever
# CARGO_TARGET_DIR (or .cargo/config) puts it. Exits non-zero, saying why, if a node does not
# come up.
# Needs redis-server and PostgreSQL's programs (apt-get install redis-server postgresql).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${CLUSTER_DIR:-/tmp/sudoku-race-cluster}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -1)
[ -n "$pgbin" ] || { echo "error: PostgreSQL's programs not found (apt-get install postgresql)" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "error: redis-server not found (apt-get install redis-server)" >&2; exit 1; }
mkdir -p "$dir"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

profile=${SUDOKU_RACE_PROFILE:-release}
if [ "$profile" = release ]; then cargo build --release -p sudoku-race-server; else cargo build -p sudoku-race-server; fi
# Where cargo put it: `cargo metadata` answers with CARGO_TARGET_DIR and any config applied.
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
bin="$target/$profile/sudoku-race-server"
[ -x "$bin" ] || { echo "error: no server binary at $bin" >&2; exit 1; }

if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
if [ ! -d "$dir/pg" ]; then
    as_pg "$pgbin/initdb" -D "$dir/pg" -A trust -U postgres >/dev/null
fi

stopped=
stop() {
    [ -z "$stopped" ] || return 0
    stopped=1
    trap - INT TERM
    local nodes
    nodes=$(jobs -p)
    if [ -n "$nodes" ]; then
        kill $nodes 2>/dev/null || true
        wait $nodes 2>/dev/null || true
    fi
    redis-cli -p 6390 shutdown nosave >/dev/null 2>&1 || true
    if as_pg "$pgbin/pg_ctl" -D "$dir/pg" status >/dev/null 2>&1; then
        as_pg "$pgbin/pg_ctl" -D "$dir/pg" -m fast stop >/dev/null 2>&1 || true
    fi
    echo "stopped (logs in $dir)"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! as_pg "$pgbin/pg_ctl" -D "$dir/pg" status >/dev/null 2>&1; then
    as_pg "$pgbin/pg_ctl" -D "$dir/pg" -o "-p 5440 -k $dir -c listen_addresses=127.0.0.1" -l "$dir/pg.log" -w start >/dev/null
fi
redis-server --port 6390 --bind 127.0.0.1 --save "" --appendonly no --daemonize yes --logfile "$dir/redis.log"

# The three nodes share this machine's cores (docs/deploy.md, --workers).
workers=$(( $(nproc) / 3 )); [ "$workers" -ge 1 ] || workers=1
pids=()
for n in 1 2 3; do
    "$bin" --listen "127.0.0.1:787$n" --node-id "node$n" --workers "$workers" \
        --cluster redis://127.0.0.1:6390 --db postgres://postgres@127.0.0.1:5440/postgres \
        2>"$dir/node$n.log" &
    pids[$n]=$!
done
# Each node answers /healthz within 30 s, or the whole cluster stops and says which did not.
for n in 1 2 3; do
    up=
    for _ in $(seq 300); do
        if health=$(curl -fsS "http://127.0.0.1:787$n/healthz" 2>/dev/null); then up=1; break; fi
        kill -0 "${pids[$n]}" 2>/dev/null || break # it exited: no point waiting
        sleep 0.1
    done
    if [ -z "$up" ]; then
        echo "error: node$n did not come up on 127.0.0.1:787$n; the end of $dir/node$n.log:" >&2
        tail -n 5 "$dir/node$n.log" >&2 || true
        exit 1
    fi
    echo "node$n: $health"
done
echo "nodes on ws://127.0.0.1:7871/ws, :7872, :7873 (logs in $dir); Ctrl-C stops them"
wait
