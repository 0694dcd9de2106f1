//! Integration tests against a real Neo4j server, through the sans-IO
//! [`ClientConnection`] over a blocking `TcpStream`.
//!
//! They are `#[ignore]`d: `scripts/test-integration.sh` starts a throw-away server
//! (`scripts/with-neo4j.sh`) and runs them with `--ignored`. They read
//! `NEO4J_BOLT_PORT`, `NEO4J_USER`, `NEO4J_PASSWORD` and `NEO4J_FLAVOUR` (`5.26` or
//! `2026`) and run every check once for each Bolt version the server can negotiate,
//! offering exactly one version per connection (4.4 both with and without the `utc`
//! patch). Expected values come from the headers of the capture files in
//! `tests/captures/` (`# query:` and `# driver-decoded result:`).
//!
//! Every value a test receives is checked to decode without a `Broken` structure.

use std::fmt;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration as StdDuration, SystemTime, UNIX_EPOCH};

use bolt::connection::{ClientConnection, ConnectionConfig, ConnectionError, Event, ServerState};
use bolt::handshake::{ClientConfig, Proposal};
use bolt::message::{BoltAgent, Dict, Hello, Logon, Pull, Request, RequestKind, Run};
use bolt::structs::{
    BoltStruct, Date, DateTime, DateTimeZoneId, Duration, EncodeStruct, LegacyDateTimeZoneId,
    LocalDateTime, LocalTime, Node, Point2D, Point3D, Time, Vector, VectorElements,
};
use bolt::BoltVersion;
use packstream::{Value, ValueRef};

/// Records asked for per PULL.
const BATCH: i64 = 1000;

// ---------------------------------------------------------------------------------------
// The server and the versions it negotiates
// ---------------------------------------------------------------------------------------

/// The server under test, as `scripts/with-neo4j.sh` describes it.
struct Server {
    port: u16,
    user: String,
    password: String,
    /// `5.26` or `2026`.
    flavour: String,
}

fn server() -> Server {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| {
            panic!("{name} is not set: run these tests with scripts/test-integration.sh")
        })
    };
    Server {
        port: var("NEO4J_BOLT_PORT").parse().expect("NEO4J_BOLT_PORT"),
        user: var("NEO4J_USER"),
        password: var("NEO4J_PASSWORD"),
        flavour: var("NEO4J_FLAVOUR"),
    }
}

impl Server {
    /// Neo4j 2026.x: Bolt 6.0/6.1, Cypher 25 (VECTOR, UUID).
    fn is_2026(&self) -> bool {
        self.flavour == "2026"
    }

    /// Every version the server negotiates that this crate supports, oldest first, 4.4
    /// twice (with the `utc` patch, then without). Neo4j 5.26 offers 4.4–4.0, 5.4–5.0 and
    /// 5.8–5.6; 2026.x adds 6.1–6.0 (`test_support::neo4j_bolt_versions`).
    fn offers(&self) -> Vec<Offer> {
        let mut offers = vec![Offer::new(BoltVersion::V4_4, true)];
        for (major, minor) in test_support::neo4j_bolt_versions(&self.flavour) {
            let version = BoltVersion::new(major, minor);
            if version.is_supported() {
                offers.push(Offer::new(version, false));
            }
        }
        offers
    }

    /// The newest version, for set-up and clean-up work.
    fn newest(&self) -> Offer {
        *self.offers().last().expect("at least one version")
    }
}

/// One version offered on its own; for 4.4, whether HELLO asks for the `utc` patch.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Offer {
    version: BoltVersion,
    utc_patch: bool,
}

impl Offer {
    fn new(version: BoltVersion, utc_patch: bool) -> Self {
        Offer { version, utc_patch }
    }
}

impl fmt::Display for Offer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bolt {}", self.version)?;
        if self.version.supports_utc_patch() {
            f.write_str(if self.utc_patch {
                " (utc patch)"
            } else {
                " (no patch)"
            })?;
        }
        Ok(())
    }
}

/// A handshake that offers `v` and nothing else.
fn only(v: BoltVersion) -> ClientConfig {
    let none = Proposal::Empty;
    ClientConfig::new([Proposal::exact(v), none, none, none]).with_supported(&[v])
}

/// Runs `test` on a fresh, logged-in session for every version the server negotiates.
fn each_version(mut test: impl FnMut(&mut Session)) {
    let server = server();
    for offer in server.offers() {
        eprintln!("--- {offer} on Neo4j {}", server.flavour);
        let mut session = Session::open(&server, offer);
        test(&mut session);
        session.goodbye();
    }
}

/// A name no other test (or earlier run) uses.
fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}_{}_{nanos}_{n}", std::process::id())
}

/// Runs `query` on a new session when dropped, even when the test panicked.
struct Cleanup {
    query: String,
    params: Vec<(&'static str, Value)>,
    db: Option<&'static str>,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        let done = catch_unwind(AssertUnwindSafe(|| {
            let server = server();
            let mut s = Session::open(&server, server.newest());
            let mut run = Run::new(&self.query).with_parameters(params(&self.params));
            if let Some(db) = self.db {
                run = run.with_db(db);
            }
            s.run(run).expect("clean-up query");
            s.goodbye();
        }));
        if done.is_err() {
            eprintln!("clean-up failed: {}", self.query);
        }
    }
}

/// A parameter dict borrowing `entries`.
fn params<'a>(entries: &'a [(&'a str, Value)]) -> Dict<'a> {
    entries.iter().map(|(k, v)| (*k, v)).collect()
}

// ---------------------------------------------------------------------------------------
// A blocking session on top of ClientConnection
// ---------------------------------------------------------------------------------------

/// A FAILURE from the server.
#[derive(Debug)]
struct Failure {
    request: RequestKind,
    code: String,
    message: String,
    metadata: Value,
}

/// One query's result, pulled in batches of [`BATCH`].
#[derive(Debug)]
struct QueryResult {
    fields: Vec<String>,
    rows: Vec<Vec<Value>>,
    /// The last PULL's SUCCESS metadata.
    summary: Value,
}

impl QueryResult {
    /// The value of `column` in the only row.
    fn get(&self, column: &str) -> &Value {
        assert_eq!(
            self.rows.len(),
            1,
            "expected one row, fields {:?}",
            self.fields
        );
        let i = self
            .fields
            .iter()
            .position(|f| f == column)
            .unwrap_or_else(|| panic!("no column {column} in {:?}", self.fields));
        &self.rows[0][i]
    }
}

struct Session {
    conn: ClientConnection,
    stream: TcpStream,
    buf: Vec<u8>,
    offer: Offer,
    /// The negotiated version, with the utc patch once the server accepted it.
    version: BoltVersion,
}

impl Session {
    /// Connects and runs the handshake offering exactly `offer`; checks that the server
    /// picked it.
    fn connect(server: &Server, offer: Offer) -> Session {
        let stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        stream
            .set_read_timeout(Some(StdDuration::from_secs(120)))
            .expect("read timeout");
        let v = offer.version;
        // The HELLO below asks for the utc patch itself when the offer says so; the
        // connection must not ask for it on its own in the "no patch" case.
        let config = ConnectionConfig {
            handshake: only(v),
            request_utc_patch: false,
            ..ConnectionConfig::default()
        };
        let mut s = Session {
            conn: ClientConnection::new(config),
            stream,
            buf: vec![0; 64 * 1024],
            offer,
            version: v,
        };
        assert_eq!(s.event(), Event::Negotiated(v), "{offer}");
        assert_eq!(s.conn.version(), Some(v));
        assert_eq!(s.conn.state(), ServerState::Negotiation);
        s
    }

    /// [`Session::connect`] and [`Session::login`] with the server's credentials.
    fn open(server: &Server, offer: Offer) -> Session {
        let mut s = Session::connect(server, offer);
        if let Err(f) = s.login(&server.user, &server.password) {
            panic!("{offer}: login failed: {f:?}");
        }
        s
    }

    /// HELLO (+ LOGON from 5.1). Returns HELLO's SUCCESS metadata.
    fn login(&mut self, user: &str, password: &str) -> Result<Value, Failure> {
        let v = self.conn.version().expect("negotiated");
        let mut hello = Hello::new("boltcodec-integration-tests/0.1");
        if v.has_bolt_agent() {
            hello = hello.with_bolt_agent(BoltAgent::new("boltcodec/0.1"));
        }
        if self.offer.utc_patch {
            hello = hello.with_patch_bolt(["utc"]);
        }
        let auth = Logon::basic(user, password).auth;
        if v.has_logon() {
            self.send(&Request::Hello(hello));
            self.send(&Request::Logon(Logon::new(auth)));
        } else {
            self.send(&Request::Hello(hello.with_auth(auth)));
        }
        let hello_ok = self.summary(RequestKind::Hello);
        if v.has_logon() {
            if let Err(f) = &hello_ok {
                panic!("{}: HELLO failed: {f:?}", self.offer);
            }
            self.summary(RequestKind::Logon)?;
        }
        let hello_ok = hello_ok?;
        let patches = hello_ok.get("patch_bolt").and_then(Value::as_list);
        if patches.is_some_and(|p| p.contains(&Value::from("utc"))) {
            self.version = v.with_utc_patch(true);
        }
        assert_eq!(self.conn.state(), ServerState::Ready);
        Ok(hello_ok)
    }

    /// The next event: writes what is queued, reads until the connection has one.
    fn event(&mut self) -> Event {
        loop {
            if let Some(event) = self.conn.poll_event() {
                return event;
            }
            self.flush();
            let n = self
                .stream
                .read(&mut self.buf)
                .expect("read from the server");
            assert!(n > 0, "{}: the server closed the connection", self.offer);
            self.conn.receive(&self.buf[..n]).expect("receive");
        }
    }

    fn flush(&mut self) {
        let out = self.conn.take_output();
        if !out.is_empty() {
            self.stream.write_all(&out).expect("write to the server");
        }
    }

    fn send(&mut self, request: &Request<'_>) {
        if let Err(e) = self.conn.send(request) {
            panic!("{}: sending {}: {e}", self.offer, request.name());
        }
    }

    /// The summary of the front request, which must be `kind`.
    fn summary(&mut self, kind: RequestKind) -> Result<Value, Failure> {
        match self.event() {
            Event::Success { request, metadata } if request == kind => Ok(metadata),
            Event::Failure {
                request,
                code,
                message,
                metadata,
            } if request == kind => Err(Failure {
                request,
                code: code.unwrap_or_default(),
                message: message.unwrap_or_default(),
                metadata,
            }),
            other => panic!(
                "{}: expected the summary of {kind:?}, got {other:?}",
                self.offer
            ),
        }
    }

    /// RUN + PULL {n: 1000} until `has_more` is false. On failure the pipelined PULL
    /// is IGNORED and a RESET makes the session usable again.
    fn run(&mut self, run: Run<'_>) -> Result<QueryResult, Failure> {
        self.send(&Request::Run(run));
        self.send(&Request::Pull(Pull::new(BATCH)));
        let run_ok = match self.summary(RequestKind::Run) {
            Ok(m) => m,
            Err(f) => {
                let ignored = Event::Ignored {
                    request: RequestKind::Pull,
                };
                assert_eq!(self.event(), ignored);
                self.send(&Request::Reset);
                self.summary(RequestKind::Reset).expect("RESET");
                return Err(f);
            }
        };
        let fields = run_ok
            .get("fields")
            .and_then(Value::as_list)
            .expect("RUN's SUCCESS has fields")
            .iter()
            .map(|f| f.as_str().expect("field name").to_owned())
            .collect();
        let mut rows = Vec::new();
        let mut in_batch = 0;
        loop {
            match self.event() {
                Event::Record(values) => {
                    self.check_decodes(&values);
                    rows.push(values);
                    in_batch += 1;
                }
                Event::Success {
                    request: RequestKind::Pull,
                    metadata,
                } => {
                    assert!(
                        in_batch <= BATCH,
                        "{in_batch} records for PULL {{n: {BATCH}}}"
                    );
                    if metadata.get("has_more").and_then(Value::as_bool) != Some(true) {
                        return Ok(QueryResult {
                            fields,
                            rows,
                            summary: metadata,
                        });
                    }
                    in_batch = 0;
                    self.send(&Request::Pull(Pull::new(BATCH)));
                }
                other => panic!("{}: unexpected {other:?} while pulling", self.offer),
            }
        }
    }

    /// [`Session::run`] that must succeed.
    fn query_with(&mut self, query: &str, params: Dict<'_>) -> QueryResult {
        match self.run(Run::new(query).with_parameters(params)) {
            Ok(r) => r,
            Err(f) => panic!("{}: {query}: {f:?}", self.offer),
        }
    }

    fn query(&mut self, query: &str) -> QueryResult {
        self.query_with(query, Dict::new())
    }

    /// Every structure in `values`, however deeply nested, decodes for the version.
    fn check_decodes(&self, values: &[Value]) {
        fn walk(v: &ValueRef<'_>, version: BoltVersion, offer: Offer) {
            match v {
                ValueRef::List(items) => items.iter().for_each(|i| walk(i, version, offer)),
                ValueRef::Map(entries) => entries.iter().for_each(|(_, i)| walk(i, version, offer)),
                ValueRef::Struct(s) => {
                    let decoded = BoltStruct::from_struct(s, version);
                    assert!(!decoded.is_broken(), "{offer}: {decoded}");
                    s.fields.iter().for_each(|f| walk(f, version, offer));
                }
                _ => {}
            }
        }
        for v in values {
            walk(&v.as_value_ref(), self.version, self.offer);
        }
    }

    /// `v` read as a structure of the session's version.
    fn decode<'a>(&self, v: &'a Value) -> BoltStruct<'a> {
        BoltStruct::from_value(&v.as_value_ref(), self.version)
            .unwrap_or_else(|| panic!("{}: not a structure: {v}", self.offer))
    }

    /// `v` rendered by `DisplayValue` for the session's version.
    fn render(&self, v: &Value) -> String {
        bolt::structs::DisplayValue::new(&v.as_value_ref())
            .with_version(self.version)
            .to_string()
    }

    fn goodbye(mut self) {
        self.send(&Request::Goodbye);
        self.flush();
        assert_eq!(self.conn.state(), ServerState::Defunct);
    }
}

/// Compares values with maps as unordered (the server does not keep map order) and
/// floats bitwise; panics with short renderings.
fn assert_same(what: &str, got: &Value, want: &Value) {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::List(items) => Value::List(items.iter().map(sorted).collect()),
            Value::Map(entries) => {
                let mut e: Vec<_> = entries
                    .iter()
                    .map(|(k, v)| (k.clone(), sorted(v)))
                    .collect();
                e.sort_by(|a, b| a.0.cmp(&b.0));
                Value::Map(e)
            }
            other => other.clone(),
        }
    }
    if sorted(got) != sorted(want) {
        let short = |v: &Value| {
            let s = v.to_string();
            if s.chars().count() > 300 {
                format!(
                    "{}… ({} chars)",
                    s.chars().take(300).collect::<String>(),
                    s.len()
                )
            } else {
                s
            }
        };
        panic!("{what}:\n   got {}\n  want {}", short(got), short(want));
    }
}

fn ints(range: std::ops::RangeInclusive<i64>) -> Value {
    Value::List(range.map(Value::Int).collect())
}

/// `{k0: 0, k1: 1, …}` with `n` entries.
fn map_of(n: usize) -> Value {
    Value::Map(
        (0..n)
            .map(|i| (format!("k{i}"), Value::Int(i as i64)))
            .collect(),
    )
}

/// Every integer marker boundary: TINY_INT, INT_8, INT_16, INT_32, INT_64.
#[rustfmt::skip]
const INTS: [i64; 19] = [
    0, 1, -1, 127, -16, -17, -128, 128, -129, 32767, 32768, -32768, -32769,
    2147483647, 2147483648, -2147483648, -2147483649, i64::MAX, i64::MIN,
];

/// Floats whose bits matter: signed zeros, extremes, the smallest subnormal, NaN, ±inf.
#[rustfmt::skip]
const FLOATS: [f64; 10] = [
    0.0, -0.0, 1.0, -1.5, std::f64::consts::PI, f64::MAX, f64::from_bits(1),
    f64::NAN, f64::INFINITY, f64::NEG_INFINITY,
];

fn time(nanoseconds: u64, tz_offset_seconds: i64) -> Time {
    Time {
        nanoseconds,
        tz_offset_seconds,
    }
}

fn local_date_time(seconds: i64, nanoseconds: u32) -> LocalDateTime {
    LocalDateTime {
        seconds,
        nanoseconds,
    }
}

fn duration(months: i64, days: i64, seconds: i64, nanoseconds: i64) -> Duration {
    Duration {
        months,
        days,
        seconds,
        nanoseconds,
    }
}

fn point2(srid: i64, x: f64, y: f64) -> Point2D {
    Point2D { srid, x, y }
}

fn point3(srid: i64, x: f64, y: f64, z: f64) -> Point3D {
    Point3D { srid, x, y, z }
}

// ---------------------------------------------------------------------------------------
// Handshake and login
// ---------------------------------------------------------------------------------------

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn negotiates_exactly_the_offered_version() {
    let server = server();
    for offer in server.offers() {
        let mut s = Session::connect(&server, offer);
        let hello = s.login(&server.user, &server.password).expect("login");
        let agent = hello
            .get("server")
            .and_then(Value::as_str)
            .unwrap_or_default();
        assert!(agent.starts_with("Neo4j/"), "{offer}: server {agent:?}");
        // The utc patch is granted exactly when asked for, and only on 4.4.
        let patched = hello.get("patch_bolt").is_some();
        assert_eq!(patched, offer.utc_patch, "{offer}: patch_bolt in {hello}");
        assert_eq!(
            s.version.utc_datetime(),
            offer.version.major() >= 5 || offer.utc_patch
        );
        let r = s.query("RETURN 1 AS x");
        assert_eq!(r.get("x"), &Value::Int(1));
        s.goodbye();
    }

    // The default offer (manifest first) gets the server's newest version.
    let mut conn = ClientConnection::new(ConnectionConfig::default());
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    stream.write_all(&conn.take_output()).expect("write");
    let mut buf = [0; 1024];
    while conn.version().is_none() {
        let n = stream.read(&mut buf).expect("read");
        assert!(n > 0, "closed during the handshake");
        conn.receive(&buf[..n]).expect("handshake");
    }
    assert_eq!(conn.version(), Some(server.newest().version));
    stream
        .write_all(&conn.take_output())
        .expect("write the manifest pick");

    // A version the server does not speak: it answers 00 00 00 00 and closes.
    let mut conn = ClientConnection::new(ConnectionConfig {
        handshake: only(BoltVersion::V3_0),
        ..ConnectionConfig::default()
    });
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).expect("connect");
    stream.write_all(&conn.take_output()).expect("write");
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let err = conn.receive(&reply).expect_err("no common version");
    assert!(matches!(err, ConnectionError::NoCommonVersion), "{err}");
}

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn auth_failure_makes_the_connection_defunct() {
    // A wrong password for a user of its own per version: failed logins lock a user
    // out for a few seconds after three attempts, which must not hit the other tests.
    let server = server();
    let offers = server.offers();
    let users: Vec<String> = (0..offers.len()).map(|_| unique("it_auth")).collect();
    let mut admin = Session::open(&server, server.newest());
    for user in &users {
        let p = [("name", Value::from(user.as_str()))];
        let create = "CREATE USER $name SET PASSWORD 'right-password' CHANGE NOT REQUIRED";
        admin
            .run(
                Run::new(create)
                    .with_parameters(params(&p))
                    .with_db("system"),
            )
            .expect("CREATE USER");
    }
    admin.goodbye();
    let _cleanup: Vec<Cleanup> = users
        .iter()
        .map(|user| Cleanup {
            query: "DROP USER $name".into(),
            params: vec![("name", Value::from(user.as_str()))],
            db: Some("system"),
        })
        .collect();

    for (offer, user) in offers.into_iter().zip(&users) {
        eprintln!("--- {offer}");
        let mut s = Session::connect(&server, offer);
        let f = s.login(user, "wrong-password").expect_err("wrong password");
        let expected = if offer.version.has_logon() {
            RequestKind::Logon
        } else {
            RequestKind::Hello
        };
        assert_eq!(f.request, expected, "{offer}");
        assert_eq!(
            f.code, "Neo.ClientError.Security.Unauthorized",
            "{offer}: {f:?}"
        );
        assert!(!f.message.is_empty());
        assert_eq!(s.conn.state(), ServerState::Defunct, "{offer}");
        // Nothing more can be sent (and nothing is written).
        let err = s
            .conn
            .send(&Request::Run(Run::new("RETURN 1")))
            .expect_err("defunct");
        let defunct = match err {
            ConnectionError::Defunct => true,
            ConnectionError::IllegalRequest { state, .. } => state == ServerState::Defunct,
            _ => false,
        };
        assert!(defunct, "{offer}: {err}");
        assert!(s.conn.output().is_empty());
        // The server hangs up.
        let mut rest = Vec::new();
        match s.stream.read_to_end(&mut rest) {
            Ok(_) => {}
            Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{offer}: {e}"),
        }
        // The same user with the right password gets in.
        let mut ok = Session::connect(&server, offer);
        ok.login(user, "right-password").expect("right password");
        ok.goodbye();
    }
}

// ---------------------------------------------------------------------------------------
// Values the server sends
// ---------------------------------------------------------------------------------------

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn scalars() {
    each_version(|s| {
        let r = s.query("RETURN null AS n, true AS t, false AS f");
        assert_eq!(
            r.rows[0],
            [Value::Null, Value::Bool(true), Value::Bool(false)]
        );

        // Every integer marker boundary.
        let query = INTS
            .iter()
            .enumerate()
            .map(|(i, n)| match *n {
                i64::MIN => format!("-9223372036854775807 - 1 AS i{i}"),
                n => format!("{n} AS i{i}"),
            })
            .collect::<Vec<_>>()
            .join(", ");
        let r = s.query(&format!("RETURN {query}"));
        assert_eq!(r.rows[0], INTS.map(Value::Int));

        let r = s.query(
            "RETURN 0.0 AS zero, -0.0 AS negzero, 1.0 AS one, -1.5 AS m15, \
             3.141592653589793 AS pi, 1.7976931348623157e308 AS max, 4.9e-324 AS minsub, \
             0.0/0.0 AS nan, 1.0/0.0 AS inf, -1.0/0.0 AS neginf",
        );
        for (i, want) in FLOATS.iter().enumerate() {
            let got = r.rows[0][i].as_float().expect("a float");
            // bitwise: -0.0 stays negative, NaN is the canonical NaN
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{}: {} = {got:?}, want {want:?}",
                s.offer,
                r.fields[i]
            );
        }

        // Strings at every size marker boundary, up to 65536 bytes.
        let r = s.query(
            "WITH reduce(s = 'a', i IN range(1, 16) | s + s) AS big \
             RETURN '' AS s0, 'a' AS s1, 'abcdefghijklmno' AS s15, 'abcdefghijklmnop' AS s16, \
             substring(big, 0, 255) AS s255, substring(big, 0, 256) AS s256, \
             substring(big, 0, 65535) AS s65535, big AS s65536",
        );
        assert_eq!(r.get("s0"), &Value::from(""));
        assert_eq!(r.get("s1"), &Value::from("a"));
        assert_eq!(r.get("s15"), &Value::from("abcdefghijklmno"));
        assert_eq!(r.get("s16"), &Value::from("abcdefghijklmnop"));
        for n in [255, 256, 65535, 65536] {
            assert_eq!(r.get(&format!("s{n}")), &Value::from("a".repeat(n)));
        }

        let r = s.query(
            "RETURN 'Ünïcödé' AS latin, '日本語テキスト' AS cjk, '😀👍🏽' AS emoji, \
             'a\\u0000b' AS nul, 'ÅÄÖåäöÅÄÖåäöÅÄÖ' AS utf8_16chars_30bytes",
        );
        let want = [
            "Ünïcödé",
            "日本語テキスト",
            "😀👍🏽",
            "a\0b",
            "ÅÄÖåäöÅÄÖåäöÅÄÖ",
        ];
        assert_eq!(r.rows[0], want.map(Value::from));
        assert_eq!(s.render(r.get("cjk")), "\"日本語テキスト\"");
    });
}

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn lists_and_maps() {
    each_version(|s| {
        let sizes = [0, 15, 16, 255, 256, 65535, 65536];
        let query = sizes
            .map(|n| match n {
                0 => "[] AS l0".to_owned(),
                n => format!("range(1, {n}) AS l{n}"),
            })
            .join(", ");
        let r = s.query(&format!("RETURN {query}"));
        for (i, n) in sizes.into_iter().enumerate() {
            assert_eq!(r.rows[0][i], ints(1..=n), "{}: l{n}", s.offer);
        }

        let r = s.query(
            "RETURN [1, 'two', 3.0, null, true, [4, [5, []]], {six: 6}] AS mixed, \
             [[1,2],[3,4]] AS nested, ['a','b'] AS strs",
        );
        assert_eq!(
            s.render(r.get("mixed")),
            r#"[1, "two", 3.0, null, true, [4, [5, []]], {six: 6}]"#
        );
        assert_eq!(s.render(r.get("nested")), "[[1, 2], [3, 4]]");

        // Maps as Cypher literals (TINY_MAP, MAP_8, MAP_16)...
        let literal = |n: usize| {
            let entries: Vec<String> = (0..n).map(|i| format!("k{i}: {i}")).collect();
            format!("{{{}}} AS m{n}", entries.join(", "))
        };
        let query = [0, 15, 16, 255, 256].map(literal).join(", ");
        let r = s.query(&format!("RETURN {query}"));
        for (i, n) in [0, 15, 16, 255, 256].into_iter().enumerate() {
            assert_same(&format!("{} m{n}", s.offer), &r.rows[0][i], &map_of(n));
        }
        // ...and MAP_32, which Cypher can only build from a parameter.
        let big = [("m", map_of(65536))];
        let r = s.query_with("RETURN $m AS m, size(keys($m)) AS n", params(&big));
        assert_eq!(r.get("n"), &Value::Int(65536));
        assert_same("m65536", r.get("m"), &big[0].1);

        let r = s.query(
            "RETURN {name:'x', list:[1,2,{deep:{deeper:[true,null]}}], empty:{}, f:1.5} AS m",
        );
        let want = Value::Map(vec![
            ("name".into(), Value::from("x")),
            (
                "list".into(),
                Value::List(vec![
                    Value::Int(1),
                    Value::Int(2),
                    Value::Map(vec![(
                        "deep".into(),
                        Value::Map(vec![(
                            "deeper".into(),
                            Value::List(vec![Value::Bool(true), Value::Null]),
                        )]),
                    )]),
                ]),
            ),
            ("empty".into(), Value::Map(vec![])),
            ("f".into(), Value::Float(1.5)),
        ]);
        assert_same("map_nested", r.get("m"), &want);
    });
}

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn nodes_relationships_and_paths() {
    let server = server();
    let tag = unique("graph");
    let p = [("tag", Value::from(tag.as_str()))];
    let _cleanup = Cleanup {
        query: "MATCH (n {tag: $tag}) DETACH DELETE n".into(),
        params: vec![("tag", Value::from(tag.as_str()))],
        db: None,
    };
    let mut setup = Session::open(&server, server.newest());
    setup.query_with(
        "CREATE (a:Person {name: 'Alice', age: 33, height: 1.72, tags: ['a', 'b'], tag: $tag}) \
         CREATE (b:Person:Employee {name: 'Bob', born: date('1990-05-17'), tag: $tag}) \
         CREATE (c:Company {name: 'Acme', tag: $tag}) \
         CREATE ({tag: $tag}) \
         CREATE (a)-[:KNOWS {weight: 0.5, since: 2020}]->(b) \
         CREATE (c)-[:EMPLOYS]->(b)",
        params(&p),
    );
    setup.goodbye();

    each_version(|s| {
        let v = s.version;
        let offer = s.offer;
        let check_element_id = |id: i64, element_id: Option<&str>| {
            if v.has_element_ids() {
                let e = element_id.unwrap_or_else(|| panic!("{offer}: no element id"));
                assert!(e.ends_with(&format!(":{id}")), "{offer}: {e} for id {id}");
            } else {
                assert_eq!(element_id, None, "{offer}");
            }
        };

        // Nodes.
        let r = s.query_with(
            "MATCH (n:Person {name: 'Alice', tag: $tag}) MATCH (m:Employee {tag: $tag}) RETURN n, m",
            params(&p),
        );
        let BoltStruct::Node(alice) = s.decode(r.get("n")) else {
            panic!("{offer}: n is not a node")
        };
        assert_eq!(alice.labels, ["Person"]);
        assert_eq!(alice.property("name"), Some(&ValueRef::String("Alice")));
        assert_eq!(alice.property("age"), Some(&ValueRef::Int(33)));
        assert_eq!(alice.property("height"), Some(&ValueRef::Float(1.72)));
        let tags = ValueRef::List(vec![ValueRef::String("a"), ValueRef::String("b")]);
        assert_eq!(alice.property("tags"), Some(&tags));
        check_element_id(alice.id, alice.element_id);
        let BoltStruct::Node(bob) = s.decode(r.get("m")) else {
            panic!("{offer}: m is not a node")
        };
        let mut labels = bob.labels.clone();
        labels.sort_unstable();
        assert_eq!(labels, ["Employee", "Person"]);
        let born = bob.property("born").expect("born");
        let born = BoltStruct::from_value(born, v);
        assert_eq!(
            born,
            Some(BoltStruct::Date(Date::from_ymd(1990, 5, 17).unwrap()))
        );
        assert!(s.render(r.get("m")).contains(r#"born: date("1990-05-17")"#));

        let r = s.query_with(
            "MATCH (n {tag: $tag}) WHERE size(labels(n)) = 0 RETURN n",
            params(&p),
        );
        let BoltStruct::Node(empty) = s.decode(r.get("n")) else {
            panic!("{offer}: not a node")
        };
        assert!(empty.labels.is_empty());
        assert_eq!(empty.properties.len(), 1); // the tag
        check_element_id(empty.id, empty.element_id);

        // A relationship and its end nodes.
        let r = s.query_with(
            "MATCH (a {tag: $tag})-[r:KNOWS]->(b) RETURN r, a, b",
            params(&p),
        );
        let BoltStruct::Relationship(knows) = s.decode(r.get("r")) else {
            panic!("{offer}: not a relationship")
        };
        let (BoltStruct::Node(a), BoltStruct::Node(b)) =
            (s.decode(r.get("a")), s.decode(r.get("b")))
        else {
            panic!("{offer}: not nodes")
        };
        assert_eq!(knows.rel_type, "KNOWS");
        assert_eq!((knows.start_node_id, knows.end_node_id), (a.id, b.id));
        assert_eq!(knows.property("weight"), Some(&ValueRef::Float(0.5)));
        assert_eq!(knows.property("since"), Some(&ValueRef::Int(2020)));
        check_element_id(knows.id, knows.element_id);
        assert_eq!(knows.start_node_element_id, a.element_id);
        assert_eq!(knows.end_node_element_id, b.element_id);

        // A path whose second hop runs against the relationship's direction.
        let r = s.query_with(
            "MATCH p = (a:Person {name: 'Alice', tag: $tag})-[:KNOWS]->(b)<-[:EMPLOYS]-(c) RETURN p",
            params(&p),
        );
        let BoltStruct::Path(path) = s.decode(r.get("p")) else {
            panic!("{offer}: not a path")
        };
        assert_eq!(path.len(), 2);
        let name = |n: &Node<'_>| {
            n.property("name")
                .and_then(ValueRef::as_str)
                .map(str::to_owned)
        };
        let segments: Vec<_> = path.segments().collect();
        assert_eq!(segments.len(), 2);
        assert_eq!(name(segments[0].start).as_deref(), Some("Alice"));
        assert_eq!(segments[0].relationship.rel_type, "KNOWS");
        assert!(!segments[0].reversed);
        assert_eq!(name(segments[1].start).as_deref(), Some("Bob"));
        assert_eq!(name(segments[1].end).as_deref(), Some("Acme"));
        assert_eq!(segments[1].relationship.rel_type, "EMPLOYS");
        assert!(
            segments[1].reversed,
            "{offer}: the second hop is traversed backwards"
        );
        assert!(
            path.indices().iter().any(|&i| i < 0),
            "{offer}: {:?}",
            path.indices()
        );
        let employs = segments[1].to_relationship();
        assert_eq!(
            (employs.start_node_id, employs.end_node_id),
            (segments[1].end.id, segments[1].start.id)
        );
        if v.has_element_ids() {
            assert_eq!(employs.start_node_element_id, segments[1].end.element_id);
        }
        let text = s.render(r.get("p"));
        assert!(text.starts_with("(:Person {"), "{offer}: {text}");
        assert!(text.contains("]->(:"), "{offer}: {text}");
        assert!(
            text.contains(")<-[:EMPLOYS]-(:Company {"),
            "{offer}: {text}"
        );

        // A path of length zero.
        let r = s.query_with(
            "MATCH p = (a:Person {name: 'Alice', tag: $tag}) RETURN p",
            params(&p),
        );
        let BoltStruct::Path(path) = s.decode(r.get("p")) else {
            panic!("{offer}: not a path")
        };
        assert!(path.is_empty());
        assert_eq!(path.segments().count(), 0);
        assert_eq!(path.start(), path.end());
        assert_eq!(path.start().id, alice.id);
    });
}

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn temporal_values() {
    each_version(|s| {
        let offer = s.offer;
        let utc = s.version.utc_datetime();
        // Which DateTime structs arrive: UTC `I`/`i` from 5.0 and on 4.4 with the
        // patch, legacy `F`/`f` on 4.4 without it.
        assert_eq!(utc, offer.version.major() >= 5 || offer.utc_patch);
        let date = |y, m, d| BoltStruct::Date(Date::from_ymd(y, m, d).unwrap());

        let r = s.query(
            "RETURN date('2024-02-29') AS d, date('1969-07-20') AS before_epoch, \
             date('1970-01-01') AS epoch, date('9999-12-31') AS max, \
             date('-0001-01-01') AS bce, date('+999999999-12-31') AS far",
        );
        let got: Vec<_> = r.rows[0].iter().map(|v| s.decode(v)).collect();
        let want = [
            date(2024, 2, 29),
            date(1969, 7, 20),
            BoltStruct::Date(Date::UNIX_EPOCH),
            date(9999, 12, 31),
            BoltStruct::Date(Date::from_days(-719_893)),
            BoltStruct::Date(Date::from_days(365_241_780_471)),
        ];
        assert_eq!(got, want, "{offer}");
        assert_eq!(s.render(r.get("bce")), r#"date("-0001-01-01")"#);
        assert_eq!(s.render(r.get("far")), r#"date("+999999999-12-31")"#);

        let r = s.query(
            "RETURN time('12:34:56.123456789+01:00') AS t, time('23:59:59-08:30') AS neg_off, \
             time('00:00:00Z') AS utc",
        );
        let got: Vec<_> = r.rows[0].iter().map(|v| s.decode(v)).collect();
        let want = [
            time(45_296_123_456_789, 3600),
            time(86_399_000_000_000, -30600),
            time(0, 0),
        ]
        .map(BoltStruct::Time);
        assert_eq!(got, want, "{offer}");
        assert_eq!(s.render(r.get("t")), r#"time("12:34:56.123456789+01:00")"#);

        let r = s.query(
            "RETURN localtime('12:34:56.789') AS t, localtime('00:00') AS midnight, \
             localtime('23:59:59.999999999') AS last",
        );
        let got: Vec<_> = r.rows[0].iter().map(|v| s.decode(v)).collect();
        let lt = |h, m, sec, n| BoltStruct::LocalTime(LocalTime::new(h, m, sec, n).unwrap());
        assert_eq!(
            got,
            [
                lt(12, 34, 56, 789_000_000),
                lt(0, 0, 0, 0),
                lt(23, 59, 59, 999_999_999)
            ],
            "{offer}"
        );

        // DateTime with an offset: the tag and the seconds' meaning depend on the version,
        // the instant and its rendering do not.
        let r = s.query(
            "RETURN datetime('2024-02-29T12:34:56.123456789+01:00') AS dt, \
             datetime('1969-12-31T23:59:59.5-05:00') AS before_epoch, \
             datetime('2024-06-01T00:00:00Z') AS utc",
        );
        let instants = [
            (1_709_206_496, 123_456_789, 3600),
            (17_999, 500_000_000, -18000),
            (1_717_200_000, 0, 0),
        ];
        for (value, (seconds, nanoseconds, tz_offset_seconds)) in r.rows[0].iter().zip(instants) {
            let instant = DateTime {
                seconds,
                nanoseconds,
                tz_offset_seconds,
            };
            let want = instant.for_version(s.version).expect("in range");
            assert_eq!(s.decode(value), want, "{offer}");
            let tag = value.as_struct().expect("struct").tag;
            assert_eq!(tag, s.version.datetime_tag(), "{offer}");
            assert_eq!(tag, if utc { 0x49 } else { 0x46 }, "{offer}");
        }
        assert_eq!(
            s.render(r.get("dt")),
            r#"datetime("2024-02-29T12:34:56.123456789+01:00")"#
        );
        assert_eq!(
            s.render(r.get("before_epoch")),
            r#"datetime("1969-12-31T23:59:59.500-05:00")"#
        );

        // DateTime with a zone id: UTC seconds or local seconds.
        let r = s.query(
            "RETURN datetime('2024-02-29T12:34:56.123456789[Europe/Stockholm]') AS winter, \
             datetime('2024-07-01T12:00:00[Europe/Stockholm]') AS summer, \
             datetime('2024-03-10T01:30:00[America/New_York]') AS ny, \
             datetime('2024-01-01T00:00[UTC]') AS utc_zone",
        );
        let zoned = [
            (
                1_709_206_496,
                1_709_210_096,
                123_456_789,
                "Europe/Stockholm",
            ),
            (1_719_828_000, 1_719_835_200, 0, "Europe/Stockholm"),
            (1_710_052_200, 1_710_034_200, 0, "America/New_York"),
            (1_704_067_200, 1_704_067_200, 0, "UTC"),
        ];
        for (value, (utc_seconds, local_seconds, nanoseconds, tz_id)) in r.rows[0].iter().zip(zoned)
        {
            let want = if utc {
                BoltStruct::DateTimeZoneId(DateTimeZoneId {
                    seconds: utc_seconds,
                    nanoseconds,
                    tz_id,
                })
            } else {
                BoltStruct::LegacyDateTimeZoneId(LegacyDateTimeZoneId {
                    seconds: local_seconds,
                    nanoseconds,
                    tz_id,
                })
            };
            assert_eq!(s.decode(value), want, "{offer}");
            let tag = value.as_struct().expect("struct").tag;
            assert_eq!(tag, s.version.datetime_zone_id_tag(), "{offer}");
            assert_eq!(tag, if utc { 0x69 } else { 0x66 }, "{offer}");
        }
        let winter = s.render(r.get("winter"));
        let want = if utc {
            r#"datetime("2024-02-29T11:34:56.123456789Z[Europe/Stockholm]")"#
        } else {
            r#"datetime("2024-02-29T12:34:56.123456789[Europe/Stockholm]")"#
        };
        assert_eq!(winter, want, "{offer}");

        let r = s.query(
            "RETURN localdatetime('2024-02-29T12:34:56.123456789') AS ldt, \
             localdatetime('1900-01-01T00:00:00') AS old",
        );
        let got: Vec<_> = r.rows[0].iter().map(|v| s.decode(v)).collect();
        let want = [
            local_date_time(1_709_210_096, 123_456_789),
            local_date_time(-2_208_988_800, 0),
        ]
        .map(BoltStruct::LocalDateTime);
        assert_eq!(got, want, "{offer}");
        assert_eq!(
            s.render(r.get("ldt")),
            r#"localdatetime("2024-02-29T12:34:56.123456789")"#
        );

        let r = s.query(
            "RETURN duration('P1Y2M3DT4H5M6.789S') AS d, duration('PT0S') AS zero, \
             duration({days:-1, seconds:-2, nanoseconds:-3}) AS neg, \
             duration('PT0.000000001S') AS nano, \
             duration({months:14, days:40, seconds:90000}) AS unnormalised",
        );
        let got: Vec<_> = r.rows[0].iter().map(|v| s.decode(v)).collect();
        let want = [
            duration(14, 3, 14706, 789_000_000),
            duration(0, 0, 0, 0),
            duration(0, -1, -3, 999_999_997),
            duration(0, 0, 0, 1),
            duration(14, 40, 90000, 0),
        ]
        .map(BoltStruct::Duration);
        assert_eq!(got, want, "{offer}");
        assert_eq!(s.render(r.get("d")), r#"duration("P1Y2M3DT4H5M6.789S")"#);
    });
}

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn spatial_values() {
    each_version(|s| {
        let r = s.query(
            "RETURN point({x:1.5, y:-2.25}) AS c2, point({x:1.0, y:2.0, z:3.5}) AS c3, \
             point({longitude:12.5686, latitude:55.6761}) AS w2, \
             point({longitude:-122.4194, latitude:37.7749, height:15.5}) AS w3",
        );
        let got: Vec<_> = r.rows[0].iter().map(|v| s.decode(v)).collect();
        let want = [
            BoltStruct::Point2D(point2(7203, 1.5, -2.25)),
            BoltStruct::Point3D(point3(9157, 1.0, 2.0, 3.5)),
            BoltStruct::Point2D(point2(4326, 12.5686, 55.6761)),
            BoltStruct::Point3D(point3(4979, -122.4194, 37.7749, 15.5)),
        ];
        assert_eq!(got, want, "{}", s.offer);
        assert_eq!(
            s.render(r.get("c2")),
            "point({srid: 7203, x: 1.5, y: -2.25})"
        );
    });
}

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn vectors() {
    if !server().is_2026() {
        eprintln!("VECTOR needs Neo4j 2026.x (Cypher 25); nothing to check on 5.26");
        return;
    }
    each_version(|s| {
        let r = s.query(
            "CYPHER 25 RETURN vector([1, -2, 127], 3, INTEGER8) AS i8, \
             vector([1, -2, 32767], 3, INTEGER16) AS i16, \
             vector([1, -2, 2147483647], 3, INTEGER32) AS i32, \
             vector([1, -2, 9223372036854775807], 3, INTEGER64) AS i64, \
             vector([1.5, -2.25, 0.0], 3, FLOAT32) AS f32, \
             vector([1.5, -2.25, 0.0], 3, FLOAT64) AS f64",
        );
        if !s.version.has_vector() {
            // Before 6.0 the server sends a map naming the type it could not send.
            for (field, value) in r.fields.iter().zip(&r.rows[0]) {
                let original = value.get("originalType").and_then(Value::as_str);
                assert!(
                    original.is_some_and(|t| t.starts_with("VECTOR")),
                    "{}: {field} = {value}",
                    s.offer
                );
            }
            return;
        }
        let elements: Vec<VectorElements> = r.rows[0]
            .iter()
            .map(|v| match s.decode(v) {
                BoltStruct::Vector(vector) => vector.elements(),
                other => panic!("{}: not a vector: {other}", s.offer),
            })
            .collect();
        let want = [
            VectorElements::I8(vec![1, -2, 127]),
            VectorElements::I16(vec![1, -2, 32767]),
            VectorElements::I32(vec![1, -2, i32::MAX]),
            VectorElements::I64(vec![1, -2, i64::MAX]),
            VectorElements::F32(vec![1.5, -2.25, 0.0]),
            VectorElements::F64(vec![1.5, -2.25, 0.0]),
        ];
        assert_eq!(elements, want, "{}", s.offer);
        assert_eq!(s.render(r.get("f32")), "vector<f32>[1.5, -2.25, 0.0]");
    });
}

const UUID: [u8; 16] = [
    0x2c, 0x4a, 0x9b, 0x6e, 0x93, 0xf3, 0x4b, 0x14, 0x9a, 0x53, 0x2c, 0x0f, 0x5f, 0x0e, 0x8a, 0x11,
];

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn uuids() {
    if !server().is_2026() {
        eprintln!("UUID needs Neo4j 2026.x (Cypher 25); nothing to check on 5.26");
        return;
    }
    each_version(|s| {
        let offer = s.offer;
        let r = s.query(
            "CYPHER 25 RETURN uuid('2c4a9b6e-93f3-4b14-9a53-2c0f5f0e8a11') AS u, \
             [uuid('00000000-0000-0000-0000-000000000000')] AS l",
        );
        let (u, l) = (r.get("u"), r.get("l"));
        if s.version.has_uuid() {
            // 6.1: PackStream v2's UUID marker.
            assert_eq!(u, &Value::Uuid(UUID), "{offer}");
            assert_eq!(l, &Value::List(vec![Value::Uuid([0; 16])]), "{offer}");
            assert_eq!(
                s.render(u),
                r#"uuid("2c4a9b6e-93f3-4b14-9a53-2c0f5f0e8a11")"#
            );
        } else if s.version.has_unsupported_type() {
            // 6.0: the UnsupportedType structure, naming 6.1 as the version to ask for.
            for value in [u, &l.as_list().expect("a list")[0]] {
                let BoltStruct::Unsupported(t) = s.decode(value) else {
                    panic!("{offer}: not UnsupportedType: {value}")
                };
                assert_eq!(t.name, "UUID");
                assert_eq!(t.minimum_version(), BoltVersion::V6_1);
            }
            assert!(s
                .render(u)
                .starts_with("unsupported(UUID, minimum Bolt 6.1"));
        } else {
            // Before 6.0: a map naming the type.
            let original = u.get("originalType").and_then(Value::as_str);
            assert_eq!(original, Some("UUID"), "{offer}: {u}");
        }
    });
}

// ---------------------------------------------------------------------------------------
// Values the client sends
// ---------------------------------------------------------------------------------------

/// A parameter of every type the version can carry, with names usable as `$name`.
fn every_parameter(v: BoltVersion) -> Vec<(&'static str, Value)> {
    let st = |s: &dyn EncodeStruct| s.to_value(v).expect("encodable in this version");
    let bytes = |n: usize| Value::Bytes((0..n).map(|i| i as u8).collect());
    let string_sizes = [0, 1, 15, 16, 255, 256, 65535, 65536];
    let stockholm = if v.utc_datetime() {
        st(&DateTimeZoneId {
            seconds: 1_709_206_496,
            nanoseconds: 123_456_789,
            tz_id: "Europe/Stockholm",
        })
    } else {
        st(&LegacyDateTimeZoneId {
            seconds: 1_709_210_096,
            nanoseconds: 123_456_789,
            tz_id: "Europe/Stockholm",
        })
    };
    let minus_five = DateTime {
        seconds: 1_709_228_096,
        nanoseconds: 123_456_789,
        tz_offset_seconds: -5 * 3600,
    };
    let nested = vec![
        Value::Int(1),
        Value::from("two"),
        Value::Null,
        Value::Map(vec![
            ("list".into(), ints(1..=3)),
            ("map".into(), map_of(2)),
        ]),
    ];
    vec![
        ("null", Value::Null),
        ("yes", Value::Bool(true)),
        ("no", Value::Bool(false)),
        ("ints", Value::List(INTS.map(Value::Int).to_vec())),
        ("floats", Value::List(FLOATS.map(Value::Float).to_vec())),
        (
            "strings",
            Value::List(string_sizes.map(|n| Value::from("a".repeat(n))).to_vec()),
        ),
        ("unicode", Value::from("Ünïcödé 日本語 😀👍🏽 a\0b")),
        ("b0", bytes(0)),
        ("b1", bytes(1)),
        ("b255", bytes(255)),
        ("b256", bytes(256)),
        ("b65536", bytes(65536)),
        ("l0", Value::List(vec![])),
        ("l15", ints(1..=15)),
        ("l16", ints(1..=16)),
        ("l255", ints(1..=255)),
        ("l256", ints(1..=256)),
        ("l65536", ints(1..=65536)),
        ("m0", map_of(0)),
        ("m15", map_of(15)),
        ("m16", map_of(16)),
        ("m255", map_of(255)),
        ("m256", map_of(256)),
        ("m65536", map_of(65536)),
        ("nested", Value::List(nested)),
        ("date", st(&Date::from_ymd(2024, 2, 29).expect("a date"))),
        ("date_bce", st(&Date::from_days(-719_893))),
        ("date_far", st(&Date::from_days(365_241_780_471))),
        ("time", st(&time(45_296_123_456_789, 3600))),
        (
            "localtime",
            st(&LocalTime::new(12, 34, 56, 789_000_000).expect("a time")),
        ),
        (
            "datetime",
            st(&minus_five.for_version(v).expect("in range")),
        ),
        ("datetime_zone", stockholm),
        (
            "localdatetime",
            st(&local_date_time(1_709_210_096, 123_456_789)),
        ),
        ("duration", st(&duration(14, 3, 14706, 789_000_000))),
        ("cartesian_2d", st(&point2(7203, 1.5, -2.25))),
        ("cartesian_3d", st(&point3(9157, 1.0, 2.0, 3.5))),
        ("wgs84_2d", st(&point2(4326, 12.5686, 55.6761))),
        ("wgs84_3d", st(&point3(4979, -122.4194, 37.7749, 15.5))),
    ]
}

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn parameters_come_back_unchanged() {
    each_version(|s| {
        let sent = every_parameter(s.version);
        let columns: Vec<String> = sent.iter().map(|(k, _)| format!("${k} AS {k}")).collect();
        let r = s.query_with(&format!("RETURN {}", columns.join(", ")), params(&sent));
        assert_eq!(r.rows.len(), 1);
        for (i, (name, value)) in sent.iter().enumerate() {
            assert_eq!(r.fields[i], *name);
            assert_same(&format!("{} ${name}", s.offer), &r.rows[0][i], value);
        }

        // The server understood them as the types they are, not just as echoed bytes.
        let r = s.query_with(
            "RETURN $date.year AS year, $datetime.offset AS offset, $datetime_zone.timezone AS zone, \
             $duration.months AS months, $wgs84_2d.latitude AS lat, size($b65536) AS nbytes",
            params(&sent),
        );
        assert_eq!(
            r.rows[0],
            [
                Value::Int(2024),
                Value::from("-05:00"),
                Value::from("Europe/Stockholm"),
                Value::Int(14),
                Value::Float(55.6761),
                Value::Int(65536),
            ],
            "{}",
            s.offer
        );
    });
}

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn uuid_and_vector_parameters() {
    if !server().is_2026() {
        eprintln!("UUID and VECTOR need Neo4j 2026.x (Cypher 25); nothing to check on 5.26");
        return;
    }
    each_version(|s| {
        let v = s.version;
        let vectors = [
            Vector::from_slice(&[1i8, -2, 127]),
            Vector::from_slice(&[1i16, -2, i16::MAX]),
            Vector::from_slice(&[1i32, -2, i32::MAX]),
            Vector::from_slice(&[1i64, -2, i64::MAX]),
            Vector::from_slice(&[1.5f32, -2.25]),
            Vector::from_slice(&[1.5f64, -2.25, 0.0]),
        ];
        if !v.has_vector() {
            // The client refuses to write what the version cannot carry.
            assert!(vectors[0].to_value(v).is_err(), "{}", s.offer);
            let u = [("u", Value::Uuid(UUID))];
            let run = Request::Run(Run::new("RETURN $u").with_parameters(params(&u)));
            assert!(matches!(s.conn.send(&run), Err(ConnectionError::Encode(_))));
            return;
        }
        let sent: Vec<(&str, Value)> = ["i8", "i16", "i32", "i64", "f32", "f64"]
            .into_iter()
            .zip(&vectors)
            .map(|(k, vector)| (k, vector.to_value(v).expect("a vector")))
            .collect();
        let r = s.query_with(
            "CYPHER 25 RETURN $i8 AS i8, $i16 AS i16, $i32 AS i32, $i64 AS i64, $f32 AS f32, \
             $f64 AS f64, valueType($f32) AS vt",
            params(&sent),
        );
        for (i, (name, value)) in sent.iter().enumerate() {
            assert_same(&format!("{} ${name}", s.offer), &r.rows[0][i], value);
        }
        assert_eq!(
            r.get("vt"),
            &Value::from("VECTOR<FLOAT32 NOT NULL>(2) NOT NULL")
        );

        let u = [("u", Value::Uuid(UUID)), ("v", sent[4].1.clone())];
        let run =
            Run::new("CYPHER 25 RETURN $u AS u, valueType($u) AS ut, $v AS v, valueType($v) AS vt")
                .with_parameters(params(&u));
        if v.has_uuid() {
            let r = s.run(run).expect("UUID parameter");
            assert_eq!(r.get("u"), &Value::Uuid(UUID));
            assert_eq!(r.get("ut"), &Value::from("UUID NOT NULL"));
            assert_eq!(r.get("v"), &u[1].1);
            assert_eq!(
                r.get("vt"),
                &Value::from("VECTOR<FLOAT32 NOT NULL>(2) NOT NULL")
            );
        } else {
            // 6.0 has no UUID marker: the client refuses to write one.
            let err = s
                .conn
                .send(&Request::Run(run))
                .expect_err("no UUID before 6.1");
            assert!(
                matches!(err, ConnectionError::Encode(_)),
                "{}: {err}",
                s.offer
            );
        }
    });
}

// ---------------------------------------------------------------------------------------
// Streaming, transactions and errors
// ---------------------------------------------------------------------------------------

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn large_result_in_batches_with_back_pressure() {
    each_version(|s| {
        let offer = s.offer;
        s.send(&Request::Run(Run::new(
            "UNWIND range(1, 100000) AS x RETURN x",
        )));
        s.send(&Request::Pull(Pull::new(BATCH)));
        let run_ok = s.summary(RequestKind::Run).expect("RUN");
        assert_eq!(
            run_ok.get("fields"),
            Some(&Value::List(vec![Value::from("x")]))
        );
        let (mut next, mut batches, mut in_batch) = (1i64, 0, 0);
        loop {
            match s.event() {
                Event::Record(fields) => {
                    assert_eq!(fields, [Value::Int(next)], "{offer}: out of order");
                    next += 1;
                    in_batch += 1;
                }
                Event::Success {
                    request: RequestKind::Pull,
                    metadata,
                } => {
                    batches += 1;
                    let has_more = metadata.get("has_more").and_then(Value::as_bool) == Some(true);
                    if has_more {
                        assert_eq!(in_batch, BATCH, "{offer}: batch {batches}");
                        assert_eq!(s.conn.state(), ServerState::Streaming);
                        assert_eq!(s.conn.pending_requests(), 0);
                        if batches == 1 {
                            // Back-pressure: nothing more arrives until the next PULL.
                            s.stream
                                .set_read_timeout(Some(StdDuration::from_millis(300)))
                                .expect("timeout");
                            let mut byte = [0u8; 1];
                            let err = s.stream.read(&mut byte).expect_err("silence");
                            assert!(
                                matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
                                "{offer}: {err}"
                            );
                            s.stream
                                .set_read_timeout(Some(StdDuration::from_secs(120)))
                                .expect("timeout");
                        }
                        in_batch = 0;
                        s.send(&Request::Pull(Pull::new(BATCH)));
                    } else {
                        assert_eq!(metadata.get("type").and_then(Value::as_str), Some("r"));
                        break;
                    }
                }
                other => panic!("{offer}: unexpected {other:?}"),
            }
        }
        assert_eq!(next - 1, 100_000, "{offer}: rows");
        // has_more flips exactly with the last record: 100 full batches, no empty one.
        assert_eq!((batches, in_batch), (100, BATCH), "{offer}");
        assert_eq!(s.conn.state(), ServerState::Ready);
    });
}

/// How many `:TxTest` nodes carry `tag`, counted on a new connection.
fn count_tagged(offer: Offer, tag: &str) -> i64 {
    let mut s = Session::open(&server(), offer);
    let p = [("tag", Value::from(tag))];
    let r = s.query_with(
        "MATCH (n:TxTest {tag: $tag}) RETURN count(n) AS c",
        params(&p),
    );
    s.goodbye();
    r.get("c").as_int().expect("count")
}

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn explicit_transactions_commit_and_roll_back() {
    let tag = unique("tx");
    let _cleanup = Cleanup {
        query: "MATCH (n:TxTest {tag: $tag}) DELETE n".into(),
        params: vec![("tag", Value::from(tag.as_str()))],
        db: None,
    };
    each_version(|s| {
        let offer = s.offer;
        let tag = format!("{tag}-{offer}");
        let p = [("tag", Value::from(tag.as_str()))];

        // BEGIN, CREATE, read it back inside the transaction, COMMIT.
        s.send(&Request::Begin(bolt::message::Begin::new()));
        s.summary(RequestKind::Begin).expect("BEGIN");
        assert_eq!(s.conn.state(), ServerState::TxReady);
        let r = s.query_with(
            "CREATE (n:TxTest {tag: $tag}) RETURN n.tag AS t",
            params(&p),
        );
        assert_eq!(r.get("t"), &Value::from(tag.as_str()));
        let stats = r.summary.get("stats").expect("write stats");
        assert_eq!(
            stats.get("nodes-created"),
            Some(&Value::Int(1)),
            "{offer}: {stats}"
        );
        assert_eq!(s.conn.state(), ServerState::TxReady);
        let r = s.query_with(
            "MATCH (n:TxTest {tag: $tag}) RETURN count(n) AS c",
            params(&p),
        );
        assert_eq!(r.get("c"), &Value::Int(1));
        assert_eq!(
            count_tagged(offer, &tag),
            0,
            "{offer}: visible before COMMIT"
        );
        s.send(&Request::Commit);
        let commit = s.summary(RequestKind::Commit).expect("COMMIT");
        assert!(
            commit.get("bookmark").and_then(Value::as_str).is_some(),
            "{commit}"
        );
        assert_eq!(s.conn.state(), ServerState::Ready);
        assert_eq!(count_tagged(offer, &tag), 1, "{offer}: committed");

        // BEGIN, CREATE, ROLLBACK: the write is gone.
        s.send(&Request::Begin(bolt::message::Begin::new()));
        s.summary(RequestKind::Begin).expect("BEGIN");
        s.query_with("CREATE (n:TxTest {tag: $tag})", params(&p));
        s.send(&Request::Rollback);
        s.summary(RequestKind::Rollback).expect("ROLLBACK");
        assert_eq!(s.conn.state(), ServerState::Ready);
        assert_eq!(count_tagged(offer, &tag), 1, "{offer}: rolled back");
        let r = s.query_with("MATCH (n:TxTest {tag: $tag}) DELETE n", params(&p));
        let deleted = r
            .summary
            .get("stats")
            .and_then(|st| st.get("nodes-deleted"));
        assert_eq!(deleted, Some(&Value::Int(1)));
    });
}

#[test]
#[ignore = "needs a Neo4j server: scripts/test-integration.sh"]
fn syntax_error_then_reset() {
    each_version(|s| {
        let offer = s.offer;
        s.send(&Request::Run(Run::new("RETURN 1 +")));
        s.send(&Request::Pull(Pull::new(BATCH)));
        let f = s.summary(RequestKind::Run).expect_err("a syntax error");
        assert_eq!(
            f.code, "Neo.ClientError.Statement.SyntaxError",
            "{offer}: {f:?}"
        );
        assert!(f.message.contains("RETURN 1 +"), "{offer}: {}", f.message);
        if s.version.gql_failures() {
            let gql = f.metadata.get("gql_status").and_then(Value::as_str);
            assert!(gql.is_some_and(|g| g.len() == 5), "{offer}: {}", f.metadata);
        }
        assert_eq!(
            s.event(),
            Event::Ignored {
                request: RequestKind::Pull
            }
        );
        assert_eq!(s.conn.state(), ServerState::Failed);

        // Until RESET everything is IGNORED.
        s.send(&Request::Run(Run::new("RETURN 2")));
        s.send(&Request::Pull(Pull::all()));
        assert_eq!(
            s.event(),
            Event::Ignored {
                request: RequestKind::Run
            }
        );
        assert_eq!(
            s.event(),
            Event::Ignored {
                request: RequestKind::Pull
            }
        );

        s.send(&Request::Reset);
        assert_eq!(s.conn.state(), ServerState::Interrupted);
        s.summary(RequestKind::Reset).expect("RESET");
        assert_eq!(s.conn.state(), ServerState::Ready);
        let r = s.query("RETURN 1 AS x");
        assert_eq!(r.get("x"), &Value::Int(1), "{offer}");
    });
}
