//! `bolt-inspect proxy` forwards a live connection untouched and prints its messages: a
//! client and a server built on the library's sans-IO connection talk through it on
//! loopback, and the recording it writes decodes back to the same session.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};

use bolt::connection::{ClientConnection, ConnectionConfig, Event, ServerConnection};
use bolt::handshake::ServerConfig;
use bolt::message::{Hello, Logon, Pull, Record, Request, Response, Run, Success};
use packstream::ValueRef;

/// Reads until `conn` has produced at least one event (or the peer closed).
fn client_round(conn: &mut ClientConnection, stream: &mut TcpStream) -> Vec<Event> {
    stream.write_all(&conn.take_output()).expect("write");
    let mut events = Vec::new();
    let mut buf = [0u8; 4096];
    while events.is_empty() {
        let n = stream.read(&mut buf).expect("read");
        assert!(n > 0, "proxy closed early");
        conn.receive(&buf[..n]).expect("receive");
        events.extend(std::iter::from_fn(|| conn.poll_event()));
    }
    stream.write_all(&conn.take_output()).expect("write");
    events
}

#[test]
fn proxy_forwards_prints_and_records() {
    // The target: a scripted server answering one query.
    let target = TcpListener::bind("127.0.0.1:0").expect("bind");
    let target_addr = target.local_addr().expect("addr");
    let server = std::thread::spawn(move || {
        let (mut stream, _) = target.accept().expect("accept");
        let mut conn = ServerConnection::new(ServerConfig::default());
        let mut buf = [0u8; 4096];
        let mut answered = 0;
        loop {
            let n = stream.read(&mut buf).expect("server read");
            if n == 0 {
                break;
            }
            conn.receive(&buf[..n]).expect("server receive");
            while let Some(req) = conn.poll_request() {
                answered += 1;
                match req.kind().name() {
                    "PULL" => {
                        conn.send(&Response::Record(Record::new(vec![ValueRef::Int(42)])))
                            .expect("send");
                        conn.send(&Response::Success(Success::default()))
                            .expect("send");
                    }
                    "GOODBYE" => {}
                    _ => conn
                        .send(&Response::Success(Success::default()))
                        .expect("send"),
                }
            }
            stream.write_all(&conn.take_output()).expect("server write");
        }
        answered
    });

    let dir = std::env::temp_dir().join(format!("bolt-inspect-proxy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let record = dir.join("session.txt");
    let mut proxy = Command::new(env!("CARGO_BIN_EXE_bolt-inspect"))
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--target",
            &target_addr.to_string(),
            "--once",
            "--record",
        ])
        .arg(&record)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proxy starts");
    // The proxy says where it listens on stderr.
    let mut stderr = BufReader::new(proxy.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("listening line");
    let addr = line
        .split("listening on ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .expect("address");

    let mut stream = TcpStream::connect(addr.trim()).expect("connect to proxy");
    let mut conn = ClientConnection::new(ConnectionConfig::default());
    let events = client_round(&mut conn, &mut stream);
    assert!(matches!(events[0], Event::Negotiated(_)));
    conn.send(&Request::Hello(Hello::new("proxy-test/1")))
        .expect("HELLO");
    conn.send(&Request::Logon(Logon::basic("neo4j", "secret")))
        .expect("LOGON");
    conn.send(&Request::Run(Run::new("RETURN 42")))
        .expect("RUN");
    conn.send(&Request::Pull(Pull::all())).expect("PULL");
    let mut events = Vec::new();
    while events.len() < 5 {
        events.extend(client_round(&mut conn, &mut stream));
    }
    assert!(events.contains(&Event::Record(vec![packstream::Value::Int(42)])));
    conn.send(&Request::Goodbye).expect("GOODBYE");
    stream.write_all(&conn.take_output()).expect("goodbye");
    drop(stream);

    let out = proxy.wait_with_output().expect("proxy exits after --once");
    let printed = String::from_utf8(out.stdout).expect("utf-8");
    assert_eq!(server.join().expect("server thread"), 5);
    for want in [
        "S>C handshake: Bolt 6.1 agreed",
        "HELLO",
        "\"credentials\": \"********\"",
        "RUN \"RETURN 42\"",
        "RECORD [42]",
        "GOODBYE",
        "5 client and 5 server messages",
    ] {
        assert!(printed.contains(want), "missing {want:?} in:\n{printed}");
    }
    assert!(!printed.contains("secret"), "credentials never printed");
    // The recording is a capture file that decodes to the same messages.
    let replay = Command::new(env!("CARGO_BIN_EXE_bolt-inspect"))
        .arg("capture")
        .arg(&record)
        .output()
        .expect("replay");
    let replayed = String::from_utf8(replay.stdout).expect("utf-8");
    assert!(
        replayed.contains("RECORD [42]") && replayed.contains("5 client and 5 server messages"),
        "{replayed}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
