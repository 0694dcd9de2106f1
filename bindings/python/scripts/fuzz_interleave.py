#!/usr/bin/env python3
"""Interleaving property test / fuzz harness of the Python binding (issue 13).

Random good and bad inputs, split at random points, go through several ``Dechunker``s at
once, mixed with ``packb``/``unpackb`` calls, with hooks that transform, raise, or call
boltcodec again (on another ``Dechunker``, on the same one, or ``packb``/``unpackb``)
from inside a call. A model of each stream says what every call must return or raise;
every value that comes back is compared with what a fresh decoder (a new ``Dechunker``
given only that message) makes of the same bytes. Any difference, lost, duplicated or
reordered message, or crash is a failure.

    python fuzz_interleave.py [--seed N] [--ops N] [--seconds S]

``--ops`` defaults to ``BOLTCODEC_FUZZ_OPS`` (else 100,000); with ``--seconds`` the run
also stops after that many seconds. Prints one JSON line of statistics (operations,
seconds, the count of each kind of operation and outcome). The test suite runs
:func:`run` with a few thousand operations; ``scripts/fuzz-long`` runs this file.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import time
from collections import deque
from typing import Any, Callable

import boltcodec
from boltcodec import Dechunker, DecodeError, Structure

#: Bolt message tags used for good messages: RECORD, SUCCESS, FAILURE.
TAGS = (0x71, 0x70, 0x7F)
#: A structure with this tag makes the raising hooks raise.
BOOM = b"X"
MAX_DEPTH = 64
MAX_MESSAGE = 8192

Outcome = tuple[str, Any]  # ("ok", value) or ("err", (type name, kind, offset))


class Mismatch(AssertionError):
    """A call did something other than the model says."""


# ---------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------


def gen_value(rng: random.Random, depth: int, boom: bool) -> Any:  # noqa: PLR0911
    """Return a random PackStream value (structures included, ``BOOM`` ones if asked)."""
    r = rng.random()
    if depth <= 0 or r < 0.45:
        k = rng.randrange(7)
        if k == 0:
            return None
        if k == 1:
            return rng.random() < 0.5
        if k == 2:
            return rng.choice([0, -1, 127, -17, 1 << 20, -(1 << 40), (1 << 63) - 1])
        if k == 3:
            return rng.choice([0.0, -2.5, 1e300, float("inf")])
        if k == 4:
            return "".join(rng.choice("abkéx€") for _ in range(rng.randrange(12)))
        if k == 5:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(6)))
        return rng.choice(["name", "id", "labels", "k" * 40])
    if r < 0.65:
        return [gen_value(rng, depth - 1, boom) for _ in range(rng.randrange(5))]
    if r < 0.85:
        return {
            rng.choice(["a", "b", "name", "x" * 33, f"k{rng.randrange(99)}"]): gen_value(
                rng, depth - 1, boom
            )
            for _ in range(rng.randrange(4))
        }
    tag = BOOM if boom and rng.random() < 0.3 else rng.choice([b"N", b"R", b"A"])
    return Structure(tag, *(gen_value(rng, depth - 1, boom) for _ in range(rng.randrange(3))))


def bad_message(rng: random.Random) -> bytes:
    """Return a framed-ready message that is not valid (framing is fine)."""
    k = rng.randrange(5)
    if k == 0:
        return b"\xb1\x71\x92\x01" + rng.choice([b"\xc7", b"\xdf", b"\xe7", b"\xef"])
    if k == 1:
        return b"\xb1\x71\x91\x85ab"  # a string cut short
    if k == 2:
        return rng.choice([b"\x01", b"\x90", b"\x81a"])  # not a structure
    if k == 3:
        return b"\xb1\x71\x91\xa1\x01\x02"  # an integer map key
    return b"\xb1\x71" + b"\x91" * (MAX_DEPTH + 5) + b"\x01"  # too deep for the streams


def frame(rng: random.Random, message: bytes) -> bytes:
    """Chunk ``message`` at random sizes, sometimes with NOOPs before it."""
    out = b"\x00\x00" if rng.random() < 0.1 else b""
    i = 0
    while i < len(message):
        n = rng.choice([1, 2, 3, 7, 64, 65535])
        part = message[i : i + n]
        out += len(part).to_bytes(2, "big") + part
        i += n
    return out + b"\x00\x00"


def plain_frame(message: bytes) -> bytes:
    """Frame in one chunk."""
    return len(message).to_bytes(2, "big") + message + b"\x00\x00"


# ---------------------------------------------------------------------------------------
# Hooks
# ---------------------------------------------------------------------------------------


def pure_hook(s: Structure) -> Any:
    """Transform every structure the same way."""
    return ("S", s.tag, *s.fields)


def raising_hook(s: Structure) -> Any:
    """Like ``pure_hook``, but raise on ``BOOM`` structures."""
    if s.tag == BOOM:
        raise KeyError("boom")
    return pure_hook(s)


def describe(e: BaseException) -> tuple[str, Any, Any]:
    """Return what must match between the model and a call: type, kind, offset."""
    return (type(e).__name__, getattr(e, "kind", None), getattr(e, "offset", None))


# ---------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------


class Stream:
    """One ``Dechunker`` and what the model knows of it."""

    def __init__(self, uuid: bool) -> None:
        """Create the stream's Dechunker (with PackStream v2 if ``uuid``)."""
        self.uuid = uuid
        self.d = Dechunker(max_message_size=MAX_MESSAGE, max_depth=MAX_DEPTH, uuid=uuid)
        self.reset_model()

    def reset_model(self) -> None:
        """Forget everything, as ``Dechunker.reset`` does."""
        self.unsent = bytearray()  # framed bytes not fed yet
        self.in_flight: deque[tuple[int, int, bytes]] = deque()  # (start, end, message)
        self.sent = 0  # stream offset of the next byte to feed
        self.planned = 0  # stream offset after the last planned byte
        self.queue: deque[tuple[int, bytes]] = deque()  # complete, not delivered
        self.deferred: tuple[str, Any, Any] | None = None
        self.poison_at: int | None = None  # stream offset where a framing error is known
        self.poisoned = False

    def plan(self, rng: random.Random, message: bytes) -> None:
        """Frame ``message`` to be fed later."""
        wire = frame(rng, message)
        noop = 2 if wire.startswith(b"\x00\x00") else 0
        start = self.planned + noop
        self.unsent += wire
        self.planned += len(wire)
        # The message is complete once its end marker (the last 2 bytes) is fed.
        self.in_flight.append((start, self.planned, message))

    def plan_framing_error(self) -> None:
        """Plan a chunk header over the message size limit (poisons the stream)."""
        self.unsent += b"\xff\xff"  # a 65535-byte chunk: over MAX_MESSAGE at the header
        self.planned += 2
        self.poison_at = self.planned

    def advance(self, n: int) -> bytes:
        """Take the next ``n`` planned bytes; the messages they complete join the queue."""
        data = bytes(self.unsent[:n])
        del self.unsent[:n]
        self.sent += n
        while self.in_flight and self.in_flight[0][1] <= self.sent:
            start, _, message = self.in_flight.popleft()
            self.queue.append((start, message))
        if self.poison_at is not None and self.sent >= self.poison_at:
            self.poisoned = True
        return data


class Harness:
    """The operations, the model's expectations and the checks."""

    def __init__(self, seed: int) -> None:
        """Set up four streams (two with UUIDs) and standalone samples from ``seed``."""
        self.rng = random.Random(seed)
        self.streams = [Stream(uuid=i % 2 == 1) for i in range(4)]
        self.stats: dict[str, int] = {
            k: 0
            for k in (
                "feed_messages",
                "feed",
                "drain",
                "unpackb",
                "packb",
                "messages_delivered",
                "deferred_errors",
                "immediate_errors",
                "hook_raised",
                "reentrant",
                "refused_reentry",
                "framing_errors",
                "resets",
            )
        }
        self.op = 0
        self.active: set[int] = set()  # streams inside a call (a hook may run there)
        # Standalone values and their bytes, packed before anything could interfere.
        self.samples: list[tuple[Any, bytes]] = []
        for _ in range(64):
            v = gen_value(self.rng, 4, boom=False)
            self.samples.append((v, boltcodec.packb(v)))

    def fail(self, what: str, *details: Any) -> None:
        """Raise ``Mismatch`` for the current operation."""
        raise Mismatch(f"operation {self.op}: {what}: " + " | ".join(map(repr, details)))

    # -- fresh decoding: the reference ---------------------------------------------------

    def fresh(self, stream: Stream, message: bytes, start: int, hook: str) -> Outcome:
        """Return what a brand-new Dechunker makes of ``message`` alone (plain hook)."""
        reference = {"none": None, "pure": pure_hook, "raising": raising_hook}[
            "pure" if hook == "reentrant" else hook
        ]
        d = Dechunker(max_message_size=MAX_MESSAGE, max_depth=MAX_DEPTH, uuid=stream.uuid)
        try:
            (out,) = d.feed_messages(plain_frame(message), struct_hook=reference)
        except Exception as e:  # any exception is an outcome to compare
            return ("err", (*describe(e), start if isinstance(e, DecodeError) else None))
        return ("ok", out)

    # -- hooks that call back into boltcodec ---------------------------------------------

    def reentrant_hook(self, current: int) -> Callable[[Structure], Any]:
        """Return a hook that calls boltcodec again, then transforms as ``pure_hook``."""

        def hook(s: Structure) -> Any:
            self.stats["reentrant"] += 1
            r = self.rng.random()
            if r < 0.25:
                value, packed = self.rng.choice(self.samples)
                if boltcodec.unpackb(packed) != value:
                    self.fail("unpackb inside a hook", packed)
                if boltcodec.packb(value) != packed:
                    self.fail("packb inside a hook", value)
            elif r < 0.5:
                try:
                    self.streams[current].d.feed_messages(b"")
                except RuntimeError:
                    self.stats["refused_reentry"] += 1
                else:
                    self.fail("a re-entrant call on the busy Dechunker was not refused")
            elif r < 0.8:
                others = [i for i in range(len(self.streams)) if i not in self.active]
                if others:
                    self.stream_op(self.rng.choice(others), nested=True)
            else:
                value, packed = self.rng.choice(self.samples)
                with contextlib.suppress(DecodeError):
                    boltcodec.unpackb(packed[:-1] if len(packed) > 1 else b"\xc7")
            return pure_hook(s)

        return hook

    # -- operations ----------------------------------------------------------------------

    def plan_some(self, i: int) -> None:
        """Plan a few good and bad messages (rarely a framing error) on stream ``i``."""
        s = self.streams[i]
        if s.poison_at is not None or len(s.unsent) > 16384:
            return
        for _ in range(self.rng.randrange(1, 6)):
            r = self.rng.random()
            if r < 0.7:
                tag = self.rng.choice(TAGS)
                fields = [gen_value(self.rng, 5, boom=True) for _ in range(self.rng.randrange(3))]
                message = boltcodec.packb(Structure(bytes([tag]), *fields))
            elif r < 0.78 and s.uuid:
                message = b"\xb1\x71\x91\xe0" + self.rng.randbytes(16)
            else:
                message = bad_message(self.rng)
            s.plan(self.rng, message)
        if self.rng.random() < 0.01:
            s.plan_framing_error()

    def stream_op(self, i: int, nested: bool = False) -> None:  # noqa: PLR0912
        """Feed stream ``i`` part of its planned bytes (or none) and check the result."""
        s = self.streams[i]
        self.plan_some(i)
        r = self.rng.random()
        if not s.unsent or r < 0.15:
            n = 0
            self.stats["drain"] += 1
        elif r < 0.6:
            n = len(s.unsent)
        else:
            n = self.rng.randrange(len(s.unsent) + 1)
        raw = self.rng.random() < 0.2
        hook = self.rng.choice(["none", "pure", "raising"] + ([] if nested else ["reentrant"]))
        data = s.advance(n)
        if self.rng.random() < 0.3:
            data = bytearray(data)
        expected = self.expect(s, raw, hook)
        self.active.add(i)
        try:
            if raw:
                self.stats["feed"] += 1
                result: Outcome = ("ok", s.d.feed(data))
            else:
                self.stats["feed_messages"] += 1
                fn = {
                    "none": None,
                    "pure": pure_hook,
                    "raising": raising_hook,
                    "reentrant": self.reentrant_hook(i) if hook == "reentrant" else None,
                }[hook]
                result = ("ok", s.d.feed_messages(data, struct_hook=fn))
        except Mismatch:
            raise
        except Exception as e:  # compared with the model below
            result = ("err", (*describe(e), getattr(e, "message_offset", None)))
        finally:
            self.active.discard(i)
        if result != expected:
            self.fail(
                f"stream {i} ({'feed' if raw else 'feed_messages'}, hook {hook})", expected, result
            )
        if result[0] == "ok" and not raw:
            self.stats["messages_delivered"] += len(result[1])
        if s.poisoned and not s.queue and s.deferred is None and self.rng.random() < 0.5:
            s.d.reset()
            s.reset_model()
            self.stats["resets"] += 1
        if s.d.pending != len(s.queue) + (s.deferred is not None):
            self.fail(f"stream {i}: pending", s.d.pending, len(s.queue), s.deferred)

    def expect(self, s: Stream, raw: bool, hook: str) -> Outcome:
        """Advance the model by one call; return what the call must return or raise."""
        if s.deferred is not None:
            e, s.deferred = s.deferred, None
            return ("err", e)
        out: list[Any] = []
        while s.queue:
            start, message = s.queue.popleft()
            if raw:
                out.append(message)
                continue
            kind, value = self.fresh(s, message, start, hook)
            if kind == "ok":
                out.append(value)
                continue
            if value[0] == "KeyError":
                self.stats["hook_raised"] += 1
            if out:
                self.stats["deferred_errors"] += 1
                s.deferred = value
                return ("ok", out)
            self.stats["immediate_errors"] += 1
            return ("err", value)
        if not out and s.poisoned:
            self.stats["framing_errors"] += 1
            return ("err", ("DechunkError", "message_too_large", s.poison_at - 2, None))
        return ("ok", out)

    def standalone_op(self) -> None:  # noqa: PLR0912
        """Call ``packb`` or ``unpackb`` (good or bad input, raising hooks) and check."""
        value, packed = self.rng.choice(self.samples)
        r = self.rng.random()
        if r < 0.4:
            self.stats["packb"] += 1
            box = Structure(BOOM, value)

            def default(o: Any) -> Any:
                if isinstance(o, Boxed):
                    if o.explode:
                        raise ValueError("default raised")
                    return o.value
                raise TypeError(o)

            explode = self.rng.random() < 0.3
            try:
                got = boltcodec.packb([Boxed(value, explode), box], default=default)
            except ValueError as e:
                if not explode or str(e) != "default raised":
                    self.fail("packb raised", e)
                return
            if explode or got != boltcodec.packb([value, box]):
                self.fail("packb with default", value)
            if got != b"\x92" + packed + b"\xb1X" + packed:
                self.fail("packb bytes", value)
        else:
            self.stats["unpackb"] += 1
            if r < 0.7:
                if boltcodec.unpackb(packed) != value:
                    self.fail("unpackb", packed)
            elif r < 0.85:
                # Invalid after a structure: the error, and the hook never runs.
                data = b"\xb2X" + packed + b"\xc7"
                try:
                    boltcodec.unpackb(data, struct_hook=raising_hook)
                except DecodeError as e:
                    if e.kind != "reserved_marker" or e.offset != len(data) - 1:
                        self.fail("unpackb error", e.kind, e.offset)
                else:
                    self.fail("unpackb of bad bytes returned")
            else:
                try:
                    boltcodec.unpackb(b"\xb1X" + packed, struct_hook=raising_hook)
                except KeyError:
                    self.stats["hook_raised"] += 1
                else:
                    self.fail("a raising struct_hook did not raise")

    def step(self) -> None:
        """Run one random operation."""
        self.op += 1
        if self.rng.random() < 0.75:
            self.stream_op(self.rng.randrange(len(self.streams)))
        else:
            self.standalone_op()


class Boxed:
    """A value ``packb`` cannot pack itself: its ``default`` unwraps it (or raises)."""

    def __init__(self, value: Any, explode: bool) -> None:
        """Wrap ``value``; ``default`` raises for it if ``explode``."""
        self.value = value
        self.explode = explode


def run(seed: int, ops: int, seconds: float | None = None) -> dict[str, Any]:
    """Run ``ops`` operations (or until ``seconds`` have passed); return statistics."""
    h = Harness(seed)
    t0 = time.monotonic()
    deadline = None if seconds is None else t0 + seconds
    for _ in range(ops):
        h.step()
        if deadline is not None and h.op % 256 == 0 and time.monotonic() > deadline:
            break
    # Whatever is still queued comes out in order: nothing was lost.
    for i, s in enumerate(h.streams):
        for _ in range(3):
            h.active.add(i)
            expected = h.expect(s, raw=False, hook="none")
            try:
                result: Outcome = ("ok", s.d.feed_messages(b""))
            except Exception as e:
                result = ("err", (*describe(e), getattr(e, "message_offset", None)))
            h.active.discard(i)
            if result != expected:
                h.fail(f"final drain of stream {i}", expected, result)
    return {"seed": seed, "ops": h.op, "seconds": round(time.monotonic() - t0, 1), **h.stats}


def main() -> int:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ops", type=int, default=int(os.environ.get("BOLTCODEC_FUZZ_OPS", "100000")))
    ap.add_argument("--seconds", type=float, default=None)
    args = ap.parse_args()
    try:
        stats = run(args.seed, args.ops, args.seconds)
    except Mismatch as e:
        print(f"fuzz_interleave: seed {args.seed}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(stats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
