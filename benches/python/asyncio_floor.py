"""The asyncio example (examples/python/asyncio_client.py) against the raw floor.

Both read the same 1,000,000 rows of three scalars from a real Neo4j, 1000 records per
PULL: the floor with a bare blocking socket and ``boltcodec.Dechunker.feed_messages``
(scripts/demo_workload.py ``--floor``), the example through asyncio streams and
``boltcodec.bolt.ClientConnection`` (handshake, state rules, record batches). Each runs
in its own process, in alternating rounds; the best wall clock of each is compared.

    NEO4J_BOLT_PORT=... python benches/python/asyncio_floor.py [--rows N] [--rounds 3]
        [--update benches/RESULTS.md]

``--update`` writes the table between ``<!-- python-asyncio:start -->`` and
``<!-- python-asyncio:end -->`` (appended if the markers are missing).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
START, END = "<!-- python-asyncio:start -->", "<!-- python-asyncio:end -->"
QUERY = "UNWIND range(1, $n) AS i RETURN i, i * 0.5 AS f, 'name-' + toString(i) AS s"


def child_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def floor(rows: int) -> float:
    """One floor read; its wall clock (connect included)."""
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "demo_workload.py"),
            "--floor",
            "--scalars",
            str(rows),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["rows"] == rows, result
    return result["read_s"]


def example(rows: int) -> float:
    """One read by the asyncio example; its wall clock (connect included)."""
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "python" / "asyncio_client.py"),
            "--count",
            QUERY,
            f"n={rows}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    m = re.match(r"(\d+) rows in ([0-9.]+) s", out.strip().splitlines()[-1])
    assert m, out
    assert int(m.group(1)) == rows, out
    return float(m.group(2))


def main() -> None:
    """Alternate rounds, print the table, optionally write it into RESULTS.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--update", type=Path)
    args = ap.parse_args()
    times: dict[str, list[float]] = {"raw floor": [], "asyncio example": []}
    cpu: dict[str, list[float]] = {"raw floor": [], "asyncio example": []}
    for r in range(args.rounds):
        for name, read in (("raw floor", floor), ("asyncio example", example)):
            before = child_cpu()
            times[name].append(read(args.rows))
            cpu[name].append(child_cpu() - before)
        print(
            f"round {r + 1}: floor {times['raw floor'][-1]:.2f} s, "
            f"example {times['asyncio example'][-1]:.2f} s",
            file=sys.stderr,
        )
    best = {k: min(v) for k, v in times.items()}
    best_cpu = {k: min(v) for k, v in cpu.items()}
    ratio = best["asyncio example"] / best["raw floor"]
    table = "\n".join(
        [
            f"{args.rows:,} rows of three scalars (`{QUERY}`), 1000 per PULL, Neo4j 5.26 on "
            f"loopback; best of {args.rounds} alternating rounds, each in its own process "
            "(wall clock, connect included; client CPU = user + system seconds of the "
            "reading process, interpreter start included).",
            "",
            "| reader | best wall clock | rows/s | x floor | best client CPU | x floor |",
            "| --- | --- | --- | --- | --- | --- |",
            *(
                f"| {k} | {t:.2f} s | {args.rows / t:,.0f} | {t / best['raw floor']:.2f}x "
                f"| {best_cpu[k]:.2f} s | {best_cpu[k] / best_cpu['raw floor']:.2f}x |"
                for k, t in best.items()
            ),
        ]
    )
    print(table)
    print(f"asyncio example / raw floor: {ratio:.2f}x (goal: within 1.2x)")
    if args.update:
        text = args.update.read_text()
        block = f"{START}\n{table}\n{END}"
        if START in text and END in text:
            text = text[: text.index(START)] + block + text[text.index(END) + len(END) :]
        else:
            text = text.rstrip() + "\n\n" + block + "\n"
        args.update.write_text(text)


if __name__ == "__main__":
    os.environ.setdefault("NEO4J_BOLT_PORT", "7687")
    main()
