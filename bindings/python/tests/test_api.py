"""boltcodec's own API: packb/unpackb/unpack_from, Structure, Dechunker, errors."""

from __future__ import annotations

import pickle
import uuid

import pytest

import boltcodec
from boltcodec import Dechunker, DechunkError, DecodeError, EncodeError, Structure


def frame(message: bytes, chunk: int = 65535) -> bytes:
    out = b""
    for i in range(0, len(message), chunk):
        part = message[i : i + chunk]
        out += len(part).to_bytes(2, "big") + part
    return out + b"\x00\x00"


def test_roundtrip_basic() -> None:
    value = {
        "n": None,
        "b": [True, False],
        "i": [0, -1, -16, -17, 127, 128, -(2**63), 2**63 - 1],
        "f": [0.0, -0.0, 1.5, float("inf")],
        "s": ["", "a", "é" * 20, "x" * 70000],
        "by": [b"", b"\x00\xff", bytearray(b"ab")],
        "l": [[], [[]], list(range(20))],
        "m": {"": {}, "k" * 40: {"x": 1}},
        "st": Structure(b"N", 1, ["L"], {"p": 2}),
    }
    out = boltcodec.unpackb(boltcodec.packb(value))
    value["by"][2] = b"ab"  # bytearray decodes as bytes
    assert out == value


def test_tuple_packs_as_list() -> None:
    assert boltcodec.packb((1, (2, 3))) == boltcodec.packb([1, [2, 3]])


def test_duplicate_map_keys_last_wins() -> None:
    data = bytes.fromhex("a3") + b"\x81a\x01" + b"\x81b\x02" + b"\x81a\x03"
    assert boltcodec.unpackb(data) == {"a": 3, "b": 2}


def test_trailing_bytes_and_unpack_from() -> None:
    with pytest.raises(DecodeError) as info:
        boltcodec.unpackb(b"\x01\x02")
    assert (info.value.kind, info.value.offset) == ("trailing_bytes", 1)
    assert boltcodec.unpack_from(b"\x01\x02", 1) == (2, 2)
    with pytest.raises(DecodeError) as info:
        boltcodec.unpack_from(b"\x01", 5)
    assert (info.value.kind, info.value.offset) == ("unexpected_end", 5)


def test_decode_error_attributes() -> None:
    with pytest.raises(ValueError) as info:
        boltcodec.unpackb(b"\x92\x01\xc1\x40")
    err = info.value
    assert isinstance(err, DecodeError)
    assert err.kind == "unexpected_end"
    assert err.offset == 2
    assert "FLOAT_64" in err.expected
    assert "at byte 2" in str(err)


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"\x85ab", "unexpected_end"),  # truncated string
        (b"\xd6\xff\xff\xff\xff", "size_too_large"),  # a list of 2^32-1 items
        (b"\xd6\x7f\xff\xff\xff", "limit_exceeded"),  # 2^31-1 items: max_total_elements
        (b"\xd6\x00\x0f\xff\xff", "unexpected_end"),  # 2^20-1 items, no bytes
        (b"\x91" * 20000, "limit_exceeded"),  # 20,000 levels deep
        (b"\xa1\x01\x02", "non_string_key"),
        (b"\x81\xff", "invalid_utf8"),
        (b"\xe0" + bytes(16), "reserved_marker"),  # UUID without uuid=True
    ],
)
def test_hostile_input_raises(data: bytes, kind: str) -> None:
    with pytest.raises(DecodeError) as info:
        boltcodec.unpackb(data)
    assert info.value.kind == kind


def test_limits() -> None:
    with pytest.raises(DecodeError) as info:
        boltcodec.unpackb(b"\x91\x91\x90", max_depth=2)
    assert (info.value.kind, info.value.offset) == ("limit_exceeded", 2)
    assert boltcodec.unpackb(b"\x91\x91\x90", max_depth=3) == [[[]]]
    with pytest.raises(DecodeError):
        boltcodec.unpackb(b"\x83abc", max_string_len=2)
    with pytest.raises(DecodeError):
        boltcodec.unpackb(b"\xcc\x03abc", max_bytes_len=2)
    with pytest.raises(DecodeError):
        boltcodec.unpackb(b"\x93\x01\x02\x03", max_container_len=2)
    with pytest.raises(DecodeError):
        boltcodec.unpackb(b"\x92\x91\x01\x91\x01", max_total_elements=3)


def test_nested_headers_do_not_preallocate_beyond_input() -> None:
    # Every header claims (almost) everything that is left; pre-allocating each would
    # need 500 * 100,000 slots (400 MB). Only what the input can hold may be allocated.
    import tracemalloc

    data = b"".join(b"\xd6" + (100_000).to_bytes(4, "big") for _ in range(500))
    data += b"\x00" * 100_000
    tracemalloc.start()
    try:
        with pytest.raises(DecodeError) as info:
            boltcodec.unpackb(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.kind == "unexpected_end"
    assert peak < 20 * len(data)


def test_uuid() -> None:
    u = uuid.UUID("550e8400-e29b-41d4-a716-446655440000")
    data = boltcodec.packb([u], uuid=True)
    assert data == b"\x91\xe0" + u.bytes
    assert boltcodec.unpackb(data, uuid=True) == [u]
    with pytest.raises(ValueError, match="uuid=True"):
        boltcodec.packb(u)


def test_legacy_structs_option() -> None:
    data = b"\xdc\x01\x4e\x01"
    with pytest.raises(DecodeError):
        boltcodec.unpackb(data)
    assert boltcodec.unpackb(data, legacy_structs=True) == Structure(b"N", 1)


def test_default_callable() -> None:
    class Point:
        def __init__(self, x: int, y: int) -> None:
            self.x, self.y = x, y

    data = boltcodec.packb([Point(1, 2)], default=lambda p: Structure(b"X", p.x, p.y))
    assert data == b"\x91\xb2X\x01\x02"
    with pytest.raises(ValueError, match="not supported"):
        boltcodec.packb(Point(1, 2))


def test_encode_errors() -> None:
    with pytest.raises(TypeError, match="strings"):
        boltcodec.packb({1: 2})
    with pytest.raises(OverflowError):
        boltcodec.packb(2**63)
    with pytest.raises(OverflowError):
        boltcodec.packb(Structure(b"X", *range(16)))
    with pytest.raises(ValueError, match="single byte"):
        boltcodec.packb(Structure(b"XY"))
    with pytest.raises(UnicodeEncodeError):
        boltcodec.packb("\ud800")
    loop: list = []
    loop.append(loop)
    with pytest.raises(EncodeError):
        boltcodec.packb(loop)
    with pytest.raises(EncodeError):
        boltcodec.packb([[[]]], max_depth=2)
    assert boltcodec.packb([[[]]], max_depth=3) == b"\x91\x91\x90"


def test_struct_hook_order_and_replacement() -> None:
    seen = []

    def hook(s: Structure) -> object:
        seen.append(s.tag)
        return ("hydrated", s.tag, list(s.fields))

    inner = Structure(b"I", 1)
    outer = Structure(b"O", inner, {"k": Structure(b"K")}, [Structure(b"L")])
    value = {"a": outer, "b": [Structure(b"Z")]}
    out = boltcodec.unpackb(boltcodec.packb(value), struct_hook=hook)
    assert seen == [b"I", b"K", b"L", b"O", b"Z"]  # post-order, as the driver
    assert out == {
        "a": (
            "hydrated",
            b"O",
            [("hydrated", b"I", [1]), {"k": ("hydrated", b"K", [])}, [("hydrated", b"L", [])]],
        ),
        "b": [("hydrated", b"Z", [])],
    }
    assert boltcodec.unpackb(b"\xb0A", struct_hook=lambda s: 42) == 42


def test_struct_hook_with_duplicate_keys() -> None:
    # {"a": Structure(b"A"), "a": 1}: the hook runs for the structure, the later value stays.
    data = b"\xa2\x81a\xb0A\x81a\x01"
    calls = []
    assert boltcodec.unpackb(data, struct_hook=lambda s: calls.append(s) or "x") == {"a": 1}
    assert len(calls) == 1


def test_struct_hook_error_propagates() -> None:
    def hook(s: Structure) -> object:
        raise KeyError("nope")

    with pytest.raises(KeyError):
        boltcodec.unpackb(b"\x91\xb0A", struct_hook=hook)


class TestStructure:
    def test_accessors(self) -> None:
        s = Structure(b"T", 1, "a", None)
        assert s.tag == b"T"
        assert s.fields == [1, "a", None]
        assert len(s) == 3
        assert s[0] == 1
        assert s[-1] is None
        assert list(s) == [1, "a", None]
        s[1] = "b"
        assert s.fields[1] == "b"
        s.fields.append(5)
        assert len(s) == 4
        with pytest.raises(IndexError):
            s[10]

    def test_equality_and_repr(self) -> None:
        s = Structure(b"T", 1.5, [{"a": "b"}])
        assert s == Structure(b"T", 1.5, [{"a": "b"}])
        assert s != Structure(b"T", 1.5, [{"a": "c"}])
        assert s != Structure(b"U", 1.5, [{"a": "b"}])
        assert s.__eq__(object()) is NotImplemented
        assert s.__ne__(object()) is NotImplemented
        assert repr(s) == "Structure(b'T', 1.5, [{'a': 'b'}])"
        assert eval(repr(s), {"Structure": Structure}) == s
        with pytest.raises(TypeError):
            hash(s)

    def test_pickle(self) -> None:
        s = Structure(b"T", 1, [2])
        assert pickle.loads(pickle.dumps(s)) == s

    def test_subclass(self) -> None:
        class Mine(Structure):
            pass

        assert boltcodec.packb(Mine(b"A", 1)) == b"\xb1A\x01"

    def test_gc_cycle_is_collected(self) -> None:
        import gc
        import weakref

        class Box:
            pass

        box = Box()
        s = Structure(b"A", box)
        box.s = s
        ref = weakref.ref(box)
        del s, box
        gc.collect()
        assert ref() is None


class TestDechunker:
    def test_messages_split_anywhere(self) -> None:
        m1 = boltcodec.packb(Structure(b"\x71", [1, "a"]))
        m2 = boltcodec.packb(Structure(b"\x70", {"has_more": False}))
        wire = frame(m1) + b"\x00\x00" + frame(m2, chunk=3)
        d = Dechunker()
        got = []
        for i in range(len(wire)):
            got += d.feed(wire[i : i + 1])
        assert got == [m1, m2]
        assert d.noop_count == 1
        assert d.at_boundary
        d.end_of_stream()

    def test_feed_messages_decodes_in_one_call(self) -> None:
        records = [[i, f"s{i}", i * 0.5] for i in range(100)]
        wire = b"".join(frame(boltcodec.packb(Structure(b"\x71", r))) for r in records)
        wire += frame(boltcodec.packb(Structure(b"\x70", {"t_last": 1})))
        out = Dechunker().feed_messages(wire)
        assert [f for tag, f in out if tag == 0x71] == [[r] for r in records]
        assert out[-1] == (0x70, [{"t_last": 1}])

    def test_feed_messages_hook(self) -> None:
        wire = frame(boltcodec.packb(Structure(b"\x71", [Structure(b"N", 1)])))
        out = Dechunker().feed_messages(wire, struct_hook=lambda s: s.fields[0])
        assert out == [(0x71, [[1]])]

    def test_errors(self) -> None:
        d = Dechunker(max_message_size=4)
        with pytest.raises(DechunkError) as info:
            d.feed(b"\x00\x05hello\x00\x00")
        assert info.value.kind == "message_too_large"
        assert isinstance(info.value, DecodeError)
        d = Dechunker()
        d.feed(b"\x00\x05he")
        with pytest.raises(DechunkError) as info:
            d.end_of_stream()
        assert info.value.kind == "truncated"
        with pytest.raises(DecodeError) as info:
            Dechunker().feed_messages(b"\x00\x02\x81a\x00\x00")  # not a structure
        assert (info.value.kind, info.value.offset) == ("not_a_structure", 0)
        assert "expected a message structure" in str(info.value)

    def test_uuid_option(self) -> None:
        u = uuid.uuid4()
        wire = frame(b"\xb1\x71\x91\xe0" + u.bytes)
        assert Dechunker(uuid=True).feed_messages(wire) == [(0x71, [[u]])]
        with pytest.raises(DecodeError):
            Dechunker().feed_messages(wire)
