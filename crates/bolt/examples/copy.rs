//! Copies every node of one label, with its properties, from one Neo4j server to
//! another, in bounded memory: the source is read with `PULL {n}` back-pressure, the
//! target written with `UNWIND` batches, and reading and writing run at the same time
//! (a reader thread hands each batch to the writer through a channel that holds one
//! batch). At most three batches are in memory, whatever the node count.
//!
//! ```text
//! cargo run --release -p boltcodec-bolt --example copy -- \
//!     --source 127.0.0.1:7687 --target 127.0.0.1:7688 [--label Item] [--batch 10000]
//! ```
//!
//! User and password come from `$NEO4J_USER` (default `neo4j`) and `$NEO4J_PASSWORD`.
//! Prints one line: `copied N nodes in S s (R nodes/s), peak RSS M KiB`.
//! `examples/copy/run.sh` seeds a source server, runs this copy and the official Python
//! driver's copy of the same nodes, and checks both targets.

use std::error::Error;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Instant;

use bolt::connection::{ClientConnection, ConnectionConfig, Event};
use bolt::message::{Dict, Hello, Logon, Pull, Request, Run};
use packstream::{Value, ValueRef};

type Res<T> = Result<T, Box<dyn Error + Send + Sync>>;

/// One authenticated connection and its socket.
struct Conn {
    conn: ClientConnection,
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    fn open(addr: &str, user: &str, password: &str) -> Res<Self> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        let mut c = Conn {
            conn: ClientConnection::new(ConnectionConfig::default()),
            stream,
            buf: vec![0; 256 * 1024],
        };
        let Event::Negotiated(version) = c.next()? else {
            return Err("handshake failed".into());
        };
        let auth = Logon::basic(user, password).auth;
        // The connection adds bolt_agent (5.3+) and asks for the utc patch (4.4) itself.
        let hello = Hello::new("boltcodec-copy-example/0.1");
        if version.has_logon() {
            c.conn.send(&Request::Hello(hello))?;
            c.conn.send(&Request::Logon(Logon::new(auth)))?;
            c.summary()?;
        } else {
            c.conn.send(&Request::Hello(hello.with_auth(auth)))?;
        }
        c.summary()?;
        Ok(c)
    }

    /// Sends what is queued, then reads until the connection has an event.
    fn next(&mut self) -> Res<Event> {
        loop {
            let out = self.conn.take_output();
            if !out.is_empty() {
                self.stream.write_all(&out)?;
            }
            if let Some(event) = self.conn.poll_event() {
                return Ok(event);
            }
            let n = self.stream.read(&mut self.buf)?;
            if n == 0 {
                return Err("the server closed the connection".into());
            }
            self.conn.receive(&self.buf[..n])?;
        }
    }

    /// The next event, which must be a SUCCESS: its metadata.
    fn summary(&mut self) -> Res<Value> {
        match self.next()? {
            Event::Success { metadata, .. } => Ok(metadata),
            Event::Failure { code, message, .. } => Err(format!(
                "{}: {}",
                code.unwrap_or_default(),
                message.unwrap_or_default()
            )
            .into()),
            other => Err(format!("expected a summary, got {other:?}").into()),
        }
    }

    fn close(mut self) -> Res<()> {
        self.conn.send(&Request::Goodbye)?;
        self.stream.write_all(&self.conn.take_output())?;
        Ok(())
    }
}

/// Reads the properties of every `label` node, `batch` records per `PULL`, and sends
/// each batch to `out`; blocks while the writer is a batch behind.
fn read_source(
    mut src: Conn,
    label: &str,
    batch: i64,
    out: &mpsc::SyncSender<Vec<Value>>,
) -> Res<()> {
    let query = format!("MATCH (n:`{label}`) RETURN properties(n) AS p");
    src.conn.send(&Request::Run(Run::new(&query)))?;
    src.conn.send(&Request::Pull(Pull::new(batch)))?;
    src.summary()?; // RUN
    let mut rows = Vec::with_capacity(batch as usize);
    loop {
        match src.next()? {
            Event::Record(mut fields) => rows.push(fields.pop().unwrap_or_default()),
            Event::Success { metadata, .. } => {
                let more = metadata.get("has_more").and_then(Value::as_bool) == Some(true);
                // Ask for the next batch before handing this one on, so the server
                // produces it while the writer works.
                if more {
                    src.conn.send(&Request::Pull(Pull::new(batch)))?;
                }
                let full = std::mem::replace(&mut rows, Vec::with_capacity(batch as usize));
                if !full.is_empty() && out.send(full).is_err() {
                    return Err("the writer stopped".into());
                }
                if !more {
                    break;
                }
            }
            other => return Err(format!("reading the source: {other:?}").into()),
        }
    }
    src.close()
}

/// Writes each batch with one `UNWIND` in its own auto-commit transaction.
fn write_target(mut dst: Conn, label: &str, batches: &mpsc::Receiver<Vec<Value>>) -> Res<u64> {
    let query = format!("UNWIND $rows AS p CREATE (n:`{label}`) SET n = p");
    let mut copied = 0u64;
    for rows in batches {
        let list = ValueRef::List(rows.iter().map(Value::as_value_ref).collect());
        let params = Dict::new().with("rows", list);
        dst.conn
            .send(&Request::Run(Run::new(&query).with_parameters(params)))?;
        dst.conn.send(&Request::Pull(Pull::all()))?;
        dst.summary()?; // RUN
        dst.summary()?; // PULL: the write is committed
        copied += rows.len() as u64;
    }
    dst.close()?;
    Ok(copied)
}

/// The process's peak resident set size, in KiB (`VmHWM`).
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

struct Args {
    source: String,
    target: String,
    label: String,
    batch: i64,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        source: String::new(),
        target: String::new(),
        label: "Item".into(),
        batch: 10_000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--source" => args.source = value()?,
            "--target" => args.target = value()?,
            "--label" => args.label = value()?,
            "--batch" => {
                args.batch = value()?.parse().map_err(|_| "bad --batch")?;
                if args.batch < 1 {
                    return Err("--batch must be at least 1".into());
                }
            }
            _ => return Err(format!("unknown argument {arg}")),
        }
    }
    if args.source.is_empty() || args.target.is_empty() {
        return Err("--source and --target are required".into());
    }
    if args.label.contains('`') {
        return Err("the label may not contain a backtick".into());
    }
    Ok(args)
}

fn run(args: &Args) -> Res<()> {
    let user = std::env::var("NEO4J_USER").unwrap_or_else(|_| "neo4j".into());
    let password = std::env::var("NEO4J_PASSWORD").unwrap_or_default();
    let src = Conn::open(&args.source, &user, &password)?;
    let dst = Conn::open(&args.target, &user, &password)?;
    let started = Instant::now();
    let (tx, rx) = mpsc::sync_channel(1);
    let (label, batch) = (args.label.clone(), args.batch);
    let reader = std::thread::spawn(move || read_source(src, &label, batch, &tx));
    let written = write_target(dst, &args.label, &rx);
    let read = reader.join().map_err(|_| "the reader thread panicked")?;
    read?;
    let copied = written?;
    let secs = started.elapsed().as_secs_f64();
    println!(
        "copied {copied} nodes in {secs:.2} s ({:.0} nodes/s), peak RSS {} KiB",
        copied as f64 / secs,
        peak_rss_kib()
    );
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!("usage: copy --source HOST:PORT --target HOST:PORT [--label L] [--batch N]");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
