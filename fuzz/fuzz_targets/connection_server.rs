//! The minimal server peer driven by a hostile client: the client's bytes arrive in
//! random pieces; every request received is decoded again and answered.
//!
//! Input: `[config] [cuts…] client bytes`.
//!
//! Checks: no panic; the requests received and the first error do not depend on how
//! the stream is split; every received request decodes again with the negotiated
//! version; the answers encode.
#![no_main]

use bolt::connection::ServerConnection;
use bolt::handshake::ServerConfig;
use bolt::message::{Failure, Record, Response, Success};
use bolt::BoltVersion;
use fuzz_common::{pieces, Header};
use libfuzzer_sys::fuzz_target;
use packstream::ValueRef;

fn config(b: u8) -> ServerConfig {
    match b % 4 {
        0 => ServerConfig::default(),
        1 => ServerConfig::default().with_manifest(false),
        2 => ServerConfig::new(&[BoltVersion::V4_4, BoltVersion::V5_0, BoltVersion::V4_3]),
        _ => ServerConfig::new(&[BoltVersion::V6_1]).with_capabilities(u64::from(b >> 2)),
    }
}

/// Feeds the pieces until the first error. Returns the requests received (kind and
/// bytes) and the error, if any.
fn run(cfg: u8, parts: &[&[u8]]) -> (Vec<(String, Vec<u8>)>, Option<String>) {
    let mut server = ServerConnection::new(config(cfg));
    let mut got = Vec::new();
    for part in parts {
        let res = server.receive(part);
        while let Some(req) = server.poll_request() {
            let v = server.version().expect("requests only after the handshake");
            let decoded = req.decode(v).expect("a received request decodes again");
            assert_eq!(decoded.kind(), req.kind());
            got.push((req.kind().name().to_owned(), req.bytes().to_vec()));
            let answer = match cfg >> 4 & 3 {
                0 => Response::Success(Success::new().with("fields", vec!["x"])),
                1 => Response::Record(Record::new(vec![ValueRef::Int(1), ValueRef::Null])),
                2 => Response::Failure(Failure::new(v, "Neo.X", "no")),
                _ => Response::Ignored,
            };
            server.send(&answer).expect("answers encode");
        }
        drop(server.take_output());
        if let Err(e) = res {
            return (got, Some(e.to_string()));
        }
    }
    (got, None)
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let cfg = h.u8();
    let cuts = h.cuts();
    let stream = h.rest();
    let whole = run(cfg, &[stream]);
    let split = run(cfg, &pieces(stream, &cuts));
    assert_eq!(
        whole, split,
        "what the server received depends on the split"
    );
});
