"""``boltcodec.arrow.to_arrow`` as the official driver's result transformer.

Against a real server (NEO4J_BOLT_PORT, set by scripts/test.sh): every Cypher type value
by value against the pure-Python driver's records (read in a child process with the
drop-in off), nulls, an empty result, a column whose type changes after the first PULL
batch, a type change after the first Arrow batch (a clear error, the connection still
usable), and the fallback when the receive path is off; against Neo4j 2026.x
(``NEO4J_FLAVOUR=2026``: scripts/test.sh runs this file a second time there) VECTOR
values too. Without a server: the sink fed hostile RECORDs directly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import boltcodec
import boltcodec.arrow
from boltcodec import DecodeError, _native

pa = pytest.importorskip("pyarrow")

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import arrow_queries as q  # noqa: E402

SERVER = bool(os.environ.get("NEO4J_BOLT_PORT"))
needs_server = pytest.mark.skipif(not SERVER, reason="no Neo4j server (NEO4J_BOLT_PORT)")


def child(mode: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, str(HERE / "arrow_queries.py"), *args],
        env={**os.environ, "BOLTCODEC_NEO4J": mode},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def plain(v: object) -> object:
    return json.loads(json.dumps(v))


# ---------------------------------------------------------------------------------------
# Without a server: hostile RECORDs straight into the sink.


def frame(message: bytes) -> bytes:
    return len(message).to_bytes(2, "big") + message + b"\x00\x00"


def record(*values: bytes) -> bytes:
    return b"\xb1\x71" + bytes([0x90 + len(values)]) + b"".join(values)


SUCCESS = b"\xb1\x70\xa0"


def sink_read(stream: bytes, fields: list[str], batch_rows: int = 65536):
    """Feed ``stream`` through a MessageReader whose RECORDs go to a sink."""
    reader = _native.MessageReader()
    sink = _native.ArrowSink(fields, "5.8", False, batch_rows)
    reader.arrow_sink = sink
    reader.feed(stream, len(stream))
    tags = []
    while (message := reader.pop()) is not None:
        tags.append(message)
    return sink, tags


def test_the_sink_takes_records_and_the_driver_sees_only_the_summary() -> None:
    stream = b"".join(frame(record(bytes([i]), b"\x81a")) for i in range(5)) + frame(SUCCESS)
    sink, messages = sink_read(stream, ["n", "s"])
    assert messages == [(b"\x70", [{}])]
    assert sink.rows == 5
    table = pa.table(sink.finish())
    assert table.column("n").to_pylist() == [0, 1, 2, 3, 4]
    assert table.column("s").to_pylist() == ["a"] * 5


def test_a_malformed_record_raises_on_finish_and_nothing_half_written_is_returned() -> None:
    good = frame(record(b"\x01"))
    bad = frame(b"\xb1\x71\x91\xc7")  # reserved marker C7 inside the record
    sink, messages = sink_read(good + bad + good + frame(SUCCESS), ["x"])
    assert messages == [(b"\x70", [{}])]  # the stream itself went on to its summary
    with pytest.raises(DecodeError) as info:
        sink.finish()
    assert info.value.kind == "reserved_marker"
    assert info.value.offset == 3
    assert info.value.stream_offset == len(good)
    # The error was raised once; what was decoded before it is not handed out.
    assert len(sink.finish()) == 0


def test_a_record_with_the_wrong_field_count_is_a_clear_error() -> None:
    stream = frame(record(b"\x01", b"\x02")) + frame(record(b"\x01")) + frame(SUCCESS)
    sink, _ = sink_read(stream, ["a", "b"])
    with pytest.raises(DecodeError) as info:
        sink.finish()
    assert info.value.kind == "field_count"


def test_a_type_change_after_the_first_arrow_batch_is_a_clear_error() -> None:
    rows = [record(b"\x01")] * 3 + [record(b"\x81x")]
    sink, _ = sink_read(b"".join(map(frame, rows)) + frame(SUCCESS), ["x"], batch_rows=2)
    with pytest.raises(DecodeError) as info:
        sink.finish()
    assert info.value.kind == "type_changed"


def test_every_truncated_record_fails_cleanly() -> None:
    message = record(b"\x93\x01\x81a\xc1" + bytes(8), b"\xa1\x81k\x01")
    for cut in range(3, len(message)):
        sink, _ = sink_read(frame(message[:cut]) + frame(SUCCESS), ["l", "m"])
        with pytest.raises(DecodeError):
            sink.finish()


# ---------------------------------------------------------------------------------------
# Against the server.


@pytest.fixture(scope="module")
def driver():
    neo4j = pytest.importorskip("neo4j")
    if not SERVER:
        pytest.skip("no Neo4j server (NEO4J_BOLT_PORT)")
    if not boltcodec.dropin.status()["receive"]:
        pytest.skip("the drop-in's receive path is not active in this interpreter")
    uri = f"bolt://127.0.0.1:{os.environ['NEO4J_BOLT_PORT']}"
    auth = (os.environ["NEO4J_USER"], os.environ["NEO4J_PASSWORD"])
    child("0", "setup")
    with neo4j.GraphDatabase.driver(uri, auth=auth) as d:
        yield d
    child("0", "teardown")


@pytest.fixture(scope="module")
def pure(driver) -> dict:
    return json.loads(child("0").splitlines()[-1])


def arrow_of(driver, name: str):
    query, params = q.QUERIES[name]
    batches = driver.execute_query(query, params, result_transformer_=boltcodec.arrow.to_arrow)
    assert boltcodec.arrow.last_path == "native"
    return pa.table(batches)


COMPARED = ["scalars", "containers", "temporal", "spatial", "graph", "nulls", "type_change"]
#: VECTOR values exist from Neo4j 2026.x on (arrow_queries.QUERIES has them only there).
NEEDS_2026 = pytest.mark.skipif(
    os.environ.get("NEO4J_FLAVOUR") != "2026", reason="VECTOR values need Neo4j 2026.x"
)


@needs_server
@pytest.mark.parametrize("name", COMPARED)
def test_every_value_equals_the_pure_drivers(driver, pure: dict, name: str) -> None:
    table = arrow_of(driver, name)
    ours = plain(q.canon_table(table))
    assert len(ours) == len(pure[name])
    for i, (mine, theirs) in enumerate(zip(ours, pure[name])):
        assert mine == theirs, (name, i)


@needs_server
@NEEDS_2026
def test_vectors_are_fixed_size_lists_equal_to_the_pure_drivers(driver, pure: dict) -> None:
    table = arrow_of(driver, "vectors")
    types = {f.name: f.type for f in table.schema}
    assert types["f32"] == pa.list_(pa.float32(), 3)
    assert types["i8"] == pa.list_(pa.int8(), 3)
    assert types["f64"] == pa.list_(pa.float64(), 2)
    assert types["i32"] == pa.list_(pa.int32(), 2)
    assert table.column("i32").to_pylist() == [[-70000, 3]]
    assert plain(q.canon_table(table)) == pure["vectors"]


@needs_server
def test_column_types(driver) -> None:
    types = {f.name: f.type for f in arrow_of(driver, "scalars").schema}
    assert types["i"] == pa.int64()
    assert types["f"] == pa.float64()
    assert types["s"] == pa.string()
    assert types["by"] == pa.binary()
    assert types["b"] == pa.bool_()
    assert types["n"] == pa.null()
    temporal = {f.name: f.type for f in arrow_of(driver, "temporal").schema}
    assert temporal["d"] == pa.date32()
    assert temporal["lt"] == pa.time64("ns")
    assert temporal["ldt"] == pa.timestamp("ns")
    assert temporal["dz"] == pa.timestamp("ns", tz="Europe/Stockholm")
    assert temporal["du"] == pa.month_day_nano_interval()
    # The integers of the first PULL batch and the floats after it: one Float64 column.
    assert arrow_of(driver, "type_change").schema.field("x").type == pa.float64()


@needs_server
def test_nulls_mixed_and_empty_results(driver) -> None:
    nulls = arrow_of(driver, "nulls")
    assert nulls.column("x").to_pylist() == [1, None, 3, None]
    assert nulls.schema.field("always").type == pa.null()
    mixed = arrow_of(driver, "mixed")
    assert mixed.schema.field("x").type == pa.string()
    assert mixed.column("x").to_pylist() == ["1", "a", "2.5", "[1]", None]
    empty = arrow_of(driver, "empty")
    assert (empty.num_rows, empty.column_names) == (0, ["x", "y"])
    assert arrow_of(driver, "int_and_float").column("x").to_pylist() == [1.0, 2.5, 3.0]


@needs_server
def test_polars_takes_the_result(driver) -> None:
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame(
        driver.execute_query(
            "UNWIND range(1, 3) AS i RETURN i, toString(i) AS s",
            result_transformer_=boltcodec.arrow.to_arrow,
        )
    )
    assert frame.to_dict(as_series=False) == {"i": [1, 2, 3], "s": ["1", "2", "3"]}


@needs_server
def test_a_type_change_after_the_first_arrow_batch_keeps_the_connection_usable(
    driver, monkeypatch
) -> None:
    monkeypatch.setattr(boltcodec.arrow, "BATCH_ROWS", 1000)
    with pytest.raises(DecodeError) as info:
        driver.execute_query(
            "UNWIND range(1, 2500) AS i RETURN CASE WHEN i <= 1500 THEN i ELSE 'x' END AS x",
            result_transformer_=boltcodec.arrow.to_arrow,
        )
    assert info.value.kind == "type_changed"
    # The result was read to its end: the pool's connection serves the next query.
    monkeypatch.setattr(boltcodec.arrow, "BATCH_ROWS", 65536)
    assert len(arrow_of(driver, "nulls")) == 4
    records, _, _ = driver.execute_query("RETURN 1 AS one")
    assert records[0]["one"] == 1


@needs_server
def test_a_server_failure_is_the_drivers_error(driver) -> None:
    neo4j = pytest.importorskip("neo4j")
    with pytest.raises(neo4j.exceptions.Neo4jError):
        driver.execute_query(
            "UNWIND [1, 0] AS x RETURN 1 / x AS y", result_transformer_=boltcodec.arrow.to_arrow
        )
    assert len(arrow_of(driver, "nulls")) == 4


@needs_server
def test_async_driver(driver) -> None:
    import asyncio

    import neo4j

    async def main():
        uri = f"bolt://127.0.0.1:{os.environ['NEO4J_BOLT_PORT']}"
        auth = (os.environ["NEO4J_USER"], os.environ["NEO4J_PASSWORD"])
        async with neo4j.AsyncGraphDatabase.driver(uri, auth=auth) as d:
            return await d.execute_query(
                "UNWIND range(1, 5000) AS i RETURN i",
                result_transformer_=boltcodec.arrow.to_arrow_async,
            )

    table = pa.table(asyncio.run(main()))
    assert boltcodec.arrow.last_path == "native"
    assert table.column("i").to_pylist() == list(range(1, 5001))


FALLBACK_SCRIPT = """
import json, os, sys
sys.path.insert(0, {here!r})
import neo4j, pyarrow as pa
import boltcodec.arrow, boltcodec.dropin
import arrow_queries as q
uri = "bolt://127.0.0.1:" + os.environ["NEO4J_BOLT_PORT"]
auth = (os.environ["NEO4J_USER"], os.environ["NEO4J_PASSWORD"])
out = {{"receive": boltcodec.dropin.status()["receive"]}}
with neo4j.GraphDatabase.driver(uri, auth=auth) as d:
    for name in {names!r}:
        query, params = q.QUERIES[name]
        table = pa.table(d.execute_query(query, params,
                                         result_transformer_=boltcodec.arrow.to_arrow))
        out[name] = q.canon_table(table)
out["path"] = boltcodec.arrow.last_path
print(json.dumps(out))
"""


@needs_server
def test_without_the_receive_path_the_fallback_gives_the_same_values(driver, pure) -> None:
    names = ["scalars", "containers", "temporal", "spatial", "nulls", "type_change"]
    script = FALLBACK_SCRIPT.format(here=str(HERE), names=names)
    out = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "BOLTCODEC_NEO4J": "codec"},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["receive"] is False
    assert result["path"].startswith("fallback: the receive path is not active")
    assert "slower" in out.stderr
    for name in names:
        assert result[name] == pure[name], name
