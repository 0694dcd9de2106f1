"""One run of the demo workload with the official neo4j Python driver.

Run in its own process per codec, so that the codec choice (pure Python, boltcodec via
its import hook, or neo4j-rust-ext in its own venv) is fixed before the driver is
imported. Prints one JSON line: timings, row counts, and a digest of everything read, so
the runs can be checked to agree.

    python scripts/demo_workload.py --port 7687 --run pure --nodes 100000

The workload:
  write  100,000 nodes in UNWIND batches of 10,000 (mixed properties: int, string,
         float, list, date, point), then link every even node to the next one;
  read   100,000 rows of mixed values and graph entities (a node on every row, a
         relationship on every other row) with execute_query.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import sys
import time


def rows_for(run: str, start: int, count: int) -> list[dict]:
    """The parameter rows of one UNWIND batch (deterministic)."""
    import neo4j.spatial

    base = datetime.date(1970, 1, 1)
    return [
        {
            "run": run,
            "id": i,
            "name": f"person-{i:06d}",
            "score": i * 0.25,
            "tags": ["a", "b", str(i % 7)],
            "born": base + datetime.timedelta(days=i % 20000),
            "location": neo4j.spatial.CartesianPoint((float(i % 100), float(i % 37))),
        }
        for i in range(start, start + count)
    ]


def digest_rows(records) -> tuple[int, str]:
    """Row count and a digest of every value read (graph entities by their content)."""
    h = hashlib.sha256()
    n = 0
    for r in records:
        n += 1
        node, rel = r["node"], r["rel"]
        parts = [
            r["id"],
            r["name"],
            r["score"],
            r["tags"],
            str(r["born"]),
            tuple(r["location"]),
            sorted(node.labels),
            node["id"],
            None if rel is None else (rel.type, str(rel["since"])),
        ]
        h.update(repr(parts).encode())
    return n, h.hexdigest()[:16]


def codec_in_use() -> str:
    """Which codec the driver actually used (asked after the queries ran)."""
    try:
        import boltcodec.dropin

        st = boltcodec.dropin.status()
        if st.get("receive"):
            return "boltcodec (codec + receive path)"
        if st.get("codec"):
            return "boltcodec (codec)"
    except ImportError:
        pass
    try:
        import neo4j._rust  # noqa: F401  (present only with neo4j-rust-ext)

        return "neo4j-rust-ext"
    except ImportError:
        return "pure-python"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--port", type=int, default=int(os.environ.get("NEO4J_BOLT_PORT", "7687"))
    )
    ap.add_argument("--user", default=os.environ.get("NEO4J_USER", "neo4j"))
    ap.add_argument("--password", default=os.environ.get("NEO4J_PASSWORD", "password"))
    ap.add_argument(
        "--run", required=True, help="a tag that keeps this run's nodes apart"
    )
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=10_000)
    args = ap.parse_args()

    import neo4j

    uri = f"bolt://127.0.0.1:{args.port}"
    with neo4j.GraphDatabase.driver(uri, auth=(args.user, args.password)) as driver:
        driver.execute_query(
            "CREATE INDEX demo_run_id IF NOT EXISTS FOR (p:DemoPerson) ON (p.run, p.id)"
        )
        driver.execute_query(
            "MATCH (p:DemoPerson {run: $run}) DETACH DELETE p", run=args.run
        )

        t0 = time.perf_counter()
        for start in range(0, args.nodes, args.batch):
            batch = rows_for(args.run, start, min(args.batch, args.nodes - start))
            driver.execute_query(
                "UNWIND $rows AS r CREATE (p:DemoPerson) SET p = r", rows=batch
            )
        write_s = time.perf_counter() - t0

        driver.execute_query(
            "MATCH (a:DemoPerson {run: $run}) WHERE a.id % 2 = 0 "
            "MATCH (b:DemoPerson {run: $run, id: a.id + 1}) "
            "CREATE (a)-[:KNOWS {since: date('2020-01-01') + duration({days: a.id % 1000})}]->(b)",
            run=args.run,
        )

        query = (
            "MATCH (p:DemoPerson {run: $run}) OPTIONAL MATCH (p)-[k:KNOWS]->() "
            "RETURN p.id AS id, p.name AS name, p.score AS score, p.tags AS tags, "
            "p.born AS born, p.location AS location, p AS node, k AS rel ORDER BY id"
        )
        t0 = time.perf_counter()
        records, _, _ = driver.execute_query(query, run=args.run)
        read_s = time.perf_counter() - t0
        rows, digest = digest_rows(records)

        driver.execute_query(
            "MATCH (p:DemoPerson {run: $run}) DETACH DELETE p", run=args.run
        )

    json.dump(
        {
            "codec": codec_in_use(),
            "python": sys.version.split()[0],
            "driver": neo4j.__version__,
            "nodes": args.nodes,
            "write_s": write_s,
            "rows": rows,
            "read_s": read_s,
            "digest": digest,
        },
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
