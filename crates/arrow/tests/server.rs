//! Against a real Neo4j server: every Cypher type into Arrow, checked value by value
//! against the core's `ValueRef` decoding of the same bytes; a result pulled in batches
//! with `PULL {n}` back-pressure; timings of the 1,000,000 rows × 3 scalars workload.
//!
//! `#[ignore]`d: run them with a throw-away server,
//!
//! ```sh
//! scripts/with-neo4j.sh 5.26 17487 -- cargo test -p boltcodec-arrow --test server -- --ignored --nocapture --test-threads=1
//! ```
//!
//! They read `NEO4J_BOLT_PORT`, `NEO4J_USER`, `NEO4J_PASSWORD` and `NEO4J_FLAVOUR`
//! (`5.26` or `2026`; the VECTOR and UUID case needs 2026).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::DataType;
use bolt::chunk::{Chunker, Dechunker};
use bolt::connection::{ClientConnection, ConnectionConfig, Event};
use bolt::handshake::{ClientConfig, Proposal};
use bolt::message::{BoltAgent, Hello, Logon, MessageCodec, Pull, Request, Response, Run, Summary};
use bolt::BoltVersion;
use bolt_arrow::PullDecoder;
use packstream::{Value, ValueRef};

mod common;
use common::check_batch;

fn var(name: &str) -> String {
    std::env::var(name)
        .unwrap_or_else(|_| panic!("{name} is not set: run with scripts/with-neo4j.sh"))
}

/// A logged-in connection; after login the bytes are written and read here directly,
/// so that the PULL replies reach the Arrow decoder exactly as the server sent them.
struct Session {
    stream: TcpStream,
    version: BoltVersion,
    chunker: Chunker,
    buf: Vec<u8>,
}

impl Session {
    /// The newest version both sides speak.
    fn open() -> Session {
        Session::open_with(None)
    }

    /// Offers `only.0` and nothing else; for 4.4, `only.1` says whether HELLO asks for
    /// the `utc` patch.
    fn open_with(only: Option<(BoltVersion, bool)>) -> Session {
        let port: u16 = var("NEO4J_BOLT_PORT").parse().expect("port");
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream.set_nodelay(true).unwrap();
        let mut config = ConnectionConfig::default();
        if let Some((v, _)) = only {
            let none = Proposal::Empty;
            config.handshake =
                ClientConfig::new([Proposal::exact(v), none, none, none]).with_supported(&[v]);
        }
        let ask_utc = only.is_none_or(|(_, utc)| utc);
        let mut conn = ClientConnection::new(config);
        let mut buf = vec![0u8; 256 * 1024];
        let mut next = |conn: &mut ClientConnection, stream: &mut TcpStream| loop {
            stream.write_all(&conn.take_output()).unwrap();
            if let Some(e) = conn.poll_event() {
                return e;
            }
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "the server closed the connection");
            conn.receive(&buf[..n]).unwrap();
        };
        let Event::Negotiated(mut version) = next(&mut conn, &mut stream) else {
            panic!("handshake failed")
        };
        let mut hello = Hello::new("boltcodec-arrow-tests/0.1");
        if version.has_bolt_agent() {
            hello = hello.with_bolt_agent(BoltAgent::new("boltcodec/0.1"));
        }
        if version.supports_utc_patch() && ask_utc {
            hello = hello.with_patch_bolt(["utc"]);
        }
        let (user, password) = (var("NEO4J_USER"), var("NEO4J_PASSWORD"));
        let auth = Logon::basic(&user, &password).auth;
        if version.has_logon() {
            conn.send(&Request::Hello(hello)).unwrap();
            conn.send(&Request::Logon(Logon::new(auth))).unwrap();
        } else {
            conn.send(&Request::Hello(hello.with_auth(auth))).unwrap();
        }
        let Event::Success { metadata, .. } = next(&mut conn, &mut stream) else {
            panic!("HELLO failed")
        };
        if version.has_logon() {
            assert!(matches!(
                next(&mut conn, &mut stream),
                Event::Success { .. }
            ));
        }
        let patches = metadata.get("patch_bolt").and_then(Value::as_list);
        if patches.is_some_and(|p| p.contains(&Value::from("utc"))) {
            version = version.with_utc_patch(true);
        }
        eprintln!(
            "negotiated Bolt {version} with Neo4j {}",
            var("NEO4J_FLAVOUR")
        );
        Session {
            stream,
            version,
            chunker: Chunker::default(),
            buf: vec![0u8; 256 * 1024],
        }
    }

    fn write(&mut self, request: &Request<'_>) {
        let mut out = Vec::new();
        request
            .encode_framed(self.version, &self.chunker, &mut out)
            .unwrap();
        self.stream.write_all(&out).unwrap();
    }

    /// Sends RUN and reads its SUCCESS: the column names.
    fn run(&mut self, run: Run<'_>) -> Vec<String> {
        self.write(&Request::Run(run));
        let codec = MessageCodec::new(self.version);
        let mut d = Dechunker::new();
        loop {
            let n = self.stream.read(&mut self.buf).unwrap();
            assert!(n > 0);
            let batch = d.feed_batch(&self.buf[..n]);
            if let Some(m) = batch.get(0) {
                assert_eq!(batch.len(), 1, "only the RUN's summary before a PULL");
                return match codec.decode_response(m.bytes()).unwrap() {
                    Response::Success(s) => s
                        .fields()
                        .unwrap_or_default()
                        .into_iter()
                        .map(str::to_string)
                        .collect(),
                    other => panic!("RUN failed: {other:?}"),
                };
            }
        }
    }

    /// PULLs `n` at a time into Arrow until the end; gives the batches and the raw bytes
    /// of the PULL replies.
    fn pull(&mut self, fields: &[String], n: i64, keep_bytes: bool) -> (Vec<RecordBatch>, Vec<u8>) {
        let mut pull = PullDecoder::new(self.version, fields.iter().cloned());
        let mut batches = Vec::new();
        let mut raw = Vec::new();
        self.write(&Request::Pull(Pull::new(n)));
        while !pull.is_done() {
            let got = self.stream.read(&mut self.buf).unwrap();
            assert!(got > 0, "the server closed the connection");
            if keep_bytes {
                raw.extend_from_slice(&self.buf[..got]);
            }
            if let Some(b) = pull.feed(&self.buf[..got]).unwrap() {
                batches.push(b);
            }
            if pull.take_has_more() {
                self.write(&Request::Pull(Pull::new(n)));
            }
        }
        (batches, raw)
    }

    /// Runs `run`, pulls everything, and checks every cell against the core's decoding
    /// of the same bytes. Returns the batches.
    fn check(&mut self, run: Run<'_>, n: i64) -> Vec<RecordBatch> {
        let fields = self.run(run);
        let (batches, raw) = self.pull(&fields, n, true);
        let codec = MessageCodec::new(self.version);
        let mut d = Dechunker::new();
        let all = d.feed_batch(&raw);
        let mut rows = Vec::new();
        for i in 0..all.len() {
            let m = all.get(i).unwrap();
            match codec.decode_response(m.bytes()).unwrap() {
                Response::Record(r) => rows.push(r.fields().unwrap()),
                other => assert!(other.into_summary().is_some_and(|s| s.success().is_some())),
            }
        }
        let mut row = 0;
        for b in &batches {
            check_batch(self.version, b, &rows[row..row + b.num_rows()], "server");
            row += b.num_rows();
        }
        assert_eq!(row, rows.len());
        batches
    }
}

fn types(batches: &[RecordBatch]) -> Vec<(String, DataType)> {
    let schema = batches[0].schema();
    schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect()
}

fn ty(types: &[(String, DataType)], name: &str) -> String {
    types
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, t)| t.to_string())
        .unwrap_or_else(|| panic!("no column {name}"))
}

/// Every version the server negotiates, one at a time (4.4 with and without the `utc`
/// patch): Neo4j 5.26 offers 4.4, 5.0–5.4 and 5.6–5.8; 2026.x adds 6.0 and 6.1
/// (`test_support::neo4j_bolt_versions`; 4.0–4.3 are decode-only here).
fn offers() -> Vec<(BoltVersion, bool)> {
    let mut offers = vec![(BoltVersion::V4_4, true)];
    for (major, minor) in test_support::neo4j_bolt_versions(&var("NEO4J_FLAVOUR")) {
        let version = BoltVersion::new(major, minor);
        if version.is_supported() {
            offers.push((version, false));
        }
    }
    offers
}

#[test]
#[ignore = "needs a Neo4j server: scripts/with-neo4j.sh"]
fn every_cypher_type_from_a_real_server_into_arrow() {
    for offer in offers() {
        every_type(&mut Session::open_with(Some(offer)));
    }
}

fn every_type(s: &mut Session) {
    let q = "RETURN 1 AS i, 1.5 AS f, 'x' AS s, true AS b, null AS n, [1, 2] AS l, \
             [1, 'a'] AS mixed, {a: 1, b: 2} AS m, $bytes AS bytes, \
             date('2024-01-31') AS d, localtime('12:00:01.5') AS lt, \
             time('12:00:01+01:00') AS t, localdatetime('2024-01-31T12:00') AS ldt, \
             datetime('2024-01-31T12:00+01:00') AS dto, \
             datetime('2024-01-31T12:00[Europe/Stockholm]') AS dtz, \
             duration('P1Y2M3DT4H5.6S') AS du, point({x: 1, y: 2}) AS p2, \
             point({x: 1, y: 2, z: 3}) AS p3, point({longitude: 12.5, latitude: 56.1}) AS wgs";
    let batches = s.check(
        Run::new(q).param("bytes", ValueRef::Bytes(&[0xCA, 0xFE])),
        1000,
    );
    let t = types(&batches);
    for (name, want) in [
        ("i", "Int64"),
        ("f", "Float64"),
        ("s", "Utf8"),
        ("b", "Boolean"),
        ("n", "Null"),
        ("l", "List(Int64)"),
        ("mixed", "List(Utf8)"),
        ("bytes", "Binary"),
        ("d", "Date32"),
        ("lt", "Time64(ns)"),
        ("ldt", "Timestamp(ns)"),
        ("dto", "Timestamp(ns, \"+01:00\")"),
        ("du", "Interval(MonthDayNano)"),
    ] {
        assert_eq!(ty(&t, name), want, "column {name} in Bolt {}", s.version);
    }
    // Without the utc patch, Bolt 4.4 sends zone-id DateTimes as local time only:
    // canonical text (crate documentation).
    let dtz = if s.version.utc_datetime() {
        "Timestamp(ns, \"Europe/Stockholm\")"
    } else {
        "Utf8"
    };
    assert_eq!(ty(&t, "dtz"), dtz, "Bolt {}", s.version);
    assert!(ty(&t, "m").starts_with("Map("));
    assert!(ty(&t, "t").starts_with("Struct(\"time\": Time64(ns)"));
    assert!(ty(&t, "p3").starts_with("Struct(\"srid\": Int64"));

    // Graph values: nodes, a relationship, a path (created here, in a throw-away server).
    let q = "CREATE p = (a:ArrowTest {name: 'a', n: 1})-[r:ARROW_REL {w: 0.5}]->(b:ArrowTest {name: 'b'}) \
             RETURN a, r, p, [a, b] AS both";
    let batches = s.check(Run::new(q), 1000);
    let t = types(&batches);
    assert!(ty(&t, "a").starts_with("Struct(\"id\": Int64, \"element_id\": Utf8, \"labels\""));
    assert!(ty(&t, "r").contains("\"type\": Utf8"));
    assert!(ty(&t, "p").starts_with("Struct(\"nodes\": List("));
    assert!(ty(&t, "both").starts_with("List(Struct("));

    // An empty result: no batch.
    let fields = s.run(Run::new("UNWIND [] AS x RETURN x"));
    let (batches, _) = s.pull(&fields, 1000, false);
    assert!(batches.is_empty());

    if var("NEO4J_FLAVOUR") == "2026" && s.version.has_vector() {
        let q = "CYPHER 25 RETURN vector([1.5, -2.25, 0.0], 3, FLOAT32) AS f32, \
                 vector([1, -2, 127], 3, INTEGER8) AS i8, \
                 uuid('2c4a9b6e-93f3-4b14-9a53-2c0f5f0e8a11') AS u";
        let batches = s.check(Run::new(q), 1000);
        let t = types(&batches);
        assert_eq!(ty(&t, "f32"), "FixedSizeList(3 x Float32)");
        assert_eq!(ty(&t, "i8"), "FixedSizeList(3 x Int8)");
        // Bolt 6.0 carries a UUID as UnsupportedType: canonical text.
        let u = if s.version.has_uuid() {
            "FixedSizeBinary(16)"
        } else {
            "Utf8"
        };
        assert_eq!(ty(&t, "u"), u, "Bolt {}", s.version);
    }
}

#[test]
#[ignore = "needs a Neo4j server: scripts/with-neo4j.sh"]
fn a_column_that_changes_type_between_pulls_is_reported() {
    let mut s = Session::open();
    // 3 integers, then a string, pulled 2 at a time: the string arrives in the second
    // batch, after the first fixed the column as Int64.
    let fields = s.run(Run::new("UNWIND [1, 2, 3, 'four'] AS x RETURN x"));
    let mut pull = PullDecoder::new(s.version, fields);
    s.write(&Request::Pull(Pull::new(2)));
    let mut outcome = Vec::new();
    while !pull.is_done() {
        let n = s.stream.read(&mut s.buf).unwrap();
        match pull.feed(&s.buf[..n]) {
            Ok(Some(b)) => outcome.push(Ok(b.num_rows())),
            Ok(None) => {}
            Err(e) => {
                outcome.push(Err(e.to_string()));
                break;
            }
        }
        if pull.take_has_more() {
            s.write(&Request::Pull(Pull::new(2)));
        }
    }
    assert_eq!(outcome[0], Ok(2), "{outcome:?}");
    let err = outcome.last().unwrap().as_ref().unwrap_err();
    assert!(
        err.contains("column `x`") && err.contains("Int64"),
        "{outcome:?}"
    );
}

/// Peak resident memory of this process, in KiB (Linux).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn scalar_rows(rows: i64, n: i64, arrow: bool) -> (f64, usize) {
    let mut s = Session::open();
    let q = "UNWIND range(1, $rows) AS i RETURN i, i * 0.5 AS f, 'name-' + toString(i) AS s";
    let t0 = Instant::now();
    let fields = s.run(Run::new(q).param("rows", rows));
    let mut total = 0;
    if arrow {
        let mut pull = PullDecoder::new(s.version, fields);
        s.write(&Request::Pull(Pull::new(n)));
        while !pull.is_done() {
            let got = s.stream.read(&mut s.buf).unwrap();
            assert!(got > 0);
            if let Some(b) = pull.feed(&s.buf[..got]).unwrap() {
                total += b.num_rows();
            }
            if pull.take_has_more() {
                s.write(&Request::Pull(Pull::new(n)));
            }
        }
    } else {
        // The floor: the same bytes read and de-chunked, only summaries looked at.
        let codec = MessageCodec::new(s.version);
        let mut d = Dechunker::new();
        s.write(&Request::Pull(Pull::new(n)));
        'read: loop {
            let got = s.stream.read(&mut s.buf).unwrap();
            assert!(got > 0);
            let batch = d.feed_batch(&s.buf[..got]);
            let mut start = 0;
            while start < batch.len() {
                let run = codec.decode_batch_records(&batch, start);
                total += run.records().len();
                match run.summary() {
                    Some(Summary::Success(x)) if x.has_more() => {
                        let mut out = Vec::new();
                        Request::Pull(Pull::new(n))
                            .encode_framed(s.version, &s.chunker, &mut out)
                            .unwrap();
                        s.stream.write_all(&out).unwrap();
                    }
                    Some(_) => break 'read,
                    None => {}
                }
                if run.consumed() == 0 {
                    break;
                }
                start += run.consumed();
            }
        }
    }
    (t0.elapsed().as_secs_f64(), total)
}

#[test]
#[ignore = "needs a Neo4j server: scripts/with-neo4j.sh"]
fn one_million_rows_of_three_scalars_timed_against_the_socket_floor() {
    let rows = 1_000_000;
    // Alternate rounds, best of three each.
    let (mut floor, mut arrow) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        let (t, n) = scalar_rows(rows, 100_000, false);
        assert_eq!(n, rows as usize);
        floor = floor.min(t);
        let (t, n) = scalar_rows(rows, 100_000, true);
        assert_eq!(n, rows as usize);
        arrow = arrow.min(t);
    }
    eprintln!(
        "1,000,000 rows x 3 scalars, PULL 100000: socket floor {floor:.3} s, into Arrow {arrow:.3} s ({:.2}x the floor)",
        arrow / floor
    );
}

#[test]
#[ignore = "needs a Neo4j server: scripts/with-neo4j.sh; run alone for a clean peak RSS"]
fn peak_memory_of_a_batched_read_does_not_grow_with_the_rows() {
    let rows: i64 = std::env::var("ARROW_ROWS").map_or(10_000_000, |r| r.parse().unwrap());
    let (t, n) = scalar_rows(rows, 10_000, true);
    assert_eq!(n, rows as usize);
    eprintln!(
        "{rows} rows x 3 scalars in batches (PULL 10000): {t:.1} s, peak RSS {} KiB",
        peak_rss_kib().unwrap_or(0)
    );
}
