//! A tiny blocking Bolt client: runs one Cypher query against a Neo4j server and prints
//! the result. All protocol work is done by the sans-IO [`ClientConnection`]; this file
//! only moves bytes between it and a `TcpStream`.
//!
//! ```text
//! cargo run -p boltcodec-bolt --example query -- \
//!     [--host H] [--port P] [--user U] [--password P] [--bolt X.Y] "CYPHER"
//! ```
//!
//! Defaults: host `127.0.0.1`, port `$NEO4J_BOLT_PORT` or 7687, user `$NEO4J_USER` or
//! `neo4j`, password `$NEO4J_PASSWORD`. Without `--bolt` every supported version is
//! offered; with it, exactly that one. Exits with status 1 when the server answers a
//! request with FAILURE, 2 on bad arguments.

use std::error::Error;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::ExitCode;

use bolt::connection::{ClientConnection, ConnectionConfig, Event};
use bolt::handshake::{ClientConfig, Proposal};
use bolt::message::{BoltAgent, Hello, Logon, Pull, Request, Run};
use bolt::structs::DisplayValue;
use bolt::BoltVersion;
use packstream::Value;

/// Sends what the connection has queued, then reads from the socket until the
/// connection has an event to hand out.
fn drive(conn: &mut ClientConnection, stream: &mut TcpStream) -> Result<Event, Box<dyn Error>> {
    let mut buf = [0u8; 64 * 1024];
    loop {
        stream.write_all(&conn.take_output())?;
        if let Some(event) = conn.poll_event() {
            return Ok(event);
        }
        let n = stream.read(&mut buf)?;
        if n == 0 {
            return Err("the server closed the connection".into());
        }
        conn.receive(&buf[..n])?;
    }
}

/// The summary of one request: its SUCCESS metadata, or the FAILURE as an error.
fn summary(event: Event) -> Result<Value, Box<dyn Error>> {
    match event {
        Event::Success { metadata, .. } => Ok(metadata),
        Event::Failure { code, message, .. } => Err(format!(
            "{}: {}",
            code.as_deref().unwrap_or("(no code)"),
            message.as_deref().unwrap_or("(no message)")
        )
        .into()),
        other => Err(format!("unexpected {other:?}").into()),
    }
}

struct Args {
    host: String,
    port: u16,
    user: String,
    password: String,
    bolt: Option<BoltVersion>,
    query: String,
}

fn parse_args() -> Result<Args, String> {
    let env = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.into());
    let mut args = Args {
        host: "127.0.0.1".into(),
        port: env("NEO4J_BOLT_PORT", "7687")
            .parse()
            .map_err(|_| "NEO4J_BOLT_PORT is not a port number")?,
        user: env("NEO4J_USER", "neo4j"),
        password: env("NEO4J_PASSWORD", ""),
        bolt: None,
        query: String::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--host" => args.host = value()?,
            "--port" => args.port = value()?.parse().map_err(|_| "bad --port")?,
            "--user" => args.user = value()?,
            "--password" => args.password = value()?,
            "--bolt" => args.bolt = Some(value()?.parse().map_err(|e| format!("--bolt: {e}"))?),
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
            _ => args.query = arg,
        }
    }
    if args.query.is_empty() {
        return Err("no query given".into());
    }
    Ok(args)
}

fn run(args: &Args) -> Result<(), Box<dyn Error>> {
    let mut stream = TcpStream::connect((args.host.as_str(), args.port))?;
    stream.set_nodelay(true)?;

    // Handshake: all supported versions, or exactly the one asked for.
    let mut config = ConnectionConfig::default();
    if let Some(v) = args.bolt {
        let none = Proposal::Empty;
        let proposals = [Proposal::exact(v), none, none, none];
        config.handshake = ClientConfig::new(proposals).with_supported(&[v]);
    }
    let mut conn = ClientConnection::new(config);
    let Event::Negotiated(mut version) = drive(&mut conn, &mut stream)? else {
        return Err("handshake failed".into());
    };
    eprintln!("negotiated Bolt {version}");

    // Authenticate: HELLO + LOGON from 5.1, credentials inside HELLO before.
    let auth = Logon::basic(&args.user, &args.password).auth;
    let mut hello = Hello::new("boltcodec-query-example/0.1");
    if version.has_bolt_agent() {
        hello = hello.with_bolt_agent(BoltAgent::new("boltcodec/0.1"));
    }
    if version.supports_utc_patch() {
        hello = hello.with_patch_bolt(["utc"]);
    }
    if version.has_logon() {
        conn.send(&Request::Hello(hello))?;
        conn.send(&Request::Logon(Logon::new(auth)))?;
    } else {
        conn.send(&Request::Hello(hello.with_auth(auth)))?;
    }
    let hello_ok = summary(drive(&mut conn, &mut stream)?)?;
    if version.has_logon() {
        summary(drive(&mut conn, &mut stream)?)?;
    }
    // On 4.4 the server may accept the "utc" patch: DateTimes then use the UTC structs.
    let patches = hello_ok.get("patch_bolt").and_then(Value::as_list);
    if patches.is_some_and(|p| p.iter().any(|x| x.as_str() == Some("utc"))) {
        version = version.with_utc_patch(true);
    }

    // RUN, then PULL batches of 1000 records until the server says there are no more.
    conn.send(&Request::Run(Run::new(&args.query)))?;
    conn.send(&Request::Pull(Pull::new(1000)))?;
    let run_ok = summary(drive(&mut conn, &mut stream)?)?;
    let fields = run_ok
        .get("fields")
        .and_then(Value::as_list)
        .unwrap_or_default();
    let names: Vec<&str> = fields.iter().filter_map(Value::as_str).collect();
    println!("{}", names.join("\t"));
    let mut rows = 0u64;
    loop {
        match drive(&mut conn, &mut stream)? {
            Event::Record(values) => {
                rows += 1;
                let cells: Vec<String> = values
                    .iter()
                    .map(|v| {
                        DisplayValue::new(&v.as_value_ref())
                            .with_version(version)
                            .to_string()
                    })
                    .collect();
                println!("{}", cells.join("\t"));
            }
            event => {
                let pull_ok = summary(event)?;
                if pull_ok.get("has_more").and_then(Value::as_bool) != Some(true) {
                    break;
                }
                conn.send(&Request::Pull(Pull::new(1000)))?;
            }
        }
    }
    eprintln!("{rows} row(s)");

    conn.send(&Request::Goodbye)?;
    stream.write_all(&conn.take_output())?;
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!(
                "usage: query [--host H] [--port P] [--user U] [--password P] [--bolt X.Y] CYPHER"
            );
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
