"""One bad call must never touch another (issue 13): lost messages, re-entrancy, stacks.

Each regression test is named after what broke. The stack tests run their work in a
separate interpreter, so that a native stack overflow (a segfault) fails that test with
its exit status instead of killing the whole test run.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import boltcodec
from boltcodec import Dechunker, DechunkError, DecodeError, EncodeError, Structure

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def frame(message: bytes) -> bytes:
    return len(message).to_bytes(2, "big") + message + b"\x00\x00"


def record(*values: Any) -> bytes:
    return boltcodec.packb(Structure(b"\x71", list(values)))


SUCCESS = boltcodec.packb(Structure(b"\x70", {"has_more": False}))
#: A RECORD whose only value starts with the reserved marker C7 (at byte 3).
BAD_RECORD = b"\xb1\x71\x91\xc7"


def five_messages() -> list[bytes]:
    """Two good RECORDs, a RECORD with a reserved marker, a good RECORD and a SUCCESS."""
    return [record(1, "a"), record(2, "b"), BAD_RECORD, record(3, "c"), SUCCESS]


def decoded(message: bytes, **kw: Any) -> tuple[int, list[Any]]:
    """What a fresh Dechunker makes of one message on its own."""
    (out,) = Dechunker().feed_messages(frame(message), **kw)
    return out


# ---------------------------------------------------------------------------------------
# 5. feed_messages lost every other message of the call when one failed
# ---------------------------------------------------------------------------------------


def test_feed_messages_lost_the_good_messages_around_a_reserved_marker() -> None:
    messages = five_messages()
    wire = b"".join(frame(m) for m in messages)
    assert Dechunker().feed(wire) == messages  # the raw messages: all five

    d = Dechunker()
    assert d.feed_messages(wire) == [decoded(messages[0]), decoded(messages[1])]
    assert d.pending == 3  # the error and the two messages after it
    assert not d.at_boundary
    with pytest.raises(DecodeError) as info:
        d.feed_messages(b"")
    assert (info.value.kind, info.value.offset) == ("reserved_marker", 3)
    assert info.value.message_offset == len(frame(messages[0])) + len(frame(messages[1]))
    assert d.feed_messages(b"") == [decoded(messages[3]), decoded(messages[4])]
    assert d.pending == 0
    assert d.at_boundary
    d.end_of_stream()


def test_feed_messages_lost_the_good_messages_around_a_raising_struct_hook() -> None:
    bad = record(Structure(b"X", 1))
    messages = [record(1), record(Structure(b"N", 2)), bad, record(3), SUCCESS]
    wire = b"".join(frame(m) for m in messages)

    def hook(s: Structure) -> Any:
        if s.tag == b"X":
            raise KeyError("no hydration for X")
        return ("hydrated", s.tag, *s.fields)

    d = Dechunker()
    assert d.feed_messages(wire, struct_hook=hook) == [
        decoded(m, struct_hook=hook) for m in messages[:2]
    ]
    with pytest.raises(KeyError, match="no hydration for X"):
        d.feed_messages(b"", struct_hook=hook)
    assert d.feed_messages(b"", struct_hook=hook) == [
        decoded(m, struct_hook=hook) for m in messages[3:]
    ]


def test_feed_messages_whose_first_message_fails_raises_at_once_and_keeps_the_rest() -> None:
    messages = [BAD_RECORD, record(1), SUCCESS]
    d = Dechunker()
    with pytest.raises(DecodeError) as info:
        d.feed_messages(b"".join(frame(m) for m in messages))
    assert (info.value.kind, info.value.message_offset) == ("reserved_marker", 0)
    assert d.pending == 2
    assert d.feed_messages(b"") == [decoded(messages[1]), decoded(messages[2])]


def test_feed_after_a_failed_feed_messages_returns_the_queued_messages_raw() -> None:
    messages = five_messages()
    d = Dechunker()
    assert len(d.feed_messages(b"".join(frame(m) for m in messages))) == 2
    with pytest.raises(DecodeError):
        d.feed(b"")
    # New input after the queued messages: nothing is lost or reordered.
    assert d.feed(frame(record(4))) == [messages[3], messages[4], record(4)]


def test_input_given_to_a_call_that_raises_a_deferred_error_is_kept() -> None:
    d = Dechunker()
    assert len(d.feed_messages(frame(record(1)) + frame(BAD_RECORD))) == 1
    with pytest.raises(DecodeError):
        d.feed_messages(frame(record(2)))  # raises the deferred error ...
    assert d.feed_messages(b"") == [decoded(record(2))]  # ... but keeps the input


def test_framing_error_after_good_messages_is_raised_by_the_next_call() -> None:
    d = Dechunker(max_message_size=16)
    wire = frame(record(1)) + b"\x00\x20" + b"x" * 32
    assert d.feed_messages(wire) == [decoded(record(1))]
    with pytest.raises(DechunkError) as info:
        d.feed_messages(b"")
    assert info.value.kind == "message_too_large"
    d.reset()
    assert d.pending == 0
    assert d.feed_messages(frame(record(2))) == [decoded(record(2))]


def test_end_of_stream_reported_nothing_when_a_deferred_error_was_waiting() -> None:
    d = Dechunker()
    d.feed_messages(frame(record(1)) + frame(BAD_RECORD))
    with pytest.raises(DecodeError) as info:
        d.end_of_stream()
    assert info.value.kind == "reserved_marker"
    d.end_of_stream()  # raised once; the stream itself ended at a boundary


def test_reset_drops_queued_messages_and_deferred_errors() -> None:
    d = Dechunker()
    d.feed_messages(b"".join(frame(m) for m in five_messages()))
    d.reset()
    assert (d.pending, d.at_boundary) == (0, True)
    assert d.feed_messages(frame(record(9))) == [decoded(record(9))]


def test_reentrant_call_on_the_same_dechunker_is_refused_and_leaves_it_intact() -> None:
    d = Dechunker()
    seen: list[BaseException] = []

    def hook(s: Structure) -> Any:
        try:
            d.feed_messages(frame(record(99)))
        except RuntimeError as e:  # the Dechunker is busy: refused, nothing fed
            seen.append(e)
        return s.fields[0]

    wire = frame(record(Structure(b"N", 1))) + frame(record(2))
    assert d.feed_messages(wire, struct_hook=hook) == [(0x71, [[1]]), (0x71, [[2]])]
    assert len(seen) == 1
    assert (d.pending, d.at_boundary) == (0, True)


def test_reentrant_calls_on_other_dechunkers_from_a_hook_do_not_mix_streams() -> None:
    other = Dechunker()
    inner: list[Any] = []

    def hook(s: Structure) -> Any:
        inner.extend(other.feed_messages(frame(record("inner", s.fields[0]))[:5]))
        inner.extend(other.feed_messages(frame(record("inner", s.fields[0]))[5:]))
        inner.append(boltcodec.unpackb(boltcodec.packb({"k": s.fields[0]})))
        return s.fields[0]

    d = Dechunker()
    wire = b"".join(frame(record(Structure(b"N", i))) for i in range(3))
    assert d.feed_messages(wire, struct_hook=hook) == [(0x71, [[i]]) for i in range(3)]
    assert inner == [x for i in range(3) for x in ((0x71, [["inner", i]]), {"k": i})]


def test_message_reader_decoded_a_failed_message_again_on_every_pop() -> None:
    calls: list[bytes] = []

    def hook(s: Structure) -> Any:
        calls.append(s.tag)
        if s.tag == b"X":
            raise KeyError("X")
        return s.tag

    hooks = {Structure: hook}
    reader = boltcodec._native.MessageReader()
    wire = [
        record(Structure(b"A")),
        record(Structure(b"X")),
        record(Structure(b"B")),
        SUCCESS,
    ]
    data = b"".join(frame(m) for m in wire)
    reader.feed(data, len(data))
    # The first RECORD comes out; the failing one is decoded once, while merging.
    assert reader.pop(hooks) == (b"\x71", [[b"A"]])
    with pytest.raises(KeyError):
        reader.pop(hooks)
    assert reader.pop(hooks) == (b"\x71", [[b"B"]])
    assert reader.pop(hooks) == (b"\x70", [{"has_more": False}])
    assert reader.pop(hooks) is None
    assert calls == [b"A", b"X", b"B"]


def test_message_reader_stuck_on_a_failed_first_message() -> None:
    reader = boltcodec._native.MessageReader()
    data = frame(BAD_RECORD) + frame(SUCCESS)
    reader.feed(data, len(data))
    with pytest.raises(DecodeError) as info:
        reader.pop()
    assert info.value.message_offset == 0
    assert reader.pop() == (b"\x70", [{"has_more": False}])


# ---------------------------------------------------------------------------------------
# 6. packb recursed in native code; stack safety of every entry point
# ---------------------------------------------------------------------------------------


PRELUDE = """
import threading
import boltcodec
from boltcodec import Dechunker, Structure, packb, unpackb

def nest(depth, leaf=0):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value

def depth_of(value):
    n = 0
    while isinstance(value, list):
        assert len(value) == 1
        value, n = value[0], n + 1
    return n, value

def frame(message):
    out = b""
    for i in range(0, len(message), 65535):
        part = message[i : i + 65535]
        out += len(part).to_bytes(2, "big") + part
    return out + b"\\x00\\x00"

class Box:
    def __init__(self, n):
        self.n = n

def default(box):
    # packb again from inside packb, on a value 1,000 deep with the next box at the
    # bottom: once recursive, this nested one native call per list level.
    return packb(nest(1000, Box(box.n - 1)), default=default) if box.n else "leaf"

def in_small_thread(f, stack=256 * 1024):
    result = []
    def run():
        try:
            result.append(("ok", f()))
        except BaseException as e:
            result.append(("raised", type(e).__name__, str(e)[:200]))
    threading.stack_size(stack)
    t = threading.Thread(target=run)
    t.start()
    t.join()
    threading.stack_size(0)
    return result[0]
"""


def run_isolated(code: str, timeout: float = 300) -> str:
    """Runs ``PRELUDE`` and ``code`` in a fresh interpreter; returns its stdout, fails on
    a crash."""
    proc = subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, (
        f"exit status {proc.returncode} (negative: killed by that signal)\n"
        f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-2000:]}"
    )
    return proc.stdout


def test_default_hook_calling_packb_on_nested_data_segfaulted() -> None:
    out = run_isolated(
        """
        data = unpackb(packb(Box(100), default=default))
        levels = 0
        while True:
            depth, leaf = depth_of(unpackb(data))
            assert depth == 1000
            levels += 1
            if leaf == "leaf":
                break
            data = leaf
        print("levels", levels)
        # Endless re-entry: Python's RecursionError, not a native stack overflow.
        try:
            packb(Box(10**6), default=default)
        except RecursionError as e:
            print("RecursionError")
        """
    )
    assert out.split() == ["levels", "100", "RecursionError"]


def test_packb_of_a_1000_deep_list_in_a_256k_thread_segfaulted() -> None:
    out = run_isolated(
        """
        print(in_small_thread(lambda: depth_of(unpackb(packb(nest(1000))))))
        print(in_small_thread(lambda: len(packb(nest(1025)))))
        # Re-entry through a hook in a small thread: a RecursionError, not a crash.
        r = in_small_thread(lambda: packb(Box(10**6), default=default))
        print(r[:2])
        """
    )
    lines = out.splitlines()
    assert lines[0] == "('ok', (1000, 0))"
    assert lines[1].startswith("('raised', 'EncodeError'")
    assert lines[2] == "('raised', 'RecursionError')"


@pytest.mark.parametrize("depth", [50_000, 1_000_000])
def test_packb_under_a_raised_max_depth_segfaulted(depth: int) -> None:
    out = run_isolated(
        f"""
        depth = {depth}
        value = nest(depth)
        packed = packb(value, max_depth=depth)
        assert packed == b"\\x91" * depth + b"\\x00"
        assert depth_of(unpackb(packed, max_depth=depth)) == (depth, 0)
        try:
            packb(value, max_depth=depth - 1)
        except boltcodec.EncodeError:
            print("too deep")
        # The same through tuples, dicts and structures (the slower paths).
        mixed = 0
        for i in range(depth):
            kind = i % 3
            if kind == 0:
                mixed = (mixed,)
            elif kind == 1:
                mixed = {{"k": mixed}}
            else:
                mixed = Structure(b"S", mixed)
        print(len(packb(mixed, max_depth=depth)))
        print("ok")
        """
    )
    assert out.split()[0:2] == ["too", "deep"]
    assert out.split()[-1] == "ok"


def test_decode_at_depth_1000000_under_a_raised_limit() -> None:
    out = run_isolated(
        """
        depth = 1_000_000
        data = b"\\x91" * depth + b"\\x01"
        assert depth_of(unpackb(data, max_depth=depth)) == (depth, 1)
        try:
            unpackb(data)
        except boltcodec.DecodeError as e:
            print(e.kind)
        message = b"\\xb1\\x71\\x91" + data
        d = Dechunker(max_depth=depth + 2)
        ((tag, fields),) = d.feed_messages(frame(message))
        assert tag == 0x71 and depth_of(fields[0]) == (depth + 1, 1)
        # The same value as a structure chain, with a struct_hook on every level.
        chain = b"\\xb1S" * depth + b"\\x01"
        got = unpackb(chain, max_depth=depth, struct_hook=lambda s: [s.fields[0]])
        assert depth_of(got) == (depth, 1)
        print("ok")
        """
    )
    assert out.split() == ["limit_exceeded", "ok"]


def test_decode_at_the_default_limit_in_a_256k_thread() -> None:
    out = run_isolated(
        """
        data = b"\\x91" * 1024 + b"\\x01"
        print(in_small_thread(lambda: depth_of(unpackb(data))))
        print(in_small_thread(lambda: unpackb(b"\\x91" + data))[:2])
        message = frame(b"\\xb1\\x71\\x91" + b"\\x91" * 1022 + b"\\x01")
        print(in_small_thread(lambda: depth_of(Dechunker().feed_messages(message)[0][1])))
        chain = b"\\xb1S" * 1024 + b"\\x01"
        print(in_small_thread(lambda: depth_of(unpackb(chain, struct_hook=lambda s: [s[0]]))))
        print(in_small_thread(lambda: len(packb(unpackb(data)))))
        """
    )
    assert out.splitlines() == [
        "('ok', (1024, 1))",
        "('raised', 'DecodeError')",
        "('ok', (1024, 1))",
        "('ok', (1024, 1))",
        "('ok', 1025)",
    ]


def test_struct_hook_calling_unpackb_recursively_overflowed_the_stack() -> None:
    out = run_isolated(
        """
        inner = packb(Structure(b"S", 1))

        def hook(s):
            return unpackb(inner, struct_hook=hook)  # never ends

        for f in (lambda: unpackb(inner, struct_hook=hook), lambda: in_small_thread(
            lambda: unpackb(inner, struct_hook=hook))):
            try:
                print(f()[:2])
            except RecursionError:
                print("RecursionError")
        d = Dechunker()
        try:
            d.feed_messages(frame(b"\\xb1\\x71\\x91" + inner), struct_hook=hook)
        except RecursionError:
            print("RecursionError")
        print(d.feed_messages(frame(b"\\xb1\\x71\\x91\\x01")))
        """
    )
    assert out.splitlines() == [
        "RecursionError",
        "('raised', 'RecursionError')",
        "RecursionError",
        "[(113, [[1]])]",
    ]


def test_self_containing_list_under_a_huge_max_depth_is_an_error_not_a_crash() -> None:
    out = run_isolated(
        """
        loop = []
        loop.append(loop)
        try:
            packb(loop, max_depth=3_000_000)
        except boltcodec.EncodeError as e:
            print("EncodeError")
        """
    )
    assert out.split() == ["EncodeError"]


def test_encode_error_keeps_its_message_after_the_rewrite() -> None:
    with pytest.raises(EncodeError, match="nested more than 3 levels"):
        boltcodec.packb([[[[1]]]], max_depth=3)
    assert boltcodec.packb([[[1]]], max_depth=3) == b"\x91\x91\x91\x01"
    with pytest.raises(EncodeError):
        boltcodec.packb(Structure(b"S", Structure(b"S")), max_depth=1)
    with pytest.raises(EncodeError):
        boltcodec.packb(object(), default=lambda o: [o], max_depth=50)


# ---------------------------------------------------------------------------------------
# The interleaving property test (the same harness as scripts/fuzz-long, fewer operations)
# ---------------------------------------------------------------------------------------


def load_harness() -> Any:
    spec = importlib.util.spec_from_file_location(
        "fuzz_interleave", SCRIPTS / "fuzz_interleave.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_interleaved_calls_match_a_fresh_decoder(seed: int) -> None:
    harness = load_harness()
    ops = int(os.environ.get("BOLTCODEC_FUZZ_OPS", "3000"))
    stats = harness.run(seed=seed, ops=ops)
    assert stats["ops"] == ops
    # Every kind of operation and outcome was exercised, so the test cannot pass vacuously.
    for key in (
        "feed_messages",
        "feed",
        "drain",
        "unpackb",
        "packb",
        "deferred_errors",
        "immediate_errors",
        "hook_raised",
        "reentrant",
        "refused_reentry",
        "framing_errors",
    ):
        assert stats[key] > 0, (key, stats)


@pytest.mark.parametrize("depth", [0, 1, 31, 32, 33, 100])
def test_packb_writes_the_same_bytes_on_both_sides_of_the_recursion_bound(depth: int) -> None:
    as_lists: Any = 1
    as_tuples: Any = 1
    as_dicts: Any = 1
    for _ in range(depth):
        as_lists, as_tuples, as_dicts = [as_lists, "x"], (as_tuples, "x"), {"k": as_dicts}
    assert boltcodec.packb(as_lists) == b"\x92" * depth + b"\x01" + b"\x81x" * depth
    assert boltcodec.packb(as_tuples) == boltcodec.packb(as_lists)
    assert boltcodec.packb(as_dicts) == b"\xa1\x81k" * depth + b"\x01"
    assert boltcodec.unpackb(boltcodec.packb(as_dicts)) == as_dicts


@pytest.mark.parametrize("depth", [0, 5, 40])
def test_a_hook_that_shrinks_a_list_being_packed_is_reported_at_any_depth(depth: int) -> None:
    victim: list[Any] = [object(), 1, 2]

    def default(o: Any) -> Any:
        victim.pop()
        return 0

    value: Any = victim
    for _ in range(depth):
        value = [value]
    with pytest.raises(RuntimeError, match="list changed size during packing"):
        boltcodec.packb(value, default=default)
    grow: dict[str, Any] = {"a": object()}

    def default_grow(o: Any) -> Any:
        grow["b"] = 1
        return 0

    value = grow
    for _ in range(depth):
        value = {"k": value}
    with pytest.raises(RuntimeError, match="dictionary changed size during packing"):
        boltcodec.packb(value, default=default_grow)


def test_repr_and_eq_of_deep_structures_in_a_256k_thread_overflowed_the_stack() -> None:
    out = run_isolated(
        """
        chain = b"\\xb1S" * 1000 + b"\\x01"
        a, b = unpackb(chain), unpackb(chain)
        print(in_small_thread(lambda: repr(a))[:2])
        print(in_small_thread(lambda: a == b)[:2])
        print(in_small_thread(lambda: a != b)[:2])
        shallow = unpackb(b"\\xb1S" * 20 + b"\\x01")
        again = unpackb(b"\\xb1S" * 20 + b"\\x01")
        print(in_small_thread(lambda: (repr(shallow).count("Structure("), shallow == again)))
        # A million nested structures are freed without overflowing a small stack either.
        def free_deep():
            deep = unpackb(b"\\xb1S" * 1_000_000 + b"\\x01", max_depth=1_000_000)
            del deep
            return "freed"
        print(in_small_thread(free_deep))
        """
    )
    assert out.splitlines() == [
        "('raised', 'RecursionError')",
        "('raised', 'RecursionError')",
        "('raised', 'RecursionError')",
        "('ok', (20, True))",
        "('ok', 'freed')",
    ]


def test_dechunker_kept_the_memory_of_its_largest_message() -> None:
    big = record("x" * (8 << 20))
    wire = b""
    for i in range(0, len(big), 65535):  # 8 MiB in 65535-byte chunks: copied, buffered
        part = big[i : i + 65535]
        wire += len(part).to_bytes(2, "big") + part
    wire += b"\x00\x00"
    d = Dechunker()
    for i in range(0, len(wire), 1 << 20):  # as a socket would deliver it
        out = d.feed_messages(wire[i : i + (1 << 20)])
    assert out == [(0x71, [["x" * (8 << 20)]])]
    assert d._buffer_capacity <= 512 * 1024
    assert d.feed_messages(frame(record(1))) == [(0x71, [[1]])]
    # The same for raw feed, and while a message is only partly there the buffer holds it.
    assert d.feed(wire[: len(wire) // 2]) == []
    assert d._buffer_capacity >= len(wire) // 2 - 4096
    assert d.feed(wire[len(wire) // 2 :]) == [big]
    assert d._buffer_capacity <= 512 * 1024
