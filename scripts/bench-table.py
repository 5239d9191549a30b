#!/usr/bin/env python3
"""Turns the benchmarks' outputs into the markdown tables of docs/benchmarks.md (scripts/bench.sh).

    bench-table.py json LOGDIR < SPEC     medians of loadgen's JSON lines, as a table
    bench-table.py FORMAT FILE...         one tool's text output as a table (FORMAT below)

A SPEC is a header line (`| figure | a | b |`), a `files:` line naming, for each value column,
the stem of its runs (LOGDIR/STEM.N.json), then one line per row: `label | key | key ...`, a
key per value column. A key is a JSON path (`cluster.pool_p99_ms`), `-` for an empty cell,
several keys joined by ` / ` shown side by side, and `max:KEY` for the worst run rather than
the median (errors). A single key over several runs shows its median and the runs in brackets.
"""

import glob
import json
import os
import re
import statistics
import sys


def fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int) or float(v).is_integer():
        return f"{int(v):,}"
    v = float(v)
    if abs(v) >= 100:
        return f"{v:,.1f}"
    if abs(v) >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def lookup(doc, path):
    for part in path.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return None
        doc = doc[part]
    return doc


def cell(docs, expr):
    expr = expr.strip()
    if expr in ("", "-"):
        return ""
    parts = [p.strip() for p in expr.split(" / ")]
    shown = []
    for p in parts:
        worst = p.startswith("max:")
        key = p[4:] if worst else p
        vals = [lookup(d, key) for d in docs]
        # A list (one figure per round) counts as its median.
        vals = [statistics.median(v) if isinstance(v, list) and v else v for v in vals]
        vals = [v for v in vals if isinstance(v, (int, float))]
        if not vals:
            shown.append("n/a")
            continue
        v = max(vals) if worst else statistics.median(vals)
        text = fmt(v)
        if len(parts) == 1 and len(vals) > 1 and not worst:
            text += " (" + ", ".join(fmt(x) for x in vals) + ")"
        shown.append(text)
    return " / ".join(shown)


def json_table(logdir):
    lines = [l.rstrip("\n") for l in sys.stdin if l.strip()]
    header, files = lines[0], lines[1].split(":", 1)[1].split()
    docs = {}
    for stem in set(files):
        docs[stem] = []
        for path in sorted(glob.glob(os.path.join(logdir, f"{stem}.*.json"))):
            with open(path) as f:
                try:
                    docs[stem].append(json.load(f))
                except json.JSONDecodeError:
                    pass
    print(header)
    print("|---|" + "---:|" * len(files))
    for line in lines[2:]:
        label, *keys = [x.strip() for x in line.split("|")]
        cells = [cell(docs[files[i]], keys[i] if i < len(keys) else "-") for i in range(len(files))]
        print(f"| {label} | " + " | ".join(cells) + " |")
    runs = {stem: len(d) for stem, d in docs.items()}
    print(f"\nRuns: {', '.join(f'{s} {n}' for s, n in sorted(runs.items()))} (medians; each run in brackets).")


def engine(path):
    """`cargo bench --bench engine`: solve and generate lines."""
    solve, gen = [], []
    for line in open(path):
        m = re.match(r"solve (\S+)\s+(\d+) puzzles\s+(\d+) /s wall(?:\s+(\d+) /s cpu)?\s+wrong=(\d+)", line)
        if m:
            solve.append(m.groups())
        m = re.match(r"generate (\w+)( symmetric)?\s+(\d+) puzzles\s+(\d+) /s wall(?:\s+(\d+) /s cpu)?\s+clues=([\d.]+)", line)
        if m:
            gen.append(m.groups())
    print("| set | puzzles | puzzles/s (CPU) | puzzles/s (wall) | wrong |")
    print("|---|---:|---:|---:|---:|")
    for name, n, wall, cpu, wrong in solve:
        print(f"| {name.removesuffix('.txt')} | {int(n):,} | {int(cpu or 0):,} | {int(wall):,} | {wrong} |")
    print()
    print("| level | puzzles/s (CPU) | symmetric, puzzles/s (CPU) | mean clues (plain / symmetric) |")
    print("|---|---:|---:|---:|")
    by = {}
    for level, sym, n, wall, cpu, clues in gen:
        by.setdefault(level, {})[bool(sym)] = (int(cpu or wall), clues)
    for level, d in by.items():
        p, s = d.get(False, (0, "?")), d.get(True, (0, "?"))
        print(f"| {level} | {p[0]:,} | {s[0]:,} | {p[1]} / {s[1]} |")


def rows(path, header, pattern, row):
    """A table of the lines matching `pattern`, each made a row by `row(match groups)`."""
    print(header)
    print("|---|" + "---:|" * (header.count("|") - 2))
    for line in open(path):
        m = re.match(pattern, line)
        if m:
            print("| " + " | ".join(row(*m.groups())) + " |")


def grade(path):
    rows(path, "| set | puzzles | grade_max/s | grade/s |", r"(\S+)\.txt\s+(\d+)\s+(\d+)\s+(\d+)\s*$",
         lambda name, n, fast, full: (name, n, f"{int(fast):,}", f"{int(full):,}"))


def variants(path):
    rows(path, "| puzzles | n | mean clues | easy/medium/hard/expert/extreme | grade_max_in/s | grade_in/s |",
         r"(\w+ (?:minimal|26))\s+(\d+)\s+([\d.]+)\s+\[([\d, ]+)\]\s+(\d+)\s+(\d+)\s*$",
         lambda name, n, clues, levels, fast, full: (
             name, n, clues, levels.replace(", ", "/"), f"{int(fast):,}", f"{int(full):,}"))


def ui(path):
    rows(path, "| bench | median |", r"(.+?)\s+([\d.]+) µs\s*$", lambda name, us: (name.strip(), f"{us} µs"))


def criterion(path):
    """criterion's `name time: [lo med hi]` lines (the name may stand on the line before)."""
    print("| bench | median | [low, high] |")
    print("|---|---:|---|")
    name = None
    for line in open(path):
        m = re.match(r"^(\S.*?)?\s+time:\s+\[(\S+ \S+) (\S+ \S+) (\S+ \S+)\]", line)
        if m:
            print(f"| {(m.group(1) or name or '?').strip()} | {m.group(3)} | [{m.group(2)}, {m.group(4)}] |")
        elif line.strip() and not line[0].isspace() and ":" not in line:
            name = line.strip()


def lag(path):
    text = open(path).read()
    rows = re.findall(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+(\S+)\s+\d+\s+\d+\s+(\S+)\s*$", text, re.M)
    far = re.search(r"far lag_ms (\d+) vs true round trip (\d+).*?: (\S+ %)", text)
    raw = re.search(r"raw time, far − near:\s+(\S+ ms)", text)
    comp = re.search(r"compensated time, far − near:\s+(\S+ ms)", text)
    print("| figure | far player (delayed) | near player (the baseline) | target |")
    print("|---|---:|---:|---:|")
    if far:
        print(f"| `lag_ms`, median of {len(rows)} races | **{far.group(1)}** (true round trip {far.group(2)}: {far.group(3)}) "
              f"| {fmt(statistics.median(int(r[2]) for r in rows)) if rows else '?'} | within 20 % |")
    if raw and comp:
        print(f"| finish time far − near, raw / compensated (median) | {raw.group(1)} / **{comp.group(1)}** | | compensated < 50 ms |")
    if rows:
        print(f"| per race: far `lag_ms` range | {min(int(r[1]) for r in rows)}–{max(int(r[1]) for r in rows)} | | |")


def secs(debug):
    """A Rust `Duration`'s Debug text (`12.3496s`, `950.2ms`) in seconds, 2 decimals."""
    m = re.match(r"([\d.]+)(s|ms|µs|ns)$", debug)
    if not m:
        return debug
    scale = {"s": 1, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}[m.group(2)]
    return f"{float(m.group(1)) * scale:.2f} s"


def takeover(path):
    text = open(path).read()
    m = re.search(r"tries (\d+): p50 (\S+), p99 (\S+), max (\S+); every placement kept in (\d+) of (\d+)", text)
    times = re.findall(r"answered again after (\S+),", text)
    print("| figure | value |")
    print("|---|---:|")
    if m:
        print(f"| tries | {m.group(1)} |")
        print(f"| time until the room answers again, p50 / p99 / max | **{secs(m.group(2))} / {secs(m.group(3))} / {secs(m.group(4))}** |")
        print(f"| tries whose every placement was kept | **{m.group(5)} of {m.group(6)}** |")
    if times:
        print(f"| each try | {', '.join(secs(t) for t in times)} |")


NUMBER = re.compile(r"\d+(?:\.\d+)?")


def median_text(cells):
    """The first cell with each of its numbers replaced by that number's median over the cells."""
    numbers = [[float(x) for x in NUMBER.findall(c)] for c in cells]
    if not cells or any(len(n) != len(numbers[0]) for n in numbers):
        return ""
    medians = iter(statistics.median(col) for col in zip(*numbers))

    def as_written(m):
        # The median with as many decimals as the first run's number has.
        places = len(m.group(0).partition(".")[2])
        return f"{next(medians):.{places}f}"

    return NUMBER.sub(as_written, cells[0])


def rolling(*paths):
    """rolling-bench's `  key   value` rows, one column per run and their median."""
    runs, keys = [], []
    for path in paths:
        d = {}
        for line in open(path):
            m = re.match(r"^ {2,}(\S.*?)\s{2,}(\S.*)$", line.rstrip())
            if m:
                k = m.group(1).strip()
                d[k] = m.group(2)
                if k not in keys:
                    keys.append(k)
            m = re.search(r"drained and exited in ([\d.]+) s", line)
            if m:
                d["SIGTERM to exit (drain), s"] = m.group(1)
                if "SIGTERM to exit (drain), s" not in keys:
                    keys.insert(0, "SIGTERM to exit (drain), s")
        runs.append(d)
    print("| figure | median | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " |")
    print("|---|---:|" + "---:|" * len(runs))
    for k in keys:
        vals = [r.get(k, "") for r in runs]
        print_median = median_text(vals)
        label = f"**{k}**" if k.startswith(("LOST", "RACES ENDED")) else k
        print(f"| {label} | {print_median} | " + " | ".join(vals) + " |")


def main():
    what, args = sys.argv[1], sys.argv[2:]
    if what == "json":
        json_table(args[0])
    else:
        {"engine": engine, "grade": grade, "variants": variants, "ui": ui, "criterion": criterion, "lag": lag,
         "takeover": takeover, "rolling": rolling}[what](*args)


if __name__ == "__main__":
    main()
