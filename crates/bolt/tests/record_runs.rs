//! Record runs: a client connection that keeps RECORDs as message bytes for a binding to
//! decode straight into host objects, in the same order and with the same state rules as
//! the decoded [`Event::Record`]s.

use bolt::connection::{
    ClientConnection, ConnectionConfig, ConnectionError, Event, Polled, ServerConnection,
    ServerState,
};
use bolt::handshake::ServerConfig;
use bolt::message::{Hello, Logon, Pull, Record, Request, Response, Run, Success};
use bolt::BoltVersion;
use packstream::{Value, ValueRef};

fn ready(runs: bool) -> (ClientConnection, ServerConnection) {
    let mut client = ClientConnection::new(ConnectionConfig::default()).with_record_runs(runs);
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

/// What one side saw, as text: records as their fields, summaries by request.
fn seen(client: &mut ClientConnection) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(polled) = client.poll() {
        match polled {
            Polled::Event(Event::Record(fields)) => out.push(format!("{fields:?}")),
            Polled::Event(Event::Success { request, .. }) => out.push(format!("{request:?}")),
            Polled::Event(other) => out.push(format!("{other:?}")),
            Polled::Records(run) => {
                out.push(format!("run of {}", run.len()));
                for record in run.iter() {
                    let value = Value::decode_exact(record.data()).expect("fields");
                    let Value::List(ref fields) = value else {
                        panic!("not a list")
                    };
                    out.push(format!("{fields:?}"));
                    assert_eq!(record.message().get(1), Some(&0x71));
                    assert_eq!(record.data_offset(), 2);
                }
            }
        }
    }
    out
}

#[test]
fn record_runs_arrive_in_order_between_the_summaries_of_their_pulls() {
    let (mut plain, mut plain_server) = ready(false);
    let (mut runs, mut runs_server) = ready(true);
    let bytes = two_pulls(&mut plain, &mut plain_server);
    assert_eq!(bytes, two_pulls(&mut runs, &mut runs_server));
    // Split every way into two reads: the same items come out.
    let expected: Vec<String> = {
        plain.receive(&bytes).expect("plain");
        seen(&mut plain)
    };
    assert_eq!(expected.len(), 8);
    for cut in 0..=bytes.len() {
        let (mut c, mut s) = ready(true);
        let _ = two_pulls(&mut c, &mut s);
        c.receive(&bytes[..cut]).expect("first part");
        let mut got = seen(&mut c);
        c.receive(&bytes[cut..]).expect("second part");
        got.extend(seen(&mut c));
        let got: Vec<String> = got.into_iter().filter(|s| !s.starts_with("run")).collect();
        assert_eq!(got, expected, "cut at {cut}");
        assert_eq!(c.state(), ServerState::Ready);
    }
    // Without a cut, each PULL's records are one run.
    runs.receive(&bytes).expect("runs");
    let items = seen(&mut runs);
    assert_eq!(
        items.iter().filter(|s| *s == "run of 2").count(),
        2,
        "{items:?}"
    );
}

#[test]
fn poll_event_stops_at_a_run_of_records() {
    let (mut c, mut s) = ready(true);
    let bytes = two_pulls(&mut c, &mut s);
    c.receive(&bytes).expect("receive");
    assert!(matches!(c.poll_event(), Some(Event::Success { .. }))); // RUN
    assert_eq!(c.poll_event(), None); // the run is next
    assert!(matches!(c.poll(), Some(Polled::Records(run)) if run.len() == 2));
    assert!(matches!(c.poll_event(), Some(Event::Success { .. }))); // the PULL
}

#[test]
fn abort_makes_the_connection_defunct_and_keeps_the_queued_events() {
    let (mut c, mut s) = ready(true);
    let bytes = two_pulls(&mut c, &mut s);
    c.receive(&bytes).expect("receive");
    c.abort();
    assert_eq!(c.state(), ServerState::Defunct);
    assert!(matches!(
        c.send(&Request::Reset),
        Err(ConnectionError::Defunct)
    ));
    assert!(matches!(c.receive(&[0, 0]), Err(ConnectionError::Defunct)));
    assert_eq!(seen(&mut c).len(), 10);
}

#[test]
fn record_runs_stay_in_order_over_many_receives_and_use_the_versions_options() {
    let (mut c, mut s) = ready(true);
    for _ in 0..3 {
        let bytes = two_pulls(&mut c, &mut s);
        c.receive(&bytes).expect("receive");
        assert_eq!(seen(&mut c).len(), 10);
    }
    assert_eq!(c.decode_options().map(|o| o.uuid), Some(true)); // 6.1
}
