"""The drop-in on one release of the official driver: whichever ``neo4j`` is importable.

``scripts/driver-matrix.sh`` runs this module once per driver release (the newest patch
of each minor from 5.18 to 6.4, each installed into its own directory put first on
``PYTHONPATH``, with ``BOLTCODEC_EXPECT_DRIVER`` naming the release); the plain test run
runs it against the driver of ``.venv``. Everything is compared with the same release's
own pure-Python code, in the same process:

* :func:`boltcodec.dropin.status` says ``receive`` (and says the truth before the driver
  is imported, after it is, and after it decoded messages);
* packing and unpacking the shared vectors (tests/vectors/packstream.json) and values
  hydrated and dehydrated by the release's own hydration handlers give identical results;
* the replaced ``Inbox`` and ``AsyncInbox`` give the same records as the release's own
  Inbox for a canned PULL response sent over a loopback TCP connection.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import math
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import typing as t

import pytest

neo4j = pytest.importorskip("neo4j")

from neo4j._codec import packstream  # noqa: E402
from neo4j._sync.io import Bolt  # noqa: E402

import boltcodec  # noqa: E402
from boltcodec import _native, dropin  # noqa: E402

from conftest import load_vectors, vector_bytes, vector_value  # noqa: E402

EXPECTED = os.environ.get("BOLTCODEC_EXPECT_DRIVER")
ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
Structure = packstream.Structure


def release_tuple() -> tuple[int, ...]:
    return tuple(int(p) for p in neo4j.__version__.split(".")[:3] if p.isdigit())


def protocol_handlers() -> dict[t.Any, t.Any]:
    handlers = Bolt.protocol_handlers
    return handlers() if callable(handlers) else dict(handlers)


def codec_triples() -> list[tuple[str, t.Any, t.Any, t.Any]]:
    """Each distinct (packer, unpacker, hydration handler) the release's Bolt versions use."""
    seen: dict[tuple[t.Any, t.Any, t.Any], str] = {}
    for version, cls in sorted(protocol_handlers().items(), key=lambda kv: str(kv[0])):
        key = (cls.PACKER_CLS, cls.UNPACKER_CLS, cls.HYDRATION_HANDLER_CLS)
        seen.setdefault(key, f"bolt{version}")
    return [(name, *key) for key, name in seen.items()]


TRIPLES = codec_triples()
TRIPLE_IDS = [name for name, *_ in TRIPLES]


def pure_unpacker_cls(unpacker_cls: t.Any) -> t.Any:
    """The release's unpacker on its pure-Python code (defined outside the driver's module,
    so boltcodec's Inbox hands it to the driver's own Inbox).
    """

    class PureUnpacker(unpacker_cls):
        def unpack(self, hydration_hooks=None):
            return self._unpack(hydration_hooks=hydration_hooks)

    return PureUnpacker


def accelerated_pack(packer_cls: t.Any, value: t.Any, hooks: t.Any = None) -> bytes:
    packer = packer_cls(packer_cls.new_packable_buffer())
    packer.pack(value, dehydration_hooks=hooks)
    return bytes(packer.stream.data)


def pure_pack(packer_cls: t.Any, value: t.Any, hooks: t.Any = None) -> bytes:
    packer = packer_cls(packer_cls.new_packable_buffer())
    packer._py_pack(value, packer_cls._inject_hooks(hooks))
    return bytes(packer.stream.data)


def unpack(
    unpacker_cls: t.Any, data: bytes, hooks: t.Any, pure: bool, whole: bool = True
) -> t.Any:
    buf = unpacker_cls.new_unpackable_buffer()
    buf.data = bytearray(data)
    buf.used = len(data)
    unpacker = unpacker_cls(buf)
    value = unpacker._unpack(hydration_hooks=hooks) if pure else unpacker.unpack(hooks)
    if whole:
        assert unpacker.unpackable.p == len(data), "not every byte was used"
    return value


def canon(v: t.Any) -> t.Any:
    """A form of a value that two results compare equal in only when they are identical:
    types, floats by bits, graph entities by every attribute, the rest by ``repr``.
    """
    if isinstance(v, float):
        return ("float", struct.pack(">d", v).hex())
    if v is None or isinstance(v, (bool, int, str, bytes)):
        return (type(v).__name__, v)
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, [canon(x) for x in v])
    if isinstance(v, dict):
        return ("dict", [(k, canon(x)) for k, x in v.items()])
    if isinstance(v, Structure):
        return ("Structure", v.tag, canon(v.fields))
    from neo4j.graph import Node, Path, Relationship

    if isinstance(v, Node):
        return (
            "Node",
            v.element_id,
            sorted(v.labels),
            canon(dict(v.items())),
        )
    if isinstance(v, Relationship):
        ends = [None if n is None else n.element_id for n in v.nodes]
        return ("Rel", type(v).__name__, v.element_id, v.type, ends, canon(dict(v.items())))
    if isinstance(v, Path):
        return ("Path", [canon(n) for n in v.nodes], [canon(r) for r in v.relationships])
    if isinstance(v, BaseException):
        return ("exception", type(v).__qualname__, str(v))
    text = [ADDRESS.sub("0x?", repr(v)), ADDRESS.sub("0x?", str(v))]
    out: tuple = (type(v).__module__, type(v).__qualname__, *text)
    if "0x?" in text[0] and hasattr(v, "__dict__"):
        out += (canon(dict(sorted(vars(v).items()))),)
    if type(v).__hash__ not in (None, object.__hash__):
        out += (hash(v),)
    return out


def outcome(fn: t.Callable[[], t.Any]) -> t.Any:
    try:
        return ("ok", canon(fn()))
    except Exception as e:
        return ("error", type(e).__name__)


def test_the_release_under_test_is_the_expected_one() -> None:
    if EXPECTED is None:
        pytest.skip("BOLTCODEC_EXPECT_DRIVER is not set (not run by driver-matrix.sh)")
    assert neo4j.__version__ == EXPECTED
    assert dropin.status()["driver_version"] == EXPECTED


def test_status_says_receive_is_active() -> None:
    status = dropin.status()
    assert status["hook"] is True
    # "hydration" once a result went through native hydration (tests/test_hydration.py).
    assert status["level"] in ("receive", "hydration"), status
    assert status["codec"] is True, status["codec_reason"]
    assert status["receive"] is True, status["receive_reason"]
    assert status["codec_reason"].startswith("active"), status
    assert status["receive_reason"] == "active", status
    assert packstream.Structure is _native.Structure
    assert packstream.v1._rust_unpack is _native.neo4j_unpack_v1
    for _name, _packer, unpacker_cls, _hydration in TRIPLES:
        module = sys.modules[unpacker_cls.__module__]
        assert module._rust_unpack in (_native.neo4j_unpack_v1, _native.neo4j_unpack_v2)


def run_python(code: str, **env: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=True,
        timeout=120,
    )
    return out.stdout.strip()


STATUS_OVER_TIME = """
import json, boltcodec.dropin as d
out = [d.status()]
import neo4j
out.append(d.status())
from neo4j._codec.packstream import v1
buf = v1.Unpacker.new_unpackable_buffer()
buf.data = bytearray(b"\\x92\\x01\\xc0"); buf.used = 3
v1.Unpacker(buf).unpack(None)
out.append(d.status())
print(json.dumps(out))
"""


@pytest.mark.parametrize(
    ("env", "levels"),
    [("1", ["off", "receive", "receive"]), ("codec", ["off", "codec", "codec"])],
)
def test_status_is_true_before_and_after_the_driver_is_imported(env: str, levels) -> None:
    before, imported, used = json.loads(run_python(STATUS_OVER_TIME, BOLTCODEC_NEO4J=env))
    assert [s["level"] for s in (before, imported, used)] == levels
    assert before["hook"] is True
    assert (before["codec"], before["receive"]) == (False, False)
    assert "not imported yet" in before["codec_reason"]
    assert imported == used
    if env == "codec":
        for s in (before, imported, used):
            assert s["receive_reason"] == "disabled (BOLTCODEC_NEO4J=codec)"
    else:
        assert "not imported yet" in before["receive_reason"]


def test_status_when_switched_off() -> None:
    code = STATUS_OVER_TIME.replace("from neo4j._codec", "import sys; sys.exit(0)\nfrom neo4j")
    code = code.replace("import neo4j\n", "import neo4j\nprint(json.dumps(out + [d.status()]))\n")
    before, imported = json.loads(run_python(code, BOLTCODEC_NEO4J="0"))
    for s in (before, imported):
        assert (s["hook"], s["codec"], s["receive"], s["level"]) == (False, False, False, "off")
        assert "BOLTCODEC_NEO4J=0" in s["codec_reason"]


# ---------------------------------------------------------------------------------------
# Codec level: the shared vectors and hydrated values, against the release's own code.

VECTORS = load_vectors()


def vector_cases(section: str) -> list[dict[str, t.Any]]:
    cases = []
    for case in VECTORS[section]:
        options = case.get("options", {})
        if case.get("limits") or set(options) - {"uuid"}:
            continue
        cases.append(case)
    return cases


def codec_for(case: dict[str, t.Any]) -> tuple[t.Any, t.Any] | None:
    """The release's (packer, unpacker) for a case: PackStream v2 for UUIDs, else v1."""
    if case.get("options", {}).get("uuid"):
        v2 = getattr(packstream, "v2", None)
        if v2 is None:
            try:
                from neo4j._codec.packstream import v2
            except ImportError:
                return None
        return v2.Packer, v2.Unpacker
    return packstream.v1.Packer, packstream.v1.Unpacker


@pytest.mark.parametrize("section", ["valid", "decode_only"])
def test_vectors_unpack_as_the_release_does(section: str) -> None:
    compared = 0
    for case in vector_cases(section):
        codec = codec_for(case)
        if codec is None:
            continue
        _packer, unpacker = codec
        data = vector_bytes(case)
        ours = outcome(lambda u=unpacker, d=data: unpack(u, d, None, False))
        theirs = outcome(lambda u=unpacker, d=data: unpack(u, d, None, True))
        assert ours == theirs, case["name"]
        assert ours[0] == "ok", case["name"]
        compared += 1
    assert compared > 50


def test_vectors_pack_as_the_release_does() -> None:
    compared = 0
    for case in vector_cases("valid"):
        codec = codec_for(case)
        if codec is None:
            continue
        packer, _unpacker = codec
        value = vector_value(case["value"])
        ours = accelerated_pack(packer, value)
        assert ours == pure_pack(packer, value), case["name"]
        assert ours == vector_bytes(case), case["name"]
        compared += 1
    assert compared > 50


def test_invalid_vectors_raise_value_errors() -> None:
    checked = 0
    for case in vector_cases("invalid"):
        codec = codec_for(case)
        if codec is None or case["error"] == "trailing_bytes":
            continue  # the driver decodes one value and leaves what follows
        data = vector_bytes(case)
        with pytest.raises(ValueError, match="byte"):
            unpack(codec[1], data, None, False, whole=False)
        checked += 1
    assert checked > 100


def dehydratable_values() -> list[t.Any]:
    from neo4j.spatial import CartesianPoint, WGS84Point
    from neo4j.time import Date, DateTime, Duration, Time

    values: list[t.Any] = [
        Date(2024, 2, 29),
        Date(1, 1, 1),
        Date(9999, 12, 31),
        datetime.date(1970, 1, 1),
        Time(12, 34, 56, 789123456),
        Time(23, 59, 59, 999999999, tzinfo=datetime.timezone(datetime.timedelta(hours=2))),
        datetime.time(1, 2, 3, 4),
        DateTime(2000, 1, 1, 0, 0, 0, 1),
        DateTime(1, 1, 1, 0, 0, 0, 0),
        DateTime(2021, 3, 4, 5, 6, 7, 123456789, tzinfo=datetime.timezone.utc),
        DateTime(1900, 1, 1, 12, 0, 0, 0, tzinfo=datetime.timezone(-datetime.timedelta(hours=5))),
        datetime.datetime(2020, 5, 6, 7, 8, 9, 10),
        datetime.datetime(2020, 5, 6, 7, 8, 9, 10, tzinfo=datetime.timezone.utc),
        Duration(years=1, months=2, days=3, hours=4, minutes=5, seconds=6, nanoseconds=7),
        Duration(seconds=-1, nanoseconds=1),
        datetime.timedelta(days=-3, microseconds=5),
        CartesianPoint((1.5, -2.0)),
        CartesianPoint((1.0, 2.0, 3.0)),
        WGS84Point((12.5, 55.75)),
        WGS84Point((-0.5, 0.25, 1000.0)),
    ]
    try:
        import pytz

        values += [
            pytz.timezone("Europe/Stockholm").localize(datetime.datetime(2021, 6, 1, 12, 30)),
            pytz.timezone("America/New_York").localize(datetime.datetime(1960, 1, 1)),
            DateTime(2022, 10, 30, 2, 30, 0, 5, tzinfo=pytz.timezone("Europe/Berlin")),
        ]
    except ImportError:
        pass
    # No zoneinfo.ZoneInfo datetimes: the driver converts them by calling
    # ZoneInfo.utcoffset(neo4j.time.DateTime), which crashes CPython 3.11's C zoneinfo
    # (it reads the argument as a datetime), with or without boltcodec.
    try:
        from neo4j.vector import Vector

        values += [Vector([1, 2, 3], "i8"), Vector([1.5, -2.0], "f64")]
    except (ImportError, TypeError):
        pass
    return values


def graph_structures() -> list[t.Any]:
    """Nodes, relationships and paths in every field count a version may send, malformed
    ones included (the release decides what they hydrate to, or which error it raises).
    """
    s = Structure
    node3 = s(b"N", 1, ["Person", "Dev"], {"name": "Ada", "born": 1815})
    node4 = s(b"N", 1, ["Person"], {"name": "Ada"}, "4:db:1")
    node4b = s(b"N", 2, [], {}, "4:db:2")
    rel5 = s(b"R", 10, 1, 2, "KNOWS", {"since": 2001})
    rel8 = s(b"R", 10, 1, 2, "KNOWS", {"since": 2001}, "5:db:10", "4:db:1", "4:db:2")
    unbound3 = s(b"r", 10, "KNOWS", {"w": 0.5})
    unbound4 = s(b"r", 10, "KNOWS", {"w": 0.5}, "5:db:10")
    return [
        node3,
        node4,
        [node4, node4, node4b],
        rel5,
        rel8,
        [node4, node4b, rel8],
        s(b"P", [node3, s(b"N", 2, [], {})], [unbound3], [1, 1]),
        s(b"P", [node4, node4b], [unbound4], [1, 1]),
        s(b"P", [node4, node4b], [unbound4], [-1, 1]),
        s(b"P", [node4], [], []),
        s(b"N", 1, ["L"]),
        s(b"N", "x", "not a list", None, None),
        s(b"R", 1),
        s(b"D", 19000),
        s(b"D", "x"),
        s(b"T", 1, 2),
        s(b"t", 3_600_000_000_000),
        s(b"F", 1, 2, 3600),
        s(b"f", 1, 2, "Europe/Stockholm"),
        s(b"f", 1, 2, "No/Such_Zone"),
        s(b"I", 1, 2, 3600),
        s(b"i", 1, 2, "UTC"),
        s(b"d", 1, 2),
        s(b"E", 1, 2, 3, 4),
        s(b"E", 2**63 - 1, 2**63 - 1, 2**63 - 1, 999_999_999),
        s(b"X", 7203, 1.0, 2.0),
        s(b"Y", 4979, 1.0, 2.0, 3.0),
        s(b"X", 12345, 1.0, 2.0),
        s(b"D", 2**62),
        s(b"Q", 1, 2, 3),
    ]


@pytest.mark.parametrize(("name", "packer", "unpacker", "handler"), TRIPLES, ids=TRIPLE_IDS)
def test_hydrated_values_are_what_the_release_builds(name, packer, unpacker, handler) -> None:
    def unpacked(data: bytes, pure: bool) -> t.Any:
        """The outcome of the release's unpacker on ``data``, with a fresh scope's hooks."""
        return outcome(
            lambda: unpack(unpacker, data, handler().new_hydration_scope().hydration_hooks, pure)
        )

    compared = 0
    for value in dehydratable_values():
        scope = handler().new_hydration_scope()
        ours = outcome(lambda v=value, s=scope: accelerated_pack(packer, v, s.dehydration_hooks))
        theirs = outcome(lambda v=value, s=scope: pure_pack(packer, v, s.dehydration_hooks))
        assert ours == theirs, (name, value)
        if ours[0] != "ok":
            continue
        data = pure_pack(packer, value, scope.dehydration_hooks)
        assert unpacked(data, pure=False) == unpacked(data, pure=True), (name, value)
        compared += 1
    for value in graph_structures():
        data = pure_pack(packer, value)
        assert unpacked(data, pure=False) == unpacked(data, pure=True), (name, value)
        compared += 1
    assert compared > 40


# ---------------------------------------------------------------------------------------
# Receive level: the replaced Inbox against the release's own, over a real socket.


def chunked(message: bytes, size: int) -> bytes:
    out = bytearray()
    for i in range(0, len(message), size):
        part = message[i : i + size]
        out += len(part).to_bytes(2, "big") + part
    return bytes(out + b"\x00\x00")


def canned_pull_response(packer_cls: t.Any, rows: int) -> tuple[bytes, int]:
    """A PULL response: ``rows`` RECORDs of varied values (graph entities and temporal
    structures included), NOOPs between some, chunked at odd sizes, then SUCCESS.
    Returns the bytes and the number of messages.
    """
    node = Structure(b"N", 7, ["Person"], {"name": "Ada"}, "4:db:7")
    other = Structure(b"N", 8, [], {}, "4:db:8")
    rel = Structure(b"R", 70, 7, 8, "KNOWS", {"since": 1}, "5:db:70", "4:db:7", "4:db:8")
    out = bytearray()
    for i in range(rows):
        fields = [
            i,
            -i * 1000003,
            f"row {i}",
            i / 7,
            None,
            i % 2 == 0,
            [i, "x" * (i % 40), [b"\x00" * (i % 5)]],
            {"k": i, "nested": {"s": "é" * (i % 9)}},
            node if i % 3 else other,
            rel if i % 2 else None,
            Structure(b"D", 19000 + i),
            Structure(b"X", 7203, float(i), -1.5),
            "y" * (300 if i % 50 == 0 else 1),
        ]
        message = pure_pack(packer_cls, Structure(b"q", fields))
        out += chunked(message, 1 + (i * 37) % 200)
        if i % 17 == 0:
            out += b"\x00\x00"  # a NOOP between messages
    summary = pure_pack(packer_cls, Structure(b"p", {"has_more": False, "t_last": 3}))
    out += chunked(summary, 16384)
    return bytes(out), rows + 1


def connected_pair() -> tuple[socket.socket, socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname())
        peer, _ = server.accept()
    return client, peer


def send_in_pieces(sock: socket.socket, data: bytes) -> threading.Thread:
    def run() -> None:
        try:
            for i in range(0, len(data), 4093):
                sock.sendall(data[i : i + 4093])
        finally:
            sock.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def rows_from(messages: list[tuple[bytes, list]]) -> list[t.Any]:
    """The driver's view of a message stream: each field of a RECORD is one row."""
    rows: list[t.Any] = []
    for tag, fields in messages:
        if tag == b"\x71":
            rows.extend(canon(row) for row in fields)
        else:
            rows.append(("summary", tag, canon(fields)))
    return rows


def inbox_classes() -> tuple[t.Any, t.Any]:
    from neo4j._async.io import AsyncBolt

    sync_module = sys.modules[Bolt.__module__]
    async_module = sys.modules[AsyncBolt.__module__]
    return sync_module.Inbox, async_module.AsyncInbox


def read_sync(inbox_cls: t.Any, unpacker_cls: t.Any, data: bytes, hooks: t.Any) -> list:
    client, peer = connected_pair()
    errors: list[Exception] = []
    sender = send_in_pieces(peer, data)
    try:
        inbox = inbox_cls(client, errors.append, unpacker_cls)
        messages = []
        while True:
            tag, fields = inbox.pop(hooks)
            messages.append((tag, fields))
            if tag != b"\x71":
                break
    finally:
        sender.join()
        client.close()
    assert errors == []
    return messages


class AsyncSocket:
    """What the driver's AsyncInbox needs of its AsyncBoltSocket."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock

    def getsockname(self) -> t.Any:
        return self.sock.getsockname()

    async def recv_into(self, buffer: t.Any, nbytes: int) -> int:
        loop = asyncio.get_running_loop()
        return await loop.sock_recv_into(self.sock, memoryview(buffer)[:nbytes])


def read_async(inbox_cls: t.Any, unpacker_cls: t.Any, data: bytes, hooks: t.Any) -> list:
    client, peer = connected_pair()
    errors: list[Exception] = []
    sender = send_in_pieces(peer, data)

    async def on_error(e: Exception) -> None:
        errors.append(e)

    async def run() -> list:
        inbox = inbox_cls(AsyncSocket(client), on_error, unpacker_cls)
        messages = []
        while True:
            tag, fields = await inbox.pop(hooks)
            messages.append((tag, fields))
            if tag != b"\x71":
                return messages

    try:
        messages = asyncio.run(run())
    finally:
        sender.join()
        client.close()
    assert errors == []
    return messages


@pytest.mark.parametrize("flavour", ["sync", "async"])
@pytest.mark.parametrize(("name", "packer", "unpacker", "handler"), TRIPLES, ids=TRIPLE_IDS)
def test_receive_path_gives_the_records_the_release_gives(
    flavour, name, packer, unpacker, handler
) -> None:
    sync_inbox, async_inbox = inbox_classes()
    ours_cls = sync_inbox if flavour == "sync" else async_inbox
    assert ours_cls.__module__ == "boltcodec._inbox"
    original = ours_cls._boltcodec_original
    read = read_sync if flavour == "sync" else read_async
    data, n_messages = canned_pull_response(packer, 400)

    ours = read(ours_cls, unpacker, data, handler().new_hydration_scope().hydration_hooks)
    theirs = read(
        original,
        pure_unpacker_cls(unpacker),
        data,
        handler().new_hydration_scope().hydration_hooks,
    )
    assert len(theirs) == n_messages
    assert len(ours) < n_messages, "consecutive buffered RECORDs are handed over together"
    assert rows_from(ours) == rows_from(theirs)
    assert len(rows_from(ours)) == n_messages


def test_an_unaccelerated_unpacker_gets_the_releases_own_inbox() -> None:
    sync_inbox, _ = inbox_classes()
    client, peer = connected_pair()
    try:
        pure = pure_unpacker_cls(packstream.v1.Unpacker)
        inbox = sync_inbox(client, lambda e: None, pure)
        assert type(inbox) is sync_inbox._boltcodec_original
        accelerated = sync_inbox(client, lambda e: None, packstream.v1.Unpacker)
        assert type(accelerated) is sync_inbox
    finally:
        client.close()
        peer.close()


def test_a_broken_message_marks_the_inbox_broken_and_calls_on_error() -> None:
    sync_inbox, _ = inbox_classes()
    client, peer = connected_pair()
    errors: list[Exception] = []
    # A RECORD whose only field claims a 5-byte string but holds 2 bytes, then SUCCESS.
    sender = send_in_pieces(
        peer, chunked(b"\xb1\x71\x91\x85ab", 64) + chunked(b"\xb1\x70\xa0", 64)
    )
    try:
        inbox = sync_inbox(client, errors.append, packstream.v1.Unpacker)
        with pytest.raises(ValueError, match="byte") as info:
            inbox.pop(None)
        assert isinstance(info.value, boltcodec.DecodeError)
        assert errors == [info.value]
        assert inbox._broken
    finally:
        sender.join()
        client.close()


def test_floats_survive_the_receive_path_bit_for_bit() -> None:
    packer = packstream.v1.Packer
    values = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, 1.7976931348623157e308]
    message = pure_pack(packer, Structure(b"q", values))
    data = chunked(message, 3) + chunked(pure_pack(packer, Structure(b"p", {})), 64)
    sync_inbox, _ = inbox_classes()
    ours = read_sync(sync_inbox, packstream.v1.Unpacker, data, None)
    assert len(ours) == 2
    assert canon(ours[0][1]) == canon([values])


def test_release_tuple_is_in_the_supported_range() -> None:
    assert (5, 18) <= release_tuple()[:2] < (7, 0)


def result_class(is_async: bool) -> t.Any:
    if is_async:
        from neo4j._async.work.result import AsyncResult

        return AsyncResult
    from neo4j._sync.work.result import Result

    return Result


def stream_result(is_async: bool, batches: list[list[int]]) -> t.Any:
    """The release's Result class on a stream that delivers ``batches`` of records, one
    batch per fetch, as the driver's own ``__iter__`` does with a batched Inbox.
    """
    from collections import deque

    base = result_class(is_async)

    class Streamed(base):
        def __init__(self) -> None:
            self._batches = deque(batches)
            self._record_buffer = deque()
            self._out_of_scope = False
            self._consumed = False
            self._exhausted = False

        def _fetch(self) -> None:
            self._record_buffer.extend(self._batches.popleft())

        def __iter__(self):
            while self._record_buffer or self._batches:
                if self._record_buffer:
                    yield self._record_buffer.popleft()
                else:
                    self._fetch()

        async def __aiter__(self):
            while self._record_buffer or self._batches:
                if self._record_buffer:
                    yield self._record_buffer.popleft()
                else:
                    self._fetch()

    return Streamed()


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_result_fetch_after_a_batch_returned_records_out_of_order(is_async: bool) -> None:
    # Up to 6.1, Result._buffer(n) appended what it took after the records still buffered:
    # with a batch of 7 records, fetch(3) gave records 4, 5, 6 (seen end to end on 5.28.8).
    def buffer(result: t.Any, n: int) -> None:
        if is_async:
            asyncio.run(result._buffer(n))
        else:
            result._buffer(n)

    result = stream_result(is_async, [[1, 2, 3, 4, 5, 6, 7], [8, 9]])
    buffer(result, 3)
    assert list(result._record_buffer) == [1, 2, 3, 4, 5, 6, 7]
    taken = [result._record_buffer.popleft() for _ in range(3)]
    assert taken == [1, 2, 3]
    buffer(result, 6)
    assert list(result._record_buffer) == [4, 5, 6, 7, 8, 9]
    result = stream_result(is_async, [[1], [2, 3, 4]])
    buffer(result, 2)
    assert list(result._record_buffer) == [1, 2, 3, 4]
    result = stream_result(is_async, [[1, 2], [3]])
    buffer(result, 1)  # peek
    assert result._record_buffer[0] == 1


def numpy_pandas_values() -> list[t.Any]:
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    return [
        np.int8(-5),
        np.uint16(300),
        np.int64(-(2**40)),
        np.uint64(2**63 - 1),
        np.uint64(2**64 - 1),
        np.float16(1.5),
        np.float32(0.1),
        np.float64("nan"),
        np.bool_(True),
        np.bool_(False),
        np.str_("héllo"),
        np.bytes_(b"ab"),
        np.array([1, 2, 3]),
        np.array([[1.5, 2.5], [3.5, 4.5]]),
        np.array(["a", "b"]),
        np.datetime64("2020-01-01"),
        pd.NA,
        pd.NaT,
        pd.Series([1, 2, None]),
        pd.Series([1.5, float("nan")]),
        pd.Series(["x", None], dtype="string"),
        pd.Series([True, None], dtype="boolean"),
        pd.Series([1, None], dtype="Int64"),
        pd.Categorical(["a", "b", "a"]),
        pd.array([1, 2], dtype="Int32"),
        pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}),
        pd.DataFrame({1: [1]}),
        pd.DataFrame(),
        {"s": pd.Series([1.0]), "n": [np.int32(1), np.float64(2.0)]},
    ]


@pytest.mark.parametrize(("name", "packer", "unpacker", "handler"), TRIPLES, ids=TRIPLE_IDS)
def test_numpy_and_pandas_values_pack_as_the_release_packs_them(
    name, packer, unpacker, handler
) -> None:
    for value in numpy_pandas_values():
        scope = handler().new_hydration_scope()
        ours = outcome(lambda v=value, s=scope: accelerated_pack(packer, v, s.dehydration_hooks))
        theirs = outcome(lambda v=value, s=scope: pure_pack(packer, v, s.dehydration_hooks))
        assert ours == theirs, (name, repr(value)[:80])
