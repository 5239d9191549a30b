#!/usr/bin/env python3
"""Put a run of scripts/bench.sh into docs/benchmarks.md.

    python3 scripts/bench-paste.py run.md docs/benchmarks.md

Each section of the run (`## NAME — …`) replaces, in the document's section of that name, the
block the script made last time: from its first command line (a whole line in backticks) to its
closing `_(…)_` line. The prose around each block is kept; sections the run does not have are
left as they are. Prints which sections it replaced, and the run's header (to quote in the
document's introduction by hand).
"""

import re
import sys

HEADING = re.compile(r"^## (\S+) — ")
COMMAND = re.compile(r"^`[^`]+`$")


def run_sections(lines):
    """The run's header lines and, per section, its body (command lines to its `_(…)_` line)."""
    header, sections, name = [], {}, None
    for line in lines:
        m = HEADING.match(line)
        if m:
            name = m.group(1)
            sections[name] = []
        elif name is None:
            header.append(line)
        elif line.startswith("Total: "):
            name = None
        else:
            sections[name].append(line)
    for name, body in sections.items():
        while body and not body[0].strip():
            body.pop(0)
        while body and not body[-1].strip():
            body.pop()
    return header, sections


def block(doc, name):
    """Where section `name`'s generated block lies in `doc`: (first, last) line indexes."""
    start = next((i for i, l in enumerate(doc) if l.startswith(f"## {name} — ")), None)
    if start is None:
        return None
    first = None
    for i in range(start + 1, len(doc)):
        if HEADING.match(doc[i]):
            return None
        if first is None and COMMAND.match(doc[i]):
            first = i
        elif first is not None and doc[i].startswith("_("):
            return first, i
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    header, sections = run_sections(open(sys.argv[1], encoding="utf-8").read().split("\n"))
    doc = open(sys.argv[2], encoding="utf-8").read().split("\n")
    replaced, missing = [], []
    for name, body in sections.items():
        where = block(doc, name)
        if where is None or not body:
            missing.append(name)
            continue
        first, last = where
        doc[first : last + 1] = body
        replaced.append(name)
    open(sys.argv[2], "w", encoding="utf-8").write("\n".join(doc))
    print("replaced:", " ".join(replaced) or "nothing")
    if missing:
        print("not found in the document (add them by hand):", " ".join(missing))
    print("\n".join(l for l in header if l.strip()))


if __name__ == "__main__":
    main()
