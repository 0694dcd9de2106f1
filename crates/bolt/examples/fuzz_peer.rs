//! Fuzz a Bolt **server** with generated requests: handshake, HELLO (and LOGON from Bolt
//! 5.1), then a bounded number of requests from `bolt::arbitrary` (well-formed, with the
//! keys real drivers send, now and then a wrong type or an unknown key; with `--mutate`
//! some are also corrupted by a flipped byte), one at a time. `--legal` percent of them
//! are requests the server accepts in the state it is in (RUN then PULL, BEGIN … COMMIT),
//! so that the session goes deep; the others test its protocol-violation handling. It
//! prints what the server answered, every internal server error (a `DatabaseError`) with
//! the request that caused it, and checks at the end that a fresh connection still works.
//!
//! ```text
//! cargo run -p boltcodec-bolt --features arbitrary --example fuzz_peer -- \
//!     [--addr 127.0.0.1:7687] [--user neo4j] [--password password] \
//!     [--count 300] [--seconds 120] [--seed N] [--mutate PERCENT] [--legal PERCENT]
//! ```
//!
//! The defaults come from `NEO4J_BOLT_PORT`, `NEO4J_USER` and `NEO4J_PASSWORD` when set
//! (`scripts/with-neo4j.sh` sets them). Only loopback addresses are accepted: this is
//! for servers you run yourself. It stops after `--count` requests or `--seconds`,
//! whichever comes first; a request the server does not answer within 10 s counts as a
//! hang. When the server closes the connection (GOODBYE, a failed login, a protocol
//! error it refuses) the tool reconnects and goes on. Exit status 1 if the server stopped
//! answering or a fresh connection fails at the end.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use arbitrary::Unstructured;
use bolt::chunk::{Chunker, Dechunker};
use bolt::handshake::{ClientConfig, ClientHandshake, Step};
use bolt::message::{Hello, Logon, MessageCodec, Request, RequestKind, Response, Run};
use bolt::BoltVersion;

struct Args {
    addr: SocketAddr,
    user: String,
    password: String,
    count: usize,
    seconds: u64,
    seed: u64,
    mutate: u64,
    legal: u64,
}

fn args() -> Result<Args, String> {
    let port = std::env::var("NEO4J_BOLT_PORT").unwrap_or_else(|_| "7687".into());
    let mut addr = format!("127.0.0.1:{port}");
    let mut a = Args {
        addr: "127.0.0.1:7687".parse().map_err(|e| format!("{e}"))?,
        user: std::env::var("NEO4J_USER").unwrap_or_else(|_| "neo4j".into()),
        password: std::env::var("NEO4J_PASSWORD").unwrap_or_else(|_| "password".into()),
        count: 300,
        seconds: 120,
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1),
        mutate: 0,
        legal: 75,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--addr" => addr = value()?,
            "--user" => a.user = value()?,
            "--password" => a.password = value()?,
            "--count" => a.count = value()?.parse().map_err(|e| format!("--count: {e}"))?,
            "--seconds" => a.seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--seed" => a.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--mutate" => a.mutate = value()?.parse().map_err(|e| format!("--mutate: {e}"))?,
            "--legal" => a.legal = value()?.parse().map_err(|e| format!("--legal: {e}"))?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    a.addr = addr
        .to_socket_addrs()
        .map_err(|e| format!("{addr}: {e}"))?
        .next()
        .ok_or(format!("{addr}: no address"))?;
    if !a.addr.ip().is_loopback() {
        return Err(format!("{}: only loopback addresses are accepted", a.addr));
    }
    Ok(a)
}

/// xorshift64*: a reproducible byte source for `Unstructured`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 32) as u8).collect()
    }
}

/// What one request got back.
enum Outcome {
    /// The summary (SUCCESS, FAILURE or IGNORED; for FAILURE its code), the RECORDs,
    /// and whether a SUCCESS said `has_more`.
    Answered(String, usize, bool),
    /// The server closed the connection.
    Closed,
    /// No summary within the read timeout.
    Hang,
    /// The server's bytes did not decode (a bug in the server or in this crate).
    Garbage(String),
}

struct Conn {
    stream: TcpStream,
    version: BoltVersion,
    dechunker: Dechunker,
    chunker: Chunker,
}

impl Conn {
    /// Connects, negotiates and logs in.
    fn open(a: &Args) -> Result<Conn, String> {
        let mut stream = TcpStream::connect_timeout(&a.addr, Duration::from_secs(5))
            .map_err(|e| format!("connect {}: {e}", a.addr))?;
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        let mut hs = ClientHandshake::new(ClientConfig::default());
        stream.write_all(&hs.hello()).map_err(|e| e.to_string())?;
        let mut buf = [0u8; 4096];
        let (version, rest) = loop {
            let n = stream
                .read(&mut buf)
                .map_err(|e| format!("handshake: {e}"))?;
            if n == 0 {
                return Err("the server closed the connection during the handshake".into());
            }
            match hs.receive(&buf[..n]).map_err(|e| e.to_string())? {
                Step::NeedMore => {}
                Step::Negotiated {
                    version,
                    send,
                    consumed,
                } => {
                    stream.write_all(&send).map_err(|e| e.to_string())?;
                    break (version, buf[consumed..n].to_vec());
                }
                other => return Err(format!("handshake: {other:?}")),
            }
        };
        let mut conn = Conn {
            stream,
            version,
            dechunker: Dechunker::new(),
            chunker: Chunker::default(),
        };
        drop(conn.dechunker.feed(&rest));
        let mut hello = Hello::new("boltcodec-fuzz-peer/0.1");
        if version.has_bolt_agent() {
            let agent = bolt::message::BoltAgent::new("boltcodec-fuzz-peer/0.1");
            hello = hello.with_bolt_agent(agent);
        }
        let logon = Logon::basic(&a.user, &a.password);
        if version.hello_carries_auth() {
            hello = hello.with_auth(logon.auth.clone());
        }
        for req in [
            Some(Request::Hello(hello)),
            version.has_logon().then_some(Request::Logon(logon)),
        ]
        .into_iter()
        .flatten()
        {
            match conn.exchange(&req_bytes(&conn, &req)?) {
                Outcome::Answered(s, ..) if s == "SUCCESS" => {}
                Outcome::Answered(s, ..) => return Err(format!("{}: {s}", req.name())),
                Outcome::Closed => return Err(format!("{}: connection closed", req.name())),
                Outcome::Hang => return Err(format!("{}: no answer", req.name())),
                Outcome::Garbage(e) => return Err(format!("{}: {e}", req.name())),
            }
        }
        Ok(conn)
    }

    /// Sends framed bytes and reads until a summary arrives.
    fn exchange(&mut self, framed: &[u8]) -> Outcome {
        if self.stream.write_all(framed).is_err() {
            return Outcome::Closed;
        }
        let codec = MessageCodec::new(self.version);
        let mut records = 0;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            {
                let mut feed = self.dechunker.feed(&[]);
                loop {
                    match feed.next_message() {
                        Ok(Some(m)) => match codec.decode_response(m.bytes()) {
                            Ok(Response::Record(_)) => records += 1,
                            Ok(Response::Failure(f)) => {
                                let code = f.code().unwrap_or("?").to_owned();
                                if code.contains("DatabaseError") {
                                    // The server failed internally: worth a look.
                                    let msg: String =
                                        f.message().unwrap_or("").chars().take(160).collect();
                                    println!("server error {code}: {msg}");
                                }
                                return Outcome::Answered(
                                    format!("FAILURE {code}"),
                                    records,
                                    false,
                                );
                            }
                            Ok(summary) => {
                                let more = matches!(&summary, Response::Success(s) if s.has_more());
                                return Outcome::Answered(summary.name().to_owned(), records, more);
                            }
                            Err(e) => return Outcome::Garbage(e.to_string()),
                        },
                        Ok(None) => break,
                        Err(e) => return Outcome::Garbage(e.to_string()),
                    }
                }
            }
            match self.stream.read(&mut buf) {
                Ok(0) => return Outcome::Closed,
                Ok(n) => drop(self.dechunker.feed(&buf[..n])),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return Outcome::Hang
                }
                Err(_) => return Outcome::Closed,
            }
        }
    }
}

/// Roughly where the server is (docs/protocol.md §6), to pick requests it accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Authentication,
    Ready,
    Streaming,
    TxReady,
    TxStreaming,
}

/// The requests the server accepts in `state`.
fn legal(state: State, v: BoltVersion) -> Vec<RequestKind> {
    use RequestKind as K;
    let (pull, discard) = if v.pull_discard_has_extra() {
        (K::Pull, K::Discard)
    } else {
        (K::PullAll, K::DiscardAll)
    };
    let mut kinds = match state {
        State::Authentication => vec![K::Logon],
        State::Ready => vec![
            K::Run,
            K::Begin,
            K::Route,
            K::Telemetry,
            K::Logoff,
            K::Reset,
        ],
        State::Streaming => vec![pull, pull, discard, K::Reset],
        State::TxReady => vec![K::Run, K::Commit, K::Rollback],
        State::TxStreaming => vec![pull, pull, discard, K::Run],
    };
    kinds.retain(|k| k.exists_in(v));
    kinds
}

/// The state after `kind` succeeded in `state`.
fn next(state: State, kind: RequestKind, has_more: bool) -> State {
    use RequestKind as K;
    match (state, kind) {
        (_, K::Reset | K::Logon) => State::Ready,
        (_, K::Logoff) => State::Authentication,
        (State::TxReady | State::TxStreaming, K::Run) => State::TxStreaming,
        (_, K::Run) => State::Streaming,
        (_, K::Begin) => State::TxReady,
        (_, K::Commit | K::Rollback) => State::Ready,
        (State::Streaming, K::Pull | K::Discard | K::PullAll | K::DiscardAll) if !has_more => {
            State::Ready
        }
        (State::TxStreaming, K::Pull | K::Discard | K::PullAll | K::DiscardAll) if !has_more => {
            State::TxReady
        }
        (s, _) => s,
    }
}

fn req_bytes(conn: &Conn, req: &Request<'_>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    req.encode_framed(conn.version, &conn.chunker, &mut out)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("fuzz_peer: {e}");
            std::process::exit(2);
        }
    };
    let mut rng = Rng(a.seed | 1);
    println!(
        "fuzz_peer: server {} seed {} count {} mutate {}%",
        a.addr, a.seed, a.count, a.mutate
    );
    let mut conn = match Conn::open(&a) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fuzz_peer: {e}");
            std::process::exit(1);
        }
    };
    println!("negotiated Bolt {}", conn.version);

    let started = Instant::now();
    let mut sent: BTreeMap<String, usize> = BTreeMap::new();
    let mut answers: BTreeMap<String, usize> = BTreeMap::new();
    let (mut records, mut reconnects, mut hangs, mut garbage, mut mutated) = (0, 0, 0, 0, 0);
    let mut done = 0;
    let mut state = State::Ready;
    while done < a.count && started.elapsed() < Duration::from_secs(a.seconds) {
        let noise = rng.bytes(16 * 1024);
        let mut u = Unstructured::new(&noise);
        // A request the server accepts now (most of the time), or any request.
        let want = legal(state, conn.version);
        let only_legal = rng.next() % 100 < a.legal;
        let mut req = None;
        for _ in 0..64 {
            match bolt::arbitrary::request(&mut u, conn.version) {
                Ok(r) if !only_legal || want.contains(&r.kind()) => {
                    req = Some(r);
                    break;
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        let Some(req) = req else {
            continue;
        };
        let Ok(mut framed) = req_bytes(&conn, &req) else {
            continue;
        };
        // Now and then corrupt one payload byte (not the 2-byte chunk header or the end).
        let mut name = req.name().to_owned();
        if framed.len() > 4 && rng.next() % 100 < a.mutate {
            let at = 2 + (rng.next() as usize) % (framed.len() - 4);
            framed[at] ^= 1 << (rng.next() % 8);
            name.push('~');
            mutated += 1;
        }
        *sent.entry(name.clone()).or_default() += 1;
        done += 1;
        let outcome = conn.exchange(&framed);
        if let Outcome::Answered(s, ..) = &outcome {
            if s.contains("DatabaseError") {
                let shown: String = req.to_string().chars().take(240).collect();
                println!("  after {name}: {shown}");
            }
        }
        let reconnect = match outcome {
            Outcome::Answered(s, r, has_more) => {
                records += r;
                let failed = s.starts_with("FAILURE");
                *answers.entry(format!("{name} -> {s}")).or_default() += 1;
                if s == "SUCCESS" {
                    state = next(state, req.kind(), has_more);
                }
                if failed {
                    // Clear the failure so that the next requests are not all IGNORED.
                    state = State::Ready;
                    let reset = req_bytes(&conn, &Request::Reset).unwrap_or_default();
                    !matches!(conn.exchange(&reset), Outcome::Answered(..))
                } else {
                    false
                }
            }
            Outcome::Closed => {
                *answers.entry(format!("{name} -> (closed)")).or_default() += 1;
                true
            }
            Outcome::Hang => {
                hangs += 1;
                let shown: String = req.to_string().chars().take(240).collect();
                println!("no answer within 10 s to {name}: {shown}");
                *answers.entry(format!("{name} -> (no answer)")).or_default() += 1;
                true
            }
            Outcome::Garbage(e) => {
                garbage += 1;
                println!("undecodable answer to {name}: {e}");
                true
            }
        };
        if reconnect {
            reconnects += 1;
            state = State::Ready;
            match Conn::open(&a) {
                Ok(c) => conn = c,
                Err(e) => {
                    println!("reconnect failed: {e}");
                    break;
                }
            }
        }
    }

    println!(
        "\n{done} requests in {:.1}s ({mutated} mutated), {records} records, {reconnects} reconnects, {hangs} unanswered, {garbage} undecodable answers",
        started.elapsed().as_secs_f64()
    );
    println!("sent:");
    for (k, n) in &sent {
        println!("  {n:5}  {k}");
    }
    println!("answers:");
    for (k, n) in &answers {
        println!("  {n:5}  {k}");
    }
    // Still alive? A fresh connection must log in and run a query.
    let alive = Conn::open(&a).and_then(|mut c| {
        let run = req_bytes(&c, &Request::Run(Run::new("RETURN 1 AS n")))?;
        let pull = req_bytes(&c, &Request::Pull(bolt::message::Pull::all()))?;
        match (c.exchange(&run), c.exchange(&pull)) {
            (Outcome::Answered(a, ..), Outcome::Answered(b, 1, _))
                if a == "SUCCESS" && b == "SUCCESS" =>
            {
                Ok(())
            }
            _ => Err("RETURN 1 did not come back".to_owned()),
        }
    });
    match alive {
        Ok(()) => println!("server alive: a fresh connection logs in and runs RETURN 1"),
        Err(e) => {
            println!("server NOT alive: {e}");
            std::process::exit(1);
        }
    }
    if hangs > 0 {
        std::process::exit(1);
    }
}
