"""boltcodec.bolt against a real Neo4j server: every Bolt version the server speaks,
plain TCP and WebSocket, and the asyncio example (examples/python/asyncio_client.py).

Skipped unless NEO4J_BOLT_PORT is set (bindings/python/scripts/test.sh sets it up).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from boltcodec import Structure
from boltcodec.bolt import (
    Begin,
    BoltError,
    ClientConnection,
    ClientUpgrade,
    Commit,
    Failure,
    Goodbye,
    Hello,
    Ignored,
    Logon,
    Pull,
    Records,
    Reset,
    Run,
    Success,
    WsStream,
)

from conftest import REPO

if not os.environ.get("NEO4J_BOLT_PORT"):
    pytest.skip("no Neo4j server (NEO4J_BOLT_PORT is not set)", allow_module_level=True)

PORT = int(os.environ["NEO4J_BOLT_PORT"])
USER = os.environ.get("NEO4J_USER", "neo4j")
PASSWORD = os.environ.get("NEO4J_PASSWORD", "password")


class Session:
    """A blocking socket driven by a ClientConnection (optionally through WebSocket)."""

    def __init__(self, conn: ClientConnection, websocket: bool = False):
        self.conn = conn
        self.sock = socket.create_connection(("127.0.0.1", PORT), timeout=60)
        self.ws = None
        if websocket:
            upgrade = ClientUpgrade(f"127.0.0.1:{PORT}", os.urandom(16))
            self.sock.sendall(upgrade.request())
            data = b""
            while (used := upgrade.receive(data)) is None:
                data = self.sock.recv(4096)
                assert data
            self.ws = WsStream.client(int.from_bytes(os.urandom(8), "big"))
            self.pending = data[used:]
        self.events: list = []
        self.flush()
        while conn.version is None:
            self.read()
        self.flush()
        assert [type(e).__name__ for e in self.events] == ["Negotiated"]
        self.events = []

    def flush(self) -> None:
        out = self.conn.take_output()
        if out:
            self.sock.sendall(self.ws.to_wire(out) if self.ws else out)

    def read(self) -> None:
        data = self.sock.recv(1 << 16)
        assert data, "the server closed the connection"
        if self.ws:
            data, reply = self.ws.from_wire(data)
            if reply:
                self.sock.sendall(reply)
        self.conn.receive(data)
        self.events += self.conn.events()

    def until_idle(self) -> list:
        """Send what is queued; read until every request has its summary."""
        self.flush()
        while self.conn.pending_requests:
            self.read()
        events, self.events = self.events, []
        return events

    def login(self) -> None:
        if self.conn.version >= (5, 1):
            self.conn.send(Hello("boltcodec-e2e/1"))
            self.conn.send(Logon.basic(USER, PASSWORD))
        else:
            auth = {"scheme": "basic", "principal": USER, "credentials": PASSWORD}
            self.conn.send(Hello("boltcodec-e2e/1", auth=auth))
        events = self.until_idle()
        assert all(isinstance(e, Success) for e in events), events
        assert self.conn.state == "READY"

    def close(self) -> None:
        self.conn.send(Goodbye())
        self.flush()
        self.sock.close()


VERSIONS = [(4, 4), (5, 0), (5, 1), (5, 2), (5, 3), (5, 4), (5, 6), (5, 7), (5, 8)]


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: f"{v[0]}.{v[1]}")
@pytest.mark.parametrize("manifest", [False, True], ids=["legacy", "manifest"])
def test_a_session_on_every_version(version, manifest):
    conn = ClientConnection(versions=[version], manifest=manifest)
    s = Session(conn)
    assert conn.version == version
    s.login()
    assert conn.utc_patch == (version == (4, 4))  # asked for and accepted on 4.4
    conn.send(Run("UNWIND range(1, $n) AS i RETURN i, toString(i) AS s, [i] AS l", {"n": 25}))
    conn.send(Pull(10))
    rows = []
    while True:
        events = s.until_idle()
        rows += [r for e in events if isinstance(e, Records) for r in e.rows]
        if not events[-1].has_more:
            break
        assert conn.state == "STREAMING"
        conn.send(Pull(10))
    assert rows == [[i, str(i), [i]] for i in range(1, 26)]
    assert conn.state == "READY"
    # An explicit transaction, a failure, IGNORED and RESET.
    conn.send(Begin())
    conn.send(Run("RETURN $x AS x", {"x": Structure(b"D", 19000)}))
    conn.send(Pull(-1))
    conn.send(Commit())
    events = s.until_idle()
    [batch] = [e for e in events if isinstance(e, Records)]
    assert batch.rows == [[Structure(b"D", 19000)]]
    assert events[-1].request == "COMMIT"
    conn.send(Run("RETURN nope"))
    conn.send(Pull(-1))
    failure, ignored = s.until_idle()
    assert isinstance(failure, Failure)
    assert failure.code == "Neo.ClientError.Statement.SyntaxError"
    assert ignored == Ignored("PULL")
    assert conn.state == "FAILED"
    conn.send(Reset())
    assert isinstance(s.until_idle()[0], Success)
    assert conn.state == "READY"
    s.close()


def test_a_session_over_websocket():
    conn = ClientConnection()
    s = Session(conn, websocket=True)
    s.login()
    conn.send(Run("UNWIND range(1, 3000) AS i RETURN i, 'x' + toString(i) AS s"))
    conn.send(Pull(-1))
    events = s.until_idle()
    rows = [r for e in events if isinstance(e, Records) for r in e.rows]
    assert rows == [[i, f"x{i}"] for i in range(1, 3001)]
    s.close()


def test_wrong_password_fails_logon_and_the_connection_is_defunct():
    conn = ClientConnection(versions=[(5, 8)])
    s = Session(conn)
    conn.send(Hello("boltcodec-e2e/1"))
    conn.send(Logon.basic(USER, PASSWORD + "-wrong"))
    _, failure = s.until_idle()
    assert isinstance(failure, Failure)
    assert failure.code.startswith("Neo.ClientError.Security")
    assert conn.state == "DEFUNCT"
    with pytest.raises(BoltError):
        conn.send(Run("RETURN 1"))
    s.sock.close()


def test_the_asyncio_example_streams_a_query_with_parameters():
    env = {**os.environ, "NEO4J_BOLT_PORT": str(PORT)}
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "examples" / "python" / "asyncio_client.py"),
            "--fetch",
            "7",
            "UNWIND range(1, $n) AS i RETURN i, i * 2 AS twice, $tag + toString(i) AS s",
            "n=20",
            "tag=row-",
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    lines = out.stdout.splitlines()
    assert lines[0] == "i\ttwice\ts"
    assert lines[1:] == [f"{i}\t{2 * i}\trow-{i}" for i in range(1, 21)]
    assert "(20 rows)" in out.stderr
