//! The error model: every error type's `kind()` names come from the one table in
//! `tests/vectors/README.md` (so every language shares them), and `kind()`/`offset()` are
//! right for representative errors of each type, produced through the public API.

use std::collections::BTreeSet;

use bolt::chunk::{ChunkError, Chunker, DechunkError, DechunkLimits, Dechunker};
use bolt::connection::{ClientConnection, ConnectionConfig, ConnectionError};
use bolt::handshake::{
    ClientConfig, ClientHandshake, HandshakeError, ServerConfig, ServerHandshake, VersionListError,
};
use bolt::message::{
    BatchError, MessageCodec, MessageEncodeError, MessageError, Request, Response,
};
use bolt::structs::{StructEncodeError, StructKind};
use bolt::version::ParseVersionError;
use bolt::ws::{
    ClientUpgrade, EncodeError as WsEncodeError, FrameError, StreamError, UpgradeError, WsEncoder,
    WsStream,
};
use bolt::BoltVersion;
use packstream::{EncodeError, Encoder, ErrorInfo, ValueRef};

/// The kind names of every table under "Error kinds" in the vectors' README: the first
/// column of each row, written as `` `name` ``.
fn readme_kinds() -> BTreeSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/README.md");
    let text = std::fs::read_to_string(path).expect("tests/vectors/README.md");
    let start = text
        .find("### Error kinds")
        .expect("an \"Error kinds\" section");
    let end = text[start..]
        .find("\n## ")
        .map_or(text.len(), |e| start + e);
    let mut kinds = BTreeSet::new();
    let mut in_kind_table = false;
    for line in text[start..end].lines() {
        if line.starts_with("| kind |") {
            in_kind_table = true;
        } else if !line.starts_with('|') {
            in_kind_table = false;
        } else if in_kind_table {
            let first = line.trim_start_matches('|').split('|').next().unwrap_or("");
            let name = first.trim().trim_matches('`');
            if !name.chars().all(|c| c == '-') {
                kinds.insert(name.to_owned());
            }
        }
    }
    kinds
}

/// `KINDS` of every error type of the core crates.
fn declared_kinds() -> Vec<(&'static str, &'static [&'static str])> {
    vec![
        (
            "packstream::Error",
            <packstream::Error as ErrorInfo>::kinds(),
        ),
        ("packstream::EncodeError", EncodeError::KINDS),
        ("packstream::WriteError", packstream::WriteError::KINDS),
        ("packstream::serde::Error", packstream::serde::Error::KINDS),
        ("ChunkError", ChunkError::KINDS),
        ("DechunkError", DechunkError::KINDS),
        ("MessageError", MessageError::KINDS),
        ("MessageEncodeError", MessageEncodeError::KINDS),
        ("BatchError", BatchError::KINDS),
        ("HandshakeError", HandshakeError::KINDS),
        ("ConnectionError", ConnectionError::KINDS),
        ("StructEncodeError", StructEncodeError::KINDS),
        ("ws::FrameError", FrameError::KINDS),
        ("ws::EncodeError", WsEncodeError::KINDS),
        ("ws::StreamError", StreamError::KINDS),
        ("ws::UpgradeError", UpgradeError::KINDS),
        ("ParseVersionError", ParseVersionError::KINDS),
        ("VersionListError", VersionListError::KINDS),
    ]
}

#[test]
fn every_kind_of_every_error_type_is_in_the_vectors_readme_and_back() {
    let table = readme_kinds();
    assert!(
        table.len() > 60,
        "the README tables were not found: {table:?}"
    );
    let mut used = BTreeSet::new();
    for (ty, kinds) in declared_kinds() {
        for kind in kinds {
            assert!(
                table.contains(*kind),
                "{ty} returns kind `{kind}`, which tests/vectors/README.md does not list"
            );
            assert!(
                kind.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{ty}: `{kind}` is not snake_case"
            );
            used.insert((*kind).to_owned());
        }
    }
    let stale: Vec<_> = table.difference(&used).collect();
    assert!(
        stale.is_empty(),
        "README lists kinds no error type returns: {stale:?}"
    );
}

#[test]
fn kinds_are_unique_within_each_type() {
    for (ty, kinds) in declared_kinds() {
        let set: BTreeSet<_> = kinds.iter().collect();
        assert_eq!(set.len(), kinds.len(), "{ty} names a kind twice");
    }
}

#[test]
fn the_kind_names_the_bindings_already_expose_are_kept() {
    for kind in [
        "message_too_large",
        "too_many_chunks",
        "truncated",
        "internal",
    ] {
        assert!(DechunkError::KINDS.contains(&kind), "{kind}");
    }
    for kind in [
        "too_many_fields",
        "uuid_not_enabled",
        "size_too_large",
        "empty_message",
        "no_common_version",
        "not_negotiated",
        "illegal_request",
        "not_in_version",
        "defunct",
    ] {
        let all: Vec<&str> = declared_kinds()
            .into_iter()
            .flat_map(|(_, k)| k)
            .copied()
            .collect();
        assert!(all.contains(&kind), "{kind}");
    }
}

/// Checks an error through its inherent methods' result and through [`ErrorInfo`].
fn check<E: ErrorInfo>(e: &E, kind: &str, offset: Option<u64>) {
    assert_eq!((e.kind_name(), e.byte_offset()), (kind, offset), "{e}");
    assert!(
        E::kinds().contains(&kind) || wrapped_kind(kind),
        "{kind} not declared"
    );
}

/// Kinds a type reports for an error it wraps (declared by the wrapped type).
fn wrapped_kind(kind: &str) -> bool {
    declared_kinds().iter().any(|(_, k)| k.contains(&kind))
}

#[test]
fn packstream_errors_count_offsets_from_the_value() {
    let e = ValueRef::decode(&[0x92, 0x01, 0xC1, 0x40]).unwrap_err();
    assert_eq!((e.kind().as_str(), e.offset()), ("unexpected_end", 2));
    check(&e, "unexpected_end", Some(2));

    let mut out = Vec::new();
    let e = Encoder::new(&mut out)
        .write_struct_header(0x4E, 16)
        .unwrap_err();
    assert_eq!((e.kind(), e.offset()), ("too_many_fields", None));
    check(&e, "too_many_fields", None);

    // serde: a PackStream error keeps its kind, a type mismatch has its own.
    let e = packstream::from_slice::<u8>(&[0x85, b'a']).unwrap_err();
    assert_eq!((e.kind(), e.offset()), ("unexpected_end", Some(0)));
    check(&e, "unexpected_end", Some(0));
    let e = packstream::from_slice::<(u8, String)>(&[0x92, 0x01, 0x02]).unwrap_err();
    assert_eq!(e.kind(), "type_mismatch");
    let e = packstream::to_vec(&u64::MAX).unwrap_err();
    check(&e, "serde_custom", None);
}

#[test]
fn dechunk_errors_give_stream_offsets_and_the_message_start() {
    let limits = DechunkLimits {
        max_message_size: 4,
        ..DechunkLimits::default()
    };
    let mut d = Dechunker::with_limits(limits);
    // A NOOP (2 bytes), one complete message (`00 01 AA 00 00`), then a chunk header
    // declaring 5 bytes at stream offset 7.
    let stream = [0, 0, 0, 1, 0xAA, 0, 0, 0, 5];
    let mut feed = d.feed(&stream);
    assert!(feed.next_message().unwrap().is_some());
    let e = feed.next_message().unwrap_err();
    assert_eq!(
        (e.kind(), e.offset(), e.message_offset()),
        ("message_too_large", 7, 7)
    );
    check(&e, "message_too_large", Some(7));

    let mut d = Dechunker::new();
    drop(d.feed(&[0, 3, 1, 2]));
    let e = d.end_of_stream().unwrap_err();
    assert_eq!(
        (e.kind(), e.offset(), e.message_offset()),
        ("truncated", 4, 0)
    );

    let e = Chunker::default()
        .write_message(&[], &mut Vec::new())
        .unwrap_err();
    check(&e, "empty_message", None);
}

#[test]
fn message_errors_count_offsets_inside_the_message() {
    // RUN with two fields in Bolt 4.4 (which wants three).
    let e = Request::decode(&[0xB2, 0x10, 0x80, 0xA0], BoltVersion::V4_4).unwrap_err();
    assert_eq!((e.kind(), e.offset()), ("field_count", 0));
    check(&e, "field_count", Some(0));
    // SUCCESS whose metadata is an integer: the field's marker.
    let e = Response::decode(&[0xB1, 0x70, 0x01], BoltVersion::V5_8).unwrap_err();
    check(&e, "field_type", Some(2));
    // A PackStream error inside a message keeps the PackStream kind.
    let e = Response::decode(&[0xB1, 0x70, 0xA1, 0x85, b'a'], BoltVersion::V5_8).unwrap_err();
    assert!(matches!(e, MessageError::PackStream(_)));
    check(&e, "unexpected_end", Some(3));
    let e = Response::decode(&[0xB0, 0x7E, 0x00], BoltVersion::V5_8).unwrap_err();
    check(&e, "trailing_bytes", Some(2));

    let e = Request::Logoff.to_vec(BoltVersion::V5_0).unwrap_err();
    assert_eq!((e.kind(), e.offset()), ("not_in_version", None));
    let e = MessageEncodeError::from(EncodeError::UuidNotEnabled);
    check(&e, "uuid_not_enabled", None);
}

#[test]
fn batch_errors_give_the_stream_offset_of_the_message_at_fault() {
    // RECORD [1], then a message that is not a structure, at stream offset 8.
    let stream = [0, 4, 0xB1, 0x71, 0x91, 0x01, 0, 0, 0, 1, 0x01, 0, 0];
    let mut d = Dechunker::new();
    let batch = d.feed_batch(&stream);
    let result = MessageCodec::new(BoltVersion::V5_8).decode_batch_records(&batch, 0);
    let e = result.error().expect("an error");
    assert_eq!((e.kind(), e.offset()), ("not_a_structure", Some(8)));
    check(e, "not_a_structure", Some(8));
    let BatchError::Message { source, .. } = e else {
        panic!("{e:?}")
    };
    assert_eq!(source.offset(), 0);

    let e = BatchError::Dechunk(DechunkError::Truncated {
        offset: 9,
        message_offset: 5,
    });
    check(&e, "truncated", Some(9));
}

#[test]
fn handshake_errors_count_from_the_senders_first_byte() {
    let mut server = ServerHandshake::new(ServerConfig::default());
    let e = server.receive(&[0x60, 0x60, 0xB0, 0x18]).unwrap_err();
    assert_eq!((e.kind(), e.offset()), ("bad_magic", Some(3)));
    check(&e, "bad_magic", Some(3));

    let mut client = ClientHandshake::new(ClientConfig::default());
    let e = client.receive(b"HTTP").unwrap_err();
    check(&e, "http_response", Some(0));
    check(&HandshakeError::Finished, "handshake_finished", None);
}

#[test]
fn connection_errors_keep_the_wrapped_kind() {
    let mut conn = ClientConnection::new(ConnectionConfig::default());
    let e = conn.receive(b"HTTP").unwrap_err();
    assert!(matches!(e, ConnectionError::Handshake(_)));
    assert_eq!((e.kind(), e.offset()), ("http_response", Some(0)));

    let mut conn = ClientConnection::new(ConnectionConfig::default());
    let e = conn.send(&Request::Reset).unwrap_err();
    check(&e, "not_negotiated", None);

    let e = ConnectionError::Message {
        stream_offset: 40,
        source: MessageError::FieldCount {
            offset: 0,
            message: "SUCCESS",
            version: BoltVersion::V5_8,
            expected: 1,
            found: 2,
        },
    };
    check(&e, "field_count", Some(40));
    check(&ConnectionError::Defunct, "defunct", None);
}

#[test]
fn a_malformed_version_string_has_its_own_kind() {
    let e = "5.x".parse::<BoltVersion>().unwrap_err();
    assert_eq!((e.kind(), e.offset()), ("invalid_version_string", None));
    check(&e, "invalid_version_string", None);
}

#[test]
fn struct_encode_errors_have_no_offset() {
    let e = StructEncodeError::NotInVersion {
        kind: StructKind::Vector,
        version: BoltVersion::V5_0,
    };
    check(&e, "not_in_version", None);
    check(
        &StructEncodeError::from(EncodeError::SizeTooLarge(1 << 31)),
        "size_too_large",
        None,
    );
}

#[test]
fn websocket_errors_count_from_the_frame_stream_or_the_http_head() {
    // An unmasked binary frame sent to a server: the MASK bit is in byte 1.
    let mut server = WsStream::server();
    let e = server
        .from_wire(&[0x82, 0x01, 0x00], &mut Vec::new(), &mut Vec::new())
        .unwrap_err();
    assert!(matches!(
        e,
        StreamError::Frame(FrameError::UnmaskedFrame { .. })
    ));
    assert_eq!((e.kind(), e.offset()), ("ws_unmasked_frame", Some(1)));
    check(&e, "ws_unmasked_frame", Some(1));
    let StreamError::Frame(f) = &e else { panic!() };
    check(f, "ws_unmasked_frame", Some(1));

    let e = WsEncoder::server().with_max_frame_size(0).unwrap_err();
    check(&e, "ws_invalid_max_frame_size", None);

    let mut upgrade = ClientUpgrade::new("localhost", "/", [7; 16]).unwrap();
    let e = upgrade
        .receive(b"HTTP/1.1 404 Not Found\r\n\r\n")
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.offset()),
        ("upgrade_unexpected_status", Some(9))
    );
    check(&e, "upgrade_unexpected_status", Some(9));
    let e = ClientUpgrade::new("local\r\nhost", "/", [7; 16]).unwrap_err();
    check(&e, "upgrade_invalid_argument", None);
}
