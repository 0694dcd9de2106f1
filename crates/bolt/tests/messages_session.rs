//! A scripted client and server talking through the message layer, chunker and
//! dechunker, in every supported and decode-only version: the client builds requests in
//! the shape its version wants, the server decodes them (the server-side use of the
//! request decoders) and answers, and the client reads the answers with the batch API,
//! fed a few bytes at a time.

use bolt::chunk::{Chunker, Dechunker};
use bolt::message::{
    BoltAgent, Dict, Failure, Hello, Logon, MessageCodec, Pull, Record, Request, Response, Route,
    Run, Success, Summary, Telemetry, TelemetryApi,
};
use bolt::BoltVersion;
use packstream::ValueRef;

/// The client's requests for one session in `version`.
fn script(version: BoltVersion) -> Vec<Request<'static>> {
    let mut hello = Hello::new("session-test/1.0").with_routing(Dict::new());
    if version.has_bolt_agent() {
        hello = hello.with_bolt_agent(BoltAgent::new("boltcodec/0.1").with_language("Rust"));
    }
    if version.supports_utc_patch() {
        hello = hello.with_patch_bolt(["utc"]);
    }
    if version.hello_carries_auth() {
        hello = hello.with_auth(Logon::basic("neo4j", "pw").auth);
    }
    let mut requests = vec![Request::Hello(hello)];
    if version.has_logon() {
        requests.push(Request::Logon(Logon::basic("neo4j", "pw")));
    }
    if version.has_telemetry() {
        requests.push(Request::Telemetry(Telemetry::new(TelemetryApi::AutoCommit)));
    }
    requests.push(Request::Run(
        Run::new("UNWIND range(1, $n) AS x RETURN x").param("n", 3),
    ));
    if version.pull_discard_has_extra() {
        requests.push(Request::Pull(Pull::new(2)));
        requests.push(Request::Pull(Pull::all()));
    } else {
        requests.push(Request::PullAll);
    }
    requests.push(Request::Run(Run::new("RETURN 1 +")));
    requests.push(if version.pull_discard_has_extra() {
        Request::Pull(Pull::all())
    } else {
        Request::PullAll
    });
    requests.push(Request::Reset);
    if version.has_route_message() {
        requests.push(Request::Route(
            Route::new(Dict::new().with("address", "localhost:7687")).with_db("neo4j"),
        ));
    }
    requests.push(Request::Goodbye);
    requests
}

/// A tiny server: answers each request it decodes.
struct Server {
    codec: MessageCodec,
    failed: bool,
    next_row: i64,
    rows: i64,
}

impl Server {
    fn answer(&mut self, request: &Request<'_>, out: &mut Vec<Response<'static>>) {
        let v = self.codec.version();
        if self.failed && !matches!(request, Request::Reset | Request::Goodbye) {
            out.push(Response::Ignored);
            return;
        }
        match request {
            Request::Hello(h) => {
                assert_eq!(h.user_agent(), Some("session-test/1.0"));
                assert_eq!(h.credentials().is_some(), v.hello_carries_auth());
                assert_eq!(h.bolt_agent().is_some(), v.has_bolt_agent());
                let mut s = Success::new().with("server", "Neo4j/5.26.0");
                if v.supports_utc_patch() && h.patch_bolt() == Some(vec!["utc"]) {
                    s = s.with("patch_bolt", ["utc"]);
                }
                out.push(Response::Success(s));
            }
            Request::Logon(l) => {
                assert_eq!(l.credentials(), Some("pw"));
                out.push(Response::Success(Success::new()));
            }
            Request::Telemetry(t) => {
                assert_eq!(t.api_kind(), Some(TelemetryApi::AutoCommit));
                out.push(Response::Success(Success::new()));
            }
            Request::Run(r) if r.query.ends_with('+') => {
                self.failed = true;
                out.push(Response::Failure(Failure::new(
                    v,
                    "Neo.ClientError.Statement.SyntaxError",
                    "Invalid input",
                )));
            }
            Request::Run(r) => {
                self.rows = r.parameters.get_int("n").expect("n");
                self.next_row = 1;
                out.push(Response::Success(Success::new().with("fields", ["x"])));
            }
            Request::Pull(_) | Request::PullAll => {
                let n = match request {
                    Request::Pull(p) => p.n().expect("n"),
                    _ => -1,
                };
                let mut sent = 0;
                while self.next_row <= self.rows && (n < 0 || sent < n) {
                    out.push(Response::Record(Record::new(vec![ValueRef::Int(
                        self.next_row,
                    )])));
                    self.next_row += 1;
                    sent += 1;
                }
                let more = self.next_row <= self.rows;
                let mut s = Success::new();
                if more {
                    s = s.with("has_more", true);
                } else {
                    s = s.with("type", "r");
                }
                out.push(Response::Success(s));
            }
            Request::Reset => {
                self.failed = false;
                out.push(Response::Success(Success::new()));
            }
            Request::Route(r) => {
                assert_eq!(r.db(), Some("neo4j"));
                out.push(Response::Success(
                    Success::new().with(
                        "rt",
                        Dict::new()
                            .with("ttl", 300)
                            .with("servers", Vec::<ValueRef<'static>>::new()),
                    ),
                ));
            }
            Request::Goodbye => {}
            other => panic!("unexpected {other}"),
        }
    }
}

/// The client's view of one summary: the records before it and its name.
type Answer = (Vec<i64>, &'static str, bool);

#[test]
fn sessions_in_every_version() {
    let versions = BoltVersion::SUPPORTED
        .iter()
        .chain(BoltVersion::DECODE_ONLY)
        .copied();
    for version in versions {
        let codec = MessageCodec::new(version);
        let requests = script(version);

        // client -> server, in 5-byte chunks
        let chunker = Chunker::new(5).expect("chunk size");
        let mut to_server = Vec::new();
        for r in &requests {
            r.encode_framed(version, &chunker, &mut to_server)
                .unwrap_or_else(|e| panic!("{version}: {r}: {e}"));
        }

        // the server reads 3 bytes at a time
        let mut server = Server {
            codec,
            failed: false,
            next_row: 0,
            rows: 0,
        };
        let mut responses = Vec::new();
        let mut received = Vec::new();
        let mut d = Dechunker::new();
        for piece in to_server.chunks(3) {
            let mut feed = d.feed(piece);
            while let Some(m) = feed.next_message().expect("dechunk") {
                let request = codec.decode_request(m.bytes()).expect("decode request");
                server.answer(&request, &mut responses);
                received.push(request.to_vec(version).expect("re-encode"));
            }
        }
        let sent: Vec<Vec<u8>> = requests
            .iter()
            .map(|r| r.to_vec(version).expect("encode"))
            .collect();
        assert_eq!(received, sent, "{version}");

        // server -> client, whole messages in one chunk, read 7 bytes at a time
        let mut to_client = Vec::new();
        for r in &responses {
            r.encode_framed(version, &Chunker::default(), &mut to_client)
                .expect("frame");
        }
        let mut answers: Vec<Answer> = Vec::new();
        let mut rows = Vec::new();
        let mut d = Dechunker::new();
        for piece in to_client.chunks(7) {
            let (mut result, batch) = codec.feed_records(&mut d, piece);
            let mut start = 0;
            loop {
                assert!(result.error().is_none(), "{version}: {:?}", result.error());
                for r in result.records() {
                    let fields = r.fields().expect("fields");
                    rows.push(fields[0].as_int().expect("int"));
                }
                if let Some(summary) = result.summary() {
                    let name = summary.kind().name();
                    let more = matches!(summary, Summary::Success(s) if s.has_more());
                    answers.push((std::mem::take(&mut rows), name, more));
                }
                start += result.consumed();
                if result.consumed() == 0 || start >= batch.len() {
                    break;
                }
                result = codec.decode_batch_records(&batch, start);
            }
        }

        // the expected answers, summary by summary
        let mut expected: Vec<Answer> = vec![(vec![], "SUCCESS", false)]; // HELLO
        if version.has_logon() {
            expected.push((vec![], "SUCCESS", false));
        }
        if version.has_telemetry() {
            expected.push((vec![], "SUCCESS", false));
        }
        expected.push((vec![], "SUCCESS", false)); // RUN
        if version.pull_discard_has_extra() {
            expected.push((vec![1, 2], "SUCCESS", true));
            expected.push((vec![3], "SUCCESS", false));
        } else {
            expected.push((vec![1, 2, 3], "SUCCESS", false));
        }
        expected.push((vec![], "FAILURE", false));
        expected.push((vec![], "IGNORED", false));
        expected.push((vec![], "SUCCESS", false)); // RESET
        if version.has_route_message() {
            expected.push((vec![], "SUCCESS", false));
        }
        assert_eq!(answers, expected, "{version}");
        assert!(d.is_at_boundary(), "{version}");

        // the FAILURE uses the version's code key
        let failure = responses
            .iter()
            .find_map(|r| match r {
                Response::Failure(f) => Some(f),
                _ => None,
            })
            .expect("failure");
        assert_eq!(
            failure.metadata.keys().next(),
            Some(version.failure_code_key())
        );
        assert_eq!(
            failure.code(),
            Some("Neo.ClientError.Statement.SyntaxError")
        );
    }
}
