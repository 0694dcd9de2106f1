"""Hostile input through the driver, in a separate interpreter: errors, never crashes.

neo4j-rust-ext 6.4.1.0 panics on a truncated string (a ``PanicException`` that escapes
``except Exception``), aborts the process on a list claiming 2^32-1 items and overflows
the stack on 20,000 nested lists. With boltcodec as the accelerator each is a
``ValueError`` with the byte offset, through the codec and through the receive path.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("neo4j")

SCRIPT = textwrap.dedent(
    r"""
    import neo4j
    from neo4j._codec.packstream import v1, RUST_AVAILABLE
    from neo4j._codec.packstream._common import UnpackableBuffer
    import boltcodec
    assert RUST_AVAILABLE and boltcodec.dropin.status()["receive"]

    CASES = {
        "truncated string": b"\x85ab",
        "list of 2^32-1 items": b"\xd6\xff\xff\xff\xff",
        "list of 2^31-1 items": b"\xd6\x7f\xff\xff\xff",
        "20000 nested lists": b"\x91" * 20000,
        "map of 2^32-1 entries": b"\xda\xff\xff\xff\xff",
        "huge string size": b"\xd2\x7f\xff\xff\xff",
        "reserved marker": b"\xc7",
        "bad utf-8": b"\x82\xc3\x28",
    }

    # 1. The codec interface (one unpack call per message field).
    for name, data in CASES.items():
        try:
            v1.Unpacker(UnpackableBuffer(data)).unpack({})
        except ValueError as e:
            assert isinstance(e, boltcodec.DecodeError), (name, e)
            print("codec", name, "->", e.kind, e.offset)
        else:
            raise AssertionError(f"{name}: no error")

    # 2. The receive path: the driver's Inbox (boltcodec's), reading from a fake socket.
    from neo4j._sync.io._bolt._base import Inbox

    class Sock:
        def __init__(self, data):
            self.data = data
        def getsockname(self):
            return ("127.0.0.1", 1)
        def recv_into(self, view, n):
            n = min(n, len(self.data))
            view[:n] = self.data[:n]
            self.data = self.data[n:]
            return n

    def framed(message):
        out = b""
        for i in range(0, len(message), 65535):
            part = message[i:i + 65535]
            out += len(part).to_bytes(2, "big") + part
        return out + b"\x00\x00"

    good = framed(b"\xb1\x71\x91\x01")
    for name, data in CASES.items():
        errors = []
        inbox = Inbox(Sock(good + framed(b"\xb1\x71\x91" + data)), errors.append, v1.Unpacker)
        assert inbox.pop({}) == (b"\x71", [[1]])
        try:
            inbox.pop({})
        except ValueError as e:
            assert errors == [e] and inbox._broken, name
            print("inbox", name, "->", e.kind, e.offset)
        else:
            raise AssertionError(f"{name}: no error")

    # 3. A chunk stream that claims more than the limit, and a connection that closes.
    errors = []
    inbox = Inbox(Sock(b"\x00\x00" + b"\xff\xff" * 2000), errors.append, v1.Unpacker)
    try:
        inbox.pop({})
    except (ValueError, OSError) as e:
        print("inbox stream ->", type(e).__name__)
    print("survived")
    """
)


def test_interpreter_survives_hostile_input() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], check=False, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "PanicException" not in out.stderr
    lines = out.stdout.splitlines()
    assert lines[-1] == "survived"
    assert "codec truncated string -> unexpected_end 0" in lines
    assert "codec list of 2^32-1 items -> size_too_large 0" in lines
    assert "codec 20000 nested lists -> limit_exceeded 1024" in lines
    assert "inbox truncated string -> unexpected_end 3" in lines
