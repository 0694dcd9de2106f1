//! Property tests: framing round trips under any split of the stream, and no panics on
//! arbitrary input for the dechunker and both handshake roles.

use bolt::chunk::{Chunker, DechunkLimits, Dechunker};
use bolt::handshake::{
    decode_varint, encode_varint, ClientConfig, ClientHandshake, HandshakeError, Proposal,
    ServerConfig, ServerHandshake, Status, Step, VersionRange,
};
use bolt::BoltVersion;
use proptest::prelude::*;

/// How a test takes messages out of the dechunker.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// `feed` + `next_message` until `None`.
    Drain,
    /// `feed`, take at most `n` messages, drop the feed.
    StopEarly(usize),
    /// `feed_batch`.
    Batch,
}

fn mode() -> impl Strategy<Value = Mode> {
    prop_oneof![
        Just(Mode::Drain),
        (0usize..3).prop_map(Mode::StopEarly),
        Just(Mode::Batch),
    ]
}

fn chunk_size() -> impl Strategy<Value = usize> {
    prop_oneof![1usize..=8, 1usize..=600, Just(65_535)]
}

/// Cuts `len` bytes into pieces at the given (unsorted, possibly repeated) points.
fn pieces(len: usize, mut cuts: Vec<usize>) -> Vec<(usize, usize)> {
    cuts.iter_mut().for_each(|c| *c %= len + 1);
    cuts.push(0);
    cuts.push(len);
    cuts.sort_unstable();
    cuts.windows(2).map(|w| (w[0], w[1])).collect()
}

#[derive(Debug, PartialEq, Eq)]
struct Got {
    bytes: Vec<u8>,
    offset: u64,
    chunks: u32,
    copied: bool,
}

/// Feeds `wire` in `pieces` and collects every message.
fn dechunk(d: &mut Dechunker, wire: &[u8], pieces: &[(usize, usize)], mode: Mode) -> Vec<Got> {
    let mut out = Vec::new();
    let mut take = |m: bolt::chunk::Message<'_>| {
        out.push(Got {
            bytes: m.to_vec(),
            offset: m.offset(),
            chunks: m.chunk_count(),
            copied: m.is_copied(),
        })
    };
    for &(a, b) in pieces {
        let input = &wire[a..b];
        match mode {
            Mode::Drain => {
                let mut feed = d.feed(input);
                while let Some(m) = feed.next_message().unwrap() {
                    if let Some(r) = m.input_range() {
                        assert_eq!(&input[r], m.bytes());
                    }
                    take(m);
                }
            }
            Mode::StopEarly(n) => {
                let mut feed = d.feed(input);
                for _ in 0..n {
                    match feed.next_message().unwrap() {
                        Some(m) => take(m),
                        None => break,
                    }
                }
            }
            Mode::Batch => {
                let batch = d.feed_batch(input);
                assert!(batch.error().is_none());
                for m in batch.iter() {
                    take(m);
                }
            }
        }
    }
    // drain what an early stop left queued
    let mut feed = d.feed(&[]);
    while let Some(m) = feed.next_message().unwrap() {
        take(m);
    }
    drop(feed);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn chunk_then_dechunk_any_split(
        messages in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..300), 0..12),
        noops in prop::collection::vec(0usize..3, 12),
        max in chunk_size(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        mode in mode(),
        in_place in any::<bool>(),
    ) {
        let chunker = Chunker::new(max).unwrap();
        let mut wire = Vec::new();
        let mut expected = Vec::new();
        let mut total_noops = 0;
        for (i, m) in messages.iter().enumerate() {
            for _ in 0..noops[i] {
                Chunker::write_noop(&mut wire);
                total_noops += 1;
            }
            let offset = wire.len();
            if in_place {
                let start = chunker.start_message(&mut wire);
                wire.extend_from_slice(m);
                chunker.finish_message(&mut wire, start).unwrap();
            } else {
                chunker.write_message(m, &mut wire).unwrap();
            }
            prop_assert_eq!(wire.len() - offset, chunker.framed_len(m.len()));
            expected.push((offset, m.len().div_ceil(max)));
        }
        let pieces = pieces(wire.len(), cuts);
        let mut d = Dechunker::new();
        let got = dechunk(&mut d, &wire, &pieces, mode);

        prop_assert_eq!(got.len(), messages.len());
        for (i, g) in got.iter().enumerate() {
            prop_assert_eq!(&g.bytes, &messages[i]);
            let (offset, chunks) = expected[i];
            prop_assert_eq!(g.offset, offset as u64);
            prop_assert_eq!(g.chunks as usize, chunks);
            if let Mode::Drain = mode {
                // Borrowed exactly when one chunk and the whole frame lie in one piece.
                let frame_end = offset + chunker.framed_len(messages[i].len());
                let in_one_piece = pieces.iter().any(|&(a, b)| a <= offset && frame_end <= b);
                prop_assert_eq!(g.copied, !(chunks == 1 && in_one_piece));
            }
        }
        prop_assert_eq!(d.noop_count(), total_noops);
        prop_assert_eq!(d.message_count(), messages.len() as u64);
        prop_assert_eq!(d.stream_offset(), wire.len() as u64);
        prop_assert!(d.is_at_boundary());
        prop_assert_eq!(d.end_of_stream(), Ok(()));
    }

    #[test]
    fn dechunker_never_panics(
        bytes in prop::collection::vec(any::<u8>(), 0..600),
        cuts in prop::collection::vec(any::<usize>(), 0..10),
        max_message_size in prop_oneof![0usize..40, Just(usize::MAX)],
        max_chunks in prop_oneof![0u32..5, Just(u32::MAX)],
        mode in mode(),
    ) {
        let limits = DechunkLimits { max_message_size, max_chunks };
        let mut d = Dechunker::with_limits(limits);
        let mut first_error = None;
        for (a, b) in pieces(bytes.len(), cuts) {
            let input = &bytes[a..b];
            let error = match mode {
                Mode::Batch => {
                    let batch = d.feed_batch(input);
                    for m in batch.iter() {
                        prop_assert!(!m.is_empty());
                        prop_assert!(m.len() <= max_message_size);
                    }
                    batch.error().cloned()
                }
                Mode::Drain | Mode::StopEarly(_) => {
                    let limit = if let Mode::StopEarly(n) = mode { n } else { usize::MAX };
                    let mut feed = d.feed(input);
                    let mut error = None;
                    for _ in 0..limit {
                        match feed.next_message() {
                            Ok(Some(m)) => {
                                prop_assert!(!m.is_empty());
                                prop_assert!(m.len() <= max_message_size);
                                prop_assert!(m.chunk_count() <= max_chunks);
                            }
                            Ok(None) => break,
                            Err(e) => {
                                error = Some(e);
                                break;
                            }
                        }
                    }
                    error
                }
            };
            if let Some(e) = error {
                if let Some(first) = &first_error {
                    prop_assert_eq!(first, &e, "poisoned with a different error");
                }
                first_error = Some(e);
            }
        }
        let _ = d.end_of_stream();
        prop_assert_eq!(d.stream_offset(), bytes.len() as u64);
    }

    #[test]
    fn varint_round_trip(value in any::<u64>(), tail in prop::collection::vec(any::<u8>(), 0..4)) {
        let mut out = Vec::new();
        encode_varint(value, &mut out);
        let len = out.len();
        out.extend(tail);
        prop_assert_eq!(decode_varint(&out), Ok(Status::Complete((value, len))));
    }

    #[test]
    fn varint_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..16)) {
        let _ = decode_varint(&bytes);
    }
}

/// A handshake outcome without `consumed`: (version, bytes to send, not rejected).
type Outcome = Option<(Option<BoltVersion>, Vec<u8>, bool)>;

/// Feeds `pieces` of `bytes` to a handshake until it stops asking for more; returns the
/// outcome without `consumed` (which depends on the split).
fn run_split(
    mut receive: impl FnMut(&[u8]) -> Result<Step, HandshakeError>,
    bytes: &[u8],
    pieces: &[(usize, usize)],
) -> Result<Outcome, HandshakeError> {
    for &(a, b) in pieces {
        match receive(&bytes[a..b])? {
            Step::NeedMore => {}
            Step::Continue { send, consumed } => {
                assert!(consumed <= b - a);
                return Ok(Some((None, send, true)));
            }
            Step::Negotiated {
                version,
                send,
                consumed,
            } => {
                assert!(consumed <= b - a);
                assert!(version.is_known(), "selected {version}");
                return Ok(Some((Some(version), send, true)));
            }
            Step::Rejected { send, consumed } => {
                assert!(consumed <= b - a);
                return Ok(Some((None, send, false)));
            }
        }
    }
    Ok(None)
}

fn client_config() -> impl Strategy<Value = ClientConfig> {
    prop_oneof![
        Just(ClientConfig::default()),
        Just(ClientConfig::legacy()),
        Just(ClientConfig::default().with_capabilities(u64::MAX)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn client_handshake_never_panics_and_ignores_splits(
        config in client_config(),
        prefix in prop::sample::select(vec![
            vec![], vec![0, 0, 1, 0xFF], vec![0, 0, 1, 0xFF, 2], vec![0, 0, 8, 5],
        ]),
        tail in prop::collection::vec(any::<u8>(), 0..64),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let bytes: Vec<u8> = prefix.into_iter().chain(tail).collect();
        let mut whole = ClientHandshake::new(config.clone());
        let expected = run_split(|b| whole.receive(b), &bytes, &[(0, bytes.len())]);
        let mut split = ClientHandshake::new(config);
        let got = run_split(|b| split.receive(b), &bytes, &pieces(bytes.len(), cuts));
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn server_handshake_never_panics_and_ignores_splits(
        manifest in any::<bool>(),
        prefix in prop::sample::select(vec![
            vec![],
            vec![0x60, 0x60, 0xB0, 0x17],
            vec![0x60, 0x60, 0xB0, 0x17, 0, 0, 1, 0xFF],
        ]),
        tail in prop::collection::vec(any::<u8>(), 0..64),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let config = ServerConfig::default().with_manifest(manifest).with_capabilities(5);
        let bytes: Vec<u8> = prefix.into_iter().chain(tail).collect();
        let mut whole = ServerHandshake::new(config.clone());
        let expected = run_split(|b| whole.receive(b), &bytes, &[(0, bytes.len())]);
        let mut split = ServerHandshake::new(config);
        let got = run_split(|b| split.receive(b), &bytes, &pieces(bytes.len(), cuts));
        prop_assert_eq!(&got, &expected);
        // the manifest pick phase, with arbitrary bytes
        if let (Ok(Some((None, _, true))), true) = (&got, bytes.len() >= 20) {
            let rest = &bytes[20..];
            let _ = whole.receive(rest);
            let _ = split.receive(rest);
        }
    }

    #[test]
    fn client_and_server_agree(
        server_versions in prop::sample::subsequence(known_versions(), 0..=16),
        client_versions in prop::sample::subsequence(known_versions(), 0..=16),
        server_manifest in any::<bool>(),
        client_slots in prop::collection::vec(slot(), 4),
        server_caps in any::<u64>(),
        client_caps in any::<u64>(),
        cut in any::<usize>(),
    ) {
        let slots = [client_slots[0], client_slots[1], client_slots[2], client_slots[3]];
        let client_config = ClientConfig::new(slots)
            .with_supported(&client_versions)
            .with_capabilities(client_caps);
        let mut client = ClientHandshake::new(client_config.clone());
        let mut server = ServerHandshake::new(
            ServerConfig::new(&server_versions)
                .with_manifest(server_manifest)
                .with_capabilities(server_caps),
        );
        let hello = client.hello();
        let cut = cut % 21;
        let first = server.receive(&hello[..cut]).unwrap();
        let step = if cut == 20 { first } else {
            prop_assert_eq!(first, Step::NeedMore);
            server.receive(&hello[cut..]).unwrap()
        };
        match step {
            Step::Negotiated { version, send, .. } => {
                prop_assert!(server_versions.iter().any(|v| v.is_equivalent(version)));
                // the client may refuse a version it offered in a range but lacks
                match client.receive(&send) {
                    Ok(Step::Negotiated { version: v, send, .. }) => {
                        prop_assert_eq!(v, version);
                        prop_assert!(send.is_empty());
                    }
                    Err(HandshakeError::UnsupportedVersion { version: v, .. }) => {
                        prop_assert_eq!(v, version);
                        prop_assert!(!client_versions.iter().any(|c| c.is_equivalent(v)));
                    }
                    other => prop_assert!(false, "client: {:?}", other),
                }
            }
            Step::Rejected { send, .. } => {
                prop_assert_eq!(client.receive(&send).unwrap(), Step::Rejected { send: vec![], consumed: 4 });
            }
            Step::Continue { send, .. } => {
                prop_assert!(server_manifest && client_config.offers_manifest());
                let best = client_versions
                    .iter()
                    .copied()
                    .filter(|c| server_versions.contains(c))
                    .max();
                match (client.receive(&send).unwrap(), best) {
                    (Step::Negotiated { version, send, .. }, Some(best)) => {
                        prop_assert_eq!(version, best.with_capabilities(client_caps & server_caps));
                        let end = server.receive(&send).unwrap();
                        prop_assert_eq!(end, Step::Negotiated { version, send: vec![], consumed: send.len() });
                    }
                    (Step::Rejected { send, .. }, None) => {
                        let end = server.receive(&send).unwrap();
                        prop_assert_eq!(end, Step::Rejected { send: vec![], consumed: 5 });
                    }
                    (step, best) => prop_assert!(false, "client {:?}, best {:?}", step, best),
                }
            }
            Step::NeedMore => prop_assert!(false, "server wants more than 20 bytes"),
        }
    }
}

fn known_versions() -> Vec<BoltVersion> {
    BoltVersion::SUPPORTED
        .iter()
        .chain(BoltVersion::DECODE_ONLY)
        .copied()
        .collect()
}

fn slot() -> impl Strategy<Value = Proposal> {
    prop_oneof![
        Just(Proposal::Empty),
        Just(Proposal::MANIFEST_V1),
        Just(Proposal::Manifest(2)),
        (3u8..=7, 0u8..=9, 0u8..=9).prop_map(|(major, minor, range)| {
            Proposal::Versions(VersionRange::new(major, minor, range))
        }),
    ]
}
