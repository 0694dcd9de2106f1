"""The same copy as crates/bolt/examples/copy.rs, in Python asyncio on boltcodec.bolt.

Reads every node of a label with its properties from the source, ``PULL {batch}`` at a
time, and writes them to the target in ``UNWIND`` batches, reading and writing at once:
a reader task hands each batch to the writer through a queue of one batch, and asks the
source for the next batch only when it has one in hand, so at most about three batches
are in memory whatever the node count. Property values go back as they came (dates stay
``Structure`` values, written back byte for byte).

    python copy_boltcodec.py --source HOST:PORT --target HOST:PORT [--batch 10000]

Prints ``copied N nodes in S s (R nodes/s), peak RSS M KiB``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))
from _cli import main, pipeline
from asyncio_client import Client, Neo4jError
from boltcodec.bolt import Pull, Run


async def open_client(address: str) -> Client:
    """Connect and log in to ``host:port``."""
    host, _, port = address.rpartition(":")
    user = os.environ.get("NEO4J_USER", "neo4j")
    password = os.environ.get("NEO4J_PASSWORD", "")
    return await Client.connect(host, int(port), user, password)


async def copy(source: str, target: str, label: str, batch: int) -> int:
    """Copy every ``label`` node of ``source`` to ``target``; return the count."""
    src, dst = await open_client(source), await open_client(target)

    async def batches():
        rows: list = []
        stream = src.query(f"MATCH (n:`{label}`) RETURN properties(n) AS p", {}, batch)
        await stream.__anext__()  # the column names
        async for records in stream:
            rows.extend(row[0] for row in records)
            if len(rows) >= batch:
                yield rows
                rows = []
        if rows:
            yield rows

    async def write(rows: list) -> None:
        dst.conn.send(Run(f"UNWIND $rows AS p CREATE (n:`{label}`) SET n = p", {"rows": rows}))
        dst.conn.send(Pull(-1))
        await dst.summary()
        await dst.summary()

    try:
        return await pipeline(batches(), write)
    finally:
        await src.close()
        await dst.close()


if __name__ == "__main__":
    try:
        main(__doc__, copy)
    except Neo4jError as e:
        sys.exit(f"copy_boltcodec.py: {e}")
