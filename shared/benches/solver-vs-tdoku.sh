#!/usr/bin/env bash
# Our uniqueness check against tdoku's solver_dpll_triad_simd, in one run, interleaved.
#
#   shared/benches/solver-vs-tdoku.sh [-r ROUNDS] [-p PASSES] [-t TDOKU_DIR] [-d DATA_DIR] [-n LINES]
#                                     [-b BEFORE_BIN]
#
# Builds tdoku (default ../shared/peers/tdoku beside the repository) with g++ -O3 -march=native
# into shared/benches/tdoku_harness.cc, and our `solve_set` bench (release, default flags: the
# solver picks AVX2 at run time, no -C target-cpu). Then for ROUNDS rounds, for every set, runs
# ours and tdoku in turn, each timing PASSES passes over the set in-process (median pass, in the
# thread's CPU time: the machine may be shared). The table shows the median over rounds, ns per
# puzzle, and the ratio tdoku/ours (> 1: ours faster).
# Sets: 17-clue, top1465, forum hardest 1106 from DATA_DIR (default ../shared/data) and forum
# hardest 1905 (SE 11+) when DATA_DIR holds forum_hardest_1905_11plus.txt; -n keeps the first
# LINES puzzles of each (a quick sample while iterating). -b adds a column for another build of
# the solve_set bench (e.g. from an older commit), run in the same rounds.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
rounds=5 passes=5 lines=0 before=""
tdoku="$repo/../shared/peers/tdoku" data="$repo/../shared/data"
while getopts "r:p:t:d:n:b:" opt; do
  case $opt in
    r) rounds=$OPTARG ;; p) passes=$OPTARG ;; t) tdoku=$OPTARG ;; d) data=$OPTARG ;;
    n) lines=$OPTARG ;; b) before=$OPTARG ;; *) exit 2 ;;
  esac
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

g++ -O3 -march=native -std=c++14 -fno-exceptions -fno-rtti -DNDEBUG -I "$tdoku/include" \
  -I "$tdoku/src" "$tdoku/src/solver_dpll_triad_simd.cc" "$tdoku/src/util.cc" \
  "$repo/shared/benches/tdoku_harness.cc" -o "$work/tdoku_harness"
ours="$(cd "$repo" && cargo bench -p sudoku-race-shared --bench solve_set --no-run \
  --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "solve_set" and m.get("executable"):
        print(m["executable"])')"
# A copy, so that a rebuild during the run cannot change what is measured.
cp "$ours" "$work/ours" && ours="$work/ours"

sets=()
for name in 17_clue_49158 magictour_top1465 forum_hardest_1106 forum_hardest_1905_11plus; do
  [ -f "$data/$name.txt" ] || { echo "skipping $name: not in $data" >&2; continue; }
  if [ "$lines" -gt 0 ]; then head -n "$lines" "$data/$name.txt" > "$work/$name"; else cp "$data/$name.txt" "$work/$name"; fi
  sets+=("$work/$name")
done

for round in $(seq "$rounds"); do
  for set in "${sets[@]}"; do
    "$ours" "$passes" "$set" | sed 's/^/ours\t/' >> "$work/results"
    "$work/tdoku_harness" "$passes" "$set" | sed 's/^/tdoku\t/' >> "$work/results"
    if [ -n "$before" ]; then "$before" "$passes" "$set" | sed 's/^/before\t/' >> "$work/results"; fi
  done
done

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
echo "# $rounds rounds x $passes passes, uniqueness check (count up to 2), ns/puzzle, median of rounds"
python3 - "$work/results" <<'PY'
import statistics, sys, os
rows = {}
for line in open(sys.argv[1]):
    who, path, ns, n, unique, counted = line.split("\t")
    r = rows.setdefault(os.path.basename(path), {"n": int(n), "answers": set()})
    r.setdefault(who, []).append(float(ns))
    r["answers"].add((int(unique), int(counted)))
before = any("before" in r for r in rows.values())
head = "| set | puzzles | unique | ours ns | tdoku ns | ours/s | tdoku/s | tdoku/ours |"
print(head + (" before ns | before/ours |" if before else ""))
print("|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if before else ""))
for name, r in rows.items():
    o, t = statistics.median(r["ours"]), statistics.median(r["tdoku"])
    unique = "/".join(str(u) for u, _ in sorted(r["answers"]))
    flag = "" if len(r["answers"]) == 1 else " (answers differ!)"
    line = f"| {name} | {r['n']} | {unique}{flag} | {o:.0f} | {t:.0f} | {1e9/o:,.0f} | {1e9/t:,.0f} | **{t/o:.2f}x** |"
    if before:
        b = statistics.median(r["before"])
        line += f" {b:.0f} | {b/o:.2f}x |"
    print(line)
PY
