#!/usr/bin/env python3
"""Generate tests/vectors/packstream.json (the notation is defined in tests/vectors/README.md).

Usage:
    python scripts/gen_vectors.py          # (re)write tests/vectors/packstream.json
    python scripts/gen_vectors.py --check  # regenerate in memory; exit 1 if the file differs

Needs the official `neo4j` Python driver (PyPI) with its pure-Python PackStream code, i.e.
WITHOUT `neo4j-rust-ext` installed.

Where the bytes come from:

* `valid`: the value is built from the notation, packed by the driver's packer (the v2
  packer when the case has `"options": {"uuid": true}`), unpacked again by the driver's
  unpacker and compared (floats by their bits, maps in order, bool never equal to int).
* `decode_only`: the non-minimal bytes are written here by hand; the driver's unpacker must
  decode them to the value (except DC/DD, which the Python driver rejects), and
  `canonical_hex` is the driver's packing of the value.
* `invalid`: written by hand from the PackStream specification and the error table of the
  README. Every case is also run through the small strict reference decoder below, which
  implements the README's rules (check order, offsets, limits); hand-written expectations
  must agree with it, and for the truncation cases (every prefix of a set of good values)
  it supplies the expected offset. The driver must fail on each invalid case, unless the
  case is marked `driver_accepts` (see `invalid_cases`).

"Fails" for the driver means: raises, or does not consume exactly all input bytes. The
pure-Python unpacker reads one value and leaves trailing bytes alone, and a short read of a
string/bytes payload returns fewer bytes without raising, so both are detected by comparing
the read position with the input length.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import math
import struct
import sys
import uuid
from pathlib import Path

from neo4j._codec.packstream import RUST_AVAILABLE
from neo4j._codec.packstream import v1 as ps1
from neo4j._codec.packstream import v2 as ps2
from neo4j._codec.packstream._common import (
    PackableBuffer,
    Structure,
    UnpackableBuffer,
)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "vectors" / "packstream.json"

MAX_SIZE = 2**31 - 1
DEFAULT_LIMITS = {
    "max_depth": 1024,
    "max_string_len": MAX_SIZE,
    "max_bytes_len": MAX_SIZE,
    "max_container_len": MAX_SIZE,
    "max_total_elements": 2**26,
}
UUID_OPT = {"uuid": True}
LEGACY_OPT = {"legacy_structs": True}

RESERVED = [0xC4, 0xC5, 0xC6, 0xC7, 0xCF, 0xD3, 0xD7, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF]
RESERVED += list(range(0xE0, 0xF0))


# --------------------------------------------------------------------------------------
# Value notation (README "Values") and its Python form
# --------------------------------------------------------------------------------------


def N():
    return {"t": "null"}


def B(v):
    return {"t": "bool", "v": v}


def I(v):
    assert -(2**63) <= v < 2**63
    return {"t": "int", "v": str(v)}


def F(x):
    """Float from a Python float, or from 16 hex digits of IEEE-754 bits."""
    if isinstance(x, str):
        assert len(x) == 16
        bits = x.lower()
    else:
        bits = struct.pack(">d", x).hex()
    value = struct.unpack(">d", bytes.fromhex(bits))[0]
    return {"t": "float", "bits": bits, "v": repr(value)}


def S(v):
    return {"t": "str", "v": v}


def SR(unit, count):
    return {"t": "str", "repeat": unit, "count": count}


def BY(h):
    return {"t": "bytes", "hex": h.replace(" ", "").lower()}


def BYR(h, count):
    return {"t": "bytes", "repeat_hex": h, "count": count}


def L(*items):
    return {"t": "list", "items": list(items)}


def LR(v, count):
    return {"t": "list", "repeat": v, "count": count}


def M(*entries):
    keys = [k for k, _ in entries]
    assert len(keys) == len(set(keys)), "no duplicate keys in the vectors"
    return {"t": "map", "entries": [[k, v] for k, v in entries]}


def MG(count, width, v):
    return {"t": "map", "gen_keys": {"count": count, "width": width}, "value": v}


def ST(tag, *fields):
    assert 0 <= tag <= 0x7F
    return {"t": "struct", "tag": tag, "fields": list(fields)}


def U(s):
    return {"t": "uuid", "v": str(uuid.UUID(s))}


def to_py(v):
    t = v["t"]
    if t == "null":
        return None
    if t == "bool":
        return bool(v["v"])
    if t == "int":
        return int(v["v"])
    if t == "float":
        return struct.unpack(">d", bytes.fromhex(v["bits"]))[0]
    if t == "str":
        if "repeat" in v:
            return v["repeat"] * v["count"]
        return v["v"]
    if t == "bytes":
        if "repeat_hex" in v:
            return bytes.fromhex(v["repeat_hex"]) * v["count"]
        return bytes.fromhex(v["hex"])
    if t == "list":
        if "repeat" in v:
            item = to_py(v["repeat"])
            return [item] * v["count"]
        return [to_py(x) for x in v["items"]]
    if t == "map":
        if "gen_keys" in v:
            count, width = v["gen_keys"]["count"], v["gen_keys"]["width"]
            item = to_py(v["value"])
            return {str(i).zfill(width): item for i in range(count)}
        return {k: to_py(x) for k, x in v["entries"]}
    if t == "struct":
        return Structure(bytes([v["tag"]]), *[to_py(x) for x in v["fields"]])
    if t == "uuid":
        return uuid.UUID(v["v"])
    raise ValueError(t)


def float_bits(x):
    return struct.pack(">d", x)


def same(a, b):
    """Strict equality: same types (bool is not int), floats by bits, maps in order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return float_bits(a) == float_bits(b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, Structure):
        return a.tag == b.tag and same(a.fields, b.fields)
    return a == b


# --------------------------------------------------------------------------------------
# The driver
# --------------------------------------------------------------------------------------


def driver_pack(value, options):
    mod = ps2 if options.get("uuid") else ps1
    buf = PackableBuffer()
    mod.Packer(buf).pack(value)
    return bytes(buf.data)


def driver_unpack(data, options):
    """Decode one complete value; raise if the driver fails or the input is not used up."""
    mod = ps2 if options.get("uuid") else ps1
    buf = UnpackableBuffer(data)
    value = mod.Unpacker(buf).unpack()
    if buf.p != len(data):
        raise ValueError(f"driver stopped at {buf.p} of {len(data)} bytes")
    return value


def driver_fails(data, options):
    try:
        driver_unpack(data, options)
    except Exception:  # noqa: BLE001 - any failure counts
        return True
    return False


# --------------------------------------------------------------------------------------
# Reference decoder: the README's rules, used to check every case
# --------------------------------------------------------------------------------------


class RefError(Exception):
    def __init__(self, kind, offset):
        super().__init__(f"{kind} at {offset}")
        self.kind = kind
        self.offset = offset


def is_string_marker(m):
    return 0x80 <= m <= 0x8F or 0xD0 <= m <= 0xD2


class RefDecoder:
    """Strict PackStream decoder following tests/vectors/README.md.

    Offsets of `unexpected_end`: the marker of the innermost item that was started but
    could not be completed. A size header or fixed-width payload that runs past the end
    reports the item's own marker. The declared size of a container is checked against the
    remaining bytes at its header (list item and structure field >= 1 byte, map entry >= 2,
    plus the structure's tag byte); if a container's next child is missing altogether, the
    container's marker is reported (for an empty input, 0).
    """

    def __init__(self, data, options=None, limits=None):
        self.data = data
        self.n = len(data)
        self.options = options or {}
        self.limits = dict(DEFAULT_LIMITS)
        self.limits.update(limits or {})
        self.pos = 0
        self.total = 0

    def decode(self):
        value = self.item(0, 0)
        if self.pos < self.n:
            raise RefError("trailing_bytes", self.pos)
        return value

    def take(self, k, at):
        if self.n - self.pos < k:
            raise RefError("unexpected_end", at)
        out = self.data[self.pos : self.pos + k]
        self.pos += k
        return out

    def size(self, m, tiny_base, width_by_marker, start):
        if tiny_base is not None and tiny_base <= m <= tiny_base + 0x0F:
            return m & 0x0F
        width = width_by_marker[m]
        size = int.from_bytes(self.take(width, start), "big")
        if width == 4 and size > MAX_SIZE:
            raise RefError("size_too_large", start)
        return size

    def container(self, n, depth, start, per_child, extra=0):
        if depth > self.limits["max_depth"]:
            raise RefError("limit_exceeded", start)
        if n > self.limits["max_container_len"]:
            raise RefError("limit_exceeded", start)
        self.total += n
        if self.total > self.limits["max_total_elements"]:
            raise RefError("limit_exceeded", start)
        if self.n - self.pos < extra + per_child * n:
            raise RefError("unexpected_end", start)

    def string(self, m, start):
        size = self.size(m, 0x80, {0xD0: 1, 0xD1: 2, 0xD2: 4}, start)
        if size > self.limits["max_string_len"]:
            raise RefError("limit_exceeded", start)
        payload_at = self.pos
        raw = self.take(size, start)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise RefError("invalid_utf8", payload_at + e.start) from None

    def item(self, depth, parent):
        if self.pos >= self.n:
            raise RefError("unexpected_end", parent)
        start = self.pos
        m = self.data[start]
        self.pos += 1
        if m <= 0x7F:
            return m
        if m >= 0xF0:
            return m - 0x100
        if m == 0xC0:
            return None
        if m == 0xC2:
            return False
        if m == 0xC3:
            return True
        if m == 0xC1:
            return struct.unpack(">d", self.take(8, start))[0]
        if 0xC8 <= m <= 0xCB:
            width = {0xC8: 1, 0xC9: 2, 0xCA: 4, 0xCB: 8}[m]
            return int.from_bytes(self.take(width, start), "big", signed=True)
        if 0xCC <= m <= 0xCE:
            size = self.size(m, None, {0xCC: 1, 0xCD: 2, 0xCE: 4}, start)
            if size > self.limits["max_bytes_len"]:
                raise RefError("limit_exceeded", start)
            return self.take(size, start)
        if is_string_marker(m):
            return self.string(m, start)
        if 0x90 <= m <= 0x9F or 0xD4 <= m <= 0xD6:
            n = self.size(m, 0x90, {0xD4: 1, 0xD5: 2, 0xD6: 4}, start)
            self.container(n, depth + 1, start, 1)
            return [self.item(depth + 1, start) for _ in range(n)]
        if 0xA0 <= m <= 0xAF or 0xD8 <= m <= 0xDA:
            n = self.size(m, 0xA0, {0xD8: 1, 0xD9: 2, 0xDA: 4}, start)
            self.container(n, depth + 1, start, 2)
            out = {}
            for _ in range(n):
                if self.pos >= self.n:
                    raise RefError("unexpected_end", start)
                key_at = self.pos
                km = self.data[key_at]
                if not is_string_marker(km):
                    raise RefError("non_string_key", key_at)
                self.pos += 1
                key = self.string(km, key_at)
                assert key not in out, "duplicate keys are not used in the vectors"
                out[key] = self.item(depth + 1, start)
            return out
        legacy = self.options.get("legacy_structs")
        if 0xB0 <= m <= 0xBF or (legacy and m in (0xDC, 0xDD)):
            n = self.size(m, 0xB0, {0xDC: 1, 0xDD: 2}, start)
            self.container(n, depth + 1, start, 1, extra=1)
            tag = self.take(1, start)
            return Structure(tag, *[self.item(depth + 1, start) for _ in range(n)])
        if m == 0xE0 and self.options.get("uuid"):
            return uuid.UUID(bytes=self.take(16, start))
        assert m in RESERVED, hex(m)
        raise RefError("reserved_marker", start)


def ref_decode(data, options=None, limits=None):
    return RefDecoder(data, options, limits).decode()


# --------------------------------------------------------------------------------------
# Bytes notation (README "Bytes")
# --------------------------------------------------------------------------------------


def h(text):
    """Hand-written hex with optional spaces."""
    return bytes.fromhex(text)


def to_parts(data):
    """Run-length parts: repeated units of 1..16 bytes that cover >= 32 bytes."""
    parts = []
    lit = 0
    i = 0
    n = len(data)
    while i < n:
        best = None
        for p in range(1, 17):
            if i + 2 * p > n:
                break
            if data[i] != data[i + p]:
                continue
            unit = data[i : i + p]
            if data[i + p : i + 2 * p] != unit:
                continue
            c = 2
            while data[i + c * p : i + (c + 1) * p] == unit:
                c += 1
            if c * p >= 32 and (best is None or c * p > best[1] * len(best[0])):
                best = (unit, c)
        if best is None:
            i += 1
            continue
        if lit < i:
            parts.append([data[lit:i].hex(), 1])
        unit, c = best
        parts.append([unit.hex(), c])
        i += c * len(unit)
        lit = i
    if lit < n:
        parts.append([data[lit:].hex(), 1])
    return parts


def bytes_field(key, data):
    """{"hex": ...} or, when that is much shorter, {"hex_parts": ...}."""
    if len(data) > 256:
        parts = to_parts(data)
        if len(json.dumps(parts)) < len(data):  # under half the length of "hex"
            assert b"".join(bytes.fromhex(x) * c for x, c in parts) == data
            return {key + "_parts": parts}
    return {key: data.hex()}


# --------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------


def valid_cases():
    """(name, value, options, limits)"""
    out = []

    def add(name, value, options=None, limits=None):
        out.append((name, value, options or {}, limits or {}))

    add("null", N())
    add("true", B(True))
    add("false", B(False))

    # Integers: every boundary of every width, then a spread.
    ints = [
        -(2**63),
        -(2**63) + 1,
        -(2**62),
        -(2**53) - 1,
        -(2**32),
        -(2**31) - 1,
        -(2**31),
        -(2**31) + 1,
        -65536,
        -32769,
        -32768,
        -32767,
        -1000,
        -129,
        -128,
        -127,
        -100,
        -18,
        -17,
        -16,
        -15,
        -2,
        -1,
        0,
        1,
        2,
        15,
        16,
        42,
        100,
        126,
        127,
        128,
        129,
        255,
        256,
        1000,
        32767,
        32768,
        65535,
        65536,
        1000000,
        2**31 - 2,
        2**31 - 1,
        2**31,
        2**32 - 1,
        2**32,
        1234567890123,
        -9876543210,
        2**53,
        2**53 + 1,
        2**62,
        0x7EDCBA9876543210,
        2**63 - 2,
        2**63 - 1,
    ]
    for v in ints:
        add(f"int {v}", I(v))

    # Floats.
    floats = [
        ("0.0", F(0.0)),
        ("-0.0", F(-0.0)),
        ("1.0", F(1.0)),
        ("-1.0", F(-1.0)),
        ("-1.5", F(-1.5)),
        ("0.5", F(0.5)),
        ("2.0", F(2.0)),
        ("100.0", F(100.0)),
        ("1.23", F(1.23)),
        ("0.1", F(0.1)),
        ("1/3", F(1 / 3)),
        ("pi", F(math.pi)),
        ("e", F(math.e)),
        ("-123456789.125", F(-123456789.125)),
        ("1e300", F(1e300)),
        ("-1e-300", F(-1e-300)),
        ("2^53", F(2.0**53)),
        ("2^63", F(2.0**63)),
        ("max double", F("7fefffffffffffff")),
        ("-max double", F("ffefffffffffffff")),
        ("min normal", F("0010000000000000")),
        ("max subnormal", F("000fffffffffffff")),
        ("min subnormal 5e-324", F("0000000000000001")),
        ("-min subnormal", F("8000000000000001")),
        ("+inf", F("7ff0000000000000")),
        ("-inf", F("fff0000000000000")),
        ("NaN canonical 7ff8000000000000", F("7ff8000000000000")),
        ("NaN negative fff8000000000000", F("fff8000000000000")),
        ("NaN signalling 7ff0000000000001", F("7ff0000000000001")),
        ("NaN signalling 7ff4000000000000", F("7ff4000000000000")),
        ("NaN payload 7ff8000000000001", F("7ff8000000000001")),
        ("NaN all ones ffffffffffffffff", F("ffffffffffffffff")),
        ("NaN 7fffffffffffffff", F("7fffffffffffffff")),
    ]
    for name, v in floats:
        add(f"float {name}", v)

    # Strings.
    for n in (0, 1, 15, 16, 17, 255, 256, 65535, 65536):
        add(
            f"string ascii {n} bytes",
            SR("a", n) if n > 17 else S("abcdefghijklmnopq"[:n]),
        )
    add("string 'A'", S("A"))
    add("string 'one'", S("one"))
    add("string 'Größenmaßstäbe' (18 bytes)", S("Größenmaßstäbe"))
    add("string 2-byte char é", S("é"))
    add("string 3-byte char €", S("€"))
    add("string 3-byte CJK", S("日本語"))
    add("string 4-byte char U+1F600", S("\U0001f600"))
    add("string emoji ZWJ sequence", S("\U0001f469\u200d\U0001f4bb"))
    add("string U+10FFFF", S("\U0010ffff"))
    add("string U+FFFD", S("\ufffd"))
    add("string with NUL", S("a\x00b"))
    add("string NUL only", S("\x00"))
    add("string control chars", S("\t\n\r\x1b\x7f"))
    add("string mixed scripts", S("Aé€\U0001f600"))
    add("string 15 bytes via é x7 + a", S("é" * 7 + "a"))
    add("string 16 bytes via é x8", S("é" * 8))
    add("string 15 bytes via € x5", S("€" * 5))
    add("string 16 bytes via emoji x4", S("\U0001f600" * 4))
    add("string 17 bytes via a + emoji x4", S("a" + "\U0001f600" * 4))
    add("string 255 bytes via € x85", S("€" * 85))
    add("string 256 bytes via é x128", S("é" * 128))
    add("string 256 bytes via emoji x64", SR("\U0001f600", 64))
    add("string 65535 bytes via € x21845", SR("€", 21845))
    add("string 65536 bytes via é x32768", SR("é", 32768))

    # Bytes.
    for n in (0, 1, 2, 3, 15, 16, 255, 256, 65535, 65536):
        if n == 3:
            add("bytes 01 02 03", BY("010203"))
        elif n <= 16:
            add(f"bytes {n}", BY(bytes(range(n)).hex()))
        else:
            add(f"bytes {n}", BYR("ff", n))
    add("bytes all 256 values", BY(bytes(range(256)).hex()))
    add("bytes that look like markers", BY("c0c1d0ffe0dc"))

    # Lists.
    add("list 0 items", L())
    add("list 1 item", L(I(1)))
    add("list 15 items", L(*[I(i) for i in range(15)]))
    add("list 16 items", L(*[I(i) for i in range(16)]))
    add("list 40 items 1..40", L(*[I(i) for i in range(1, 41)]))
    add("list 255 items null", LR(N(), 255))
    add("list 256 items null", LR(N(), 256))
    add("list 255 items 'ab'", LR(S("ab"), 255))
    add("list 65535 items 1", LR(I(1), 65535))
    add("list 65536 items true", LR(B(True), 65536))
    add("list 65536 items -17", LR(I(-17), 65536))
    add("list [1, 2.0, 'three']", L(I(1), F(2.0), S("three")))
    add(
        "list mixed types",
        L(
            N(),
            B(True),
            B(False),
            I(-1),
            I(128),
            F(-0.0),
            S(""),
            S("é"),
            BY("00"),
            L(),
            M(),
            ST(0x44),
        ),
    )
    add("list nested [[]]", L(L()))
    add("list nested [[[1]], [2, [3, [4]]]]", L(L(L(I(1))), L(I(2), L(I(3), L(I(4))))))
    add("list nested 16 x [16 ints]", LR(L(*[I(i) for i in range(16)]), 16))
    add(
        "list of maps",
        L(M(("a", I(1))), M(("b", I(2)), ("c", L())), M(), M(("d", M(("e", N()))))),
    )
    add("list of 256 maps", LR(M(("k", I(1))), 256))
    add("list of structs", L(ST(0x4E, I(1), L(), M()), ST(0x00), ST(0x7F, S("x"))))
    add("list of floats", LR(F(1.5), 20))
    add("list of bytes", L(BY(""), BY("01"), BYR("aa", 300)))

    # Maps.
    add("map 0 entries", M())
    add("map 1 entry {'one': 'eins'}", M(("one", S("eins"))))
    add("map 15 entries", M(*[(chr(0x41 + i), I(i + 1)) for i in range(15)]))
    add("map 16 entries", M(*[(chr(0x41 + i), I(i + 1)) for i in range(16)]))
    add("map 26 entries A..Z", M(*[(chr(0x41 + i), I(i + 1)) for i in range(26)]))
    add("map 255 entries", MG(255, 3, I(1)))
    add("map 256 entries", MG(256, 3, N()))
    add("map 65535 entries", MG(65535, 1, N()))
    add("map 65536 entries", MG(65536, 1, N()))
    add("map key length 0", M(("", I(1))))
    add("map key length 1", M(("k", I(1))))
    add("map key length 15", M(("k" * 15, I(1))))
    add("map key length 16", M(("k" * 16, I(1))))
    add("map key length 255", M(("k" * 255, I(1))))
    add("map key length 256", M(("k" * 256, I(1))))
    add("map key length 65535", M(("k" * 65535, I(1))))
    add("map key length 65536", M(("k" * 65536, I(1))))
    add("map key 16 bytes via é x8", M(("é" * 8, I(1))))
    add("map key 256 bytes via é x128", M(("é" * 128, I(1))))
    add(
        "map keys of sizes 1, 16, 256 then value",
        M(("a", I(1)), ("b" * 16, I(2)), ("c" * 256, S("v"))),
    )
    add(
        "map unicode keys",
        M(
            ("Größenmaßstäbe", I(1)),
            ("日本", I(2)),
            ("\U0001f600", I(3)),
            ("", I(4)),
            ("a\x00b", I(5)),
        ),
    )
    add(
        "map keys that look like numbers",
        M(("1", I(1)), ("-1", I(-1)), ("1.5", F(1.5))),
    )
    add(
        "map all value types",
        M(
            ("null", N()),
            ("bool", B(True)),
            ("int", I(-(2**63))),
            ("float", F(1.23)),
            ("str", S("s")),
            ("bytes", BY("0102")),
            ("list", L(I(1))),
            ("map", M(("x", I(1)))),
            ("struct", ST(0x58, I(1), I(2))),
        ),
    )
    add("map nested 3 deep", M(("a", M(("b", M(("c", I(1))))))))
    add("map nested with lists", M(("a", L(M(("b", L(I(1), M()))))), ("z", I(0))))
    add("map insertion order z, a, m", M(("z", I(1)), ("a", I(2)), ("m", I(3))))
    add("map 16 entries of maps", MG(16, 2, M(("x", I(1)))))

    # Structures.
    for n in range(16):
        add(f"struct tag 0x4E with {n} fields", ST(0x4E, *[I(i) for i in range(n)]))
    for tag in (0x00, 0x01, 0x44, 0x45, 0x50, 0x52, 0x58, 0x59, 0x72, 0x7F):
        add(f"struct tag 0x{tag:02X} empty", ST(tag))
    add("struct tag 0x44 (Date-like) 1 field", ST(0x44, I(19000)))
    add(
        "struct Node-like",
        ST(
            0x4E,
            I(1),
            L(S("Person")),
            M(("name", S("Alice")), ("age", I(33))),
            S("4:db:1"),
        ),
    )
    add(
        "struct Relationship-like",
        ST(
            0x52,
            I(7),
            I(1),
            I(2),
            S("KNOWS"),
            M(("since", I(2020))),
            S("5:db:7"),
            S("4:db:1"),
            S("4:db:2"),
        ),
    )
    add(
        "struct Path-like nested",
        ST(
            0x50,
            L(ST(0x4E, I(1), L(), M(), S("a")), ST(0x4E, I(2), L(), M(), S("b"))),
            L(ST(0x72, I(9), S("R"), M(), S("r"))),
            L(I(1), I(1)),
        ),
    )
    add("struct nested struct in struct", ST(0x01, ST(0x02, ST(0x03, I(1)))))
    add(
        "struct fields of every type",
        ST(0x7F, N(), B(False), I(-129), F(-1.5), S("s"), BY(""), L(), M(), ST(0x00)),
    )
    add("struct 15 fields of strings", ST(0x10, *[S("f" * i) for i in range(15)]))
    add("struct in map in list", L(M(("s", ST(0x45, F(0.5), M())))))

    # UUID (PackStream v2).
    for name, u in (
        (
            "550e8400-e29b-41d4-a716-446655440000",
            "550e8400-e29b-41d4-a716-446655440000",
        ),
        ("nil", "00000000-0000-0000-0000-000000000000"),
        ("max", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
        (
            "123e4567-e89b-12d3-a456-426614174000",
            "123e4567-e89b-12d3-a456-426614174000",
        ),
        (
            "v7 01890a5d-ac96-774b-bcce-b302099a8057",
            "01890a5d-ac96-774b-bcce-b302099a8057",
        ),
        ("bytes look like markers c0c1...", "c0c1c2c3-dcdd-e0ef-f0ff-808f909fa0af"),
    ):
        add(f"uuid {name}", U(u), UUID_OPT)
    add("uuid in list", L(U("550e8400-e29b-41d4-a716-446655440000"), I(1)), UUID_OPT)
    add("uuid in map", M(("id", U("123e4567-e89b-12d3-a456-426614174000"))), UUID_OPT)
    add("uuid in struct", ST(0x4E, U("00000000-0000-0000-0000-000000000001")), UUID_OPT)
    add("no uuid but uuid option on", L(I(1), S("x")), UUID_OPT)
    add("struct with legacy option on", ST(0x4E, I(1)), LEGACY_OPT)

    # Depth: at a limit (the default-limit 1024-deep case is in `invalid`, see notes).
    def nested(depth, inner, wrap):
        v = inner
        for _ in range(depth):
            v = wrap(v)
        return v

    add("depth 3 lists at max_depth 3", nested(3, I(1), L), limits={"max_depth": 3})
    add("depth 32 lists at max_depth 32", nested(32, N(), L), limits={"max_depth": 32})
    add(
        "depth 3 maps at max_depth 3",
        nested(3, I(1), lambda v: M(("a", v))),
        limits={"max_depth": 3},
    )
    add(
        "depth 3 structs at max_depth 3",
        nested(3, I(1), lambda v: ST(0x4E, v)),
        limits={"max_depth": 3},
    )
    add(
        "depth 3 mixed at max_depth 3",
        L(M(("k", ST(0x01, I(1))))),
        limits={"max_depth": 3},
    )
    add("scalar at max_depth 0", I(1), limits={"max_depth": 0})
    add("depth 10 lists", nested(10, S("deep"), L))
    add(
        "list 3 items at max_container_len 3",
        L(I(1), I(2), I(3)),
        limits={"max_container_len": 3},
    )
    add(
        "map 3 entries at max_container_len 3",
        M(("a", I(1)), ("b", I(2)), ("c", I(3))),
        limits={"max_container_len": 3},
    )
    add(
        "struct 3 fields at max_container_len 3",
        ST(0x4E, I(1), I(2), I(3)),
        limits={"max_container_len": 3},
    )
    add(
        "bytes 4 at max_container_len 3",
        BY("01020304"),
        limits={"max_container_len": 3},
    )
    add("string 4 at max_container_len 3", S("abcd"), limits={"max_container_len": 3})
    add(
        "total 6 elements at max_total_elements 6",
        L(L(I(1), I(2)), L(I(3), I(4))),
        limits={"max_total_elements": 6},
    )
    add(
        "total 5 with map and struct at max_total_elements 5",
        L(M(("a", I(1))), ST(0x4E, I(1), I(2))),
        limits={"max_total_elements": 5},
    )
    add("string 3 at max_string_len 3", S("abc"), limits={"max_string_len": 3})
    add("bytes 4 at max_string_len 3", BY("01020304"), limits={"max_string_len": 3})
    add("bytes 3 at max_bytes_len 3", BY("010203"), limits={"max_bytes_len": 3})
    add("string 4 at max_bytes_len 3", S("abcd"), limits={"max_bytes_len": 3})
    add(
        "map key 3 bytes at max_string_len 3",
        M(("abc", S("xyz"))),
        limits={"max_string_len": 3},
    )
    add(
        "empty containers at max_total_elements 0",
        L(),
        limits={"max_total_elements": 0},
    )
    return out


def decode_only_cases():
    """(name, value, hand-written bytes, options)"""
    out = []

    def add(name, value, data, options=None):
        out.append((name, value, data, options or {}))

    # Integers in wider forms.
    for v in (0, 1, 42, 127, -1, -16):
        add(f"int {v} as INT_8", I(v), b"\xc8" + struct.pack(">b", v))
    for v in (0, 42, 127, -1, -16, -17, -128):
        add(f"int {v} as INT_16", I(v), b"\xc9" + struct.pack(">h", v))
    for v in (0, 42, -1, -17, 128, -129, 32767, -32768):
        add(f"int {v} as INT_32", I(v), b"\xca" + struct.pack(">i", v))
    for v in (0, 42, -1, -16, -128, 32767, -32769, 2**31 - 1, -(2**31)):
        add(f"int {v} as INT_64", I(v), b"\xcb" + struct.pack(">q", v))

    # Strings with wider size headers.
    add("string '' as STRING_8", S(""), h("d0 00"))
    add("string '' as STRING_16", S(""), h("d1 00 00"))
    add("string '' as STRING_32", S(""), h("d2 00 00 00 00"))
    add("string 'A' as STRING_8", S("A"), h("d0 01 41"))
    add("string 'A' as STRING_16", S("A"), h("d1 00 01 41"))
    add("string 'A' as STRING_32", S("A"), h("d2 00 00 00 01 41"))
    add("string 'abc' as STRING_16", S("abc"), h("d1 00 03 61 62 63"))
    add("string 'abc' as STRING_32", S("abc"), h("d2 00 00 00 03 61 62 63"))
    add("string 15 bytes as STRING_8", S("a" * 15), h("d0 0f") + b"a" * 15)
    add("string 16 bytes as STRING_16", S("a" * 16), h("d1 00 10") + b"a" * 16)
    add(
        "string 200 bytes as STRING_16 (Java style)",
        S("a" * 200),
        h("d1 00 c8") + b"a" * 200,
    )
    add(
        "string 128 bytes as STRING_16 (Java style)",
        S("c" * 128),
        h("d1 00 80") + b"c" * 128,
    )
    gms = "Größenmaßstäbe".encode()
    add("string 'Größenmaßstäbe' as STRING_16", S("Größenmaßstäbe"), h("d1 00 12") + gms)
    add(
        "string 'Größenmaßstäbe' as STRING_32",
        S("Größenmaßstäbe"),
        h("d2 00 00 00 12") + gms,
    )
    add("string 'é' as STRING_8", S("é"), h("d0 02 c3 a9"))
    add("string 256 bytes as STRING_32", S("d" * 256), h("d2 00 00 01 00") + b"d" * 256)

    # Bytes with wider size headers.
    add("bytes empty as BYTES_16", BY(""), h("cd 00 00"))
    add("bytes empty as BYTES_32", BY(""), h("ce 00 00 00 00"))
    add("bytes 01 as BYTES_16", BY("01"), h("cd 00 01 01"))
    add("bytes 01 02 as BYTES_16", BY("0102"), h("cd 00 02 01 02"))
    add("bytes 01 02 as BYTES_32", BY("0102"), h("ce 00 00 00 02 01 02"))
    add(
        "bytes 200 as BYTES_16 (Java style)",
        BYR("ab", 200),
        h("cd 00 c8") + b"\xab" * 200,
    )
    add("bytes 256 as BYTES_32", BYR("cd", 256), h("ce 00 00 01 00") + b"\xcd" * 256)

    # Lists with wider size headers.
    add("list [] as LIST_8", L(), h("d4 00"))
    add("list [] as LIST_16", L(), h("d5 00 00"))
    add("list [] as LIST_32", L(), h("d6 00 00 00 00"))
    add("list [1] as LIST_8", L(I(1)), h("d4 01 01"))
    add("list [1, 2] as LIST_16", L(I(1), I(2)), h("d5 00 02 01 02"))
    add("list [1, 2] as LIST_32", L(I(1), I(2)), h("d6 00 00 00 02 01 02"))
    add("list 15 items as LIST_8", LR(I(0), 15), h("d4 0f") + b"\x00" * 15)
    add("list 16 items as LIST_16", LR(I(1), 16), h("d5 00 10") + b"\x01" * 16)
    add(
        "list 200 items as LIST_16 (Java style)",
        LR(N(), 200),
        h("d5 00 c8") + b"\xc0" * 200,
    )
    add(
        "list 256 items as LIST_32",
        LR(B(False), 256),
        h("d6 00 00 01 00") + b"\xc2" * 256,
    )

    # Maps with wider size headers, and keys in non-minimal string forms.
    add("map {} as MAP_8", M(), h("d8 00"))
    add("map {} as MAP_16", M(), h("d9 00 00"))
    add("map {} as MAP_32", M(), h("da 00 00 00 00"))
    add("map {'a': 1} as MAP_8", M(("a", I(1))), h("d8 01 81 61 01"))
    add("map {'a': 1} as MAP_16", M(("a", I(1))), h("d9 00 01 81 61 01"))
    add("map {'a': 1} as MAP_32", M(("a", I(1))), h("da 00 00 00 01 81 61 01"))
    add("map key 'a' as STRING_8", M(("a", I(1))), h("a1 d0 01 61 01"))
    add("map key 'a' as STRING_16", M(("a", I(1))), h("a1 d1 00 01 61 01"))
    add("map key 'a' as STRING_32", M(("a", I(1))), h("a1 d2 00 00 00 01 61 01"))
    add("map key '' as STRING_8", M(("", N())), h("a1 d0 00 c0"))
    add("map key '' as STRING_32", M(("", N())), h("a1 d2 00 00 00 00 c0"))
    add(
        "map key 16 bytes as STRING_16",
        M(("k" * 16, I(1))),
        h("a1 d1 00 10") + b"k" * 16 + h("01"),
    )
    add(
        "map key 200 bytes as STRING_16 (Java style)",
        M(("k" * 200, I(2))),
        h("a1 d1 00 c8") + b"k" * 200 + h("02"),
    )
    add(
        "map key 256 bytes as STRING_32",
        M(("k" * 256, I(3))),
        h("a1 d2 00 00 01 00") + b"k" * 256 + h("03"),
    )
    add(
        "map 16 entries as MAP_16",
        MG(16, 2, N()),
        h("d9 00 10") + b"".join(b"\x82" + f"{i:02d}".encode() + b"\xc0" for i in range(16)),
    )
    add(
        "map {'one': 'eins'} all non-minimal",
        M(("one", S("eins"))),
        h("da 00 00 00 01 d2 00 00 00 03 6f 6e 65 d1 00 04 65 69 6e 73"),
    )

    # Non-minimal forms nested.
    add(
        "list of non-minimal ints",
        L(I(1), I(2), I(-1)),
        h("93 c9 00 01 ca 00 00 00 02 cb ff ff ff ff ff ff ff ff"),
    )
    add(
        "map value non-minimal int",
        M(("a", I(1))),
        h("a1 81 61 cb 00 00 00 00 00 00 00 01"),
    )
    add("struct field non-minimal", ST(0x4E, I(1), S("x")), h("b2 4e c9 00 01 d0 01 78"))
    add(
        "nested non-minimal containers",
        L(S("a"), M(), L(I(1))),
        h("d5 00 03 d0 01 61 d8 00 d6 00 00 00 01 c8 01"),
    )

    # Legacy STRUCT_8 / STRUCT_16 (opt-in).
    add("struct 0 fields as STRUCT_8", ST(0x4E), h("dc 00 4e"), LEGACY_OPT)
    add("struct 1 field as STRUCT_8", ST(0x4E, I(1)), h("dc 01 4e 01"), LEGACY_OPT)
    add(
        "struct 2 fields as STRUCT_16",
        ST(0x44, I(1), I(2)),
        h("dd 00 02 44 01 02"),
        LEGACY_OPT,
    )
    add("struct 0 fields as STRUCT_16 tag 0x7F", ST(0x7F), h("dd 00 00 7f"), LEGACY_OPT)
    add(
        "struct 15 fields as STRUCT_8",
        ST(0x00, *[I(i) for i in range(15)]),
        h("dc 0f 00") + bytes(range(15)),
        LEGACY_OPT,
    )
    add("STRUCT_8 inside a list", L(ST(0x4E, I(1))), h("91 dc 01 4e 01"), LEGACY_OPT)
    add(
        "STRUCT_16 inside STRUCT_8",
        ST(0x01, ST(0x02)),
        h("dc 01 01 dd 00 00 02"),
        LEGACY_OPT,
    )
    return out


def nested_hex(unit, depth, inner):
    return bytes.fromhex(unit) * depth + bytes.fromhex(inner)


def invalid_cases():
    """(name, bytes, (kind, offset), options, limits, driver_accepts)

    `driver_accepts` marks the cases that the pure-Python driver decodes anyway: it keeps
    any hashable map key (ints, None, booleans, floats, bytes, UUIDs; lists, maps and
    structures fail only because they are unhashable), and it has no decode limits.
    """
    out = []

    def add(name, data, kind, offset, options=None, limits=None, driver_accepts=False):
        out.append((name, data, (kind, offset), options or {}, limits or {}, driver_accepts))

    # Reserved markers, alone, nested, and followed by bytes.
    for m in RESERVED:
        add(f"reserved marker {m:02X}", bytes([m]), "reserved_marker", 0)
    for m in RESERVED:
        add(
            f"reserved marker {m:02X} in a list",
            bytes([0x92, 0x01, m]),
            "reserved_marker",
            2,
        )
    for m in (0xC4, 0xCF, 0xD7, 0xDB, 0xDC, 0xE0, 0xEF):
        add(
            f"reserved marker {m:02X} as a map value",
            h("a1 81 61") + bytes([m]),
            "reserved_marker",
            3,
        )
        add(
            f"reserved marker {m:02X} as a struct field",
            h("b1 4e") + bytes([m]),
            "reserved_marker",
            2,
        )
        add(
            f"reserved marker {m:02X} followed by bytes",
            bytes([m]) + h("00 00 00"),
            "reserved_marker",
            0,
        )
    uuid_bytes = h("e0 55 0e 84 00 e2 9b 41 d4 a7 16 44 66 55 44 00 00")
    add("uuid without the uuid option", uuid_bytes, "reserved_marker", 0)
    add(
        "uuid in a list without the uuid option",
        h("91") + uuid_bytes,
        "reserved_marker",
        1,
    )
    add(
        "uuid with legacy_structs but not uuid",
        uuid_bytes,
        "reserved_marker",
        0,
        LEGACY_OPT,
    )
    add("STRUCT_8 without legacy_structs", h("dc 01 4e 01"), "reserved_marker", 0)
    add("STRUCT_16 without legacy_structs", h("dd 00 01 4e 01"), "reserved_marker", 0)
    add(
        "STRUCT_8 with uuid but not legacy_structs",
        h("dc 01 4e 01"),
        "reserved_marker",
        0,
        UUID_OPT,
    )
    for m in (0xC4, 0xDE, 0xEF):
        add(
            f"reserved marker {m:02X} with both options",
            bytes([m]),
            "reserved_marker",
            0,
            {"uuid": True, "legacy_structs": True},
        )

    # Invalid UTF-8 in strings and map keys.
    utf8 = [
        ("lone continuation byte 80", "81 80", 1),
        ("lone continuation byte BF", "81 bf", 1),
        ("continuation after ascii", "83 61 62 80", 3),
        ("overlong NUL C0 80", "82 c0 80", 1),
        ("overlong C1 BF", "82 c1 bf", 1),
        ("overlong 3-byte E0 80 80", "83 e0 80 80", 1),
        ("overlong 3-byte E0 9F BF", "83 e0 9f bf", 1),
        ("overlong 4-byte F0 80 80 80", "84 f0 80 80 80", 1),
        ("overlong 4-byte F0 8F BF BF", "84 f0 8f bf bf", 1),
        ("surrogate ED A0 80", "83 ed a0 80", 1),
        ("surrogate ED BF BF", "83 ed bf bf", 1),
        ("surrogate pair as CESU-8", "86 ed a0 bd ed b8 80", 1),
        ("above U+10FFFF F4 90 80 80", "84 f4 90 80 80", 1),
        ("F5 lead byte", "81 f5", 1),
        ("F8 lead byte", "85 f8 88 80 80 80", 1),
        ("FE byte", "81 fe", 1),
        ("FF byte", "81 ff", 1),
        ("2-byte lead then ascii", "82 c3 28", 1),
        ("3-byte lead, bad second byte", "83 e2 28 a1", 1),
        ("3-byte lead, bad third byte", "83 e2 82 28", 1),
        ("truncated 2-byte at end", "81 c3", 1),
        ("truncated 3-byte at end", "83 61 e2 82", 2),
        ("truncated 4-byte at end", "84 61 f0 9f 98", 2),
        ("truncated 4-byte after one byte", "82 61 f0", 2),
        ("invalid after valid multibyte", "85 c3 a9 c3 a9 80", 5),
        ("invalid after valid 4-byte", "85 f0 9f 98 80 ff", 5),
        ("invalid in STRING_8", "d0 11 " + "61" * 16 + " 80", 18),
        ("invalid in STRING_16", "d1 00 03 61 62 ff", 5),
        ("invalid in STRING_32", "d2 00 00 00 03 61 ed a0", 6),
        ("invalid first byte in STRING_8", "d0 02 c0 80", 2),
        ("invalid in a list item", "92 81 61 81 80", 4),
        ("invalid in a map value", "a1 81 61 82 c0 80", 4),
        ("invalid in a struct field", "b1 4e 81 ff", 3),
        ("invalid in a nested list", "91 91 91 83 61 62 fe", 6),
        ("map key lone continuation", "a1 81 80 01", 2),
        ("map key overlong", "a1 82 c0 80 01", 2),
        ("map key surrogate", "a1 83 ed a0 80 01", 2),
        ("map key truncated multibyte", "a1 82 61 e2 01", 3),
        ("map key F5", "a1 81 f5 01", 2),
        ("map key STRING_8 invalid", "a1 d0 02 61 ff 01", 4),
        ("map key STRING_16 invalid", "a1 d1 00 02 ff 61 01", 4),
        ("second map key invalid", "a2 81 61 01 81 80 02", 5),
        ("map key invalid in MAP_16", "d9 00 01 81 c3 01", 4),
    ]
    for name, text, off in utf8:
        add(f"invalid utf-8: {name}", h(text), "invalid_utf8", off)

    # Non-string keys.
    keys = [
        ("int key", "a1 01 01", 1),
        ("negative int key", "a1 ff 01", 1),
        ("INT_16 key", "a1 c9 01 00 01", 1),
        ("null key", "a1 c0 01", 1),
        ("true key", "a1 c3 01", 1),
        ("float key", "a1 c1 3f f0 00 00 00 00 00 00 01", 1),
        ("empty list key", "a1 90 01", 1),
        ("list key", "a1 91 01 01", 1),
        ("LIST_8 key", "a1 d4 00 01", 1),
        ("map key", "a1 a0 01", 1),
        ("bytes key", "a1 cc 01 61 01", 1),
        ("struct key", "a1 b0 4e 01", 1),
        ("second key is int", "a2 81 61 01 02 02", 4),
        ("key in MAP_8", "d8 01 01 01", 2),
        ("key in a nested map", "91 a1 81 61 a1 05 06", 5),
        ("key in a map in a struct", "b1 4e a1 c2 01", 3),
    ]
    unhashable = ("empty list key", "list key", "LIST_8 key", "map key", "struct key")
    for name, text, off in keys:
        add(
            f"non-string key: {name}",
            h(text),
            "non_string_key",
            off,
            driver_accepts=name not in unhashable,
        )
    add(
        "non-string key: uuid key",
        h("a1") + uuid_bytes + h("01"),
        "non_string_key",
        1,
        UUID_OPT,
        driver_accepts=True,
    )
    add(
        "non-string key: STRUCT_8 key",
        h("a1 dc 00 4e 01"),
        "non_string_key",
        1,
        LEGACY_OPT,
    )
    add(
        "map header checked before keys (2 entries, 2 bytes)",
        h("a2 01 01"),
        "unexpected_end",
        0,
    )

    # 32-bit sizes above the PackStream maximum.
    for m, what in (
        (0xCE, "BYTES_32"),
        (0xD2, "STRING_32"),
        (0xD6, "LIST_32"),
        (0xDA, "MAP_32"),
    ):
        for size in ("80 00 00 00", "80 00 00 01", "ff ff ff ff"):
            add(f"{what} size {size}", bytes([m]) + h(size), "size_too_large", 0)
        add(
            f"{what} size 80 00 00 00 with bytes after",
            bytes([m]) + h("80 00 00 00 01 02 03"),
            "size_too_large",
            0,
        )
    add("STRING_32 too large in a list", h("91 d2 80 00 00 00"), "size_too_large", 1)
    add(
        "BYTES_32 too large as a map value",
        h("a1 81 61 ce ff ff ff ff"),
        "size_too_large",
        3,
    )
    add("map key STRING_32 too large", h("a1 d2 ff ff ff ff"), "size_too_large", 1)
    add("LIST_32 too large in a struct", h("b1 4e d6 80 00 00 00"), "size_too_large", 2)
    add(
        "size_too_large before limits",
        h("d2 80 00 00 00"),
        "size_too_large",
        0,
        limits={"max_string_len": 10},
    )
    add(
        "size_too_large before total elements",
        h("d6 ff ff ff ff"),
        "size_too_large",
        0,
        limits={"max_total_elements": 10},
    )

    # Sizes at the maximum: accepted by the spec check, then limits and remaining bytes.
    add("BYTES_32 size 7F FF FF FF, no data", h("ce 7f ff ff ff"), "unexpected_end", 0)
    add("STRING_32 size 7F FF FF FF, no data", h("d2 7f ff ff ff"), "unexpected_end", 0)
    add(
        "LIST_32 size 7F FF FF FF (over max_total_elements)",
        h("d6 7f ff ff ff"),
        "limit_exceeded",
        0,
    )
    add(
        "MAP_32 size 7F FF FF FF (over max_total_elements)",
        h("da 7f ff ff ff"),
        "limit_exceeded",
        0,
    )
    add("LIST_32 of 2^26 items, no data", h("d6 04 00 00 00"), "unexpected_end", 0)
    add("LIST_32 of 2^26+1 items", h("d6 04 00 00 01"), "limit_exceeded", 0)
    add("MAP_32 of 2^26 entries, no data", h("da 04 00 00 00"), "unexpected_end", 0)
    add("MAP_32 of 2^26+1 entries", h("da 04 00 00 01"), "limit_exceeded", 0)
    add(
        "LIST_32 claims 1000000 items, 3 present",
        h("d6 00 0f 42 40 01 02 03"),
        "unexpected_end",
        0,
    )
    add(
        "MAP_32 claims 1000000 entries, 1 present",
        h("da 00 0f 42 40 81 61 01"),
        "unexpected_end",
        0,
    )
    add(
        "LIST_16 claims 65535 items, 3 present",
        h("d5 ff ff 01 02 03"),
        "unexpected_end",
        0,
    )
    add(
        "STRING_32 claims 1000000 bytes, 3 present",
        h("d2 00 0f 42 40 61 62 63"),
        "unexpected_end",
        0,
    )
    add(
        "BYTES_16 claims 65535 bytes, 2 present",
        h("cd ff ff 01 02"),
        "unexpected_end",
        0,
    )
    add("list claims 3 items, 2 bytes remain", h("93 c1 00"), "unexpected_end", 0)
    add("map claims 2 entries, 3 bytes remain", h("a2 81 61 01"), "unexpected_end", 0)
    add(
        "struct claims 2 fields, 1 byte remains after the tag",
        h("b2 4e c1"),
        "unexpected_end",
        0,
    )
    add("string claims 3 bytes, invalid utf-8 present", h("83 80"), "unexpected_end", 0)
    add("inner list short, outer fine", h("92 93 01 01"), "unexpected_end", 1)
    add("second item missing after a complete first", h("92 c8 05"), "unexpected_end", 0)
    add("map value missing", h("a1 83 6f 6e 65"), "unexpected_end", 0)
    add("struct tag missing", h("b0"), "unexpected_end", 0)
    add("struct field missing", h("b1 4e"), "unexpected_end", 0)
    add("float in a list truncated", h("93 01 c1 40"), "unexpected_end", 2)
    add("empty input", b"", "unexpected_end", 0)

    # Limits.
    add(
        "depth 1025 lists (default max_depth 1024)",
        nested_hex("91", 1025, "c0"),
        "limit_exceeded",
        1024,
        driver_accepts=True,
    )
    add(
        "depth 1025 lists, no innermost item",
        nested_hex("91", 1025, ""),
        "limit_exceeded",
        1024,
    )
    add(
        "depth 1025 maps",
        nested_hex("a18161", 1025, "c0"),
        "limit_exceeded",
        3072,
        driver_accepts=True,
    )
    add(
        "depth 1025 structs",
        nested_hex("b14e", 1025, "c0"),
        "limit_exceeded",
        2048,
        driver_accepts=True,
    )
    add(
        "depth 2000 lists",
        nested_hex("91", 2000, "c0"),
        "limit_exceeded",
        1024,
        driver_accepts=True,
    )
    # 1024 levels are within the default limit; shown through a later error, because a
    # 1024-deep value does not fit the nesting limits of common JSON parsers.
    add(
        "depth 1024 lists are accepted: trailing byte after",
        nested_hex("91", 1024, "c0 00"),
        "trailing_bytes",
        1025,
    )
    add(
        "depth 1024 lists are accepted: truncated float inside",
        nested_hex("91", 1024, "c1 00"),
        "unexpected_end",
        1024,
    )
    add(
        "depth 1024 structs are accepted: trailing byte after",
        nested_hex("b14e", 1024, "c0 c0"),
        "trailing_bytes",
        2049,
    )
    add(
        "max_depth 3: 4 nested lists",
        h("91 91 91 90"),
        "limit_exceeded",
        3,
        limits={"max_depth": 3},
        driver_accepts=True,
    )
    add(
        "max_depth 3: 4 nested maps",
        h("a1 81 61 a1 81 62 a1 81 63 a0"),
        "limit_exceeded",
        9,
        limits={"max_depth": 3},
        driver_accepts=True,
    )
    add(
        "max_depth 3: 4 nested structs",
        h("b1 4e b1 4e b1 4e b0 4e"),
        "limit_exceeded",
        6,
        limits={"max_depth": 3},
        driver_accepts=True,
    )
    add(
        "max_depth 3: deep item is second",
        h("92 01 91 91 90"),
        "limit_exceeded",
        4,
        limits={"max_depth": 3},
        driver_accepts=True,
    )
    add(
        "max_depth 2: [[[]]]",
        h("91 91 90"),
        "limit_exceeded",
        2,
        limits={"max_depth": 2},
        driver_accepts=True,
    )
    add(
        "max_depth 0: empty list",
        h("90"),
        "limit_exceeded",
        0,
        limits={"max_depth": 0},
        driver_accepts=True,
    )
    add(
        "max_container_len 3: list of 4",
        h("94 01 02 03 04"),
        "limit_exceeded",
        0,
        limits={"max_container_len": 3},
        driver_accepts=True,
    )
    add(
        "max_container_len 3: map of 4",
        h("a4 81 61 01 81 62 02 81 63 03 81 64 04"),
        "limit_exceeded",
        0,
        limits={"max_container_len": 3},
        driver_accepts=True,
    )
    add(
        "max_container_len 3: struct of 4",
        h("b4 4e 01 02 03 04"),
        "limit_exceeded",
        0,
        limits={"max_container_len": 3},
        driver_accepts=True,
    )
    add(
        "max_container_len 3: inner list of 4",
        h("92 93 01 02 03 94 01 02 03 04"),
        "limit_exceeded",
        5,
        limits={"max_container_len": 3},
        driver_accepts=True,
    )
    add(
        "max_container_len 3: LIST_16 of 4",
        h("d5 00 04 01 02 03 04"),
        "limit_exceeded",
        0,
        limits={"max_container_len": 3},
        driver_accepts=True,
    )
    add(
        "max_total_elements 5: [[1,2],[3,4]]",
        h("92 92 01 02 92 03 04"),
        "limit_exceeded",
        4,
        limits={"max_total_elements": 5},
        driver_accepts=True,
    )
    add(
        "max_total_elements 3: map and struct",
        h("92 a1 81 61 01 b2 4e 01 02"),
        "limit_exceeded",
        5,
        limits={"max_total_elements": 3},
        driver_accepts=True,
    )
    add(
        "max_total_elements 0: [1]",
        h("91 01"),
        "limit_exceeded",
        0,
        limits={"max_total_elements": 0},
        driver_accepts=True,
    )
    add(
        "max_string_len 3: string of 4",
        h("84 61 62 63 64"),
        "limit_exceeded",
        0,
        limits={"max_string_len": 3},
        driver_accepts=True,
    )
    add(
        "max_string_len 3: STRING_16 of 4",
        h("d1 00 04 61 62 63 64"),
        "limit_exceeded",
        0,
        limits={"max_string_len": 3},
        driver_accepts=True,
    )
    add(
        "max_string_len 3: map key of 4",
        h("a1 84 6b 6b 6b 6b 01"),
        "limit_exceeded",
        1,
        limits={"max_string_len": 3},
        driver_accepts=True,
    )
    add(
        "max_string_len 3: string of 4 in a list",
        h("92 01 84 61 62 63 64"),
        "limit_exceeded",
        2,
        limits={"max_string_len": 3},
        driver_accepts=True,
    )
    add(
        "max_bytes_len 3: bytes of 4",
        h("cc 04 01 02 03 04"),
        "limit_exceeded",
        0,
        limits={"max_bytes_len": 3},
        driver_accepts=True,
    )
    add(
        "max_bytes_len 3: BYTES_32 of 4",
        h("ce 00 00 00 04 01 02 03 04"),
        "limit_exceeded",
        0,
        limits={"max_bytes_len": 3},
        driver_accepts=True,
    )
    add(
        "limits before remaining bytes: string",
        h("84 61"),
        "limit_exceeded",
        0,
        limits={"max_string_len": 3},
    )
    add(
        "limits before remaining bytes: list",
        h("94 01"),
        "limit_exceeded",
        0,
        limits={"max_container_len": 3},
    )
    add(
        "limits before remaining bytes: bytes",
        h("cc 04"),
        "limit_exceeded",
        0,
        limits={"max_bytes_len": 3},
    )

    # Trailing bytes.
    add("trailing: 01 02", h("01 02"), "trailing_bytes", 1)
    add("trailing: 90 90", h("90 90"), "trailing_bytes", 1)
    add("trailing: C0 C0", h("c0 c0"), "trailing_bytes", 1)
    add("trailing: string then 00", h("81 61 00"), "trailing_bytes", 2)
    add("trailing: map then 00", h("a0 00"), "trailing_bytes", 1)
    add("trailing: struct then 00", h("b0 4e 00"), "trailing_bytes", 2)
    add(
        "trailing: float then FF",
        h("c1 3f f0 00 00 00 00 00 00 ff"),
        "trailing_bytes",
        9,
    )
    add("trailing: reserved marker after a value", h("01 c4"), "trailing_bytes", 1)
    add("trailing: truncated value after a value", h("01 c1 00"), "trailing_bytes", 1)
    add("trailing: list shorter than its bytes", h("91 01 02"), "trailing_bytes", 2)
    add("trailing: uuid then 00", uuid_bytes + h("00"), "trailing_bytes", 17, UUID_OPT)
    return out


# Valid or decode_only cases whose every proper prefix becomes an `unexpected_end` case.
TRUNCATE_ALL = [
    "int -17",
    "int -129",
    "int 32768",
    "int -9223372036854775808",
    "float 1.23",
    "string 'one'",
    "string 'Größenmaßstäbe' (18 bytes)",
    "string 'A' as STRING_16",
    "string 'A' as STRING_32",
    "bytes 01 02 03",
    "bytes 01 as BYTES_16",
    "bytes 01 02 as BYTES_32",
    "list [1, 2.0, 'three']",
    "list [1] as LIST_8",
    "list nested [[[1]], [2, [3, [4]]]]",
    "list [1, 2] as LIST_16",
    "list [1, 2] as LIST_32",
    "map 1 entry {'one': 'eins'}",
    "map {'a': 1} as MAP_8",
    "map {'a': 1} as MAP_16",
    "map {'a': 1} as MAP_32",
    "map key 'a' as STRING_8",
    "map key 'a' as STRING_16",
    "map key 'a' as STRING_32",
    "map nested with lists",
    "struct tag 0x4E with 2 fields",
    "struct Node-like",
    "uuid 550e8400-e29b-41d4-a716-446655440000",
    "struct 1 field as STRUCT_8",
    "struct 2 fields as STRUCT_16",
]

# Large cases: only the prefixes that end inside or just after the size header, a few in
# the payload, and the one just short of the end.
TRUNCATE_SOME = [
    "string ascii 256 bytes",
    "string ascii 65536 bytes",
    "bytes 65536",
    "list 256 items null",
    "list 65536 items true",
    "map 256 entries",
    "map key length 256",
    "map key length 65536",
]

# --------------------------------------------------------------------------------------
# Building and checking
# --------------------------------------------------------------------------------------


def with_opts(case, options, limits):
    if options:
        case["options"] = options
    if limits:
        case["limits"] = limits
    return case


def build():
    sys.setrecursionlimit(50000)
    assert not RUST_AVAILABLE and ps1._rust_pack is None and ps1._rust_unpack is None, (
        "uninstall neo4j-rust-ext: the vectors must come from the pure-Python PackStream code"
    )
    version = importlib.metadata.version("neo4j")
    names = set()
    sources = {}  # name -> (bytes, options) for truncation

    def new_name(name):
        assert name not in names, f"duplicate name {name!r}"
        names.add(name)
        return name

    valid = []
    for name, value, options, limits in valid_cases():
        py = to_py(value)
        data = driver_pack(py, options)
        if not options.get("uuid"):
            assert driver_pack(py, UUID_OPT) == data, name  # v1 and v2 agree
        back = driver_unpack(data, options)
        assert same(back, py), name
        assert same(ref_decode(data, options, limits), py), name
        case = with_opts({"name": new_name(name)}, options, limits)
        case["value"] = value
        case.update(bytes_field("hex", data))
        valid.append(case)
        sources[name] = (data, options)

    decode_only = []
    for name, value, data, options in decode_only_cases():
        py = to_py(value)
        canonical = driver_pack(py, options)
        assert canonical != data, name
        if options.get("legacy_structs"):
            # The Python driver does not know STRUCT_8/16 and must reject them.
            assert driver_fails(data, options), name
        else:
            assert same(driver_unpack(data, options), py), name
        assert same(ref_decode(data, options), py), name
        assert same(ref_decode(canonical, options), py), name
        case = with_opts({"name": new_name(name)}, options, {})
        case["value"] = value
        case.update(bytes_field("hex", data))
        case.update(bytes_field("canonical_hex", canonical))
        decode_only.append(case)
        sources[name] = (data, options)

    invalid = []
    seen = set()

    def add_invalid(name, data, expected, options, limits, driver_accepts):
        key = (
            data,
            json.dumps(options, sort_keys=True),
            json.dumps(limits, sort_keys=True),
        )
        if key in seen:
            assert expected is None, f"duplicate invalid case {name!r}"
            return
        seen.add(key)
        try:
            ref_decode(data, options, limits)
        except RefError as e:
            got = (e.kind, e.offset)
        else:
            raise AssertionError(f"{name}: reference decoder accepts {data.hex()}")
        if expected is not None:
            assert got == expected, f"{name}: hand-written {expected}, reference {got}"
        kind, offset = got
        if driver_accepts:
            assert not driver_fails(data, options), f"{name}: expected the driver to accept it"
        else:
            assert driver_fails(data, options), f"{name}: the driver accepts {data.hex()}"
        case = with_opts({"name": new_name(name)}, options, limits)
        case.update(bytes_field("hex", data))
        case["error"] = kind
        case["offset"] = offset
        invalid.append(case)

    for name, data, expected, options, limits, accepts in invalid_cases():
        add_invalid(name, data, expected, options, limits, accepts)

    for src in TRUNCATE_ALL:
        data, options = sources[src]
        assert len(data) <= 80, src
        for k in range(len(data)):
            add_invalid(
                f"{src} truncated to {k} of {len(data)} bytes",
                data[:k],
                None,
                options,
                {},
                False,
            )
    for src in TRUNCATE_SOME:
        data, options = sources[src]
        n = len(data)
        for k in sorted({0, 1, 2, 3, 4, 5, 6, 7, 8, n // 2, n - 2, n - 1}):
            add_invalid(
                f"{src} truncated to {k} of {n} bytes",
                data[:k],
                None,
                options,
                {},
                False,
            )

    doc = {
        "format": "boltcodec-packstream-vectors/1",
        "generated_by": f"scripts/gen_vectors.py with the neo4j Python driver {version} "
        "(PyPI), pure-Python PackStream packer/unpacker",
        "docs": [
            "https://neo4j.com/docs/bolt/current/packstream/",
            "tests/vectors/README.md (notation, error kinds, offsets, limits)",
        ],
        "notes": NOTES,
        "valid": valid,
        "decode_only": decode_only,
        "invalid": invalid,
    }
    return doc


NOTES = [
    (
        "Duplicate map keys are legal on the wire (the last value wins), but no case uses them: "
        "languages disagree on how to represent the result, so each test suite should check "
        "duplicates on its own."
    ),
    (
        "Structure tags above 0x7F and structures of more than 15 fields do not appear: the "
        "specification allows tags 0x00-0x7F only, and the driver cannot pack more than 15 fields."
    ),
    (
        "A value nested 1024 deep (the default max_depth) is valid, but such a value would exceed "
        "the nesting limits of common JSON parsers, so it is shown only through invalid cases that "
        "fail after it (trailing_bytes, unexpected_end); valid cases at a limit use a small "
        "max_depth instead."
    ),
    (
        "unexpected_end offsets: the marker of the innermost item that was started but could not "
        "be completed. A structure, like a list, needs at least one byte per field (plus its tag) "
        "at its header. When a container's next item is missing entirely, the offset is the "
        "container's marker (0 for an empty input)."
    ),
    (
        "invalid_utf8 offsets: the first byte of the first invalid or incomplete sequence (what "
        "Rust's Utf8Error::valid_up_to and Python's UnicodeDecodeError.start report)."
    ),
    "Floats whose value is NaN are compared by their bits; the driver preserves NaN payloads.",
]


def render(doc):
    """One case per line, so that diffs stay readable."""

    def dumps(x):
        return json.dumps(x, ensure_ascii=False, separators=(", ", ": "))

    lines = ["{"]
    for key in ("format", "generated_by", "docs", "notes"):
        if key == "notes":
            lines.append(f' "{key}": [')
            for i, note in enumerate(doc[key]):
                lines.append("  " + dumps(note) + ("," if i < len(doc[key]) - 1 else ""))
            lines.append(" ],")
        else:
            lines.append(f' "{key}": {dumps(doc[key])},')
    sections = ("valid", "decode_only", "invalid")
    for s, section in enumerate(sections):
        lines.append(f' "{section}": [')
        cases = doc[section]
        for i, case in enumerate(cases):
            lines.append("  " + dumps(case) + ("," if i < len(cases) - 1 else ""))
        lines.append(" ]" + ("," if s < len(sections) - 1 else ""))
    lines.append("}")
    text = "\n".join(lines) + "\n"
    assert json.loads(text) == doc
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the committed file differs"
    )
    args = parser.parse_args()
    text = render(build())
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else None
        if current != text:
            print(
                f"{OUT.relative_to(ROOT)} is out of date; run scripts/gen_vectors.py",
                file=sys.stderr,
            )
            return 1
        print(f"{OUT.relative_to(ROOT)} is up to date")
        return 0
    OUT.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
