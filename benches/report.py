#!/usr/bin/env python3
"""Turn criterion's results (target/criterion) into the ratio tables of benches/RESULTS.md.

Usage: python3 benches/report.py [--criterion-dir DIR] [--out benches/RESULTS.md]

Only the section between the `criterion` markers is rewritten; other sections of the file
(Python, Node, C comparisons) are left as they are.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import subprocess
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- criterion:start -->", "<!-- criterion:end -->"

# (ours, peer) pairs compared in each direction, with the column title.
DECODE_PAIRS = [
    ("boltcodec-ref", "rmpv-ref", "borrowed: boltcodec ValueRef vs rmpv ValueRef"),
    ("boltcodec-owned", "rmpv-owned", "owned: boltcodec Value vs rmpv Value"),
    ("boltcodec-serde", "rmp-serde", "serde, untagged enum cells: boltcodec vs rmp-serde"),
    ("boltcodec-typed", "rmp-typed", "serde, typed structs: boltcodec vs rmp-serde"),
    (
        "boltcodec-typed-reused",
        "rmp-typed",
        "serde, typed structs, reused Deserializer: boltcodec vs rmp-serde",
    ),
]
ENCODE_PAIRS = [("boltcodec-owned", "rmpv-owned", "boltcodec Value vs rmpv Value")]


def load(criterion_dir: Path) -> dict[tuple[str, str], float]:
    """Mean time in ns per (group, function)."""
    out = {}
    for bench in criterion_dir.glob("**/new/benchmark.json"):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        out[(meta["group_id"], meta["function_id"])] = est["mean"]["point_estimate"]
    return out


def fmt_time(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def cmd(*args: str) -> str:
    try:
        return subprocess.run(args, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "?"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def table(results, direction: str, pairs) -> list[str]:
    workloads = sorted(
        {g.rsplit("/", 1)[0] for (g, _) in results if g.endswith("/" + direction)},
        key=lambda w: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", w)],
    )
    lines = [
        "| workload | " + " | ".join(f"{title} (time, ratio)" for _, _, title in pairs) + " |",
        "| --- |" + " --- |" * len(pairs),
    ]
    for w in workloads:
        cells = []
        for ours, peer, _ in pairs:
            a = results.get((f"{w}/{direction}", ours))
            b = results.get((f"{w}/{direction}", peer))
            if a is None or b is None:
                cells.append("–")
            else:
                cells.append(f"{fmt_time(a)} vs {fmt_time(b)}: **{b / a:.2f}×**")
        lines.append(f"| {w} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--criterion-dir", type=Path, default=ROOT / "target" / "criterion")
    ap.add_argument("--out", type=Path, default=ROOT / "benches" / "RESULTS.md")
    args = ap.parse_args()
    results = load(args.criterion_dir)
    if not results:
        raise SystemExit(
            f"no criterion results under {args.criterion_dir}; run `make bench-rust` first"
        )
    section = [
        START,
        "## Rust core: PackStream vs MessagePack (criterion)",
        "",
        f"Measured {date.today().isoformat()} on {cpu_model()} ({cmd('nproc')} cores), "
        f"{cmd('rustc', '--version')}, profile `bench` (lto, codegen-units = 1). "
        "Same data in both formats (`benches/src/lib.rs`); mean time per iteration; "
        "ratio = peer time / boltcodec time (above 1 means boltcodec is faster). "
        "Every function runs with glibc's heap trimming in the same state: the bench "
        "frees one 4 MiB block before measuring, so no multi-megabyte decode is trimmed "
        "and faulted in again per iteration (`settle_allocator` in "
        "`benches/benches/packstream.rs`; before, `lists_1000x100` depended on which "
        "functions ran before criterion's first large free). "
        "Regenerate with `make bench-rust`.",
        "",
        "Goals (issue 12): every decode ≥ 1.5× rmpv (borrowed and owned) and ≥ 1.5× "
        "rmp-serde (typed serde), every encode ≥ 1.2× rmpv.",
        "",
        "### Decode",
        "",
        *table(results, "decode", DECODE_PAIRS),
        "",
        "### Encode",
        "",
        *table(results, "encode", ENCODE_PAIRS),
        "",
        "Workloads: `lists_NxM` is one list of N lists of M mixed ints/floats/short strings; "
        "`records_10000x3` is 10,000 RECORD messages of 3 fields decoded one call each; "
        "`rows_350x20` is 350 RECORDs of 20 mixed columns (ints, floats, 8–24 byte strings, "
        "booleans, nulls). The MessagePack form of a RECORD is `[0x71, [fields]]`.",
        END,
    ]
    text = args.out.read_text() if args.out.exists() else "# Benchmark results\n\n"
    if START in text and END in text:
        before, rest = text.split(START, 1)
        after = rest.split(END, 1)[1]
        text = before + "\n".join(section) + after
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(section) + "\n"
    args.out.write_text(text)
    print(f"wrote {args.out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
