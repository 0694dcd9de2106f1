//! The sans-IO client connection driven by a hostile server: the server's bytes arrive
//! in random pieces, and between pieces the client pipelines the requests the input
//! picks (whenever the connection says they may be sent).
//!
//! Input: `[config] [ops ×8] [cuts…] server bytes`.
//!
//! Checks: no panic; `can_send` and `send` agree; after an error the connection is
//! defunct and stays so; the number of events and pending requests stays bounded by
//! what was received and sent.
#![no_main]

use bolt::chunk::DechunkLimits;
use bolt::connection::{ClientConnection, ConnectionConfig, ConnectionError, ServerState};
use bolt::handshake::ClientConfig;
use bolt::message::{
    Begin, Dict, Discard, Hello, Logon, Pull, Request, Route, Run, Telemetry, TelemetryApi,
};
use fuzz_common::{pieces, Header};
use libfuzzer_sys::fuzz_target;
use packstream::DecodeLimits;

fn request(op: u8) -> Request<'static> {
    let n = i64::from(op >> 4) - 1; // -1 = all
    match op % 16 {
        0 => Request::Hello(Hello::new("fuzz/1.0")),
        1 => Request::Logon(Logon::basic("neo4j", "password")),
        2 => Request::Run(Run::new("RETURN 1")),
        3 => Request::Pull(Pull::new(n)),
        4 => Request::Discard(Discard::new(n)),
        5 => Request::Begin(Begin::new()),
        6 => Request::Commit,
        7 => Request::Rollback,
        8 => Request::Reset,
        9 => Request::Goodbye,
        10 => Request::Route(Route::new(Dict::new())),
        11 => Request::Telemetry(Telemetry::new(TelemetryApi::AutoCommit)),
        12 => Request::Logoff,
        13 => Request::PullAll,
        14 => Request::DiscardAll,
        _ => Request::Pull(Pull::all().with_qid(i64::from(op >> 4))),
    }
}

fn config(b: u8) -> ConnectionConfig {
    let mut c = ConnectionConfig::default();
    if b & 1 != 0 {
        c.handshake = ClientConfig::legacy();
    }
    if b & 2 != 0 {
        c.decode_limits = DecodeLimits {
            max_depth: 4,
            max_string_len: 32,
            max_bytes_len: 32,
            max_container_len: 8,
            max_total_elements: 32,
        };
    }
    if b & 4 != 0 {
        c.dechunk_limits = DechunkLimits {
            max_message_size: 64,
            max_chunks: 4,
        };
    }
    c.max_chunk_size = u16::from(b >> 3);
    c
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let mut client = ClientConnection::new(config(h.u8()));
    let ops: Vec<u8> = (0..8).map(|_| h.u8()).collect();
    let cuts = h.cuts();
    let stream = h.rest();
    assert!(
        !client.take_output().is_empty(),
        "the hello is ready at once"
    );

    let mut sent = 0usize;
    let mut next_op = 0usize;
    let mut events = 0usize;
    let mut failed = false;
    for part in pieces(stream, &cuts) {
        // Pipeline what may be sent now.
        while next_op < ops.len() && client.version().is_some() {
            let req = request(ops[next_op]);
            let allowed = client.can_send(req.kind());
            match client.send(&req) {
                Ok(()) => {
                    assert!(allowed, "sent {} although can_send said no", req.name());
                    sent += 1;
                }
                Err(ConnectionError::IllegalRequest { .. }) => {
                    assert!(!allowed, "can_send allowed {} but send refused", req.name());
                    break;
                }
                Err(_) => break,
            }
            next_op += 1;
        }
        if ops[0] & 1 != 0 {
            let n = client.output().len() / 2;
            client.consume_output(n);
        } else {
            drop(client.take_output());
        }
        let res = client.receive(part);
        while client.poll_event().is_some() {
            events += 1;
        }
        assert!(client.pending_requests() <= sent);
        if failed {
            assert!(matches!(res, Err(ConnectionError::Defunct)));
        }
        if res.is_err() {
            failed = true;
            assert_eq!(client.state(), ServerState::Defunct);
            assert!(!client.can_send(bolt::message::RequestKind::Reset));
        }
    }
    // An event needs a message (4 bytes at least) or the handshake.
    assert!(
        events <= stream.len() / 4 + 1,
        "{events} events from {} bytes",
        stream.len()
    );
});
