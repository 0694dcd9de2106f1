"""Python end to end: 1,000,000 rows x 3 scalars from a real Neo4j into columns.

Compares, in alternating rounds within one run (each variant in its own process):

* ``floor``      a bare socket reading the PULL replies (de-chunked, summaries found),
* ``arrow``      the same socket, the bytes fed to ``boltcodec.arrow.ArrowStream``, then
                 one ``pyarrow.Table`` of all batches,
* ``polars``     ``arrow`` then ``polars.DataFrame`` of it,
* ``to_df-pure`` / ``to_df-boltcodec`` / ``to_df-rustext``: the official driver's
  ``execute_query(..., result_transformer_=neo4j.Result.to_df)`` with its pure-Python
  codec, with boltcodec's drop-in, and with neo4j-rust-ext.

Every variant asks for 1000 records per PULL (the driver's default fetch size). Reports
the best wall time and that round's client CPU time (``time.process_time``) per
variant. Run it with a server:

    scripts/with-neo4j.sh 5.26 17487 -- .venv-arrow/bin/python crates/arrow/scripts/pybench.py \\
        --rustext .venv-rustext/bin/python

Needs boltcodec (with ``boltcodec.arrow``), pyarrow, polars, pandas and neo4j in the
interpreter that runs it; neo4j-rust-ext in the one given to ``--rustext``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time

QUERY = "UNWIND range(1, $rows) AS i RETURN i, i * 0.5 AS f, 'name-' + toString(i) AS s"
FETCH = 1000


def env() -> tuple[int, str, str]:
    return (
        int(os.environ["NEO4J_BOLT_PORT"]),
        os.environ.get("NEO4J_USER", "neo4j"),
        os.environ.get("NEO4J_PASSWORD", "password"),
    )


class Bolt:
    """A minimal Bolt 5.8 client over a blocking socket, enough for RUN and PULL."""

    def __init__(self) -> None:
        import boltcodec

        self.bc = boltcodec
        port, user, password = env()
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # magic, then Bolt 5.8 only
        self.sock.sendall(bytes.fromhex("6060B017") + bytes.fromhex("00000805") + bytes(12))
        assert self._recv_exact(4) == bytes.fromhex("00000805"), "Bolt 5.8 refused"
        self.dechunker = boltcodec.Dechunker()
        self.pending: list[bytes] = []
        S = boltcodec.Structure
        hello = {
            "user_agent": "boltcodec-arrow-bench/0.1",
            "bolt_agent": {"product": "boltcodec/0.1"},
        }
        self.send(S(b"\x01", hello))
        self.send(S(b"\x6a", {"scheme": "basic", "principal": user, "credentials": password}))
        self.summary()
        self.summary()

    def _recv_exact(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            part = self.sock.recv(n - len(out))
            assert part, "connection closed"
            out += part
        return out

    def send(self, message: object) -> None:
        data = self.bc.packb(message)
        self.sock.sendall(len(data).to_bytes(2, "big") + data + b"\x00\x00")

    def message(self) -> bytes:
        while not self.pending:
            self.pending.extend(self.dechunker.feed(self.sock.recv(65536)))
        return self.pending.pop(0)

    def summary(self) -> dict:
        m = self.bc.unpackb(self.message())
        assert m.tag == b"\x70", f"not SUCCESS: {m}"
        return m.fields[0]

    def run(self, rows: int) -> list[str]:
        self.send(self.bc.Structure(b"\x10", QUERY, {"rows": rows}, {}))
        return self.summary()["fields"]

    def pull(self) -> None:
        self.send(self.bc.Structure(b"\x3f", {"n": FETCH}))


def variant_floor(rows: int) -> int:
    b = Bolt()
    b.run(rows)
    b.pull()
    d = b.bc.Dechunker()
    n = 0
    while True:
        for m in d.feed(b.sock.recv(262144)):
            if m[1] == 0x71:  # RECORD
                n += 1
                continue
            meta = b.bc.unpackb(m).fields[0]
            if meta.get("has_more"):
                b.pull()
            else:
                return n


def variant_arrow(rows: int, polars: bool = False) -> int:
    import pyarrow as pa
    from boltcodec.arrow import ArrowStream

    b = Bolt()
    fields = b.run(rows)
    stream = ArrowStream(fields, "5.8")
    b.pull()
    tables = []
    while not stream.done:
        out = stream.feed(b.sock.recv(262144))
        if out is not None:
            tables.append(pa.table(out))
        if stream.take_has_more():
            b.pull()
    table = pa.concat_tables(tables)
    if polars:
        import polars as pl

        return pl.DataFrame(table).height
    return table.num_rows


def variant_to_df(rows: int) -> int:
    import neo4j

    port, user, password = env()
    with neo4j.GraphDatabase.driver(f"bolt://127.0.0.1:{port}", auth=(user, password)) as driver:
        df = driver.execute_query(QUERY, rows=rows, result_transformer_=neo4j.Result.to_df)
    return len(df)


def child(name: str, rows: int) -> None:
    fn = {
        "floor": lambda: variant_floor(rows),
        "arrow": lambda: variant_arrow(rows),
        "polars": lambda: variant_arrow(rows, polars=True),
        "to_df": lambda: variant_to_df(rows),
    }[name]
    # Imports are not part of the measurement.
    if name in ("floor", "arrow", "polars"):
        import boltcodec
    if name in ("arrow", "polars"):
        import boltcodec.arrow  # noqa: F401
        import pyarrow  # noqa: F401
    if name == "polars":
        import polars  # noqa: F401
    if name == "to_df":
        import neo4j  # noqa: F401
        import pandas  # noqa: F401
    timed(name, fn, rows)


def timed(name: str, fn, rows: int) -> None:
    """Run ``fn`` (which returns the row count) and print its wall and CPU time as JSON."""
    c0, t0 = time.process_time(), time.perf_counter()
    n = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert n == rows, (name, n)
    print(json.dumps({"wall": wall, "cpu": cpu}))


def alternate(
    me: str,
    variants: dict[str, tuple[list[str], str, dict[str, str]]],
    rows: int,
    rounds: int,
) -> dict[str, dict[str, float]]:
    """Run every variant (``python [...], child name, extra env``) of script ``me`` once per
    round, in turn; return each one's best round (by wall time)."""
    best: dict[str, dict[str, float]] = {}
    for r in range(rounds):
        for name, (py, which, extra) in variants.items():
            out = subprocess.run(
                [*py, me, "--child", which, "--rows", str(rows)],
                env={**os.environ, **extra},
                check=False,
                capture_output=True,
                text=True,
            )
            if out.returncode != 0:
                sys.exit(f"{name} failed:\n{out.stderr}")
            res = json.loads(out.stdout.strip().splitlines()[-1])
            print(
                f"round {r} {name:16} wall {res['wall']:7.3f} s  cpu {res['cpu']:7.3f} s",
                flush=True,
            )
            if name not in best or res["wall"] < best[name]["wall"]:
                best[name] = res
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rustext", help="a Python with neo4j + neo4j-rust-ext")
    ap.add_argument("--child")
    args = ap.parse_args()
    if args.child:
        child(args.child, args.rows)
        return
    me = os.path.abspath(__file__)
    variants = {
        "floor": ([sys.executable], "floor", {}),
        "arrow": ([sys.executable], "arrow", {}),
        "polars": ([sys.executable], "polars", {}),
        "to_df-pure": ([sys.executable], "to_df", {"BOLTCODEC_NEO4J": "off"}),
        "to_df-boltcodec": ([sys.executable], "to_df", {}),
    }
    if args.rustext:
        variants["to_df-rustext"] = (
            [args.rustext],
            "to_df",
            {"BOLTCODEC_NEO4J": "off"},
        )
    best = alternate(me, variants, args.rows, args.rounds)
    floor = best["floor"]["wall"]
    print(
        f"\n{args.rows:,} rows x 3 scalars, PULL {FETCH}, best of {args.rounds} alternating rounds"
    )
    print(f"{'variant':16} {'wall s':>8} {'x floor':>8} {'client CPU s':>13}")
    for name, res in best.items():
        print(f"{name:16} {res['wall']:8.3f} {res['wall'] / floor:8.2f} {res['cpu']:13.3f}")


if __name__ == "__main__":
    main()
