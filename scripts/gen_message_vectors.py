"""Writes tests/vectors/bolt-messages.json: one request of every kind (Bolt 4.4–6.1), as
the message bytes the official neo4j Python driver's own packer writes for the same
structure (pure-Python packer, so the driver's codec decides every byte).

    python scripts/gen_message_vectors.py          # rewrite the file
    python scripts/gen_message_vectors.py --check  # exit 1 if the committed file differs

Each case names the request and the arguments of its ``boltcodec.bolt`` class, the
requests sent before it (to reach a state that allows it), the version, and ``hex``: the
message (un-chunked). The Python suite sends each through ``ClientConnection``; the Rust
suite (crates/bolt/tests/message_vectors.rs) decodes each with ``Request::decode`` and
encodes it back.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("BOLTCODEC_NEO4J", "off")  # the driver's own packer, not boltcodec

from neo4j._codec.packstream import v1 as ps1
from neo4j._codec.packstream._common import PackableBuffer, Structure

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "vectors" / "bolt-messages.json"


def pack(tag: int, *fields) -> str:
    buf = PackableBuffer()
    ps1.Packer(buf).pack(Structure(bytes([tag]), *fields))
    return bytes(buf.data).hex()


def case(name, version, request, positional=(), keyword=None, before=(), *, tag, fields):
    """One vector: the request as the binding builds it, and the driver's bytes."""
    return {
        "name": name,
        "version": list(version),
        "before": [list(b) for b in before],
        "request": request,
        "args": {"positional": list(positional), "keyword": keyword or {}},
        "hex": pack(tag, *fields),
    }


AUTH = {"scheme": "basic", "principal": "neo4j", "credentials": "pw"}
CASES = [
    case(
        "hello 5.8 with bolt_agent",
        (5, 8),
        "HELLO",
        ["app/1.0"],
        {"bolt_agent": {"product": "app/1.0"}},
        tag=0x01,
        fields=[{"user_agent": "app/1.0", "bolt_agent": {"product": "app/1.0"}}],
    ),
    case(
        "hello 4.4 with auth and routing",
        (4, 4),
        "HELLO",
        ["app/1.0"],
        {"routing": {"address": "h:7687"}, "auth": AUTH},
        tag=0x01,
        fields=[{"user_agent": "app/1.0", "routing": {"address": "h:7687"}, **AUTH}],
    ),
    case("logon basic", (5, 8), "LOGON", [AUTH], tag=0x6A, fields=[AUTH]),
    case("logoff", (5, 8), "LOGOFF", tag=0x6B, fields=[]),
    case(
        "run 5.8 with parameters and db",
        (5, 8),
        "RUN",
        ["RETURN $x AS x", {"x": 1}],
        {"db": "neo4j"},
        tag=0x10,
        fields=["RETURN $x AS x", {"x": 1}, {"db": "neo4j"}],
    ),
    case(
        "run 4.4 read mode with bookmarks",
        (4, 4),
        "RUN",
        ["RETURN 1", {}],
        {"bookmarks": ["bm"], "mode": "r"},
        tag=0x10,
        fields=["RETURN 1", {}, {"bookmarks": ["bm"], "mode": "r"}],
    ),
    case(
        "pull 1000",
        (5, 8),
        "PULL",
        [1000],
        before=[("RUN", "RETURN 1")],
        tag=0x3F,
        fields=[{"n": 1000}],
    ),
    case(
        "pull all with qid 6.1",
        (6, 1),
        "PULL",
        [-1, 0],
        before=[("BEGIN",), ("RUN", "RETURN 1")],
        tag=0x3F,
        fields=[{"n": -1, "qid": 0}],
    ),
    case(
        "discard all",
        (5, 0),
        "DISCARD",
        [-1],
        before=[("RUN", "RETURN 1")],
        tag=0x2F,
        fields=[{"n": -1}],
    ),
    case(
        "begin read on neo4j",
        (5, 8),
        "BEGIN",
        [],
        {"mode": "r", "db": "neo4j"},
        tag=0x11,
        fields=[{"mode": "r", "db": "neo4j"}],
    ),
    case(
        "begin with timeout and metadata",
        (5, 4),
        "BEGIN",
        [],
        {"tx_timeout": 2000, "tx_metadata": {"app": "x"}},
        tag=0x11,
        fields=[{"tx_timeout": 2000, "tx_metadata": {"app": "x"}}],
    ),
    case("commit", (5, 8), "COMMIT", before=[("BEGIN",)], tag=0x12, fields=[]),
    case("rollback", (4, 4), "ROLLBACK", before=[("BEGIN",)], tag=0x13, fields=[]),
    case("reset", (6, 0), "RESET", tag=0x0F, fields=[]),
    case(
        "route 5.8",
        (5, 8),
        "ROUTE",
        [{"address": "h:7687"}, ["bm"], "neo4j"],
        tag=0x66,
        fields=[{"address": "h:7687"}, ["bm"], {"db": "neo4j"}],
    ),
    case(
        "route 4.4 with imp_user",
        (4, 4),
        "ROUTE",
        [{}, [], "neo4j", "bob"],
        tag=0x66,
        fields=[{}, [], {"db": "neo4j", "imp_user": "bob"}],
    ),
    case("telemetry managed transaction", (5, 4), "TELEMETRY", [0], tag=0x54, fields=[0]),
    case("goodbye", (5, 8), "GOODBYE", tag=0x02, fields=[]),
]


def document() -> dict:
    import neo4j

    return {
        "format": "boltcodec-bolt-message-vectors/1",
        "generated_by": f"scripts/gen_message_vectors.py with neo4j {neo4j.__version__} "
        "(its pure-Python packer)",
        "requests": CASES,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 if the file differs")
    args = ap.parse_args()
    text = json.dumps(document(), indent=1) + "\n"
    if args.check:
        if OUT.read_text() != text:
            sys.exit(f"{OUT} differs from what the script generates")
        return
    OUT.write_text(text)


if __name__ == "__main__":
    main()
