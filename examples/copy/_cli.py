"""The command line shared by the Python copies (copy_boltcodec.py, copy_driver.py)."""

from __future__ import annotations

import argparse
import asyncio
import resource
import time
from collections.abc import AsyncIterator, Awaitable, Callable


def main(doc: str, copy: Callable[[str, str, str, int], Awaitable[int]]) -> None:
    """Parse ``--source --target [--label] [--batch]``, run ``copy``, print the summary.

    Prints ``copied N nodes in S s (R nodes/s), peak RSS M KiB`` (examples/copy/run.sh
    reads that line).
    """
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
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


async def pipeline(batches: AsyncIterator[list], write: Callable[[list], Awaitable[None]]) -> int:
    """Write every batch ``batches`` yields, reading the next one meanwhile.

    A reader task hands each batch to the writer through a queue that holds one batch, so
    the reader runs at most one batch ahead of the writer. Returns the rows written.
    """
    queue: asyncio.Queue[list | None] = asyncio.Queue(maxsize=1)

    async def read() -> None:
        async for rows in batches:
            await queue.put(rows)
        await queue.put(None)

    async def drain() -> int:
        copied = 0
        while (rows := await queue.get()) is not None:
            await write(rows)
            copied += len(rows)
        return copied

    _, copied = await asyncio.gather(read(), drain())
    return copied
