"""Every case of tests/vectors/packstream.json, through the public API and the drop-in."""

from __future__ import annotations

from typing import Any

import pytest

import boltcodec
from boltcodec import _native

from conftest import load_vectors, options_kwargs, same, vector_bytes, vector_value

_V = load_vectors()


def _ids(cases: list[dict[str, Any]]) -> list[str]:
    return [c["name"] for c in cases]


def test_format() -> None:
    assert _V["format"] == "boltcodec-packstream-vectors/1"
    assert len(_V["valid"]) > 100
    assert len(_V["invalid"]) > 50


@pytest.mark.parametrize("case", _V["valid"], ids=_ids(_V["valid"]))
def test_valid(case: dict[str, Any]) -> None:
    data = vector_bytes(case)
    value = vector_value(case["value"])
    kw = options_kwargs(case)
    assert boltcodec.packb(value, uuid=kw.get("uuid", False)) == data
    assert same(boltcodec.unpackb(data, **kw), value)
    # A bytearray and a memoryview decode the same.
    assert same(boltcodec.unpackb(bytearray(data), **kw), value)
    assert same(boltcodec.unpackb(memoryview(data), **kw), value)
    # unpack_from at an offset, with bytes after the value.
    got, end = boltcodec.unpack_from(b"\x00\x00" + data + b"\xc0", 2, **kw)
    assert end == 2 + len(data)
    assert same(got, value)


@pytest.mark.parametrize("case", _V["decode_only"], ids=_ids(_V["decode_only"]))
def test_decode_only(case: dict[str, Any]) -> None:
    data = vector_bytes(case)
    value = vector_value(case["value"])
    kw = options_kwargs(case)
    assert same(boltcodec.unpackb(data, **kw), value)
    assert boltcodec.packb(value, uuid=kw.get("uuid", False)) == vector_bytes(case, "canonical_")


@pytest.mark.parametrize("case", _V["invalid"], ids=_ids(_V["invalid"]))
def test_invalid(case: dict[str, Any]) -> None:
    data = vector_bytes(case)
    with pytest.raises(boltcodec.DecodeError) as info:
        boltcodec.unpackb(data, **options_kwargs(case))
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.kind, err.offset) == (case["error"], case["offset"]), str(err)
    assert f"at byte {case['offset']}" in str(err)


@pytest.mark.parametrize("case", _V["invalid"], ids=_ids(_V["invalid"]))
def test_invalid_through_driver_interface(case: dict[str, Any]) -> None:
    """The drop-in's ``unpack(buffer, idx)`` never crashes: an error with the absolute
    offset, or (for ``trailing_bytes``, since a stream reader stops after one value) a value.
    """
    data = vector_bytes(case)
    opts = case.get("options", {})
    if case.get("limits") or opts.get("legacy_structs"):
        pytest.skip("the driver interface has no limits and no legacy structures")
    unpack = _native.neo4j_unpack_v2 if opts.get("uuid") else _native.neo4j_unpack_v1
    buf = bytearray(b"\xff\xff\xff" + data)
    if case["error"] == "trailing_bytes":
        _, end = unpack(buf, 3)
        assert end == 3 + case["offset"]
        return
    with pytest.raises(ValueError) as info:
        unpack(buf, 3)
    assert isinstance(info.value, boltcodec.DecodeError)
    assert info.value.offset == 3 + case["offset"]
