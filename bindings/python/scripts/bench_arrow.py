r"""The official driver's results as Arrow: ``boltcodec.arrow.to_arrow`` against the peers.

1,000,000 rows x 3 scalars from a real Neo4j, each variant in its own process, in
alternating rounds within one run; best wall time per variant and that round's client
CPU time (``time.process_time``):

* ``floor``            a bare socket reading the PULL replies (no driver, no values);
* ``to_arrow``         ``driver.execute_query(q, result_transformer_=boltcodec.arrow.to_arrow)``
                       then ``pyarrow.table(...)`` (the drop-in's receive path on);
* ``to_arrow-polars``  the same into ``polars.DataFrame(...)``;
* ``to_df-pure`` / ``to_df-boltcodec`` / ``to_df-rustext``: ``Result.to_df`` with the
  driver's pure-Python codec, with boltcodec's drop-in, with neo4j-rust-ext.

Every variant pulls 1000 records at a time (the driver's default fetch size). The floor
and the to_df variants are those of ``crates/arrow/scripts/pybench.py`` (imported, not
repeated). Run with a server:

    scripts/with-neo4j.sh 5.26 PORT -- .venv/bin/python \
        bindings/python/scripts/bench_arrow.py --rustext .venv-rustext/bin/python \
        [--rounds 3] [--rows 1000000]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location(
    "pybench", ROOT / "crates" / "arrow" / "scripts" / "pybench.py"
)
assert _spec is not None
assert _spec.loader is not None
pybench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pybench)


def variant_to_arrow(rows: int, polars: bool = False) -> int:
    """Read with the driver, ``to_arrow`` as its result transformer; return the rows."""
    import neo4j
    import pyarrow as pa

    import boltcodec.arrow

    port, user, password = pybench.env()
    with neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{port}", auth=(user, password)) as d:
        batches = d.execute_query(
            pybench.QUERY, rows=rows, result_transformer_=boltcodec.arrow.to_arrow
        )
    if boltcodec.arrow.last_path != "native":
        raise SystemExit(f"to_arrow did not take the native path: {boltcodec.arrow.last_path}")
    if polars:
        import polars as pl

        return pl.DataFrame(batches).height
    return pa.table(batches).num_rows


def child(name: str, rows: int) -> None:
    """Run one variant and print its wall and CPU time as JSON."""
    fn = {
        "floor": lambda: pybench.variant_floor(rows),
        "to_arrow": lambda: variant_to_arrow(rows),
        "to_arrow-polars": lambda: variant_to_arrow(rows, polars=True),
        "to_df": lambda: pybench.variant_to_df(rows),
    }[name]
    # Imports are not part of the measurement.
    if name != "floor":
        import neo4j  # noqa: F401
    if name == "floor" or name.startswith("to_arrow"):
        import boltcodec
    if name.startswith("to_arrow"):
        import pyarrow  # noqa: F401

        import boltcodec.arrow  # noqa: F401
    if name == "to_arrow-polars":
        import polars  # noqa: F401
    if name == "to_df":
        import pandas  # noqa: F401
    pybench.timed(name, fn, rows)


def main() -> None:
    """Alternate the variants, then print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rustext", help="a Python with neo4j + neo4j-rust-ext (+ pandas)")
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        child(args.child, args.rows)
        return
    me = str(Path(__file__).resolve())
    py = [sys.executable]
    variants: dict[str, tuple[list[str], str, dict[str, str]]] = {
        "floor": (py, "floor", {}),
        "to_arrow": (py, "to_arrow", {}),
        "to_arrow-polars": (py, "to_arrow-polars", {}),
        "to_df-pure": (py, "to_df", {"BOLTCODEC_NEO4J": "off"}),
        "to_df-boltcodec": (py, "to_df", {}),
    }
    if args.rustext:
        variants["to_df-rustext"] = ([args.rustext], "to_df", {"BOLTCODEC_NEO4J": "off"})
    best = pybench.alternate(me, variants, args.rows, args.rounds)
    floor = best["floor"]["wall"]
    rustext_cpu = best.get("to_df-rustext", {}).get("cpu")
    print(
        f"\n{args.rows:,} rows x 3 scalars, PULL {pybench.FETCH}, "
        f"best of {args.rounds} alternating rounds"
    )
    print("| variant | wall s | x floor | client CPU s | CPU vs to_df-rustext |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, res in best.items():
        share = f"{res['cpu'] / rustext_cpu:.3f}" if rustext_cpu else "-"
        print(
            f"| {name} | {res['wall']:.3f} | {res['wall'] / floor:.2f} | "
            f"{res['cpu']:.3f} | {share} |"
        )


if __name__ == "__main__":
    main()
