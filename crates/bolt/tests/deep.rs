//! A server may send values as deep as the caller's decode limits allow. With the depth
//! limit raised, a RECORD nested a million levels deep must reach the caller through the
//! connection, and be printed, cloned, compared and dropped, without the stack growing
//! per level: before, `ValueRef::to_owned_value` in the connection, the structure
//! rendering and `Dict`'s formatting recursed once per level (the C API crashed with
//! SIGSEGV inside `bc_connection_receive` on such a RECORD).

use bolt::connection::{ConnectionConfig, Event};
use bolt::message::{Hello, MessageCodec, Pull, Record, Request, Response, Run, Success};
use bolt::structs::DisplayValue;
use bolt::BoltVersion;
use packstream::{DecodeLimits, DecodeOptions, Value, ValueRef};

mod common;

const LEVELS: usize = 1_000_000;

fn raised() -> DecodeLimits {
    DecodeLimits {
        max_depth: u32::MAX,
        ..DecodeLimits::DEFAULT
    }
}

/// `[Date(1), {"k": [Date(1), {"k": … 42 …}]}]`: lists, maps and structures alternating.
fn deep_bytes() -> Vec<u8> {
    let mut bytes = Vec::new();
    for i in 0..LEVELS {
        bytes.extend_from_slice(if i % 2 == 0 {
            &[0x92, 0xB1, 0x44, 0x01][..]
        } else {
            &[0xA1, 0x81, b'k'][..]
        });
    }
    bytes.push(0x2A);
    bytes
}

/// Runs `f` on a thread with a 256 KiB stack.
fn on_small_stack(f: impl FnOnce() + Send) {
    test_support::on_stack(256 * 1024, f);
}

#[test]
fn a_record_nested_a_million_levels_deep_overflowed_the_connection() {
    on_small_stack(|| {
        let version = BoltVersion::new(5, 0);
        let config = ConnectionConfig {
            decode_limits: raised(),
            ..ConnectionConfig::default()
        };
        let (mut client, mut server) = common::negotiated(version, config);

        client
            .send(&Request::Hello(Hello::new("deep/1")))
            .expect("HELLO");
        client
            .send(&Request::Run(Run::new("RETURN $x")))
            .expect("RUN");
        client.send(&Request::Pull(Pull::all())).expect("PULL");
        server.receive(&client.take_output()).expect("requests");
        while server.poll_request().is_some() {}

        let bytes = deep_bytes();
        let opts = DecodeOptions::default().with_limits(raised());
        let field = ValueRef::decode_exact_with(&bytes, &opts).expect("deep field");
        let ok = || Response::Success(Success::default());
        server.send(&ok()).expect("HELLO's SUCCESS");
        server.send(&ok()).expect("RUN's SUCCESS");
        server
            .send(&Response::Record(Record::new(vec![field.clone()])))
            .expect("RECORD");
        server.send(&ok()).expect("PULL's SUCCESS");
        client.receive(&server.take_output()).expect("responses");

        let events: Vec<Event> = std::iter::from_fn(|| client.poll_event()).collect();
        assert_eq!(events.len(), 4);
        let Some(Event::Record(fields)) = events.get(2) else {
            panic!("the third event is the record");
        };
        let expected = field.to_owned_value();
        assert!(
            fields.as_slice() == [expected.clone()],
            "the record arrives whole"
        );
        let copy = events.clone();
        assert!(copy == events);
        assert!(format!("{events:?}").len() > LEVELS);

        let shown = DisplayValue::new(&field).to_string();
        assert!(
            shown.starts_with("[date(\"1970-01-02\"), {k: [date("),
            "{}",
            &shown[..40]
        );
        assert!(shown.len() > LEVELS);
        drop((copy, events, expected, field));
    });
}

#[test]
fn debug_of_deeply_nested_metadata_overflowed_the_stack() {
    on_small_stack(|| {
        // SUCCESS {"m": {"m": … {} …}}: Debug follows nested maps to redact credentials.
        let mut bytes = vec![0xB1, 0x70];
        bytes.extend([0xA1u8, 0x81, b'm'].repeat(LEVELS));
        bytes.push(0xA0);
        let codec = MessageCodec::new(BoltVersion::new(5, 0)).with_limits(raised());
        let response = codec.decode_response(&bytes).expect("deep SUCCESS");
        let shown = format!("{response:?}");
        assert!(shown.len() > 4 * LEVELS, "every level is shown");
        assert!(shown.contains(r#"{"m": {"m": {}}}"#));
        let Response::Success(s) = &response else {
            panic!("a SUCCESS");
        };
        let text = s.metadata.to_string();
        assert_eq!(text.matches('{').count(), LEVELS + 1);
        assert!(text.contains(r#"{"m": {}}"#) && text.ends_with("}}}}"));
    });
}

#[test]
fn display_of_a_million_nested_lists_overflowed_the_stack() {
    on_small_stack(|| {
        let mut bytes = [0x91u8].repeat(LEVELS);
        bytes.push(0xC0);
        let opts = DecodeOptions::default().with_limits(raised());
        let v = ValueRef::decode_exact_with(&bytes, &opts).expect("deep list");
        let shown = DisplayValue::new(&v).to_string();
        assert_eq!(shown.len(), 2 * LEVELS + 4);
        assert!(shown.starts_with("[[[[") && shown.contains("[null]"));
        let owned: Value = v.to_owned_value();
        drop((v, owned));
    });
}
