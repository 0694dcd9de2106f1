"""Runs Bolt queries with the official driver and prints a canonical form of the results.

Run by test_e2e.py twice, once with the driver's pure-Python codec (BOLTCODEC_NEO4J=0) and
once with boltcodec, against the same server; the outputs must be identical. Not a test
module itself (no ``test_`` prefix).
"""

from __future__ import annotations

import asyncio
import datetime
import json
import math
import os
import sys
from typing import Any

import neo4j
from neo4j import AsyncGraphDatabase, GraphDatabase
from neo4j.exceptions import Neo4jError
from neo4j.graph import Node, Path, Relationship
from neo4j.spatial import CartesianPoint, WGS84Point
from neo4j.time import Date, DateTime, Duration, Time

URI = f"bolt://127.0.0.1:{os.environ['NEO4J_BOLT_PORT']}"
AUTH = (os.environ["NEO4J_USER"], os.environ["NEO4J_PASSWORD"])


def canon(v: Any) -> Any:
    if isinstance(v, Node):
        return ["Node", v.element_id, sorted(v.labels), canon(dict(v))]
    if isinstance(v, Relationship):
        return [
            "Rel",
            v.element_id,
            v.type,
            v.start_node.element_id,
            v.end_node.element_id,
            canon(dict(v)),
        ]
    if isinstance(v, Path):
        return ["Path", [canon(n) for n in v.nodes], [canon(r) for r in v.relationships]]
    if isinstance(v, float):
        return ["float", "nan" if math.isnan(v) else v.hex()]
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, bytes):
        return ["bytes", v.hex()]
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, dict):
        return {k: canon(x) for k, x in v.items()}
    return [type(v).__name__, repr(v)]


SETUP = [
    "MATCH (n:E2E) DETACH DELETE n",
    "CREATE (a:E2E:Person {name: 'Alice', born: date('1990-02-03'), tags: ['x', 'y']})"
    "-[:KNOWS {since: 2010, w: 0.5}]->(b:E2E:Person {name: 'Bob', photo: $photo})"
    "-[:LIKES]->(c:E2E:Thing {name: 'Tea', loc: point({x: 1.5, y: -2.0})})",
]

QUERIES = [
    (
        "scalars",
        "RETURN 1 AS a, -17 AS b, 9223372036854775807 AS c, -9223372036854775808 AS d,"
        " 1.5 AS e, 'str' AS f, 'é€😀' AS g, null AS h, true AS i, false AS j,"
        " [1, 'a', null, [2.5]] AS k, {a: 1, b: [1, 2], c: {d: 'e'}} AS l",
        {},
    ),
    (
        "edges",
        "RETURN [x IN range(-200, 200) | x * 1000003] AS ints,"
        " [x IN range(0, 40) | reduce(s = '', y IN range(1, x) | s + 'é')] AS strs",
        {},
    ),
    (
        "temporal",
        "RETURN date('2024-02-29') AS d, time('12:34:56.789+02:00') AS t,"
        " localtime('23:59:59.999999999') AS lt,"
        " datetime('2024-03-31T02:30:00[Europe/Berlin]') AS dz,"
        " datetime('1970-01-01T00:00:00.000000001-05:00') AS dof,"
        " localdatetime('2000-01-01T00:00') AS ldt, duration('P1Y2M3DT4H5M6.7S') AS du",
        {},
    ),
    (
        "temporal rows",
        "UNWIND range(0, 2000) AS i RETURN"
        " time({hour: i % 24, minute: i % 60, second: i % 60, nanosecond: i,"
        " timezone: '+0' + toString(i % 10) + ':30'}) AS t,"
        " datetime({epochSeconds: i * 86399 - 100000000, nanosecond: i,"
        " timezone: '-05:00'}) AS dt,"
        " datetime({epochSeconds: i * 3600, timezone: 'UTC'}) AS dtz,"
        " localdatetime({year: 1 + i * 5 % 9999, month: 1 + i % 12, day: 1 + i % 28,"
        " hour: 1, minute: 2, second: 3, nanosecond: i}) AS ldt,"
        " localtime({hour: i % 24, minute: 0, second: 59, nanosecond: i}) AS lt,"
        " duration({months: i % 13 - 6, days: i - 1000, seconds: -i, nanoseconds: i * 7}) AS du",
        {},
    ),
    (
        "spatial",
        "RETURN point({x: 1, y: 2}) AS p2, point({x: 1, y: 2, z: 3}) AS p3,"
        " point({longitude: 12.5, latitude: 55.6}) AS w2,"
        " point({longitude: 12.5, latitude: 55.6, height: 100}) AS w3",
        {},
    ),
    (
        "graph",
        "MATCH p = (a:E2E {name: 'Alice'})-[r:KNOWS]->(b)-[:LIKES]->(c)"
        " RETURN a, r, b, c, p, labels(a) AS la, properties(r) AS pr",
        {},
    ),
    (
        "params",
        "RETURN $p AS p",
        {
            "p": {
                "int": [0, -1, 127, 128, -129, 2**40, -(2**63)],
                "float": [0.1, -0.0, 1e300],
                "str": ["", "x" * 100, "ß" * 70000],
                "bytes": b"\x00\x01\xff" * 30,
                "none": None,
                "bool": [True, False],
                "nested": [[[[]]], {"a": {"b": {}}}],
                "date": Date(2020, 1, 2),
                "dt": DateTime(2021, 5, 6, 7, 8, 9, 123456789, tzinfo=datetime.timezone.utc),
                "pydt": datetime.datetime(
                    2022, 1, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=-3))
                ),
                "time": Time(1, 2, 3, 4),
                "dur": Duration(months=1, days=2, seconds=3, nanoseconds=4),
                "td": datetime.timedelta(days=1, microseconds=5),
                "cart": CartesianPoint((1.0, 2.0)),
                "wgs": WGS84Point((3.0, 4.0, 5.0)),
                "tuple": (1, 2, (3,)),
            }
        },
    ),
    (
        "many rows",
        "UNWIND range(1, 20000) AS i RETURN i, toString(i) AS s, i * 0.5 AS f,"
        " CASE WHEN i % 7 = 0 THEN null ELSE [i] END AS l",
        {},
    ),
    (
        "wide rows",
        "UNWIND range(1, 350) AS i RETURN "
        + ", ".join(
            f"CASE {k} % 4 WHEN 0 THEN i + {k} WHEN 1 THEN toString(i) + 's{k}'"
            f" WHEN 2 THEN i * 1.25 ELSE i % 2 = 0 END AS c{k}"
            for k in range(20)
        ),
        {},
    ),
    (
        "big values",
        "RETURN reduce(s = '', x IN range(1, 30000) | s + 'abcdefg') AS s, range(1, 100000) AS l",
        {},
    ),
    (
        "maps",
        "UNWIND range(1, 2000) AS i RETURN {id: i, name: 'n' + i, score: i / 3.0,"
        " tags: ['a', 'b'], nested: {deep: [i, {x: i}]}} AS m",
        {},
    ),
]


def run_sync(out: list) -> None:
    with GraphDatabase.driver(URI, auth=AUTH) as driver:
        for name, query, params in QUERIES:
            records, _summary, keys = driver.execute_query(query, params)
            out.append([name, keys, [canon(list(r.values())) for r in records]])
        # Paged results: many PULLs of 7 records, partly consumed, in a transaction.
        with driver.session(fetch_size=7) as session:
            with session.begin_transaction() as tx:
                res = tx.run("UNWIND range(1, 100) AS i RETURN i, 'r' + i AS s")
                first = [canon(list(r.values())) for r, _ in zip(res, range(30))]
                peek = canon(list(res.peek().values()))
                rest = [canon(list(r.values())) for r in res]
                out.append(["paged", first, peek, rest])
                res = tx.run("UNWIND range(1, 50) AS i RETURN i")
                out.append(
                    ["fetch", [r["i"] for r in res.fetch(3)], res.consume().counters.__dict__]
                )
                tx.commit()
            out.append(["single", canon(session.run("RETURN 42 AS x").single().data())])
            try:
                session.run("RETURN 1 +").consume()
            except Neo4jError as e:
                out.append(["syntax error", e.code])
            out.append(["after error", session.run("RETURN 'ok' AS x").single()["x"]])
            try:
                session.run("UNWIND [1, 0] AS x RETURN 10 / x AS y").data()
            except Neo4jError as e:
                out.append(["runtime error", e.code])


async def run_async(out: list) -> None:
    async with AsyncGraphDatabase.driver(URI, auth=AUTH) as driver:
        for name, query, params in QUERIES:
            records, _summary, keys = await driver.execute_query(query, params)
            out.append(["async " + name, keys, [canon(list(r.values())) for r in records]])
        async with driver.session(fetch_size=5) as session:
            res = await session.run("UNWIND range(1, 23) AS i RETURN i")
            out.append(["async paged", [r["i"] async for r in res]])


def setup() -> None:
    with GraphDatabase.driver(URI, auth=AUTH) as driver:
        for q in SETUP:
            driver.execute_query(q, photo=b"\x89PNG" + bytes(range(256)))


def main() -> None:
    if sys.argv[1:] == ["setup"]:
        setup()
        return
    out: list = []
    run_sync(out)
    asyncio.run(run_async(out))
    status = None
    if "boltcodec" in sys.modules:
        import boltcodec.dropin

        status = boltcodec.dropin.status()
    print(json.dumps({"status": status, "rust": neo4j._codec.packstream.RUST_AVAILABLE}))
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
