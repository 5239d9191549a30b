#!/usr/bin/env bash
# Three sudoku-race-server nodes on this machine, sharing a Redis and a PostgreSQL of their own
# (nothing else on the machine is touched): ports 7871-7873 for the nodes, 6390 for Redis, 5440
# for PostgreSQL, everything under ${CLUSTER_DIR:-/tmp/sudoku-race-cluster}. Ctrl-C stops it all.
# SUDOKU_RACE_PROFILE=debug uses a debug build.
# Needs redis-server and PostgreSQL's programs (apt-get install redis-server postgresql).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${CLUSTER_DIR:-/tmp/sudoku-race-cluster}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | tail -1)
mkdir -p "$dir"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

profile=${SUDOKU_RACE_PROFILE:-release}
if [ "$profile" = release ]; then cargo build --release -p sudoku-race-server; else cargo build -p sudoku-race-server; fi
[ "$(id -u)" = 0 ] && chown postgres "$dir"
if [ ! -d "$dir/pg" ]; then
    as_pg "$pgbin/initdb" -D "$dir/pg" -A trust -U postgres >/dev/null
fi
as_pg "$pgbin/pg_ctl" -D "$dir/pg" -o "-p 5440 -k $dir -c listen_addresses=127.0.0.1" -l "$dir/pg.log" -w start
redis-server --port 6390 --bind 127.0.0.1 --save "" --appendonly no --daemonize yes --logfile "$dir/redis.log"

stop() {
    kill $(jobs -p) 2>/dev/null || true
    redis-cli -p 6390 shutdown nosave >/dev/null 2>&1 || true
    as_pg "$pgbin/pg_ctl" -D "$dir/pg" -m fast stop >/dev/null || true
}
trap stop EXIT INT TERM

# The three nodes share this machine's cores (docs/deploy.md, --workers).
workers=$(( $(nproc) / 3 )); [ "$workers" -ge 1 ] || workers=1
for n in 1 2 3; do
    "target/$profile/sudoku-race-server" --listen "127.0.0.1:787$n" --node-id "node$n" --workers "$workers" \
        --cluster redis://127.0.0.1:6390 --db postgres://postgres@127.0.0.1:5440/postgres \
        2>"$dir/node$n.log" &
done
sleep 1
for n in 1 2 3; do curl -fsS "http://127.0.0.1:787$n/healthz" && echo; done
echo "nodes on ws://127.0.0.1:7871/ws, :7872, :7873 (logs in $dir); Ctrl-C stops them"
wait
