//! [`Response`]: every server message; [`Success`] and its metadata accessors; and
//! [`Summary`], the responses that end a request (docs/protocol.md §5.11, §5.12).

use core::fmt;

use packstream::{DecodeOptions, EncodeOptions, Sink, Token, ValueRef};

use super::dict::{get, get_str, str_list_of, Dict, Entries, IntoValueRef};
use super::error::{MessageEncodeError, MessageError};
use super::failure::Failure;
use super::record::Record;
use super::signature as sig;
use super::wire::{self, Fields, Writer};
use crate::version::BoltVersion;

/// The kind of a response, without its fields.
///
/// ```
/// use bolt::message::ResponseKind;
/// assert_eq!(ResponseKind::for_signature(0x71), Some(ResponseKind::Record));
/// assert_eq!(ResponseKind::Failure.name(), "FAILURE");
/// assert!(ResponseKind::Ignored.is_summary());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResponseKind {
    /// SUCCESS (`70`).
    Success,
    /// RECORD (`71`).
    Record,
    /// IGNORED (`7E`).
    Ignored,
    /// FAILURE (`7F`).
    Failure,
}

impl ResponseKind {
    /// The protocol name.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            ResponseKind::Success => "SUCCESS",
            ResponseKind::Record => "RECORD",
            ResponseKind::Ignored => "IGNORED",
            ResponseKind::Failure => "FAILURE",
        }
    }

    /// The signature byte.
    #[must_use]
    pub const fn signature(self) -> u8 {
        match self {
            ResponseKind::Success => sig::SUCCESS,
            ResponseKind::Record => sig::RECORD,
            ResponseKind::Ignored => sig::IGNORED,
            ResponseKind::Failure => sig::FAILURE,
        }
    }

    /// The response a signature means (the same in every version).
    #[must_use]
    pub const fn for_signature(signature: u8) -> Option<Self> {
        match signature {
            sig::SUCCESS => Some(ResponseKind::Success),
            sig::RECORD => Some(ResponseKind::Record),
            sig::IGNORED => Some(ResponseKind::Ignored),
            sig::FAILURE => Some(ResponseKind::Failure),
            _ => None,
        }
    }

    /// The field count (the same in every version): 0 for IGNORED, 1 otherwise.
    #[must_use]
    pub const fn field_count(self) -> u8 {
        match self {
            ResponseKind::Ignored => 0,
            _ => 1,
        }
    }

    /// Whether this response ends a request (SUCCESS, IGNORED, FAILURE); RECORD is the
    /// only detail message.
    #[must_use]
    pub const fn is_summary(self) -> bool {
        !matches!(self, ResponseKind::Record)
    }
}

impl fmt::Display for ResponseKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A server-to-client message.
///
/// ```
/// use bolt::message::Response;
/// use bolt::BoltVersion;
/// use packstream::ValueRef;
///
/// // docs/protocol.md §5.1 examples.
/// let v = BoltVersion::V5_8;
/// let Response::Success(s) = Response::decode(b"\xB1\x70\xA1\x86fields\x91\x81n", v)? else { panic!() };
/// assert_eq!(s.fields(), Some(vec!["n"]));
/// let Response::Record(r) = Response::decode(&[0xB1, 0x71, 0x91, 0x01], v)? else { panic!() };
/// assert_eq!(r.fields()?, [ValueRef::Int(1)]);
/// assert_eq!(Response::decode(&[0xB0, 0x7E], v)?, Response::Ignored);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Response<'a> {
    /// SUCCESS `metadata: Dict`.
    Success(Success<'a>),
    /// RECORD `data: List`.
    Record(Record<'a>),
    /// IGNORED.
    Ignored,
    /// FAILURE `metadata: Dict`.
    Failure(Failure<'a>),
}

impl<'a> Response<'a> {
    /// The kind of this response.
    #[must_use]
    pub const fn kind(&self) -> ResponseKind {
        match self {
            Response::Success(_) => ResponseKind::Success,
            Response::Record(_) => ResponseKind::Record,
            Response::Ignored => ResponseKind::Ignored,
            Response::Failure(_) => ResponseKind::Failure,
        }
    }

    /// The protocol name.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The signature byte.
    #[must_use]
    pub const fn signature(&self) -> u8 {
        self.kind().signature()
    }

    /// Decodes one response with default limits (PackStream v2 UUIDs accepted from 6.1).
    ///
    /// A RECORD is decoded **lazily**: only its headers are read here; its fields are
    /// decoded (and checked) when you ask for them (see [`Record`]).
    ///
    /// # Errors
    ///
    /// Any [`MessageError`].
    pub fn decode(bytes: &'a [u8], version: BoltVersion) -> Result<Self, MessageError> {
        decode(bytes, version, super::decode_options(version))
    }

    /// Encodes the response, appending to `out` (for servers and test peers).
    ///
    /// # Errors
    ///
    /// [`MessageEncodeError::PackStream`] for a value that cannot be written.
    pub fn encode<B: Sink>(
        &self,
        version: BoltVersion,
        out: &mut B,
    ) -> Result<(), MessageEncodeError> {
        encode(self, super::encode_options(version), out)
    }

    /// Encodes the response into a new `Vec`.
    ///
    /// # Errors
    ///
    /// As [`Response::encode`].
    pub fn to_vec(&self, version: BoltVersion) -> Result<Vec<u8>, MessageEncodeError> {
        let mut out = Vec::new();
        self.encode(version, &mut out)?;
        Ok(out)
    }

    /// Encodes the response and frames it into chunks. On error nothing is left in
    /// `out`.
    ///
    /// # Errors
    ///
    /// As [`Response::encode`].
    pub fn encode_framed<S: super::FrameSink>(
        &self,
        version: BoltVersion,
        chunker: &crate::chunk::Chunker,
        out: &mut S,
    ) -> Result<usize, MessageEncodeError> {
        super::framed(chunker, out, |o| self.encode(version, o))
    }

    /// This response as a [`Summary`], unless it is a RECORD.
    #[must_use]
    pub fn into_summary(self) -> Option<Summary<'a>> {
        match self {
            Response::Success(s) => Some(Summary::Success(s)),
            Response::Failure(f) => Some(Summary::Failure(f)),
            Response::Ignored => Some(Summary::Ignored),
            Response::Record(_) => None,
        }
    }
}

impl fmt::Display for Response<'_> {
    /// The notation of docs/protocol.md, e.g. `SUCCESS {"fields": ["n"]}`, `RECORD [1]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Response::Success(s) => write!(f, "SUCCESS {}", s.metadata),
            Response::Record(r) => write!(f, "{r}"),
            Response::Ignored => f.write_str("IGNORED"),
            Response::Failure(x) => write!(f, "FAILURE {}", x.metadata),
        }
    }
}

/// The response that ends a request: SUCCESS, FAILURE or IGNORED.
#[derive(Clone, Debug, PartialEq)]
pub enum Summary<'a> {
    /// SUCCESS.
    Success(Success<'a>),
    /// FAILURE.
    Failure(Failure<'a>),
    /// IGNORED.
    Ignored,
}

impl<'a> Summary<'a> {
    /// The kind.
    #[must_use]
    pub const fn kind(&self) -> ResponseKind {
        match self {
            Summary::Success(_) => ResponseKind::Success,
            Summary::Failure(_) => ResponseKind::Failure,
            Summary::Ignored => ResponseKind::Ignored,
        }
    }

    /// The SUCCESS, if it is one.
    #[must_use]
    pub fn success(&self) -> Option<&Success<'a>> {
        match self {
            Summary::Success(s) => Some(s),
            _ => None,
        }
    }

    /// The FAILURE, if it is one.
    #[must_use]
    pub fn failure(&self) -> Option<&Failure<'a>> {
        match self {
            Summary::Failure(f) => Some(f),
            _ => None,
        }
    }
}

impl<'a> From<Summary<'a>> for Response<'a> {
    fn from(s: Summary<'a>) -> Self {
        match s {
            Summary::Success(s) => Response::Success(s),
            Summary::Failure(f) => Response::Failure(f),
            Summary::Ignored => Response::Ignored,
        }
    }
}

/// Decodes a response.
pub(crate) fn decode(
    bytes: &[u8],
    version: BoltVersion,
    opts: DecodeOptions,
) -> Result<Response<'_>, MessageError> {
    let (mut dec, tag, len) = wire::open(bytes, opts)?;
    let kind = ResponseKind::for_signature(tag).ok_or(MessageError::UnknownSignature {
        offset: 0,
        direction: "response",
        signature: tag,
    })?;
    let expected = kind.field_count();
    if len != u32::from(expected) {
        return Err(MessageError::FieldCount {
            offset: 0,
            message: kind.name(),
            version,
            expected,
            found: len,
        });
    }
    Ok(match kind {
        ResponseKind::Record => {
            // Lazy: only the list header is read.
            let at = dec.position();
            match dec.next_token()? {
                Token::List(n) => Response::Record(Record::raw(bytes, at, n, opts)),
                other => {
                    return Err(MessageError::FieldType {
                        offset: at,
                        message: "RECORD",
                        field: "data",
                        expected: "a list",
                        found: wire::token_type(&other),
                    })
                }
            }
        }
        ResponseKind::Ignored => {
            wire::finish(&dec, "IGNORED")?;
            Response::Ignored
        }
        ResponseKind::Success => {
            let mut f = Fields::new(dec, "SUCCESS");
            let metadata = f.dict("metadata")?;
            f.finish()?;
            Response::Success(Success { metadata })
        }
        ResponseKind::Failure => {
            let mut f = Fields::new(dec, "FAILURE");
            let metadata = f.dict("metadata")?;
            f.finish()?;
            Response::Failure(Failure { metadata })
        }
    })
}

/// Encodes a response.
pub(crate) fn encode<B: Sink>(
    response: &Response<'_>,
    opts: EncodeOptions,
    out: &mut B,
) -> Result<(), MessageEncodeError> {
    let kind = response.kind();
    let mut w = Writer::new(out, opts);
    w.header(kind.signature(), usize::from(kind.field_count()))?;
    match response {
        Response::Success(s) => w.dict(&s.metadata),
        Response::Failure(f) => w.dict(&f.metadata),
        Response::Ignored => Ok(()),
        Response::Record(r) => r.write_data(&mut w),
    }
}

/// SUCCESS (`70`): `metadata: Dict` (docs/protocol.md §5.3–§5.12).
///
/// The keys depend on the request it answers; the accessors below read the well-known
/// ones, and [`Success::metadata`] keeps every entry.
///
/// ```
/// use bolt::message::{Response, Success};
/// use bolt::BoltVersion;
///
/// // The final SUCCESS of a PULL, as a 5.26 server sends it.
/// let bytes = Response::Success(
///     Success::new()
///         .with("bookmark", "FB:kcwQ")
///         .with("type", "r")
///         .with("t_last", 1)
///         .with("db", "neo4j"),
/// ).to_vec(BoltVersion::V5_8)?;
/// let Response::Success(s) = Response::decode(&bytes, BoltVersion::V5_8)? else { panic!() };
/// assert_eq!(s.bookmark(), Some("FB:kcwQ"));
/// assert_eq!(s.query_type(), Some("r"));
/// assert_eq!((s.t_last(), s.db(), s.has_more()), (Some(1), Some("neo4j"), false));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Success<'a> {
    /// The metadata, every entry in wire order.
    pub metadata: Dict<'a>,
}

impl<'a> Success<'a> {
    /// A SUCCESS with empty metadata.
    #[must_use]
    pub fn new() -> Self {
        Success::default()
    }

    /// A SUCCESS with this metadata.
    #[must_use]
    pub fn from_metadata(metadata: Dict<'a>) -> Self {
        Success { metadata }
    }

    /// Sets a metadata entry (builder form).
    #[must_use]
    pub fn with(mut self, key: &'a str, value: impl IntoValueRef<'a>) -> Self {
        self.metadata.insert(key, value);
        self
    }

    // --- RUN ---------------------------------------------------------------------------

    /// `fields`: the column names (RUN).
    #[must_use]
    pub fn fields(&self) -> Option<Vec<&'a str>> {
        self.metadata.get_str_list("fields")
    }

    /// `t_first` (v3+), or `result_available_after` (Bolt 1–2): milliseconds until the
    /// first record was available.
    #[must_use]
    pub fn t_first(&self) -> Option<i64> {
        self.metadata
            .get_int("t_first")
            .or_else(|| self.metadata.get_int("result_available_after"))
    }

    /// `qid` (v4.0+, RUN inside an explicit transaction).
    #[must_use]
    pub fn qid(&self) -> Option<i64> {
        self.metadata.get_int("qid")
    }

    /// `db`: the database (final PULL/DISCARD SUCCESS, v4.0+) or the resolved home
    /// database (RUN/BEGIN SUCCESS, v5.8+).
    #[must_use]
    pub fn db(&self) -> Option<&'a str> {
        self.metadata.get_str("db")
    }

    // --- PULL / DISCARD ----------------------------------------------------------------

    /// `has_more` (v4.0+): more records remain. Absent means `false`.
    #[must_use]
    pub fn has_more(&self) -> bool {
        self.metadata.get_bool("has_more").unwrap_or(false)
    }

    /// `t_last` (v3+), or `result_consumed_after` (Bolt 1–2).
    #[must_use]
    pub fn t_last(&self) -> Option<i64> {
        self.metadata
            .get_int("t_last")
            .or_else(|| self.metadata.get_int("result_consumed_after"))
    }

    /// `bookmark` (final auto-commit PULL/DISCARD, COMMIT).
    #[must_use]
    pub fn bookmark(&self) -> Option<&'a str> {
        self.metadata.get_str("bookmark")
    }

    /// `type`: the query type `"r"`, `"w"`, `"rw"` or `"s"`.
    #[must_use]
    pub fn query_type(&self) -> Option<&'a str> {
        self.metadata.get_str("type")
    }

    /// `stats`, the update counters (missing counters read as 0).
    #[must_use]
    pub fn stats(&self) -> Option<QueryStats> {
        self.metadata.get_map("stats").map(QueryStats::from_entries)
    }

    /// `plan` (EXPLAIN).
    #[must_use]
    pub fn plan(&self) -> Option<&ValueRef<'a>> {
        self.metadata.get("plan")
    }

    /// `profile` (PROFILE).
    #[must_use]
    pub fn profile(&self) -> Option<&ValueRef<'a>> {
        self.metadata.get("profile")
    }

    /// `notifications` (v3–5.4): a list of notification dicts.
    #[must_use]
    pub fn notifications(&self) -> Option<&[ValueRef<'a>]> {
        self.metadata.get_list("notifications")
    }

    /// `statuses` (v5.6+): a list of GQL status dicts.
    #[must_use]
    pub fn statuses(&self) -> Option<&[ValueRef<'a>]> {
        self.metadata.get_list("statuses")
    }

    // --- HELLO / LOGON -----------------------------------------------------------------

    /// `server`, the agent string, e.g. "Neo4j/5.26.0".
    #[must_use]
    pub fn server(&self) -> Option<&'a str> {
        self.metadata.get_str("server")
    }

    /// `connection_id` (v3+), e.g. "bolt-61".
    #[must_use]
    pub fn connection_id(&self) -> Option<&'a str> {
        self.metadata.get_str("connection_id")
    }

    /// `hints` (v4.3+), the connection hints dict.
    #[must_use]
    pub fn hints(&self) -> Option<&Entries<'a>> {
        self.metadata.get_map("hints")
    }

    /// The `connection.recv_timeout_seconds` hint.
    #[must_use]
    pub fn recv_timeout_seconds(&self) -> Option<i64> {
        get(self.hints()?, "connection.recv_timeout_seconds").and_then(ValueRef::as_int)
    }

    /// The `telemetry.enabled` hint (v5.4+); absent means `false`.
    #[must_use]
    pub fn telemetry_enabled(&self) -> bool {
        self.hint_flag("telemetry.enabled")
    }

    /// The `ssr.enabled` hint (v5.8+); absent means `false`.
    #[must_use]
    pub fn ssr_enabled(&self) -> bool {
        self.hint_flag("ssr.enabled")
    }

    fn hint_flag(&self, key: &str) -> bool {
        self.hints()
            .and_then(|h| get(h, key))
            .and_then(ValueRef::as_bool)
            .unwrap_or(false)
    }

    /// `patch_bolt` (4.3–4.4): the patches the server accepted.
    #[must_use]
    pub fn patch_bolt(&self) -> Option<Vec<&'a str>> {
        self.metadata.get_str_list("patch_bolt")
    }

    /// Whether `patch_bolt` contains `"utc"`: pass it to
    /// [`BoltVersion::with_utc_patch`].
    #[must_use]
    pub fn utc_patch_accepted(&self) -> bool {
        self.patch_bolt().is_some_and(|p| p.contains(&"utc"))
    }

    /// `protocol_version` (v5.7+, manifest handshakes), e.g. "5.8".
    #[must_use]
    pub fn protocol_version(&self) -> Option<&'a str> {
        self.metadata.get_str("protocol_version")
    }

    /// `credentials_expired` (LOGON); absent means `false`.
    #[must_use]
    pub fn credentials_expired(&self) -> bool {
        self.metadata
            .get_bool("credentials_expired")
            .unwrap_or(false)
    }

    /// `advertised_address` (LOGON, v5.8+).
    #[must_use]
    pub fn advertised_address(&self) -> Option<&'a str> {
        self.metadata.get_str("advertised_address")
    }

    // --- ROUTE -------------------------------------------------------------------------

    /// `rt`, the routing table of a ROUTE reply; `None` if absent or malformed.
    #[must_use]
    pub fn routing_table(&self) -> Option<RoutingTable<'a>> {
        RoutingTable::from_entries(self.metadata.get_map("rt")?)
    }
}

/// The update counters of a SUCCESS `stats` dict (docs/protocol.md §5.12). Servers leave
/// zero counters out, so a missing counter is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct QueryStats {
    /// `nodes-created`.
    pub nodes_created: i64,
    /// `nodes-deleted`.
    pub nodes_deleted: i64,
    /// `relationships-created`.
    pub relationships_created: i64,
    /// `relationships-deleted`.
    pub relationships_deleted: i64,
    /// `properties-set`.
    pub properties_set: i64,
    /// `labels-added`.
    pub labels_added: i64,
    /// `labels-removed`.
    pub labels_removed: i64,
    /// `indexes-added`.
    pub indexes_added: i64,
    /// `indexes-removed`.
    pub indexes_removed: i64,
    /// `constraints-added`.
    pub constraints_added: i64,
    /// `constraints-removed`.
    pub constraints_removed: i64,
    /// `system-updates`.
    pub system_updates: i64,
    /// `contains-updates`, if the server sent it.
    pub contains_updates: Option<bool>,
    /// `contains-system-updates`, if the server sent it.
    pub contains_system_updates: Option<bool>,
}

impl QueryStats {
    /// Reads the counters of a `stats` dict; entries of other types read as absent.
    #[must_use]
    pub fn from_entries(entries: &Entries<'_>) -> Self {
        let n = |k: &str| get(entries, k).and_then(ValueRef::as_int).unwrap_or(0);
        let b = |k: &str| get(entries, k).and_then(ValueRef::as_bool);
        QueryStats {
            nodes_created: n("nodes-created"),
            nodes_deleted: n("nodes-deleted"),
            relationships_created: n("relationships-created"),
            relationships_deleted: n("relationships-deleted"),
            properties_set: n("properties-set"),
            labels_added: n("labels-added"),
            labels_removed: n("labels-removed"),
            indexes_added: n("indexes-added"),
            indexes_removed: n("indexes-removed"),
            constraints_added: n("constraints-added"),
            constraints_removed: n("constraints-removed"),
            system_updates: n("system-updates"),
            contains_updates: b("contains-updates"),
            contains_system_updates: b("contains-system-updates"),
        }
    }
}

/// A routing table, the `rt` entry of a ROUTE SUCCESS (docs/protocol.md §5.9).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoutingTable<'a> {
    /// `ttl` in seconds.
    pub ttl: i64,
    /// `db` (v4.4+).
    pub db: Option<&'a str>,
    /// The addresses with role `ROUTE`.
    pub routers: Vec<&'a str>,
    /// The addresses with role `READ`.
    pub readers: Vec<&'a str>,
    /// The addresses with role `WRITE`.
    pub writers: Vec<&'a str>,
}

impl<'a> RoutingTable<'a> {
    /// Reads an `rt` dict; `None` unless `ttl` is an integer and `servers` a list of
    /// dicts with string `role`s and string-list `addresses`. Unknown roles are skipped.
    #[must_use]
    pub fn from_entries(rt: &Entries<'a>) -> Option<Self> {
        let mut table = RoutingTable {
            ttl: get(rt, "ttl")?.as_int()?,
            db: get_str(rt, "db"),
            ..RoutingTable::default()
        };
        for server in get(rt, "servers")?.as_list()? {
            let server = server.as_map()?;
            let addresses = str_list_of(get(server, "addresses")?)?;
            match get_str(server, "role")? {
                "ROUTE" => table.routers.extend(addresses),
                "READ" => table.readers.extend(addresses),
                "WRITE" => table.writers.extend(addresses),
                _ => {}
            }
        }
        Some(table)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::hex;
    use super::*;

    const V: BoltVersion = BoltVersion::V5_8;

    #[test]
    fn reference_examples() {
        let cases: [(&str, Response<'static>); 4] = [
            ("B1 70 A0", Response::Success(Success::new())),
            (
                "B1 70 A1 86 66 69 65 6C 64 73 91 81 6E",
                Response::Success(Success::new().with("fields", ["n"])),
            ),
            (
                "B1 71 91 01",
                Response::Record(Record::new(vec![ValueRef::Int(1)])),
            ),
            ("B0 7E", Response::Ignored),
        ];
        for version in BoltVersion::SUPPORTED
            .iter()
            .chain(BoltVersion::DECODE_ONLY)
        {
            for (h, expected) in &cases {
                let bytes = hex(h);
                assert_eq!(
                    &Response::decode(&bytes, *version).unwrap(),
                    expected,
                    "{h}"
                );
                assert_eq!(expected.to_vec(*version).unwrap(), bytes, "{h}");
            }
        }
        let bytes = hex(cases[1].0);
        let Response::Success(s) = Response::decode(&bytes, V).unwrap() else {
            panic!()
        };
        assert_eq!(s.fields(), Some(vec!["n"]));
    }

    #[test]
    fn shape_errors() {
        assert_eq!(
            Response::decode(&[0xB1, 0x7E, 0xA0], V),
            Err(MessageError::FieldCount {
                offset: 0,
                message: "IGNORED",
                version: V,
                expected: 0,
                found: 1
            })
        );
        assert!(matches!(
            Response::decode(&[0xB0, 0x70], V),
            Err(MessageError::FieldCount {
                message: "SUCCESS",
                expected: 1,
                found: 0,
                ..
            })
        ));
        assert!(matches!(
            Response::decode(&[0xB2, 0x71, 0x90, 0x90], V),
            Err(MessageError::FieldCount {
                message: "RECORD",
                found: 2,
                ..
            })
        ));
        assert_eq!(
            Response::decode(&[0xB1, 0x70, 0x90], V),
            Err(MessageError::FieldType {
                offset: 2,
                message: "SUCCESS",
                field: "metadata",
                expected: "a map",
                found: "list"
            })
        );
        assert!(matches!(
            Response::decode(&[0xB1, 0x7F, 0xC0], V),
            Err(MessageError::FieldType {
                message: "FAILURE",
                found: "null",
                ..
            })
        ));
        assert_eq!(
            Response::decode(&[0xB1, 0x71, 0xA0], V),
            Err(MessageError::FieldType {
                offset: 2,
                message: "RECORD",
                field: "data",
                expected: "a list",
                found: "map"
            })
        );
        for sig in [0x01, 0x10, 0x3F, 0x54, 0x72] {
            assert_eq!(
                Response::decode(&[0xB1, sig, 0xA0], V),
                Err(MessageError::UnknownSignature {
                    offset: 0,
                    direction: "response",
                    signature: sig
                })
            );
        }
        assert!(matches!(
            Response::decode(&[0xB1, 0x70, 0xA0, 0xC0], V),
            Err(MessageError::TrailingBytes {
                offset: 3,
                count: 1,
                message: "SUCCESS"
            })
        ));
        assert!(matches!(
            Response::decode(&[0xB0, 0x7E, 0xC0], V),
            Err(MessageError::TrailingBytes {
                offset: 2,
                message: "IGNORED",
                ..
            })
        ));
        assert!(matches!(
            Response::decode(&[0x01], V),
            Err(MessageError::NotAStructure {
                found: "integer",
                ..
            })
        ));
    }

    #[test]
    fn hello_and_logon_metadata() {
        let s = Success::new()
            .with("server", "Neo4j/5.26.30")
            .with("connection_id", "bolt-7")
            .with(
                "hints",
                Dict::new()
                    .with("connection.recv_timeout_seconds", 120)
                    .with("telemetry.enabled", true),
            )
            .with("patch_bolt", ["utc"])
            .with("protocol_version", "5.8")
            .with("credentials_expired", true)
            .with("advertised_address", "host:7687");
        assert_eq!(s.server(), Some("Neo4j/5.26.30"));
        assert_eq!(s.connection_id(), Some("bolt-7"));
        assert_eq!(s.recv_timeout_seconds(), Some(120));
        assert!(s.telemetry_enabled() && !s.ssr_enabled());
        assert!(s.utc_patch_accepted());
        assert_eq!(
            s.protocol_version()
                .and_then(|p| p.parse::<BoltVersion>().ok()),
            Some(BoltVersion::V5_8)
        );
        assert!(s.credentials_expired());
        assert_eq!(s.advertised_address(), Some("host:7687"));
        let empty = Success::new();
        assert!(!empty.utc_patch_accepted() && !empty.credentials_expired());
        assert_eq!(empty.recv_timeout_seconds(), None);
    }

    #[test]
    fn query_metadata() {
        let s = Success::new()
            .with("fields", ["a", "b"])
            .with("t_first", 3)
            .with("qid", 1)
            .with("has_more", true);
        assert_eq!(s.fields(), Some(vec!["a", "b"]));
        assert_eq!(
            (s.t_first(), s.qid(), s.has_more()),
            (Some(3), Some(1), true)
        );
        // Bolt 1/2 names
        let old = Success::new()
            .with("result_available_after", 4)
            .with("result_consumed_after", 5);
        assert_eq!((old.t_first(), old.t_last()), (Some(4), Some(5)));
        // a field list with a non-string is not a field list
        assert_eq!(Success::new().with("fields", vec![1]).fields(), None);
        let plan = Dict::new().with("operatorType", "ProduceResults");
        let s = Success::new()
            .with("plan", plan.clone())
            .with("profile", plan)
            .with("notifications", vec![Dict::new().with("code", "x")])
            .with("statuses", vec![Dict::new().with("gql_status", "00000")])
            .with(
                "stats",
                Dict::new()
                    .with("relationships-created", 2)
                    .with("system-updates", 1)
                    .with("contains-system-updates", true),
            );
        assert!(s.plan().is_some() && s.profile().is_some());
        assert_eq!(s.notifications().map(<[_]>::len), Some(1));
        assert_eq!(s.statuses().map(<[_]>::len), Some(1));
        let stats = s.stats().unwrap();
        assert_eq!(stats.relationships_created, 2);
        assert_eq!(stats.system_updates, 1);
        assert_eq!(stats.nodes_created, 0);
        assert_eq!(stats.contains_updates, None);
        assert_eq!(stats.contains_system_updates, Some(true));
    }

    #[test]
    fn routing_table() {
        let server = |role, addrs: Vec<&'static str>| {
            Dict::new().with("addresses", addrs).with("role", role)
        };
        let rt = Dict::new().with("ttl", 300).with("db", "neo4j").with(
            "servers",
            vec![
                server("ROUTE", vec!["a:7687", "b:7687"]),
                server("READ", vec!["b:7687"]),
                server("WRITE", vec!["a:7687"]),
                server("OTHER", vec!["c:1"]),
            ],
        );
        let s = Success::new().with("rt", rt);
        let bytes = Response::Success(s).to_vec(V).unwrap();
        let Response::Success(s) = Response::decode(&bytes, V).unwrap() else {
            panic!()
        };
        let table = s.routing_table().unwrap();
        assert_eq!(table.ttl, 300);
        assert_eq!(table.db, Some("neo4j"));
        assert_eq!(table.routers, ["a:7687", "b:7687"]);
        assert_eq!(table.readers, ["b:7687"]);
        assert_eq!(table.writers, ["a:7687"]);
        let bad = Success::new().with("rt", Dict::new().with("ttl", "x"));
        assert_eq!(bad.routing_table(), None);
    }

    #[test]
    fn summaries() {
        let f = Response::Failure(Failure::new(V, "c", "m"));
        let summary = f.clone().into_summary().unwrap();
        assert_eq!(summary.kind(), ResponseKind::Failure);
        assert!(summary.failure().is_some() && summary.success().is_none());
        assert_eq!(Response::from(summary), f);
        assert!(Response::Record(Record::new(vec![]))
            .into_summary()
            .is_none());
        assert_eq!(
            f.to_string(),
            r#"FAILURE {"neo4j_code": "c", "message": "m"}"#
        );
        assert_eq!(Response::Ignored.to_string(), "IGNORED");
        assert!(ResponseKind::Ignored.is_summary() && !ResponseKind::Record.is_summary());
        for kind in [
            ResponseKind::Success,
            ResponseKind::Record,
            ResponseKind::Ignored,
            ResponseKind::Failure,
        ] {
            assert_eq!(ResponseKind::for_signature(kind.signature()), Some(kind));
            assert_eq!(kind.to_string(), kind.name());
        }
    }
}
