//! Connects to a Neo4j Bolt port over WebSocket and prints the negotiated Bolt version.
//!
//! ```text
//! cargo run -p boltcodec-bolt --example ws_handshake -- 7687
//! cargo run -p boltcodec-bolt --example ws_handshake -- 7687 db.example.com --legacy
//! ```
//!
//! Arguments: the port, optionally the host (default 127.0.0.1), and `--legacy` to
//! offer the four legacy proposal slots instead of the handshake manifest. Plain `ws://`
//! only (no TLS).

use std::error::Error;
use std::hash::{BuildHasher, Hasher};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use bolt::handshake::{ClientConfig, ClientHandshake, Status, Step};
use bolt::ws::{ClientUpgrade, CloseCode, WireStatus, WsStream, XorShiftMask};

/// 64 random bits from the standard library's randomly keyed hasher. The WebSocket key
/// and the masking seed must be unpredictable; a real driver may prefer the OS RNG.
fn random_u64() -> u64 {
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

fn read(tcp: &mut TcpStream) -> Result<Vec<u8>, Box<dyn Error>> {
    let mut buf = vec![0u8; 16 * 1024];
    let n = tcp.read(&mut buf)?;
    if n == 0 {
        return Err("the server closed the connection".into());
    }
    buf.truncate(n);
    Ok(buf)
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let legacy = args.iter().any(|a| a == "--legacy");
    let mut positional = args.iter().filter(|a| !a.starts_with("--"));
    let port: u16 = positional
        .next()
        .ok_or("usage: ws_handshake PORT [HOST] [--legacy]")?
        .parse()?;
    let host = positional.next().map_or("127.0.0.1", String::as_str);

    let mut tcp = TcpStream::connect((host, port))?;
    tcp.set_read_timeout(Some(Duration::from_secs(10)))?;

    // 1. The HTTP upgrade, with a fresh random key.
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&random_u64().to_le_bytes());
    key[8..].copy_from_slice(&random_u64().to_le_bytes());
    let host_header = if host.contains(':') {
        format!("[{host}]:{port}") // an IPv6 literal
    } else {
        format!("{host}:{port}")
    };
    let mut upgrade = ClientUpgrade::new(&host_header, "/", key)?;
    tcp.write_all(upgrade.request())?;
    let rest = loop {
        let input = read(&mut tcp)?;
        if let Status::Complete(used) = upgrade.receive(&input)? {
            break input[used..].to_vec();
        }
    };
    println!("upgraded to WebSocket on ws://{host_header}/");

    // 2. The Bolt handshake, through the WebSocket stream.
    let mut ws = WsStream::client(XorShiftMask::new(random_u64()));
    let config = if legacy {
        ClientConfig::legacy()
    } else {
        ClientConfig::default()
    };
    let mut handshake = ClientHandshake::new(config);
    let mut wire = Vec::new();
    ws.to_wire(&handshake.hello(), &mut wire)?;
    tcp.write_all(&wire)?;

    let mut received = rest;
    loop {
        let (mut bolt, mut send) = (Vec::new(), Vec::new());
        let status = ws.from_wire(&received, &mut bolt, &mut send)?;
        tcp.write_all(&send)?;
        if let WireStatus::Closed(close) = status {
            return Err(format!("the server closed the WebSocket: {close:?}").into());
        }
        match handshake.receive(&bolt)? {
            Step::NeedMore => received = read(&mut tcp)?,
            Step::Negotiated { version, send, .. } => {
                let how = if send.is_empty() {
                    "legacy version reply"
                } else {
                    "handshake manifest v1"
                };
                println!("negotiated Bolt {version} ({how})");
                let mut wire = Vec::new();
                ws.to_wire(&send, &mut wire)?;
                // 3. Close the WebSocket cleanly and wait for the server's reply.
                ws.close(Some(CloseCode::NORMAL), "", &mut wire)?;
                tcp.write_all(&wire)?;
                while !ws.is_closed() {
                    let Ok(input) = read(&mut tcp) else { break };
                    let (mut bolt, mut send) = (Vec::new(), Vec::new());
                    ws.from_wire(&input, &mut bolt, &mut send)?;
                }
                return Ok(());
            }
            Step::Rejected { .. } => {
                return Err("the server supports none of the offered versions".into())
            }
            Step::Continue { .. } => return Err("unexpected handshake step".into()),
        }
    }
}
