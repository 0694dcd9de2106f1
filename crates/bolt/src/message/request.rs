//! [`Request`]: every client message, and [`RequestKind`], the per-version table of
//! which request a signature means and how many fields it has.

use core::fmt;

use packstream::{DecodeOptions, EncodeOptions, Sink};

use super::dict::{Dict, SECRET_KEYS};
use super::error::{MessageEncodeError, MessageError};
use super::pull::{Discard, Pull};
use super::query::{Begin, Run, Telemetry};
use super::route::Route;
use super::setup::{Hello, Init, Logon};
use super::signature as sig;
use super::wire::{self, Fields, Writer};
use crate::version::{BoltVersion, RouteDbField};

/// The kind of a request, without its fields: the per-version rules of
/// docs/protocol.md §5.1 in one place.
///
/// ```
/// use bolt::message::RequestKind;
/// use bolt::BoltVersion;
///
/// // The same signature means different requests in different versions.
/// assert_eq!(RequestKind::for_signature(0x3F, BoltVersion::V3_0), Some(RequestKind::PullAll));
/// assert_eq!(RequestKind::for_signature(0x3F, BoltVersion::V4_4), Some(RequestKind::Pull));
/// assert_eq!(RequestKind::Run.field_count(BoltVersion::V5_8), Some(3));
/// assert_eq!(RequestKind::Logon.field_count(BoltVersion::V5_0), None); // not in 5.0
/// assert_eq!(RequestKind::Route.name(), "ROUTE");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RequestKind {
    /// INIT (`01`, Bolt 1–2).
    Init,
    /// HELLO (`01`, v3+).
    Hello,
    /// LOGON (`6A`, v5.1+).
    Logon,
    /// LOGOFF (`6B`, v5.1+).
    Logoff,
    /// GOODBYE (`02`, v3+).
    Goodbye,
    /// RESET (`0F`).
    Reset,
    /// ACK_FAILURE (`0E`, Bolt 1–2).
    AckFailure,
    /// RUN (`10`).
    Run,
    /// BEGIN (`11`, v3+).
    Begin,
    /// COMMIT (`12`, v3+).
    Commit,
    /// ROLLBACK (`13`, v3+).
    Rollback,
    /// DISCARD (`2F`, v4.0+).
    Discard,
    /// DISCARD_ALL (`2F`, Bolt 1–3).
    DiscardAll,
    /// PULL (`3F`, v4.0+).
    Pull,
    /// PULL_ALL (`3F`, Bolt 1–3).
    PullAll,
    /// TELEMETRY (`54`, v5.4+).
    Telemetry,
    /// ROUTE (`66`, v4.3+).
    Route,
}

impl RequestKind {
    /// Every request kind.
    pub const ALL: &'static [RequestKind] = &[
        RequestKind::Init,
        RequestKind::Hello,
        RequestKind::Logon,
        RequestKind::Logoff,
        RequestKind::Goodbye,
        RequestKind::Reset,
        RequestKind::AckFailure,
        RequestKind::Run,
        RequestKind::Begin,
        RequestKind::Commit,
        RequestKind::Rollback,
        RequestKind::Discard,
        RequestKind::DiscardAll,
        RequestKind::Pull,
        RequestKind::PullAll,
        RequestKind::Telemetry,
        RequestKind::Route,
    ];

    /// The protocol name, as the docs and captures write it (`"PULL_ALL"`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RequestKind::Init => "INIT",
            RequestKind::Hello => "HELLO",
            RequestKind::Logon => "LOGON",
            RequestKind::Logoff => "LOGOFF",
            RequestKind::Goodbye => "GOODBYE",
            RequestKind::Reset => "RESET",
            RequestKind::AckFailure => "ACK_FAILURE",
            RequestKind::Run => "RUN",
            RequestKind::Begin => "BEGIN",
            RequestKind::Commit => "COMMIT",
            RequestKind::Rollback => "ROLLBACK",
            RequestKind::Discard => "DISCARD",
            RequestKind::DiscardAll => "DISCARD_ALL",
            RequestKind::Pull => "PULL",
            RequestKind::PullAll => "PULL_ALL",
            RequestKind::Telemetry => "TELEMETRY",
            RequestKind::Route => "ROUTE",
        }
    }

    /// The signature byte.
    #[must_use]
    pub const fn signature(self) -> u8 {
        match self {
            RequestKind::Init => sig::INIT,
            RequestKind::Hello => sig::HELLO,
            RequestKind::Logon => sig::LOGON,
            RequestKind::Logoff => sig::LOGOFF,
            RequestKind::Goodbye => sig::GOODBYE,
            RequestKind::Reset => sig::RESET,
            RequestKind::AckFailure => sig::ACK_FAILURE,
            RequestKind::Run => sig::RUN,
            RequestKind::Begin => sig::BEGIN,
            RequestKind::Commit => sig::COMMIT,
            RequestKind::Rollback => sig::ROLLBACK,
            RequestKind::Discard | RequestKind::DiscardAll => sig::DISCARD,
            RequestKind::Pull | RequestKind::PullAll => sig::PULL,
            RequestKind::Telemetry => sig::TELEMETRY,
            RequestKind::Route => sig::ROUTE,
        }
    }

    /// The request a signature means in `version`, if any. The message may still not
    /// exist in that version (see [`RequestKind::exists_in`]): `6A` is always LOGON.
    #[must_use]
    pub const fn for_signature(signature: u8, version: BoltVersion) -> Option<Self> {
        Some(match signature {
            sig::HELLO if version.uses_hello() => RequestKind::Hello,
            sig::INIT => RequestKind::Init,
            sig::GOODBYE => RequestKind::Goodbye,
            sig::ACK_FAILURE => RequestKind::AckFailure,
            sig::RESET => RequestKind::Reset,
            sig::RUN => RequestKind::Run,
            sig::BEGIN => RequestKind::Begin,
            sig::COMMIT => RequestKind::Commit,
            sig::ROLLBACK => RequestKind::Rollback,
            sig::DISCARD if version.pull_discard_has_extra() => RequestKind::Discard,
            sig::DISCARD => RequestKind::DiscardAll,
            sig::PULL if version.pull_discard_has_extra() => RequestKind::Pull,
            sig::PULL => RequestKind::PullAll,
            sig::TELEMETRY => RequestKind::Telemetry,
            sig::ROUTE => RequestKind::Route,
            sig::LOGON => RequestKind::Logon,
            sig::LOGOFF => RequestKind::Logoff,
            _ => return None,
        })
    }

    /// Whether the request exists in `version`.
    #[must_use]
    pub const fn exists_in(self, version: BoltVersion) -> bool {
        match self {
            RequestKind::Init => !version.uses_hello(),
            RequestKind::Hello => version.uses_hello(),
            RequestKind::Logon | RequestKind::Logoff => version.has_logon(),
            RequestKind::Goodbye => version.has_goodbye(),
            RequestKind::AckFailure => version.has_ack_failure(),
            RequestKind::Reset | RequestKind::Run => true,
            RequestKind::Begin | RequestKind::Commit | RequestKind::Rollback => {
                version.has_explicit_transactions()
            }
            RequestKind::Discard | RequestKind::Pull => version.pull_discard_has_extra(),
            RequestKind::DiscardAll | RequestKind::PullAll => !version.pull_discard_has_extra(),
            RequestKind::Telemetry => version.has_telemetry(),
            RequestKind::Route => version.has_route_message(),
        }
    }

    /// The field count in `version`, or `None` if the request does not exist there.
    #[must_use]
    pub const fn field_count(self, version: BoltVersion) -> Option<u8> {
        if !self.exists_in(version) {
            return None;
        }
        Some(match self {
            RequestKind::Init => 2,
            RequestKind::Run => version.run_field_count(),
            RequestKind::Discard | RequestKind::Pull => version.pull_discard_field_count(),
            RequestKind::Route => 3,
            RequestKind::Hello
            | RequestKind::Logon
            | RequestKind::Begin
            | RequestKind::Telemetry => 1,
            RequestKind::Logoff
            | RequestKind::Goodbye
            | RequestKind::Reset
            | RequestKind::AckFailure
            | RequestKind::Commit
            | RequestKind::Rollback
            | RequestKind::DiscardAll
            | RequestKind::PullAll => 0,
        })
    }
}

impl fmt::Display for RequestKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A client-to-server message, with its fields borrowed from the message bytes (when
/// decoded) or from the caller's data (when built).
///
/// Decode with [`Request::decode`] (or a [`MessageCodec`](super::MessageCodec) for
/// custom limits); encode with [`Request::encode`], [`Request::to_vec`] or
/// [`Request::encode_framed`]. The negotiated version decides the field layout on both
/// sides; a request that does not exist in that version is an error.
///
/// ```
/// use bolt::message::{Pull, Request, Run};
/// use bolt::BoltVersion;
///
/// let v = BoltVersion::V5_8;
/// let mut out = Vec::new();
/// Request::Run(Run::new("RETURN 1")).encode(v, &mut out)?;
/// let run_len = out.len();
/// Request::Pull(Pull::new(1000)).encode(v, &mut out)?;
///
/// let run = Request::decode(&out[..run_len], v)?;
/// assert_eq!(run.name(), "RUN");
/// let pull = Request::decode(&out[run_len..], v)?;
/// assert_eq!(pull, Request::Pull(Pull::new(1000)));
/// assert_eq!(pull.to_string(), r#"PULL {"n": 1000}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Request<'a> {
    /// INIT (Bolt 1–2).
    Init(Init<'a>),
    /// HELLO (v3+).
    Hello(Hello<'a>),
    /// LOGON (v5.1+).
    Logon(Logon<'a>),
    /// LOGOFF (v5.1+).
    Logoff,
    /// GOODBYE (v3+).
    Goodbye,
    /// RESET.
    Reset,
    /// ACK_FAILURE (Bolt 1–2).
    AckFailure,
    /// RUN.
    Run(Run<'a>),
    /// BEGIN (v3+).
    Begin(Begin<'a>),
    /// COMMIT (v3+).
    Commit,
    /// ROLLBACK (v3+).
    Rollback,
    /// DISCARD (v4.0+).
    Discard(Discard<'a>),
    /// DISCARD_ALL (Bolt 1–3).
    DiscardAll,
    /// PULL (v4.0+).
    Pull(Pull<'a>),
    /// PULL_ALL (Bolt 1–3).
    PullAll,
    /// TELEMETRY (v5.4+).
    Telemetry(Telemetry),
    /// ROUTE (v4.3+).
    Route(Route<'a>),
}

impl<'a> Request<'a> {
    /// The kind of this request.
    #[must_use]
    pub const fn kind(&self) -> RequestKind {
        match self {
            Request::Init(_) => RequestKind::Init,
            Request::Hello(_) => RequestKind::Hello,
            Request::Logon(_) => RequestKind::Logon,
            Request::Logoff => RequestKind::Logoff,
            Request::Goodbye => RequestKind::Goodbye,
            Request::Reset => RequestKind::Reset,
            Request::AckFailure => RequestKind::AckFailure,
            Request::Run(_) => RequestKind::Run,
            Request::Begin(_) => RequestKind::Begin,
            Request::Commit => RequestKind::Commit,
            Request::Rollback => RequestKind::Rollback,
            Request::Discard(_) => RequestKind::Discard,
            Request::DiscardAll => RequestKind::DiscardAll,
            Request::Pull(_) => RequestKind::Pull,
            Request::PullAll => RequestKind::PullAll,
            Request::Telemetry(_) => RequestKind::Telemetry,
            Request::Route(_) => RequestKind::Route,
        }
    }

    /// The protocol name (`"RUN"`, `"PULL_ALL"`, …).
    #[must_use]
    pub const fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The signature byte.
    #[must_use]
    pub const fn signature(&self) -> u8 {
        self.kind().signature()
    }

    /// Decodes one request (the de-chunked bytes of one message) as `version` defines
    /// it, with default limits (PackStream v2 UUIDs accepted from 6.1).
    ///
    /// # Errors
    ///
    /// Any [`MessageError`]: invalid PackStream, not a structure, an unknown signature,
    /// a request that does not exist in `version`, the wrong field count or field type,
    /// trailing bytes.
    pub fn decode(bytes: &'a [u8], version: BoltVersion) -> Result<Self, MessageError> {
        decode(bytes, version, super::decode_options(version))
    }

    /// Encodes the request as `version` defines it, appending to `out`.
    ///
    /// On error, `out` may hold part of the message.
    ///
    /// # Errors
    ///
    /// [`MessageEncodeError::NotInVersion`] and [`MessageEncodeError::Unrepresentable`]
    /// before anything is written; [`MessageEncodeError::PackStream`] for a value that
    /// cannot be written (for example a UUID before 6.1).
    pub fn encode<B: Sink>(
        &self,
        version: BoltVersion,
        out: &mut B,
    ) -> Result<(), MessageEncodeError> {
        encode(self, version, super::encode_options(version), out)
    }

    /// Encodes the request into a new `Vec`.
    ///
    /// # Errors
    ///
    /// As [`Request::encode`].
    pub fn to_vec(&self, version: BoltVersion) -> Result<Vec<u8>, MessageEncodeError> {
        let mut out = Vec::new();
        self.encode(version, &mut out)?;
        Ok(out)
    }

    /// Encodes the request and frames it into chunks in one go (no intermediate copy).
    /// On error nothing is left in `out`.
    ///
    /// ```
    /// use bolt::chunk::Chunker;
    /// use bolt::message::Request;
    /// use bolt::BoltVersion;
    ///
    /// let mut wire = Vec::new();
    /// Request::Goodbye.encode_framed(BoltVersion::V5_8, &Chunker::default(), &mut wire)?;
    /// assert_eq!(wire, [0x00, 0x02, 0xB0, 0x02, 0x00, 0x00]); // docs/protocol.md §4 example
    /// # Ok::<(), bolt::message::MessageEncodeError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Request::encode`].
    pub fn encode_framed<S: super::FrameSink>(
        &self,
        version: BoltVersion,
        chunker: &crate::chunk::Chunker,
        out: &mut S,
    ) -> Result<usize, MessageEncodeError> {
        super::framed(chunker, out, |o| self.encode(version, o))
    }
}

impl fmt::Display for Request<'_> {
    /// The notation of docs/protocol.md: the name, then each field (`credentials` hidden).
    ///
    /// ```
    /// use bolt::message::{Request, Run};
    /// assert_eq!(Request::Run(Run::new("RETURN $x").param("x", 1)).to_string(),
    ///            r#"RUN "RETURN $x" {"x": 1} {}"#);
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        let dict = |f: &mut fmt::Formatter<'_>, d: &Dict<'_>| {
            f.write_str(" ")?;
            d.fmt_redacted(f, SECRET_KEYS)
        };
        match self {
            Request::Init(m) => {
                write!(f, " {:?}", m.user_agent)?;
                dict(f, &m.auth_token)
            }
            Request::Hello(m) => dict(f, &m.extra),
            Request::Logon(m) => dict(f, &m.auth),
            Request::Run(m) => {
                write!(f, " {:?}", m.query)?;
                dict(f, &m.parameters)?;
                dict(f, &m.extra)
            }
            Request::Begin(m) => dict(f, &m.extra),
            Request::Discard(m) => dict(f, &m.extra),
            Request::Pull(m) => dict(f, &m.extra),
            Request::Telemetry(m) => write!(f, " {}", m.api),
            Request::Route(m) => {
                dict(f, &m.routing)?;
                write!(f, " {:?}", m.bookmarks)?;
                dict(f, &m.extra)
            }
            Request::Logoff
            | Request::Goodbye
            | Request::Reset
            | Request::AckFailure
            | Request::Commit
            | Request::Rollback
            | Request::DiscardAll
            | Request::PullAll => Ok(()),
        }
    }
}

/// Decodes a request: the signature picks the kind through [`RequestKind`], whose field
/// count must match, then the fields are read and type-checked.
pub(crate) fn decode(
    bytes: &[u8],
    version: BoltVersion,
    opts: DecodeOptions,
) -> Result<Request<'_>, MessageError> {
    let (dec, tag, len) = wire::open(bytes, opts)?;
    let kind = RequestKind::for_signature(tag, version).ok_or(MessageError::UnknownSignature {
        offset: 0,
        direction: "request",
        signature: tag,
    })?;
    let name = kind.name();
    let expected = kind
        .field_count(version)
        .ok_or(MessageError::NotInVersion {
            offset: 0,
            message: name,
            version,
        })?;
    if len != u32::from(expected) {
        return Err(MessageError::FieldCount {
            offset: 0,
            message: name,
            version,
            expected,
            found: len,
        });
    }
    let mut f = Fields::new(dec, name);
    let request = match kind {
        RequestKind::Init => Request::Init(Init {
            user_agent: f.string("user_agent")?,
            auth_token: f.dict("auth_token")?,
        }),
        RequestKind::Hello => Request::Hello(Hello {
            extra: f.dict("extra")?,
        }),
        RequestKind::Logon => Request::Logon(Logon {
            auth: f.dict("auth")?,
        }),
        RequestKind::Logoff => Request::Logoff,
        RequestKind::Goodbye => Request::Goodbye,
        RequestKind::Reset => Request::Reset,
        RequestKind::AckFailure => Request::AckFailure,
        RequestKind::Run => {
            let query = f.string("query")?;
            let parameters = f.dict("parameters")?;
            let extra = if expected == 3 {
                f.dict("extra")?
            } else {
                Dict::new()
            };
            Request::Run(Run {
                query,
                parameters,
                extra,
            })
        }
        RequestKind::Begin => Request::Begin(Begin {
            extra: f.dict("extra")?,
        }),
        RequestKind::Commit => Request::Commit,
        RequestKind::Rollback => Request::Rollback,
        RequestKind::Discard => Request::Discard(Discard {
            extra: f.dict("extra")?,
        }),
        RequestKind::DiscardAll => Request::DiscardAll,
        RequestKind::Pull => Request::Pull(Pull {
            extra: f.dict("extra")?,
        }),
        RequestKind::PullAll => Request::PullAll,
        RequestKind::Telemetry => Request::Telemetry(Telemetry { api: f.int("api")? }),
        RequestKind::Route => {
            let routing = f.dict("routing")?;
            let bookmarks = f.str_list("bookmarks")?;
            let extra = match version.route_db_field() {
                Some(RouteDbField::DbName) => Route::extra_from_v43(f.string_or_null("db")?),
                _ => f.dict("extra")?,
            };
            Request::Route(Route {
                routing,
                bookmarks,
                extra,
            })
        }
    };
    f.finish()?;
    Ok(request)
}

/// Encodes a request in `version`'s layout.
pub(crate) fn encode<B: Sink>(
    request: &Request<'_>,
    version: BoltVersion,
    opts: EncodeOptions,
    out: &mut B,
) -> Result<(), MessageEncodeError> {
    let kind = request.kind();
    let name = kind.name();
    let count = kind
        .field_count(version)
        .ok_or(MessageEncodeError::NotInVersion {
            message: name,
            version,
        })?;
    // Checks that cannot be undone once writing started come first.
    let route_v43 = match request {
        Request::Run(m) if count < 3 && !m.extra.is_empty() => {
            return Err(MessageEncodeError::Unrepresentable {
                message: name,
                version,
                what: "a non-empty `extra` dict",
            })
        }
        Request::Route(m) if version.route_db_field() == Some(RouteDbField::DbName) => {
            Some(m.db_field_v43(version)?)
        }
        _ => None,
    };
    let mut w = Writer::new(out, opts);
    w.header(kind.signature(), usize::from(count))?;
    match request {
        Request::Init(m) => {
            w.str(m.user_agent)?;
            w.dict(&m.auth_token)?;
        }
        Request::Hello(m) => w.dict(&m.extra)?,
        Request::Logon(m) => w.dict(&m.auth)?,
        Request::Run(m) => {
            w.str(m.query)?;
            w.dict(&m.parameters)?;
            if count == 3 {
                w.dict(&m.extra)?;
            }
        }
        Request::Begin(m) => w.dict(&m.extra)?,
        Request::Discard(m) => w.dict(&m.extra)?,
        Request::Pull(m) => w.dict(&m.extra)?,
        Request::Telemetry(m) => w.int(m.api),
        Request::Route(m) => {
            w.dict(&m.routing)?;
            w.str_list(&m.bookmarks)?;
            match route_v43 {
                Some(Some(db)) => w.str(db)?,
                Some(None) => w.null(),
                None => w.dict(&m.extra)?,
            }
        }
        Request::Logoff
        | Request::Goodbye
        | Request::Reset
        | Request::AckFailure
        | Request::Commit
        | Request::Rollback
        | Request::DiscardAll
        | Request::PullAll => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::testing::hex;
    use super::super::{BoltAgent, MessageCodec};
    use super::*;
    use crate::chunk::Chunker;
    use packstream::{EncodeError, ErrorKind, ValueRef};

    const V2: BoltVersion = BoltVersion::new(2, 0);

    /// Decodes `bytes` as `expected` in `version` and encodes `expected` back to `bytes`.
    fn both_ways(version: BoltVersion, hex_bytes: &str, expected: &Request<'_>) {
        let bytes = hex(hex_bytes);
        let decoded = Request::decode(&bytes, version).unwrap();
        assert_eq!(&decoded, expected, "decode {hex_bytes} in {version}");
        assert_eq!(
            expected.to_vec(version).unwrap(),
            bytes,
            "encode in {version}"
        );
    }

    /// docs/protocol.md §5.1 byte examples, each in every version where it exists.
    #[test]
    fn reference_examples() {
        use BoltVersion as V;
        for v in [V::V5_1, V::V5_4, V::V5_8, V::V6_0, V::V6_1] {
            both_ways(v, "B0 6B", &Request::Logoff);
            both_ways(
                v,
                "B1 6A A3 86 73 63 68 65 6D 65 85 62 61 73 69 63 89 70 72 69 6E 63 69 70 61 6C \
                 85 6E 65 6F 34 6A 8B 63 72 65 64 65 6E 74 69 61 6C 73 82 70 77",
                &Request::Logon(Logon::basic("neo4j", "pw")),
            );
        }
        for v in [V::V3_0, V::V4_0, V::V4_4, V::V5_0, V::V5_8, V::V6_1] {
            both_ways(v, "B0 02", &Request::Goodbye);
            both_ways(v, "B0 0F", &Request::Reset);
            both_ways(v, "B0 12", &Request::Commit);
            both_ways(v, "B0 13", &Request::Rollback);
            both_ways(
                v,
                "B3 10 8D 52 45 54 55 52 4E 20 31 20 41 53 20 6E A0 A0",
                &Request::Run(Run::new("RETURN 1 AS n")),
            );
            both_ways(
                v,
                "B1 11 A2 84 6D 6F 64 65 81 72 82 64 62 85 6E 65 6F 34 6A",
                &Request::Begin(Begin::new().with_mode("r").with_db("neo4j")),
            );
            both_ways(
                v,
                "B1 01 A2 8A 75 73 65 72 5F 61 67 65 6E 74 8A 6D 79 2D 61 70 70 2F 31 2E 30 8A \
                 62 6F 6C 74 5F 61 67 65 6E 74 A1 87 70 72 6F 64 75 63 74 8D 72 75 73 74 2D 62 \
                 6F 6C 74 2F 30 2E 31",
                &Request::Hello(
                    Hello::new("my-app/1.0").with_bolt_agent(BoltAgent::new("rust-bolt/0.1")),
                ),
            );
        }
        for v in [V::V4_0, V::V4_3, V::V4_4, V::V5_0, V::V5_8, V::V6_1] {
            both_ways(v, "B1 3F A1 81 6E FF", &Request::Pull(Pull::all()));
            both_ways(
                v,
                "B1 3F A2 81 6E C9 03 E8 83 71 69 64 FF",
                &Request::Pull(Pull::new(1000).with_qid(-1)),
            );
            both_ways(v, "B1 2F A1 81 6E FF", &Request::Discard(Discard::all()));
        }
        both_ways(V::V3_0, "B0 3F", &Request::PullAll);
        both_ways(V::V3_0, "B0 2F", &Request::DiscardAll);
        both_ways(V2, "B0 0E", &Request::AckFailure);
        both_ways(V2, "B0 3F", &Request::PullAll);
        both_ways(
            V2,
            "B2 01 8A 6D 79 2D 61 70 70 2F 31 2E 30 A1 86 73 63 68 65 6D 65 84 6E 6F 6E 65",
            &Request::Init(Init::new("my-app/1.0", Logon::none().auth)),
        );
        both_ways(
            V2,
            "B2 10 8D 52 45 54 55 52 4E 20 31 20 41 53 20 6E A0",
            &Request::Run(Run::new("RETURN 1 AS n")),
        );
        for v in [V::V5_4, V::V5_8, V::V6_1] {
            both_ways(
                v,
                "B1 54 00",
                &Request::Telemetry(Telemetry::new(
                    crate::message::TelemetryApi::ManagedTransaction,
                )),
            );
        }
        let routing = Dict::new().with("address", "localhost:7687");
        for v in [V::V4_4, V::V5_0, V::V6_1] {
            both_ways(
                v,
                "B3 66 A1 87 61 64 64 72 65 73 73 8E 6C 6F 63 61 6C 68 6F 73 74 3A 37 36 38 37 \
                 90 A1 82 64 62 C0",
                &Request::Route(Route::new(routing.clone()).with_extra("db", None::<&str>)),
            );
        }
        both_ways(
            V::V4_3,
            "B3 66 A1 87 61 64 64 72 65 73 73 8E 6C 6F 63 61 6C 68 6F 73 74 3A 37 36 38 37 90 C0",
            &Request::Route(Route::new(routing)),
        );
    }

    #[test]
    fn signatures_and_field_counts_follow_the_version() {
        use BoltVersion as V;
        let all = V::SUPPORTED
            .iter()
            .chain(V::DECODE_ONLY)
            .copied()
            .chain([V::new(1, 0), V2]);
        for v in all {
            for kind in RequestKind::ALL {
                let Some(count) = kind.field_count(v) else {
                    assert!(!kind.exists_in(v));
                    continue;
                };
                // the signature means this kind in this version
                assert_eq!(RequestKind::for_signature(kind.signature(), v), Some(*kind));
                // every other field count is an error naming message, version and counts
                for wrong in 0..=4u8 {
                    if wrong == count {
                        continue;
                    }
                    let mut bytes = vec![0xB0 | wrong, kind.signature()];
                    bytes.extend(std::iter::repeat_n(0xA0, usize::from(wrong)));
                    let err = Request::decode(&bytes, v).unwrap_err();
                    assert_eq!(
                        err,
                        MessageError::FieldCount {
                            offset: 0,
                            message: kind.name(),
                            version: v,
                            expected: count,
                            found: u32::from(wrong),
                        }
                    );
                    assert!(err.to_string().contains(kind.name()));
                    assert!(err.to_string().contains(&v.to_string()));
                }
            }
        }
    }

    #[test]
    fn messages_outside_their_versions() {
        use BoltVersion as V;
        let cases: [(&[u8], V, &str); 9] = [
            (&[0xB1, 0x6A, 0xA0], V::V5_0, "LOGON"),
            (&[0xB0, 0x6B], V::V4_4, "LOGOFF"),
            (&[0xB1, 0x54, 0x00], V::V5_3, "TELEMETRY"),
            (&[0xB3, 0x66, 0xA0, 0x90, 0xC0], V::V4_2, "ROUTE"),
            (&[0xB0, 0x0E], V::V3_0, "ACK_FAILURE"),
            (&[0xB0, 0x0E], V::V5_8, "ACK_FAILURE"),
            (&[0xB0, 0x02], V2, "GOODBYE"),
            (&[0xB1, 0x11, 0xA0], V2, "BEGIN"),
            (&[0xB0, 0x12], V2, "COMMIT"),
        ];
        for (bytes, version, message) in cases {
            assert_eq!(
                Request::decode(bytes, version),
                Err(MessageError::NotInVersion {
                    offset: 0,
                    message,
                    version
                })
            );
        }
        // encoding too
        let enc = |r: Request<'_>, v| r.to_vec(v).unwrap_err();
        assert_eq!(
            enc(Request::PullAll, V::V4_0),
            MessageEncodeError::NotInVersion {
                message: "PULL_ALL",
                version: V::V4_0
            }
        );
        assert_eq!(
            enc(Request::Pull(Pull::all()), V::V3_0),
            MessageEncodeError::NotInVersion {
                message: "PULL",
                version: V::V3_0
            }
        );
        assert_eq!(
            enc(Request::Hello(Hello::new("x")), V2),
            MessageEncodeError::NotInVersion {
                message: "HELLO",
                version: V2
            }
        );
        assert!(matches!(
            enc(Request::Init(Init::default()), V::V3_0),
            MessageEncodeError::NotInVersion {
                message: "INIT",
                ..
            }
        ));
        // HELLO's byte in Bolt 2 is INIT, which has two fields
        assert!(matches!(
            Request::decode(&[0xB1, 0x01, 0xA0], V2),
            Err(MessageError::FieldCount {
                message: "INIT",
                expected: 2,
                found: 1,
                ..
            })
        ));
    }

    #[test]
    fn wrong_shapes_name_field_and_offset() {
        let v = BoltVersion::V5_8;
        let field_type = |bytes: &[u8]| match Request::decode(bytes, v) {
            Err(MessageError::FieldType {
                offset,
                message,
                field,
                expected,
                found,
            }) => (offset, message, field, expected, found),
            other => panic!("{other:?}"),
        };
        // RUN query not a string
        assert_eq!(
            field_type(&[0xB3, 0x10, 0x01, 0xA0, 0xA0]),
            (2, "RUN", "query", "a string", "integer")
        );
        // RUN parameters a list
        assert_eq!(
            field_type(&[0xB3, 0x10, 0x80, 0x90, 0xA0]),
            (3, "RUN", "parameters", "a map", "list")
        );
        // RUN extra null
        assert_eq!(
            field_type(&[0xB3, 0x10, 0x80, 0xA0, 0xC0]),
            (4, "RUN", "extra", "a map", "null")
        );
        // PULL extra an integer
        assert_eq!(
            field_type(&[0xB1, 0x3F, 0xFF]),
            (2, "PULL", "extra", "a map", "integer")
        );
        // TELEMETRY api a string
        assert_eq!(
            field_type(&[0xB1, 0x54, 0x81, 0x30]),
            (2, "TELEMETRY", "api", "an integer", "string")
        );
        // ROUTE bookmarks with an integer
        assert_eq!(
            field_type(&[0xB3, 0x66, 0xA0, 0x92, 0x81, 0x61, 0x01, 0xA0]),
            (3, "ROUTE", "bookmarks", "a list of strings", "integer")
        );
        // ROUTE 4.3 db neither string nor null
        assert!(matches!(
            Request::decode(&[0xB3, 0x66, 0xA0, 0x90, 0xA0], BoltVersion::V4_3),
            Err(MessageError::FieldType {
                offset: 4,
                field: "db",
                expected: "a string or null",
                found: "map",
                ..
            })
        ));
        // INIT user agent
        assert!(matches!(
            Request::decode(&[0xB2, 0x01, 0xC0, 0xA0], V2),
            Err(MessageError::FieldType {
                offset: 2,
                field: "user_agent",
                ..
            })
        ));
    }

    #[test]
    fn malformed_messages() {
        let v = BoltVersion::V5_8;
        // not a structure
        assert_eq!(
            Request::decode(&[0xA0], v),
            Err(MessageError::NotAStructure {
                offset: 0,
                found: "map"
            })
        );
        // unknown signature, and a response signature
        for sig in [0x00, 0x03, 0x55, 0x70, 0x71, 0x7F] {
            assert_eq!(
                Request::decode(&[0xB0, sig], v),
                Err(MessageError::UnknownSignature {
                    offset: 0,
                    direction: "request",
                    signature: sig
                })
            );
        }
        // trailing bytes
        assert_eq!(
            Request::decode(&[0xB0, 0x0F, 0x00, 0x00], v),
            Err(MessageError::TrailingBytes {
                offset: 2,
                count: 2,
                message: "RESET"
            })
        );
        // empty and truncated input
        for bytes in [&[][..], &[0xB1], &[0xB1, 0x3F], &[0xB1, 0x3F, 0xA1, 0x81]] {
            let err = Request::decode(bytes, v).unwrap_err();
            let MessageError::PackStream(e) = err else {
                panic!("{err:?}")
            };
            assert_eq!(e.kind(), ErrorKind::UnexpectedEnd, "{bytes:?}");
        }
        // invalid UTF-8 in a query, at its byte
        let err = Request::decode(&[0xB3, 0x10, 0x82, 0x61, 0xFF, 0xA0, 0xA0], v).unwrap_err();
        assert_eq!(err.offset(), 4);
        assert_eq!(err.expected(), "UTF-8 string bytes");
        // a UUID before 6.1 is a reserved marker
        let mut uuid_param = hex("B3 10 80 A1 81 75 E0");
        uuid_param.extend([7; 16]);
        uuid_param.push(0xA0);
        assert!(matches!(
            Request::decode(&uuid_param, BoltVersion::V6_0),
            Err(MessageError::PackStream(e)) if e.kind() == ErrorKind::ReservedMarker && e.offset() == 6
        ));
        let Request::Run(run) = Request::decode(&uuid_param, BoltVersion::V6_1).unwrap() else {
            panic!()
        };
        assert_eq!(run.parameters.get("u"), Some(&ValueRef::Uuid([7; 16])));
        // legacy structure markers only with the option
        let legacy = [0xDC, 0x00, 0x0F];
        assert!(Request::decode(&legacy, v).is_err());
        let codec = MessageCodec::new(v).with_legacy_structs(true);
        assert_eq!(codec.decode_request(&legacy), Ok(Request::Reset));
    }

    /// TELEMETRY shares its byte with Time, PULL with UnsupportedType: only the outer
    /// structure is a message.
    #[test]
    fn inner_structures_are_values() {
        let v = BoltVersion::V6_0;
        // RUN "" {"t": Time(1, 0)} {}
        let bytes = hex("B3 10 80 A1 81 74 B2 54 01 00 A0");
        let Request::Run(run) = Request::decode(&bytes, v).unwrap() else {
            panic!()
        };
        let Some(ValueRef::Struct(s)) = run.parameters.get("t") else {
            panic!()
        };
        assert_eq!((s.tag, s.fields.len()), (0x54, 2));
        // PULL {"x": UnsupportedType-like struct 3F}
        let bytes = hex("B1 3F A2 81 6E FF 81 78 B0 3F");
        let Request::Pull(pull) = Request::decode(&bytes, v).unwrap() else {
            panic!()
        };
        assert_eq!(pull.n(), Some(-1));
        assert!(matches!(pull.extra.get("x"), Some(ValueRef::Struct(s)) if s.tag == 0x3F));
    }

    #[test]
    fn unrepresentable_fields() {
        let err = Request::Run(Run::new("x").with_db("neo4j"))
            .to_vec(V2)
            .unwrap_err();
        assert_eq!(
            err,
            MessageEncodeError::Unrepresentable {
                message: "RUN",
                version: V2,
                what: "a non-empty `extra` dict"
            }
        );
        let v43 = BoltVersion::V4_3;
        let route = Route::new(Dict::new());
        assert!(Request::Route(route.clone().with_imp_user("bob"))
            .to_vec(v43)
            .is_err());
        assert!(Request::Route(route.clone().with_extra("db", 1))
            .to_vec(v43)
            .is_err());
        // {"db": null} is written as the bare null, which reads back as {}
        let bytes = Request::Route(route.clone().with_extra("db", None::<&str>))
            .to_vec(v43)
            .unwrap();
        assert_eq!(bytes, hex("B3 66 A0 90 C0"));
        assert_eq!(Request::decode(&bytes, v43), Ok(Request::Route(route)));
    }

    #[test]
    fn uuid_parameters_need_6_1_and_framing_rolls_back() {
        let uuid = ValueRef::Uuid([1; 16]);
        let run = Request::Run(Run::new("RETURN $u").param("u", uuid));
        assert_eq!(
            run.to_vec(BoltVersion::V5_8),
            Err(MessageEncodeError::PackStream(EncodeError::UuidNotEnabled))
        );
        let mut wire = vec![1, 2, 3];
        let chunker = Chunker::default();
        assert!(run
            .encode_framed(BoltVersion::V6_0, &chunker, &mut wire)
            .is_err());
        assert_eq!(wire, [1, 2, 3]);
        let n = run
            .encode_framed(BoltVersion::V6_1, &chunker, &mut wire)
            .unwrap();
        assert_eq!(n, wire.len() - 3);
        let mut bytes = bytes::BytesMut::new();
        run.encode_framed(BoltVersion::V6_1, &chunker, &mut bytes)
            .unwrap();
        assert_eq!(&bytes[..], &wire[3..]);
    }

    #[test]
    fn display_hides_credentials() {
        let hello = Request::Hello(
            Hello::new("app/1")
                .with_auth(Logon::basic("neo4j", "secret").auth)
                .with_routing(Dict::new().with("credentials", "nested-secret")),
        );
        let shown = hello.to_string();
        assert!(!shown.contains("secret"), "{shown}");
        assert!(shown.starts_with(r#"HELLO {"user_agent": "app/1", "scheme": "basic""#));
        let debug = format!("{hello:?}");
        assert!(!debug.contains("secret"), "{debug}");
        let init = Request::Init(Init::new("a/1", Logon::basic("u", "secret").auth));
        assert!(!init.to_string().contains("secret"));
        assert!(!format!("{init:?}").contains("secret"));
        assert_eq!(
            Request::Route(Route::new(Dict::new()).with_bookmarks(["b1"])).to_string(),
            r#"ROUTE {} ["b1"] {}"#
        );
        assert_eq!(
            Request::Telemetry(Telemetry { api: 2 }).to_string(),
            "TELEMETRY 2"
        );
        assert_eq!(Request::PullAll.to_string(), "PULL_ALL");
    }

    #[test]
    fn accessors_of_decoded_requests() {
        let v = BoltVersion::V5_2;
        let run = Run::new("q")
            .with_bookmarks(["a", "b"])
            .with_tx_timeout(5000)
            .with_tx_metadata(Dict::new().with("app", "x"))
            .with_mode("r")
            .with_db("neo4j")
            .with_imp_user("bob")
            .with_notifications_minimum_severity("WARNING")
            .with_disabled_notifications(v, ["HINT"]);
        let bytes = Request::Run(run).to_vec(v).unwrap();
        let Request::Run(run) = Request::decode(&bytes, v).unwrap() else {
            panic!()
        };
        assert_eq!(run.bookmarks(), Some(vec!["a", "b"]));
        assert_eq!(run.tx_timeout(), Some(5000));
        assert_eq!(
            run.tx_metadata().map(|m| m.to_vec()),
            Some(vec![("app", ValueRef::String("x"))])
        );
        assert!(run.is_read_mode());
        assert_eq!((run.db(), run.imp_user()), (Some("neo4j"), Some("bob")));
        assert_eq!(run.notifications_minimum_severity(), Some("WARNING"));
        assert_eq!(run.notifications_disabled_categories(), Some(vec!["HINT"]));
        assert_eq!(run.notifications_disabled_classifications(), None);
        assert_eq!(run.disabled_notifications(), Some(vec!["HINT"]));
        // 5.6 renamed the key
        let begin = Begin::new().with_disabled_notifications(BoltVersion::V5_6, ["HINT"]);
        assert_eq!(
            begin.notifications_disabled_classifications(),
            Some(vec!["HINT"])
        );
        assert!(Begin::new()
            .with_disabled_notifications(BoltVersion::V5_1, ["HINT"])
            .extra
            .is_empty());

        let hello = Hello::new("app/1")
            .with_routing(Dict::new())
            .with_patch_bolt(["utc"])
            .with_auth(Logon::bearer("tok").with_realm("r").auth)
            .with_notifications_minimum_severity("OFF");
        assert_eq!(hello.routing().map(<[_]>::len), Some(0));
        assert_eq!(hello.patch_bolt(), Some(vec!["utc"]));
        assert_eq!(
            (
                hello.scheme(),
                hello.credentials(),
                hello.realm(),
                hello.principal()
            ),
            (Some("bearer"), Some("tok"), Some("r"), None)
        );
        assert_eq!(hello.notifications_minimum_severity(), Some("OFF"));
        assert_eq!(
            Hello::new("x")
                .with_extra("routing", None::<&str>)
                .routing(),
            None
        );
        let k = Logon::kerberos("dGlja2V0");
        assert_eq!((k.scheme(), k.principal()), (Some("kerberos"), Some("")));
        let custom = Logon::new(Dict::new().with("scheme", "custom"))
            .with_entry("parameters", Dict::new().with("k", 1));
        assert_eq!(custom.auth_parameters().map(<[_]>::len), Some(1));

        assert_eq!(
            Telemetry { api: 3 }.api_kind(),
            Some(crate::message::TelemetryApi::ExecuteQuery)
        );
        assert_eq!(Telemetry { api: 9 }.api_kind(), None);
        assert_eq!(Pull::new(5).with_qid(2).qid(), Some(2));
        assert_eq!(Discard::all().n(), Some(-1));
    }
}
