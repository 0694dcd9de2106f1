//! Unit tests of the handshake: wire pieces, varints and both state machines.

use super::*;
use test_support::hex;
use BoltVersion as V;

/// Feeds `input` one byte at a time; returns the final step and the index of the byte
/// that completed it.
fn feed_bytewise(
    mut receive: impl FnMut(&[u8]) -> Result<Step, HandshakeError>,
    input: &[u8],
) -> Result<(Step, usize), HandshakeError> {
    for (i, b) in input.iter().enumerate() {
        match receive(std::slice::from_ref(b))? {
            Step::NeedMore => {}
            step => return Ok((step, i)),
        }
    }
    Ok((Step::NeedMore, input.len()))
}

/// A server as Neo4j of this flavour (`test_support::neo4j_bolt_versions`).
fn neo4j(flavour: &str) -> ServerConfig {
    let versions: Vec<BoltVersion> = test_support::neo4j_bolt_versions(flavour)
        .into_iter()
        .map(|(major, minor)| V::new(major, minor))
        .collect();
    ServerConfig::new(&versions)
}

/// The servers of the captures: Neo4j 5.26 installs 4.0–4.4, 5.0–5.4 and 5.6–5.8.
fn neo4j_5_26() -> ServerConfig {
    neo4j("5.26")
}

/// Neo4j 2026.08 adds 6.0 and 6.1.
fn neo4j_2026() -> ServerConfig {
    neo4j("2026")
}

fn config_from_hello(hello: &[u8]) -> ClientConfig {
    let Status::Complete((h, 20)) = ClientHello::parse(hello).unwrap() else {
        panic!("incomplete hello")
    };
    ClientConfig::new(h.proposals)
}

#[test]
fn varint_vectors() {
    // docs/protocol.md §3.4
    let table: [(u64, &str); 9] = [
        (0, "00"),
        (1, "01"),
        (127, "7f"),
        (128, "8001"),
        (300, "ac02"),
        (1_851_775, "ff8271"),
        (u64::from(u32::MAX), "ffffffff0f"),
        (1 << 63, "80808080808080808001"),
        (u64::MAX, "ffffffffffffffffff01"),
    ];
    for (value, bytes) in table {
        let mut out = Vec::new();
        encode_varint(value, &mut out);
        assert_eq!(out, hex(bytes), "{value}");
        assert_eq!(varint_len(value), out.len(), "{value}");
        assert_eq!(
            decode_varint(&out),
            Ok(Status::Complete((value, out.len())))
        );
        for cut in 0..out.len() {
            assert_eq!(decode_varint(&out[..cut]), Ok(Status::NeedMore));
        }
    }
    // non-minimal forms are valid LEB128
    assert_eq!(decode_varint(&hex("8000")), Ok(Status::Complete((0, 2))));
    assert_eq!(
        decode_varint(&hex("ff00ff")),
        Ok(Status::Complete((127, 2)))
    );
}

#[test]
fn varint_rejects_overlong_and_overflow() {
    assert_eq!(
        decode_varint(&[0x80; 10]),
        Err(HandshakeError::VarintTooLong { offset: 9 })
    );
    // 9 continuation bytes then a 10th byte: only 0 or 1 fit in 64 bits.
    let mut v = vec![0xFF; 9];
    v.push(0x02);
    assert_eq!(
        decode_varint(&v),
        Err(HandshakeError::VarintOverflow { offset: 9 })
    );
    // the error comes as soon as the 10th byte is there
    assert_eq!(decode_varint(&[0x80; 9]), Ok(Status::NeedMore));
}

#[test]
fn ranges_and_proposals() {
    let r = VersionRange::from_bytes([0, 8, 8, 5]);
    assert_eq!(r.versions().count(), 9);
    assert!(r.contains(V::new(5, 5))); // the range covers it; choosing is another matter
    assert_eq!(r.to_bytes(), [0, 8, 8, 5]);
    // range larger than minor stops at 0
    let r = VersionRange::new(5, 2, 9);
    assert_eq!(r.lowest(), V::V5_0);
    assert_eq!(r.versions().count(), 3);
    // Bolt 1-3 slots: only the major byte counts
    assert_eq!(
        VersionRange::from_bytes([0, 3, 5, 3]),
        VersionRange::exact(V::V3_0)
    );
    assert_eq!(
        VersionRange::between(V::V5_8, V::V5_6),
        Some(VersionRange::new(5, 8, 2))
    );
    assert_eq!(VersionRange::between(V::V5_0, V::V4_4), None);
    assert_eq!(VersionRange::between(V::V5_0, V::V5_1), None);
    assert!(VersionRange::exact(V::V4_1).contains_equivalent(V::V4_2));
    assert!(!VersionRange::exact(V::V4_3).contains_equivalent(V::V4_2));

    assert_eq!(Proposal::from_bytes(MANIFEST_V1), Proposal::MANIFEST_V1);
    assert_eq!(Proposal::from_bytes([0, 0, 2, 0xFF]), Proposal::Manifest(2));
    assert_eq!(Proposal::from_bytes(NO_VERSION), Proposal::Empty);
    assert_eq!(Proposal::from_bytes([7, 0, 0, 0]), Proposal::Empty); // reserved byte ignored
    assert_eq!(Proposal::MANIFEST_V1.to_bytes(), MANIFEST_V1);
    assert_eq!(
        Proposal::range(V::V6_1, V::V6_0).map(Proposal::to_bytes),
        Some([0, 1, 1, 6])
    );
}

#[test]
fn default_client_hello_bytes() {
    assert_eq!(
        ClientHandshake::new(ClientConfig::default())
            .hello()
            .to_vec(),
        hex("6060b017 000001ff 00010106 00080805 00000404")
    );
    assert_eq!(
        ClientHandshake::new(ClientConfig::legacy())
            .hello()
            .to_vec(),
        hex("6060b017 00010106 00080805 00000404 00000000")
    );
    assert!(ClientConfig::default().offers_manifest());
    assert!(!ClientConfig::legacy().offers_manifest());
}

/// `neo4j-5.26.30/bolt-5.8/node.txt`: manifest handshake as sent by the Python driver.
#[test]
fn capture_5_26_bolt_5_8_manifest() {
    let c2s_hello = hex("6060b017000001ff000808050002040400000003");
    let s2c = hex("000001ff0300040404000404050002080500");
    let c2s_pick = hex("0000080500");

    // client role, fed in one piece and byte by byte
    let config = config_from_hello(&c2s_hello);
    let mut client = ClientHandshake::new(config.clone());
    assert_eq!(client.hello().to_vec(), c2s_hello);
    let expected = Step::Negotiated {
        version: V::V5_8,
        send: c2s_pick.clone(),
        consumed: s2c.len(),
    };
    assert_eq!(client.receive(&s2c), Ok(expected));
    assert_eq!(client.receive(&[]), Err(HandshakeError::Finished));
    let mut client = ClientHandshake::new(config);
    let (step, at) = feed_bytewise(|b| client.receive(b), &s2c).unwrap();
    assert_eq!(at, s2c.len() - 1);
    assert!(
        matches!(step, Step::Negotiated { version: V::V5_8, ref send, consumed: 1 } if *send == c2s_pick)
    );

    // server role
    let mut server = ServerHandshake::new(neo4j_5_26());
    assert_eq!(
        server.receive(&c2s_hello),
        Ok(Step::Continue {
            send: s2c.clone(),
            consumed: 20
        })
    );
    assert_eq!(
        server.receive(&c2s_pick),
        Ok(Step::Negotiated {
            version: V::V5_8,
            send: vec![],
            consumed: 5
        })
    );
}

/// `neo4j-2026.08.1/bolt-6.1/node.txt`: the server also offers 6.1–6.0.
#[test]
fn capture_2026_bolt_6_1_manifest() {
    let c2s_hello = hex("6060b017000001ff000808050002040400000003");
    let s2c = hex("000001ff040004040400040405000208050001010600");
    let c2s_pick = hex("0000010600");

    let mut client = ClientHandshake::new(config_from_hello(&c2s_hello));
    assert_eq!(
        client.receive(&s2c),
        Ok(Step::Negotiated {
            version: V::V6_1,
            send: c2s_pick.clone(),
            consumed: s2c.len()
        })
    );
    let mut server = ServerHandshake::new(neo4j_2026());
    assert_eq!(
        server.receive(&c2s_hello),
        Ok(Step::Continue {
            send: s2c,
            consumed: 20
        })
    );
    assert_eq!(
        server.receive(&c2s_pick),
        Ok(Step::Negotiated {
            version: V::V6_1,
            send: vec![],
            consumed: 5
        })
    );
    // the ranges the server lists, in its order
    assert_eq!(
        neo4j_2026()
            .manifest_ranges()
            .iter()
            .map(|r| r.to_bytes())
            .collect::<Vec<_>>(),
        [[0, 4, 4, 4], [0, 4, 4, 5], [0, 2, 8, 5], [0, 1, 1, 6]]
    );
}

/// `neo4j-5.26.30/bolt-4.4/node.txt` and `neo4j-5.26.30/bolt-5.0/node.txt`: legacy
/// handshakes (the capture proxy rewrote the proposals).
#[test]
fn capture_5_26_legacy() {
    for (c2s, s2c, version) in [
        (
            "6060b01700000404000000000000000000000000",
            "00000404",
            V::V4_4,
        ),
        (
            "6060b01700000005000000000000000000000000",
            "00000005",
            V::V5_0,
        ),
    ] {
        let (c2s, s2c) = (hex(c2s), hex(s2c));
        let mut server = ServerHandshake::new(neo4j_5_26());
        assert_eq!(
            server.receive(&c2s),
            Ok(Step::Negotiated {
                version,
                send: s2c.clone(),
                consumed: 20
            })
        );
        let mut client = ClientHandshake::new(config_from_hello(&c2s));
        assert_eq!(client.hello().to_vec(), c2s);
        assert_eq!(
            client.receive(&s2c),
            Ok(Step::Negotiated {
                version,
                send: vec![],
                consumed: 4
            })
        );
    }
}

/// docs/protocol.md §3.3 examples.
#[test]
fn reference_legacy_examples() {
    // a 4.1 server and the offer 4.3..4.0, 4.1, 4.0, 3
    let hello = hex("6060b017 00030304 00000104 00000004 00000003");
    let mut server = ServerHandshake::new(ServerConfig::new(&[V::V4_1]));
    assert_eq!(
        server.receive(&hello),
        Ok(Step::Negotiated {
            version: V::V4_1,
            send: hex("00000104"),
            consumed: 20
        })
    );
    // Bolt 3
    let hello = hex("6060b017 00000003 00000002 00000001 00000000");
    let mut server = ServerHandshake::new(ServerConfig::new(&[V::V3_0, V::V4_4]));
    assert_eq!(
        server.receive(&hello),
        Ok(Step::Negotiated {
            version: V::V3_0,
            send: hex("00000003"),
            consumed: 20
        })
    );
}

#[test]
fn four_two_is_four_one() {
    // client offers only 4.2, server supports only 4.1: reply names 4.2
    let hello = hex("6060b017 00000204 00000000 00000000 00000000");
    let mut server = ServerHandshake::new(ServerConfig::new(&[V::V4_1]));
    assert_eq!(
        server.receive(&hello),
        Ok(Step::Negotiated {
            version: V::V4_2,
            send: hex("00000204"),
            consumed: 20
        })
    );
    // a client that offered 4.1 accepts a server that answers 4.2
    let config = ClientConfig::new([
        Proposal::exact(V::V4_1),
        Proposal::Empty,
        Proposal::Empty,
        Proposal::Empty,
    ])
    .with_supported(&[V::V4_1]);
    let mut client = ClientHandshake::new(config);
    assert_eq!(
        client.receive(&hex("00000204")),
        Ok(Step::Negotiated {
            version: V::V4_2,
            send: vec![],
            consumed: 4
        })
    );
}

/// docs/protocol.md §3.4, the docs example: a client supporting up to 5.7 with
/// capability bit 0b1000.
#[test]
fn reference_manifest_example() {
    let supported: Vec<V> = V::SUPPORTED
        .iter()
        .copied()
        .filter(|v| *v <= V::V5_7)
        .collect();
    let config = config_from_hello(&hex("6060b017 000001ff 00000404 00000003 00000002"))
        .with_supported(&supported)
        .with_capabilities(0b1000);
    let mut client = ClientHandshake::new(config);
    assert_eq!(
        client.receive(&hex("000001ff 02 00020805 00040404 09")),
        Ok(Step::Negotiated {
            version: V::V5_7.with_capabilities(0b1000),
            send: hex("00000705 08"),
            consumed: 14
        })
    );
}

/// docs/protocol.md §3.4, the testkit vectors (driver supporting up to 5.7; unknown
/// majors skipped; a wide range does not make the client pick a version it lacks).
#[test]
fn testkit_manifest_vectors() {
    let up_to_5_7: Vec<V> = V::SUPPORTED
        .iter()
        .copied()
        .filter(|v| *v <= V::V5_7)
        .collect();
    let cases = [
        ("000001ff 03 00070705 00040404 00000003 00", "0000070500"),
        ("000001ff 03 00000003 00070705 00040404 00", "0000070500"),
        ("000001ff 03 00000003 00040404 00070705 00", "0000070500"),
        ("000001ff 02 000707f2 00070705 00", "0000070500"),
        ("000001ff 02 00000404 00ffff05 00", "0000070500"),
    ];
    for (offer, pick) in cases {
        let config = ClientConfig::default().with_supported(&up_to_5_7);
        let mut client = ClientHandshake::new(config);
        let Ok(Step::Negotiated { send, .. }) = client.receive(&hex(offer)) else {
            panic!("{offer}")
        };
        assert_eq!(send, hex(pick), "{offer}");
    }
    // with everything supported, the 5.255..5.0 range gives 5.8, never 5.5
    let mut client = ClientHandshake::new(ClientConfig::default());
    let Ok(Step::Negotiated { version, send, .. }) =
        client.receive(&hex("000001ff 02 00000404 00ffff05 00"))
    else {
        panic!()
    };
    assert_eq!((version, send), (V::V5_8, hex("0000080500")));
    // 5.5 alone is never picked
    let mut client = ClientHandshake::new(ClientConfig::default());
    assert_eq!(
        client.receive(&hex("000001ff 01 00000505 00")),
        Ok(Step::Rejected {
            send: hex("0000000000"),
            consumed: 10
        })
    );
}

#[test]
fn client_capabilities_are_intersected() {
    let mut client = ClientHandshake::new(ClientConfig::default().with_capabilities(0b0110));
    assert_eq!(
        client.receive(&hex("000001ff 01 00000805 8501")), // caps 0x85 = 0b1000_0101
        Ok(Step::Negotiated {
            version: V::V5_8.with_capabilities(0b0100),
            send: hex("00000805 04"),
            consumed: 11
        })
    );
}

#[test]
fn client_errors() {
    let client = || ClientHandshake::new(ClientConfig::default());
    assert_eq!(
        client().receive(b"HTTP/1.1 400"),
        Err(HandshakeError::HttpResponse { offset: 0 })
    );
    assert_eq!(
        client().receive(&hex("01000404")),
        Err(HandshakeError::MalformedVersion {
            offset: 0,
            found: [1, 0, 4, 4]
        })
    );
    assert_eq!(
        client().receive(&hex("00000002")),
        Err(HandshakeError::VersionNotOffered {
            offset: 0,
            version: V::new(2, 0)
        })
    );
    // 5.5 is inside the offered 5.8..5.0 range, but this client does not speak it
    assert_eq!(
        client().receive(&hex("00000505")),
        Err(HandshakeError::UnsupportedVersion {
            offset: 0,
            version: V::new(5, 5)
        })
    );
    assert_eq!(
        client().receive(&hex("000002ff")),
        Err(HandshakeError::UnknownManifestVersion {
            offset: 0,
            version: 2
        })
    );
    let mut legacy = ClientHandshake::new(ClientConfig::legacy());
    assert_eq!(
        legacy.receive(&hex("000001ff 01 00000805 00")),
        Err(HandshakeError::ManifestNotOffered { offset: 0 })
    );
    // too many ranges is reported from the count alone
    assert_eq!(
        client().receive(&hex("000001ff 8102")),
        Err(HandshakeError::TooManyRanges {
            offset: 4,
            count: 257,
            max: MAX_MANIFEST_RANGES
        })
    );
    // capabilities varint overflow, offset in the server stream
    let mut c = client();
    let err = c.receive(&hex("000001ff 01 00000805 ffffffffffffffffff7f"));
    assert_eq!(err, Err(HandshakeError::VarintOverflow { offset: 18 }));
    // poisoned: the same error again
    assert_eq!(c.receive(&[0]), err);
    // nothing in common, legacy
    assert_eq!(
        client().receive(&hex("00000000 ffff")),
        Ok(Step::Rejected {
            send: vec![],
            consumed: 4
        })
    );
}

#[test]
fn client_consumed_leaves_stream_bytes() {
    let mut client = ClientHandshake::new(ClientConfig::default());
    assert_eq!(client.receive(&hex("000001ff 01")), Ok(Step::NeedMore));
    let step = client.receive(&hex("00000805 00 0002b07e0000"));
    assert!(matches!(step, Ok(Step::Negotiated { consumed: 5, .. })));
}

#[test]
fn server_errors_and_edge_cases() {
    let server = || ServerHandshake::new(ServerConfig::default());
    // wrong magic fails on the first wrong byte
    assert_eq!(
        server().receive(b"G"),
        Err(HandshakeError::BadMagic {
            offset: 0,
            expected: 0x60,
            found: b'G'
        })
    );
    let mut s = server();
    assert_eq!(s.receive(&[0x60, 0x60]), Ok(Step::NeedMore));
    assert_eq!(
        s.receive(&[0xB0, 0x18]),
        Err(HandshakeError::BadMagic {
            offset: 3,
            expected: 0x17,
            found: 0x18
        })
    );
    // nothing in common
    assert_eq!(
        server().receive(&hex("6060b017 00000003 00000002 00000001 00000000")),
        Ok(Step::Rejected {
            send: hex("00000000"),
            consumed: 20
        })
    );
    // manifest disabled: the marker slot is skipped
    let mut s = ServerHandshake::new(ServerConfig::default().with_manifest(false));
    assert_eq!(
        s.receive(&hex("6060b017 000001ff 00080805 00000404 00000000")),
        Ok(Step::Negotiated {
            version: V::V5_8,
            send: hex("00000805"),
            consumed: 20
        })
    );
    // unknown manifest versions are skipped
    assert_eq!(
        server().receive(&hex("6060b017 000002ff 00000404 00000000 00000000")),
        Ok(Step::Negotiated {
            version: V::V4_4,
            send: hex("00000404"),
            consumed: 20
        })
    );
    // the first slot that fits wins, even before a manifest slot
    assert_eq!(
        server().receive(&hex("6060b017 00000404 000001ff 00000000 00000000")),
        Ok(Step::Negotiated {
            version: V::V4_4,
            send: hex("00000404"),
            consumed: 20
        })
    );
    // 5.5 is never selected, even when offered alone
    assert_eq!(
        server().receive(&hex("6060b017 00000505 00000000 00000000 00000000")),
        Ok(Step::Rejected {
            send: hex("00000000"),
            consumed: 20
        })
    );
    // ... and a range over it gives the newest other version
    assert_eq!(
        server().receive(&hex("6060b017 00010605 00000000 00000000 00000000")),
        Ok(Step::Negotiated {
            version: V::V5_6,
            send: hex("00000605"),
            consumed: 20
        })
    );
    // extra bytes after the hello are not consumed
    let mut s = server();
    let mut bytes = hex("6060b017 000001ff 00000000 00000000 00000000");
    bytes.extend(hex("0000"));
    assert!(matches!(
        s.receive(&bytes),
        Ok(Step::Continue { consumed: 20, .. })
    ));
    // client picks
    let pick = |bytes: &str| {
        let mut s = ServerHandshake::new(ServerConfig::default().with_capabilities(0b11));
        let first = s.receive(&hex("6060b017 000001ff 00000000 00000000 00000000"));
        assert!(matches!(first, Ok(Step::Continue { .. })));
        s.receive(&hex(bytes))
    };
    assert_eq!(
        pick("00000000 00"),
        Ok(Step::Rejected {
            send: vec![],
            consumed: 5
        })
    );
    assert_eq!(
        pick("00000505 00"),
        Err(HandshakeError::VersionNotOffered {
            offset: 20,
            version: V::new(5, 5)
        })
    );
    assert_eq!(
        pick("00080805 00"),
        Err(HandshakeError::MalformedVersion {
            offset: 20,
            found: [0, 8, 8, 5]
        })
    );
    assert_eq!(
        pick("00000805 04"),
        Err(HandshakeError::CapabilitiesNotOffered {
            offset: 24,
            selected: 4,
            offered: 3
        })
    );
    assert_eq!(
        pick("00000805 02 b0"),
        Ok(Step::Negotiated {
            version: V::V5_8.with_capabilities(2),
            send: vec![],
            consumed: 5
        })
    );
    // after the end
    let mut s = server();
    let _ = s.receive(&hex("6060b017 00000404 00000000 00000000 00000000"));
    assert_eq!(s.receive(&[]), Err(HandshakeError::Finished));
}

#[test]
fn server_response_round_trip() {
    for response in [
        ServerResponse::Version(V::V5_8),
        ServerResponse::NoVersion,
        ServerResponse::Manifest(
            ServerConfig::default()
                .with_capabilities(u64::MAX)
                .manifest_offer(),
        ),
        ServerResponse::Manifest(ManifestOffer::default()),
    ] {
        let mut out = Vec::new();
        response.encode(&mut out);
        assert_eq!(
            ServerResponse::parse(&out),
            Ok(Status::Complete((response.clone(), out.len())))
        );
        for cut in 0..out.len() {
            assert_eq!(ServerResponse::parse(&out[..cut]), Ok(Status::NeedMore));
        }
    }
}

#[test]
fn errors_display_offset_and_expectation() {
    let e = HandshakeError::BadMagic {
        offset: 1,
        expected: 0x60,
        found: 0x47,
    };
    assert_eq!(
        e.to_string(),
        "byte 1: expected Bolt magic byte 0x60, found 0x47"
    );
    let e = HandshakeError::MalformedVersion {
        offset: 0,
        found: [1, 0, 4, 4],
    };
    assert_eq!(
        e.to_string(),
        "byte 0: expected a version \"00 00 minor major\", found [01, 00, 04, 04]"
    );
}

/// A client and a server made from `options` talk to each other: the version both agree
/// on, or `None` when the server rejects the client.
fn negotiate(options: &HandshakeOptions) -> Option<BoltVersion> {
    let mut client = ClientHandshake::new(options.client());
    let mut server = ServerHandshake::new(options.server());
    let mut to_server = client.hello().to_vec();
    let mut client_agreed = None;
    loop {
        let (from_server, server_agreed) = match server.receive(&to_server).expect("server") {
            Step::Continue { send, .. } => (send, None),
            Step::Negotiated { version, send, .. } => (send, Some(version)),
            Step::Rejected { .. } => return None,
            Step::NeedMore => panic!("the server wants more than the client sent"),
        };
        if !from_server.is_empty() {
            match client.receive(&from_server).expect("client") {
                Step::Negotiated { version, send, .. } => {
                    client_agreed = Some(version);
                    to_server = send;
                }
                other => panic!("client: {other:?}"),
            }
        }
        if let Some(v) = server_agreed {
            assert_eq!(
                client_agreed,
                Some(v),
                "the client agreed on another version"
            );
            return Some(v);
        }
    }
}

#[test]
fn handshake_options_give_both_roles_the_same_versions() {
    let known: Vec<BoltVersion> = V::SUPPORTED.iter().chain(V::DECODE_ONLY).copied().collect();
    for manifest in [true, false] {
        let defaults = HandshakeOptions::new(None, manifest).expect("defaults");
        assert_eq!(defaults.versions(), None);
        assert_eq!(negotiate(&defaults), Some(V::V6_1), "manifest {manifest}");
        for &v in &known {
            let options = HandshakeOptions::new(Some(&[v]), manifest).expect("one version");
            assert_eq!(options.client().supported(), [v]);
            assert_eq!(options.server().supported(), [v]);
            let agreed = negotiate(&options).expect("agreed");
            assert!(agreed.same_number(v), "{v} manifest {manifest}: {agreed}");
        }
    }
}

#[test]
fn handshake_options_defaults_are_the_role_defaults() {
    let manifest = HandshakeOptions::new(None, true).expect("defaults");
    assert_eq!(manifest.client(), ClientConfig::default());
    assert_eq!(manifest.server(), ServerConfig::default());
    let legacy = HandshakeOptions::new(None, false).expect("defaults");
    assert_eq!(legacy.client(), ClientConfig::legacy());
    assert_eq!(
        legacy.server(),
        ServerConfig::default().with_manifest(false)
    );
    assert!(manifest.manifest() && !legacy.manifest());
}

#[test]
fn handshake_options_legacy_list_offers_the_newest_four_exactly() {
    let list = [
        V::V4_4,
        V::V5_0,
        V::V5_8,
        V::V5_2,
        V::V6_0,
        V::V5_4,
        V::V5_8,
    ];
    let options = HandshakeOptions::new(Some(&list), false).expect("known versions");
    assert_eq!(
        options.versions(),
        Some(&[V::V6_0, V::V5_8, V::V5_4, V::V5_2, V::V5_0, V::V4_4][..])
    );
    let client = options.client();
    assert_eq!(
        *client.proposals(),
        [V::V6_0, V::V5_8, V::V5_4, V::V5_2].map(Proposal::exact)
    );
    assert!(!client.offers_manifest());
    // With the manifest: the marker, then the newest three.
    let client = HandshakeOptions::new(Some(&list), true)
        .expect("known versions")
        .client();
    assert_eq!(
        *client.proposals(),
        [
            Proposal::MANIFEST_V1,
            Proposal::exact(V::V6_0),
            Proposal::exact(V::V5_8),
            Proposal::exact(V::V5_4)
        ]
    );
    assert_eq!(client.supported(), options.versions().expect("a list"));
}

/// Regression: with the manifest and a version list, the client proposed the default
/// ranges (6.1–6.0, 5.8–5.0, 4.4) while supporting only the list, so a server that
/// predates the manifest picked a version in a range (5.8 here) and the client refused
/// it with `unsupported_version` instead of agreeing on 5.4.
#[test]
fn manifest_offer_with_a_version_list_proposed_versions_the_client_refuses() {
    let client = HandshakeOptions::new(Some(&[V::V5_4]), true)
        .expect("known")
        .client();
    let mut client = ClientHandshake::new(client);
    let old_server = ServerConfig::new(&[V::V5_8, V::V5_4]).with_manifest(false);
    let mut server = ServerHandshake::new(old_server);
    let Step::Negotiated { version, send, .. } = server.receive(&client.hello()).expect("hello")
    else {
        panic!("the server found no common version")
    };
    assert_eq!(version, V::V5_4);
    let step = client
        .receive(&send)
        .expect("the client accepts the server's pick");
    assert!(
        matches!(step, Step::Negotiated { version, .. } if version == V::V5_4),
        "{step:?}"
    );
}

#[test]
fn handshake_options_refuse_empty_and_unknown_version_lists() {
    let err = HandshakeOptions::new(Some(&[]), true).expect_err("empty");
    assert_eq!(err, VersionListError::Empty);
    assert_eq!((err.kind(), err.offset()), ("no_versions", None));
    for bad in [V::new(5, 5), V::new(9, 9), V::new(0, 0)] {
        for manifest in [true, false] {
            let err = HandshakeOptions::new(Some(&[V::V5_8, bad]), manifest).expect_err("unknown");
            assert_eq!(err, VersionListError::Unknown(bad));
            assert_eq!(err.kind(), "unknown_version");
            let text = err.to_string();
            assert!(text.starts_with(&format!("Bolt {bad} is not")), "{text}");
            assert!(text.ends_with("known: 6.1, 6.0, 5.8, 5.7, 5.6, 5.4, 5.3, 5.2, 5.1, 5.0, 4.4, 4.3, 4.2, 4.1, 4.0, 3.0"), "{text}");
        }
    }
}
