"""Differential tests against the official driver's pure-Python PackStream codec.

Seeded random values (``BOLTCODEC_SEED`` to change the seed, ``BOLTCODEC_CASES`` the
count): the same bytes when packing, the same values when unpacking, in both directions,
and on mutated bytes boltcodec never crashes and, whenever it accepts an input, agrees
with the driver.
"""

from __future__ import annotations

import math
import os
import random
import struct
import uuid
from typing import Any

import pytest

neo4j = pytest.importorskip("neo4j")

from neo4j._codec.packstream import Structure, v1, v2  # noqa: E402
from neo4j._codec.packstream._common import PackableBuffer, UnpackableBuffer  # noqa: E402

import boltcodec  # noqa: E402
from boltcodec import _native  # noqa: E402

from conftest import same  # noqa: E402

SEED = int(os.environ.get("BOLTCODEC_SEED", "20261122"))
CASES = int(os.environ.get("BOLTCODEC_CASES", "3000"))

INT_EDGES = [
    0,
    1,
    -1,
    15,
    16,
    -16,
    -17,
    127,
    128,
    -128,
    -129,
    255,
    256,
    32767,
    32768,
    -32768,
    -32769,
    2**31 - 1,
    2**31,
    -(2**31),
    -(2**31) - 1,
    2**63 - 1,
    -(2**63),
]
LEN_EDGES = [0, 1, 15, 16, 17, 255, 256, 300]
ALPHABETS = ["abcxyz", "aé€😀", "\x00\x7f\u0080\u07ff\u0800\uffff\U00010000"]


class Gen:
    def __init__(self, seed: int, uuids: bool) -> None:
        self.r = random.Random(seed)
        self.uuids = uuids

    def length(self, big: bool = True) -> int:
        r = self.r
        if big and r.random() < 0.005:
            return r.choice([65535, 65536, 70000])
        return r.choice(LEN_EDGES) if r.random() < 0.3 else r.randrange(0, 20)

    def string(self, max_len: int | None = None) -> str:
        n = self.length()
        if max_len is not None:
            n = min(n, max_len)
        alphabet = self.r.choice(ALPHABETS)
        if n > 300:  # long strings: a random piece repeated (building them is slow)
            piece = "".join(self.r.choice(alphabet) for _ in range(50))
            return (piece * (n // 50 + 1))[:n]
        return "".join(self.r.choice(alphabet) for _ in range(n))

    def scalar(self) -> Any:
        r = self.r
        kind = r.randrange(9 if self.uuids else 8)
        if kind == 0:
            return None
        if kind == 1:
            return r.random() < 0.5
        if kind == 2:
            return (
                r.choice(INT_EDGES) + r.choice([0, 0, 1, -1])
                if r.random() < 0.5
                else (r.randrange(-(2**63), 2**63))
            )
        if kind == 3:
            if r.random() < 0.3:
                return r.choice([0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, 1.7e308])
            return struct.unpack(">d", r.getrandbits(64).to_bytes(8, "big"))[0]
        if kind in (4, 5):
            return self.string()
        if kind == 6:
            return r.getrandbits(8 * 64).to_bytes(64, "big")[: self.length()] * (
                1 if r.random() < 0.99 else 2000
            )
        if kind == 7:
            return r.randrange(-16, 128)
        return uuid.UUID(int=r.getrandbits(128))

    def value(self, depth: int = 0) -> Any:
        self.budget = 400  # items per top-level value, so that sizes stay bounded
        return self._value(depth)

    def _value(self, depth: int) -> Any:
        r = self.r
        self.budget -= 1
        if depth > 6 or self.budget <= 0 or r.random() < 0.45:
            v = self.scalar()
            # Values in range for the driver: ints fit 64 bits by construction.
            if isinstance(v, int) and not isinstance(v, bool):
                v = max(-(2**63), min(2**63 - 1, v))
            return v
        kind = r.randrange(3)
        n = r.randrange(0, 6) if r.random() < 0.9 else r.choice([15, 16, 255, 256])
        n = max(0, min(n, self.budget))
        if kind == 0:
            return [self._value(depth + 1) for _ in range(n)]
        if kind == 1:
            return {self.string(max_len=40): self._value(depth + 1) for _ in range(n)}
        fields = (self._value(depth + 1) for _ in range(min(n, 15)))
        return Structure(bytes([r.randrange(128)]), *fields)


def driver_pack(codec: Any, value: Any) -> bytes:
    packer = codec.Packer(PackableBuffer())
    packer._py_pack(value, codec.Packer._inject_hooks(None))
    return bytes(packer.stream.data)


def driver_unpack(codec: Any, data: bytes) -> tuple[Any, int]:
    buf = UnpackableBuffer(data)
    unpacker = codec.Unpacker(buf)
    value = unpacker._unpack()
    return value, buf.p


def equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, Structure) and isinstance(b, Structure):
        return a.tag == b.tag and equal(a.fields, b.fields)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize(
    ("codec", "ours_pack", "ours_unpack", "uuids"),
    [
        (v1, _native.neo4j_pack_v1, _native.neo4j_unpack_v1, False),
        (v2, _native.neo4j_pack_v2, _native.neo4j_unpack_v2, True),
    ],
    ids=["v1", "v2"],
)
def test_random_values_both_directions(
    codec: Any, ours_pack: Any, ours_unpack: Any, uuids: bool
) -> None:
    gen = Gen(SEED, uuids)
    hooks = codec.Packer._inject_hooks(None)
    for i in range(CASES):
        value = gen.value()
        expected = driver_pack(codec, value)
        got = ours_pack(value, hooks)
        assert got == expected, f"seed {SEED} case {i}: pack differs for {value!r:.200}"
        # boltcodec's own API gives the same bytes.
        assert boltcodec.packb(value, uuid=uuids) == expected
        # Decode: ours and the driver's agree, and both give the value back.
        theirs, end = driver_unpack(codec, expected)
        ours, our_end = ours_unpack(bytearray(expected), 0)
        assert (our_end, end) == (len(expected), len(expected))
        assert equal(ours, theirs), f"seed {SEED} case {i}: unpack differs"
        assert equal(ours, value)


WIDER = {  # tiny/8-bit size markers -> the 16-bit and 32-bit forms (non-minimal, valid)
    "str": (0xD1, 0xD2),
    "list": (0xD5, 0xD6),
    "map": (0xD9, 0xDA),
    "bytes": (0xCD, 0xCE),
}


def pack_wide(value: Any, r: random.Random) -> bytes:
    """Packs with randomly widened size prefixes and integers (as the Java stack writes)."""
    if isinstance(value, bool) or value is None or isinstance(value, (float, uuid.UUID)):
        return driver_pack(v2, value)
    if isinstance(value, int):
        for marker, fmt in ((0xC8, ">b"), (0xC9, ">h"), (0xCA, ">i"), (0xCB, ">q")):
            try:
                enc = bytes([marker]) + struct.pack(fmt, value)
            except struct.error:
                continue
            if r.random() < 0.5:
                return enc
        return driver_pack(v2, value)
    kind, n, body = None, 0, b""
    if isinstance(value, str):
        kind, body = "str", value.encode()
        n = len(body)
    elif isinstance(value, bytes):
        kind, body = "bytes", value
        n = len(body)
    elif isinstance(value, list):
        kind, n = "list", len(value)
        body = b"".join(pack_wide(v, r) for v in value)
    elif isinstance(value, dict):
        kind, n = "map", len(value)
        body = b"".join(pack_wide(k, r) + pack_wide(v, r) for k, v in value.items())
    else:  # Structure
        return (
            bytes([0xB0 + len(value.fields)])
            + value.tag
            + b"".join(pack_wide(f, r) for f in value.fields)
        )
    m16, m32 = WIDER[kind]
    if r.random() < 0.5 and n < 65536:
        return bytes([m16]) + n.to_bytes(2, "big") + body
    return bytes([m32]) + n.to_bytes(4, "big") + body


def test_non_minimal_encodings() -> None:
    gen = Gen(SEED + 1, uuids=True)
    r = random.Random(SEED + 2)
    for i in range(CASES // 3):
        value = gen.value()
        data = pack_wide(value, r)
        theirs, end = driver_unpack(v2, data)
        ours, our_end = _native.neo4j_unpack_v2(data, 0)
        assert (our_end, end) == (len(data), len(data)), f"seed {SEED} case {i}"
        assert equal(ours, theirs)
        assert same(boltcodec.unpackb(data, uuid=True), ours)


def test_mutated_bytes_never_crash_and_agree_when_accepted() -> None:
    gen = Gen(SEED + 3, uuids=False)
    r = random.Random(SEED + 4)
    accepted = rejected = 0
    for _ in range(CASES):
        data = bytearray(driver_pack(v1, gen.value()))
        for _ in range(r.randrange(1, 4)):
            op = r.randrange(3)
            if op == 0 and data:
                data[r.randrange(len(data))] = r.randrange(256)
            elif op == 1 and data:
                del data[r.randrange(len(data)) :]
            else:
                data.insert(r.randrange(len(data) + 1), r.randrange(256))
        try:
            ours, end = _native.neo4j_unpack_v1(bytes(data), 0)
        except boltcodec.DecodeError:
            rejected += 1
            continue
        accepted += 1
        theirs, their_end = driver_unpack(v1, bytes(data))
        assert their_end == end
        assert equal(ours, theirs)
    assert accepted > 0
    assert rejected > 0


def test_random_errors_have_the_driver_types() -> None:
    r = random.Random(SEED + 5)
    bad = [
        lambda: {r.randrange(100): 1},
        lambda: [2**63 + r.randrange(10)],
        lambda: -(2**63) - 1 - r.randrange(10),
        lambda: {"k": object()},
        lambda: Structure(b"AB"),
        lambda: Structure(b"A", *range(16 + r.randrange(5))),
        lambda: [1, 2, {3.5: None}],
        uuid.uuid4,
    ]
    hooks = v1.Packer._inject_hooks(None)
    for _ in range(200):
        value = r.choice(bad)()
        with pytest.raises(Exception) as theirs:
            driver_pack(v1, value)
        with pytest.raises(Exception) as ours:
            _native.neo4j_pack_v1(value, hooks)
        assert type(ours.value) is type(theirs.value)
        assert str(ours.value) == str(theirs.value)


np = pytest.importorskip("numpy")
pd = pytest.importorskip("pandas")


def random_numpy_pandas(r: random.Random) -> Any:
    n = r.randrange(0, 12)
    kind = r.randrange(9)
    if kind == 0:
        dtype = r.choice([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32])
        return np.array([r.randrange(-100, 100) for _ in range(n)]).astype(dtype)
    if kind == 1:
        dtype = r.choice([np.float16, np.float32, np.float64])
        return np.array([r.uniform(-1e3, 1e3) for _ in range(n)], dtype=dtype)
    if kind == 2:
        return np.array([r.random() < 0.5 for _ in range(n)])
    if kind == 3:
        return pd.Series([r.choice([1, 2.5, None, "x", True]) for _ in range(n)], dtype=object)
    if kind == 4:
        return pd.Series([r.choice([1, None]) for _ in range(n)], dtype="Int64")
    if kind == 5:
        return pd.Series([r.choice(["a", "bb", None]) for _ in range(n)], dtype="string")
    if kind == 6:
        return pd.DataFrame({f"c{i}": [r.random() for _ in range(3)] for i in range(n % 4)})
    if kind == 7:
        return pd.Categorical([r.choice(["x", "y"]) for _ in range(n)])
    return [
        np.int64(r.randrange(-(2**62), 2**62)),
        np.float32(r.random()),
        np.bool_(r.random() < 0.5),
        np.str_("s"),
        pd.NA,
        {"k": np.uint16(r.randrange(65536))},
    ]


def test_random_numpy_pandas_inputs() -> None:
    r = random.Random(SEED + 6)
    hooks = v1.Packer._inject_hooks(None)
    for i in range(CASES // 3):
        value = random_numpy_pandas(r)
        expected = driver_pack(v1, value)
        assert _native.neo4j_pack_v1(value, hooks) == expected, f"seed {SEED} case {i}: {value!r}"
        assert boltcodec.packb(value) == expected


@pytest.mark.parametrize(
    ("codec", "ours_unpack"),
    [(v1, _native.neo4j_unpack_v1), (v2, _native.neo4j_unpack_v2)],
    ids=["v1", "v2"],
)
def test_one_character_strings_were_fresh_objects_unlike_the_drivers(
    codec: Any, ours_unpack: Any
) -> None:
    """A one-character string (value or map key) is CPython's shared Latin-1 string.

    The driver's codec decodes with ``bytes.decode``, which hands out CPython's one
    shared object per Latin-1 character; boltcodec made a new string for every ASCII one
    (and interned one-character keys, another object again), which kept about 50 bytes
    per string alive: 600,000 of them in the demo read, each walked by the collector.
    """
    for cp in range(256):
        s = chr(cp)
        data = driver_pack(codec, [s, {s: s}])
        want, _ = driver_unpack(codec, data)
        record = b"\xb1\x71" + data  # RECORD with this one field
        framed = len(record).to_bytes(2, "big") + record + b"\x00\x00"
        for got in (
            want,  # the driver's own: what the others must give
            ours_unpack(data, 0)[0],
            boltcodec.unpackb(data),
            boltcodec.Dechunker().feed_messages(framed)[0][1][0],
        ):
            assert got[0] is s, f"U+{cp:04X} as a value"
            assert next(iter(got[1])) is s, f"U+{cp:04X} as a key"
            assert got[1][s] is s, f"U+{cp:04X} as a map value"
