"""Python benchmark: the neo4j driver's codec implementations and ormsgpack, same data.

Run by ``bindings/python/scripts/bench.sh``; one process per implementation:

    python bench.py --impl pure       # .venv, BOLTCODEC_NEO4J=0: the driver's pure Python
    python bench.py --impl rustext    # .venv-rustext: the driver + neo4j-rust-ext
    python bench.py --impl boltcodec  # .venv: the driver + boltcodec (receive path on)
    python bench.py --impl ormsgpack  # .venv: ormsgpack on equivalent data (codec only)

Prints one JSON object: seconds per workload for each measurement.

Codec level (no network):
    encode   the driver's ``Packer`` on each record's values (the param: one value)
    decode   the driver's ``Unpacker``: structure header + ``unpack`` per message, as its
             ``Inbox.pop`` does (the param: one RECORD holding it)
    receive  the driver's ``Inbox`` (whichever is installed: boltcodec replaces it) reading
             the chunked PULL response (RECORDs + SUCCESS) from an in-memory socket
    native   boltcodec only: ``Dechunker.feed_messages`` (one call) / ``packb``
Driver level (with ``--e2e`` and NEO4J_BOLT_PORT): ``execute_query`` round trips.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from typing import Any, Callable

# ---------------------------------------------------------------------------------------
# Workloads
# ---------------------------------------------------------------------------------------


def mixed(i: int) -> Any:
    """Return the i-th value of a mixed sequence: int, float, short string."""
    k = i % 3
    if k == 0:
        return i * 7
    if k == 1:
        return i * 0.5
    return f"s{i:07d}"


def column(i: int, k: int) -> Any:
    """Return column k of row i of the 20-column rows (int, float, str, bool, null)."""
    kind = k % 5
    if kind == 0:
        return i * 1000 + k
    if kind == 1:
        return i * 0.25 + k
    if kind == 2:
        return "v" * (8 + (i + k) % 17)
    if kind == 3:
        return (i + k) % 2 == 0
    return None


PARAMS = [(1, 1000), (10, 100), (100, 10), (100, 100), (1000, 1), (1000, 100)]


def workloads() -> dict[str, dict[str, Any]]:
    """Name -> {"records": [[values...], ...]} or {"param": value}; plus its e2e query."""
    w: dict[str, dict[str, Any]] = {}
    for n, m in PARAMS:
        w[f"param_{n}x{m}"] = {
            "param": [[mixed(i * m + j) for j in range(m)] for i in range(n)],
            "query": "RETURN $p AS p",
        }
    w["records_10000x3"] = {
        "records": [[i, f"s{i}", i * 0.5] for i in range(10000)],
        "query": "UNWIND range(1, 10000) AS i RETURN i AS a, 's' + i AS b, i * 0.5 AS c",
    }
    w["records_10x10000"] = {
        "records": [[[mixed(r * 10000 + i) for i in range(10000)]] for r in range(10)],
        "query": "UNWIND range(1, 10) AS r RETURN [i IN range(1, 10000) |"
        " CASE i % 3 WHEN 0 THEN i * 7 WHEN 1 THEN i * 0.5 ELSE 's' + i END] AS v",
    }
    w["rows_350x20"] = {
        "records": [[column(i, k) for k in range(20)] for i in range(350)],
        "query": "UNWIND range(1, 350) AS i RETURN "
        + ", ".join(
            f"CASE {k % 5} WHEN 0 THEN i * 1000 + {k} WHEN 1 THEN i * 0.25 + {k}"
            f" WHEN 2 THEN substring('vvvvvvvvvvvvvvvvvvvvvvvv', 0, 8 + (i + {k}) % 17)"
            f" WHEN 3 THEN (i + {k}) % 2 = 0 ELSE null END AS c{k}"
            for k in range(20)
        ),
    }
    w["strings_1x100000"] = {
        "records": [[[f"str{i}" for i in range(100000)]]],
        "query": "RETURN [i IN range(1, 100000) | 'str' + i] AS v",
    }
    w["strings_10000x1"] = {
        "records": [[f"str{i}"] for i in range(10000)],
        "query": "UNWIND range(1, 10000) AS i RETURN 'str' + i AS s",
    }
    return w


# ---------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------


def best_time(f: Callable[[], Any], min_time: float = 0.15, repeat: int = 5) -> float:
    """Seconds per call: the best of ``repeat`` rounds, each looping for ``min_time``."""
    f()
    t = time.perf_counter()
    f()
    once = max(time.perf_counter() - t, 1e-7)
    loops = max(1, int(min_time / once))
    best = float("inf")
    gc_was = gc.isenabled()
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        t = time.perf_counter()
        for _ in range(loops):
            f()
        best = min(best, (time.perf_counter() - t) / loops)
        if gc_was:
            gc.enable()
    return best


# ---------------------------------------------------------------------------------------
# Driver codec measurements
# ---------------------------------------------------------------------------------------


def frame(message: bytes) -> bytes:
    """Bolt framing as the server does it: chunks of at most 16 KiB, then 00 00."""
    out = bytearray()
    for i in range(0, len(message), 16384):
        part = message[i : i + 16384]
        out += len(part).to_bytes(2, "big") + part
    return bytes(out + b"\x00\x00")


class MemorySocket:
    """Serves a byte string through ``recv_into`` as a TCP socket would."""

    def __init__(self, data: bytes) -> None:
        """Serve ``data``."""
        self.data = memoryview(data)
        self.pos = 0

    def getsockname(self) -> tuple[str, int]:
        """Return a local address, as the driver logs it."""
        return ("127.0.0.1", 1)

    def recv_into(self, buffer: Any, nbytes: int = 0) -> int:
        """Copy up to ``nbytes`` into ``buffer``."""
        n = min(nbytes or len(buffer), len(buffer), len(self.data) - self.pos)
        buffer[:n] = self.data[self.pos : self.pos + n]
        self.pos += n
        return n


def driver_benchmarks(spec: dict[str, Any]) -> dict[str, float]:
    """Encode, decode and receive through the driver's own classes."""
    from neo4j._codec.hydration.bolt.v2 import HydrationHandler
    from neo4j._codec.packstream import Structure, v1
    from neo4j._codec.packstream._common import PackableBuffer, UnpackableBuffer
    from neo4j._sync.io._bolt._base import Inbox

    hooks = HydrationHandler().new_hydration_scope().hydration_hooks
    packer = v1.Packer(PackableBuffer())
    stream = packer.stream

    def pack(value: Any) -> bytes:
        stream.clear()
        packer.pack(value)
        return bytes(stream.data)

    records = spec.get("records") or [[spec["param"]]]
    values = [spec["param"]] if "param" in spec else records
    messages = [pack(Structure(b"\x71", r)) for r in records]
    success = pack(Structure(b"\x70", {"type": "r", "t_last": 5, "db": "neo4j"}))
    wire = b"".join(frame(m) for m in messages) + frame(success)

    def encode() -> None:
        for v in values:
            stream.clear()
            packer.pack(v)

    def decode() -> None:
        for m in messages:
            buf = UnpackableBuffer(m)
            unpacker = v1.Unpacker(buf)
            size, _tag = unpacker.unpack_structure_header()
            for _ in range(size):
                unpacker.unpack(hooks)

    def receive() -> None:
        inbox = Inbox(MemorySocket(wire), None, v1.Unpacker)
        while inbox.pop(hooks)[0] != b"\x70":
            pass

    return {
        "encode": best_time(encode),
        "decode": best_time(decode),
        "receive": best_time(receive),
    }


def boltcodec_native(spec: dict[str, Any]) -> dict[str, float]:
    """Boltcodec's own API: ``packb`` and ``Dechunker.feed_messages``."""
    import boltcodec

    records = spec.get("records") or [[spec["param"]]]
    values = [spec["param"]] if "param" in spec else records
    messages = [boltcodec.packb(boltcodec.Structure(b"\x71", r)) for r in records]
    wire = b"".join(frame(m) for m in messages) + frame(
        boltcodec.packb(boltcodec.Structure(b"\x70", {}))
    )
    packb = boltcodec.packb

    def encode() -> None:
        for v in values:
            packb(v)

    def decode() -> None:
        boltcodec.Dechunker().feed_messages(wire)

    return {"native_encode": best_time(encode), "native_decode": best_time(decode)}


def ormsgpack_benchmarks(spec: dict[str, Any]) -> dict[str, float]:
    """Ormsgpack on the same values (a RECORD as ``[0x71, values]``)."""
    import ormsgpack

    records = spec.get("records") or [[spec["param"]]]
    values = [spec["param"]] if "param" in spec else records
    # The msgpack form of a RECORD: [0x71, [values]].
    messages = [ormsgpack.packb([0x71, r]) for r in records]
    packb, unpackb = ormsgpack.packb, ormsgpack.unpackb

    def encode() -> None:
        for v in values:
            packb(v)

    def decode() -> None:
        for m in messages:
            unpackb(m)

    return {"encode": best_time(encode), "decode": best_time(decode)}


# ---------------------------------------------------------------------------------------
# Driver level
# ---------------------------------------------------------------------------------------


def e2e_benchmarks(specs: dict[str, dict[str, Any]], runs: int) -> dict[str, float]:
    """Median seconds of ``execute_query`` per workload against the test server."""
    import neo4j

    uri = f"bolt://127.0.0.1:{os.environ['NEO4J_BOLT_PORT']}"
    auth = (os.environ["NEO4J_USER"], os.environ["NEO4J_PASSWORD"])
    out = {}
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        for name, spec in specs.items():
            params = {"p": spec["param"]} if "param" in spec else {}
            for _ in range(3):
                driver.execute_query(spec["query"], params)
            times = []
            for _ in range(runs):
                gc.collect()
                t = time.perf_counter()
                driver.execute_query(spec["query"], params)
                times.append(time.perf_counter() - t)
            out[name] = statistics.median(times)
    return out


def main() -> None:
    """Run the benchmarks of one implementation and print JSON."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--impl", required=True, choices=["pure", "rustext", "boltcodec", "ormsgpack"])
    ap.add_argument("--e2e", action="store_true")
    ap.add_argument("--e2e-runs", type=int, default=15)
    ap.add_argument("--no-codec", action="store_true", help="skip the codec-level benchmarks")
    ap.add_argument("--only", default="", help="comma-separated workload names")
    args = ap.parse_args()
    specs = workloads()
    if args.only:
        specs = {k: v for k, v in specs.items() if k in args.only.split(",")}
    info: dict[str, Any] = {"impl": args.impl, "python": sys.version.split()[0]}
    codec: dict[str, dict[str, float]] = {}
    if args.impl != "ormsgpack":
        import neo4j
        from neo4j._codec.packstream import RUST_AVAILABLE

        info["neo4j"] = neo4j.__version__
        info["accelerated"] = RUST_AVAILABLE
        expected = args.impl != "pure"
        if expected != RUST_AVAILABLE:
            raise SystemExit(f"{args.impl}: the driver's accelerator is {RUST_AVAILABLE}")
        if args.impl == "boltcodec":
            import boltcodec.dropin

            info["dropin"] = boltcodec.dropin.status()
        elif args.impl == "rustext" and "boltcodec" in sys.modules:
            raise SystemExit("rustext: boltcodec is loaded in this environment")
    for name, spec in specs.items():
        if args.no_codec:
            break
        if args.impl == "ormsgpack":
            codec[name] = ormsgpack_benchmarks(spec)
        else:
            codec[name] = driver_benchmarks(spec)
            if args.impl == "boltcodec":
                codec[name].update(boltcodec_native(spec))
        print(f"{args.impl} {name}: {codec[name]}", file=sys.stderr)
    result: dict[str, Any] = {"info": info, "codec": codec}
    if args.e2e and args.impl != "ormsgpack":
        result["e2e"] = e2e_benchmarks(specs, args.e2e_runs)
        print(f"{args.impl} e2e: {result['e2e']}", file=sys.stderr)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
