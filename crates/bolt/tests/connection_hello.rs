//! What the client connection adds to a HELLO by itself, and how it follows the 4.4
//! `utc` patch: servers from 5.3 expect `bolt_agent`, and on 4.3/4.4 DateTimes switch
//! to the UTC structures once the server accepted `patch_bolt: ["utc"]`.

use bolt::connection::{ConnectionConfig, Event};
use bolt::message::{BoltAgent, Hello, Request, Response, Success};
use bolt::BoltVersion;

mod common;

/// Sends `hello` and returns the HELLO the server received, as (bolt_agent product,
/// platform present, patch_bolt).
fn sent_hello(
    version: BoltVersion,
    config: ConnectionConfig,
    hello: Hello<'_>,
) -> (Option<String>, bool, Option<Vec<String>>) {
    let (mut client, mut server) = common::negotiated(version, config);
    client.send(&Request::Hello(hello)).expect("HELLO");
    server
        .receive(&client.take_output())
        .expect("HELLO arrives");
    let received = server.poll_request().expect("one request");
    let Request::Hello(h) = received.decode(version).expect("a HELLO") else {
        panic!("not a HELLO");
    };
    let agent = h.bolt_agent();
    (
        agent.map(|a| a.product.to_owned()),
        agent.is_some_and(|a| a.platform.is_some() && a.language == Some("Rust")),
        h.patch_bolt()
            .map(|p| p.into_iter().map(str::to_owned).collect()),
    )
}

#[test]
fn hello_without_bolt_agent_gets_one_from_5_3() {
    let ours = concat!("boltcodec/", env!("CARGO_PKG_VERSION"));
    for (v, expected) in [
        (BoltVersion::new(5, 2), None),
        (BoltVersion::new(5, 3), Some(ours)),
        (BoltVersion::new(5, 8), Some(ours)),
        (BoltVersion::new(6, 1), Some(ours)),
    ] {
        let (agent, details, _) = sent_hello(v, ConnectionConfig::default(), Hello::new("app/1"));
        assert_eq!(agent.as_deref(), expected, "{v}");
        assert_eq!(details, expected.is_some(), "{v}: platform and language");
    }
    // The caller's own agent is kept; a configured product replaces the default one;
    // `None` sends the HELLO as it is.
    let v = BoltVersion::new(5, 4);
    let own = Hello::new("app/1").with_bolt_agent(BoltAgent::new("mine/2"));
    let (agent, _, _) = sent_hello(v, ConnectionConfig::default(), own);
    assert_eq!(agent.as_deref(), Some("mine/2"));
    let named = ConnectionConfig {
        bolt_agent: Some("driver-x/9".into()),
        ..ConnectionConfig::default()
    };
    let (agent, _, _) = sent_hello(v, named, Hello::new("app/1"));
    assert_eq!(agent.as_deref(), Some("driver-x/9"));
    let none = ConnectionConfig {
        bolt_agent: None,
        ..ConnectionConfig::default()
    };
    assert_eq!(sent_hello(v, none, Hello::new("app/1")).0, None);
}

#[test]
fn hello_asks_for_the_utc_patch_on_4_4_only() {
    let utc = Some(vec!["utc".to_owned()]);
    let v44 = BoltVersion::V4_4;
    assert_eq!(
        sent_hello(v44, ConnectionConfig::default(), Hello::new("a")).2,
        utc
    );
    let off = ConnectionConfig {
        request_utc_patch: false,
        ..ConnectionConfig::default()
    };
    assert_eq!(sent_hello(v44, off, Hello::new("a")).2, None);
    let own = Hello::new("a").with_patch_bolt(["other"]);
    assert_eq!(
        sent_hello(v44, ConnectionConfig::default(), own).2,
        Some(vec!["other".to_owned()]),
        "the caller's own patch list is kept"
    );
    for v in [BoltVersion::new(5, 0), BoltVersion::new(5, 8)] {
        assert_eq!(
            sent_hello(v, ConnectionConfig::default(), Hello::new("a")).2,
            None
        );
    }
}

#[test]
fn the_connection_follows_the_utc_patch_the_server_accepted() {
    for accepted in [true, false] {
        let (mut client, mut server) =
            common::negotiated(BoltVersion::V4_4, ConnectionConfig::default());
        client
            .send(&Request::Hello(Hello::new("a")))
            .expect("HELLO");
        server.receive(&client.take_output()).expect("HELLO");
        while server.poll_request().is_some() {}
        let success = if accepted {
            Success::new().with("patch_bolt", ["utc"])
        } else {
            Success::new()
        };
        server.send(&Response::Success(success)).expect("SUCCESS");
        assert!(!client.version().expect("negotiated").utc_patch());
        client.receive(&server.take_output()).expect("SUCCESS");
        let v = client.version().expect("negotiated");
        assert_eq!(v.utc_patch(), accepted);
        assert_eq!(v.utc_datetime(), accepted);
        assert_eq!(v.datetime_tag(), if accepted { 0x49 } else { 0x46 });
    }
}

/// Regression (C API fuzzing, finding 10): after GOODBYE, a byte that followed the last
/// awaited summary was refused with `Defunct` when it came in a later read, but buffered
/// without an error when it came in the same read.
#[test]
fn bytes_after_the_last_summary_owed_before_goodbye_were_refused_only_in_a_later_read() {
    for split in [false, true] {
        let (mut client, mut server) =
            common::negotiated(BoltVersion::V4_4, ConnectionConfig::default());
        client
            .send(&Request::Hello(Hello::new("x")))
            .expect("HELLO");
        client.send(&Request::Goodbye).expect("GOODBYE");
        server.receive(&client.take_output()).expect("requests");
        while server.poll_request().is_some() {}
        server
            .send(&Response::Success(Success::new()))
            .expect("SUCCESS");
        let mut wire = server.take_output();
        wire.push(0x00); // one more byte: the start of a chunk header
        let result = if split {
            let (owed, extra) = wire.split_at(wire.len() - 1);
            client.receive(owed).expect("the summary owed for HELLO");
            client.receive(extra)
        } else {
            client.receive(&wire)
        };
        assert!(
            matches!(result, Err(bolt::connection::ConnectionError::Defunct)),
            "split {split}: {result:?}"
        );
        assert!(
            matches!(client.poll_event(), Some(Event::Success { .. })),
            "the summary is delivered all the same"
        );
    }
}
