r"""The official driver's results as Arrow: ``boltcodec.arrow.to_arrow`` against the peers.

Two workloads from a real Neo4j, each variant in its own process, in alternating rounds
within one run; best wall time per variant and that round's client CPU time
(``time.process_time``) and peak RSS (``ru_maxrss`` of the variant's process):

* ``scalars``  1,000,000 rows x 3 scalars (``--rows``);
* ``demo``     the demo's read (``scripts/demo_workload.py``: ``READ_QUERY`` over
               ``--nodes`` written nodes, a node on every row, a relationship on every
               other, dates, points, lists); the nodes are written once before the
               rounds (the demo's own write) and deleted after them.

The variants:

* ``floor``            a bare socket reading the PULL replies (no driver, no values);
* ``to_arrow``         ``driver.execute_query(q, result_transformer_=boltcodec.arrow.to_arrow)``
                       then ``pyarrow.table(...)`` (the drop-in's receive path on);
* ``to_arrow-polars``  the same into ``polars.DataFrame(...)``;
* ``to_df-pure`` / ``to_df-boltcodec`` / ``to_df-rustext``: ``Result.to_df`` with the
  driver's pure-Python codec, with boltcodec's drop-in, with neo4j-rust-ext.

Every variant pulls 1000 records at a time (the driver's default fetch size). The
scalar floor and to_df are those of ``crates/arrow/scripts/pybench.py``, the demo's floor
is ``demo_workload.floor_read`` (imported, not repeated). Run with a server:

    scripts/with-neo4j.sh 5.26 PORT -- .venv/bin/python \
        bindings/python/scripts/bench_arrow.py --rustext .venv-rustext/bin/python \
        [--rounds 3] [--rows 1000000] [--nodes 100000] [--workloads scalars,demo]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pybench = _load("pybench", ROOT / "crates" / "arrow" / "scripts" / "pybench.py")
demo = _load("demo_workload", ROOT / "scripts" / "demo_workload.py")

#: The tag of the demo nodes this benchmark writes (kept apart from ``make demo``'s).
DEMO_RUN = "bench-arrow"


def query_of(workload: str, rows: int) -> tuple[str, dict]:
    """Return the read query of ``workload`` and its parameters."""
    if workload == "demo":
        return demo.READ_QUERY, {"run": DEMO_RUN}
    return pybench.QUERY, {"rows": rows}


def connect():
    """Open a driver on the server of NEO4J_BOLT_PORT."""
    import neo4j

    port, user, password = pybench.env()
    return neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{port}", auth=(user, password))


def variant_floor(workload: str, rows: int) -> int:
    """Read from a bare socket (no driver, no values); return the rows."""
    if workload == "demo":
        port, user, password = pybench.env()
        query, params = query_of(workload, rows)
        return demo.floor_read(port, user, password, query, params)
    return pybench.variant_floor(rows)


def variant_to_arrow(workload: str, rows: int, polars: bool = False) -> int:
    """Read with the driver, ``to_arrow`` as its result transformer; return the rows."""
    import pyarrow as pa

    import boltcodec.arrow

    query, params = query_of(workload, rows)
    with connect() as d:
        batches = d.execute_query(query, params, result_transformer_=boltcodec.arrow.to_arrow)
    if boltcodec.arrow.last_path != "native":
        raise SystemExit(f"to_arrow did not take the native path: {boltcodec.arrow.last_path}")
    if polars:
        import polars as pl

        return pl.DataFrame(batches).height
    return pa.table(batches).num_rows


def variant_to_df(workload: str, rows: int) -> int:
    """Read with the driver into ``Result.to_df``; return the rows."""
    import neo4j

    query, params = query_of(workload, rows)
    with connect() as d:
        df = d.execute_query(query, params, result_transformer_=neo4j.Result.to_df)
    return len(df)


def child(name: str, workload: str, rows: int) -> None:
    """Run one variant; print its wall and CPU time and peak RSS as JSON."""
    fn = {
        "floor": lambda: variant_floor(workload, rows),
        "to_arrow": lambda: variant_to_arrow(workload, rows),
        "to_arrow-polars": lambda: variant_to_arrow(workload, rows, polars=True),
        "to_df": lambda: variant_to_df(workload, rows),
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
    c0, t0 = time.process_time(), time.perf_counter()
    n = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert n == rows, (name, workload, n, rows)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"wall": wall, "cpu": cpu, "rss_mib": rss}))


def write_demo(nodes: int) -> float:
    """Write the demo's data; return the seconds it took.

    As ``scripts/demo_workload.py`` writes it: ``nodes`` nodes in UNWIND batches of
    10,000, then a KNOWS relationship from every even node to the next.
    """
    t0 = time.perf_counter()
    with connect() as d:
        d.execute_query(
            "CREATE INDEX demo_run_id IF NOT EXISTS FOR (p:DemoPerson) ON (p.run, p.id)"
        )
        d.execute_query("MATCH (p:DemoPerson {run: $run}) DETACH DELETE p", run=DEMO_RUN)
        for start in range(0, nodes, 10_000):
            batch = demo.rows_for(DEMO_RUN, start, min(10_000, nodes - start))
            d.execute_query("UNWIND $rows AS r CREATE (p:DemoPerson) SET p = r", rows=batch)
        d.execute_query(
            "MATCH (a:DemoPerson {run: $run}) WHERE a.id % 2 = 0 "
            "MATCH (b:DemoPerson {run: $run, id: a.id + 1}) "
            "CREATE (a)-[:KNOWS {since: date('2020-01-01') + duration({days: a.id % 1000})}]->(b)",
            run=DEMO_RUN,
        )
    return time.perf_counter() - t0


def delete_demo() -> None:
    """Delete the nodes :func:`write_demo` wrote."""
    with connect() as d:
        d.execute_query("MATCH (p:DemoPerson {run: $run}) DETACH DELETE p", run=DEMO_RUN)


def load() -> str:
    """Return the load average, as 1/5/15 minutes."""
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def print_table(title: str, best: dict[str, dict[str, float]]) -> None:
    """Print one workload's results as a markdown table."""
    floor = best["floor"]["wall"]
    rustext_cpu = best.get("to_df-rustext", {}).get("cpu")
    print(f"\n{title}")
    print("| variant | wall s | x floor | client CPU s | CPU vs to_df-rustext | peak RSS MiB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, res in best.items():
        share = f"{res['cpu'] / rustext_cpu:.3f}" if rustext_cpu else "-"
        print(
            f"| {name} | {res['wall']:.3f} | {res['wall'] / floor:.2f} | "
            f"{res['cpu']:.3f} | {share} | {res['rss_mib']:.0f} |"
        )


def main() -> None:
    """Alternate the variants, per workload, then print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows of the scalar workload")
    ap.add_argument("--nodes", type=int, default=100_000, help="nodes (= rows) of the demo's")
    ap.add_argument("--workloads", default="scalars,demo")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rustext", help="a Python with neo4j + neo4j-rust-ext (+ pandas)")
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        child(args.child, os.environ["BENCH_ARROW_WORKLOAD"], args.rows)
        return
    me = str(Path(__file__).resolve())
    py = [sys.executable]
    tables = []
    for workload in args.workloads.split(","):
        rows = args.nodes if workload == "demo" else args.rows
        if workload == "demo":
            print(
                f"demo write: {args.nodes:,} nodes in {write_demo(args.nodes):.1f} s", flush=True
            )
        w = {"BENCH_ARROW_WORKLOAD": workload}
        variants: dict[str, tuple[list[str], str, dict[str, str]]] = {
            "floor": (py, "floor", w),
            "to_arrow": (py, "to_arrow", w),
            "to_arrow-polars": (py, "to_arrow-polars", w),
            "to_df-pure": (py, "to_df", {**w, "BOLTCODEC_NEO4J": "off"}),
            "to_df-boltcodec": (py, "to_df", w),
        }
        if args.rustext:
            variants["to_df-rustext"] = ([args.rustext], "to_df", {**w, "BOLTCODEC_NEO4J": "off"})
        print(f"== {workload}, load average {load()}", flush=True)
        try:
            best = pybench.alternate(me, variants, rows, args.rounds)
        finally:
            if workload == "demo":
                delete_demo()
        what = "3 scalars" if workload == "scalars" else "the demo's read"
        tables.append(
            (
                f"{rows:,} rows x {what}, PULL {pybench.FETCH}, "
                f"best of {args.rounds} alternating rounds, load average {load()} at the end",
                best,
            )
        )
    for title, best in tables:
        print_table(title, best)


if __name__ == "__main__":
    main()
