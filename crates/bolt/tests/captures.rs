//! Replays the Bolt sessions captured from real Neo4j servers (`tests/captures/` at the
//! repository root, format in its README) through both handshake roles, the dechunker
//! (per feed and in batches) and the chunker, and checks every byte against the capture.

use std::fs;
use std::path::Path;

use bolt::chunk::{Chunker, Dechunker};
use bolt::handshake::{
    ClientConfig, ClientHandshake, ClientHello, ServerConfig, ServerHandshake, Status, Step,
};
use bolt::BoltVersion;
use test_support::{capture_files, captures_dir, hex};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    C2S,
    S2C,
}

fn dir(token: &str) -> Dir {
    match token {
        "C>S" => Dir::C2S,
        "S>C" => Dir::S2C,
        other => panic!("unknown direction {other}"),
    }
}

#[derive(Debug)]
struct Msg {
    offset: u64,
    chunks: Vec<usize>,
    bytes: Vec<u8>,
}

#[derive(Debug, Default)]
struct Capture {
    negotiated: Option<BoltVersion>,
    /// Raw pieces per direction; consecutive lines of one direction merged into one read.
    reads: [Vec<Vec<u8>>; 2],
    handshake: [Vec<u8>; 2],
    messages: [Vec<Msg>; 2],
    noops: [u64; 2],
}

fn idx(d: Dir) -> usize {
    match d {
        Dir::C2S => 0,
        Dir::S2C => 1,
    }
}

fn parse(text: &str) -> Capture {
    let mut c = Capture::default();
    let mut last_raw: Option<Dir> = None;
    for line in text.lines() {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.as_slice() {
            ["#", "bolt", "negotiated:", v] => c.negotiated = Some(v.parse().expect("version")),
            [d @ ("C>S" | "S>C"), _offset, h] => {
                let d = dir(d);
                let bytes = hex(h);
                let reads = &mut c.reads[idx(d)];
                match (last_raw == Some(d), reads.last_mut()) {
                    (true, Some(last)) => last.extend(bytes),
                    _ => reads.push(bytes),
                }
                last_raw = Some(d);
            }
            ["HS", d, _offset, h] => c.handshake[idx(dir(d))].extend(hex(h)),
            ["MSG", d, _seq, _name, offset, chunks, h] => c.messages[idx(dir(d))].push(Msg {
                offset: offset.parse().expect("offset"),
                chunks: chunks
                    .split(',')
                    .map(|n| n.parse().expect("chunk size"))
                    .collect(),
                bytes: hex(h),
            }),
            ["NOOP", d, _offset] => c.noops[idx(dir(d))] += 1,
            _ => {}
        }
    }
    c
}

fn server_config(path: &Path) -> ServerConfig {
    let flavour = if path.to_string_lossy().contains("neo4j-2026") {
        "2026"
    } else {
        "5.26"
    };
    let versions: Vec<BoltVersion> = test_support::neo4j_bolt_versions(flavour)
        .into_iter()
        .map(|(major, minor)| BoltVersion::new(major, minor))
        .collect();
    ServerConfig::new(&versions)
}

/// Runs a handshake over `reads`; returns the outcome and the reads left for the message
/// stream.
fn handshake(
    mut receive: impl FnMut(&[u8]) -> Step,
    reads: &[Vec<u8>],
) -> (BoltVersion, Vec<u8>, Vec<Vec<u8>>) {
    let mut sent = Vec::new();
    for (i, read) in reads.iter().enumerate() {
        let mut input: &[u8] = read;
        loop {
            match receive(input) {
                Step::NeedMore => break,
                Step::Continue { send, consumed } => {
                    sent.extend(send);
                    input = &input[consumed..];
                }
                Step::Negotiated {
                    version,
                    send,
                    consumed,
                } => {
                    sent.extend(send);
                    let mut rest = vec![input[consumed..].to_vec()];
                    rest.extend(reads[i + 1..].iter().cloned());
                    return (version, sent, rest);
                }
                Step::Rejected { .. } => panic!("handshake rejected"),
            }
        }
    }
    panic!("handshake incomplete");
}

fn check_stream(name: &str, reads: &[Vec<u8>], base: u64, expected: &[Msg], noops: u64) {
    // one feed per read
    let mut d = Dechunker::new();
    let mut got = Vec::new();
    let mut borrowed = 0;
    for read in reads {
        let mut feed = d.feed(read);
        while let Some(m) = feed.next_message().expect("dechunk") {
            borrowed += usize::from(!m.is_copied());
            got.push((base + m.offset(), m.chunk_count() as usize, m.to_vec()));
        }
    }
    assert_eq!(d.end_of_stream(), Ok(()), "{name}");
    assert_eq!(d.noop_count(), noops, "{name}");
    assert_eq!(got.len(), expected.len(), "{name}: message count");
    for (g, e) in got.iter().zip(expected) {
        assert_eq!(g.0, e.offset, "{name}: offset");
        assert_eq!(g.1, e.chunks.len(), "{name}: chunks at {}", e.offset);
        assert!(
            g.2 == e.bytes,
            "{name}: bytes of the message at {}",
            e.offset
        );
    }
    // most messages of a session are small and arrive whole
    if expected.len() > 2 {
        assert!(borrowed > 0, "{name}: nothing was zero-copy");
    }

    // the same in batches
    let mut d = Dechunker::new();
    let mut n = 0;
    for read in reads {
        let batch = d.feed_batch(read);
        assert!(batch.error().is_none());
        for m in batch.iter() {
            assert!(m.bytes() == expected[n].bytes, "{name}: batch message {n}");
            n += 1;
        }
    }
    assert_eq!(n, expected.len(), "{name}");

    // re-chunking each message with its sender's chunk size reproduces the stream
    if noops == 0 {
        let stream: Vec<u8> = reads.concat();
        let mut framed = Vec::new();
        for m in expected {
            let size = if m.chunks.len() > 1 {
                m.chunks[0]
            } else {
                65_535
            };
            Chunker::new(size)
                .unwrap()
                .write_message(&m.bytes, &mut framed)
                .unwrap();
        }
        assert!(framed == stream, "{name}: re-chunked stream differs");
    }
}

#[test]
fn replay_captures() {
    let dir = captures_dir();
    assert!(
        dir.is_dir(),
        "the capture files are expected in tests/captures at the repository root"
    );
    let files = capture_files();
    assert!(!files.is_empty(), "no capture files found");
    for path in &files {
        let name = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        let c = parse(&fs::read_to_string(path).expect("read capture"));
        // the directory says which version was negotiated (`bolt-5.8`, `bolt-4.4-no-utc-patch`)
        let from_dir: BoltVersion = path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("bolt-"))
            .and_then(|n| n.split('-').next())
            .and_then(|v| v.parse().ok())
            .expect("directory named bolt-X.Y");
        let negotiated = c.negotiated.unwrap_or(from_dir);
        assert_eq!(
            negotiated, from_dir,
            "{name}: header and directory disagree"
        );

        // server role on the client's bytes
        let mut server = ServerHandshake::new(server_config(path));
        let (version, sent, c2s) = handshake(
            |b| server.receive(b).expect("server handshake"),
            &c.reads[0],
        );
        assert_eq!(version, negotiated, "{name}: server-side version");
        assert_eq!(sent, c.handshake[1], "{name}: server handshake bytes");

        // client role on the server's bytes, offering what the capture's client offered
        let first: Vec<u8> = c.reads[0].concat();
        let Ok(Status::Complete((hello, 20))) = ClientHello::parse(&first) else {
            panic!("{name}: no client hello");
        };
        let mut client = ClientHandshake::new(ClientConfig::new(hello.proposals));
        let (version, sent, s2c) = handshake(
            |b| client.receive(b).expect("client handshake"),
            &c.reads[1],
        );
        assert_eq!(version, negotiated, "{name}: client-side version");
        assert_eq!(sent, c.handshake[0][20..], "{name}: client pick bytes");

        let c2s_base = c.handshake[0].len() as u64;
        let s2c_base = c.handshake[1].len() as u64;
        check_stream(
            &format!("{name} C>S"),
            &c2s,
            c2s_base,
            &c.messages[0],
            c.noops[0],
        );
        check_stream(
            &format!("{name} S>C"),
            &s2c,
            s2c_base,
            &c.messages[1],
            c.noops[1],
        );
    }
    eprintln!("replayed {} capture files", files.len());
}
