//! `ClientConnection::receive_with`: RECORDs handed to the caller undecoded (for a
//! binding that decodes them straight into host objects), in the same order and with the
//! same state rules as the decoded `Event::Record`s of `receive`, however the server's
//! bytes are split into reads; a callback error ends the connection at that message.

use bolt::connection::{
    ClientConnection, ConnectionConfig, ConnectionError, Event, ReceivedResponse, ServerConnection,
    ServerState,
};
use bolt::handshake::ServerConfig;
use bolt::message::{
    Hello, Logon, MessageError, Pull, Record, Request, Response, ResponseKind, Run, Success,
};
use bolt::BoltVersion;
use std::collections::VecDeque;

use packstream::{DecodeLimits, Value, ValueRef};

fn ready(config: ConnectionConfig) -> (ClientConnection, ServerConnection) {
    let mut client = ClientConnection::new(config);
    let mut server = ServerConnection::new(ServerConfig::default());
    server.receive(&client.take_output()).expect("handshake");
    client.receive(&server.take_output()).expect("handshake");
    server
        .receive(&client.take_output())
        .expect("manifest pick");
    assert_eq!(
        client.poll_event(),
        Some(Event::Negotiated(BoltVersion::V6_1))
    );
    client
        .send(&Request::Hello(Hello::new("t/1")))
        .expect("HELLO");
    client.send(&Request::Logon(Logon::none())).expect("LOGON");
    for _ in 0..2 {
        server
            .send(&Response::Success(Success::default()))
            .expect("SUCCESS");
    }
    client.receive(&server.take_output()).expect("logged in");
    while client.poll_event().is_some() {}
    (client, server)
}

/// Two queries pipelined (RUN, PULL all, RUN, PULL all), two records each: what the
/// server sends.
fn two_pulls(client: &mut ClientConnection, server: &mut ServerConnection) -> Vec<u8> {
    for _ in 0..2 {
        client.send(&Request::Run(Run::new("q"))).expect("RUN");
        client.send(&Request::Pull(Pull::all())).expect("PULL");
    }
    for batch in [[1, 2], [3, 4]] {
        server
            .send(&Response::Success(
                Success::default().with("fields", vec!["x", "y"]),
            ))
            .expect("RUN's SUCCESS");
        for i in batch {
            let record = Record::new(vec![ValueRef::Int(i), ValueRef::String("s")]);
            server.send(&Response::Record(record)).expect("RECORD");
        }
        server
            .send(&Response::Success(Success::default()))
            .expect("SUCCESS");
    }
    server.take_output()
}

/// One `receive_with` call: what the caller sees, in order (the events, each
/// `RecordsTaken { count }` replaced by that many `Event::Record`s cut from the rows the
/// callback decoded), the batch sizes, the stream offsets of the messages and the result.
/// `refuse` names a RECORD (by its first field) the callback fails on.
fn receive(
    client: &mut ClientConnection,
    bytes: &[u8],
    refuse: Option<i64>,
    offsets: &mut Vec<u64>,
) -> (Vec<Event>, Vec<usize>, Result<(), ConnectionError>) {
    let mut rows = VecDeque::new();
    let result = client.receive_with(bytes, &mut |m: &ReceivedResponse<'_>| {
        offsets.push(m.stream_offset);
        assert_eq!(m.version, BoltVersion::V6_1);
        if m.kind != ResponseKind::Record {
            return Ok(());
        }
        assert_eq!(m.bytes.get(..2), Some(&[0xB1, 0x71][..]));
        assert_eq!(m.bytes.len() - m.body().len(), 2);
        let value = Value::decode_exact_with(m.body(), &m.options).map_err(|e| e.shifted(2))?;
        let Value::List(ref fields) = value else {
            panic!("not a list")
        };
        if refuse.is_some() && fields.first() == refuse.map(Value::Int).as_ref() {
            return Err(MessageError::NotAStructure {
                offset: 2,
                found: "a refused RECORD",
            });
        }
        rows.push_back(fields.clone());
        Ok(())
    });
    let mut seen = Vec::new();
    let mut batches = Vec::new();
    while let Some(event) = client.poll_event() {
        match event {
            Event::RecordsTaken { count } => {
                assert!(count > 0);
                batches.push(count);
                seen.extend(rows.drain(..count).map(Event::Record));
            }
            Event::Record(_) => panic!("receive_with queues no RECORD events"),
            other => seen.push(other),
        }
    }
    assert!(rows.is_empty(), "rows no event took: {rows:?}");
    (seen, batches, result)
}

#[test]
fn receive_with_gives_records_in_order_between_the_summaries_of_their_pulls_at_any_split() {
    let (mut plain, mut plain_server) = ready(ConnectionConfig::default());
    let bytes = two_pulls(&mut plain, &mut plain_server);
    plain.receive(&bytes).expect("plain");
    let expected: Vec<Event> = std::iter::from_fn(|| plain.poll_event()).collect();
    assert_eq!(expected.len(), 8);
    let mut whole_offsets = Vec::new();
    for cut in 0..=bytes.len() {
        let (mut c, mut s) = ready(ConnectionConfig::default());
        assert_eq!(two_pulls(&mut c, &mut s), bytes);
        let mut offsets = Vec::new();
        let (mut got, mut batches, first) = receive(&mut c, &bytes[..cut], None, &mut offsets);
        first.expect("first part");
        let (rest, more, second) = receive(&mut c, &bytes[cut..], None, &mut offsets);
        second.expect("second part");
        got.extend(rest);
        batches.extend(more);
        // Each PULL's records are one batch unless the cut falls between two of them.
        assert!(batches.len() == 2 || batches.len() == 3, "cut at {cut}");
        assert_eq!(batches.iter().sum::<usize>(), 4, "cut at {cut}");
        assert_eq!(got, expected, "cut at {cut}");
        assert_eq!(c.state(), ServerState::Ready, "cut at {cut}");
        assert_eq!(c.pending_requests(), 0);
        if cut == 0 {
            whole_offsets = offsets;
        } else {
            assert_eq!(offsets, whole_offsets, "cut at {cut}");
        }
    }
    assert_eq!(whole_offsets.len(), 8);
    assert!(whole_offsets.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn a_record_the_callback_refuses_ends_the_connection_at_it_keeping_what_came_before() {
    let (mut c, mut s) = ready(ConnectionConfig::default());
    let bytes = two_pulls(&mut c, &mut s);
    let mut all = Vec::new();
    let (_, batches, ok) = receive(&mut c, &bytes, None, &mut all);
    ok.expect("whole");
    assert_eq!(batches, [2, 2]);
    // Messages: RUN's SUCCESS, 1, 2, PULL's SUCCESS, RUN's SUCCESS, 3 (refused), 4, ….
    let refused_at = all[5];
    for cut in 0..=bytes.len() {
        let (mut c, mut s) = ready(ConnectionConfig::default());
        let _ = two_pulls(&mut c, &mut s);
        let mut offsets = Vec::new();
        let (mut got, _, first) = receive(&mut c, &bytes[..cut], Some(3), &mut offsets);
        let err = match first {
            Err(e) => e,
            Ok(()) => {
                let (rest, _, second) = receive(&mut c, &bytes[cut..], Some(3), &mut offsets);
                got.extend(rest);
                second.expect_err("the refused RECORD")
            }
        };
        assert!(
            matches!(
                err,
                ConnectionError::Message {
                    source: MessageError::NotAStructure { offset: 2, .. },
                    ..
                }
            ),
            "cut at {cut}: {err:?}"
        );
        assert_eq!(err.offset(), Some(refused_at), "cut at {cut}");
        // Everything before the refused RECORD was delivered, in order; nothing after.
        let names: Vec<String> = got
            .iter()
            .map(|e| match e {
                Event::Record(f) => format!("{:?}", f[0]),
                Event::Success { request, .. } => request.name().to_owned(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            names,
            ["RUN", "Int(1)", "Int(2)", "PULL", "RUN"],
            "cut at {cut}"
        );
        assert_eq!(offsets.last(), Some(&refused_at), "cut at {cut}");
        assert_eq!(c.state(), ServerState::Defunct);
        assert!(matches!(
            c.send(&Request::Reset),
            Err(ConnectionError::Defunct)
        ));
        assert!(matches!(
            c.receive_with(&[0, 0], &mut |_| Ok(())),
            Err(ConnectionError::Defunct)
        ));
        assert_eq!(c.poll_event(), None);
    }
}

#[test]
fn receive_with_stays_in_order_over_many_receives_with_the_versions_options() {
    let config = ConnectionConfig {
        decode_limits: DecodeLimits {
            max_depth: 7,
            ..DecodeLimits::default()
        },
        ..ConnectionConfig::default()
    };
    let (mut c, mut s) = ready(config);
    for round in 0..3 {
        let bytes = two_pulls(&mut c, &mut s);
        let mut options = Vec::new();
        let result = c.receive_with(&bytes, &mut |m| {
            options.push(m.options);
            Ok(())
        });
        result.expect("receive");
        assert_eq!(options.len(), 8, "round {round}");
        // 6.1: UUIDs on; the configured limits.
        assert!(options.iter().all(|o| o.uuid && o.limits.max_depth == 7));
        let events: Vec<Event> = std::iter::from_fn(|| c.poll_event()).collect();
        let taken = Event::RecordsTaken { count: 2 };
        assert_eq!(events.len(), 6, "round {round}: {events:?}");
        assert_eq!([&events[1], &events[4]], [&taken, &taken], "round {round}");
    }
}

#[test]
fn records_taken_counts_the_records_of_several_receives_not_polled_in_between() {
    let (mut c, mut s) = ready(ConnectionConfig::default());
    let bytes = two_pulls(&mut c, &mut s);
    // RUN's SUCCESS and the first record, then the second one, then the rest.
    let mut ends = Vec::new();
    c.receive_with(&bytes, &mut |m| {
        ends.push(m.stream_offset);
        Ok(())
    })
    .expect("whole");
    let (mut c, mut s) = ready(ConnectionConfig::default());
    let _ = two_pulls(&mut c, &mut s);
    let base = ends[0];
    let cuts = [ends[2] - base, ends[3] - base];
    let parts = [
        &bytes[..cuts[0] as usize],
        &bytes[cuts[0] as usize..cuts[1] as usize],
        &bytes[cuts[1] as usize..],
    ];
    for part in parts {
        c.receive_with(part, &mut |_| Ok(())).expect("part");
    }
    let events: Vec<Event> = std::iter::from_fn(|| c.poll_event()).collect();
    assert_eq!(events.len(), 6, "{events:?}");
    assert_eq!(events[1], Event::RecordsTaken { count: 2 });
    assert_eq!(events[4], Event::RecordsTaken { count: 2 });
}

#[test]
fn body_is_the_summary_metadata_map() {
    let (mut c, mut s) = ready(ConnectionConfig::default());
    c.send(&Request::Run(Run::new("q"))).expect("RUN");
    s.send(&Response::Success(
        Success::default().with("fields", vec!["x"]),
    ))
    .expect("SUCCESS");
    let mut bodies = Vec::new();
    c.receive_with(&s.take_output(), &mut |m| {
        bodies.push(Value::decode_exact_with(m.body(), &m.options).expect("metadata"));
        Ok(())
    })
    .expect("receive");
    let Some(Event::Success { metadata, .. }) = c.poll_event() else {
        panic!("SUCCESS")
    };
    assert_eq!(bodies, [metadata]);
}
