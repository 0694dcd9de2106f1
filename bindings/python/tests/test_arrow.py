"""boltcodec.arrow: PULL responses into Arrow, through the PyCapsule stream interface.

Values are checked against boltcodec's own decoding of the same RECORDs (unpackb) and
against what pyarrow, polars and pandas make of the exported stream.
"""

from __future__ import annotations

import datetime
import gc

import pytest

import boltcodec
from boltcodec import DecodeError, Structure
from boltcodec.arrow import ArrowBatches, ArrowStream, decode_records

pa = pytest.importorskip("pyarrow")


def frame(message: bytes) -> bytes:
    out = b""
    for i in range(0, len(message), 65535):
        part = message[i : i + 65535]
        out += len(part).to_bytes(2, "big") + part
    return out + b"\x00\x00"


def record(*fields: object) -> bytes:
    return boltcodec.packb(Structure(b"\x71", list(fields)))


def success(**metadata: object) -> bytes:
    return boltcodec.packb(Structure(b"\x70", metadata))


def response(rows: list[tuple[object, ...]], **summary: object) -> bytes:
    """The bytes of a PULL response: RECORDs, then SUCCESS."""
    return b"".join(frame(record(*r)) for r in rows) + frame(success(**summary))


def table(rows: list[tuple[object, ...]], fields: list[str], version: str = "5.8") -> pa.Table:
    return pa.table(decode_records(response(rows), fields, version))


def test_scalars_are_typed_and_equal_to_the_records() -> None:
    rows = [
        (1, 1.5, "a", True, b"\x00\xff", None),
        (-(2**63), float("inf"), "é" * 40, False, b"", None),
        (None, None, None, None, None, None),
    ]
    names = ["i", "f", "s", "b", "by", "n"]
    t = table(rows, names)
    assert t.column_names == names
    assert [str(f.type) for f in t.schema] == [
        "int64",
        "double",
        "string",
        "bool",
        "binary",
        "null",
    ]
    # value by value against the records' own decoding
    for r, row in enumerate(rows):
        (decoded,) = boltcodec.unpackb(record(*row)).fields  # RECORD's one field: the list
        assert [t.column(c)[r].as_py() for c in range(len(names))] == decoded


def test_mixed_and_nested_columns() -> None:
    t = table(
        [
            (1, [1, 2], {"a": 1}, "x"),
            (2.5, [], {}, 3),
            (None, None, None, [1, "y"]),
        ],
        ["num", "list", "map", "mixed"],
    )
    assert str(t.schema.field("num").type) == "double"
    assert t.column("num").to_pylist() == [1.0, 2.5, None]
    assert str(t.schema.field("list").type) == "list<item: int64>"
    assert t.column("list").to_pylist() == [[1, 2], [], None]
    assert str(t.schema.field("map").type) == "map<string, int64>"
    assert t.column("map").to_pylist() == [[("a", 1)], [], None]
    # a string and other values: canonical text
    assert t.column("mixed").to_pylist() == ["x", "3", '[1, "y"]']


def test_graph_temporal_and_spatial_values() -> None:
    node = Structure(b"N", 7, ["Person"], {"name": "Alice"}, "4:db:7")
    date = Structure(b"D", 19753)  # 2024-01-31
    duration = Structure(b"E", 14, 3, 4, 5)
    point = Structure(b"X", 7203, 1.0, 2.0)
    dt = Structure(b"I", 100, 42, 3600)
    t = table([(node, date, duration, point, dt)], ["n", "d", "du", "p", "dt"])
    n = t.column("n")[0].as_py()
    assert n == {
        "id": 7,
        "element_id": "4:db:7",
        "labels": ["Person"],
        "properties": [("name", "Alice")],
    }
    assert t.column("d")[0].as_py() == datetime.date(2024, 1, 31)
    assert str(t.schema.field("du").type) == "month_day_nano_interval"
    iv = t.column("du")[0].as_py()
    assert (iv.months, iv.days, iv.nanoseconds) == (14, 3, 4_000_000_005)
    assert t.column("p")[0].as_py() == {"srid": 7203, "x": 1.0, "y": 2.0, "z": None}
    assert str(t.schema.field("dt").type) == "timestamp[ns, tz=+01:00]"
    assert t.column("dt").cast(pa.int64())[0].as_py() == 100_000_000_042


def test_polars_and_pandas_take_the_stream() -> None:
    pl = pytest.importorskip("polars")
    batches = decode_records(response([(1, "a"), (2, "b"), (3, None)]), ["n", "s"])
    df = pl.DataFrame(batches)
    assert df.shape == (3, 2)
    assert df["n"].to_list() == [1, 2, 3]
    assert df["s"].to_list() == ["a", "b", None]
    pdf = pa.table(batches).to_pandas()
    assert list(pdf["n"]) == [1, 2, 3]


def test_the_stream_can_be_exported_again_and_dropped_unread() -> None:
    batches = decode_records(response([(1,), (2,)]), ["x"])
    assert isinstance(batches, ArrowBatches)
    assert (len(batches), batches.num_batches) == (2, 1)
    assert batches.column_names == ["x"]
    assert batches.column_types == ["Int64"]
    assert "2 rows" in repr(batches)
    capsule = batches.__arrow_c_stream__()
    assert "arrow_array_stream" in repr(capsule)
    del capsule  # released without being consumed
    gc.collect()
    assert pa.table(batches).column("x").to_pylist() == [1, 2]
    assert pa.table(batches).num_rows == 2  # a second, independent stream


def test_an_empty_result_has_null_columns_and_no_rows() -> None:
    batches = decode_records(response([]), ["a", "b"])
    t = pa.table(batches)
    assert t.num_rows == 0
    assert t.column_names == ["a", "b"]
    assert str(t.schema.field("a").type) == "null"


def test_a_result_without_columns_still_counts_rows() -> None:
    batches = decode_records(response([(), ()]), [])
    assert len(batches) == 2


def test_malformed_bytes_raise_decode_error_with_kind_and_offset() -> None:
    # RECORD [<reserved marker DF>]
    bad = frame(bytes.fromhex("B171 91DF")) + frame(success())
    with pytest.raises(DecodeError) as e:
        decode_records(frame(record(1)) + bad, ["x"])
    assert e.value.kind == "reserved_marker"
    assert e.value.offset == 3
    assert e.value.stream_offset == len(frame(record(1)))
    assert "record 1" in str(e.value)
    # cut before the summary
    data = response([(1,), (2,)])
    with pytest.raises(DecodeError) as e:
        decode_records(data[:-3], ["x"])
    assert e.value.kind == "unexpected_end"
    # a FAILURE summary
    failure = boltcodec.packb(
        Structure(b"\x7f", {"code": "Neo.ClientError.Statement.SyntaxError", "message": "bad"})
    )
    with pytest.raises(DecodeError) as e:
        decode_records(frame(record(1)) + frame(failure), ["x"])
    assert e.value.kind == "failure"
    assert "SyntaxError" in str(e.value)
    # a record with the wrong number of fields
    with pytest.raises(DecodeError) as e:
        decode_records(response([(1, 2)]), ["x"])
    assert e.value.kind == "field_count"
    # a bad version
    with pytest.raises(ValueError, match="version"):
        decode_records(response([(1,)]), ["x"], version="9.x")


def test_every_truncation_raises_and_never_crashes() -> None:
    data = response([(1, "a", [1.5, None], {"k": b"\x01"})] * 3)
    for cut in range(len(data)):
        with pytest.raises(DecodeError):
            decode_records(data[:cut], ["a", "b", "c", "d"])
    assert len(decode_records(data, ["a", "b", "c", "d"])) == 3


def test_bolt_4_4_nodes_have_no_element_id() -> None:
    node = Structure(b"N", 1, ["L"], {})
    t = table([(node,)], ["n"], version="4.4")
    assert t.column("n")[0].as_py()["element_id"] is None


def test_a_stream_gives_a_batch_per_feed_and_says_when_to_pull() -> None:
    first = b"".join(frame(record(i, f"s{i}")) for i in range(3)) + frame(success(has_more=True))
    second = frame(record(3, "s3")) + frame(success(t_last=1))
    stream = ArrowStream(["n", "s"], "5.8")
    assert stream.column_names == ["n", "s"]
    got = []
    for part in (first[:7], first[7:]):
        out = stream.feed(part)
        if out is not None:
            got.extend(pa.table(out).column("n").to_pylist())
    assert stream.has_more
    assert not stream.done
    assert stream.take_has_more()
    assert not stream.take_has_more()
    out = stream.feed(second)
    assert out is not None
    got.extend(pa.table(out).column("n").to_pylist())
    assert got == [0, 1, 2, 3]
    assert stream.done
    assert not stream.has_more
    # a later batch whose value does not fit the schema fixed by the first
    stream = ArrowStream(["x"])
    stream.feed(frame(record(1)))
    with pytest.raises(DecodeError) as e:
        stream.feed(frame(record("text")))
    assert e.value.kind == "type_changed"
    assert "column `x`" in str(e.value)
