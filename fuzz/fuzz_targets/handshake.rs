//! Both roles of the handshake state machine fed a hostile peer's bytes in random
//! pieces, plus the pure parsers underneath (`ClientHello`, `ServerResponse`,
//! `ManifestOffer`, `ManifestPick`, `decode_varint`).
//!
//! Input: `[role/config] [config bytes ×18] [cuts…] stream`. Bit 0 of the first byte
//! picks the role (client or server); the rest and the 18 config bytes pick proposals,
//! supported versions, manifest support and capability bits.
//!
//! Checks: no panic; the outcome (step kind, version, bytes to send, how far into the
//! stream the handshake reached) does not depend on how the stream is split; after the
//! outcome the machine refuses further input; `consumed` never exceeds the input; a
//! parsed item re-encodes to something that parses to the same item.
#![no_main]

use bolt::handshake::{
    decode_varint, encode_varint, ClientConfig, ClientHandshake, ClientHello, HandshakeError,
    ManifestOffer, ManifestPick, Proposal, ServerConfig, ServerHandshake, ServerResponse, Status,
    Step,
};
use bolt::BoltVersion;
use fuzz_common::{pieces, Header, VERSIONS};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, PartialEq)]
enum Outcome {
    NeedMore,
    Negotiated(BoltVersion, Vec<u8>, usize),
    Rejected(Vec<u8>, usize),
    Error(HandshakeError),
}

trait Role {
    fn receive(&mut self, input: &[u8]) -> Result<Step, HandshakeError>;
}

impl Role for ClientHandshake {
    fn receive(&mut self, input: &[u8]) -> Result<Step, HandshakeError> {
        ClientHandshake::receive(self, input)
    }
}

impl Role for ServerHandshake {
    fn receive(&mut self, input: &[u8]) -> Result<Step, HandshakeError> {
        ServerHandshake::receive(self, input)
    }
}

/// Feeds the pieces; returns the outcome and everything sent on `Continue` steps.
fn run(role: &mut dyn Role, parts: &[&[u8]]) -> (Outcome, Vec<u8>) {
    let mut sent = Vec::new();
    let mut base = 0usize;
    for part in parts {
        let mut input: &[u8] = part;
        let mut at = base;
        loop {
            let step = match role.receive(input) {
                Ok(s) => s,
                Err(e) => {
                    let again = role.receive(&[]).expect_err("poisoned after an error");
                    assert_eq!(again, e);
                    return (Outcome::Error(e), sent);
                }
            };
            match step {
                Step::NeedMore => break,
                Step::Continue { send, consumed } => {
                    assert!(
                        consumed <= input.len(),
                        "consumed {consumed} of {}",
                        input.len()
                    );
                    sent.extend_from_slice(&send);
                    input = &input[consumed..];
                    at += consumed;
                    if input.is_empty() {
                        break;
                    }
                }
                Step::Negotiated {
                    version,
                    send,
                    consumed,
                } => {
                    assert!(consumed <= input.len());
                    assert!(matches!(role.receive(&[1]), Err(HandshakeError::Finished)));
                    return (Outcome::Negotiated(version, send, at + consumed), sent);
                }
                Step::Rejected { send, consumed } => {
                    assert!(consumed <= input.len());
                    return (Outcome::Rejected(send, at + consumed), sent);
                }
            }
        }
        base += part.len();
    }
    (Outcome::NeedMore, sent)
}

fn versions(mask: u32) -> Vec<BoltVersion> {
    VERSIONS
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, v)| *v)
        .collect()
}

fn client_config(sel: u8, c: &[u8; 18]) -> ClientConfig {
    let caps = u64::from(c[16]);
    match sel % 4 {
        0 => ClientConfig::default(),
        1 => ClientConfig::legacy(),
        2 => {
            let slot = |i: usize| Proposal::from_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
            ClientConfig::new([slot(0), slot(4), slot(8), slot(12)]).with_capabilities(caps)
        }
        _ => ClientConfig::default()
            .with_supported(&versions(u32::from_be_bytes([0, c[0], c[1], c[2]])))
            .with_capabilities(caps),
    }
}

fn server_config(sel: u8, c: &[u8; 18]) -> ServerConfig {
    match sel % 4 {
        0 => ServerConfig::default(),
        1 => ServerConfig::default().with_manifest(false),
        _ => ServerConfig::new(&versions(u32::from_be_bytes([0, c[0], c[1], c[2]])))
            .with_manifest(sel & 4 != 0)
            .with_capabilities(u64::from(c[16])),
    }
}

/// The pure parsers on the raw stream.
fn parsers(stream: &[u8]) {
    if let Ok(Status::Complete((v, n))) = decode_varint(stream) {
        assert!(n <= stream.len() && n <= 10);
        let mut out = Vec::new();
        encode_varint(v, &mut out);
        assert_eq!(decode_varint(&out), Ok(Status::Complete((v, out.len()))));
    }
    if let Ok(Status::Complete((hello, n))) = ClientHello::parse(stream) {
        assert!(n <= stream.len());
        let bytes = hello.to_bytes();
        assert!(matches!(ClientHello::parse(&bytes), Ok(Status::Complete((h, _))) if h == hello));
    }
    if let Ok(Status::Complete((resp, n))) = ServerResponse::parse(stream) {
        assert!(n <= stream.len());
        let mut out = Vec::new();
        resp.encode(&mut out);
        assert!(
            matches!(ServerResponse::parse(&out), Ok(Status::Complete((r, m))) if r == resp && m == out.len())
        );
    }
    if let Ok(Status::Complete((offer, n))) = ManifestOffer::parse_body(stream) {
        assert!(n <= stream.len());
        let _ = offer.choose(BoltVersion::SUPPORTED);
    }
    if let Ok(Status::Complete((pick, n))) = ManifestPick::parse(stream) {
        assert!(n <= stream.len());
        let mut out = Vec::new();
        pick.encode(&mut out);
        assert!(matches!(ManifestPick::parse(&out), Ok(Status::Complete((p, _))) if p == pick));
    }
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let sel = h.u8();
    let mut c = [0u8; 18];
    for b in &mut c {
        *b = h.u8();
    }
    let cuts = h.cuts();
    let stream = h.rest();
    parsers(stream);

    let split = pieces(stream, &cuts);
    let (whole, split) = if sel & 1 == 0 {
        let config = client_config(sel >> 1, &c);
        (
            run(&mut ClientHandshake::new(config.clone()), &[stream]),
            run(&mut ClientHandshake::new(config), &split),
        )
    } else {
        let config = server_config(sel >> 1, &c);
        (
            run(&mut ServerHandshake::new(config.clone()), &[stream]),
            run(&mut ServerHandshake::new(config), &split),
        )
    };
    assert_eq!(whole, split, "the outcome depends on the split");
});
