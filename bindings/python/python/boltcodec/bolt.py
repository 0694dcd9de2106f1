"""Bolt for Python driver authors: a sans-IO client connection, typed requests and events.

boltcodec keeps the protocol (handshake, framing, the server's state rules, ``PULL {n}``
back-pressure); you move the bytes, with any I/O library (asyncio, trio, plain sockets)::

    from boltcodec.bolt import ClientConnection, Hello, Logon, Run, Pull, Records, Success

    conn = ClientConnection()
    sock.sendall(conn.take_output())               # the handshake
    while conn.version is None:
        conn.receive(sock.recv(65536))
    conn.events()                                  # [Negotiated((6, 1))]
    conn.send(Hello("my-app/1.0"))
    conn.send(Logon.basic("neo4j", "secret"))
    conn.send(Run("UNWIND range(1, $n) AS i RETURN i", {"n": 10}))
    conn.send(Pull(1000))                          # at most 1000 records
    sock.sendall(conn.take_output())               # four requests, one write
    while conn.pending_requests:
        conn.receive(sock.recv(65536))
        for event in conn.events():
            if isinstance(event, Records):
                print(event.rows)                  # [[1], [2], ...]

``send`` refuses (``BoltError``, kind ``"illegal_request"``) a request the server could
reject in the state it will be in once the queued requests have run, before a byte of it
is written. Bad bytes from the server raise ``BoltError`` with ``kind`` and ``offset``;
the connection is defunct afterwards.

The request and event classes are plain dataclasses; the connection reads their fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

from ._native import (
    BoltError,
    ClientConnection,
    ClientHandshake,
    ClientUpgrade,
    ServerHandshake,
    ServerUpgrade,
    WsStream,
)

__all__ = [
    "Begin",
    "BoltError",
    "ClientConnection",
    "ClientHandshake",
    "ClientUpgrade",
    "Commit",
    "Discard",
    "Event",
    "Failure",
    "Goodbye",
    "HandshakeStep",
    "Hello",
    "Ignored",
    "Logoff",
    "Logon",
    "Negotiated",
    "Pull",
    "Records",
    "Request",
    "Reset",
    "Rollback",
    "Route",
    "Run",
    "ServerHandshake",
    "ServerUpgrade",
    "Success",
    "Telemetry",
    "UpgradeRequest",
    "WsStream",
]


# ---------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------


@dataclass
class Hello:
    """HELLO: ``user_agent`` and the optional entries of its ``extra`` dict.

    ``auth`` is for Bolt 4.4 and 5.0, which authenticate in HELLO (5.1+ use ``Logon``).
    The connection adds ``bolt_agent`` where the version requires it (5.3+) and asks for
    the ``utc`` patch on 4.4 unless ``patch_bolt`` is given.
    """

    _name: ClassVar[str] = "HELLO"
    user_agent: str
    routing: dict | None = None
    bolt_agent: dict | None = None
    patch_bolt: list | None = None
    notifications_minimum_severity: str | None = None
    notifications_disabled: list | None = None
    auth: dict | None = None
    extra: dict | None = None


@dataclass
class Logon:
    """LOGON (5.1+): the auth dict (``scheme``, ``principal``, ``credentials``, …)."""

    _name: ClassVar[str] = "LOGON"
    auth: dict | None = None

    @classmethod
    def basic(cls, user: str, password: str, realm: str | None = None) -> Logon:
        """Authenticate with user name and password."""
        auth = {"scheme": "basic", "principal": user, "credentials": password}
        if realm is not None:
            auth["realm"] = realm
        return cls(auth)

    @classmethod
    def bearer(cls, token: str) -> Logon:
        """Authenticate with a bearer token (SSO)."""
        return cls({"scheme": "bearer", "credentials": token})

    @classmethod
    def kerberos(cls, ticket: str) -> Logon:
        """Authenticate with a base64 Kerberos ticket."""
        return cls({"scheme": "kerberos", "principal": "", "credentials": ticket})

    @classmethod
    def none(cls) -> Logon:
        """No auth."""
        return cls({"scheme": "none"})


@dataclass
class _TxSettings:
    bookmarks: list | None = None
    tx_timeout: int | None = None
    tx_metadata: dict | None = None
    mode: str | None = None
    db: str | None = None
    imp_user: str | None = None
    notifications_minimum_severity: str | None = None
    notifications_disabled: list | None = None
    extra: dict | None = None


@dataclass
class Run(_TxSettings):
    """RUN: a query with parameters; the transaction settings apply to auto-commit."""

    _name: ClassVar[str] = "RUN"
    query: str = ""
    parameters: dict | None = None

    def __init__(self, query: str, parameters: dict | None = None, **settings: Any):
        """``Run(query, parameters, db=..., bookmarks=..., mode="r", ...)``."""
        _TxSettings.__init__(self, **settings)
        self.query = query
        self.parameters = parameters


@dataclass
class Begin(_TxSettings):
    """BEGIN an explicit transaction (``db``, ``mode``, ``bookmarks``, …)."""

    _name: ClassVar[str] = "BEGIN"


@dataclass
class Pull:
    """PULL ``n`` records (``-1``: all) of result ``qid`` (default: the last)."""

    _name: ClassVar[str] = "PULL"
    n: int = -1
    qid: int | None = None


@dataclass
class Discard:
    """DISCARD ``n`` records (``-1``: all) of result ``qid``."""

    _name: ClassVar[str] = "DISCARD"
    n: int = -1
    qid: int | None = None


@dataclass
class Route:
    """ROUTE: ask for the routing table (``routing`` is the routing context)."""

    _name: ClassVar[str] = "ROUTE"
    routing: dict | None = None
    bookmarks: list | None = None
    db: str | None = None
    imp_user: str | None = None


@dataclass
class Telemetry:
    """TELEMETRY (5.4+): ``api`` 0 managed tx, 1 explicit tx, 2 auto-commit, 3 execute_query."""

    _name: ClassVar[str] = "TELEMETRY"
    api: int = 0


@dataclass
class Commit:
    """COMMIT the open transaction."""

    _name: ClassVar[str] = "COMMIT"


@dataclass
class Rollback:
    """ROLLBACK the open transaction."""

    _name: ClassVar[str] = "ROLLBACK"


@dataclass
class Reset:
    """RESET: clear a failure, end any result and transaction."""

    _name: ClassVar[str] = "RESET"


@dataclass
class Logoff:
    """LOGOFF (5.1+): back to the authentication state."""

    _name: ClassVar[str] = "LOGOFF"


@dataclass
class Goodbye:
    """GOODBYE: the last request; close the socket after writing it."""

    _name: ClassVar[str] = "GOODBYE"


# ---------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------


@dataclass
class Negotiated:
    """The handshake agreed on ``version`` ``(major, minor)``; requests may be sent."""

    version: tuple


@dataclass
class Success:
    """``request`` (``"RUN"``, ``"PULL"``, …) succeeded; ``metadata`` is its SUCCESS map."""

    request: str
    metadata: dict = field(default_factory=dict)

    @property
    def fields(self) -> list:
        """RUN: the result's column names."""
        return self.metadata.get("fields", [])

    @property
    def has_more(self) -> bool:
        """PULL/DISCARD: whether the result has more records (send another PULL)."""
        return bool(self.metadata.get("has_more", False))

    @property
    def qid(self) -> int | None:
        """RUN in a transaction: the result's id, for PULL/DISCARD ``qid``."""
        return self.metadata.get("qid")

    @property
    def bookmark(self) -> str | None:
        """COMMIT or the end of an auto-commit result: the new bookmark."""
        return self.metadata.get("bookmark")

    @property
    def db(self) -> str | None:
        """The database the result came from."""
        return self.metadata.get("db")

    @property
    def server(self) -> str | None:
        """HELLO: the server's agent (``"Neo4j/5.26.0"``)."""
        return self.metadata.get("server")

    @property
    def t_first(self) -> int | None:
        """RUN: milliseconds until the first record was available."""
        return self.metadata.get("t_first")

    @property
    def t_last(self) -> int | None:
        """The end of a result: milliseconds to consume it."""
        return self.metadata.get("t_last")

    @property
    def stats(self) -> dict:
        """The end of a writing result: its counters (``nodes-created``, …)."""
        return self.metadata.get("stats", {})

    @property
    def routing_table(self) -> dict | None:
        """ROUTE: the routing table (``ttl``, ``db``, ``servers``)."""
        return self.metadata.get("rt")


@dataclass
class Failure:
    """``request`` failed: ``code`` (``Neo.ClientError...``), ``message``, all ``metadata``."""

    request: str
    code: str | None
    message: str | None
    metadata: dict = field(default_factory=dict)


@dataclass
class Ignored:
    """``request`` was ignored (an earlier one failed, or a RESET overtook it)."""

    request: str


@dataclass
class Records:
    """Consecutive RECORDs of the streaming result: ``rows``, each a list of values."""

    rows: list

    def __len__(self) -> int:
        """Return the number of rows."""
        return len(self.rows)


#: Any request ``ClientConnection.send`` takes.
Request = Union[
    Hello,
    Logon,
    Run,
    Begin,
    Pull,
    Discard,
    Route,
    Telemetry,
    Commit,
    Rollback,
    Reset,
    Logoff,
    Goodbye,
]
#: Any event ``ClientConnection.events`` gives.
Event = Union[Negotiated, Success, Failure, Ignored, Records]


# ---------------------------------------------------------------------------------------
# Handshake and WebSocket results
# ---------------------------------------------------------------------------------------


@dataclass
class HandshakeStep:
    """What a handshake wants next (``ClientHandshake`` / ``ServerHandshake.receive``).

    ``status``: ``"need_more"`` (feed more bytes), ``"continue"`` (write ``send``, keep
    feeding), ``"negotiated"`` (write ``send``; ``version`` agreed) or ``"rejected"``
    (write ``send``, then close). ``consumed``: bytes of the last input used; the rest
    belong to the message stream (or must be fed again after ``"continue"``).
    """

    status: str
    version: tuple | None
    send: bytes
    consumed: int | None


@dataclass
class UpgradeRequest:
    """A complete WebSocket upgrade request (``ServerUpgrade.receive``).

    Write ``response``; ``used`` bytes of the input were the request.
    """

    target: str
    host: str
    key: str
    used: int
    response: bytes
