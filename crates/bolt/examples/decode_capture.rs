//! Decodes a captured Bolt session (the `bolt-capture v1` text format of `tests/captures`)
//! and prints every message readably, in the order it crossed the wire.
//!
//! ```text
//! cargo run -p boltcodec-bolt --example decode_capture -- tests/captures/neo4j-5.26.30/bolt-5.8/node.txt
//! ```
//!
//! Everything goes through the library: both roles of the handshake find where the
//! handshake ends and which version was agreed, the dechunker frames the messages as the
//! recorded reads arrive, and PackStream decodes them (with UUIDs from Bolt 6.1 on).

use std::error::Error;

use bolt::chunk::Dechunker;
use bolt::handshake::{
    ClientConfig, ClientHandshake, ClientHello, ServerConfig, ServerHandshake, Status, Step,
};
use bolt::BoltVersion;
use packstream::{DecodeOptions, ValueRef};

/// Message names by signature (requests and responses share no signature).
fn message_name(tag: u8) -> &'static str {
    match tag {
        0x01 => "HELLO/INIT",
        0x02 => "GOODBYE",
        0x0E => "ACK_FAILURE",
        0x0F => "RESET",
        0x10 => "RUN",
        0x11 => "BEGIN",
        0x12 => "COMMIT",
        0x13 => "ROLLBACK",
        0x2F => "DISCARD",
        0x3F => "PULL",
        0x54 => "TELEMETRY",
        0x66 => "ROUTE",
        0x6A => "LOGON",
        0x6B => "LOGOFF",
        0x70 => "SUCCESS",
        0x71 => "RECORD",
        0x7E => "IGNORED",
        0x7F => "FAILURE",
        _ => "UNKNOWN",
    }
}

/// One direction of the session: its handshake state and its dechunker.
struct Direction {
    name: &'static str,
    buffered: Vec<u8>,
    in_handshake: bool,
    dechunker: Dechunker,
    count: usize,
}

fn unhex(s: &str) -> Result<Vec<u8>, Box<dyn Error>> {
    (0..s.len())
        .step_by(2)
        .map(|i| Ok(u8::from_str_radix(s.get(i..i + 2).ok_or("odd hex")?, 16)?))
        .collect()
}

fn main() -> Result<(), Box<dyn Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "tests/captures/neo4j-5.26.30/bolt-5.8/node.txt".into());
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        if let Some(rest) = ["# case:", "# query:", "# server:", "# bolt negotiated:"]
            .iter()
            .find_map(|p| line.strip_prefix(p))
        {
            println!(
                "{}:{rest}",
                line.trim_start_matches("# ")
                    .split(':')
                    .next()
                    .unwrap_or("")
            );
        }
    }

    let mut client = Direction {
        name: "C>S",
        buffered: Vec::new(),
        in_handshake: true,
        dechunker: Dechunker::new(),
        count: 0,
    };
    let mut server = Direction {
        name: "S>C",
        buffered: Vec::new(),
        in_handshake: true,
        dechunker: Dechunker::new(),
        count: 0,
    };
    let mut server_side: Option<ServerHandshake> = None; // parses the client's handshake bytes
    let mut client_side: Option<ClientHandshake> = None; // parses the server's handshake bytes
    let mut version: Option<BoltVersion> = None;

    let raw = text
        .lines()
        .skip_while(|l| *l != "[raw]")
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    for line in raw {
        let mut cols = line.split_whitespace();
        let (dir, _offset, hex) = (
            cols.next().unwrap_or(""),
            cols.next(),
            cols.next().unwrap_or(""),
        );
        let bytes = unhex(hex)?;
        let side = if dir == "C>S" {
            &mut client
        } else {
            &mut server
        };
        let mut input: &[u8] = &bytes;
        // Handshake bytes go to the matching role's parser; what follows its end belongs
        // to the message stream.
        while side.in_handshake && !input.is_empty() {
            let step = if dir == "C>S" {
                if client_side.is_none() {
                    // The client's proposals tell the parser of the server's reply what was
                    // offered.
                    side.buffered.extend_from_slice(input);
                    if let Status::Complete((hello, _)) = ClientHello::parse(&side.buffered)? {
                        println!("C>S handshake: {:?}", hello.proposals);
                        client_side =
                            Some(ClientHandshake::new(ClientConfig::new(hello.proposals)));
                    }
                    side.buffered.clear();
                }
                server_side
                    .get_or_insert_with(|| ServerHandshake::new(ServerConfig::default()))
                    .receive(input)?
            } else {
                client_side
                    .as_mut()
                    .ok_or("server spoke before the client")?
                    .receive(input)?
            };
            match step {
                Step::NeedMore => input = &[],
                Step::Continue { consumed, .. } => {
                    input = input.get(consumed..).unwrap_or_default()
                }
                Step::Rejected { .. } => {
                    println!("{dir} handshake: no common version");
                    return Ok(());
                }
                Step::Negotiated {
                    version: v,
                    consumed,
                    ..
                } => {
                    if dir == "S>C" {
                        println!("S>C handshake: Bolt {v} agreed");
                        version = Some(v);
                    }
                    side.in_handshake = false;
                    input = input.get(consumed..).unwrap_or_default();
                }
            }
        }
        let opts = DecodeOptions::default().with_uuid(version.is_some_and(|v| v.has_uuid()));
        {
            let mut feed = side.dechunker.feed(input);
            while let Some(msg) = feed.next_message()? {
                side.count += 1;
                let value = ValueRef::decode_exact_with(msg.bytes(), &opts)?;
                let (name, fields) = match &value {
                    ValueRef::Struct(s) => (
                        message_name(s.tag),
                        s.fields.iter().map(ToString::to_string).collect::<Vec<_>>(),
                    ),
                    other => ("NOT A MESSAGE", vec![other.to_string()]),
                };
                let mut shown = fields.join(" ");
                if shown.len() > 160 {
                    let cut = (0..=160)
                        .rev()
                        .find(|i| shown.is_char_boundary(*i))
                        .unwrap_or(0);
                    shown.truncate(cut);
                    shown.push('…');
                }
                println!("{} #{:<3} {name} {shown}", side.name, side.count);
            }
        }
    }
    println!(
        "{} client and {} server messages; {} NOOP chunks",
        client.count,
        server.count,
        client.dechunker.noop_count() + server.dechunker.noop_count()
    );
    Ok(())
}
