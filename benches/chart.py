"""Draws the headline ratios of benches/RESULTS.md as one PNG (benches/headline.png).

    python benches/chart.py [--results benches/RESULTS.md] [--out benches/headline.png]

It reads the tables the benchmark scripts wrote (nothing is measured here), so the chart
always shows the numbers of the report: one panel per language, one bar per workload,
ratio = peer time / boltcodec time (right of the line at 1 means boltcodec is faster).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RATIO = re.compile(r"\*\*([0-9.]+)×\*\*")


def section(text: str, name: str) -> str:
    """The part of the report between `<!-- name:start -->` and `<!-- name:end -->`."""
    m = re.search(rf"<!-- {name}:start -->(.*?)<!-- {name}:end -->", text, re.DOTALL)
    return m.group(1) if m else ""


def tables(text: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """Every markdown table of `text`: (the heading above it, header cells, rows)."""
    out = []
    heading = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if (
            line.startswith("|")
            and i + 1 < len(lines)
            and set(lines[i + 1].replace("|", "").strip()) <= set("-: ")
        ):
            header = [c.strip() for c in line.strip("|").split("|")]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip() for c in lines[i].strip("|").split("|")])
                i += 1
            out.append((heading, header, rows))
            continue
        i += 1
    return out


def series(text: str, heading_has: str, column_has: str, row_filter=None) -> dict[str, float]:
    """workload -> ratio, from the bold ratio in the first column whose header contains
    `column_has`, in the first table under a heading containing `heading_has`."""
    for heading, header, rows in tables(text):
        if heading_has.lower() not in heading.lower():
            continue
        cols = [i for i, h in enumerate(header) if column_has.lower() in h.lower()]
        if not cols:
            continue
        out = {}
        for row in rows:
            if row_filter and not row_filter(row):
                continue
            m = RATIO.search(row[cols[0]]) if cols[0] < len(row) else None
            if m:
                out[row[0]] = float(m.group(1))
        if out:
            return out
    return {}


def panels(report: str) -> list[tuple[str, list[tuple[str, dict[str, float]]]]]:
    rust = section(report, "criterion")
    py = section(report, "python")
    node = section(report, "node")
    c = section(report, "c")
    out = [
        (
            "Rust core vs rmpv (MessagePack)",
            [
                ("decode, borrowed", series(rust, "Decode", "borrowed")),
                ("encode", series(rust, "Encode", "rmpv")),
            ],
        ),
        (
            "Python driver: boltcodec vs neo4j-rust-ext",
            [
                ("decode, receive path", series(py, "Decode", "receive ratio")),
                ("execute_query end to end", series(py, "End to end", "vs rust-ext")),
                ("encode", series(py, "Encode", "ratio")),
            ],
        ),
        (
            "Node: boltcodec vs neo4j-driver's JS codec",
            [
                (
                    "unpack",
                    series(
                        node,
                        "Node",
                        "vs official",
                        lambda r: len(r) > 1 and r[1] == "unpack",
                    ),
                ),
                (
                    "pack",
                    series(
                        node,
                        "Node",
                        "vs official",
                        lambda r: len(r) > 1 and r[1] == "pack",
                    ),
                ),
            ],
        ),
    ]
    c_series = series(c, "", "direct")
    if c_series:
        out.append(
            (
                "C ABI vs calling the Rust crate directly",
                [("speed relative to Rust", c_series)],
            )
        )
    return [
        (title, [(n, s) for n, s in group if s])
        for title, group in out
        if any(s for _, s in group)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", type=Path, default=ROOT / "benches" / "RESULTS.md")
    ap.add_argument("--out", type=Path, default=ROOT / "benches" / "headline.png")
    args = ap.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    groups = panels(args.results.read_text())
    if not groups:
        raise SystemExit("no ratio tables found in the report")
    heights = [max(2.0, 0.28 * sum(len(s) for _, s in g) + 1.2) for _, g in groups]
    fig, axes = plt.subplots(
        len(groups),
        1,
        figsize=(9, sum(heights)),
        gridspec_kw={"height_ratios": heights},
    )
    if len(groups) == 1:
        axes = [axes]
    colors = ["#2b6cb0", "#dd6b20", "#2f855a", "#805ad5"]
    for ax, (title, group) in zip(axes, groups):
        labels, values, cols = [], [], []
        for k, (name, s) in enumerate(group):
            for workload, ratio in s.items():
                labels.append(f"{name}: {workload}")
                values.append(ratio)
                cols.append(colors[k % len(colors)])
        y = range(len(values))
        ax.barh(list(y), values, color=cols)
        ax.set_yticks(list(y))
        ax.set_yticklabels(labels, fontsize=7)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        ticks = [
            t
            for t in (0.5, 1, 2, 5, 10, 20, 50, 100)
            if min(values) / 1.5 <= t <= max(values) * 1.5
        ]
        ax.set_xticks(ticks)
        ax.set_xticklabels([f"{t:g}×" for t in ticks])
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(title, fontsize=10, loc="left")
        for yi, v in zip(y, values):
            ax.text(v, yi, f" {v:.2f}×", va="center", fontsize=6)
        ax.tick_params(axis="x", labelsize=7)
    axes[-1].set_xlabel(
        "peer time / boltcodec time (log scale; > 1 means boltcodec is faster)",
        fontsize=8,
    )
    fig.suptitle("boltcodec: headline ratios from benches/RESULTS.md", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.985))
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
