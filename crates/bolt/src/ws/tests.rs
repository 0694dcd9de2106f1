//! Unit tests of the WebSocket adapter: RFC 6455 examples, every error, both roles.

use super::*;
use crate::handshake::Status;

/// An owned [`Event`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ev {
    /// Bytes, end of message, copied.
    Data(Vec<u8>, bool, bool),
    Ping(Vec<u8>),
    Pong(Vec<u8>),
    Close(Option<u16>, String),
}

fn data(bytes: &[u8], end: bool) -> Ev {
    Ev::Data(bytes.to_vec(), end, false)
}

/// Every event of `input`, checking that `next_event` always uses all of the input.
fn events(d: &mut WsDecoder, input: &[u8]) -> Result<Vec<Ev>, FrameError> {
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        let (used, event) = d.next_event(&input[pos..])?;
        let rest = &input[pos..];
        pos += used;
        let Some(event) = event else {
            assert_eq!(pos, input.len());
            return Ok(out);
        };
        out.push(match event {
            Event::Data(p) => {
                if let Some(r) = p.input_range() {
                    assert_eq!(&rest[r], p.bytes());
                }
                Ev::Data(p.to_vec(), p.is_end_of_message(), p.is_copied())
            }
            Event::Ping(p) => Ev::Ping(p.to_vec()),
            Event::Pong(p) => Ev::Pong(p.to_vec()),
            Event::Close(c) => Ev::Close(c.code.map(|c| c.0), c.reason.to_owned()),
        });
    }
}

/// The first error of `input` for a fresh decoder of `role`.
fn error(role: Role, input: &[u8]) -> FrameError {
    let mut d = WsDecoder::new(role);
    let err = events(&mut d, input).expect_err("an error");
    // poisoned: the same error again, even for valid input
    assert_eq!(d.next_event(&[0x82, 0x00]).err(), Some(err.clone()));
    assert_eq!(d.error(), Some(&err));
    assert_eq!(d.end_of_stream(), Err(err.clone()));
    err
}

const KEY: [u8; 4] = [0x37, 0xFA, 0x21, 0x3D];

fn masked(first: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    FrameHeader::new(Opcode::from_bits(first), payload.len() as u64)
        .with_fin(first & 0x80 != 0)
        .with_mask(Some(KEY))
        .encode(&mut out);
    let start = out.len();
    out.extend_from_slice(payload);
    apply_mask(&mut out[start..], KEY, 0);
    out
}

// ---------------------------------------------------------------------------------------
// RFC 6455 examples
// ---------------------------------------------------------------------------------------

#[test]
fn rfc_6455_accept_example() {
    assert_eq!(
        accept_key("dGhlIHNhbXBsZSBub25jZQ=="),
        "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    );
    let upgrade = ClientUpgrade::new("server.example.com", "/chat", *b"the sample nonce").unwrap();
    assert_eq!(upgrade.key(), "dGhlIHNhbXBsZSBub25jZQ==");
    assert_eq!(upgrade.expected_accept(), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    assert_eq!(
        upgrade.request(),
        b"GET /chat HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\n\
          Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
          Sec-WebSocket-Version: 13\r\n\r\n"
    );
}

/// RFC 6455 §5.7. The text examples are refused (Bolt is binary only); the same frames
/// with the binary opcode decode.
#[test]
fn rfc_6455_frame_examples() {
    let unmasked_text = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f];
    let masked_text = [
        0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58,
    ];
    assert_eq!(
        error(Role::Client, &unmasked_text),
        FrameError::TextFrame { offset: 0 }
    );
    assert_eq!(
        error(Role::Server, &masked_text),
        FrameError::TextFrame { offset: 0 }
    );
    let mut unmasked_binary = unmasked_text;
    unmasked_binary[0] = 0x82;
    assert_eq!(
        events(&mut WsDecoder::client(), &unmasked_binary),
        Ok(vec![data(b"Hello", true)])
    );
    let mut masked_binary = masked_text;
    masked_binary[0] = 0x82;
    assert_eq!(
        events(&mut WsDecoder::server(), &masked_binary),
        Ok(vec![Ev::Data(b"Hello".to_vec(), true, true)])
    );
    // the client encoder writes exactly this
    let mut out = Vec::new();
    WsEncoder::client(|| KEY).encode(b"Hello", &mut out);
    assert_eq!(out, masked_binary);

    // fragmented: "Hel" + "lo"
    let fragmented_text = [0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f];
    assert_eq!(
        error(Role::Client, &fragmented_text),
        FrameError::TextFrame { offset: 0 }
    );
    let mut fragmented_binary = fragmented_text;
    fragmented_binary[0] = 0x02;
    assert_eq!(
        events(&mut WsDecoder::client(), &fragmented_binary),
        Ok(vec![data(b"Hel", false), data(b"lo", true)])
    );

    // ping and pong
    let ping = [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f];
    assert_eq!(
        events(&mut WsDecoder::client(), &ping),
        Ok(vec![Ev::Ping(b"Hello".to_vec())])
    );
    let pong = [
        0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58,
    ];
    assert_eq!(
        events(&mut WsDecoder::server(), &pong),
        Ok(vec![Ev::Pong(b"Hello".to_vec())])
    );
    let mut out = Vec::new();
    WsEncoder::server().ping(b"Hello", &mut out).unwrap();
    assert_eq!(out, ping);
    let mut out = Vec::new();
    WsEncoder::client(|| KEY).pong(b"Hello", &mut out).unwrap();
    assert_eq!(out, pong);

    // 256 bytes and 64 KiB in single unmasked frames
    for (len, header) in [
        (256usize, vec![0x82, 0x7E, 0x01, 0x00]),
        (65_536, vec![0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0]),
    ] {
        let payload: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let mut out = Vec::new();
        let n = WsEncoder::server().encode(&payload, &mut out);
        assert_eq!(n, out.len());
        assert_eq!(out[..header.len()], header[..]);
        assert_eq!(&out[header.len()..], &payload[..]);
        let mut d = WsDecoder::with_limits(Role::Client, FrameLimits::NEO4J);
        assert_eq!(events(&mut d, &out), Ok(vec![data(&payload, true)]));
    }
}

// ---------------------------------------------------------------------------------------
// Decoder
// ---------------------------------------------------------------------------------------

#[test]
fn every_frame_error() {
    use FrameError as E;
    let c = Role::Client;
    let s = Role::Server;
    // a valid frame first, so offsets are stream offsets, not frame offsets
    let after = |bytes: &[u8]| {
        let mut v = vec![0x82, 0x01, 0xAA];
        v.extend_from_slice(bytes);
        v
    };
    let cases: Vec<(Role, Vec<u8>, FrameError)> = vec![
        (c, after(&[0x81, 0x00]), E::TextFrame { offset: 3 }),
        (
            c,
            after(&[0xC2, 0x00]),
            E::ReservedBits {
                offset: 3,
                bits: 0b100,
            },
        ),
        (
            c,
            after(&[0x92, 0x00]),
            E::ReservedBits {
                offset: 3,
                bits: 0b001,
            },
        ),
        (
            c,
            after(&[0x83, 0x00]),
            E::UnknownOpcode {
                offset: 3,
                opcode: 3,
            },
        ),
        (
            c,
            after(&[0x8B, 0x00]),
            E::UnknownOpcode {
                offset: 3,
                opcode: 0xB,
            },
        ),
        (c, after(&[0x82, 0x80]), E::MaskedFrame { offset: 4 }),
        (s, vec![0x82, 0x01, 0xAA], E::UnmaskedFrame { offset: 1 }),
        (
            c,
            after(&[0x09, 0x00]),
            E::FragmentedControlFrame {
                offset: 3,
                opcode: 9,
            },
        ),
        (
            c,
            after(&[0x08, 0x00]),
            E::FragmentedControlFrame {
                offset: 3,
                opcode: 8,
            },
        ),
        (
            c,
            after(&[0x8A, 0x7E, 0x00, 0x7E]),
            E::ControlFrameTooLong {
                offset: 5,
                len: 126,
            },
        ),
        (
            c,
            after(&[0x89, 0x7E, 0x00, 0x05]),
            E::NonMinimalLength { offset: 5, len: 5 },
        ),
        (
            c,
            after(&[0x82, 0x7E, 0x00, 0x7D]),
            E::NonMinimalLength {
                offset: 5,
                len: 125,
            },
        ),
        (
            c,
            after(&[0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]),
            E::NonMinimalLength {
                offset: 5,
                len: 0xFFFF,
            },
        ),
        (
            c,
            after(&[0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            E::LengthTopBit { offset: 5 },
        ),
        (
            s,
            vec![0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 1],
            E::FrameTooLarge {
                offset: 2,
                len: 65_537,
                max: 65_536,
            },
        ),
        (
            c,
            after(&[0x80, 0x00]),
            E::UnexpectedContinuation { offset: 3 },
        ),
        (
            c,
            after(&[0x00, 0x00]),
            E::UnexpectedContinuation { offset: 3 },
        ),
        (
            c,
            after(&[0x02, 0x00, 0x82, 0x00]),
            E::ExpectedContinuation { offset: 5 },
        ),
        (
            c,
            after(&[0x88, 0x01, 0x03]),
            E::InvalidClosePayload { offset: 5 },
        ),
        (
            c,
            after(&[0x88, 0x02, 0x03, 0xED]),
            E::InvalidCloseCode {
                offset: 5,
                code: 1005,
            },
        ),
        (
            c,
            after(&[0x88, 0x02, 0x03, 0xE7]),
            E::InvalidCloseCode {
                offset: 5,
                code: 999,
            },
        ),
        (
            c,
            after(&[0x88, 0x05, 0x03, 0xE8, b'o', 0xFF, b'k']),
            E::InvalidCloseReason { offset: 8 },
        ),
    ];
    for (role, input, expected) in cases {
        // whole, and byte by byte: same error
        assert_eq!(error(role, &input), expected, "{input:02x?}");
        let mut d = WsDecoder::new(role);
        let mut got = None;
        for b in &input {
            if let Err(e) = events(&mut d, std::slice::from_ref(b)) {
                got = Some(e);
                break;
            }
        }
        assert_eq!(got, Some(expected.clone()), "byte by byte {input:02x?}");
        assert_eq!(expected.offset(), got.map_or(0, |e| e.offset()));
        assert!(!expected.to_string().is_empty());
    }
}

#[test]
fn message_limit_counts_fragments() {
    let limits = FrameLimits {
        max_frame_size: 10,
        max_message_size: 12,
    };
    let mut d = WsDecoder::with_limits(Role::Client, limits);
    let mut input = vec![0x02, 0x06];
    input.extend([1; 6]);
    input.extend([0x89, 0x00]); // a ping between fragments
    input.extend([0x00, 0x06]);
    input.extend([2; 6]);
    assert_eq!(
        events(&mut d, &input),
        Ok(vec![
            data(&[1; 6], false),
            Ev::Ping(vec![]),
            data(&[2; 6], false)
        ])
    );
    assert!(!d.is_at_boundary());
    assert_eq!(
        events(&mut d, &[0x80, 0x01, 3]),
        Err(FrameError::MessageTooLarge {
            offset: 19,
            size: 13,
            max: 12
        })
    );
    // the frame limit comes first
    let mut d = WsDecoder::with_limits(Role::Client, limits);
    assert_eq!(
        events(&mut d, &[0x82, 0x0B]),
        Err(FrameError::FrameTooLarge {
            offset: 1,
            len: 11,
            max: 10
        })
    );
    // an unfragmented frame is a message by itself
    let limits = FrameLimits {
        max_frame_size: 10,
        max_message_size: 5,
    };
    let mut d = WsDecoder::with_limits(Role::Client, limits);
    assert_eq!(
        events(&mut d, &[0x82, 0x06]),
        Err(FrameError::MessageTooLarge {
            offset: 1,
            size: 6,
            max: 5
        })
    );
}

#[test]
fn close_codes_and_error_codes() {
    use FrameError as E;
    assert_eq!(
        E::TextFrame { offset: 0 }.close_code(),
        CloseCode::UNSUPPORTED_DATA
    );
    assert_eq!(
        E::FrameTooLarge {
            offset: 0,
            len: 1,
            max: 0
        }
        .close_code(),
        CloseCode::MESSAGE_TOO_BIG
    );
    assert_eq!(
        E::InvalidCloseReason { offset: 0 }.close_code(),
        CloseCode::INVALID_PAYLOAD
    );
    assert_eq!(
        E::MaskedFrame { offset: 0 }.close_code(),
        CloseCode::PROTOCOL_ERROR
    );
    // valid close frames
    for (input, expected) in [
        (vec![0x88, 0x00], Ev::Close(None, String::new())),
        (
            vec![0x88, 0x02, 0x03, 0xE8],
            Ev::Close(Some(1000), String::new()),
        ),
        (
            vec![0x88, 0x06, 0x0F, 0xA0, b'b', 0xC3, 0xA9, b'!'],
            Ev::Close(Some(4000), "bé!".into()),
        ),
    ] {
        let mut d = WsDecoder::client();
        assert_eq!(events(&mut d, &input), Ok(vec![expected]));
        assert!(d.is_closed());
        assert_eq!(d.end_of_stream(), Ok(()));
    }
}

#[test]
fn client_pieces_are_borrowed_and_split_with_the_input() {
    let mut wire = Vec::new();
    WsEncoder::server().encode(&[7; 300], &mut wire);
    let mut d = WsDecoder::client();
    let (a, b) = wire.split_at(100);
    assert_eq!(events(&mut d, a), Ok(vec![data(&[7; 96], false)]));
    assert_eq!(d.stream_offset(), 100);
    assert!(!d.is_at_boundary());
    assert_eq!(
        d.end_of_stream(),
        Err(FrameError::Truncated {
            offset: 100,
            frame_offset: 0
        })
    );
    assert_eq!(events(&mut d, b), Ok(vec![data(&[7; 204], true)]));
    assert!(d.is_at_boundary());
    assert_eq!(d.end_of_stream(), Ok(()));

    // a header split anywhere
    let mut d = WsDecoder::client();
    assert_eq!(events(&mut d, &wire[..3]), Ok(vec![]));
    assert_eq!(
        d.end_of_stream(),
        Err(FrameError::Truncated {
            offset: 3,
            frame_offset: 0
        })
    );
    let (used, event) = d.next_event(&wire[3..]).unwrap();
    let Some(Event::Data(p)) = event else {
        panic!()
    };
    assert_eq!(
        (used, p.offset(), p.input_range()),
        (wire.len() - 3, 4, Some(1..301))
    );
    assert!(p.is_end_of_frame());
}

#[test]
fn server_unmasks_at_any_split() {
    let payload: Vec<u8> = (0..=255).collect();
    let mut wire = Vec::new();
    let mut keys = XorShiftMask::new(3);
    let mut encoder = WsEncoder::client(move || keys.next_mask())
        .with_max_frame_size(100)
        .unwrap();
    encoder.encode(&payload, &mut wire);
    for cut in 0..=wire.len() {
        let mut d = WsDecoder::server();
        let mut got = Vec::new();
        for part in [&wire[..cut], &wire[cut..]] {
            for e in events(&mut d, part).unwrap() {
                let Ev::Data(bytes, _, copied) = e else {
                    panic!()
                };
                assert!(copied || bytes.is_empty());
                got.extend(bytes);
            }
        }
        assert_eq!(got, payload, "cut {cut}");
    }
}

#[test]
fn empty_frames() {
    // an empty unfragmented frame is an empty message
    assert_eq!(
        events(&mut WsDecoder::client(), &[0x82, 0x00]),
        Ok(vec![data(&[], true)])
    );
    // empty fragments: only the end is reported
    assert_eq!(
        events(
            &mut WsDecoder::client(),
            &[0x02, 0x00, 0x00, 0x00, 0x80, 0x00]
        ),
        Ok(vec![data(&[], true)])
    );
    // empty control frames
    assert_eq!(
        events(&mut WsDecoder::server(), &masked(0x89, &[])),
        Ok(vec![Ev::Ping(vec![])])
    );
}

#[test]
fn control_frames_split_anywhere() {
    let mut wire = masked(0x89, b"ping!");
    wire.extend(masked(0x02, b"ab"));
    wire.extend(masked(0x8A, &[9; 125]));
    wire.extend(masked(0x80, b"c"));
    wire.extend(masked(0x88, b"\x03\xe8done"));
    let expected = vec![
        Ev::Ping(b"ping!".to_vec()),
        Ev::Data(b"ab".to_vec(), false, true),
        Ev::Pong(vec![9; 125]),
        Ev::Data(b"c".to_vec(), true, true),
        Ev::Close(Some(1000), "done".into()),
    ];
    for cut in 0..=wire.len() {
        let mut d = WsDecoder::server();
        let mut got = events(&mut d, &wire[..cut]).unwrap();
        got.extend(events(&mut d, &wire[cut..]).unwrap());
        // data may come in more pieces; merge them
        let mut merged: Vec<Ev> = Vec::new();
        for e in got {
            match (merged.last_mut(), e) {
                (Some(Ev::Data(a, false, _)), Ev::Data(b, end, _)) => {
                    a.extend(b);
                    if end {
                        if let Some(Ev::Data(_, e, _)) = merged.last_mut() {
                            *e = true;
                        }
                    }
                }
                (_, e) => merged.push(e),
            }
        }
        assert_eq!(merged, expected, "cut {cut}");
        assert!(d.is_closed());
    }
}

// ---------------------------------------------------------------------------------------
// Encoder
// ---------------------------------------------------------------------------------------

#[test]
fn encoder_sizes_and_errors() {
    assert_eq!(
        WsEncoder::server().with_max_frame_size(0).err(),
        Some(EncodeError::InvalidMaxFrameSize { size: 0 })
    );
    assert_eq!(
        WsEncoder::server().with_max_frame_size(65_537).err(),
        Some(EncodeError::InvalidMaxFrameSize { size: 65_537 })
    );
    for max in [1, 2, 125, 126, 1000, 65_535, 65_536] {
        for masked in [false, true] {
            for len in [0, 1, 125, 126, 127, 1000, 65_535, 65_536, 65_537, 200_000] {
                let data = vec![0x5A; len];
                let mut out = vec![1, 2, 3];
                let n = if masked {
                    let mut e = WsEncoder::client(|| [9, 8, 7, 6])
                        .with_max_frame_size(max)
                        .unwrap();
                    assert_eq!(e.role(), Role::Client);
                    assert_eq!(
                        e.encoded_len(len),
                        len + out.len() - 3 + {
                            let mut tmp = Vec::new();
                            e.encode(&data, &mut tmp);
                            tmp.len() - len
                        }
                    );
                    e.encode(&data, &mut out)
                } else {
                    let mut e = WsEncoder::server().with_max_frame_size(max).unwrap();
                    assert_eq!(e.max_frame_size(), max);
                    e.encode(&data, &mut out)
                };
                assert_eq!(n, out.len() - 3);
                // every frame within the limit, and the data back
                let role = if masked { Role::Server } else { Role::Client };
                let limits = FrameLimits {
                    max_frame_size: max as u64,
                    max_message_size: max as u64,
                };
                let mut d = WsDecoder::with_limits(role, limits);
                let got: Vec<u8> = events(&mut d, &out[3..])
                    .unwrap()
                    .into_iter()
                    .flat_map(|e| match e {
                        Ev::Data(b, true, _) => b,
                        other => panic!("{other:?}"),
                    })
                    .collect();
                assert_eq!(got, data);
            }
        }
    }
    let mut e = WsEncoder::server();
    let mut out = Vec::new();
    assert_eq!(
        e.ping(&[0; 126], &mut out),
        Err(EncodeError::ControlPayloadTooLong { len: 126 })
    );
    assert_eq!(
        e.close(Some(CloseCode::NORMAL), &"x".repeat(124), &mut out),
        Err(EncodeError::ControlPayloadTooLong { len: 126 })
    );
    assert_eq!(
        e.close(Some(CloseCode(1006)), "", &mut out),
        Err(EncodeError::InvalidCloseCode {
            code: CloseCode(1006)
        })
    );
    assert_eq!(
        e.close(None, "why", &mut out),
        Err(EncodeError::ReasonWithoutCode)
    );
    assert_eq!(
        e.frame(true, Opcode::Pong, &[0; 126], &mut out),
        Err(EncodeError::ControlPayloadTooLong { len: 126 })
    );
    assert!(out.is_empty());
    assert_eq!(e.close(None, "", &mut out), Ok(2));
    assert_eq!(out, [0x88, 0x00]);
    assert_eq!(e.role(), Role::Server);
}

#[test]
fn xorshift_masks() {
    let mut a = XorShiftMask::new(0);
    let mut b = XorShiftMask::new(0x9E37_79B9_7F4A_7C15);
    assert_eq!(a, b);
    let keys: Vec<[u8; 4]> = (0..1000).map(|_| a.next_mask()).collect();
    assert_eq!(keys[0], b.next_mask());
    let mut distinct = keys.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), keys.len());
}

// ---------------------------------------------------------------------------------------
// Opening handshake
// ---------------------------------------------------------------------------------------

fn client() -> ClientUpgrade {
    ClientUpgrade::new("127.0.0.1:7687", "/", *b"the sample nonce").unwrap()
}

const ACCEPT: &str = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

fn response(headers: &str) -> Vec<u8> {
    format!("HTTP/1.1 101 Switching Protocols\r\n{headers}\r\n").into_bytes()
}

fn good_headers() -> String {
    format!("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {ACCEPT}\r\n")
}

#[test]
fn client_accepts_variants_at_any_split() {
    let variants = [
        good_headers(),
        format!(
            "upgrade:WebSocket\r\nconnection: keep-alive, UPGRADE\r\nSEC-WEBSOCKET-ACCEPT:  \
             {ACCEPT}\t\r\nServer: test\r\nSec-WebSocket-Extensions:\r\n"
        ),
        format!(
            "Connection: keep-alive\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nUpgrade: \
             websocket\r\nSec-WebSocket-Accept: {ACCEPT}\r\n"
        ),
    ];
    for headers in variants {
        let mut input = response(&headers);
        let head_len = input.len();
        input.extend([0x82, 0x04, 0, 0, 8, 5]);
        for cut in 0..=input.len() {
            let mut c = client();
            let first = c.receive(&input[..cut]).unwrap();
            let used = match first {
                Status::Complete(used) => {
                    assert!(cut >= head_len);
                    used
                }
                Status::NeedMore => {
                    assert!(cut < head_len, "cut {cut}");
                    match c.receive(&input[cut..]).unwrap() {
                        Status::Complete(used) => cut + used,
                        Status::NeedMore => panic!("cut {cut}"),
                    }
                }
            };
            assert_eq!(used, head_len);
            assert_eq!(c.receive(&[]), Err(UpgradeError::Finished));
        }
    }
    // a status line without a reason phrase
    let mut c = client();
    let input = format!("HTTP/1.1 101\r\n{}\r\n", good_headers());
    assert!(matches!(
        c.receive(input.as_bytes()),
        Ok(Status::Complete(_))
    ));
}

#[test]
fn client_refusals() {
    use UpgradeError as E;
    let head = |h: &str| response(h);
    let end = |h: &str| head(h).len() - 2;
    let good = good_headers();
    let discovery = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
        Access-Control-Allow-Origin: *\r\nContent-Length: 2\r\n\r\n{}"
        .to_vec();
    let cases: Vec<(Vec<u8>, UpgradeError)> = vec![
        (
            discovery,
            E::UnexpectedStatus {
                offset: 9,
                code: 200,
                reason: "OK".into(),
            },
        ),
        (
            vec![0x00, 0x00, 0x08, 0x05],
            E::MalformedStartLine {
                offset: 0,
                expected: "\"HTTP/1.1 \"",
            },
        ),
        (
            b"HTTP/1.0 101 x\r\n\r\n".to_vec(),
            E::MalformedStartLine {
                offset: 7,
                expected: "\"HTTP/1.1 \"",
            },
        ),
        (
            b"HTTP/1.1 1o1 x\r\n\r\n".to_vec(),
            E::MalformedStartLine {
                offset: 9,
                expected: "a 3-digit status code",
            },
        ),
        (
            b"HTTP/1.1 1011\r\n\r\n".to_vec(),
            E::MalformedStartLine {
                offset: 12,
                expected: "a space after the status code",
            },
        ),
        (
            head(&format!("{good}Bad Name: x\r\n")),
            E::MalformedHeader {
                offset: head(&good).len() - 2,
            },
        ),
        (
            head(&format!("{good}X-Folded: a\r\n b\r\n")),
            E::MalformedHeader {
                offset: head(&good).len() - 2 + 13,
            },
        ),
        (
            head(&format!("{good}X: a\rb\r\n")),
            E::MalformedHeader {
                offset: head(&good).len() - 2 + 4,
            },
        ),
        (
            head("Connection: Upgrade\r\nSec-WebSocket-Accept: x\r\n"),
            E::MissingHeader {
                offset: end("Connection: Upgrade\r\nSec-WebSocket-Accept: x\r\n"),
                name: "Upgrade",
            },
        ),
        (
            head("Upgrade: websocket\r\nConnection: close\r\n"),
            E::InvalidHeader {
                offset: 66,
                name: "Connection",
                expected: "the token \"Upgrade\"",
            },
        ),
        (
            head("Upgrade: websocket\r\nConnection: Upgrade\r\n"),
            E::MissingHeader {
                offset: end("Upgrade: websocket\r\nConnection: Upgrade\r\n"),
                name: "Sec-WebSocket-Accept",
            },
        ),
        (
            head("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAA\r\n"),
            E::AcceptMismatch {
                offset: 97,
                expected: ACCEPT.into(),
                found: "AAAA".into(),
            },
        ),
        (
            head(&format!("{good}Sec-WebSocket-Accept: {ACCEPT}\r\n")),
            E::InvalidHeader {
                offset: head(&good).len() - 2 + 22,
                name: "Sec-WebSocket-Accept",
                expected: "a single occurrence",
            },
        ),
        (
            head(&format!(
                "{good}Sec-WebSocket-Extensions: permessage-deflate\r\n"
            )),
            E::UnexpectedExtension {
                offset: head(&good).len() - 2 + 26,
                value: "permessage-deflate".into(),
            },
        ),
        (
            head(&format!("{good}Sec-WebSocket-Protocol: bolt\r\n")),
            E::UnexpectedSubprotocol {
                offset: head(&good).len() - 2 + 24,
                value: "bolt".into(),
            },
        ),
    ];
    for (input, expected) in cases {
        let mut c = client();
        assert_eq!(c.receive(&input), Err(expected.clone()), "{input:?}");
        assert_eq!(c.receive(b"\r\n\r\n"), Err(expected.clone())); // poisoned
        assert!(!expected.to_string().is_empty());
    }
    // the reason phrase is capped
    let long = format!("HTTP/1.1 404 {}\r\n\r\n", "n".repeat(1000));
    let Err(E::UnexpectedStatus { reason, .. }) = client().receive(long.as_bytes()) else {
        panic!()
    };
    assert_eq!(reason.len(), 256);
    // an endless head
    let mut c = client();
    let mut big = b"HTTP/1.1 101 ".to_vec();
    big.resize(MAX_HEAD_SIZE - 1, b'x');
    assert_eq!(c.receive(&big), Ok(Status::NeedMore));
    assert_eq!(
        c.receive(b"xx\r\n\r\n"),
        Err(E::HeadTooLarge {
            offset: MAX_HEAD_SIZE,
            max: MAX_HEAD_SIZE
        })
    );
}

#[test]
fn client_request_arguments() {
    let bad = |host: &str, path: &str| ClientUpgrade::new(host, path, [0; 16]).is_err();
    assert!(bad("", "/"));
    assert!(bad("a b", "/"));
    assert!(bad("host\r\nX: y", "/"));
    assert!(bad("host/x", "/"));
    assert!(bad("host", ""));
    assert!(bad("host", "x"));
    assert!(bad("host", "/a b"));
    assert!(bad("host", "/#frag"));
    assert!(!bad("[::1]:7687", "/db?x=1"));
    let c = client()
        .with_header("Origin", "http://localhost")
        .and_then(|c| c.with_header("User-Agent", "boltcodec\ttest"))
        .unwrap();
    let text = String::from_utf8(c.request().to_vec()).unwrap();
    assert!(text.ends_with(
        "Sec-WebSocket-Version: 13\r\nOrigin: http://localhost\r\nUser-Agent: boltcodec\ttest\r\n\r\n"
    ));
    for (name, value) in [
        ("Sec-WebSocket-Protocol", "bolt"),
        ("host", "x"),
        ("Bad Name", "x"),
        ("", "x"),
        ("X", "a\r\nb"),
        ("X", "é"),
    ] {
        assert!(client().with_header(name, value).is_err(), "{name}");
    }
    assert!(matches!(
        client().with_header("X", &"v".repeat(MAX_HEAD_SIZE)),
        Err(UpgradeError::HeadTooLarge { .. })
    ));
}

fn request(headers: &str) -> Vec<u8> {
    format!("GET / HTTP/1.1\r\n{headers}\r\n").into_bytes()
}

const GOOD_REQUEST: &str = "Host: localhost:7687\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
    Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";

#[test]
fn server_parses_requests() {
    let mut input = request(&format!(
        "{GOOD_REQUEST}Origin: http://x\r\nSec-WebSocket-Protocol: a, b\r\n\
         Sec-WebSocket-Protocol: c\r\nSec-WebSocket-Extensions: permessage-deflate\r\n"
    ));
    let head_len = input.len();
    input.extend([0x82, 0x80]);
    for cut in 0..=input.len() {
        let mut s = ServerUpgrade::default();
        let (req, used) = match s.receive(&input[..cut]).unwrap() {
            Status::Complete(r) => {
                let used = r.used();
                (r, used)
            }
            Status::NeedMore => {
                let Status::Complete(r) = s.receive(&input[cut..]).unwrap() else {
                    panic!()
                };
                let used = cut + r.used();
                (r, used)
            }
        };
        assert_eq!(used, head_len);
        assert_eq!(req.target(), "/");
        assert_eq!(req.host(), "localhost:7687");
        assert_eq!(req.key(), "dGhlIHNhbXBsZSBub25jZQ==");
        assert_eq!(req.origin(), Some("http://x"));
        assert_eq!(req.protocols(), Some("a, b, c"));
        assert_eq!(req.extensions(), Some("permessage-deflate"));
        assert_eq!(
            req.response(),
            format!(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: \
                 Upgrade\r\nSec-WebSocket-Accept: {ACCEPT}\r\n\r\n"
            )
            .into_bytes()
        );
        assert_eq!(s.receive(&[]), Err(UpgradeError::Finished));
    }
}

#[test]
fn server_refusals() {
    use UpgradeError as E;
    let without = |name: &str| {
        let headers: String = GOOD_REQUEST
            .split_inclusive("\r\n")
            .filter(|l| !l.starts_with(name))
            .collect();
        request(&headers)
    };
    let replace = |from: &str, to: &str| request(&GOOD_REQUEST.replace(from, to));
    let cases: Vec<(Vec<u8>, UpgradeError, &str)> = vec![
        (
            b"POST / HTTP/1.1\r\n\r\n".to_vec(),
            E::MalformedStartLine {
                offset: 0,
                expected: "\"GET \"",
            },
            "400",
        ),
        (
            b"GET / HTTP/1.0\r\n\r\n".to_vec(),
            E::MalformedStartLine {
                offset: 5,
                expected: "\" HTTP/1.1\" after the target",
            },
            "400",
        ),
        (
            b"GET  HTTP/1.1\r\n\r\n".to_vec(),
            E::MalformedStartLine {
                offset: 4,
                expected: "a request target of visible ASCII",
            },
            "400",
        ),
        (
            without("Host"),
            E::MissingHeader {
                offset: without("Host").len() - 2,
                name: "Host",
            },
            "400",
        ),
        (
            without("Upgrade"),
            E::MissingHeader {
                offset: without("Upgrade").len() - 2,
                name: "Upgrade",
            },
            "400",
        ),
        (
            replace("Connection: Upgrade", "Connection: keep-alive"),
            E::InvalidHeader {
                offset: 70,
                name: "Connection",
                expected: "the token \"Upgrade\"",
            },
            "400",
        ),
        (
            without("Sec-WebSocket-Key"),
            E::MissingHeader {
                offset: without("Sec-WebSocket-Key").len() - 2,
                name: "Sec-WebSocket-Key",
            },
            "400",
        ),
        (
            replace("dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZQ=="),
            E::InvalidHeader {
                offset: 98,
                name: "Sec-WebSocket-Key",
                expected: "16 bytes in base64",
            },
            "400",
        ),
        (
            replace("Version: 13", "Version: 8"),
            E::UnsupportedVersion {
                offset: 147,
                found: "8".into(),
            },
            "426",
        ),
        (
            without("Sec-WebSocket-Version"),
            E::MissingHeader {
                offset: without("Sec-WebSocket-Version").len() - 2,
                name: "Sec-WebSocket-Version",
            },
            "400",
        ),
        (
            request(&format!("{GOOD_REQUEST}Host: other\r\n")),
            E::InvalidHeader {
                offset: request(GOOD_REQUEST).len() - 2 + 6,
                name: "Host",
                expected: "a single occurrence",
            },
            "400",
        ),
    ];
    for (input, expected, status) in cases {
        let mut s = ServerUpgrade::new();
        assert_eq!(s.receive(&input), Err(expected.clone()), "{expected:?}");
        assert_eq!(s.receive(&input), Err(expected.clone()));
        let rejection = ServerUpgrade::rejection(&expected);
        assert!(rejection.starts_with(format!("HTTP/1.1 {status} ").as_bytes()));
        assert!(rejection.ends_with(b"\r\n\r\n"));
    }
    let version = ServerUpgrade::rejection(&E::UnsupportedVersion {
        offset: 0,
        found: "8".into(),
    });
    assert!(String::from_utf8(version)
        .unwrap()
        .contains("\r\nSec-WebSocket-Version: 13\r\n"));
    let mut s = ServerUpgrade::new();
    let mut big = b"GET /".to_vec();
    big.resize(MAX_HEAD_SIZE, b'a');
    let err = s.receive(&big).unwrap_err();
    assert!(ServerUpgrade::rejection(&err).starts_with(b"HTTP/1.1 431 "));
}

// ---------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------

#[test]
fn stream_answers_pings_and_closes() {
    let mut client = WsStream::client(XorShiftMask::new(7));
    let mut server = WsStream::server();
    let (mut wire, mut bolt, mut send) = (Vec::new(), Vec::new(), Vec::new());

    // server pings between two pieces of data; the client answers with a pong
    server.to_wire(b"ab", &mut wire).unwrap();
    server.ping(b"hi", &mut wire).unwrap();
    server.to_wire(b"cd", &mut wire).unwrap();
    assert_eq!(
        client.from_wire(&wire, &mut bolt, &mut send),
        Ok(WireStatus::Open)
    );
    assert_eq!(bolt, b"abcd");
    let mut d = WsDecoder::server();
    assert_eq!(events(&mut d, &send), Ok(vec![Ev::Pong(b"hi".to_vec())]));

    // the client closes; the server replies with the same code; the client sees it
    let mut wire = Vec::new();
    client
        .close(Some(CloseCode::NORMAL), "bye", &mut wire)
        .unwrap();
    assert!(client.is_close_sent());
    assert_eq!(client.close(None, "", &mut wire), Ok(0));
    assert_eq!(client.to_wire(b"x", &mut wire), Err(StreamError::Closing));
    assert_eq!(client.ping(b"x", &mut wire), Err(StreamError::Closing));
    let (mut bolt, mut reply) = (Vec::new(), Vec::new());
    let closed = WireStatus::Closed(CloseInfo {
        code: Some(CloseCode::NORMAL),
        reason: "bye".into(),
    });
    assert_eq!(server.from_wire(&wire, &mut bolt, &mut reply), Ok(closed));
    assert!(server.is_closed());
    assert_eq!(reply, [0x88, 0x02, 0x03, 0xE8]);
    assert_eq!(server.to_wire(b"x", &mut wire), Err(StreamError::Closing));
    let mut send = Vec::new();
    let status = client.from_wire(&reply, &mut bolt, &mut send).unwrap();
    assert_eq!(
        status,
        WireStatus::Closed(CloseInfo {
            code: Some(CloseCode::NORMAL),
            reason: String::new()
        })
    );
    assert!(client.is_closed());
    assert!(send.is_empty()); // no second close
    assert_eq!(
        client.close_received().and_then(|c| c.code),
        Some(CloseCode::NORMAL)
    );
    // anything after the close is ignored (a Neo4j 2026 server sends a second close)
    let second = [0x88, 0x05, 0x03, 0xE8, b'B', b'y', b'e', 0x82];
    let status = client.from_wire(&second, &mut bolt, &mut send);
    assert!(matches!(status, Ok(WireStatus::Closed(_))));
    assert!(bolt.is_empty() && send.is_empty());
    assert_eq!(client.decoder().ignored_after_close(), 8);
    assert_eq!(client.decoder().stream_offset(), 24);
}

#[test]
fn stream_errors_carry_close_codes() {
    let mut client = WsStream::client(|| [0; 4]);
    let (mut bolt, mut send) = (Vec::new(), Vec::new());
    let err = client
        .from_wire(&[0x82, 0x01, 7, 0x81, 0x00], &mut bolt, &mut send)
        .unwrap_err();
    assert_eq!(bolt, [7]); // data before the error is delivered
    let StreamError::Frame(e) = &err else {
        panic!()
    };
    assert_eq!(e, &FrameError::TextFrame { offset: 3 });
    let mut out = Vec::new();
    client.close(Some(e.close_code()), "", &mut out).unwrap();
    let mut d = WsDecoder::server();
    assert_eq!(
        events(&mut d, &out),
        Ok(vec![Ev::Close(Some(1003), String::new())])
    );
    assert!(!err.to_string().is_empty());
    // accessors
    assert_eq!(client.decoder().role(), Role::Client);
    assert_eq!(client.encoder().max_frame_size(), MAX_FRAME_SIZE);
}

#[test]
fn stream_pieces_without_copy() {
    let mut server = WsStream::server();
    let mut wire = Vec::new();
    server.to_wire(&[1, 2, 3], &mut wire).unwrap();
    server.to_wire(&[4, 5], &mut wire).unwrap();
    let mut client = WsStream::client(|| [0; 4]);
    let mut pieces = Vec::new();
    let mut send = Vec::new();
    client
        .from_wire_with(&wire, &mut send, |p| {
            // a slice of the input
            let start = p.as_ptr() as usize - wire.as_ptr() as usize;
            pieces.push((start, p.to_vec()));
        })
        .unwrap();
    assert_eq!(pieces, [(2, vec![1, 2, 3]), (7, vec![4, 5])]);
}
