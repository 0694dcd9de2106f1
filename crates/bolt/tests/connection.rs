//! The sans-IO client connection against the scripted server peer: handshake in every
//! version, pipelining, the state machine refusing illegal sequences before they are
//! sent, failures, IGNORED and RESET, back-pressure through PULL {n}, transactions, and
//! any split of the server's bytes into reads.

use bolt::connection::{
    ClientConnection, ConnectionConfig, ConnectionError, Event, ServerConnection, ServerState,
};
use bolt::message::{
    Begin, Failure, Hello, Logon, Pull, Record, Request, RequestKind, Response, Run, Success,
};
use bolt::BoltVersion;
use packstream::{Value, ValueRef};
use proptest::prelude::*;

mod common;

/// A connected client/server pair that agreed on `version` (offered alone).
fn pair(version: BoltVersion) -> (ClientConnection, ServerConnection) {
    common::negotiated(version, ConnectionConfig::default())
}

/// Logs in (HELLO, plus LOGON from 5.1) and answers with SUCCESS.
fn login(client: &mut ClientConnection, server: &mut ServerConnection) {
    let v = client.version().expect("negotiated");
    if v.hello_carries_auth() {
        let auth = bolt::message::Dict::default()
            .with("scheme", "basic")
            .with("principal", "neo4j")
            .with("credentials", "pw");
        client
            .send(&Request::Hello(Hello::new("test/1").with_auth(auth)))
            .expect("HELLO");
    } else {
        client
            .send(&Request::Hello(Hello::new("test/1")))
            .expect("HELLO");
    }
    if v.has_logon() {
        client
            .send(&Request::Logon(Logon::basic("neo4j", "pw")))
            .expect("LOGON");
    }
    deliver(client, server);
    while let Some(_req) = server.poll_request() {
        server
            .send(&Response::Success(Success::default()))
            .expect("SUCCESS");
    }
    client
        .receive(&server.take_output())
        .expect("login responses");
    while client.poll_event().is_some() {}
    assert_eq!(client.state(), ServerState::Ready);
}

fn deliver(client: &mut ClientConnection, server: &mut ServerConnection) {
    server
        .receive(&client.take_output())
        .expect("server receives");
}

fn events(client: &mut ClientConnection) -> Vec<Event> {
    std::iter::from_fn(|| client.poll_event()).collect()
}

fn kinds(server: &mut ServerConnection) -> Vec<RequestKind> {
    std::iter::from_fn(|| server.poll_request())
        .map(|r| r.kind())
        .collect()
}

fn record(values: &[i64]) -> Response<'static> {
    Response::Record(Record::new(
        values.iter().map(|v| ValueRef::Int(*v)).collect(),
    ))
}

/// A logged-in client/server pair that agreed on `version`, in READY.
fn ready(version: BoltVersion) -> (ClientConnection, ServerConnection) {
    let (mut client, mut server) = pair(version);
    login(&mut client, &mut server);
    (client, server)
}

/// The client pipelines RUN `query` and `pull`; the server reads exactly those two.
fn run_and_pull(
    client: &mut ClientConnection,
    server: &mut ServerConnection,
    query: &str,
    pull: Pull<'_>,
) {
    client.send(&Request::Run(Run::new(query))).expect("RUN");
    client.send(&Request::Pull(pull)).expect("PULL");
    deliver(client, server);
    assert_eq!(kinds(server), [RequestKind::Run, RequestKind::Pull]);
}

/// The server's answer to a RUN and its PULL: the RUN's SUCCESS `{fields: ["x"]}`, one
/// RECORD per row, then the PULL's `summary`; returns the bytes it wrote.
fn answer_rows<R: AsRef<[i64]>>(
    server: &mut ServerConnection,
    rows: impl IntoIterator<Item = R>,
    summary: Success<'_>,
) -> Vec<u8> {
    server
        .send(&Response::Success(
            Success::default().with("fields", vec!["x"]),
        ))
        .expect("RUN's SUCCESS");
    for row in rows {
        server.send(&record(row.as_ref())).expect("RECORD");
    }
    server
        .send(&Response::Success(summary))
        .expect("PULL's summary");
    server.take_output()
}

#[test]
fn handshake_and_login_in_every_supported_version() {
    for &v in BoltVersion::SUPPORTED {
        let (mut client, _server) = ready(v);
        client
            .send(&Request::Run(Run::new("RETURN 1")))
            .expect("RUN");
        assert!(client.can_send(if v.has_qid() {
            RequestKind::Pull
        } else {
            RequestKind::PullAll
        }));
    }
}

#[test]
fn requests_before_the_handshake_are_refused() {
    let mut client = ClientConnection::new(ConnectionConfig::default());
    let err = client
        .send(&Request::Hello(Hello::new("x")))
        .expect_err("not negotiated");
    assert!(matches!(err, ConnectionError::NotNegotiated("HELLO")));
    assert_eq!(client.output().len(), 20, "only the handshake is queued");
}

#[test]
fn illegal_sequences_are_refused_before_anything_is_written() {
    let (mut client, mut server) = pair(BoltVersion::V5_8);
    // LOGON before HELLO.
    let err = client
        .send(&Request::Logon(Logon::basic("a", "b")))
        .expect_err("LOGON first");
    assert!(matches!(
        err,
        ConnectionError::IllegalRequest {
            request: "LOGON",
            state: ServerState::Negotiation,
            ..
        }
    ));
    login(&mut client, &mut server);
    let before = client.output().len();
    for bad in [
        Request::Pull(Pull::new(10)),
        Request::Commit,
        Request::Rollback,
        Request::Hello(Hello::new("again")),
        Request::Logon(Logon::basic("a", "b")),
    ] {
        let err = client.send(&bad).expect_err(bad.name());
        assert!(
            matches!(
                err,
                ConnectionError::IllegalRequest {
                    state: ServerState::Ready,
                    ..
                }
            ),
            "{err}"
        );
    }
    assert_eq!(
        client.output().len(),
        before,
        "nothing written for refused requests"
    );
    // An auto-commit result allows no second RUN until it is consumed...
    client
        .send(&Request::Run(Run::new("RETURN 1")))
        .expect("RUN");
    let err = client
        .send(&Request::Run(Run::new("RETURN 2")))
        .expect_err("RUN while streaming");
    assert!(matches!(
        err,
        ConnectionError::IllegalRequest {
            state: ServerState::Streaming,
            ..
        }
    ));
    // ...and a PULL of n records may leave it open, so RUN is still refused after it.
    client.send(&Request::Pull(Pull::new(10))).expect("PULL");
    assert!(client.send(&Request::Run(Run::new("RETURN 2"))).is_err());
    // A further PULL is refused too: the result may be finished by then.
    assert!(!client.can_send(RequestKind::Pull));
    // PULL of everything ends the result: RUN may follow in the same pipeline.
    let (mut client, _server) = ready(BoltVersion::V5_8);
    client
        .send(&Request::Run(Run::new("RETURN 1")))
        .expect("RUN");
    client.send(&Request::Pull(Pull::all())).expect("PULL all");
    client
        .send(&Request::Run(Run::new("RETURN 2")))
        .expect("RUN after PULL all");
}

#[test]
fn pipelined_query_streams_records_and_returns_to_ready() {
    let (mut client, mut server) = ready(BoltVersion::V6_1);
    let query = "UNWIND range(1, 3) AS x RETURN x";
    run_and_pull(&mut client, &mut server, query, Pull::new(1000));
    let bytes = answer_rows(
        &mut server,
        (1..=3).map(|i| [i]),
        Success::default().with("type", "r"),
    );
    client.receive(&bytes).expect("responses");
    let ev = events(&mut client);
    assert_eq!(ev.len(), 5);
    assert!(
        matches!(&ev[0], Event::Success { request: RequestKind::Run, metadata } if metadata.get("fields").is_some())
    );
    assert_eq!(
        ev[1..4],
        [1, 2, 3].map(|i| Event::Record(vec![Value::Int(i)]))
    );
    assert!(matches!(
        &ev[4],
        Event::Success {
            request: RequestKind::Pull,
            ..
        }
    ));
    assert_eq!(client.state(), ServerState::Ready);
    assert_eq!(client.pending_requests(), 0);
}

#[test]
fn pull_n_gives_back_pressure_batch_by_batch() {
    let (mut client, mut server) = ready(BoltVersion::V5_0);
    let query = "UNWIND range(1, 5) AS x RETURN x";
    run_and_pull(&mut client, &mut server, query, Pull::new(2));
    let has_more = Success::default().with("has_more", true);
    let bytes = answer_rows(&mut server, [[1], [2]], has_more);
    client.receive(&bytes).expect("batch 1");
    assert_eq!(events(&mut client).len(), 4);
    assert_eq!(
        client.state(),
        ServerState::Streaming,
        "has_more keeps the result open"
    );
    assert!(client.send(&Request::Run(Run::new("RETURN 1"))).is_err());
    client
        .send(&Request::Pull(Pull::new(2)))
        .expect("next batch");
    deliver(&mut client, &mut server);
    assert_eq!(kinds(&mut server), [RequestKind::Pull]);
    server.send(&record(&[3])).expect("send");
    server
        .send(&Response::Success(Success::default()))
        .expect("send");
    client.receive(&server.take_output()).expect("batch 2");
    assert_eq!(events(&mut client).len(), 2);
    assert_eq!(client.state(), ServerState::Ready);
}

#[test]
fn failure_then_ignored_then_reset() {
    let (mut client, mut server) = ready(BoltVersion::V5_8);
    run_and_pull(&mut client, &mut server, "RETRUN 1", Pull::new(1000));
    let failure = Failure::new(
        BoltVersion::V5_8,
        "Neo.ClientError.Statement.SyntaxError",
        "Invalid input 'RETRUN'",
    );
    server.send(&Response::Failure(failure)).expect("send");
    server.send(&Response::Ignored).expect("send");
    client.receive(&server.take_output()).expect("responses");
    let ev = events(&mut client);
    assert!(
        matches!(&ev[0], Event::Failure { request: RequestKind::Run, code: Some(c), .. } if c == "Neo.ClientError.Statement.SyntaxError")
    );
    assert_eq!(
        ev[1],
        Event::Ignored {
            request: RequestKind::Pull
        }
    );
    assert_eq!(client.state(), ServerState::Failed);
    // In FAILED the server ignores requests; RESET clears it.
    client.send(&Request::Reset).expect("RESET");
    assert_eq!(client.state(), ServerState::Interrupted);
    deliver(&mut client, &mut server);
    assert_eq!(kinds(&mut server), [RequestKind::Reset]);
    server
        .send(&Response::Success(Success::default()))
        .expect("send");
    client.receive(&server.take_output()).expect("reset");
    assert_eq!(
        events(&mut client),
        [Event::Success {
            request: RequestKind::Reset,
            metadata: Value::Map(vec![])
        }]
    );
    assert_eq!(client.state(), ServerState::Ready);
}

#[test]
fn failed_login_makes_the_connection_defunct() {
    let (mut client, mut server) = pair(BoltVersion::V5_8);
    client
        .send(&Request::Hello(Hello::new("x")))
        .expect("HELLO");
    client
        .send(&Request::Logon(Logon::basic("neo4j", "wrong")))
        .expect("LOGON");
    deliver(&mut client, &mut server);
    kinds(&mut server);
    server
        .send(&Response::Success(Success::default()))
        .expect("send");
    server
        .send(&Response::Failure(Failure::new(
            BoltVersion::V5_8,
            "Neo.ClientError.Security.Unauthorized",
            "bad credentials",
        )))
        .expect("send");
    client.receive(&server.take_output()).expect("responses");
    assert_eq!(client.state(), ServerState::Defunct);
    assert!(!client.can_send(RequestKind::Run));
    assert!(client.send(&Request::Reset).is_err());
}

#[test]
fn explicit_transaction_with_two_open_results() {
    let (mut client, mut server) = ready(BoltVersion::V4_4);
    client.send(&Request::Begin(Begin::new())).expect("BEGIN");
    client
        .send(&Request::Run(Run::new("RETURN 1")))
        .expect("RUN 1");
    client
        .send(&Request::Run(Run::new("RETURN 2")))
        .expect("RUN 2 (4.0+: a second result)");
    client
        .send(&Request::Pull(Pull::all().with_qid(0)))
        .expect("PULL qid 0");
    client
        .send(&Request::Pull(Pull::all().with_qid(1)))
        .expect("PULL qid 1");
    client
        .send(&Request::Commit)
        .expect("COMMIT once both results are consumed");
    deliver(&mut client, &mut server);
    assert_eq!(kinds(&mut server).len(), 6);
    server
        .send(&Response::Success(Success::default()))
        .expect("send");
    server
        .send(&Response::Success(Success::default().with("qid", 0)))
        .expect("send");
    server
        .send(&Response::Success(Success::default().with("qid", 1)))
        .expect("send");
    server.send(&record(&[1])).expect("send");
    server
        .send(&Response::Success(Success::default()))
        .expect("send");
    client.receive(&server.take_output()).expect("part 1");
    assert_eq!(client.state(), ServerState::TxStreaming);
    server.send(&record(&[2])).expect("send");
    server
        .send(&Response::Success(Success::default()))
        .expect("send");
    server
        .send(&Response::Success(
            Success::default().with("bookmark", "bm"),
        ))
        .expect("send");
    client.receive(&server.take_output()).expect("part 2");
    assert_eq!(events(&mut client).len(), 8);
    assert_eq!(client.state(), ServerState::Ready);
    // Bolt 3 has no second result inside a transaction.
    let (mut c3, _s3) = ready(BoltVersion::V3_0);
    c3.send(&Request::Begin(Begin::new())).expect("BEGIN");
    c3.send(&Request::Run(Run::new("RETURN 1"))).expect("RUN");
    assert!(c3.send(&Request::Run(Run::new("RETURN 2"))).is_err());
}

#[test]
fn responses_nobody_asked_for_are_protocol_errors() {
    let (mut client, mut server) = ready(BoltVersion::V5_8);
    server
        .send(&Response::Success(Success::default()))
        .expect("send");
    let err = client
        .receive(&server.take_output())
        .expect_err("unsolicited");
    assert!(
        matches!(
            err,
            ConnectionError::UnexpectedResponse {
                response: "SUCCESS",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(client.state(), ServerState::Defunct);
    // A RECORD answering a RUN.
    let (mut client, mut server) = ready(BoltVersion::V5_8);
    client
        .send(&Request::Run(Run::new("RETURN 1")))
        .expect("RUN");
    server.send(&record(&[1])).expect("send");
    assert!(client.receive(&server.take_output()).is_err());
}

#[test]
fn goodbye_ends_the_connection() {
    let (mut client, mut server) = ready(BoltVersion::V5_8);
    client.send(&Request::Goodbye).expect("GOODBYE");
    assert_eq!(client.state(), ServerState::Defunct);
    assert!(client.send(&Request::Run(Run::new("RETURN 1"))).is_err());
    deliver(&mut client, &mut server);
    assert_eq!(kinds(&mut server), [RequestKind::Goodbye]);
}

#[test]
fn garbage_from_the_server_is_an_error_not_a_panic() {
    let mut client = ClientConnection::new(ConnectionConfig::default());
    let err = client
        .receive(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        .expect_err("not bolt");
    assert!(matches!(err, ConnectionError::Handshake(_)), "{err}");
    assert_eq!(client.state(), ServerState::Defunct);
}

proptest! {
    /// Whatever the split of the server's bytes into reads, the events are the same.
    #[test]
    fn any_read_split_gives_the_same_events(cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12)) {
        let (mut client, mut server) = ready(BoltVersion::V5_8);
        run_and_pull(&mut client, &mut server, "RETURN x", Pull::all());
        let rows = (0..20).map(|i| [i, i * 1000, -i]);
        let bytes = answer_rows(&mut server, rows, Success::default());
        let mut at: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        at.push(0);
        at.push(bytes.len());
        at.sort_unstable();
        for w in at.windows(2) {
            client.receive(&bytes[w[0]..w[1]]).expect("chunked receive");
        }
        let ev = events(&mut client);
        prop_assert_eq!(ev.len(), 22);
        prop_assert_eq!(&ev[21], &Event::Success { request: RequestKind::Pull, metadata: Value::Map(vec![]) });
        prop_assert_eq!(client.state(), ServerState::Ready);
    }
}

/// Regression: GOODBYE sent while requests were still pending did not stick; their
/// summaries moved the state back to READY and requests were accepted after GOODBYE.
#[test]
fn goodbye_with_pending_requests_stays_defunct() {
    let (mut client, mut server) = pair(BoltVersion::V5_8);
    client
        .send(&Request::Hello(Hello::new("x")))
        .expect("HELLO");
    client
        .send(&Request::Logon(Logon::basic("u", "p")))
        .expect("LOGON");
    client.send(&Request::Goodbye).expect("GOODBYE");
    assert_eq!(client.state(), ServerState::Defunct);
    deliver(&mut client, &mut server);
    assert_eq!(
        kinds(&mut server),
        [RequestKind::Hello, RequestKind::Logon, RequestKind::Goodbye]
    );
    server
        .send(&Response::Success(Success::default()))
        .expect("send");
    server
        .send(&Response::Success(Success::default()))
        .expect("send");
    // The summaries owed for HELLO and LOGON are still delivered...
    client
        .receive(&server.take_output())
        .expect("owed summaries");
    assert_eq!(events(&mut client).len(), 2);
    // ...but the connection stays finished.
    assert_eq!(client.state(), ServerState::Defunct);
    assert!(matches!(
        client.send(&Request::Run(Run::new("RETURN 1"))),
        Err(ConnectionError::Defunct)
    ));
    assert!(matches!(
        client.receive(&[0, 0]),
        Err(ConnectionError::Defunct)
    ));
}

/// Regression: after a failed HELLO/LOGON the connection reported IllegalRequest instead
/// of the documented ConnectionError::Defunct.
#[test]
fn requests_after_a_failed_login_report_defunct() {
    let (mut client, mut server) = pair(BoltVersion::V4_4);
    client
        .send(&Request::Hello(Hello::new("x")))
        .expect("HELLO");
    deliver(&mut client, &mut server);
    kinds(&mut server);
    server
        .send(&Response::Failure(Failure::new(
            BoltVersion::V4_4,
            "Neo.ClientError.Security.Unauthorized",
            "no",
        )))
        .expect("send");
    client.receive(&server.take_output()).expect("failure");
    assert_eq!(client.state(), ServerState::Defunct);
    assert!(matches!(
        client.send(&Request::Reset),
        Err(ConnectionError::Defunct)
    ));
}

/// `receive_with` hands every response over in stream order, queues the summaries'
/// events as `receive` does and, for the RECORDs, how many came where; a callback error fails the receive at
/// the message's stream offset and leaves the connection defunct.
#[test]
fn receive_with_hands_records_to_the_caller_and_keeps_the_state_rules() {
    use bolt::connection::ReceivedResponse;
    use bolt::message::{MessageError, ResponseKind};
    let (mut client, mut server) = ready(BoltVersion::V5_8);
    run_and_pull(&mut client, &mut server, "RETURN 1", Pull::new(2));
    let has_more = Success::default().with("has_more", true);
    let bytes = answer_rows(&mut server, [[1], [2]], has_more);
    let mut seen: Vec<(ResponseKind, Vec<u8>, u64)> = Vec::new();
    let mut keep = |m: &ReceivedResponse<'_>| -> Result<(), MessageError> {
        assert_eq!(m.version, BoltVersion::V5_8);
        seen.push((m.kind, m.bytes.to_vec(), m.stream_offset));
        Ok(())
    };
    client.receive_with(&bytes, &mut keep).expect("responses");
    let kinds_seen: Vec<ResponseKind> = seen.iter().map(|s| s.0).collect();
    assert_eq!(
        kinds_seen,
        [
            ResponseKind::Success,
            ResponseKind::Record,
            ResponseKind::Record,
            ResponseKind::Success
        ]
    );
    assert_eq!(seen[1].1, [0xB1, 0x71, 0x91, 0x01]);
    assert!(seen.windows(2).all(|w| w[0].2 < w[1].2));
    let ev = events(&mut client);
    assert_eq!(ev.len(), 3, "{ev:?}");
    assert!(matches!(ev[0], Event::Success { .. }));
    assert_eq!(ev[1], Event::RecordsTaken { count: 2 });
    assert!(matches!(ev[2], Event::Success { .. }));
    // has_more: the result is still open, so only PULL/DISCARD/RESET may follow.
    assert_eq!(client.state(), ServerState::Streaming);
    assert!(!client.can_send(RequestKind::Run));

    // The caller refuses the next RECORD: the receive fails at its offset, defunct after.
    client.send(&Request::Pull(Pull::new(-1))).expect("PULL");
    deliver(&mut client, &mut server);
    let _ = kinds(&mut server);
    server.send(&record(&[3])).expect("send");
    server
        .send(&Response::Success(Success::default()))
        .expect("send");
    let bytes = server.take_output();
    let err = client
        .receive_with(&bytes, &mut |m| {
            if m.kind == ResponseKind::Record {
                Err(MessageError::NotAStructure {
                    offset: 0,
                    found: "test",
                })
            } else {
                Ok(())
            }
        })
        .expect_err("the callback's error");
    assert!(matches!(err, ConnectionError::Message { .. }), "{err:?}");
    // The RECORD follows the last summary: its header, bytes and end marker.
    let last = seen.last().expect("four messages");
    assert_eq!(err.offset(), Some(last.2 + 2 + last.1.len() as u64 + 2));
    assert_eq!(client.state(), ServerState::Defunct);
    assert!(matches!(client.receive(&[]), Err(ConnectionError::Defunct)));
}
