"""boltcodec.bolt: the sans-IO client connection, every request, the events, both
handshake roles, the WebSocket adapter, and hostile server bytes.

The server side is played by the binding's own ``ServerHandshake`` and a few lines that
frame ``Structure`` messages, so every byte the client sees is spelled out here.
"""

from __future__ import annotations

import json
import random

import pytest

import boltcodec
from boltcodec import Structure
from boltcodec.bolt import (
    Begin,
    BoltError,
    ClientConnection,
    ClientHandshake,
    ClientUpgrade,
    Commit,
    Discard,
    Failure,
    Goodbye,
    Hello,
    Ignored,
    Logoff,
    Logon,
    Negotiated,
    Pull,
    Records,
    Reset,
    Rollback,
    Route,
    Run,
    ServerHandshake,
    ServerUpgrade,
    Success,
    Telemetry,
    WsStream,
)

from conftest import REPO

SUCCESS, RECORD, IGNORED, FAILURE = 0x70, 0x71, 0x7E, 0x7F
MESSAGES = REPO / "tests" / "vectors" / "bolt-messages.json"


def chunked(*messages: Structure) -> bytes:
    """Messages framed as one chunk each."""
    out = bytearray()
    for m in messages:
        data = boltcodec.packb(m)
        out += len(data).to_bytes(2, "big") + data + b"\x00\x00"
    return bytes(out)


def success(**meta) -> Structure:
    return Structure(bytes([SUCCESS]), meta)


def record(*fields) -> Structure:
    return Structure(bytes([RECORD]), list(fields))


class Server:
    """The server end: handshake through the binding, then requests decoded by the
    Dechunker and responses framed by ``chunked``.
    """

    def __init__(self, versions=None, manifest=True):
        self.handshake = ServerHandshake(versions=versions, manifest=manifest)
        self.dechunker = boltcodec.Dechunker()
        self.version = None
        self.offset = 0  # bytes of messages given to the client (its stream offset)

    def reply(self, conn: ClientConnection, data: bytes) -> int:
        """Gives ``data`` (messages) to the client; returns its stream offset."""
        at = self.offset
        self.offset += len(data)
        conn.receive(data)
        return at

    def receive(self, data: bytes) -> tuple[bytes, list]:
        """Client bytes in; (bytes to send back, requests as (tag, fields))."""
        send = b""
        if self.version is None:
            step = self.handshake.receive(data)
            send = step.send
            if step.status == "negotiated":
                self.version = step.version
            data = data[step.consumed or 0 :] if step.status == "negotiated" else b""
        return send, self.dechunker.feed_messages(data) if data else []


def connect(versions=None, manifest=True, **kwargs) -> tuple[ClientConnection, Server]:
    """A client and a server past the handshake."""
    conn = ClientConnection(versions=versions, manifest=manifest, **kwargs)
    server = Server(versions=versions, manifest=manifest)
    while conn.version is None:
        send, _ = server.receive(conn.take_output())
        conn.receive(send)
    rest, _ = server.receive(conn.take_output())  # the manifest pick, if any
    assert rest == b""
    [negotiated] = conn.events()
    assert negotiated == Negotiated(conn.version)
    return conn, server


def ready(version=(5, 8), **kwargs) -> tuple[ClientConnection, Server]:
    """Logged in, state READY."""
    conn, server = connect(versions=[version], **kwargs)
    conn.send(Hello("test/1.0"))
    replies = [success(server="Neo4j/5.26.0")]
    if version >= (5, 1):
        conn.send(Logon.basic("neo4j", "pw"))
        replies.append(success())
    server.receive(conn.take_output())
    server.reply(conn, chunked(*replies))
    assert all(isinstance(e, Success) for e in conn.events())
    assert conn.state == "READY"
    return conn, server


def sent(conn: ClientConnection, server: Server) -> list:
    """The requests the client wrote, as the server decodes them."""
    return server.receive(conn.take_output())[1]


# ---------------------------------------------------------------------------------------
# Handshake
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("manifest", [True, False])
@pytest.mark.parametrize("version", [(4, 4), (5, 0), (5, 4), (5, 8), (6, 0), (6, 1)])
def test_both_handshake_roles_agree_on_every_version(version, manifest):
    conn, server = connect(versions=[version], manifest=manifest)
    assert conn.version == version == server.version
    assert conn.state == "NEGOTIATION"


def test_client_handshake_alone_gives_the_manifest_pick():
    client = ClientHandshake()
    hello = client.hello()
    assert hello[:4] == bytes.fromhex("6060B017")
    assert len(hello) == 20
    server = ServerHandshake()
    offer = server.receive(hello)
    assert offer.status == "continue"
    assert offer.consumed == 20
    pick = client.receive(offer.send)
    assert (pick.status, pick.version) == ("negotiated", (6, 1))
    done = server.receive(pick.send)
    assert (done.status, done.version) == ("negotiated", (6, 1))


def test_handshake_needs_more_then_completes_byte_by_byte():
    client = ClientHandshake(manifest=False, versions=[(5, 4)])
    server = ServerHandshake(manifest=False, versions=[(5, 4)])
    hello = client.hello()
    steps = [server.receive(hello[i : i + 1]) for i in range(len(hello))]
    assert [s.status for s in steps[:-1]] == ["need_more"] * 19
    assert steps[-1].status == "negotiated"
    reply = steps[-1].send
    assert [client.receive(reply[i : i + 1]).status for i in range(4)] == [
        "need_more",
        "need_more",
        "need_more",
        "negotiated",
    ]


def test_server_rejects_a_client_with_no_common_version():
    server = ServerHandshake(versions=[(4, 4)], manifest=False)
    step = server.receive(ClientHandshake(versions=[(5, 8)], manifest=False).hello())
    assert step.status == "rejected"
    assert step.send == bytes(4)
    conn = ClientConnection(versions=[(5, 8)], manifest=False)
    conn.take_output()
    with pytest.raises(BoltError) as e:
        conn.receive(bytes(4))
    assert e.value.kind == "no_common_version"


@pytest.mark.parametrize("role", [ClientHandshake, ServerHandshake, ClientConnection])
@pytest.mark.parametrize(
    ("versions", "kind"),
    [([], "no_versions"), ([(5, 8), (5, 5)], "unknown_version"), ([(9, 9)], "unknown_version")],
)
def test_server_handshake_refused_unknown_versions_like_the_client(role, versions, kind):
    # Regression: ServerHandshake built its version list itself and dropped an unknown
    # version (or took an empty list) without a word, while the client side refused it.
    # Both roles now take the core's one reading of `versions` and `manifest`.
    for manifest in (True, False):
        with pytest.raises(BoltError) as e:
            role(versions=versions, manifest=manifest)
        assert (e.value.kind, e.value.offset) == (kind, None)
        if versions:
            assert str(e.value).startswith(f"Bolt {versions[-1][0]}.{versions[-1][1]} is not")


@pytest.mark.parametrize("manifest", [True, False])
def test_same_handshake_arguments_agree_in_both_roles(manifest):
    # The client proposes the manifest (if on), then the list's newest versions as exact
    # proposals, never one it would refuse; the server accepts exactly the list.
    versions = [(4, 4), (5, 0), (5, 2), (5, 4), (5, 6), (6, 0)]
    client = ClientHandshake(versions=versions, manifest=manifest)
    server = ServerHandshake(versions=versions, manifest=manifest)
    hello = client.hello()
    if manifest:
        assert hello[4:] == bytes.fromhex("000001FF 00000006 00000605 00000405")
    else:
        assert hello[4:] == bytes.fromhex("00000006 00000605 00000405 00000205")
    step = server.receive(hello)
    if manifest:
        step = server.receive(client.receive(step.send).send)
    else:
        assert client.receive(step.send).version == (6, 0)
    assert (step.status, step.version) == ("negotiated", (6, 0))
    # Nothing in common: the legacy server rejects the client; the manifest server offers
    # 5.8 alone and the client rejects that.
    other = ServerHandshake(versions=[(5, 8)], manifest=manifest)
    client = ClientHandshake(versions=versions, manifest=manifest)
    step = other.receive(client.hello())
    if manifest:
        assert step.status == "continue"
        step = client.receive(step.send)
    assert step.status == "rejected"


def test_handshake_bad_magic_raises_with_offset():
    with pytest.raises(BoltError) as e:
        ServerHandshake().receive(bytes.fromhex("6060B018") + bytes(16))
    assert (e.value.kind, e.value.offset) == ("bad_magic", 3)


def test_http_reply_to_the_handshake_is_a_clear_error():
    conn = ClientConnection()
    conn.take_output()
    with pytest.raises(BoltError) as e:
        conn.receive(b"HTTP/1.1 400 Bad Request\r\n\r\n")
    assert e.value.kind == "http_response"
    assert e.value.offset == 0
    assert conn.state == "DEFUNCT"


# ---------------------------------------------------------------------------------------
# Every request, as the server receives it
# ---------------------------------------------------------------------------------------


def test_hello_gets_bolt_agent_from_5_3_and_utc_patch_on_4_4():
    for version, agent, patch in [
        ((5, 8), True, False),
        ((5, 2), False, False),
        ((4, 4), False, True),
    ]:
        conn, server = connect(versions=[version])
        conn.send(Hello("app/1", routing={"address": "x:7687"}))
        [(tag, [extra])] = sent(conn, server)
        assert tag == 0x01
        assert extra["user_agent"] == "app/1"
        assert extra["routing"] == {"address": "x:7687"}
        assert ("bolt_agent" in extra) == agent, version
        if agent:
            assert extra["bolt_agent"]["product"].startswith("boltcodec-python/")
        assert (extra.get("patch_bolt") == ["utc"]) == patch, version


def test_hello_with_its_own_bolt_agent_and_notification_filters():
    conn, server = connect(versions=[(5, 8)])
    conn.send(
        Hello(
            "app/1",
            bolt_agent={"product": "mine/2", "language": "Python/3"},
            notifications_minimum_severity="WARNING",
            notifications_disabled=["HINT"],
        )
    )
    [(_, [extra])] = sent(conn, server)
    assert extra["bolt_agent"] == {"product": "mine/2", "language": "Python/3"}
    assert extra["notifications_minimum_severity"] == "WARNING"
    assert extra["notifications_disabled_classifications"] == ["HINT"]


def test_hello_carries_auth_before_5_1():
    conn, server = connect(versions=[(4, 4)])
    conn.send(Hello("app/1", auth={"scheme": "basic", "principal": "u", "credentials": "p"}))
    [(_, [extra])] = sent(conn, server)
    assert (extra["scheme"], extra["principal"], extra["credentials"]) == ("basic", "u", "p")


@pytest.mark.parametrize(
    ("logon", "auth"),
    [
        (Logon.basic("u", "p"), {"scheme": "basic", "principal": "u", "credentials": "p"}),
        (
            Logon.basic("u", "p", realm="r"),
            {"scheme": "basic", "principal": "u", "credentials": "p", "realm": "r"},
        ),
        (Logon.bearer("t"), {"scheme": "bearer", "credentials": "t"}),
        (Logon.none(), {"scheme": "none"}),
    ],
)
def test_logon_sends_its_auth_dict(logon, auth):
    conn, server = connect(versions=[(5, 8)])
    conn.send(Hello("a"))
    conn.send(logon)
    assert sent(conn, server)[1] == (0x6A, [auth])


def test_run_sends_query_parameters_and_every_setting():
    conn, server = ready((5, 8))
    params = {"n": 10, "s": "x", "l": [1, 2.5, None], "m": {"k": True}, "b": b"\x01"}
    conn.send(
        Run(
            "RETURN $n",
            params,
            bookmarks=["bm1"],
            tx_timeout=500,
            tx_metadata={"app": "t"},
            mode="r",
            db="neo4j",
            imp_user="alice",
            notifications_minimum_severity="OFF",
        )
    )
    [(tag, [query, got_params, extra])] = sent(conn, server)
    assert (tag, query, got_params) == (0x10, "RETURN $n", params)
    assert extra == {
        "bookmarks": ["bm1"],
        "tx_timeout": 500,
        "tx_metadata": {"app": "t"},
        "mode": "r",
        "db": "neo4j",
        "imp_user": "alice",
        "notifications_minimum_severity": "OFF",
    }


def test_requests_of_an_explicit_transaction():
    conn, server = ready((5, 8))
    conn.send(Begin(db="neo4j", mode="w", bookmarks=["b"]))
    conn.send(Run("CREATE ()"))
    conn.send(Pull(5))
    got = sent(conn, server)
    assert got[0] == (0x11, [{"db": "neo4j", "mode": "w", "bookmarks": ["b"]}])
    assert got[1] == (0x10, ["CREATE ()", {}, {}])
    assert got[2] == (0x3F, [{"n": 5}])
    conn.receive(chunked(success(), success(fields=[], qid=0), success(has_more=False)))
    assert conn.state == "TX_READY"
    conn.send(Commit())
    assert sent(conn, server) == [(0x12, [])]
    conn.receive(chunked(success(bookmark="bm2")))
    [*_, done] = conn.events()
    assert done.bookmark == "bm2"
    assert conn.state == "READY"
    conn.send(Begin())
    conn.send(Rollback())
    assert sent(conn, server) == [(0x11, [{}]), (0x13, [])]


def test_pull_and_discard_with_qid():
    conn, server = ready((5, 8))
    conn.send(Begin())
    conn.send(Run("RETURN 1"))
    conn.send(Run("RETURN 2"))
    conn.send(Pull(10, qid=0))
    conn.send(Discard(-1, qid=1))
    assert sent(conn, server)[3:] == [(0x3F, [{"n": 10, "qid": 0}]), (0x2F, [{"n": -1, "qid": 1}])]


def test_route_telemetry_reset_logoff_goodbye():
    conn, server = ready((5, 8))
    conn.send(Route({"address": "h:1"}, bookmarks=["b"], db="neo4j"))
    conn.send(Telemetry(2))
    got = sent(conn, server)
    assert got[0] == (0x66, [{"address": "h:1"}, ["b"], {"db": "neo4j"}])
    assert got[1] == (0x54, [2])
    conn.receive(chunked(success(rt={"ttl": 300}), success()))
    route, telemetry = conn.events()
    assert route.routing_table == {"ttl": 300}
    assert telemetry.request == "TELEMETRY"
    conn.send(Logoff())
    conn.send(Logon.none())
    conn.send(Reset())
    conn.send(Goodbye())
    assert [tag for tag, _ in sent(conn, server)] == [0x6B, 0x6A, 0x0F, 0x02]
    assert conn.state == "DEFUNCT"


def test_messages_match_the_shared_vectors():
    cases = json.loads(MESSAGES.read_text())["requests"]
    assert len(cases) >= 12
    kinds = {
        "HELLO": Hello,
        "LOGON": Logon,
        "LOGOFF": Logoff,
        "RUN": Run,
        "PULL": Pull,
        "DISCARD": Discard,
        "BEGIN": Begin,
        "COMMIT": Commit,
        "ROLLBACK": Rollback,
        "RESET": Reset,
        "ROUTE": Route,
        "TELEMETRY": Telemetry,
        "GOODBYE": Goodbye,
    }
    seen = set()
    for case in cases:
        version = tuple(case["version"])
        conn, server = connect(versions=[version], bolt_agent=None, request_utc_patch=False)
        if case["request"] != "HELLO":
            conn.send(Hello("x"))
            replies = [success()]
            if case["request"] != "LOGON" and version >= (5, 1):
                conn.send(Logon.none())
                replies.append(success())
            server.receive(conn.take_output())
            conn.receive(chunked(*replies))
        for name, *positional in case["before"]:
            conn.send(kinds[name](*positional))
        conn.take_output()
        args = case.get("args", {})
        request = kinds[case["request"]](*args.get("positional", []), **args.get("keyword", {}))
        conn.send(request)
        out = conn.take_output()
        expected = bytes.fromhex(case["hex"])
        assert out == len(expected).to_bytes(2, "big") + expected + b"\x00\x00", case["name"]
        seen.add(case["request"])
    assert seen == set(kinds)


# ---------------------------------------------------------------------------------------
# Events and records
# ---------------------------------------------------------------------------------------


def test_a_result_streams_as_record_batches_with_back_pressure():
    conn, server = ready((5, 8))
    conn.send(Run("UNWIND range(1, $n) AS i RETURN i, toString(i)", {"n": 5}))
    conn.send(Pull(2))
    sent(conn, server)
    conn.receive(
        chunked(
            success(fields=["i", "s"], t_first=1),
            record(1, "1"),
            record(2, "2"),
            success(has_more=True),
        )
    )
    run, batch, more = conn.events()
    assert run.fields == ["i", "s"]
    assert run.t_first == 1
    assert run.request == "RUN"
    assert batch == Records([[1, "1"], [2, "2"]])
    assert len(batch) == 2
    assert more.has_more
    assert conn.state == "STREAMING"
    assert not conn.can_send("RUN")
    assert conn.can_send("PULL")
    conn.send(Pull(-1))
    sent(conn, server)
    conn.receive(chunked(record(3, "3"), record(4, "4"), record(5, "5"), success(bookmark="b")))
    batch, done = conn.events()
    assert [r[0] for r in batch.rows] == [3, 4, 5]
    assert done.bookmark == "b"
    assert conn.state == "READY"


def test_records_split_anywhere_arrive_whole_and_in_order():
    data = chunked(
        success(fields=["x"]), *[record(i, [i] * 3, {"k": str(i)}) for i in range(20)], success()
    )
    for cut in range(0, len(data) + 1, 7):
        conn, server = ready((5, 8))
        conn.send(Run("q"))
        conn.send(Pull(-1))
        sent(conn, server)
        conn.receive(data[:cut])
        events = conn.events()
        conn.receive(data[cut:])
        events += conn.events()
        rows = [row for e in events if isinstance(e, Records) for row in e.rows]
        assert rows == [[i, [i] * 3, {"k": str(i)}] for i in range(20)], cut
        assert isinstance(events[-1], Success)
        assert conn.state == "READY"


def test_struct_hook_applies_to_record_fields():
    conn, server = ready((5, 8), struct_hook=lambda s: ("S", s.tag, list(s.fields)))
    conn.send(Run("q"))
    conn.send(Pull(-1))
    sent(conn, server)
    conn.receive(chunked(success(), record(Structure(b"D", 7)), success()))
    _, batch, _ = conn.events()
    assert batch.rows == [[("S", b"D", [7])]]


def test_a_raising_struct_hook_keeps_the_rows_before_and_ends_the_connection():
    def hook(s):
        if s.fields[0] == 2:
            raise ValueError("no 2")
        return s.fields[0]

    conn, server = ready((5, 8), struct_hook=hook)
    conn.send(Run("q"))
    conn.send(Pull(-1))
    sent(conn, server)
    rows = [record(Structure(b"X", i)) for i in range(4)]
    server.reply(conn, chunked(success(), *rows, success()))
    _, batch = conn.events()
    assert batch.rows == [[0], [1]]
    with pytest.raises(BoltError) as e:
        conn.events()
    assert e.value.kind == "struct_hook_failed"
    assert isinstance(e.value.__cause__, ValueError)
    assert conn.state == "DEFUNCT"


def test_failure_then_ignored_then_reset():
    conn, server = ready((5, 8))
    conn.send(Run("bad"))
    conn.send(Pull(10))
    sent(conn, server)
    fail = Structure(
        bytes([FAILURE]), {"code": "Neo.ClientError.Statement.SyntaxError", "message": "no"}
    )
    conn.receive(chunked(fail, Structure(bytes([IGNORED]))))
    f, i = conn.events()
    assert f == Failure("RUN", "Neo.ClientError.Statement.SyntaxError", "no", f.metadata)
    assert i == Ignored("PULL")
    assert conn.state == "FAILED"
    conn.send(Reset())
    assert conn.state == "INTERRUPTED"
    sent(conn, server)
    conn.receive(chunked(success()))
    conn.events()
    assert conn.state == "READY"


# ---------------------------------------------------------------------------------------
# State rules: refused before a byte is written
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setup", "request_", "state"),
    [
        ([], Pull(10), "READY"),
        ([], Commit(), "READY"),
        ([], Discard(), "READY"),
        ([Run("q")], Run("q"), "STREAMING"),
        ([Run("q"), Pull(10)], Run("q"), "STREAMING"),
        ([Begin()], Begin(), "TX_READY"),
        ([Begin()], Logoff(), "TX_READY"),
        ([], Hello("again"), "READY"),
        ([], Logon.none(), "READY"),
    ],
)
def test_illegal_requests_are_refused_and_nothing_is_written(setup, request_, state):
    conn, _ = ready((5, 8))
    for r in setup:
        conn.send(r)
    before = conn.take_output()
    pending = conn.pending_requests
    name = request_._name
    assert not conn.can_send(name)
    with pytest.raises(BoltError) as e:
        conn.send(request_)
    assert e.value.kind == "illegal_request"
    assert e.value.offset is None
    assert state in str(e.value)
    assert conn.take_output() == b""
    assert conn.pending_requests == pending
    assert before or not setup


def test_requests_before_the_handshake_and_after_goodbye_are_refused():
    conn = ClientConnection()
    with pytest.raises(BoltError) as e:
        conn.send(Hello("x"))
    assert e.value.kind == "not_negotiated"
    conn, _ = ready((5, 8))
    conn.send(Goodbye())
    with pytest.raises(BoltError) as e:
        conn.send(Reset())
    assert e.value.kind == "defunct"


def test_telemetry_does_not_exist_before_5_4():
    conn, _ = ready((5, 2))
    with pytest.raises(BoltError) as e:
        conn.send(Telemetry(0))
    assert conn.take_output() == b""
    assert e.value.offset is None


def test_a_request_that_is_not_one_is_a_type_error():
    conn, _ = ready((5, 8))
    with pytest.raises(TypeError):
        conn.send({"query": "RETURN 1"})
    with pytest.raises(TypeError):
        conn.send(Run("q", parameters=[1, 2]))
    assert conn.state == "READY"
    assert conn.take_output() == b""


# ---------------------------------------------------------------------------------------
# Hostile server bytes: a clear error with an offset, the connection unusable afterwards
# ---------------------------------------------------------------------------------------


def _streaming() -> tuple[ClientConnection, Server]:
    conn, server = ready((5, 8))
    conn.send(Run("q"))
    conn.send(Pull(-1))
    sent(conn, server)
    return conn, server


def test_a_response_nobody_asked_for_is_refused_with_its_offset():
    conn, server = ready((5, 8))
    at = server.offset
    with pytest.raises(BoltError) as e:
        server.reply(conn, chunked(success()))
    assert (e.value.kind, e.value.offset) == ("unexpected_response", at)
    assert conn.state == "DEFUNCT"
    with pytest.raises(BoltError) as e:
        conn.receive(b"\x00\x00")
    assert e.value.kind == "defunct"


def test_an_unknown_message_signature_is_refused():
    conn, server = _streaming()
    ok = chunked(success(fields=["x"]))
    at = server.offset + len(ok)
    with pytest.raises(BoltError) as e:
        server.reply(conn, ok + chunked(Structure(b"\x55")))
    assert e.value.offset == at
    assert e.value.message_offset == 0
    [run] = conn.events()  # what came before the bad message is kept
    assert run.fields == ["x"]


def test_a_record_that_does_not_decode_keeps_the_rows_before_it():
    conn, server = _streaming()
    good = chunked(success(fields=["x"]), record(1), record(2))
    bad = b"\x00\x04\xb1\x71\x91\xc7\x00\x00"  # reserved marker C7 in the field list
    at = server.reply(conn, good + bad) + len(good)
    events = conn.events()
    assert events[1] == Records([[1], [2]])
    with pytest.raises(BoltError) as e:
        conn.events()
    assert e.value.kind == "reserved_marker"
    assert e.value.offset == at
    assert e.value.message_offset == 3
    assert isinstance(e.value.__cause__, boltcodec.DecodeError)
    assert conn.state == "DEFUNCT"
    with pytest.raises(BoltError):
        conn.send(Reset())
    with pytest.raises(BoltError):
        conn.receive(b"")


def test_a_record_that_does_not_decode_first_raises_at_once():
    conn, server = _streaming()
    server.reply(conn, chunked(success(fields=["x"])))
    conn.events()
    at = server.reply(conn, b"\x00\x05\xb1\x71\x91\x91\xc7\x00\x00")  # C7 one level down
    with pytest.raises(BoltError) as e:
        conn.events()
    assert (e.value.kind, e.value.offset, e.value.message_offset) == ("reserved_marker", at, 4)


def test_a_record_nested_a_million_levels_deep_is_an_error_not_a_crash():
    conn, server = _streaming()
    server.reply(conn, chunked(success(fields=["x"])))
    conn.events()
    body = b"\xb1\x71\x91" + b"\x91" * 1_000_000 + b"\x90"
    data = bytearray()
    for i in range(0, len(body), 65535):
        part = body[i : i + 65535]
        data += len(part).to_bytes(2, "big") + part
    data += b"\x00\x00"
    conn.receive(bytes(data))
    with pytest.raises(BoltError) as e:
        conn.events()
    assert e.value.kind == "limit_exceeded"
    assert conn.state == "DEFUNCT"


def test_a_record_answering_run_is_refused():
    conn, server = ready((5, 8))
    conn.send(Run("q"))
    sent(conn, server)
    with pytest.raises(BoltError) as e:
        server.reply(conn, chunked(record(1)))
    assert e.value.kind == "unexpected_response"


def test_a_huge_chunk_header_is_refused_without_allocating():
    conn, _ = _streaming()
    conn = ClientConnection(versions=[(5, 8)], max_message_size=1024)
    server = Server(versions=[(5, 8)])
    conn.receive(server.receive(conn.take_output())[0])
    conn.events()
    conn.send(Hello("x"))
    with pytest.raises(BoltError) as e:
        conn.receive(b"\xff\xff" * 40)
    assert e.value.kind == "message_too_large"


def test_random_garbage_never_crashes():
    rng = random.Random(17)
    errors = 0
    for _ in range(300):
        conn, _ = _streaming()
        body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        data = len(body).to_bytes(2, "big") + body + b"\x00\x00"  # one garbage message
        try:
            conn.receive(chunked(success(fields=["x"])) + data)
            conn.events()
            conn.events()
        except BoltError as e:
            errors += 1
            kind, offset = e.kind, e.offset
        else:
            continue
        assert isinstance(kind, str)
        assert offset is None or offset >= 0
        assert conn.state == "DEFUNCT"
    assert errors > 100


def test_mutated_server_streams_give_events_or_a_bolt_error_never_a_crash():
    good = chunked(
        success(fields=["a", "b"]),
        *[record(i, {"k": [i, str(i), 1.5, None, True]}, Structure(b"X", i)) for i in range(8)],
        success(has_more=False, bookmark="b"),
    )
    rng = random.Random(2026)
    outcomes = {"ok": 0, "error": 0}
    for _ in range(1000):
        data = bytearray(good)
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        conn, server = _streaming()
        cut = rng.randrange(len(data) + 1)
        try:
            for part in (data[:cut], data[cut:]):
                server.reply(conn, bytes(part))
                conn.events()
            conn.events()
            outcomes["ok"] += 1
        except BoltError as e:
            outcomes["error"] += 1
            kind = e.kind
        else:
            continue
        assert isinstance(kind, str)
        assert conn.state == "DEFUNCT"
        with pytest.raises(BoltError):
            conn.send(Reset())
    assert outcomes["error"] > 100
    assert outcomes["ok"] > 10


# ---------------------------------------------------------------------------------------
# WebSocket
# ---------------------------------------------------------------------------------------


def test_websocket_upgrade_and_frames_carry_a_whole_session():
    upgrade = ClientUpgrade("localhost:7687", bytes(range(16)))
    server_upgrade = ServerUpgrade()
    request = server_upgrade.receive(upgrade.request())
    assert request.target == "/"
    assert request.host == "localhost:7687"
    assert upgrade.receive(request.response) == len(request.response)

    client_ws, server_ws = WsStream.client(0x1234), WsStream.server()
    conn = ClientConnection(versions=[(5, 8)])
    server = Server(versions=[(5, 8)])

    def client_to_server() -> list:
        wire = client_ws.to_wire(conn.take_output())
        bolt, send = server_ws.from_wire(wire)
        assert send == b""
        reply, requests = server.receive(bolt)
        if reply:
            conn.receive(client_ws.from_wire(server_ws.to_wire(reply))[0])
        return requests

    while conn.version is None:
        client_to_server()
    client_to_server()
    conn.send(Hello("ws/1"))
    conn.send(Logon.none())
    conn.send(Run("RETURN 1"))
    conn.send(Pull(-1))
    assert [t for t, _ in client_to_server()] == [0x01, 0x6A, 0x10, 0x3F]
    reply = chunked(success(), success(), success(fields=["1"]), record(1), success())
    wire = server_ws.to_wire(reply)
    for i in range(len(wire)):  # frames split anywhere
        bolt, _ = client_ws.from_wire(wire[i : i + 1])
        conn.receive(bolt)
    assert [r for e in conn.events() if isinstance(e, Records) for r in e.rows] == [[1]]
    close = client_ws.close(1000, "bye")
    _, reply = server_ws.from_wire(close)
    client_ws.from_wire(reply)
    assert client_ws.is_closed
    assert client_ws.close_received == (1000, "")


def test_websocket_unmasked_client_frame_is_refused_with_offset():
    server_ws = WsStream.server()
    with pytest.raises(BoltError) as e:
        server_ws.from_wire(b"\x82\x01\x00")  # a client frame must be masked
    assert e.value.kind.startswith("ws_")
    assert e.value.offset == 1


def test_websocket_upgrade_rejects_a_bad_accept_key():
    upgrade = ClientUpgrade("localhost:7687", bytes(16))
    bad = (
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n"
    )
    with pytest.raises(BoltError) as e:
        upgrade.receive(bad)
    assert e.value.kind.startswith("upgrade_")
    assert e.value.offset is not None
    with pytest.raises(ValueError):
        ClientUpgrade("localhost", b"short")
