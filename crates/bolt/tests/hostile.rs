//! Hostile input against the Bolt layer: the dechunker, the handshake, message decoding,
//! structures and the sans-IO connections. Every case must end in its documented error,
//! without a panic or a hang, and within bounded memory (measured with a thread-local
//! counting allocator, so other test threads do not disturb the count).

use bolt::structs::DisplayValue;
use packstream::ValueRef;

use test_support::{packstream_bound as bound, peak_during};

/// `depth` structures of an unknown tag, each the only field of the one around it,
/// around a list of `width` integers.
fn nested_structs(depth: usize, width: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..depth {
        bytes.extend_from_slice(&[0xB1, 0x01]);
    }
    bytes.push(0xD5);
    bytes.extend_from_slice(&(width as u16).to_be_bytes());
    bytes.extend(std::iter::repeat_n(0x01, width));
    bytes
}

/// Regression (found by the `structs` fuzz target, as a timeout): rendering a value
/// interpreted every nested structure, and interpreting copies the structure's fields,
/// so every level copied its whole subtree and kept the copy while rendering the level
/// below: quadratic time, and memory of depth × size (200 levels around a 20 000-item
/// list, 20 KB, took 129 MB). Structures below the fourth nested one are now rendered
/// uninterpreted (3 MB).
#[test]
fn display_of_deeply_nested_structures_copied_every_subtree() {
    let bytes = nested_structs(200, 20_000);
    let value = ValueRef::decode_exact(&bytes).expect("decodes");
    let (text, peak) = peak_during(|| DisplayValue::new(&value).to_string());
    assert!(
        text.starts_with("broken(0x01 [broken(0x01 ["),
        "{}",
        &text[..40]
    );
    assert!(text.contains("struct<0x01>[struct<0x01>["));
    let limit = 6 * 32 * bytes.len() + 4 * text.len() + 64 * 1024;
    assert!(
        peak <= limit,
        "peak {peak} for {} bytes (limit {limit})",
        bytes.len()
    );
    // As deep as the default limits allow, on a 2 MiB thread stack: no overflow.
    let bytes = nested_structs(1022, 1);
    let value = ValueRef::decode_exact(&bytes).expect("within the default depth");
    let text = test_support::on_stack(2 << 20, || DisplayValue::new(&value).to_string());
    assert!(
        text.contains("struct<0x01>[[1]]]"),
        "{}",
        &text[text.len() - 80..]
    );
}

// ---------------------------------------------------------------------------------------
// Framing
// ---------------------------------------------------------------------------------------

use bolt::chunk::{DechunkError, DechunkLimits, Dechunker};
use bolt::connection::{
    ClientConnection, ConnectionConfig, ConnectionError, Event, ServerConnection,
};
use bolt::handshake::{
    ClientConfig, ClientHandshake, HandshakeError, ServerConfig, ServerHandshake, Step,
};
use bolt::message::{MessageError, Request, RequestKind, Response, ResponseKind};
use bolt::structs::{BoltStruct, BrokenReason, StructKind};
use bolt::BoltVersion;
use packstream::{ErrorKind, StructRef};

/// Every version whose rules the crate knows.
fn versions() -> impl Iterator<Item = BoltVersion> {
    BoltVersion::SUPPORTED
        .iter()
        .chain(BoltVersion::DECODE_ONLY)
        .copied()
}

/// Takes every message out of `d` fed with `input`; returns their count and the error.
fn drain(d: &mut Dechunker, input: &[u8]) -> (usize, Option<DechunkError>) {
    let mut feed = d.feed(input);
    let mut n = 0;
    loop {
        match feed.next_message() {
            Ok(Some(_)) => n += 1,
            Ok(None) => return (n, None),
            Err(e) => return (n, Some(e)),
        }
    }
}

#[test]
fn chunk_sizes_that_lie_are_truncated_or_refused_before_buffering() {
    // A header that claims 65 535 bytes followed by 3: nothing complete, and the end of
    // the stream reports the unfinished message where it started.
    let mut d = Dechunker::new();
    let (n, e) = drain(&mut d, &[0xFF, 0xFF, 0xB0, 0x0F, 0x00]);
    assert_eq!((n, e), (0, None));
    assert_eq!(
        d.end_of_stream(),
        Err(DechunkError::Truncated {
            offset: 5,
            message_offset: 0
        })
    );
    assert!(d.buffered_len() <= 3);
    // Above the message limit: refused at the header, before its payload is buffered.
    let limits = DechunkLimits {
        max_message_size: 1000,
        ..DechunkLimits::default()
    };
    let mut d = Dechunker::with_limits(limits);
    let mut wire = vec![0x00, 0x02, 0xB0, 0x0F, 0x00, 0x00]; // one good RESET first
    wire.extend_from_slice(&[0x03, 0xE8]); // 1000 bytes: still fine
    wire.extend(std::iter::repeat_n(0x01, 1000));
    wire.extend_from_slice(&[0x00, 0x01]); // one more byte: 1001
    let (peak_ok, peak) = peak_during(|| drain(&mut d, &wire));
    assert_eq!(
        peak_ok,
        (
            1,
            Some(DechunkError::MessageTooLarge {
                offset: 1008,
                message_offset: 6,
                size: 1001,
                max: 1000
            })
        )
    );
    assert!(peak < 4 * 1024, "peak {peak}");
    // Poisoned: the same error again, whatever comes next.
    let again = drain(&mut d, &[0x00, 0x02, 0xB0, 0x0F, 0x00, 0x00]);
    assert!(matches!(
        again,
        (0, Some(DechunkError::MessageTooLarge { .. }))
    ));
    assert!(d.end_of_stream().is_err());
}

#[test]
fn a_message_that_never_ends_hits_the_chunk_limit_in_bounded_memory() {
    // 1-byte chunks, never an end marker: refused at chunk 2^20 + 1 (the default cap).
    let mut d = Dechunker::new();
    let piece: Vec<u8> = std::iter::repeat_n([0x00, 0x01, 0x01], 4096)
        .flatten()
        .collect();
    let mut fed = 0u64;
    let (result, peak) = peak_during(|| loop {
        let (n, e) = drain(&mut d, &piece);
        fed += piece.len() as u64;
        assert_eq!(n, 0);
        if let Some(e) = e {
            return e;
        }
        assert!(fed < 4_000_000, "no error after {fed} bytes");
    });
    assert_eq!(
        result,
        DechunkError::TooManyChunks {
            offset: 3 << 20,
            message_offset: 0,
            max: 1 << 20
        }
    );
    // The payload so far (1 MiB) is buffered, nothing more.
    assert!(peak <= 3 << 20, "peak {peak}");
    // Big chunks instead: the message size limit.
    let limits = DechunkLimits {
        max_message_size: 1 << 20,
        ..DechunkLimits::default()
    };
    let mut d = Dechunker::with_limits(limits);
    let mut chunk = vec![0xFF, 0xFF];
    chunk.extend(std::iter::repeat_n(0x01, 65_535));
    let mut errors = None;
    for _ in 0..40 {
        if let (0, Some(e)) = drain(&mut d, &chunk) {
            errors = Some(e);
            break;
        }
    }
    assert!(matches!(
        errors,
        Some(DechunkError::MessageTooLarge { message_offset: 0, max, .. }) if max == 1 << 20
    ));
    assert!(d.buffered_len() <= 1 << 20);
}

#[test]
fn noop_floods_are_counted_and_cost_nothing() {
    let flood = vec![0u8; 2_000_000]; // a million NOOPs
    let mut d = Dechunker::new();
    let ((n, e), peak) = peak_during(|| drain(&mut d, &flood));
    assert_eq!((n, e), (0, None));
    assert_eq!(d.noop_count(), 1_000_000);
    assert!(peak < 1024, "peak {peak}");
    assert!(d.is_at_boundary() && d.end_of_stream().is_ok());
    // Split at odd places (half a NOOP per feed) and through the batch API.
    let mut d = Dechunker::new();
    for piece in flood[..999].chunks(7) {
        assert!(d.feed_batch(piece).is_empty());
    }
    assert_eq!(d.noop_count(), 499);
    assert!(d.end_of_stream().is_err()); // half a NOOP is pending
                                         // A client connection after the handshake: no events, no error.
    let (mut client, mut server) = negotiated();
    client.receive(&flood).expect("NOOPs are fine");
    assert_eq!(client.poll_event(), None);
    server.receive(&flood).expect("NOOPs are fine");
    assert_eq!(server.poll_request(), None);
}

// ---------------------------------------------------------------------------------------
// Handshake and connection
// ---------------------------------------------------------------------------------------

/// A client and a server that agreed on a version (Bolt 6.1).
fn negotiated() -> (ClientConnection, ServerConnection) {
    let mut client = ClientConnection::new(ConnectionConfig::default());
    let mut server = ServerConnection::new(ServerConfig::default());
    server.receive(&client.take_output()).expect("hello");
    client.receive(&server.take_output()).expect("offer");
    server.receive(&client.take_output()).expect("pick");
    assert!(client.version().is_some() && server.version().is_some());
    assert!(matches!(client.poll_event(), Some(Event::Negotiated(_))));
    (client, server)
}

#[test]
fn handshake_garbage_is_refused_with_its_offset() {
    // The server: bad magic at the first wrong byte, fed one byte at a time.
    let mut s = ServerHandshake::new(ServerConfig::default());
    assert_eq!(s.receive(b"\x60\x60"), Ok(Step::NeedMore));
    let e = s.receive(b"\xB0\x18").unwrap_err();
    assert!(matches!(
        e,
        HandshakeError::BadMagic {
            offset: 3,
            found: 0x18,
            ..
        }
    ));
    assert_eq!(s.receive(b"anything"), Err(e)); // poisoned
                                                // The client: an HTTP server answering.
    let mut c = ClientHandshake::new(ClientConfig::default());
    assert!(matches!(
        c.receive(b"HTTP/1.1 400 Bad Request\r\n"),
        Err(HandshakeError::HttpResponse { offset: 0 })
    ));
    // A manifest announcing 2^64 - 1 ranges: refused at the count, nothing reserved.
    let mut c = ClientHandshake::new(ClientConfig::default());
    let mut offer = vec![0x00, 0x00, 0x01, 0xFF];
    offer.extend_from_slice(&[0xFF; 9]);
    offer.push(0x01);
    let (res, peak) = peak_during(|| c.receive(&offer));
    assert!(
        matches!(res, Err(HandshakeError::TooManyRanges { offset: 4, .. })),
        "{res:?}"
    );
    assert!(peak < 8 * 1024, "peak {peak}");
    // A varint that never ends.
    let mut c = ClientHandshake::new(ClientConfig::default());
    let mut offer = vec![0x00, 0x00, 0x01, 0xFF, 0x01, 0x00, 0x08, 0x08, 0x05];
    offer.extend_from_slice(&[0x80; 11]);
    assert!(matches!(
        c.receive(&offer),
        Err(HandshakeError::VarintTooLong { .. })
    ));
    // A server that picks a version nobody offered.
    let mut c = ClientHandshake::new(ClientConfig::legacy());
    assert!(matches!(
        c.receive(&[0x00, 0x00, 0x00, 0x03]),
        Err(HandshakeError::VersionNotOffered { .. })
    ));
    // A megabyte of garbage after a good hello is not buffered by the handshake.
    let mut s = ServerHandshake::new(ServerConfig::default());
    let mut input = ClientHandshake::new(ClientConfig::legacy())
        .hello()
        .to_vec();
    input.extend(std::iter::repeat_n(0xAB, 1 << 20));
    let (res, peak) = peak_during(|| s.receive(&input));
    assert!(
        matches!(res, Ok(Step::Negotiated { consumed: 20, .. })),
        "{res:?}"
    );
    assert!(peak < 1024, "peak {peak}");
}

#[test]
fn hostile_server_bytes_make_the_client_defunct_not_panic() {
    // A RECORD nobody asked for.
    let (mut client, _) = negotiated();
    let e = client
        .receive(&[0x00, 0x04, 0xB1, 0x71, 0x91, 0x01, 0x00, 0x00])
        .unwrap_err();
    assert!(
        matches!(e, ConnectionError::UnexpectedResponse { .. }),
        "{e}"
    );
    assert!(matches!(
        client.receive(&[0, 0]),
        Err(ConnectionError::Defunct)
    ));
    // A RECORD whose data nests a million lists, answering a PULL: refused at the depth
    // limit (the 1025th container, counting the message structure) as a message error,
    // in bounded memory.
    let (mut client, _) = negotiated();
    let success = [0x00, 0x03, 0xB1, 0x70, 0xA0, 0x00, 0x00]; // SUCCESS {}
    for request in [
        Request::Hello(bolt::message::Hello::new("t/1")),
        Request::Logon(bolt::message::Logon::basic("u", "p")),
        Request::Run(bolt::message::Run::new("RETURN 1")),
    ] {
        client.send(&request).expect("allowed");
        client.receive(&success).expect("a SUCCESS");
    }
    client
        .send(&Request::Pull(bolt::message::Pull::all()))
        .expect("allowed");
    let mut record = vec![0xB1, 0x71];
    record.extend(std::iter::repeat_n(0x91, 1_000_000));
    record.push(0x90);
    let mut framed = Vec::new();
    bolt::chunk::Chunker::default()
        .write_message(&record, &mut framed)
        .expect("frames");
    let (res, peak) = peak_during(|| client.receive(&framed));
    match res {
        Err(ConnectionError::Message {
            stream_offset: 21,
            source: MessageError::PackStream(e),
        }) => assert_eq!((e.kind(), e.offset()), (ErrorKind::LimitExceeded, 1025)),
        other => panic!("{other:?}"),
    }
    assert!(peak <= bound(framed.len()), "peak {peak}");
}

// ---------------------------------------------------------------------------------------
// Messages and structures
// ---------------------------------------------------------------------------------------

/// A message structure with `fields` null fields (the types are checked after the count).
fn message(signature: u8, fields: usize) -> Vec<u8> {
    let mut m = vec![0xB0 | fields as u8, signature];
    m.extend(std::iter::repeat_n(0xC0, fields));
    m
}

#[test]
fn wrong_field_counts_in_every_message_of_every_version() {
    for version in versions() {
        for kind in RequestKind::ALL {
            let Some(count) = kind.field_count(version) else {
                continue;
            };
            let count = usize::from(count);
            for wrong in [count + 1, count.wrapping_sub(1), 15] {
                if wrong > 15 || wrong == count {
                    continue;
                }
                let bytes = message(kind.signature(), wrong);
                match Request::decode(&bytes, version) {
                    Err(MessageError::FieldCount {
                        offset: 0,
                        expected,
                        found,
                        ..
                    }) => {
                        assert_eq!((usize::from(expected), found as usize), (count, wrong));
                    }
                    other => panic!("{kind} with {wrong} fields in {version}: {other:?}"),
                };
            }
        }
        for kind in [
            ResponseKind::Success,
            ResponseKind::Record,
            ResponseKind::Ignored,
            ResponseKind::Failure,
        ] {
            let count = usize::from(kind.field_count());
            for wrong in [count + 1, count + 2] {
                let bytes = message(kind.signature(), wrong);
                let res = Response::decode(&bytes, version);
                assert!(
                    matches!(res, Err(MessageError::FieldCount { offset: 0, .. })),
                    "{kind} with {wrong} fields: {res:?}"
                );
            }
        }
    }
}

#[test]
fn hostile_length_claims_inside_messages() {
    let v = BoltVersion::V5_8;
    for claim in [
        &[0xD2, 0xFF, 0xFF, 0xFF, 0xFF][..],
        &[0xD2, 0x7F, 0xFF, 0xFF, 0xFF],
        &[0xDA, 0xFF, 0xFF, 0xFF, 0xFF],
        &[0xDA, 0x7F, 0xFF, 0xFF, 0xFF],
        &[0xD6, 0x7F, 0xFF, 0xFF, 0xFF],
    ] {
        // RUN <claim> …, RUN "" <claim> …, SUCCESS <claim>, RECORD [<claim>]
        let mut run = vec![0xB3, 0x10];
        run.extend_from_slice(claim);
        let mut run2 = vec![0xB3, 0x10, 0x80];
        run2.extend_from_slice(claim);
        let mut success = vec![0xB1, 0x70];
        success.extend_from_slice(claim);
        let mut record = vec![0xB1, 0x71, 0x91];
        record.extend_from_slice(claim);
        for (bytes, at) in [(&run, 2), (&run2, 3)] {
            let (res, peak) = peak_during(|| Request::decode(bytes, v).map(|r| r.kind()));
            match res {
                Err(MessageError::PackStream(e)) => {
                    assert!(!matches!(e.kind(), ErrorKind::TrailingBytes));
                    assert_eq!(e.offset(), at, "{bytes:02X?}: {e}");
                }
                other => panic!("{bytes:02X?}: {other:?}"),
            }
            assert!(peak <= bound(bytes.len()), "peak {peak}");
        }
        let res = Response::decode(&success, v);
        assert!(matches!(res, Err(MessageError::PackStream(_))), "{res:?}");
        // A RECORD is lazy: the list header decodes, the claim fails when read.
        let Ok(Response::Record(r)) = Response::decode(&record, v) else {
            panic!("record header")
        };
        let (res, peak) = peak_during(|| r.fields().map(|f| f.len()));
        assert!(matches!(res, Err(MessageError::PackStream(e)) if e.offset() == 3));
        assert!(peak <= bound(record.len()), "peak {peak}");
    }
}

#[test]
fn wrong_structure_field_counts_become_broken_in_every_version() {
    for version in versions() {
        for kind in StructKind::ALL {
            let count = kind.field_count(version);
            for wrong in [count + 1, count.wrapping_sub(1), 0, 15] {
                if wrong > 15 || wrong == count {
                    continue;
                }
                let s = StructRef {
                    tag: kind.tag(),
                    fields: vec![ValueRef::Int(0); wrong],
                };
                let BoltStruct::Broken(b) = BoltStruct::from_struct(&s, version) else {
                    panic!("{kind} with {wrong} fields read as valid in {version}");
                };
                assert_eq!(b.fields.len(), wrong);
                if kind.is_valid_in(version) {
                    assert_eq!(
                        b.reason,
                        BrokenReason::FieldCount {
                            expected: count,
                            found: wrong
                        },
                        "{kind} in {version}"
                    );
                }
                let _ = BoltStruct::Broken(b).to_string();
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The generator (feature `arbitrary`)
// ---------------------------------------------------------------------------------------

/// Generated messages exist in their version, encode for it and decode back to
/// themselves: the generator only produces what a real peer could send.
#[cfg(feature = "arbitrary")]
#[test]
fn generated_messages_encode_and_decode_back_in_every_version() {
    use arbitrary::{Arbitrary, Unstructured};

    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut noise = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect()
    };
    let mut kinds = std::collections::BTreeSet::new();
    for round in 0..400 {
        let data = noise(1024 + round);
        // Bolt 2 too: INIT and ACK_FAILURE exist only before Bolt 3.
        for version in versions().chain([BoltVersion::new(2, 0)]) {
            let mut u = Unstructured::new(&data);
            let req = bolt::arbitrary::request(&mut u, version).expect("generates");
            assert!(req.kind().exists_in(version));
            kinds.insert(req.name());
            let bytes = req
                .to_vec(version)
                .unwrap_or_else(|e| panic!("{version}: {req} does not encode: {e}"));
            let back = Request::decode(&bytes, version).expect("decodes");
            assert_eq!(
                back.to_vec(version).expect("encodes"),
                bytes,
                "{version}: {req}"
            );
            let resp = bolt::arbitrary::response(&mut u, version).expect("generates");
            let bytes = resp
                .to_vec(version)
                .unwrap_or_else(|e| panic!("{version}: {resp} does not encode: {e}"));
            let back = Response::decode(&bytes, version).expect("decodes");
            assert_eq!(
                back.to_vec(version).expect("encodes"),
                bytes,
                "{version}: {resp}"
            );
        }
        // The plain `Arbitrary` impls work on any input, and values always encode.
        let mut u = Unstructured::new(&data);
        let _ = Request::arbitrary(&mut u).expect("generates");
        let _ = Response::arbitrary(&mut u).expect("generates");
        let v = packstream::Value::arbitrary(&mut u).expect("generates");
        assert!(v.to_bytes().is_ok());
    }
    // Every request kind came up in 400 rounds.
    assert_eq!(kinds.len(), RequestKind::ALL.len(), "{kinds:?}");
}

/// Every message of every captured session, cut at every byte: a clean error (the cut
/// message is incomplete PackStream), never a panic, never a message that decodes.
#[test]
fn captured_messages_cut_at_every_byte_fail_cleanly() {
    let files = test_support::capture_files();
    let mut cuts = 0usize;
    for f in files.iter().step_by(5) {
        let version = match f
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|n| n.to_str())
        {
            Some("bolt-6.1") => BoltVersion::V6_1,
            Some("bolt-5.0") => BoltVersion::V5_0,
            Some("bolt-4.4") => BoltVersion::V4_4.with_utc_patch(true),
            Some("bolt-4.4-no-utc-patch") => BoltVersion::V4_4,
            _ => BoltVersion::V5_8,
        };
        let text = std::fs::read_to_string(f).expect("capture");
        for line in text.lines().filter(|l| l.starts_with("MSG ")) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (dir, hex) = (fields[1], fields.get(6).copied().unwrap_or(""));
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
                .collect();
            if bytes.len() > 2048 {
                continue;
            }
            for cut in 0..bytes.len() {
                let prefix = &bytes[..cut];
                cuts += 1;
                if dir == "C>S" {
                    let err = Request::decode(prefix, version).expect_err("a cut request");
                    assert!(err.offset() <= cut, "{f:?}: {err}");
                } else {
                    match Response::decode(prefix, version) {
                        Err(err) => assert!(err.offset() <= cut, "{f:?}: {err}"),
                        // A RECORD is lazy: its fields fail instead.
                        Ok(Response::Record(r)) => {
                            assert!(r.fields().is_err(), "{f:?} cut at {cut}")
                        }
                        Ok(other) => panic!("{f:?} cut at {cut} decoded as {other}"),
                    }
                }
            }
        }
    }
    assert!(cuts > 10_000, "only {cuts} cuts");
}

// ---------------------------------------------------------------------------------------
// Bolt over WebSocket
// ---------------------------------------------------------------------------------------

/// Feeds `input` to a fresh decoder of `role` and returns the first error, if any, and
/// the payload bytes handed out before it.
fn ws_decode(role: bolt::ws::Role, input: &[u8]) -> (usize, Option<bolt::ws::FrameError>) {
    let mut d = bolt::ws::WsDecoder::new(role);
    let mut rest = input;
    let mut payload = 0;
    loop {
        match d.next_event(rest) {
            Ok((used, Some(bolt::ws::Event::Data(p)))) => {
                payload += p.bytes().len();
                rest = &rest[used..];
            }
            Ok((used, Some(_))) => rest = &rest[used..],
            Ok((_, None)) => return (payload, None),
            Err(e) => return (payload, Some(e)),
        }
    }
}

#[test]
fn websocket_length_claims_are_refused_before_buffering() {
    use bolt::ws::{FrameError, Role};
    let mask = [0x01, 0x02, 0x03, 0x04];
    // A binary frame claiming 2^63 - 1 bytes, to a server (frames must be masked) and to
    // a client (unmasked): above either limit, refused at the length field (byte 2).
    for (role, masked) in [(Role::Server, true), (Role::Client, false)] {
        for claim in [u64::MAX >> 1, 1 << 40, 64 << 20 | 1] {
            let mut frame = vec![0x82, if masked { 0xFF } else { 0x7F }];
            frame.extend_from_slice(&claim.to_be_bytes());
            if masked {
                frame.extend_from_slice(&mask);
            }
            frame.extend(std::iter::repeat_n(0xAB, 64));
            let ((payload, err), peak) = peak_during(|| ws_decode(role, &frame));
            assert_eq!(payload, 0);
            assert!(
                matches!(err, Some(FrameError::FrameTooLarge { offset: 2, len, .. }) if len == claim),
                "{role:?} claim {claim}: {err:?}"
            );
            assert!(peak < 4096, "peak {peak}");
        }
        // The most significant bit of a 64-bit length must be clear.
        let mut frame = vec![0x82, if masked { 0xFF } else { 0x7F }];
        frame.extend_from_slice(&u64::MAX.to_be_bytes());
        assert!(matches!(
            ws_decode(role, &frame).1,
            Some(FrameError::LengthTopBit { .. })
        ));
    }
    // A claim under the client's limit is streamed as it arrives, never buffered whole.
    let mut frame = vec![0x82, 0x7F];
    frame.extend_from_slice(&(60u64 << 20).to_be_bytes());
    frame.extend(std::iter::repeat_n(0xAB, 100_000));
    let ((payload, err), peak) = peak_during(|| ws_decode(Role::Client, &frame));
    assert_eq!((payload, err), (100_000, None));
    assert!(peak < 4096, "peak {peak}");
}

#[test]
fn websocket_ping_floods_and_endless_upgrade_heads_stay_bounded() {
    use bolt::ws::{Role, ServerUpgrade, WsStream, MAX_HEAD_SIZE};
    // 50 000 masked pings of 125 bytes: every one answered, memory bounded by the replies.
    let mut ping = vec![0x89, 0x80 | 125, 1, 2, 3, 4];
    ping.extend(std::iter::repeat_n(0x00, 125));
    let flood: Vec<u8> = std::iter::repeat_n(ping, 50_000).flatten().collect();
    let mut ws = WsStream::server();
    let (mut bolt_bytes, mut send) = (Vec::new(), Vec::new());
    let (res, peak) = peak_during(|| ws.from_wire(&flood, &mut bolt_bytes, &mut send));
    assert!(res.is_ok(), "{res:?}");
    assert!(bolt_bytes.is_empty());
    assert!(send.len() >= 50_000 * 127, "every ping answered");
    assert!(peak <= 4 * send.len(), "peak {peak}");
    assert_eq!(ws_decode(Role::Server, &flood).1, None);
    // An upgrade request whose head never ends: refused at MAX_HEAD_SIZE.
    let mut up = ServerUpgrade::new();
    let mut head = b"GET / HTTP/1.1\r\n".to_vec();
    head.extend(std::iter::repeat_n(b'a', 1 << 20));
    let (res, peak) = peak_during(|| up.receive(&head).map(|_| ()));
    assert!(res.is_err(), "{res:?}");
    assert!(peak <= 2 * MAX_HEAD_SIZE + 4096, "peak {peak}");
}

/// Regression (found by the `handshake` fuzz target): a proposal slot with major version
/// 0 but other bytes set (`00 00 07 00`) read as a range of version 0.0, which writes back
/// as `00 00 00 00` and so reads back as `Empty`: parsing a client hello and writing it
/// again changed it. Major 0 is now read as `Empty`, as its bytes say.
#[test]
fn a_major_zero_slot_did_not_read_back_as_itself() {
    use bolt::handshake::{ClientHello, Proposal, Status};
    for slot in [[0, 0, 7, 0], [0, 3, 0, 0], [9, 0, 0, 0], [0, 0, 0, 0]] {
        assert_eq!(Proposal::from_bytes(slot), Proposal::Empty, "{slot:02X?}");
    }
    let mut hello = vec![0x60, 0x60, 0xB0, 0x17];
    for slot in [[0, 0, 0, 5], [0, 0, 7, 0], [0, 2, 4, 4], [0, 0, 1, 0xFF]] {
        hello.extend_from_slice(&slot);
    }
    let Ok(Status::Complete((parsed, 20))) = ClientHello::parse(&hello) else {
        panic!("parses")
    };
    let again = parsed.to_bytes();
    assert!(matches!(ClientHello::parse(&again), Ok(Status::Complete((p, 20))) if p == parsed));
    // The server treats it as the empty slot it is: 5.0 from the first slot wins.
    let mut server = ServerHandshake::new(ServerConfig::default());
    assert!(matches!(
        server.receive(&hello),
        Ok(Step::Negotiated { version, .. }) if version == BoltVersion::V5_0
    ));
}
