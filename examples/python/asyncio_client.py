"""A minimal asyncio Neo4j client on boltcodec.

It authenticates, runs a query with parameters and streams its result with ``PULL {n}``
back-pressure.

boltcodec.bolt keeps the protocol (handshake, framing, state rules); this file only
moves bytes between the socket and the connection::

    python examples/python/asyncio_client.py --port 7687 "UNWIND range(1, $n) AS i RETURN i" n=3

Prints the column names, then one line per row. ``--count`` prints only the row count
and the time taken (rows/s), for the benchmark in benches/python/asyncio_floor.py.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from collections import deque
from collections.abc import AsyncIterator

from boltcodec.bolt import (
    ClientConnection,
    Failure,
    Goodbye,
    Hello,
    Logon,
    Pull,
    Records,
    Run,
    Success,
)


class Neo4jError(Exception):
    """The server answered a request with FAILURE."""


class Client:
    """One connection: the socket streams plus the sans-IO ``ClientConnection``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        """Wrap an open socket; see ``connect``."""
        self.reader, self.writer = reader, writer
        self.conn = ClientConnection()
        self.events: deque = deque()

    @classmethod
    async def connect(cls, host: str, port: int, user: str, password: str) -> Client:
        """Open the socket, run the handshake, HELLO and LOGON."""
        client = cls(*await asyncio.open_connection(host, port))
        await client.flush()
        while client.conn.version is None:
            await client.read()
        await client.flush()  # the manifest pick, if any
        client.events.clear()  # Negotiated
        client.conn.send(Hello("boltcodec-asyncio-example/0.1"))
        client.conn.send(Logon.basic(user, password))
        await client.summary()
        await client.summary()
        return client

    async def flush(self) -> None:
        """Write what the connection has queued."""
        if self.conn.has_output:
            self.writer.write(self.conn.take_output())
            await self.writer.drain()

    async def read(self) -> None:
        """Read once from the socket into the connection; keep the events."""
        data = await self.reader.read(1 << 18)
        if not data:
            raise ConnectionError("the server closed the connection")
        self.conn.receive(data)
        self.events.extend(self.conn.events())

    async def next_event(self):
        """Return the next event, writing queued requests and reading as needed."""
        while not self.events:
            await self.flush()
            await self.read()
        return self.events.popleft()

    async def summary(self) -> Success:
        """Return the next summary (records before it are an error here)."""
        event = await self.next_event()
        if isinstance(event, Failure):
            raise Neo4jError(f"{event.code}: {event.message}")
        if not isinstance(event, Success):
            raise Neo4jError(f"unexpected {event!r}")
        return event

    async def query(self, cypher: str, parameters: dict, fetch: int = 1000) -> AsyncIterator[list]:
        """Run ``cypher``; yield its rows in batches (lists of rows), ``fetch`` per PULL.

        The first batch is the column names.
        """
        self.conn.send(Run(cypher, parameters))
        self.conn.send(Pull(fetch))
        yield (await self.summary()).fields
        while True:
            event = await self.next_event()
            if isinstance(event, Records):
                yield event.rows
                continue
            if isinstance(event, Failure):
                raise Neo4jError(f"{event.code}: {event.message}")
            if not event.has_more:
                return
            self.conn.send(Pull(fetch))  # back-pressure: ask for the next batch only now

    async def close(self) -> None:
        """Send GOODBYE and close the socket."""
        self.conn.send(Goodbye())
        await self.flush()
        self.writer.close()
        await self.writer.wait_closed()


def parse_param(text: str) -> tuple[str, object]:
    """``name=value``: an integer, a float, or else a string."""
    name, _, value = text.partition("=")
    for kind in (int, float):
        try:
            return name, kind(value)
        except ValueError:
            pass
    return name, value


async def main() -> None:
    """Parse the arguments, run the query, print the rows."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=int(os.environ.get("NEO4J_BOLT_PORT", "7687")))
    ap.add_argument("--user", default=os.environ.get("NEO4J_USER", "neo4j"))
    ap.add_argument("--password", default=os.environ.get("NEO4J_PASSWORD", "password"))
    ap.add_argument("--fetch", type=int, default=1000, help="records per PULL")
    ap.add_argument("--count", action="store_true", help="print only count and time")
    ap.add_argument("query")
    ap.add_argument("params", nargs="*", help="name=value")
    args = ap.parse_args()
    params = dict(parse_param(p) for p in args.params)

    started = time.perf_counter()
    client = await Client.connect(args.host, args.port, args.user, args.password)
    rows = 0
    try:
        stream = client.query(args.query, params, args.fetch)
        columns = await stream.__anext__()
        if not args.count:
            print("\t".join(columns))
        async for batch in stream:
            rows += len(batch)
            if not args.count:
                for row in batch:
                    print("\t".join(map(str, row)))
    finally:
        await client.close()
    elapsed = time.perf_counter() - started
    if args.count:
        print(f"{rows} rows in {elapsed:.3f} s ({rows / elapsed:,.0f} rows/s)")
    else:
        print(f"({rows} rows)", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
