"""The same copy as crates/bolt/examples/copy.rs, done with the official neo4j driver.

Reads every node of a label with its properties from the source (``fetch_size`` records
per PULL) and writes them to the target in UNWIND batches; an asyncio reader task hands
each batch to the writer through a queue that holds one batch, as the Rust example does.

    python copy_driver.py --source HOST:PORT --target HOST:PORT [--batch 10000]

Prints ``copied N nodes in S s (R nodes/s), peak RSS M KiB``.
"""

from __future__ import annotations

import os

import neo4j
from _cli import main, pipeline


async def copy(source: str, target: str, label: str, batch: int) -> int:
    """Copy every ``label`` node of ``source`` to ``target``; return the count."""
    auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""))
    src = neo4j.AsyncGraphDatabase.driver(f"bolt://{source}", auth=auth)
    dst = neo4j.AsyncGraphDatabase.driver(f"bolt://{target}", auth=auth)

    async def batches():
        async with src.session(fetch_size=batch) as session:
            result = await session.run(f"MATCH (n:`{label}`) RETURN properties(n) AS p")
            rows: list[dict] = []
            async for record in result:
                rows.append(record["p"])
                if len(rows) == batch:
                    yield rows
                    rows = []
            if rows:
                yield rows

    async def write(rows: list) -> None:
        await dst.execute_query(f"UNWIND $rows AS p CREATE (n:`{label}`) SET n = p", rows=rows)

    try:
        return await pipeline(batches(), write)
    finally:
        await src.close()
        await dst.close()


if __name__ == "__main__":
    main(__doc__, copy)
