//! Bolt protocol versions and every version-dependent decision.
//!
//! [`BoltVersion`] is the value chosen by the handshake (see [`crate::handshake`]). It is
//! the **one translation point** for behaviour that differs between protocol versions:
//! the message and structure layers ask it (`version.has_element_ids()`,
//! `version.run_field_count()`, …) instead of comparing version numbers themselves.
//! Every query names its rule and the section of the project's protocol reference,
//! `docs/protocol.md`, that it comes from.
//!
//! # Which versions exist here
//!
//! * [`BoltVersion::SUPPORTED`]: fully supported, offered and negotiated by default:
//!   6.1, 6.0, 5.8, 5.7, 5.6, 5.4, 5.3, 5.2, 5.1, 5.0 and 4.4.
//! * [`BoltVersion::DECODE_ONLY`]: 4.3, 4.2, 4.1, 4.0 and 3.0; known (their rules are
//!   answered correctly, for example to read old captures) but not offered by default.
//! * **5.5 is never selectable.** It was released only in some drivers and no server ever
//!   negotiates it (docs/protocol.md §7, §10). There is deliberately no `V5_5` constant;
//!   `BoltVersion::new(5, 5)` can be built (for instance to talk about a peer's range),
//!   but [`BoltVersion::is_known`] is `false` for it and the handshake never picks it,
//!   even when a peer's range such as 5.8–5.0 covers it.
//!
//! # Example
//!
//! ```
//! use bolt::BoltVersion;
//!
//! let v = BoltVersion::V5_8;
//! assert_eq!(v.to_string(), "5.8");
//! assert!(v.has_logon() && v.has_telemetry() && !v.has_vector());
//! assert_eq!(v.failure_code_key(), "neo4j_code");
//!
//! // 4.4 speaks UTC datetimes only after the "utc" patch was accepted in HELLO.
//! assert!(!BoltVersion::V4_4.utc_datetime());
//! assert!(BoltVersion::V4_4.with_utc_patch(true).utc_datetime());
//!
//! // Ordering follows the version number.
//! assert!(BoltVersion::V4_4 < BoltVersion::V5_0);
//! assert!(BoltVersion::new(5, 5).is_known() == false);
//! ```

use core::fmt;
use core::str::FromStr;

/// A negotiated (or proposed) Bolt protocol version.
///
/// Holds the version number, whether the Bolt 4.3/4.4 `"utc"` patch is active, and the
/// capability bits agreed in a manifest v1 handshake (docs/protocol.md §3.4; currently no
/// public bits exist, so this is normally 0).
///
/// The type is `Copy`, cheap to pass by value, and all its queries are `const fn`.
///
/// # Equality and ordering
///
/// Fields compare in the order (major, minor, utc patch, capabilities), so ordering is by
/// version number first: `V4_4 < V5_0 < V5_8 < V6_0`. Two values with the same number
/// but different patch flags or capabilities are *not* equal, because they describe
/// different wire behaviour. To compare only the number use
/// [`BoltVersion::same_number`] or [`BoltVersion::at_least`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BoltVersion {
    major: u8,
    minor: u8,
    utc_patch: bool,
    capabilities: u64,
}

/// The shape of ROUTE's third field (docs/protocol.md §5.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RouteDbField {
    /// Bolt 4.3: `db: String | null`.
    DbName,
    /// Bolt 4.4+: `extra: Dict { db?: String, imp_user?: String }`.
    Extra,
}

impl BoltVersion {
    /// Bolt 3 (handshake slot `00 00 00 03`). Decode-only.
    pub const V3_0: Self = Self::new(3, 0);
    /// Bolt 4.0. Decode-only.
    pub const V4_0: Self = Self::new(4, 0);
    /// Bolt 4.1. Decode-only.
    pub const V4_1: Self = Self::new(4, 1);
    /// Bolt 4.2 (same protocol as 4.1, see [`BoltVersion::is_equivalent`]). Decode-only.
    pub const V4_2: Self = Self::new(4, 2);
    /// Bolt 4.3. Decode-only.
    pub const V4_3: Self = Self::new(4, 3);
    /// Bolt 4.4 (the oldest fully supported version).
    pub const V4_4: Self = Self::new(4, 4);
    /// Bolt 5.0.
    pub const V5_0: Self = Self::new(5, 0);
    /// Bolt 5.1.
    pub const V5_1: Self = Self::new(5, 1);
    /// Bolt 5.2.
    pub const V5_2: Self = Self::new(5, 2);
    /// Bolt 5.3.
    pub const V5_3: Self = Self::new(5, 3);
    /// Bolt 5.4.
    pub const V5_4: Self = Self::new(5, 4);
    // No V5_5: see the module documentation.
    /// Bolt 5.6.
    pub const V5_6: Self = Self::new(5, 6);
    /// Bolt 5.7.
    pub const V5_7: Self = Self::new(5, 7);
    /// Bolt 5.8.
    pub const V5_8: Self = Self::new(5, 8);
    /// Bolt 6.0.
    pub const V6_0: Self = Self::new(6, 0);
    /// Bolt 6.1 (PackStream "v2": UUID values).
    pub const V6_1: Self = Self::new(6, 1);

    /// The fully supported versions, newest first. This is the default set both
    /// handshake roles negotiate from. 5.5 is not in it.
    pub const SUPPORTED: &'static [Self] = &[
        Self::V6_1,
        Self::V6_0,
        Self::V5_8,
        Self::V5_7,
        Self::V5_6,
        Self::V5_4,
        Self::V5_3,
        Self::V5_2,
        Self::V5_1,
        Self::V5_0,
        Self::V4_4,
    ];

    /// Versions whose rules are known (for decoding captures or talking to old peers when
    /// explicitly enabled) but which are not negotiated by default, newest first.
    pub const DECODE_ONLY: &'static [Self] =
        &[Self::V4_3, Self::V4_2, Self::V4_1, Self::V4_0, Self::V3_0];

    /// A version with the given number, no utc patch and no capabilities.
    ///
    /// Any number can be built; use [`BoltVersion::is_known`] to check whether this crate
    /// knows its rules.
    #[must_use]
    pub const fn new(major: u8, minor: u8) -> Self {
        Self {
            major,
            minor,
            utc_patch: false,
            capabilities: 0,
        }
    }

    /// The major version number.
    #[must_use]
    pub const fn major(self) -> u8 {
        self.major
    }

    /// The minor version number.
    #[must_use]
    pub const fn minor(self) -> u8 {
        self.minor
    }

    /// Whether the `"utc"` patch was negotiated (only ever `true` on 4.3 and 4.4).
    #[must_use]
    pub const fn utc_patch(self) -> bool {
        self.utc_patch
    }

    /// The capability bits agreed in a manifest v1 handshake (0 otherwise).
    #[must_use]
    pub const fn capabilities(self) -> u64 {
        self.capabilities
    }

    /// This version with the `"utc"` patch flag set or cleared.
    ///
    /// Set it when the server's HELLO SUCCESS echoed `"patch_bolt": ["utc"]`
    /// (docs/protocol.md §2.6). The patch exists only for 4.3 and 4.4: on any other version
    /// the flag is stored as `false` (5.0+ is always UTC, older versions never are).
    #[must_use]
    pub const fn with_utc_patch(mut self, active: bool) -> Self {
        self.utc_patch = active && self.supports_utc_patch();
        self
    }

    /// This version with the given manifest capability bits (docs/protocol.md §3.4).
    #[must_use]
    pub const fn with_capabilities(mut self, capabilities: u64) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// Whether `self` and `other` have the same (major, minor) number, ignoring the utc
    /// patch flag and capabilities.
    #[must_use]
    pub const fn same_number(self, other: Self) -> bool {
        self.major == other.major && self.minor == other.minor
    }

    /// Whether `self` speaks the same protocol as `other`: the same number, or one is 4.1
    /// and the other 4.2 ("4.2 ≈ 4.1", docs/protocol.md §3.3, §7).
    #[must_use]
    pub const fn is_equivalent(self, other: Self) -> bool {
        self.same_number(other) || (self.is_4_1_or_4_2() && other.is_4_1_or_4_2())
    }

    const fn is_4_1_or_4_2(self) -> bool {
        self.major == 4 && (self.minor == 1 || self.minor == 2)
    }

    /// Whether this version's number is `major.minor` or later.
    #[must_use]
    pub const fn at_least(self, major: u8, minor: u8) -> bool {
        self.major > major || (self.major == major && self.minor >= minor)
    }

    /// Whether this version is in [`BoltVersion::SUPPORTED`] (by number).
    #[must_use]
    pub const fn is_supported(self) -> bool {
        match self.major {
            4 => self.minor == 4,
            // 5.5 is excluded on purpose (docs/protocol.md §7, §10).
            5 => self.minor <= 8 && self.minor != 5,
            6 => self.minor <= 1,
            _ => false,
        }
    }

    /// Whether this version is in [`BoltVersion::DECODE_ONLY`] (by number).
    #[must_use]
    pub const fn is_decode_only(self) -> bool {
        (self.major == 3 && self.minor == 0) || (self.major == 4 && self.minor <= 3)
    }

    /// Whether this crate knows the rules of this version: supported or decode-only.
    /// `false` for 5.5 and for numbers that do not exist. The handshake never selects a
    /// version for which this is `false`.
    #[must_use]
    pub const fn is_known(self) -> bool {
        self.is_supported() || self.is_decode_only()
    }

    /// The 4 handshake bytes naming exactly this version: `00 00 minor major`
    /// (docs/protocol.md §3.3).
    #[must_use]
    pub const fn to_bytes(self) -> [u8; 4] {
        [0, 0, self.minor, self.major]
    }

    // ----------------------------------------------------------------------------------
    // Messages
    // ----------------------------------------------------------------------------------

    /// v3+: the first message is HELLO `extra: Dict`; before v3 it was INIT
    /// `user_agent, auth_token` (docs/protocol.md §5.2, §5.3).
    #[must_use]
    pub const fn uses_hello(self) -> bool {
        self.major >= 3
    }

    /// v3+: GOODBYE (`02`) exists (docs/protocol.md §5.5).
    #[must_use]
    pub const fn has_goodbye(self) -> bool {
        self.major >= 3
    }

    /// v1–v2 only: ACK_FAILURE (`0E`) acknowledges a FAILURE; from v3 RESET does
    /// (docs/protocol.md §5.5, §6.4).
    #[must_use]
    pub const fn has_ack_failure(self) -> bool {
        self.major <= 2
    }

    /// v3+: explicit transactions with BEGIN/COMMIT/ROLLBACK and the TX_READY /
    /// TX_STREAMING states (docs/protocol.md §5.7, §6.3).
    #[must_use]
    pub const fn has_explicit_transactions(self) -> bool {
        self.major >= 3
    }

    /// RUN arity: 2 fields (`query, parameters`) in v1–v2, 3 (`query, parameters, extra`)
    /// from v3 (docs/protocol.md §5.6).
    #[must_use]
    pub const fn run_field_count(self) -> u8 {
        if self.major >= 3 {
            3
        } else {
            2
        }
    }

    /// v4.0+: PULL and DISCARD carry one field `extra: Dict { n, qid }`; before that they
    /// are the field-less PULL_ALL / DISCARD_ALL. The same versions add `has_more` to
    /// their SUCCESS (docs/protocol.md §5.8).
    #[must_use]
    pub const fn pull_discard_has_extra(self) -> bool {
        self.major >= 4
    }

    /// Field count of PULL / DISCARD: 1 from v4.0, 0 before (docs/protocol.md §5.1, §5.8).
    #[must_use]
    pub const fn pull_discard_field_count(self) -> u8 {
        if self.pull_discard_has_extra() {
            1
        } else {
            0
        }
    }

    /// v4.0+: RUN SUCCESS inside a transaction carries `qid`, PULL/DISCARD accept it,
    /// and several results can be open in one transaction (docs/protocol.md §5.6, §6.3).
    #[must_use]
    pub const fn has_qid(self) -> bool {
        self.major >= 4
    }

    /// v4.0+: `db` (multi-database) in RUN and BEGIN extra, and in the final PULL SUCCESS
    /// (docs/protocol.md §5.6, §5.8).
    #[must_use]
    pub const fn has_database(self) -> bool {
        self.major >= 4
    }

    /// v4.1+: HELLO's `routing` context (server-side routing) (docs/protocol.md §5.3, §7).
    #[must_use]
    pub const fn has_routing_context(self) -> bool {
        self.at_least(4, 1)
    }

    /// v4.1+: NOOP chunks (`00 00` between messages) may be sent; from v4.3 the server may
    /// send them in any state as keep-alives (docs/protocol.md §4). The dechunker accepts
    /// NOOPs on every version.
    #[must_use]
    pub const fn has_noop(self) -> bool {
        self.at_least(4, 1)
    }

    /// v4.3+: the ROUTE message (`66`) exists (docs/protocol.md §5.9).
    #[must_use]
    pub const fn has_route_message(self) -> bool {
        self.at_least(4, 3)
    }

    /// The shape of ROUTE's third field: `db: String|null` in 4.3, `extra: Dict` from 4.4;
    /// `None` when ROUTE does not exist (docs/protocol.md §5.9).
    #[must_use]
    pub const fn route_db_field(self) -> Option<RouteDbField> {
        if self.at_least(4, 4) {
            Some(RouteDbField::Extra)
        } else if self.at_least(4, 3) {
            Some(RouteDbField::DbName)
        } else {
            None
        }
    }

    /// v4.3+: HELLO SUCCESS carries `hints` (e.g. `connection.recv_timeout_seconds`)
    /// (docs/protocol.md §5.3, §5.12).
    #[must_use]
    pub const fn has_hints(self) -> bool {
        self.at_least(4, 3)
    }

    /// v4.4+: `imp_user` (impersonation) in RUN, BEGIN and ROUTE, and `rt.db` in the
    /// ROUTE reply (docs/protocol.md §5.6, §5.9, §7).
    #[must_use]
    pub const fn has_impersonation(self) -> bool {
        self.at_least(4, 4)
    }

    /// v3 up to and including v5.0: the auth entries (`scheme`, `principal`,
    /// `credentials`, …) travel inside HELLO. From 5.1 they go only in LOGON
    /// (docs/protocol.md §5.3, §5.4).
    #[must_use]
    pub const fn hello_carries_auth(self) -> bool {
        self.major >= 3 && !self.at_least(5, 1)
    }

    /// v5.1+: LOGON (`6A`) / LOGOFF (`6B`) and the AUTHENTICATION state
    /// (docs/protocol.md §5.4, §6.1).
    #[must_use]
    pub const fn has_logon(self) -> bool {
        self.at_least(5, 1)
    }

    /// v5.2+: notification filters (`notifications_minimum_severity` and the disabled
    /// categories/classifications key) in HELLO, BEGIN and RUN (docs/protocol.md §5.3,
    /// §5.6).
    #[must_use]
    pub const fn has_notification_filters(self) -> bool {
        self.at_least(5, 2)
    }

    /// The key that disables notification groups in HELLO/BEGIN/RUN:
    /// `notifications_disabled_categories` in 5.2–5.4 and
    /// `notifications_disabled_classifications` from 5.6; `None` before 5.2
    /// (docs/protocol.md §5.3, §5.6, §7). (5.5, never negotiated, would get the 5.2–5.4
    /// key.)
    #[must_use]
    pub const fn disabled_notifications_key(self) -> Option<&'static str> {
        if self.at_least(5, 6) {
            Some("notifications_disabled_classifications")
        } else if self.at_least(5, 2) {
            Some("notifications_disabled_categories")
        } else {
            None
        }
    }

    /// v5.3+: `bolt_agent` in HELLO, mandatory (docs/protocol.md §5.3).
    #[must_use]
    pub const fn has_bolt_agent(self) -> bool {
        self.at_least(5, 3)
    }

    /// v5.4+: the TELEMETRY message (`54`) and the `telemetry.enabled` hint
    /// (docs/protocol.md §5.10, §5.12).
    #[must_use]
    pub const fn has_telemetry(self) -> bool {
        self.at_least(5, 4)
    }

    /// v5.6+: PULL/DISCARD SUCCESS reports GQL status objects under `statuses` instead
    /// of `notifications` (docs/protocol.md §5.8, §5.12).
    #[must_use]
    pub const fn notification_statuses(self) -> bool {
        self.at_least(5, 6)
    }

    /// The summary key holding notifications: `"statuses"` from 5.6, `"notifications"`
    /// before (docs/protocol.md §5.8).
    #[must_use]
    pub const fn summary_notifications_key(self) -> &'static str {
        if self.notification_statuses() {
            "statuses"
        } else {
            "notifications"
        }
    }

    /// v5.7+: GQL-style FAILURE metadata (`neo4j_code`, `gql_status`, `description`,
    /// `diagnostic_record`, `cause`; no `code`) (docs/protocol.md §5.11).
    #[must_use]
    pub const fn gql_failures(self) -> bool {
        self.at_least(5, 7)
    }

    /// The FAILURE key holding the Neo4j status code: `"neo4j_code"` from 5.7, `"code"`
    /// before (docs/protocol.md §5.11).
    #[must_use]
    pub const fn failure_code_key(self) -> &'static str {
        if self.gql_failures() {
            "neo4j_code"
        } else {
            "code"
        }
    }

    /// v5.7+: the handshake manifest v1 exists, and a HELLO SUCCESS on a connection that
    /// was negotiated through it carries `protocol_version` (docs/protocol.md §3.4, §5.3).
    /// Do not rely on which version introduced the manifest during the handshake itself
    /// (docs/protocol.md §11): the handshake decides by bytes, not by this query.
    #[must_use]
    pub const fn has_manifest_handshake(self) -> bool {
        self.at_least(5, 7)
    }

    /// v5.8+: home-database resolution (`db` in RUN/BEGIN SUCCESS when none was given),
    /// the `ssr.enabled` hint and `advertised_address` in LOGON SUCCESS
    /// (docs/protocol.md §5.4, §5.6, §5.7, §5.12).
    #[must_use]
    pub const fn has_home_database_resolution(self) -> bool {
        self.at_least(5, 8)
    }

    /// Start/finish timing keys in RUN and PULL/DISCARD SUCCESS: `("t_first", "t_last")`
    /// from v3, `("result_available_after", "result_consumed_after")` before
    /// (docs/protocol.md §5.6, §5.8).
    #[must_use]
    pub const fn result_timing_keys(self) -> (&'static str, &'static str) {
        if self.major >= 3 {
            ("t_first", "t_last")
        } else {
            ("result_available_after", "result_consumed_after")
        }
    }

    /// From 6.0 the FAILURE `message` text may change at any time; match on `gql_status`
    /// instead. `true` before 6.0 (docs/protocol.md §5.11).
    #[must_use]
    pub const fn failure_message_is_stable(self) -> bool {
        self.major < 6
    }

    // ----------------------------------------------------------------------------------
    // Structures and values
    // ----------------------------------------------------------------------------------

    /// v2+: the temporal and spatial structures (Date, Time, …, Point2D, Point3D)
    /// (docs/protocol.md §2.1, §7).
    #[must_use]
    pub const fn has_temporal_spatial(self) -> bool {
        self.major >= 2
    }

    /// v5.0+: Node, Relationship and UnboundRelationship carry element ids
    /// (docs/protocol.md §2.2–§2.4).
    #[must_use]
    pub const fn has_element_ids(self) -> bool {
        self.major >= 5
    }

    /// Node (`4E`) field count: 4 from v5.0, 3 before (docs/protocol.md §2.2).
    #[must_use]
    pub const fn node_field_count(self) -> u8 {
        if self.has_element_ids() {
            4
        } else {
            3
        }
    }

    /// Relationship (`52`) field count: 8 from v5.0, 5 before (docs/protocol.md §2.3).
    #[must_use]
    pub const fn relationship_field_count(self) -> u8 {
        if self.has_element_ids() {
            8
        } else {
            5
        }
    }

    /// UnboundRelationship (`72`) field count: 4 from v5.0, 3 before
    /// (docs/protocol.md §2.4).
    #[must_use]
    pub const fn unbound_relationship_field_count(self) -> u8 {
        if self.has_element_ids() {
            4
        } else {
            3
        }
    }

    /// Whether the `"utc"` patch can be requested (HELLO `patch_bolt`): 4.3 and 4.4 only
    /// (docs/protocol.md §2.6, §5.3).
    #[must_use]
    pub const fn supports_utc_patch(self) -> bool {
        self.major == 4 && (self.minor == 3 || self.minor == 4)
    }

    /// Whether DateTime values use the UTC-based structs `49`/`69`: always from 5.0, and
    /// on 4.3/4.4 once the `"utc"` patch is active; otherwise the legacy `46`/`66`.
    /// A connection accepts one pair, never both (docs/protocol.md §2.6, §2.9).
    #[must_use]
    pub const fn utc_datetime(self) -> bool {
        self.major >= 5 || (self.utc_patch && self.supports_utc_patch())
    }

    /// The DateTime struct tag in use: `0x49` (`I`) when [`Self::utc_datetime`], else the
    /// legacy `0x46` (`F`) (docs/protocol.md §2.6).
    #[must_use]
    pub const fn datetime_tag(self) -> u8 {
        if self.utc_datetime() {
            0x49
        } else {
            0x46
        }
    }

    /// The DateTimeZoneId struct tag in use: `0x69` (`i`) when [`Self::utc_datetime`],
    /// else the legacy `0x66` (`f`) (docs/protocol.md §2.6).
    #[must_use]
    pub const fn datetime_zone_id_tag(self) -> u8 {
        if self.utc_datetime() {
            0x69
        } else {
            0x66
        }
    }

    /// v6.0+: the Vector structure (`56`) (docs/protocol.md §2.8).
    #[must_use]
    pub const fn has_vector(self) -> bool {
        self.major >= 6
    }

    /// v6.0+: the UnsupportedType structure (`3F`, server to client)
    /// (docs/protocol.md §2.8).
    #[must_use]
    pub const fn has_unsupported_type(self) -> bool {
        self.major >= 6
    }

    /// v6.1+: the UUID value (PackStream "v2" marker `E0` + 16 bytes). Before 6.1 the
    /// marker is reserved and must be rejected (docs/protocol.md §1.11, §1.13).
    #[must_use]
    pub const fn has_uuid(self) -> bool {
        self.at_least(6, 1)
    }

    /// The PackStream generation: 2 (adds UUID) from 6.1, 1 before
    /// (docs/protocol.md §1.11).
    #[must_use]
    pub const fn packstream_version(self) -> u8 {
        if self.has_uuid() {
            2
        } else {
            1
        }
    }
}

impl fmt::Display for BoltVersion {
    /// Writes `major.minor`, e.g. `5.8`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Error returned when a string is not a `major.minor` version number.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid Bolt version {input:?}: expected \"major.minor\" with numbers 0-255")]
pub struct ParseVersionError {
    input: String,
}

packstream::error_kinds! {
    ParseVersionError;
    own {
        ParseVersionError { .. } => "invalid_version_string",
    }
    wrapped {}
}

impl ParseVersionError {
    /// Always `None`: the whole string is at fault.
    #[must_use]
    pub const fn offset(&self) -> Option<u64> {
        None
    }
}

impl FromStr for BoltVersion {
    type Err = ParseVersionError;

    /// Parses `"5.8"` (as in HELLO SUCCESS `protocol_version`) or a bare major `"3"`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseVersionError {
            input: s.to_owned(),
        };
        let (major, minor) = match s.split_once('.') {
            Some((a, b)) => (a, b),
            None => (s, "0"),
        };
        let num = |t: &str| -> Result<u8, ParseVersionError> {
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err());
            }
            t.parse::<u8>().map_err(|_| err())
        };
        Ok(Self::new(num(major)?, num(minor)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse() {
        assert_eq!(BoltVersion::V5_8.to_string(), "5.8");
        assert_eq!(BoltVersion::V3_0.to_string(), "3.0");
        assert_eq!("5.8".parse::<BoltVersion>(), Ok(BoltVersion::V5_8));
        assert_eq!("3".parse::<BoltVersion>(), Ok(BoltVersion::V3_0));
        for bad in [
            "", ".", "5.", ".8", "5.8.1", "256.0", "-1.0", "+5.8", "a.b", " 5.8",
        ] {
            assert!(bad.parse::<BoltVersion>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ordering_is_by_number_first() {
        let mut all: Vec<BoltVersion> = BoltVersion::SUPPORTED
            .iter()
            .chain(BoltVersion::DECODE_ONLY)
            .copied()
            .collect();
        all.sort();
        let names: Vec<String> = all.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            [
                "3.0", "4.0", "4.1", "4.2", "4.3", "4.4", "5.0", "5.1", "5.2", "5.3", "5.4", "5.6",
                "5.7", "5.8", "6.0", "6.1"
            ]
        );
        assert!(BoltVersion::V4_4.with_utc_patch(true) < BoltVersion::V5_0);
        assert!(BoltVersion::V5_8.with_capabilities(u64::MAX) < BoltVersion::V6_0);
    }

    #[test]
    fn sets_are_consistent() {
        for v in BoltVersion::SUPPORTED {
            assert!(
                v.is_supported() && v.is_known() && !v.is_decode_only(),
                "{v}"
            );
        }
        for v in BoltVersion::DECODE_ONLY {
            assert!(
                !v.is_supported() && v.is_known() && v.is_decode_only(),
                "{v}"
            );
        }
        let mut known = 0;
        for major in 0..=255u8 {
            for minor in 0..=255u8 {
                if BoltVersion::new(major, minor).is_known() {
                    known += 1;
                }
            }
        }
        assert_eq!(
            known,
            BoltVersion::SUPPORTED.len() + BoltVersion::DECODE_ONLY.len()
        );
        let v55 = BoltVersion::new(5, 5);
        assert!(!v55.is_known() && !v55.is_supported());
        // sorted newest first
        for list in [BoltVersion::SUPPORTED, BoltVersion::DECODE_ONLY] {
            assert!(list.windows(2).all(|w| matches!(w, [a, b] if a > b)));
        }
    }

    #[test]
    fn utc_patch_only_on_4_3_and_4_4() {
        assert!(BoltVersion::V4_3.with_utc_patch(true).utc_patch());
        assert!(BoltVersion::V4_4.with_utc_patch(true).utc_datetime());
        assert!(!BoltVersion::V4_2.with_utc_patch(true).utc_patch());
        assert!(!BoltVersion::V5_0.with_utc_patch(true).utc_patch());
        assert!(BoltVersion::V5_0.utc_datetime());
        assert!(!BoltVersion::V4_4.utc_datetime());
        assert_eq!(BoltVersion::V4_4.datetime_tag(), 0x46);
        assert_eq!(BoltVersion::V4_4.datetime_zone_id_tag(), 0x66);
        assert_eq!(BoltVersion::V4_4.with_utc_patch(true).datetime_tag(), 0x49);
        assert_eq!(BoltVersion::V5_0.datetime_zone_id_tag(), 0x69);
    }

    #[test]
    fn equivalence() {
        assert!(BoltVersion::V4_1.is_equivalent(BoltVersion::V4_2));
        assert!(BoltVersion::V4_2.is_equivalent(BoltVersion::V4_1));
        assert!(!BoltVersion::V4_2.is_equivalent(BoltVersion::V4_3));
        assert!(BoltVersion::V5_8.is_equivalent(BoltVersion::V5_8.with_capabilities(1)));
        assert_ne!(BoltVersion::V5_8, BoltVersion::V5_8.with_capabilities(1));
    }

    #[test]
    fn feature_table() {
        use BoltVersion as V;
        // (version, element ids, logon, telemetry, statuses, gql failures, vector, uuid)
        let table = [
            (V::V3_0, false, false, false, false, false, false, false),
            (V::V4_4, false, false, false, false, false, false, false),
            (V::V5_0, true, false, false, false, false, false, false),
            (V::V5_1, true, true, false, false, false, false, false),
            (V::V5_4, true, true, true, false, false, false, false),
            (V::V5_6, true, true, true, true, false, false, false),
            (V::V5_7, true, true, true, true, true, false, false),
            (V::V5_8, true, true, true, true, true, false, false),
            (V::V6_0, true, true, true, true, true, true, false),
            (V::V6_1, true, true, true, true, true, true, true),
        ];
        for (v, eid, logon, tel, st, gql, vec, uuid) in table {
            assert_eq!(v.has_element_ids(), eid, "{v}");
            assert_eq!(v.has_logon(), logon, "{v}");
            assert_eq!(v.hello_carries_auth(), !logon, "{v}");
            assert_eq!(v.has_telemetry(), tel, "{v}");
            assert_eq!(v.notification_statuses(), st, "{v}");
            assert_eq!(v.gql_failures(), gql, "{v}");
            assert_eq!(v.has_vector(), vec, "{v}");
            assert_eq!(v.has_unsupported_type(), vec, "{v}");
            assert_eq!(v.has_uuid(), uuid, "{v}");
            assert_eq!(v.packstream_version(), if uuid { 2 } else { 1 }, "{v}");
        }
        assert_eq!(V::V3_0.run_field_count(), 3);
        assert_eq!(V::new(2, 0).run_field_count(), 2);
        assert_eq!(V::V3_0.pull_discard_field_count(), 0);
        assert_eq!(V::V4_0.pull_discard_field_count(), 1);
        assert_eq!(V::V4_2.route_db_field(), None);
        assert_eq!(V::V4_3.route_db_field(), Some(RouteDbField::DbName));
        assert_eq!(V::V4_4.route_db_field(), Some(RouteDbField::Extra));
        assert_eq!(V::V5_1.disabled_notifications_key(), None);
        assert_eq!(
            V::V5_4.disabled_notifications_key(),
            Some("notifications_disabled_categories")
        );
        assert_eq!(
            V::V5_6.disabled_notifications_key(),
            Some("notifications_disabled_classifications")
        );
        assert_eq!(V::V5_6.failure_code_key(), "code");
        assert_eq!(V::V5_7.failure_code_key(), "neo4j_code");
        assert_eq!(V::V5_4.summary_notifications_key(), "notifications");
        assert_eq!(V::V5_6.summary_notifications_key(), "statuses");
        assert_eq!(V::V4_4.node_field_count(), 3);
        assert_eq!(V::V5_0.relationship_field_count(), 8);
        assert_eq!(V::V4_4.unbound_relationship_field_count(), 3);
        assert!(!V::V5_7.has_home_database_resolution());
        assert!(V::V5_8.has_home_database_resolution());
        assert!(V::V5_8.failure_message_is_stable());
        assert!(!V::V6_0.failure_message_is_stable());
        assert_eq!(
            V::new(2, 0).result_timing_keys().0,
            "result_available_after"
        );
        assert_eq!(V::V3_0.result_timing_keys(), ("t_first", "t_last"));
        assert!(!V::V4_0.has_noop() && V::V4_1.has_noop());
        assert!(!V::V4_3.has_impersonation() && V::V4_4.has_impersonation());
    }
}
