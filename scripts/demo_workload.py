"""One run of the demo workload with the official neo4j Python driver.

Run in its own process per codec, so that the codec choice (pure Python, boltcodec via
its import hook, or neo4j-rust-ext in its own venv) is fixed before the driver is
imported. Prints one JSON line: timings (the read's wall clock and this process's CPU
time over it, and the cyclic GC's collections in it per generation: count and seconds),
row counts, and a digest of everything read, so the runs can be checked to agree.

    python scripts/demo_workload.py --port 7687 --run pure --nodes 100000

With --floor the read goes through a bare socket decoded by boltcodec, no driver (the raw
floor); with --scalars N the run only reads N rows of three scalars.

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
import typing

if typing.TYPE_CHECKING:
    from typing import Self


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


READ_QUERY = (
    "MATCH (p:DemoPerson {run: $run}) OPTIONAL MATCH (p)-[k:KNOWS]->() "
    "RETURN p.id AS id, p.name AS name, p.score AS score, p.tags AS tags, "
    "p.born AS born, p.location AS location, p AS node, k AS rel ORDER BY id"
)
SCALARS_QUERY = "UNWIND range(1, $n) AS i RETURN i, i * 0.5 AS f, 'name-' + toString(i) AS s"

#: Records per PULL, as the driver's default fetch size.
FETCH = 1000


def floor_read(
    port: int,
    user: str,
    password: str,
    query: str,
    params: dict,
    keep: list | None = None,
) -> int:
    """The raw floor: ``query`` read from a bare socket, every message decoded by
    ``boltcodec.Dechunker.feed_messages`` (structures left as ``Structure``), no driver.

    Speaks Bolt 5.x as the driver does (HELLO, LOGON, RUN, PULL of ``FETCH`` records at
    a time); returns the number of records. The rows are dropped as they are counted,
    unless ``keep`` is a list: then each RECORD's row (its decoded field list) is
    appended to it, as a caller keeping the result would.
    """
    import socket

    import boltcodec

    structure = boltcodec.Structure
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    # Bolt 5.8 down to 5.1 (LOGON), nothing else.
    sock.sendall(bytes.fromhex("6060B017") + bytes.fromhex("00070805") + bytes(12))
    version = b""
    while len(version) < 4:
        part = sock.recv(4 - len(version))
        if not part:
            raise SystemExit("floor: the server closed the connection in the handshake")
        version += part
    if version[3] != 5:
        raise SystemExit(f"floor: no Bolt 5.1+ (server chose {version.hex()})")
    dechunker = boltcodec.Dechunker()
    queue: list = []

    def send(*messages: object) -> None:
        out = bytearray()
        for m in messages:
            data = boltcodec.packb(m)
            for i in range(0, len(data), 65535):
                part = data[i : i + 65535]
                out += len(part).to_bytes(2, "big") + part
            out += b"\x00\x00"
        sock.sendall(out)

    def summary() -> dict:
        while True:
            while not queue:
                data = sock.recv(262144)
                if not data:
                    raise SystemExit("floor: the server closed the connection")
                queue.extend(reversed(dechunker.feed_messages(data)))
            tag, fields = queue.pop()
            if tag == 0x71:  # RECORD
                summary.records += 1
                if keep is not None:
                    keep.append(fields[0])
                continue
            if tag != 0x70:  # not SUCCESS
                raise SystemExit(f"floor: server replied {tag:#x} {fields}")
            return fields[0]

    summary.records = 0
    send(
        structure(
            b"\x01",
            {
                "user_agent": "boltcodec-demo-floor/0.1",
                "bolt_agent": {"product": "boltcodec-demo-floor/0.1"},
            },
        ),
        structure(b"\x6a", {"scheme": "basic", "principal": user, "credentials": password}),
    )
    summary()
    summary()
    send(structure(b"\x10", query, params, {}), structure(b"\x3f", {"n": FETCH}))
    summary()  # RUN's SUCCESS
    while summary().get("has_more"):
        send(structure(b"\x3f", {"n": FETCH}))
    sock.sendall(b"\x00\x02\xb0\x02\x00\x00")  # GOODBYE
    sock.close()
    return summary.records


class GcClock:
    """Counts the cyclic GC's collections and their time while it is installed.

    ``gc.callbacks`` is told of every collection's start and stop; per generation the
    count and the seconds (``time.process_time``) are summed. Installed around the read
    only, and removed after it.
    """

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._started = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            gen = info["generation"]
            self.count[gen] += 1
            self.seconds[gen] += time.process_time() - self._started

    def __enter__(self) -> Self:
        import gc

        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        import gc

        gc.callbacks.remove(self)


class Stopwatch:
    """Times one read: wall clock (``wall``), this process's CPU time (``cpu``, user and
    system) and the cyclic GC's collections within it (``gc``, a :class:`GcClock`)."""

    def __enter__(self) -> Self:
        self.gc = GcClock().__enter__()
        self._wall = time.perf_counter()
        self._cpu = time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cpu = time.process_time() - self._cpu
        self.wall = time.perf_counter() - self._wall
        self.gc.__exit__()


def peak_rss_mib() -> float:
    """This process's peak resident memory so far, MiB."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def codec_in_use() -> str:
    """Which codec the driver actually used (asked after the queries ran)."""
    try:
        import boltcodec.dropin

        st = boltcodec.dropin.status()
        if st.get("hydration"):
            return "boltcodec (codec + receive path + hydration)"
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
    ap.add_argument("--port", type=int, default=int(os.environ.get("NEO4J_BOLT_PORT", "7687")))
    ap.add_argument("--user", default=os.environ.get("NEO4J_USER", "neo4j"))
    ap.add_argument("--password", default=os.environ.get("NEO4J_PASSWORD", "password"))
    ap.add_argument("--run", default="demo", help="a tag that keeps this run's nodes apart")
    ap.add_argument("--nodes", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument(
        "--floor",
        action="store_true",
        help="read from a bare socket with boltcodec (no driver): the raw floor",
    )
    ap.add_argument(
        "--scalars",
        type=int,
        default=0,
        help="instead of the demo workload, read this many rows of 3 scalars (no writes)",
    )
    args = ap.parse_args()

    if args.scalars:
        params = {"n": args.scalars}
        if args.floor:
            with Stopwatch() as read:
                rows = floor_read(args.port, args.user, args.password, SCALARS_QUERY, params)
            digest = "-"
        else:
            import neo4j

            uri = f"bolt://127.0.0.1:{args.port}"
            with neo4j.GraphDatabase.driver(uri, auth=(args.user, args.password)) as driver:
                with Stopwatch() as read:
                    records, _, _ = driver.execute_query(SCALARS_QUERY, params)
                h = hashlib.sha256()
                for r in records:
                    h.update(repr(tuple(r)).encode())
                rows, digest = len(records), h.hexdigest()[:16]
        report(
            args,
            "raw floor" if args.floor else codec_in_use(),
            0.0,
            rows,
            read,
            digest,
        )
        return

    import neo4j

    uri = f"bolt://127.0.0.1:{args.port}"
    with neo4j.GraphDatabase.driver(uri, auth=(args.user, args.password)) as driver:
        driver.execute_query(
            "CREATE INDEX demo_run_id IF NOT EXISTS FOR (p:DemoPerson) ON (p.run, p.id)"
        )
        driver.execute_query("MATCH (p:DemoPerson {run: $run}) DETACH DELETE p", run=args.run)

        t0 = time.perf_counter()
        for start in range(0, args.nodes, args.batch):
            batch = rows_for(args.run, start, min(args.batch, args.nodes - start))
            driver.execute_query("UNWIND $rows AS r CREATE (p:DemoPerson) SET p = r", rows=batch)
        write_s = time.perf_counter() - t0

        driver.execute_query(
            "MATCH (a:DemoPerson {run: $run}) WHERE a.id % 2 = 0 "
            "MATCH (b:DemoPerson {run: $run, id: a.id + 1}) "
            "CREATE (a)-[:KNOWS {since: date('2020-01-01') + duration({days: a.id % 1000})}]->(b)",
            run=args.run,
        )

        if args.floor:
            params = {"run": args.run}
            with Stopwatch() as read:
                rows = floor_read(args.port, args.user, args.password, READ_QUERY, params)
            digest = "-"
        else:
            with Stopwatch() as read:
                records, _, _ = driver.execute_query(READ_QUERY, run=args.run)
            rows, digest = digest_rows(records)

        driver.execute_query("MATCH (p:DemoPerson {run: $run}) DETACH DELETE p", run=args.run)

    report(
        args,
        "raw floor" if args.floor else codec_in_use(),
        write_s,
        rows,
        read,
        digest,
    )


def report(args, codec: str, write_s: float, rows: int, read: Stopwatch, digest: str) -> None:
    """Print the run's one JSON line."""
    import neo4j

    json.dump(
        {
            "codec": codec,
            "python": sys.version.split()[0],
            "driver": neo4j.__version__,
            "nodes": args.nodes,
            "write_s": write_s,
            "rows": rows,
            "read_s": read.wall,
            "cpu_s": read.cpu,
            "gc_count": read.gc.count,
            "gc_s": read.gc.seconds,
            "digest": digest,
            "peak_rss_mib": peak_rss_mib(),
        },
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
