//! Decodes every message of every captured Bolt session (`tests/captures/` at the
//! repository root, format in its README) with the negotiated version, checks its name
//! against the capture, re-encodes it and compares the bytes, decodes every RECORD's
//! fields, replays the server's stream through the batch API, and checks some content.

use std::fs;
use std::path::Path;

use bolt::chunk::Dechunker;
use bolt::message::{Begin, Hello, Logon, MessageCodec, Pull, Request, Response};
use bolt::BoltVersion;
use packstream::ValueRef;
use test_support::{capture_files, hex};

#[derive(Debug)]
struct Msg {
    client: bool,
    name: String,
    bytes: Vec<u8>,
}

#[derive(Debug, Default)]
struct Capture {
    case: String,
    negotiated: Option<BoltVersion>,
    messages: Vec<Msg>,
    /// The server's raw reads (consecutive lines merged), handshake included.
    server_reads: Vec<Vec<u8>>,
    server_handshake_len: usize,
}

fn parse(text: &str) -> Capture {
    let mut c = Capture::default();
    let mut last_was_server = false;
    for line in text.lines() {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.as_slice() {
            ["#", "case:", case, ..] => c.case = (*case).to_owned(),
            ["#", "bolt", "negotiated:", v] => c.negotiated = v.parse().ok(),
            [d @ ("C>S" | "S>C"), _offset, h] => {
                let server = *d == "S>C";
                if server {
                    let bytes = hex(h);
                    match (last_was_server, c.server_reads.last_mut()) {
                        (true, Some(last)) => last.extend(bytes),
                        _ => c.server_reads.push(bytes),
                    }
                }
                last_was_server = server;
            }
            ["HS", "S>C", _offset, h] => c.server_handshake_len += h.len() / 2,
            ["MSG", d, _seq, name, _offset, _chunks, h] => c.messages.push(Msg {
                client: *d == "C>S",
                name: (*name).to_owned(),
                bytes: hex(h),
            }),
            _ => {}
        }
    }
    c
}

/// The version negotiated in a capture: its header, or the set's directory name
/// (`bolt-4.4-no-utc-patch`); `bolt-4.4` also has the utc patch.
fn version_of(path: &Path, capture: &Capture) -> BoltVersion {
    let dir = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .expect("set directory");
    let number = dir
        .strip_prefix("bolt-")
        .and_then(|rest| rest.split('-').next())
        .expect("bolt-X.Y directory");
    let from_dir: BoltVersion = number.parse().expect("version in directory name");
    let version = capture.negotiated.unwrap_or(from_dir);
    assert_eq!(
        version,
        from_dir,
        "{}: header and directory disagree",
        path.display()
    );
    version.with_utc_patch(dir == "bolt-4.4")
}

#[derive(Default)]
struct Totals {
    files: usize,
    requests: usize,
    responses: usize,
    records: usize,
    fields: usize,
}

/// Every capture with its negotiated version.
fn captures() -> Vec<(String, BoltVersion, Capture)> {
    let files = capture_files();
    assert!(
        files.len() >= 164,
        "found only {} capture files",
        files.len()
    );
    files
        .iter()
        .map(|path| {
            let text = fs::read_to_string(path).expect("read capture");
            let capture = parse(&text);
            let version = version_of(path, &capture);
            let name = path.display().to_string();
            assert!(!capture.messages.is_empty(), "{name}: no messages");
            (name, version, capture)
        })
        .collect()
}

#[test]
fn every_captured_message_decodes_and_reencodes() {
    let mut totals = Totals::default();
    for (name, version, capture) in captures() {
        check_messages(&name, version, &capture, &mut totals);
        totals.files += 1;
    }
    // Each set's message counts, summed.
    assert_eq!(totals.requests, 724);
    assert_eq!(totals.responses, 565);
    assert_eq!(totals.records, 154);
    assert!(totals.fields >= totals.records);
}

#[test]
fn server_streams_replay_through_the_batch_api() {
    for (name, version, capture) in captures() {
        check_batches(&name, version, &capture);
    }
}

#[test]
fn captured_content() {
    for (name, version, capture) in captures() {
        check_content(&name, version, &capture);
    }
}

fn check_messages(name: &str, version: BoltVersion, capture: &Capture, totals: &mut Totals) {
    let codec = MessageCodec::new(version);
    for (i, m) in capture.messages.iter().enumerate() {
        let at = format!("{name}: message {i} ({})", m.name);
        if m.client {
            let request = codec
                .decode_request(&m.bytes)
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(request.name(), m.name, "{at}");
            let mut again = Vec::new();
            codec
                .encode_request(&request, &mut again)
                .unwrap_or_else(|e| panic!("{at}: re-encode: {e}"));
            assert!(again == m.bytes, "{at}: re-encoded bytes differ");
            check_builders(&at, version, &request, &m.bytes);
            totals.requests += 1;
        } else {
            let response = codec
                .decode_response(&m.bytes)
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(response.name(), m.name, "{at}");
            if let Response::Record(r) = &response {
                let fields = r.fields().unwrap_or_else(|e| panic!("{at}: fields: {e}"));
                assert_eq!(fields.len(), r.len(), "{at}");
                totals.fields += fields.len();
                totals.records += 1;
                // the data list is kept verbatim
                let values = bolt::message::Record::new(fields);
                assert_eq!(&values, r, "{at}");
            } else {
                totals.responses += 1;
            }
            let again = response
                .to_vec(version)
                .unwrap_or_else(|e| panic!("{at}: re-encode: {e}"));
            assert!(again == m.bytes, "{at}: re-encoded bytes differ");
        }
        // a decoded message never fits the other direction
        let other = if m.client {
            codec.decode_response(&m.bytes).err()
        } else {
            codec.decode_request(&m.bytes).err()
        };
        assert!(other.is_some(), "{at}: decodes in both directions");
    }
}

/// The builders reproduce the official Python driver's bytes from the decoded values.
fn check_builders(at: &str, version: BoltVersion, request: &Request<'_>, bytes: &[u8]) {
    let rebuilt = match request {
        Request::Hello(h) => {
            let mut b = Hello::new(h.user_agent().expect("user_agent"));
            if let Some(p) = h.patch_bolt() {
                b = b.with_patch_bolt(p);
            }
            if let Some(agent) = h.bolt_agent() {
                b = b.with_bolt_agent(agent);
                assert!(version.has_bolt_agent(), "{at}");
            }
            if version.hello_carries_auth() {
                let auth = Logon::basic(
                    h.principal().expect("principal"),
                    h.credentials().expect("credentials"),
                );
                assert_eq!(h.scheme(), Some("basic"), "{at}");
                b = b.with_auth(auth.auth);
            } else {
                assert_eq!(h.scheme(), None, "{at}: auth in HELLO after 5.0");
            }
            Request::Hello(b)
        }
        Request::Logon(l) => Request::Logon(Logon::basic(
            l.principal().expect("principal"),
            l.credentials().expect("credentials"),
        )),
        Request::Pull(p) => Request::Pull(Pull::new(p.n().expect("n"))),
        Request::Begin(b) => {
            assert!(b.is_read_mode(), "{at}");
            Request::Begin(Begin::new().with_mode("r"))
        }
        _ => return,
    };
    let again = rebuilt.to_vec(version).expect("encode");
    assert!(again == bytes, "{at}: built bytes differ: {rebuilt}");
}

/// Replays the server's reads through `feed_records` / `decode_batch_records` and checks
/// that the responses come out in the capture's order.
fn check_batches(name: &str, version: BoltVersion, capture: &Capture) {
    let codec = MessageCodec::new(version);
    let expected: Vec<&str> = capture
        .messages
        .iter()
        .filter(|m| !m.client)
        .map(|m| m.name.as_str())
        .collect();
    let mut skip = capture.server_handshake_len;
    let mut d = Dechunker::new();
    let mut seen: Vec<String> = Vec::new();
    let mut pending_records = 0usize;
    for read in &capture.server_reads {
        let cut = skip.min(read.len());
        skip -= cut;
        let (first, batch) = codec.feed_records(&mut d, &read[cut..]);
        let mut result = first;
        let mut start = 0;
        loop {
            assert!(result.error().is_none(), "{name}: {:?}", result.error());
            pending_records += result.records().len();
            for r in result.records() {
                assert!(r.fields().is_ok(), "{name}");
            }
            if let Some(summary) = result.summary() {
                seen.extend(std::iter::repeat_n("RECORD".to_owned(), pending_records));
                pending_records = 0;
                seen.push(summary.kind().name().to_owned());
            }
            start += result.consumed();
            if result.consumed() == 0 || start >= batch.len() {
                break;
            }
            result = codec.decode_batch_records(&batch, start);
        }
        assert_eq!(start, batch.len(), "{name}: batch not fully consumed");
    }
    assert_eq!(pending_records, 0, "{name}: records without a summary");
    assert_eq!(seen, expected, "{name}: response sequence");
    assert_eq!(d.end_of_stream(), Ok(()), "{name}");
}

fn requests<'a>(codec: &MessageCodec, capture: &'a Capture) -> Vec<Request<'a>> {
    capture
        .messages
        .iter()
        .filter(|m| m.client)
        .map(|m| codec.decode_request(&m.bytes).expect("request"))
        .collect()
}

fn responses<'a>(codec: &MessageCodec, capture: &'a Capture) -> Vec<Response<'a>> {
    capture
        .messages
        .iter()
        .filter(|m| !m.client)
        .map(|m| codec.decode_response(&m.bytes).expect("response"))
        .collect()
}

fn check_content(name: &str, version: BoltVersion, capture: &Capture) {
    let codec = MessageCodec::new(version);
    let reqs = requests(&codec, capture);
    let resps = responses(&codec, capture);

    // Every session starts with HELLO (and LOGON from 5.1) and ends with GOODBYE.
    let Some(Request::Hello(hello)) = reqs.first() else {
        panic!("{name}: no HELLO")
    };
    assert!(
        hello
            .user_agent()
            .is_some_and(|u| u.starts_with("neo4j-python/")),
        "{name}"
    );
    assert_eq!(
        hello.bolt_agent().map(|a| a.product),
        version.has_bolt_agent().then_some("neo4j-python/6.4.1"),
        "{name}"
    );
    let expect_patch = version.utc_patch().then(|| vec!["utc"]);
    assert_eq!(hello.patch_bolt(), expect_patch, "{name}");
    assert_eq!(
        matches!(reqs.get(1), Some(Request::Logon(_))),
        version.has_logon(),
        "{name}"
    );
    if capture.case != "auth_failure" {
        assert_eq!(reqs.last(), Some(&Request::Goodbye), "{name}");
        // HELLO SUCCESS
        let Some(Response::Success(s)) = resps.first() else {
            panic!("{name}: HELLO failed")
        };
        assert!(
            s.server().is_some_and(|a| a.starts_with("Neo4j/")),
            "{name}"
        );
        assert!(
            s.connection_id().is_some_and(|c| c.starts_with("bolt-")),
            "{name}"
        );
        assert_eq!(s.recv_timeout_seconds(), Some(120), "{name}");
        assert_eq!(s.utc_patch_accepted(), version.utc_patch(), "{name}");
        assert_eq!(
            s.protocol_version(),
            version
                .has_manifest_handshake()
                .then(|| version.to_string())
                .as_deref(),
            "{name}"
        );
        assert_eq!(
            s.ssr_enabled(),
            version.has_home_database_resolution(),
            "{name}"
        );
        if version.has_logon() {
            let Some(Response::Success(logon)) = resps.get(1) else {
                panic!("{name}: LOGON failed")
            };
            assert!(logon.advertised_address().is_some(), "{name}");
            assert!(!logon.credentials_expired(), "{name}");
        }
    }

    // RUN / PULL: every PULL asks for 1000 and no batch has more.
    for r in &reqs {
        if let Request::Pull(p) = r {
            assert_eq!((p.n(), p.qid()), (Some(1000), None), "{name}");
        }
        if let Request::Run(run) = r {
            assert!(!run.query.is_empty(), "{name}");
        }
    }
    let successes: Vec<_> = resps
        .iter()
        .filter_map(|r| match r {
            Response::Success(s) => Some(s),
            _ => None,
        })
        .collect();
    for s in &successes {
        assert!(!s.has_more(), "{name}");
    }

    match capture.case.as_str() {
        "error_syntax" => check_error_syntax(name, version, &reqs, &resps),
        "auth_failure" => {
            let Some(Response::Failure(f)) = resps.last() else {
                panic!("{name}: no FAILURE")
            };
            assert_eq!(
                f.code(),
                Some("Neo.ClientError.Security.Unauthorized"),
                "{name}"
            );
            assert_eq!(f.gql_status().is_some(), version.gql_failures(), "{name}");
            let wrong = reqs.iter().any(|r| match r {
                Request::Hello(h) => h.credentials() == Some("wrong-password"),
                Request::Logon(l) => l.credentials() == Some("wrong-password"),
                _ => false,
            });
            assert!(wrong, "{name}");
        }
        "explicit_tx" => {
            let names: Vec<_> = reqs.iter().map(Request::name).collect();
            let tail = &names[names.len() - 5..];
            assert_eq!(
                tail,
                ["BEGIN", "RUN", "PULL", "COMMIT", "GOODBYE"],
                "{name}"
            );
            let run = successes
                .iter()
                .find(|s| s.fields().is_some())
                .expect("RUN SUCCESS");
            assert_eq!(run.fields(), Some(vec!["one"]), "{name}");
            assert_eq!(run.qid(), Some(0), "{name}");
            let commit = successes.last().expect("COMMIT SUCCESS");
            assert!(
                commit.bookmark().is_some_and(|b| b.starts_with("FB:")),
                "{name}"
            );
            if version.has_home_database_resolution() {
                // BEGIN without db: the resolved home database comes back
                assert!(successes.iter().any(|s| s.db() == Some("neo4j")), "{name}");
            }
        }
        "write_stats" => {
            let summary = successes.last().expect("PULL SUCCESS");
            let stats = summary.stats().expect("stats");
            assert_eq!(stats.nodes_created, 1, "{name}");
            assert_eq!(stats.nodes_deleted, 1, "{name}");
            assert_eq!(stats.properties_set, 2, "{name}");
            assert_eq!(stats.labels_added, 1, "{name}");
            assert_eq!(stats.relationships_created, 0, "{name}");
            assert_eq!(stats.contains_updates, Some(true), "{name}");
            assert_eq!(summary.query_type(), Some("rw"), "{name}");
            assert_eq!(summary.db(), Some("neo4j"), "{name}");
            assert!(summary.t_last().is_some(), "{name}");
            // notifications became GQL statuses in 5.6
            assert_eq!(
                summary.statuses().is_some(),
                version.notification_statuses(),
                "{name}"
            );
        }
        "scalar_null_bool" | "uuid" | "params_uuid_vector" => {
            check_values(name, &capture.case, version, &resps);
        }
        _ => {}
    }

    // Every value query: RUN SUCCESS names fields, one RECORD per field list.
    let records: Vec<_> = resps
        .iter()
        .filter_map(|r| match r {
            Response::Record(r) => Some(r),
            _ => None,
        })
        .collect();
    if let Some(fields) = successes.iter().find_map(|s| s.fields()) {
        assert!(
            records.iter().all(|r| r.len() == fields.len()),
            "{name}: record width"
        );
        assert!(successes.iter().any(|s| s.t_first().is_some()), "{name}");
    }
}

fn check_error_syntax(
    name: &str,
    version: BoltVersion,
    reqs: &[Request<'_>],
    resps: &[Response<'_>],
) {
    let names: Vec<_> = resps.iter().map(Response::name).collect();
    let tail = &names[names.len() - 3..];
    assert_eq!(tail, ["FAILURE", "IGNORED", "SUCCESS"], "{name}");
    assert!(reqs.contains(&Request::Reset), "{name}");
    let Some(Response::Failure(f)) = resps.iter().find(|r| r.name() == "FAILURE") else {
        panic!("{name}")
    };
    assert_eq!(
        f.code(),
        Some("Neo.ClientError.Statement.SyntaxError"),
        "{name}"
    );
    assert!(
        f.message().is_some_and(|m| m.starts_with("Invalid input")),
        "{name}"
    );
    assert_eq!(
        f.metadata.keys().next(),
        Some(version.failure_code_key()),
        "{name}"
    );
    if version.gql_failures() && !version.has_vector() {
        // Neo4j 5.26 at 5.7/5.8: a generic GQL status, no diagnostic record or cause
        assert_eq!(f.gql_status(), Some("50N42"), "{name}");
        assert!(
            f.description()
                .is_some_and(|d| d.starts_with("error: general processing exception")),
            "{name}"
        );
        assert_eq!((f.diagnostic_record(), f.cause()), (None, None), "{name}");
    } else if version.gql_failures() {
        // Neo4j 2026.08 at 6.1: the full GQL error with a nested cause
        assert_eq!(f.gql_status(), Some("42001"), "{name}");
        assert_eq!(
            f.description(),
            Some("error: syntax error or access rule violation - invalid syntax"),
            "{name}"
        );
        assert_eq!(f.classification(), Some("CLIENT_ERROR"), "{name}");
        let position = f
            .diagnostic_record()
            .and_then(|d| d.iter().find(|(k, _)| *k == "_position"))
            .map(|(_, v)| v);
        assert_eq!(
            position.and_then(|p| p.get("offset")),
            Some(&ValueRef::Int(10)),
            "{name}"
        );
        let cause = f.cause().expect("cause");
        assert_eq!(cause.gql_status(), Some("42I06"), "{name}");
        assert!(
            cause
                .message()
                .is_some_and(|m| m.starts_with("42I06: Invalid input")),
            "{name}"
        );
        assert_eq!(cause.classification(), Some("CLIENT_ERROR"), "{name}");
        assert_eq!(cause.code(), None, "{name}");
        assert!(cause.cause().is_none(), "{name}");
        assert_eq!(f.error().chain().count(), 2, "{name}");
    } else {
        assert_eq!(f.gql_status(), None, "{name}");
        assert_eq!(f.cause(), None, "{name}");
    }
}

fn check_values(name: &str, case: &str, version: BoltVersion, resps: &[Response<'_>]) {
    let record = resps
        .iter()
        .find_map(|r| match r {
            Response::Record(r) => Some(r),
            _ => None,
        })
        .expect("a RECORD");
    let fields = record.fields().expect("fields");
    match case {
        "scalar_null_bool" => {
            assert_eq!(
                fields,
                [ValueRef::Null, ValueRef::Bool(true), ValueRef::Bool(false)],
                "{name}"
            );
        }
        "uuid" => {
            assert!(version.has_uuid());
            let u = [
                0x2c, 0x4a, 0x9b, 0x6e, 0x93, 0xf3, 0x4b, 0x14, 0x9a, 0x53, 0x2c, 0x0f, 0x5f, 0x0e,
                0x8a, 0x11,
            ];
            assert_eq!(fields.first(), Some(&ValueRef::Uuid(u)), "{name}");
            // the same bytes fail before PackStream v2
            let bytes = record.message_bytes().expect("decoded");
            assert!(Response::decode(bytes, BoltVersion::V6_0)
                .map(|r| match r {
                    Response::Record(r) => r.fields().is_err(),
                    _ => false,
                })
                .unwrap_or(false));
        }
        "params_uuid_vector" => {
            // a Vector struct 0x56 as a field is a value, not a message
            assert!(
                fields
                    .iter()
                    .any(|f| matches!(f, ValueRef::Struct(s) if s.tag == 0x56)),
                "{name}"
            );
        }
        _ => {}
    }
}
