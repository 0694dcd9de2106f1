//! Queries and transactions: RUN, BEGIN (COMMIT and ROLLBACK are field-less
//! [`Request`](super::Request) variants) and TELEMETRY (docs/protocol.md §5.6, §5.7,
//! §5.10).

use super::dict::{Dict, Entries, IntoValueRef};
use super::setup::notification_filters;

/// The transaction-settings keys shared by an auto-commit RUN's and BEGIN's `extra`
/// (docs/protocol.md §5.6): accessors and `with_*` builders.
macro_rules! tx_settings {
    ($ty:ident) => {
        impl<'a> $ty<'a> {
            /// `bookmarks` (v3+).
            #[must_use]
            pub fn bookmarks(&self) -> Option<Vec<&'a str>> {
                self.extra.get_str_list("bookmarks")
            }

            /// `tx_timeout` in milliseconds (v3+).
            #[must_use]
            pub fn tx_timeout(&self) -> Option<i64> {
                self.extra.get_int("tx_timeout")
            }

            /// `tx_metadata` (v3+).
            #[must_use]
            pub fn tx_metadata(&self) -> Option<&Entries<'a>> {
                self.extra.get_map("tx_metadata")
            }

            /// `mode` (v3+): `"r"` or `"w"`; absent means write.
            #[must_use]
            pub fn mode(&self) -> Option<&'a str> {
                self.extra.get_str("mode")
            }

            /// Whether `mode` is `"r"`.
            #[must_use]
            pub fn is_read_mode(&self) -> bool {
                self.mode() == Some("r")
            }

            /// `db` (v4.0+); `None` (or `""`) means the default or home database.
            #[must_use]
            pub fn db(&self) -> Option<&'a str> {
                self.extra.get_str("db")
            }

            /// `imp_user` (v4.4+), the user to impersonate.
            #[must_use]
            pub fn imp_user(&self) -> Option<&'a str> {
                self.extra.get_str("imp_user")
            }

            /// Sets `bookmarks`.
            #[must_use]
            pub fn with_bookmarks(mut self, bookmarks: impl IntoIterator<Item = &'a str>) -> Self {
                self.extra
                    .insert("bookmarks", super::dict::str_list(bookmarks));
                self
            }

            /// Sets `tx_timeout` (milliseconds).
            #[must_use]
            pub fn with_tx_timeout(mut self, millis: i64) -> Self {
                self.extra.insert("tx_timeout", millis);
                self
            }

            /// Sets `tx_metadata`.
            #[must_use]
            pub fn with_tx_metadata(mut self, metadata: Dict<'a>) -> Self {
                self.extra.insert("tx_metadata", metadata);
                self
            }

            /// Sets `mode` (`"r"` for read; drivers leave it out for write).
            #[must_use]
            pub fn with_mode(mut self, mode: &'a str) -> Self {
                self.extra.insert("mode", mode);
                self
            }

            /// Sets `db`.
            #[must_use]
            pub fn with_db(mut self, db: &'a str) -> Self {
                self.extra.insert("db", db);
                self
            }

            /// Sets `imp_user`.
            #[must_use]
            pub fn with_imp_user(mut self, user: &'a str) -> Self {
                self.extra.insert("imp_user", user);
                self
            }

            /// Sets any `extra` entry.
            #[must_use]
            pub fn with_extra(mut self, key: &'a str, value: impl IntoValueRef<'a>) -> Self {
                self.extra.insert(key, value);
                self
            }
        }

        notification_filters!($ty, extra);
    };
}

/// RUN (`10`): `query: String, parameters: Dict` and from v3 `extra: Dict`
/// (docs/protocol.md §5.6).
///
/// In Bolt 1/2 there is no `extra`: decoding gives an empty one and encoding a
/// non-empty one fails.
///
/// ```
/// use bolt::message::{Request, Run};
/// use bolt::BoltVersion;
///
/// // docs/protocol.md §5.1 example.
/// let run = Run::new("RETURN 1 AS n");
/// assert_eq!(Request::Run(run).to_vec(BoltVersion::V5_8)?,
///            b"\xB3\x10\x8DRETURN 1 AS n\xA0\xA0");
///
/// let name = String::from("Alice");
/// let run = Run::new("MATCH (p {name: $name}) RETURN p LIMIT $n")
///     .param("name", &name)
///     .param("n", 10)
///     .with_db("neo4j")
///     .with_bookmarks(["FB:kcwQ"]);
/// let bytes = Request::Run(run.clone()).to_vec(BoltVersion::V5_8)?;
/// let Request::Run(back) = Request::decode(&bytes, BoltVersion::V5_8)? else { panic!() };
/// assert_eq!(back, run);
/// assert_eq!(back.parameters.get_str("name"), Some("Alice"));
/// assert_eq!(back.db(), Some("neo4j"));
/// assert_eq!(back.bookmarks(), Some(vec!["FB:kcwQ"]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run<'a> {
    /// The Cypher query.
    pub query: &'a str,
    /// The query parameters.
    pub parameters: Dict<'a>,
    /// The `extra` dict (v3+), every entry in wire order.
    pub extra: Dict<'a>,
}

impl<'a> Run<'a> {
    /// A RUN of `query` with no parameters and an empty `extra`.
    #[must_use]
    pub fn new(query: &'a str) -> Self {
        Run {
            query,
            parameters: Dict::new(),
            extra: Dict::new(),
        }
    }

    /// Sets one parameter.
    #[must_use]
    pub fn param(mut self, name: &'a str, value: impl IntoValueRef<'a>) -> Self {
        self.parameters.insert(name, value);
        self
    }

    /// Replaces the parameters.
    #[must_use]
    pub fn with_parameters(mut self, parameters: Dict<'a>) -> Self {
        self.parameters = parameters;
        self
    }

    /// Replaces `extra`.
    #[must_use]
    pub fn with_extra_dict(mut self, extra: Dict<'a>) -> Self {
        self.extra = extra;
        self
    }
}

tx_settings!(Run);

/// BEGIN (`11`, v3+): `extra: Dict` with the same keys as an auto-commit RUN
/// (docs/protocol.md §5.7).
///
/// ```
/// use bolt::message::{Begin, Request};
/// use bolt::BoltVersion;
///
/// // docs/protocol.md §5.1 example.
/// let begin = Begin::new().with_mode("r").with_db("neo4j");
/// assert_eq!(Request::Begin(begin).to_vec(BoltVersion::V4_4)?,
///            b"\xB1\x11\xA2\x84mode\x81r\x82db\x85neo4j");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Begin<'a> {
    /// The `extra` dict, every entry in wire order.
    pub extra: Dict<'a>,
}

impl<'a> Begin<'a> {
    /// A BEGIN with an empty `extra`.
    #[must_use]
    pub fn new() -> Self {
        Begin::default()
    }

    /// A BEGIN with this `extra`.
    #[must_use]
    pub fn from_extra(extra: Dict<'a>) -> Self {
        Begin { extra }
    }
}

tx_settings!(Begin);

/// The API a TELEMETRY message reports (docs/protocol.md §5.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TelemetryApi {
    /// 0: a managed transaction (transaction function).
    ManagedTransaction,
    /// 1: an explicit (unmanaged) transaction.
    ExplicitTransaction,
    /// 2: an implicit (auto-commit) transaction.
    AutoCommit,
    /// 3: the driver-level `execute_query`.
    ExecuteQuery,
}

impl TelemetryApi {
    /// The wire code.
    #[must_use]
    pub const fn code(self) -> i64 {
        match self {
            TelemetryApi::ManagedTransaction => 0,
            TelemetryApi::ExplicitTransaction => 1,
            TelemetryApi::AutoCommit => 2,
            TelemetryApi::ExecuteQuery => 3,
        }
    }

    /// The API for a wire code, if it is a known one.
    #[must_use]
    pub const fn from_code(code: i64) -> Option<Self> {
        match code {
            0 => Some(TelemetryApi::ManagedTransaction),
            1 => Some(TelemetryApi::ExplicitTransaction),
            2 => Some(TelemetryApi::AutoCommit),
            3 => Some(TelemetryApi::ExecuteQuery),
            _ => None,
        }
    }
}

/// TELEMETRY (`54`, v5.4+): `api: Integer` (docs/protocol.md §5.10).
///
/// Its signature is the same byte as the Time structure's; only the outermost structure
/// of a message is read as a message, so a Time value inside RUN parameters stays a
/// value.
///
/// ```
/// use bolt::message::{Request, Telemetry, TelemetryApi};
/// use bolt::BoltVersion;
///
/// let t = Telemetry::new(TelemetryApi::ManagedTransaction);
/// assert_eq!(Request::Telemetry(t).to_vec(BoltVersion::V5_4)?, [0xB1, 0x54, 0x00]);
/// assert!(Request::Telemetry(t).to_vec(BoltVersion::V5_3).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Telemetry {
    /// The API code as sent (see [`TelemetryApi`]); any integer is kept.
    pub api: i64,
}

impl Telemetry {
    /// A TELEMETRY for this API.
    #[must_use]
    pub const fn new(api: TelemetryApi) -> Self {
        Telemetry { api: api.code() }
    }

    /// The API, if the code is a known one.
    #[must_use]
    pub const fn api_kind(&self) -> Option<TelemetryApi> {
        TelemetryApi::from_code(self.api)
    }
}
