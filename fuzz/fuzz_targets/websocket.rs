//! Bolt over WebSocket (`bolt::ws`): the opening handshake of both roles, the frame
//! decoder of both roles and the `WsStream` adapter, fed hostile bytes in random pieces.
//!
//! Input: `[mode] [cuts…] bytes`. Bits 0–1 of `mode` pick the part (server upgrade,
//! client upgrade, frames through `WsStream`, raw `WsDecoder`), bit 2 the role, bits 3–4
//! the frame limits.
//!
//! Checks: no panic; the outcome (Bolt bytes, replies to send, error) does not depend on
//! how the bytes are cut; payloads borrowed from the input lie in it; `used` never
//! exceeds the input; poisoned after an error.
#![no_main]

use bolt::handshake::Status;
use bolt::ws::{
    ClientUpgrade, Event, FrameLimits, MaskSource, Role, ServerUpgrade, WsDecoder, WsStream,
    XorShiftMask,
};
use fuzz_common::{pieces, Header};
use libfuzzer_sys::fuzz_target;

fn limits(b: u8, role: Role) -> FrameLimits {
    match b % 4 {
        0 if role == Role::Server => FrameLimits::NEO4J,
        0 => FrameLimits::CLIENT_DEFAULT,
        1 => FrameLimits::NEO4J,
        2 => FrameLimits {
            max_frame_size: 16,
            max_message_size: 40,
        },
        _ => FrameLimits {
            max_frame_size: 0,
            max_message_size: 0,
        },
    }
}

/// The server side of the opening handshake: what it parsed, or the error.
fn server_upgrade(parts: &[&[u8]]) -> String {
    let mut up = ServerUpgrade::new();
    for part in parts {
        match up.receive(part) {
            Ok(Status::Complete(req)) => {
                assert!(req.used() <= parts.iter().map(|p| p.len()).sum::<usize>());
                let _ = (
                    req.target(),
                    req.host(),
                    req.key(),
                    req.origin(),
                    req.protocols(),
                );
                let _ = req.extensions();
                return format!("{:?}", req.response());
            }
            Ok(Status::NeedMore) => {}
            Err(e) => {
                let _ = ServerUpgrade::rejection(&e);
                return format!("error {e}");
            }
        }
    }
    "need more".into()
}

/// The client side: the response to a fixed request.
fn client_upgrade(parts: &[&[u8]]) -> String {
    let mut up = ClientUpgrade::new("localhost:7687", "/", [0x5A; 16]).expect("valid");
    for part in parts {
        match up.receive(part) {
            Ok(Status::Complete(used)) => {
                assert!(used <= part.len());
                return format!("complete ({used} of the last piece)");
            }
            Ok(Status::NeedMore) => {}
            Err(e) => return format!("error {e}"),
        }
    }
    "need more".into()
}

/// Frames through a `WsStream`: the Bolt bytes, the replies and the final status.
fn stream(role: Role, parts: &[&[u8]]) -> (Vec<u8>, Vec<u8>, String) {
    match role {
        Role::Server => drive(WsStream::server(), parts),
        Role::Client => drive(WsStream::client(XorShiftMask::new(7)), parts),
    }
}

fn drive<M: MaskSource>(mut ws: WsStream<M>, parts: &[&[u8]]) -> (Vec<u8>, Vec<u8>, String) {
    let (mut bolt, mut send) = (Vec::new(), Vec::new());
    for part in parts {
        if let Err(e) = ws.from_wire(part, &mut bolt, &mut send) {
            return (bolt, send, format!("error {e}"));
        }
    }
    let status = format!("closed {}", ws.is_closed());
    (bolt, send, status)
}

/// Frames through a bare decoder: the payload bytes, the control events and the error.
fn decoder(role: Role, lim: FrameLimits, parts: &[&[u8]]) -> (Vec<u8>, Vec<String>, String) {
    let mut d = WsDecoder::with_limits(role, lim);
    let (mut data, mut events) = (Vec::new(), Vec::new());
    for part in parts {
        let mut input: &[u8] = part;
        loop {
            match d.next_event(input) {
                Ok((used, event)) => {
                    assert!(used <= input.len(), "used {used} of {}", input.len());
                    match event {
                        Some(Event::Data(p)) => {
                            if let Some(r) = p.input_range() {
                                assert_eq!(&input[r], p.bytes());
                            }
                            data.extend_from_slice(p.bytes());
                        }
                        Some(Event::Ping(b)) => events.push(format!("ping {b:?}")),
                        Some(Event::Pong(b)) => events.push(format!("pong {b:?}")),
                        Some(Event::Close(c)) => events.push(format!("close {:?}", c.to_info())),
                        None => break,
                    }
                    input = &input[used..];
                }
                Err(e) => {
                    assert_eq!(d.next_event(&[]).err(), Some(e.clone()), "poisoned");
                    return (data, events, format!("error {e}"));
                }
            }
        }
    }
    let end = format!("{:?}", d.end_of_stream());
    (data, events, end)
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let mode = h.u8();
    let cuts = h.cuts();
    let bytes = h.rest();
    let split = pieces(bytes, &cuts);
    let role = if mode & 4 == 0 {
        Role::Server
    } else {
        Role::Client
    };
    match mode % 4 {
        0 => assert_eq!(server_upgrade(&[bytes]), server_upgrade(&split)),
        1 => {
            // Where the response ends depends on the pieces; whether it is accepted not.
            let whole = client_upgrade(&[bytes]);
            let cut = client_upgrade(&split);
            assert_eq!(
                whole.starts_with("error"),
                cut.starts_with("error"),
                "{whole} / {cut}"
            );
            assert_eq!(whole == "need more", cut == "need more", "{whole} / {cut}");
        }
        2 => assert_eq!(stream(role, &[bytes]), stream(role, &split)),
        _ => {
            let lim = limits(mode >> 3, role);
            assert_eq!(decoder(role, lim, &[bytes]), decoder(role, lim, &split));
        }
    }
});
