//! Property tests of the WebSocket adapter: a client and a server carry any byte stream
//! under any split of the wire and any frame size; arbitrary bytes never panic a decoder
//! or an upgrade parser.

use bolt::handshake::Status;
use bolt::ws::{
    apply_mask, ClientUpgrade, Event, FrameHeader, FrameLimits, Opcode, Role, ServerUpgrade,
    WireStatus, WsDecoder, WsEncoder, WsStream, XorShiftMask,
};
use proptest::prelude::*;

/// Cuts `len` bytes into pieces at the given (unsorted, possibly repeated) points.
fn pieces(len: usize, mut cuts: Vec<usize>) -> Vec<(usize, usize)> {
    cuts.iter_mut().for_each(|c| *c %= len + 1);
    cuts.push(0);
    cuts.push(len);
    cuts.sort_unstable();
    cuts.windows(2).map(|w| (w[0], w[1])).collect()
}

fn frame_size() -> impl Strategy<Value = usize> {
    prop_oneof![1usize..=8, 1usize..=300, Just(125), Just(126), Just(65_536)]
}

/// One write of the sender: Bolt bytes, or a ping.
#[derive(Clone, Debug)]
enum Write {
    Data(Vec<u8>),
    Ping(Vec<u8>),
}

fn writes() -> impl Strategy<Value = Vec<Write>> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::collection::vec(any::<u8>(), 0..700).prop_map(Write::Data),
            1 => prop::collection::vec(any::<u8>(), 0..=125).prop_map(Write::Ping),
        ],
        0..12,
    )
}

/// Sends `writes` from `sender` and reads them with `receiver` in the given pieces;
/// returns the Bolt bytes and the replies (pongs) received.
fn carry<A: bolt::ws::MaskSource, B: bolt::ws::MaskSource>(
    sender: &mut WsStream<A>,
    receiver: &mut WsStream<B>,
    writes: &[Write],
    cuts: Vec<usize>,
) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut wire = Vec::new();
    let mut sent = Vec::new();
    let mut pings = Vec::new();
    for w in writes {
        match w {
            Write::Data(d) => {
                sender.to_wire(d, &mut wire).unwrap();
                sent.extend_from_slice(d);
            }
            Write::Ping(p) => {
                sender.ping(p, &mut wire).unwrap();
                pings.push(p.clone());
            }
        }
    }
    let (mut bolt, mut replies) = (Vec::new(), Vec::new());
    for (a, b) in pieces(wire.len(), cuts) {
        let status = receiver
            .from_wire(&wire[a..b], &mut bolt, &mut replies)
            .unwrap();
        assert_eq!(status, WireStatus::Open);
    }
    assert!(receiver.decoder().is_at_boundary());
    assert_eq!(receiver.decoder().end_of_stream(), Ok(()));
    // the replies are exactly one pong per ping, in order
    let mut d = WsDecoder::new(match receiver.encoder().role() {
        Role::Client => Role::Server,
        Role::Server => Role::Client,
    });
    let mut pongs = Vec::new();
    let mut pos = 0;
    loop {
        let (used, event) = d.next_event(&replies[pos..]).unwrap();
        pos += used;
        match event {
            None => break,
            Some(Event::Pong(p)) => pongs.push(p.to_vec()),
            Some(other) => panic!("{other:?}"),
        }
    }
    assert_eq!(pongs, pings);
    (sent, bolt, replies)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn client_to_server_any_split_any_frame_size(
        writes in writes(),
        cuts in prop::collection::vec(any::<usize>(), 0..20),
        max in frame_size(),
        seed in any::<u64>(),
    ) {
        let encoder = WsEncoder::client(XorShiftMask::new(seed)).with_max_frame_size(max).unwrap();
        let mut client = WsStream::from_parts(WsDecoder::client(), encoder);
        let mut server = WsStream::server();
        let (sent, got, _) = carry(&mut client, &mut server, &writes, cuts);
        prop_assert_eq!(got, sent);
    }

    #[test]
    fn server_to_client_any_split_any_frame_size(
        writes in writes(),
        cuts in prop::collection::vec(any::<usize>(), 0..20),
        max in frame_size(),
        seed in any::<u64>(),
    ) {
        let mut server = WsStream::from_parts(
            WsDecoder::server(),
            WsEncoder::server().with_max_frame_size(max).unwrap(),
        );
        let mut client = WsStream::client(XorShiftMask::new(seed));
        let (sent, got, _) = carry(&mut server, &mut client, &writes, cuts);
        prop_assert_eq!(got, sent);
    }

    /// Fragmented messages (continuation frames, control frames between fragments) as
    /// another sender might write them, read by both roles.
    #[test]
    fn fragmented_messages_any_split(
        messages in prop::collection::vec(
            prop::collection::vec(prop::collection::vec(any::<u8>(), 0..200), 1..5),
            0..6,
        ),
        ping_between in any::<bool>(),
        masked in any::<bool>(),
        cuts in prop::collection::vec(any::<usize>(), 0..20),
        seed in any::<u64>(),
    ) {
        let mut keys = XorShiftMask::new(seed);
        let mut wire = Vec::new();
        let mut expected = Vec::new();
        let mut frame = |fin: bool, opcode: Opcode, payload: &[u8], wire: &mut Vec<u8>| {
            let key = masked.then(|| bolt::ws::MaskSource::next_mask(&mut keys));
            FrameHeader::new(opcode, payload.len() as u64)
                .with_fin(fin)
                .with_mask(key)
                .encode(wire);
            let start = wire.len();
            wire.extend_from_slice(payload);
            if let Some(key) = key {
                apply_mask(&mut wire[start..], key, 0);
            }
        };
        for fragments in &messages {
            for (i, f) in fragments.iter().enumerate() {
                let opcode = if i == 0 { Opcode::Binary } else { Opcode::Continuation };
                frame(i + 1 == fragments.len(), opcode, f, &mut wire);
                expected.extend_from_slice(f);
                if ping_between {
                    frame(true, Opcode::Ping, b"p", &mut wire);
                }
            }
        }
        let role = if masked { Role::Server } else { Role::Client };
        let mut d = WsDecoder::with_limits(role, FrameLimits::NEO4J);
        let mut got = Vec::new();
        let mut ends = 0;
        let mut pings = 0;
        for (a, b) in pieces(wire.len(), cuts) {
            let input = &wire[a..b];
            let mut pos = 0;
            loop {
                let (used, event) = d.next_event(&input[pos..]).unwrap();
                pos += used;
                match event {
                    None => break,
                    Some(Event::Data(p)) => {
                        got.extend_from_slice(&p);
                        ends += usize::from(p.is_end_of_message());
                    }
                    Some(Event::Ping(p)) => {
                        prop_assert_eq!(p, b"p");
                        pings += 1;
                    }
                    Some(other) => panic!("{other:?}"),
                }
            }
        }
        prop_assert_eq!(got, expected);
        prop_assert_eq!(ends, messages.len());
        let fragments: usize = messages.iter().map(Vec::len).sum();
        prop_assert_eq!(pings, if ping_between { fragments } else { 0 });
        prop_assert!(d.is_at_boundary());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn decoders_never_panic(
        input in prop::collection::vec(any::<u8>(), 0..400),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
        server in any::<bool>(),
        small in any::<bool>(),
    ) {
        let role = if server { Role::Server } else { Role::Client };
        let limits = if small {
            FrameLimits { max_frame_size: 16, max_message_size: 40 }
        } else {
            FrameLimits::for_role(role)
        };
        let mut d = WsDecoder::with_limits(role, limits);
        let mut consumed = 0u64;
        'outer: for (a, b) in pieces(input.len(), cuts) {
            let piece = &input[a..b];
            let mut pos = 0;
            loop {
                match d.next_event(&piece[pos..]) {
                    Ok((used, event)) => {
                        prop_assert!(used <= piece.len() - pos);
                        pos += used;
                        consumed += used as u64;
                        if event.is_none() {
                            prop_assert_eq!(pos, piece.len());
                            break;
                        }
                    }
                    Err(e) => {
                        prop_assert!(e.offset() <= input.len() as u64);
                        prop_assert_eq!(d.error(), Some(&e));
                        break 'outer;
                    }
                }
            }
        }
        if d.error().is_none() {
            prop_assert_eq!(consumed, input.len() as u64);
            prop_assert_eq!(d.stream_offset(), input.len() as u64);
        }
        let _ = d.end_of_stream();
    }

    /// Frame-shaped garbage: valid-looking headers with random flags and lengths.
    #[test]
    fn decoders_never_panic_on_frame_shaped_input(
        frames in prop::collection::vec(
            (any::<u8>(), any::<bool>(), 0u64..300, prop::collection::vec(any::<u8>(), 0..300)),
            0..8,
        ),
        server in any::<bool>(),
    ) {
        let mut wire = Vec::new();
        for (b0, mask, len, payload) in frames {
            FrameHeader {
                fin: b0 & 0x80 != 0,
                rsv: (b0 >> 4) & 7 & u8::from(b0 & 0x0F == 0x0F),
                opcode: Opcode::from_bits(b0),
                mask: mask.then_some([1, 2, 3, 4]),
                payload_len: len,
            }
            .encode(&mut wire);
            wire.extend(payload.iter().take(len as usize));
        }
        let mut d = WsDecoder::new(if server { Role::Server } else { Role::Client });
        let mut pos = 0;
        while let Ok((used, Some(_))) = d.next_event(&wire[pos..]) {
            pos += used;
        }
    }

    #[test]
    fn upgrade_parsers_never_panic(
        input in prop::collection::vec(any::<u8>(), 0..300),
        prefix in prop_oneof![
            Just(&b""[..]),
            Just(&b"HTTP/1.1 101 Switching Protocols\r\n"[..]),
            Just(&b"GET / HTTP/1.1\r\n"[..]),
        ],
        cuts in prop::collection::vec(any::<usize>(), 0..6),
    ) {
        let mut bytes = prefix.to_vec();
        bytes.extend(input);
        bytes.extend_from_slice(b"\r\n\r\n");
        let mut client = ClientUpgrade::new("localhost:7687", "/", [1; 16]).unwrap();
        let mut server = ServerUpgrade::new();
        let (mut client_done, mut server_done) = (false, false);
        for (a, b) in pieces(bytes.len(), cuts) {
            let piece = &bytes[a..b];
            if !client_done {
                match client.receive(piece) {
                    Ok(Status::Complete(used)) => {
                        prop_assert!(used <= piece.len());
                        client_done = true;
                    }
                    Ok(Status::NeedMore) => {}
                    Err(e) => {
                        prop_assert!(!e.to_string().is_empty());
                        client_done = true;
                    }
                }
            }
            if !server_done {
                match server.receive(piece) {
                    Ok(Status::Complete(request)) => {
                        prop_assert!(request.used() <= piece.len());
                        let _ = request.response();
                        server_done = true;
                    }
                    Ok(Status::NeedMore) => {}
                    Err(e) => {
                        let _ = ServerUpgrade::rejection(&e);
                        server_done = true;
                    }
                }
            }
        }
        // the head always ends within the input, so both are done
        prop_assert!(client_done && server_done);
    }

    /// Any valid request round-trips through both roles at any split.
    #[test]
    fn upgrade_pair_any_split(
        key in any::<[u8; 16]>(),
        host in "[a-z0-9.-]{1,30}(:[0-9]{1,5})?",
        path in "/[a-zA-Z0-9/_.?=&-]{0,40}",
        cuts in prop::collection::vec(any::<usize>(), 0..6),
    ) {
        let mut client = ClientUpgrade::new(&host, &path, key).unwrap();
        let request = client.request().to_vec();
        let mut server = ServerUpgrade::new();
        let mut parsed = None;
        for (a, b) in pieces(request.len(), cuts.clone()) {
            if parsed.is_some() {
                break;
            }
            if let Status::Complete(r) = server.receive(&request[a..b]).unwrap() {
                prop_assert_eq!(a + r.used(), request.len());
                parsed = Some(r);
            }
        }
        let parsed = parsed.expect("complete");
        prop_assert_eq!(parsed.target(), path.as_str());
        prop_assert_eq!(parsed.host(), host.as_str());
        prop_assert_eq!(parsed.key(), client.key());
        let mut response = parsed.response();
        let head = response.len();
        response.extend_from_slice(&[0x82, 0x00]);
        let mut done = None;
        for (a, b) in pieces(response.len(), cuts) {
            if done.is_some() {
                break;
            }
            if let Status::Complete(used) = client.receive(&response[a..b]).unwrap() {
                done = Some(a + used);
            }
        }
        prop_assert_eq!(done, Some(head));
    }
}
