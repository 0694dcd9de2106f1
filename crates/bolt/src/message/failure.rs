//! FAILURE (`7F`) and its GQL error view (docs/protocol.md §5.11).

use super::dict::{get, get_str, Dict, Entries, IntoValueRef};
use crate::version::BoltVersion;

/// FAILURE (`7F`): `metadata: Dict` (docs/protocol.md §5.11).
///
/// Up to 5.6 the metadata is `{code, message}`; from 5.7 it is GQL-style:
/// `{neo4j_code, message, gql_status, description, diagnostic_record?, cause?}`, where
/// `cause` nests another error of the same shape. The accessors read both forms
/// ([`Failure::code`] takes `neo4j_code` or `code`); [`Failure::metadata`] keeps every
/// entry.
///
/// ```
/// use bolt::message::{Dict, Failure, Response};
/// use bolt::BoltVersion;
///
/// let v = BoltVersion::V5_8;
/// let failure = Failure::new(v, "Neo.ClientError.Request.Invalid", "bad request")
///     .with_gql_status("08N06")
///     .with_description("error: connection exception - protocol error.")
///     .with_diagnostic_record(Dict::new().with("_classification", "CLIENT_ERROR"))
///     .with_cause(Dict::new().with("message", "inner").with("gql_status", "08N10"));
/// let bytes = Response::Failure(failure).to_vec(v)?;
///
/// let Response::Failure(f) = Response::decode(&bytes, v)? else { panic!() };
/// assert_eq!(f.code(), Some("Neo.ClientError.Request.Invalid"));
/// assert_eq!(f.metadata.keys().next(), Some("neo4j_code")); // the 5.7+ key
/// assert_eq!(f.gql_status(), Some("08N06"));
/// assert_eq!(f.classification(), Some("CLIENT_ERROR"));
/// assert_eq!(f.cause().and_then(|c| c.gql_status()), Some("08N10"));
/// assert_eq!(f.cause().and_then(|c| c.message()), Some("inner"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Failure<'a> {
    /// The metadata, every entry in wire order.
    pub metadata: Dict<'a>,
}

impl<'a> Failure<'a> {
    /// A FAILURE with the status code under `version`'s key (`code` up to 5.6,
    /// `neo4j_code` from 5.7, [`BoltVersion::failure_code_key`]) and `message`.
    #[must_use]
    pub fn new(version: BoltVersion, code: &'a str, message: &'a str) -> Self {
        Failure {
            metadata: Dict::with_capacity(4)
                .with(version.failure_code_key(), code)
                .with("message", message),
        }
    }

    /// A FAILURE with this metadata.
    #[must_use]
    pub fn from_metadata(metadata: Dict<'a>) -> Self {
        Failure { metadata }
    }

    /// Sets `gql_status` (5.7+).
    #[must_use]
    pub fn with_gql_status(self, status: &'a str) -> Self {
        self.with("gql_status", status)
    }

    /// Sets `description` (5.7+).
    #[must_use]
    pub fn with_description(self, description: &'a str) -> Self {
        self.with("description", description)
    }

    /// Sets `diagnostic_record` (5.7+).
    #[must_use]
    pub fn with_diagnostic_record(self, record: Dict<'a>) -> Self {
        self.with("diagnostic_record", record)
    }

    /// Sets `cause` (5.7+), a nested error dict.
    #[must_use]
    pub fn with_cause(self, cause: Dict<'a>) -> Self {
        self.with("cause", cause)
    }

    /// Sets any metadata entry.
    #[must_use]
    pub fn with(mut self, key: &'a str, value: impl IntoValueRef<'a>) -> Self {
        self.metadata.insert(key, value);
        self
    }

    /// The error as a [`GqlError`] view (the accessors below delegate to it).
    #[must_use]
    pub fn error(&self) -> GqlError<'_, 'a> {
        GqlError {
            entries: self.metadata.entries(),
        }
    }

    /// The Neo4j status code: `neo4j_code` (5.7+) or `code` (up to 5.6).
    #[must_use]
    pub fn code(&self) -> Option<&'a str> {
        self.error().code()
    }

    /// `message`, the readable text (not stable from 6.0; match on `gql_status`).
    #[must_use]
    pub fn message(&self) -> Option<&'a str> {
        self.error().message()
    }

    /// `gql_status` (5.7+), the 5-character GQLSTATUS.
    #[must_use]
    pub fn gql_status(&self) -> Option<&'a str> {
        self.error().gql_status()
    }

    /// `description` (5.7+), the standard text of the GQLSTATUS.
    #[must_use]
    pub fn description(&self) -> Option<&'a str> {
        self.error().description()
    }

    /// `diagnostic_record` (5.7+).
    #[must_use]
    pub fn diagnostic_record(&self) -> Option<&Entries<'a>> {
        self.error().diagnostic_record()
    }

    /// `diagnostic_record._classification` (5.7+), e.g. "CLIENT_ERROR".
    #[must_use]
    pub fn classification(&self) -> Option<&'a str> {
        self.error().classification()
    }

    /// `cause` (5.7+), the nested error.
    #[must_use]
    pub fn cause(&self) -> Option<GqlError<'_, 'a>> {
        self.error().cause()
    }
}

/// A read-only view of a FAILURE's metadata or of one of its nested `cause` dicts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GqlError<'b, 'a> {
    entries: &'b Entries<'a>,
}

impl<'b, 'a> GqlError<'b, 'a> {
    /// A view of these entries.
    #[must_use]
    pub fn new(entries: &'b Entries<'a>) -> Self {
        GqlError { entries }
    }

    /// All entries.
    #[must_use]
    pub fn entries(&self) -> &'b Entries<'a> {
        self.entries
    }

    /// `neo4j_code`, else `code`.
    #[must_use]
    pub fn code(&self) -> Option<&'a str> {
        get_str(self.entries, "neo4j_code").or_else(|| get_str(self.entries, "code"))
    }

    /// `message`.
    #[must_use]
    pub fn message(&self) -> Option<&'a str> {
        get_str(self.entries, "message")
    }

    /// `gql_status`.
    #[must_use]
    pub fn gql_status(&self) -> Option<&'a str> {
        get_str(self.entries, "gql_status")
    }

    /// `description`.
    #[must_use]
    pub fn description(&self) -> Option<&'a str> {
        get_str(self.entries, "description")
    }

    /// `diagnostic_record`.
    #[must_use]
    pub fn diagnostic_record(&self) -> Option<&'b Entries<'a>> {
        get(self.entries, "diagnostic_record").and_then(|v| v.as_map())
    }

    /// `diagnostic_record._classification`.
    #[must_use]
    pub fn classification(&self) -> Option<&'a str> {
        get_str(self.diagnostic_record()?, "_classification")
    }

    /// `cause`, the nested error.
    #[must_use]
    pub fn cause(&self) -> Option<GqlError<'b, 'a>> {
        get(self.entries, "cause")
            .and_then(|v| v.as_map())
            .map(GqlError::new)
    }

    /// This error and its chain of causes, outermost first.
    pub fn chain(&self) -> impl Iterator<Item = GqlError<'b, 'a>> {
        core::iter::successors(Some(*self), GqlError::cause)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::hex;
    use super::super::Response;
    use super::*;

    #[test]
    fn classic_failure() {
        // FAILURE {"code": "Neo.ClientError.Statement.SyntaxError", "message": "bad"}
        let v = BoltVersion::V5_6;
        let bytes = Response::Failure(Failure::new(
            v,
            "Neo.ClientError.Statement.SyntaxError",
            "bad",
        ))
        .to_vec(v)
        .unwrap();
        let mut expected = hex("B1 7F A2 84 63 6F 64 65 D0 25");
        expected.extend(b"Neo.ClientError.Statement.SyntaxError");
        expected.extend(hex("87 6D 65 73 73 61 67 65 83 62 61 64"));
        assert_eq!(bytes, expected);
        let Response::Failure(f) = Response::decode(&bytes, v).unwrap() else {
            panic!()
        };
        assert_eq!(f.code(), Some("Neo.ClientError.Statement.SyntaxError"));
        assert_eq!(f.message(), Some("bad"));
        assert_eq!(
            (f.gql_status(), f.description(), f.classification()),
            (None, None, None)
        );
        assert!(f.cause().is_none() && f.diagnostic_record().is_none());
        assert_eq!(f.error().chain().count(), 1);
    }

    #[test]
    fn gql_failure_with_nested_causes() {
        let v = BoltVersion::V6_0;
        let innermost = Dict::new()
            .with("message", "c2")
            .with("gql_status", "22N02");
        let inner = Dict::new()
            .with("message", "c1")
            .with("gql_status", "22N01")
            .with("description", "d1")
            .with(
                "diagnostic_record",
                Dict::new().with("_classification", "DATABASE_ERROR"),
            )
            .with("cause", innermost);
        let f = Failure::new(v, "Neo.DatabaseError.General.UnknownError", "outer")
            .with_gql_status("50N00")
            .with_description("d0")
            .with("unknown_key", 42)
            .with_cause(inner);
        let bytes = Response::Failure(f.clone()).to_vec(v).unwrap();
        let Response::Failure(back) = Response::decode(&bytes, v).unwrap() else {
            panic!()
        };
        assert_eq!(back, f);
        assert_eq!(back.metadata.get_int("unknown_key"), Some(42));
        let chain: Vec<_> = back.error().chain().map(|e| e.gql_status()).collect();
        assert_eq!(chain, [Some("50N00"), Some("22N01"), Some("22N02")]);
        let cause = back.cause().unwrap();
        assert_eq!(cause.classification(), Some("DATABASE_ERROR"));
        assert_eq!(cause.description(), Some("d1"));
        assert_eq!(cause.message(), Some("c1"));
        assert_eq!(cause.code(), None);
        assert_eq!(GqlError::new(cause.entries()).message(), Some("c1"));
    }
}
