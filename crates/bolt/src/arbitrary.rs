//! Structure-aware generation of Bolt messages (feature `arbitrary`): fuzz **your own**
//! Bolt server or driver with messages that are well-formed, or nearly so.
//!
//! Every request and response type implements [`arbitrary::Arbitrary`], and so do
//! [`Dict`] and [`BoltVersion`]. The generated messages carry the keys real drivers and
//! servers send (`user_agent`, `bolt_agent`, `bookmarks`, `db`, `mode`, `tx_timeout`,
//! `n`, `qid`, `fields`, `has_more`, `neo4j_code`, …) with plausible values, now and then
//! a wrong type for a known key or an unknown key, and query parameters of every
//! PackStream type including valid temporal and spatial structures. Structures are
//! never deeper than a few levels and every message encodes.
//!
//! The `Arbitrary` impls pick a version at random. To talk to a peer, generate for the
//! negotiated version with [`request`] and [`response`]: those only produce messages that
//! exist in that version and that [`Request::encode`] accepts for it (no UUID before 6.1,
//! no `extra` where the version has none, the 4.3 form of ROUTE).
//!
//! `crates/bolt/examples/fuzz_peer.rs` drives a generated session at a server over TCP.
//!
//! ```
//! use arbitrary::Unstructured;
//! use bolt::arbitrary::request;
//! use bolt::message::Request;
//! use bolt::BoltVersion;
//!
//! let noise: Vec<u8> = (0u32..512).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
//! let mut u = Unstructured::new(&noise);
//! for version in [BoltVersion::V4_4, BoltVersion::V5_8, BoltVersion::V6_1] {
//!     let req = request(&mut u, version).unwrap();
//!     let bytes = req.to_vec(version).unwrap(); // always encodes for its version
//!     assert_eq!(Request::decode(&bytes, version).unwrap().kind(), req.kind());
//! }
//! ```

use ::arbitrary::{Arbitrary, Result, Unstructured};
use packstream::arbitrary::Generator;
use packstream::{StructRef, ValueRef};

use crate::message::{
    Begin, Dict, Discard, Failure, Hello, Init, Logon, Pull, Record, Request, RequestKind,
    Response, Route, Run, Success, Telemetry,
};
use crate::version::{BoltVersion, RouteDbField};

/// Queries a server may actually run, and some it will refuse.
const QUERIES: [&str; 10] = [
    "RETURN 1 AS n",
    "RETURN $x AS x",
    "UNWIND range(1, $n) AS i RETURN i",
    "MATCH (n) RETURN n LIMIT 5",
    "RETURN [1, 2.5, 'three', null, true] AS l, {k: 'v'} AS m",
    "RETURN date() AS d, datetime() AS dt, duration('P1D') AS du, point({x: 1, y: 2}) AS p",
    "CALL db.labels()",
    "RETURN",
    "SHOW DATABASES",
    "RETURN 1/0",
];

const DBS: [&str; 3] = ["neo4j", "system", "no-such-db"];
const SCHEMES: [&str; 5] = ["basic", "none", "bearer", "kerberos", "custom"];
const SEVERITIES: [&str; 3] = ["WARNING", "INFORMATION", "OFF"];
const CATEGORIES: [&str; 4] = ["HINT", "UNRECOGNIZED", "DEPRECATION", "PERFORMANCE"];
const PULL_NS: [i64; 7] = [-1, 0, 1, 2, 1000, i64::MAX, i64::MIN];
const GOOD_PULL_NS: [i64; 4] = [-1, 1, 2, 1000];
const QUERY_TYPES: [&str; 5] = ["r", "w", "rw", "s", "?"];
const CODES: [&str; 4] = [
    "Neo.ClientError.Statement.SyntaxError",
    "Neo.ClientError.Security.Unauthorized",
    "Neo.TransientError.General.DatabaseUnavailable",
    "Neo.DatabaseError.General.UnknownError",
];
const GQL_STATUSES: [&str; 3] = ["42001", "50N42", "00000"];

/// A string: one of `choices` most of the time, else anything.
fn one_of<'a>(u: &mut Unstructured<'a>, choices: &[&'static str]) -> Result<&'a str> {
    if u.ratio(7, 8)? {
        Ok(*u.choose(choices)?)
    } else {
        u.arbitrary()
    }
}

/// The value generator for `version`: UUIDs only from 6.1, no structures (servers
/// refuse graph structures as parameters; [`value`] adds valid temporal and spatial
/// ones itself).
fn values(version: BoltVersion) -> Generator {
    Generator {
        max_depth: 4,
        max_len: 8,
        uuid: version.has_uuid(),
        structs: false,
    }
}

/// A value for a query parameter or a record field in `version`: any PackStream value,
/// or a valid temporal or spatial structure of that version.
///
/// # Errors
/// Only errors of the input (running out of bytes gives small values instead).
pub fn value<'a>(u: &mut Unstructured<'a>, version: BoltVersion) -> Result<ValueRef<'a>> {
    if !u.ratio(1, 4)? {
        return values(version).value_ref(u);
    }
    let int =
        |u: &mut Unstructured<'a>| -> Result<ValueRef<'a>> { Ok(ValueRef::Int(u.arbitrary()?)) };
    let nanos = |u: &mut Unstructured<'a>| -> Result<ValueRef<'a>> {
        Ok(ValueRef::Int(u.int_in_range(0..=999_999_999)?))
    };
    let offset = |u: &mut Unstructured<'a>| -> Result<ValueRef<'a>> {
        Ok(ValueRef::Int(u.int_in_range(-64_800..=64_800)?))
    };
    let float = |u: &mut Unstructured<'a>| -> Result<ValueRef<'a>> {
        Ok(ValueRef::Float(f64::from(u.arbitrary::<f32>()?)))
    };
    let (tag, fields) = match u.int_in_range(0..=7)? {
        0 => (
            0x44,
            vec![ValueRef::Int(u.int_in_range(-1_000_000..=3_000_000)?)],
        ),
        1 => (0x54, vec![int(u)?, offset(u)?]),
        2 => (
            0x74,
            vec![ValueRef::Int(u.int_in_range(0..=86_399_999_999_999)?)],
        ),
        3 => (version.datetime_tag(), vec![int(u)?, nanos(u)?, offset(u)?]),
        4 => (
            version.datetime_zone_id_tag(),
            vec![
                int(u)?,
                nanos(u)?,
                ValueRef::String(one_of(u, &["Europe/Stockholm", "UTC", "America/New_York"])?),
            ],
        ),
        5 => (0x64, vec![int(u)?, nanos(u)?]),
        6 => (0x45, vec![int(u)?, int(u)?, int(u)?, nanos(u)?]),
        _ => {
            if u.arbitrary()? {
                (
                    0x58,
                    vec![
                        ValueRef::Int(*u.choose(&[7203, 4326])?),
                        float(u)?,
                        float(u)?,
                    ],
                )
            } else {
                (
                    0x59,
                    vec![
                        ValueRef::Int(*u.choose(&[9157, 4979])?),
                        float(u)?,
                        float(u)?,
                        float(u)?,
                    ],
                )
            }
        }
    };
    Ok(ValueRef::Struct(StructRef { tag, fields }))
}

/// Adds, now and then, an unknown key or a known key with a value of the wrong type:
/// what makes a message "nearly" well-formed.
fn perturb<'a>(u: &mut Unstructured<'a>, d: &mut Dict<'a>, version: BoltVersion) -> Result<()> {
    if u.ratio(1, 8)? {
        let key = one_of(
            u,
            &[
                "db",
                "mode",
                "bookmarks",
                "n",
                "qid",
                "tx_timeout",
                "x-unknown",
            ],
        )?;
        d.push(key, values(version).scalar(u)?);
    }
    Ok(())
}

fn str_list<'a>(u: &mut Unstructured<'a>, choices: &[&'static str]) -> Result<ValueRef<'a>> {
    let n = u.int_in_range(0..=3)?;
    let mut items = Vec::with_capacity(n);
    for _ in 0..n {
        items.push(ValueRef::String(one_of(u, choices)?));
    }
    Ok(ValueRef::List(items))
}

/// `bookmarks`, `tx_timeout`, `tx_metadata`, `mode`, `db`, `imp_user`: RUN's and BEGIN's
/// `extra`.
fn tx_extra<'a>(u: &mut Unstructured<'a>, version: BoltVersion) -> Result<Dict<'a>> {
    let mut d = Dict::new();
    if u.ratio(1, 8)? {
        d.push("bookmarks", str_list(u, &["FB:kcwQ", "FB:bad"])?);
    }
    if u.ratio(1, 8)? {
        d.push(
            "tx_timeout",
            ValueRef::Int(*u.choose(&[1000, 60_000, 1000, 0, -1, i64::MAX])?),
        );
    }
    if u.ratio(1, 8)? {
        let meta = Dict::new().with("app", one_of(u, &["fuzz"])?);
        d.push("tx_metadata", meta);
    }
    if u.arbitrary()? {
        d.push("mode", one_of(u, &["r", "w", "r", "w", "x"])?);
    }
    if version.has_database() && u.arbitrary()? {
        d.push(
            "db",
            one_of(u, &["neo4j", "neo4j", "neo4j", "system", "no-such-db"])?,
        );
    }
    if version.has_impersonation() && u.ratio(1, 16)? {
        d.push("imp_user", one_of(u, &["neo4j", "nobody"])?);
    }
    if version.has_notification_filters() && u.ratio(1, 8)? {
        d.push("notifications_minimum_severity", one_of(u, &SEVERITIES)?);
    }
    perturb(u, &mut d, version)?;
    Ok(d)
}

/// A dict of any keys and values of `version`.
fn dict<'a>(u: &mut Unstructured<'a>, version: BoltVersion) -> Result<Dict<'a>> {
    let n = u.int_in_range(0..=4)?;
    let mut d = Dict::new();
    for _ in 0..n {
        let key = one_of(u, &["x", "n", "name", "k"])?;
        d.push(key, value(u, version)?);
    }
    Ok(d)
}

fn auth<'a>(u: &mut Unstructured<'a>, d: &mut Dict<'a>) -> Result<()> {
    let scheme = one_of(u, &SCHEMES)?;
    d.push("scheme", scheme);
    if scheme != "none" {
        d.push("principal", one_of(u, &["neo4j", "nobody"])?);
        d.push("credentials", one_of(u, &["password", "wrong"])?);
    }
    if u.ratio(1, 8)? {
        d.push("realm", one_of(u, &["native", ""])?);
    }
    Ok(())
}

fn hello<'a>(u: &mut Unstructured<'a>, version: BoltVersion) -> Result<Hello<'a>> {
    let mut h = Hello::new(one_of(u, &["boltcodec-fuzz/0.1", "neo4j-python/6.0.0"])?);
    if version.has_bolt_agent() {
        let agent = Dict::new()
            .with("product", one_of(u, &["boltcodec-fuzz/0.1"])?)
            .with("language", one_of(u, &["Rust/1.95"])?);
        h.extra.push("bolt_agent", agent);
    }
    if version.has_routing_context() && u.ratio(1, 4)? {
        h.extra.push(
            "routing",
            Dict::new().with("address", one_of(u, &["localhost:7687"])?),
        );
    }
    if version.supports_utc_patch() && u.arbitrary()? {
        h.extra
            .push("patch_bolt", ValueRef::List(vec![ValueRef::String("utc")]));
    }
    if version.has_notification_filters() && u.ratio(1, 4)? {
        h.extra
            .push("notifications_minimum_severity", one_of(u, &SEVERITIES)?);
        if let Some(key) = version.disabled_notifications_key() {
            h.extra.push(key, str_list(u, &CATEGORIES)?);
        }
    }
    if version.hello_carries_auth() {
        auth(u, &mut h.extra)?;
    }
    perturb(u, &mut h.extra, version)?;
    Ok(h)
}

fn stream_extra<'a>(u: &mut Unstructured<'a>, version: BoltVersion) -> Result<Dict<'a>> {
    let n = if u.ratio(3, 4)? {
        *u.choose(&GOOD_PULL_NS)?
    } else {
        *u.choose(&PULL_NS)?
    };
    let mut d = Dict::new().with("n", ValueRef::Int(n));
    if version.has_qid() && u.ratio(1, 3)? {
        d.push("qid", ValueRef::Int(*u.choose(&[-1, -1, 0, 7])?));
    }
    perturb(u, &mut d, version)?;
    Ok(d)
}

/// A request of `kind` shaped for `version` (the caller checks that it exists there).
fn request_of<'a>(
    u: &mut Unstructured<'a>,
    kind: RequestKind,
    version: BoltVersion,
) -> Result<Request<'a>> {
    Ok(match kind {
        RequestKind::Init => {
            let mut token = Dict::new();
            auth(u, &mut token)?;
            Request::Init(Init::new(one_of(u, &["boltcodec-fuzz/0.1"])?, token))
        }
        RequestKind::Hello => Request::Hello(hello(u, version)?),
        RequestKind::Logon => {
            let mut l = Logon::new(Dict::new());
            auth(u, &mut l.auth)?;
            Request::Logon(l)
        }
        RequestKind::Logoff => Request::Logoff,
        RequestKind::Goodbye => Request::Goodbye,
        RequestKind::Reset => Request::Reset,
        RequestKind::AckFailure => Request::AckFailure,
        RequestKind::Run => {
            let mut run = Run::new(one_of(u, &QUERIES)?);
            run.parameters = Dict::new()
                .with("x", value(u, version)?)
                .with("n", ValueRef::Int(u.int_in_range(-2..=50)?));
            if u.ratio(1, 4)? {
                run.parameters.push(u.arbitrary()?, value(u, version)?);
            }
            if version.run_field_count() == 3 {
                run.extra = tx_extra(u, version)?;
            }
            Request::Run(run)
        }
        RequestKind::Begin => Request::Begin(Begin::from_extra(tx_extra(u, version)?)),
        RequestKind::Commit => Request::Commit,
        RequestKind::Rollback => Request::Rollback,
        RequestKind::Discard => Request::Discard(Discard::from_extra(stream_extra(u, version)?)),
        RequestKind::DiscardAll => Request::DiscardAll,
        RequestKind::Pull => Request::Pull(Pull::from_extra(stream_extra(u, version)?)),
        RequestKind::PullAll => Request::PullAll,
        RequestKind::Telemetry => Request::Telemetry(Telemetry {
            api: if u.ratio(7, 8)? {
                u.int_in_range(0..=3)?
            } else {
                u.arbitrary()?
            },
        }),
        RequestKind::Route => {
            let mut route =
                Route::new(Dict::new().with("address", one_of(u, &["localhost:7687"])?));
            for _ in 0..u.int_in_range(0..=2)? {
                route.bookmarks.push(one_of(u, &["FB:kcwQ", "FB:bad"])?);
            }
            if u.arbitrary()? {
                route.extra.push("db", one_of(u, &DBS)?);
            }
            if version.route_db_field() == Some(RouteDbField::Extra) && u.ratio(1, 8)? {
                route.extra.push("imp_user", one_of(u, &["neo4j"])?);
            }
            Request::Route(route)
        }
        // `RequestKind` is non-exhaustive: anything added later falls back to RESET.
        #[allow(unreachable_patterns)]
        _ => Request::Reset,
    })
}

/// A request that exists in `version` and encodes for it, with the fields real drivers
/// send (and, now and then, a surprise: see the module documentation).
///
/// # Errors
/// Only errors of the input.
pub fn request<'a>(u: &mut Unstructured<'a>, version: BoltVersion) -> Result<Request<'a>> {
    let kinds: Vec<RequestKind> = RequestKind::ALL
        .iter()
        .copied()
        .filter(|k| k.exists_in(version))
        .collect();
    let kind = *u.choose(&kinds)?;
    request_of(u, kind, version)
}

fn success<'a>(u: &mut Unstructured<'a>, version: BoltVersion) -> Result<Success<'a>> {
    let mut s = Success::new();
    match u.int_in_range(0..=4)? {
        0 => {
            s.metadata.push("fields", str_list(u, &["n", "x", "name"])?);
            s.metadata
                .push("t_first", ValueRef::Int(u.int_in_range(0..=1000)?));
            if version.has_qid() {
                s.metadata
                    .push("qid", ValueRef::Int(u.int_in_range(-1..=3)?));
            }
        }
        1 => {
            if u.arbitrary()? {
                s.metadata.push("has_more", ValueRef::Bool(true));
            } else {
                s.metadata.push("bookmark", one_of(u, &["FB:kcwQ"])?);
                s.metadata.push("type", one_of(u, &QUERY_TYPES)?);
                s.metadata
                    .push("t_last", ValueRef::Int(u.int_in_range(0..=1000)?));
                s.metadata.push("db", one_of(u, &DBS)?);
                if u.ratio(1, 3)? {
                    let stats = Dict::new()
                        .with("nodes-created", ValueRef::Int(u.int_in_range(0..=5)?))
                        .with("contains-updates", ValueRef::Bool(u.arbitrary()?));
                    s.metadata.push("stats", stats);
                }
            }
        }
        2 => {
            s.metadata
                .push("server", one_of(u, &["Neo4j/5.26.0", "Neo4j/2026.08.1"])?);
            s.metadata.push("connection_id", one_of(u, &["bolt-1"])?);
            if version.has_hints() {
                let hints = Dict::new().with("connection.recv_timeout_seconds", ValueRef::Int(120));
                s.metadata.push("hints", hints);
            }
        }
        3 => {
            let server = Dict::new()
                .with(
                    "addresses",
                    ValueRef::List(vec![ValueRef::String("localhost:7687")]),
                )
                .with("role", one_of(u, &["ROUTE", "READ", "WRITE"])?);
            let rt = Dict::new()
                .with("ttl", ValueRef::Int(300))
                .with("db", one_of(u, &DBS)?)
                .with("servers", ValueRef::List(vec![server.to_value_ref()]));
            s.metadata.push("rt", rt);
        }
        _ => {}
    }
    perturb(u, &mut s.metadata, version)?;
    Ok(s)
}

fn failure<'a>(u: &mut Unstructured<'a>, version: BoltVersion) -> Result<Failure<'a>> {
    let mut f = Failure::new(
        version,
        one_of(u, &CODES)?,
        one_of(u, &["Invalid input", ""])?,
    );
    if version.gql_failures() {
        f = f.with_gql_status(one_of(u, &GQL_STATUSES)?);
        f = f.with_description(one_of(
            u,
            &["error: syntax error or access rule violation"],
        )?);
        if u.ratio(1, 3)? {
            let cause = Dict::new()
                .with("gql_status", one_of(u, &GQL_STATUSES)?)
                .with("message", one_of(u, &["cause"])?)
                .with("description", one_of(u, &["a cause"])?);
            f = f.with_cause(cause);
        }
    }
    perturb(u, &mut f.metadata, version)?;
    Ok(f)
}

/// A response in `version`: SUCCESS with the metadata of one of the requests, a RECORD of
/// values of that version, IGNORED, or FAILURE with the version's error keys.
///
/// # Errors
/// Only errors of the input.
pub fn response<'a>(u: &mut Unstructured<'a>, version: BoltVersion) -> Result<Response<'a>> {
    Ok(match u.int_in_range(0..=5)? {
        0 | 1 => Response::Success(success(u, version)?),
        2 | 3 => {
            let n = u.int_in_range(0..=4)?;
            let mut fields = Vec::with_capacity(n);
            for _ in 0..n {
                fields.push(value(u, version)?);
            }
            Response::Record(Record::new(fields))
        }
        4 => Response::Ignored,
        _ => Response::Failure(failure(u, version)?),
    })
}

impl<'a> Arbitrary<'a> for BoltVersion {
    /// One of [`BoltVersion::SUPPORTED`] or [`BoltVersion::DECODE_ONLY`], now and then
    /// with the utc patch (which only 4.3 and 4.4 keep).
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let all: Vec<BoltVersion> = BoltVersion::SUPPORTED
            .iter()
            .chain(BoltVersion::DECODE_ONLY)
            .copied()
            .collect();
        Ok(u.choose(&all)?.with_utc_patch(u.arbitrary()?))
    }
}

impl<'a> Arbitrary<'a> for Dict<'a> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let version = BoltVersion::arbitrary(u)?;
        dict(u, version)
    }
}

impl<'a> Arbitrary<'a> for Request<'a> {
    /// A request shaped for a random version ([`request`] generates for a given one).
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let version = BoltVersion::arbitrary(u)?;
        request(u, version)
    }
}

impl<'a> Arbitrary<'a> for Response<'a> {
    /// A response shaped for a random version ([`response`] generates for a given one).
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let version = BoltVersion::arbitrary(u)?;
        response(u, version)
    }
}

/// `Arbitrary` for a message struct: the fields of its request kind in a random
/// version where that request exists.
macro_rules! arbitrary_request_part {
    ($($ty:ident => $kind:ident),* $(,)?) => {$(
        impl<'a> Arbitrary<'a> for $ty<'a> {
            fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
                let versions: Vec<BoltVersion> = BoltVersion::SUPPORTED
                    .iter()
                    .chain(BoltVersion::DECODE_ONLY)
                    .copied()
                    .filter(|v| RequestKind::$kind.exists_in(*v))
                    .collect();
                let version = *u.choose(&versions)?;
                match request_of(u, RequestKind::$kind, version)? {
                    Request::$kind(m) => Ok(m),
                    _ => Err(::arbitrary::Error::IncorrectFormat),
                }
            }
        }
    )*};
}
arbitrary_request_part!(
    Hello => Hello,
    Init => Init,
    Logon => Logon,
    Run => Run,
    Begin => Begin,
    Pull => Pull,
    Discard => Discard,
    Route => Route,
);

impl<'a> Arbitrary<'a> for Telemetry {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        match request_of(u, RequestKind::Telemetry, BoltVersion::V5_4)? {
            Request::Telemetry(t) => Ok(t),
            _ => Err(::arbitrary::Error::IncorrectFormat),
        }
    }
}

impl<'a> Arbitrary<'a> for Success<'a> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let version = BoltVersion::arbitrary(u)?;
        success(u, version)
    }
}

impl<'a> Arbitrary<'a> for Failure<'a> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let version = BoltVersion::arbitrary(u)?;
        failure(u, version)
    }
}

impl<'a> Arbitrary<'a> for Record<'a> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let version = BoltVersion::arbitrary(u)?;
        let n = u.int_in_range(0..=6)?;
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            fields.push(value(u, version)?);
        }
        Ok(Record::new(fields))
    }
}
