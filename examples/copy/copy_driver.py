"""The same copy as crates/bolt/examples/copy.rs, done with the official neo4j driver.

Reads every node of a label with its properties from the source (``fetch_size`` records
per PULL) and writes them to the target in UNWIND batches; an asyncio reader task hands
each batch to the writer through a queue that holds one batch, as the Rust example does.

    python copy_driver.py --source HOST:PORT --target HOST:PORT [--batch 10000]

Prints ``copied N nodes in S s (R nodes/s), peak RSS M KiB``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import time

import neo4j


async def copy(source: str, target: str, label: str, batch: int) -> int:
    """Copies every ``label`` node of ``source`` to ``target``; returns the count."""
    auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""))
    src = neo4j.AsyncGraphDatabase.driver(f"bolt://{source}", auth=auth)
    dst = neo4j.AsyncGraphDatabase.driver(f"bolt://{target}", auth=auth)
    queue: asyncio.Queue[list[dict] | None] = asyncio.Queue(maxsize=1)

    async def read() -> None:
        async with src.session(fetch_size=batch) as session:
            result = await session.run(f"MATCH (n:`{label}`) RETURN properties(n) AS p")
            rows: list[dict] = []
            async for record in result:
                rows.append(record["p"])
                if len(rows) == batch:
                    await queue.put(rows)
                    rows = []
            if rows:
                await queue.put(rows)
        await queue.put(None)

    async def write() -> int:
        copied = 0
        while (rows := await queue.get()) is not None:
            await dst.execute_query(
                f"UNWIND $rows AS p CREATE (n:`{label}`) SET n = p", rows=rows
            )
            copied += len(rows)
        return copied

    try:
        _, copied = await asyncio.gather(read(), write())
    finally:
        await src.close()
        await dst.close()
    return copied


def main() -> None:
    """Parses the arguments, copies, prints the summary line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--label", default="Item")
    p.add_argument("--batch", type=int, default=10_000)
    args = p.parse_args()
    started = time.perf_counter()
    copied = asyncio.run(copy(args.source, args.target, args.label, args.batch))
    secs = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rate = copied / secs
    summary = f"copied {copied} nodes in {secs:.2f} s ({rate:.0f} nodes/s)"
    print(f"{summary}, peak RSS {peak} KiB")


if __name__ == "__main__":
    main()
