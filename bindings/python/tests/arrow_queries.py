"""Queries for tests/test_arrow_driver.py, and one canonical form of their values.

Imported by that test, and run by it as a script in a child process with the drop-in off
(``BOLTCODEC_NEO4J=0``): the pure-Python driver's records, in the canonical form of
:func:`canon`, printed as one JSON line. Arrow columns are put in the same form by
:func:`canon_arrow`, so the two can be compared value by value. Not a test module itself.
"""

from __future__ import annotations

import json
import math
import os
import sys
import typing as t

#: name -> (query, parameters). The graph queries read what :data:`SETUP` wrote.
QUERIES: dict[str, tuple[str, dict[str, t.Any]]] = {
    "scalars": (
        "RETURN null AS n, true AS b, false AS b2, 42 AS i, -9223372036854775807 - 1 AS imin, "
        "-1.5 AS f, 1.0/0.0 AS inf, 'héllo ✓' AS s, '' AS empty, $bytes AS by",
        {"bytes": b"\x00\x01\xfe\xff"},
    ),
    "containers": (
        "RETURN [1, 2, 3] AS l, [] AS el, [[1], [2, 3]] AS ll, ['a', null] AS ls, "
        "{a: 1, b: 2} AS m, {} AS em, {k: [1.5, 2.5]} AS ml, [{x: 'y'}] AS lm",
        {},
    ),
    "temporal": (
        "RETURN date('2024-01-31') AS d, date('0001-01-01') AS dmin, "
        "localtime('12:34:56.123456789') AS lt, time('12:34:56.123456789+01:00') AS t, "
        "localdatetime('2024-01-31T12:34:56.123456789') AS ldt, "
        "datetime('2024-01-31T12:34:56.123456789+01:00') AS dt, "
        "datetime({year: 2024, month: 7, day: 1, hour: 3, timezone: 'Europe/Stockholm'}) "
        "AS dz, duration('P1Y2M3DT4H5M6.789S') AS du, duration('-PT1S') AS dneg",
        {},
    ),
    "spatial": (
        "RETURN point({x: 1.5, y: -2}) AS p2, point({x: 1, y: 2, z: 3}) AS p3, "
        "point({longitude: 12.5, latitude: 56.25}) AS wgs, "
        "point({longitude: 1, latitude: 2, height: 3}) AS wgs3",
        {},
    ),
    "graph": (
        "MATCH p = (a:ArrowTest {k: 1})-[r:ARROW_REL]->(b:ArrowTest) "
        "RETURN a, r, b, p ORDER BY b.k",
        {},
    ),
    "nulls": ("UNWIND [1, null, 3, null] AS x RETURN x, null AS always", {}),
    "empty": ("UNWIND [] AS x RETURN x, 1 AS y", {}),
    "mixed": ("UNWIND [1, 'a', 2.5, [1], null] AS x RETURN x", {}),
    "int_and_float": ("UNWIND [1, 2.5, 3] AS x RETURN x", {}),
    # The first PULL (1000 records, the driver's fetch size) has integers only; the
    # floats come in later batches.
    "type_change": (
        "UNWIND range(1, 2500) AS i RETURN CASE WHEN i <= 1200 THEN i ELSE i + 0.5 END "
        "AS x, i AS i",
        {},
    ),
}

#: Neo4j 2026.x (``NEO4J_FLAVOUR=2026``, set by scripts/with-neo4j.sh) has VECTOR values
#: (Bolt 6.0): Arrow fixed-size lists of the element type.
if os.environ.get("NEO4J_FLAVOUR") == "2026":
    QUERIES["vectors"] = (
        "CYPHER 25 RETURN vector([1.5, -2.25, 0.0], 3, FLOAT32) AS f32, "
        "vector([1, -2, 127], 3, INTEGER8) AS i8, "
        "vector([0.5, 1e300], 2, FLOAT64) AS f64, vector([-70000, 3], 2, INTEGER32) AS i32",
        {},
    )

# Property values of one type (integers): a map column whose values mix types would be
# canonical text (the crate's rule), which the mixed-column test covers.
SETUP = (
    "MERGE (a:ArrowTest {k: 1, w: 10}) "
    "MERGE (b:ArrowTest:Other {k: 2}) "
    "MERGE (c:ArrowTest {k: 3}) "
    "MERGE (a)-[:ARROW_REL {w: 5}]->(b) MERGE (a)-[:ARROW_REL]->(c)"
)
TEARDOWN = "MATCH (n:ArrowTest) DETACH DELETE n"

NS = 1_000_000_000
DAY_NS = 86_400 * NS
#: Proleptic Gregorian ordinal of 1970-01-01.
EPOCH_ORDINAL = 719_163


def _float(v: float) -> t.Any:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _props(entries: t.Iterable[tuple[str, t.Any]], convert: t.Callable[[t.Any], t.Any]):
    return {"map": sorted([k, convert(v)] for k, v in entries)}


def canon(v: t.Any) -> t.Any:
    """The canonical form of a value from the driver's records."""
    from neo4j.graph import Node, Path, Relationship
    from neo4j.spatial import Point
    from neo4j.time import Date, DateTime, Duration, Time

    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, (bytes, bytearray)):
        return {"bytes": bytes(v).hex()}
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, dict):
        return _props(v.items(), canon)
    if isinstance(v, Node):
        return {"node": [v.id, v.element_id, sorted(v.labels), _props(v.items(), canon)]}
    if isinstance(v, Relationship):
        start, end = v.start_node, v.end_node
        return {
            "rel": [
                v.id,
                v.element_id,
                start.id,
                start.element_id,
                end.id,
                end.element_id,
                v.type,
                _props(v.items(), canon),
            ]
        }
    if isinstance(v, Path):
        return {"path": [[canon(n) for n in v.nodes], [canon(r) for r in v.relationships]]}
    if isinstance(v, DateTime):
        local = (v.date().to_ordinal() - EPOCH_ORDINAL) * DAY_NS + v.time().ticks
        offset = v.utcoffset()
        if offset is None:
            return {"localdatetime": local}
        return {"datetime": local - round(offset.total_seconds()) * NS}
    if isinstance(v, Date):
        return {"date": v.to_ordinal() - EPOCH_ORDINAL}
    if isinstance(v, Time):
        offset = v.utcoffset()
        if offset is None:
            return {"localtime": v.ticks}
        return {"time": [v.ticks, round(offset.total_seconds())]}
    if isinstance(v, Duration):
        return {"duration": [v.months, v.days, v.seconds * NS + v.nanoseconds]}
    if type(v).__name__ == "Vector" and hasattr(v, "to_native"):  # neo4j.vector (6.0+)
        return [canon(x) for x in v.to_native()]
    if isinstance(v, Point):
        z = v[2] if len(v) > 2 else None
        return {"point": [v.srid, _float(v[0]), _float(v[1]), None if z is None else _float(z)]}
    raise TypeError(f"no canonical form for {type(v)!r}")


def _struct_canon(value: dict[str, t.Any]) -> t.Any:
    """The canonical form of one of boltcodec's structs (node, relationship, …)."""
    keys = set(value)
    if keys == {"id", "element_id", "labels", "properties"}:
        return {
            "node": [
                value["id"],
                value["element_id"],
                sorted(value["labels"]),
                value["properties"],
            ]
        }
    if "start_node_element_id" in keys:
        # The struct's fields are in the order of the driver's canonical form.
        return {"rel": list(value.values())}
    if keys == {"nodes", "relationships"}:
        return {"path": [value["nodes"], value["relationships"]]}
    if keys == {"srid", "x", "y", "z"}:
        return {"point": [value["srid"], value["x"], value["y"], value["z"]]}
    if keys == {"time", "tz_offset_seconds"}:
        return {"time": [value["time"], value["tz_offset_seconds"]]}
    raise TypeError(f"no canonical form for the struct {sorted(keys)}")


def canon_arrow(array: t.Any) -> list[t.Any]:
    """The canonical forms of the values of a pyarrow array (a column)."""
    import pyarrow as pa

    typ = array.type
    valid = [v.is_valid for v in array]

    def masked(values: list[t.Any]) -> list[t.Any]:
        return [v if ok else None for v, ok in zip(values, valid)]

    if pa.types.is_struct(typ):
        fields = {typ.field(i).name: canon_arrow(array.field(i)) for i in range(typ.num_fields)}
        rows = [{k: col[i] for k, col in fields.items()} for i in range(len(array))]
        return masked([_struct_canon(r) for r in rows])
    if pa.types.is_map(typ):
        keys, items = canon_arrow(array.keys), canon_arrow(array.items)
        offsets = array.offsets.to_pylist()
        return masked(
            [
                {"map": sorted([k, v] for k, v in zip(keys[a:b], items[a:b]))}
                for a, b in zip(offsets, offsets[1:])
            ]
        )
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        values = canon_arrow(array.values)
        offsets = array.offsets.to_pylist()
        return masked([values[a:b] for a, b in zip(offsets, offsets[1:])])
    if pa.types.is_fixed_size_list(typ):  # a vector
        values, size = canon_arrow(array.values), typ.list_size
        return masked([values[i * size : (i + 1) * size] for i in range(len(array))])
    if pa.types.is_date32(typ):
        return masked([{"date": v} for v in array.cast(pa.int32()).to_pylist()])
    if pa.types.is_time64(typ):
        return masked([{"localtime": v} for v in array.cast(pa.int64()).to_pylist()])
    if pa.types.is_timestamp(typ):
        kind = "datetime" if typ.tz else "localdatetime"
        return masked([{kind: v} for v in array.cast(pa.int64()).to_pylist()])
    if pa.types.is_interval(typ):
        return masked([None if v is None else {"duration": list(v)} for v in array.to_pylist()])
    if pa.types.is_binary(typ):
        return masked([None if v is None else {"bytes": v.hex()} for v in array.to_pylist()])
    if pa.types.is_floating(typ):
        return masked([None if v is None else _float(v) for v in array.to_pylist()])
    return array.to_pylist()


def canon_table(table: t.Any) -> list[list[t.Any]]:
    """A pyarrow table as rows of canonical values; inner times unwrap to their ticks."""
    columns = [canon_arrow(c.combine_chunks()) for c in table.columns]
    rows = [list(r) for r in zip(*columns)] if columns else []
    return _unwrap_struct_times(rows)


def _unwrap_struct_times(v: t.Any) -> t.Any:
    # A Time struct's ``time`` field is itself a time64 column: {"localtime": ns} there.
    if isinstance(v, dict) and "time" in v and isinstance(v["time"], list):
        inner, offset = v["time"]
        if isinstance(inner, dict):
            inner = inner["localtime"]
        return {"time": [inner, offset]}
    if isinstance(v, dict):
        return {k: _unwrap_struct_times(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_unwrap_struct_times(x) for x in v]
    return v


def driver_rows(driver: t.Any, name: str) -> list[list[t.Any]]:
    """The driver's own records of query ``name``, canonical."""
    query, params = QUERIES[name]
    records, _, _ = driver.execute_query(query, params)
    return [[canon(v) for v in r.values()] for r in records]


def main() -> None:
    """Print the pure driver's canonical rows of every query as one JSON object."""
    import neo4j

    uri = f"bolt://127.0.0.1:{os.environ['NEO4J_BOLT_PORT']}"
    auth = (os.environ["NEO4J_USER"], os.environ["NEO4J_PASSWORD"])
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        if sys.argv[1:] == ["setup"]:
            driver.execute_query(TEARDOWN)
            driver.execute_query(SETUP)
            return
        if sys.argv[1:] == ["teardown"]:
            driver.execute_query(TEARDOWN)
            return
        out = {name: driver_rows(driver, name) for name in QUERIES}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
