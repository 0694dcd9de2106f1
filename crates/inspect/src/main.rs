//! `bolt-inspect`: read Bolt traffic as messages.
//!
//! ```text
//! bolt-inspect capture FILE            decode a bolt-capture v1 file (tests/captures)
//! bolt-inspect hex [--bolt X.Y] [--client] HEX...   decode a hex dump: a chunked stream
//!                                      or one message (spaces allowed; "-" reads stdin)
//! bolt-inspect proxy --listen ADDR --target ADDR [--record FILE] [--once]
//!                                      forward connections and print what crosses them
//! ```
//!
//! Options: `--width N` clips each line to N characters (0 = no limit, default 200).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::mpsc;

use bolt::chunk::Dechunker;
use bolt::BoltVersion;
use boltcodec_inspect::{render, Direction, Session};

type Error = Box<dyn std::error::Error>;

fn usage() -> ExitCode {
    eprintln!(
        "usage:\n  bolt-inspect capture FILE\n  bolt-inspect hex [--bolt X.Y] [--client] HEX...\n  \
         bolt-inspect proxy --listen ADDR --target ADDR [--record FILE] [--once]\n\
         options: --width N (0 = unlimited)"
    );
    ExitCode::from(2)
}

fn unhex(s: &str) -> Result<Vec<u8>, Error> {
    let digits: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if digits.len() % 2 != 0 {
        return Err("hex has an odd number of digits".into());
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| {
            Ok(u8::from_str_radix(
                digits.get(i..i + 2).ok_or("bad hex")?,
                16,
            )?)
        })
        .collect()
}

/// Takes `--name VALUE` out of `args`.
fn option(args: &mut Vec<String>, name: &str) -> Option<String> {
    let i = args.iter().position(|a| a == name)?;
    args.remove(i);
    (i < args.len()).then(|| args.remove(i))
}

fn flag(args: &mut Vec<String>, name: &str) -> bool {
    let found = args.iter().position(|a| a == name);
    if let Some(i) = found {
        args.remove(i);
    }
    found.is_some()
}

fn capture(path: &str, width: usize) -> Result<(), Error> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        for key in ["# case:", "# query:", "# server:", "# bolt negotiated:"] {
            if line.starts_with(key) {
                println!("{}", line.trim_start_matches("# "));
            }
        }
    }
    let mut session = Session::new();
    session.max_width = width;
    let raw = text
        .lines()
        .skip_while(|l| *l != "[raw]")
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    let mut out = Vec::new();
    for line in raw {
        let mut cols = line.split_whitespace();
        let dir = match cols.next() {
            Some("C>S") => Direction::ClientToServer,
            Some("S>C") => Direction::ServerToClient,
            other => return Err(format!("bad direction {other:?} in: {line}").into()),
        };
        let bytes = unhex(cols.nth(1).unwrap_or(""))?;
        session.feed(dir, &bytes, &mut out);
        for l in out.drain(..) {
            println!("{l}");
        }
    }
    let (c, s) = session.message_counts();
    println!(
        "{c} client and {s} server messages; {} NOOP chunks",
        session.noops()
    );
    Ok(())
}

fn hex(mut args: Vec<String>, width: usize) -> Result<(), Error> {
    let version: BoltVersion = option(&mut args, "--bolt")
        .as_deref()
        .unwrap_or("5.8")
        .parse()?;
    let dir = if flag(&mut args, "--client") {
        Direction::ClientToServer
    } else {
        Direction::ServerToClient
    };
    let mut text = args.join(" ");
    if text.trim() == "-" || text.trim().is_empty() {
        text.clear();
        std::io::stdin().read_to_string(&mut text)?;
    }
    let bytes = unhex(&text)?;
    if bytes.starts_with(&[0x60, 0x60, 0xB0, 0x17]) {
        let mut session = Session::new();
        session.max_width = width;
        let mut out = Vec::new();
        session.feed(Direction::ClientToServer, &bytes, &mut out);
        out.iter().for_each(|l| println!("{l}"));
        return Ok(());
    }
    // A chunked stream if it frames cleanly, else one message.
    let mut dechunker = Dechunker::new();
    let mut messages = Vec::new();
    let clean = {
        let mut feed = dechunker.feed(&bytes);
        loop {
            match feed.next_message() {
                Ok(Some(m)) => messages.push(m.bytes().to_vec()),
                Ok(None) => break true,
                Err(_) => break false,
            }
        }
    };
    if !(clean && dechunker.is_at_boundary() && !messages.is_empty()) {
        messages = vec![bytes];
    }
    for (i, m) in messages.iter().enumerate() {
        println!("{} #{:<3} {}", dir.arrow(), i + 1, render(dir, version, m));
    }
    Ok(())
}

/// Copies `from` to `to`, reporting every read on `tx`.
fn pump(
    mut from: TcpStream,
    mut to: TcpStream,
    dir: Direction,
    tx: mpsc::Sender<(Direction, Vec<u8>)>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = buf.get(..n).unwrap_or_default();
        if to.write_all(chunk).is_err() || tx.send((dir, chunk.to_vec())).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
}

fn proxy(mut args: Vec<String>, width: usize) -> Result<(), Error> {
    let listen = option(&mut args, "--listen").ok_or("--listen ADDR is required")?;
    let target = option(&mut args, "--target").ok_or("--target ADDR is required")?;
    let mut record = match option(&mut args, "--record") {
        Some(path) => Some(std::fs::File::create(&path).map_err(|e| format!("{path}: {e}"))?),
        None => None,
    };
    let once = flag(&mut args, "--once");
    let listener = TcpListener::bind(&listen)?;
    eprintln!(
        "bolt-inspect: listening on {}, forwarding to {target}",
        listener.local_addr()?
    );
    if let Some(f) = record.as_mut() {
        writeln!(
            f,
            "# bolt-capture v1\n# recorded by bolt-inspect proxy, target {target}\n[raw]"
        )?;
    }
    for (n, client) in listener.incoming().enumerate() {
        let client = client?;
        let server = TcpStream::connect(&target)?;
        println!("-- connection {} from {}", n + 1, client.peer_addr()?);
        let (tx, rx) = mpsc::channel();
        let (c2, s2) = (client.try_clone()?, server.try_clone()?);
        let tx2 = tx.clone();
        let up = std::thread::spawn(move || pump(client, server, Direction::ClientToServer, tx));
        let down = std::thread::spawn(move || pump(s2, c2, Direction::ServerToClient, tx2));
        let mut session = Session::new();
        session.max_width = width;
        let mut offsets = [0usize; 2];
        let mut out = Vec::new();
        for (dir, bytes) in rx {
            if let Some(f) = record.as_mut() {
                let o = &mut offsets[usize::from(dir == Direction::ServerToClient)];
                for piece in bytes.chunks(32) {
                    let hex: String = piece.iter().map(|b| format!("{b:02x}")).collect();
                    writeln!(f, "{} {} {hex}", dir.arrow(), *o)?;
                    *o += piece.len();
                }
            }
            session.feed(dir, &bytes, &mut out);
            for l in out.drain(..) {
                println!("{l}");
            }
        }
        let _ = (up.join(), down.join());
        let (c, s) = session.message_counts();
        println!(
            "-- connection {} closed: {c} client and {s} server messages",
            n + 1
        );
        if once {
            break;
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let width = match option(&mut args, "--width").map(|w| w.parse::<usize>()) {
        None => 200,
        Some(Ok(w)) => w,
        Some(Err(_)) => return usage(),
    };
    if args.is_empty() {
        return usage();
    }
    let cmd = args.remove(0);
    let result = match cmd.as_str() {
        "capture" if args.len() == 1 => capture(&args[0], width),
        "hex" => hex(args, width),
        "proxy" => proxy(args, width),
        _ => return usage(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bolt-inspect: {e}");
            ExitCode::FAILURE
        }
    }
}
