//! ROUTE (`66`, v4.3+): asks for a routing table (docs/protocol.md §5.9).

use packstream::ValueRef;

use super::dict::{Dict, IntoValueRef};
use super::error::MessageEncodeError;

/// ROUTE (`66`, v4.3+): `routing: Dict, bookmarks: List<String>` and a third field that
/// depends on the version (docs/protocol.md §5.9):
///
/// * 4.4+: `extra: Dict {db?, imp_user?}`;
/// * 4.3: `db: String | null`.
///
/// Both forms are held in [`Route::extra`]: a 4.3 `db` string decodes as
/// `{"db": "…"}` and a 4.3 `null` as `{}`; encoding for 4.3 writes `extra["db"]` (or
/// `null`) and fails if `extra` holds anything else.
///
/// ```
/// use bolt::message::{Dict, Request, Route};
/// use bolt::BoltVersion;
///
/// let route = Route::new(Dict::new().with("address", "localhost:7687"));
/// // docs/protocol.md §5.1 examples: 4.4 sends {"db": null}, 4.3 a bare null.
/// let v44 = Request::Route(route.clone().with_extra("db", None::<&str>)).to_vec(BoltVersion::V4_4)?;
/// assert_eq!(v44, b"\xB3\x66\xA1\x87address\x8Elocalhost:7687\x90\xA1\x82db\xC0");
/// let v43 = Request::Route(route.clone()).to_vec(BoltVersion::V4_3)?;
/// assert_eq!(v43, b"\xB3\x66\xA1\x87address\x8Elocalhost:7687\x90\xC0");
///
/// let named = route.with_db("neo4j").with_bookmarks(["FB:x"]);
/// let bytes = Request::Route(named.clone()).to_vec(BoltVersion::V4_3)?;
/// assert_eq!(Request::decode(&bytes, BoltVersion::V4_3)?, Request::Route(named.clone()));
/// // imp_user cannot be sent in 4.3
/// assert!(Request::Route(named.with_imp_user("bob")).to_vec(BoltVersion::V4_3).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Route<'a> {
    /// The routing context: the URI query parameters plus `address`.
    pub routing: Dict<'a>,
    /// The bookmarks.
    pub bookmarks: Vec<&'a str>,
    /// The `extra` dict (4.4+), or `{"db": …}` for the 4.3 form.
    pub extra: Dict<'a>,
}

impl<'a> Route<'a> {
    /// A ROUTE with this routing context, no bookmarks and an empty `extra`.
    #[must_use]
    pub fn new(routing: Dict<'a>) -> Self {
        Route {
            routing,
            bookmarks: Vec::new(),
            extra: Dict::new(),
        }
    }

    /// `db`: the database whose routing table is wanted (`None` = default/home).
    #[must_use]
    pub fn db(&self) -> Option<&'a str> {
        self.extra.get_str("db")
    }

    /// `imp_user` (4.4+): resolve that user's home database.
    #[must_use]
    pub fn imp_user(&self) -> Option<&'a str> {
        self.extra.get_str("imp_user")
    }

    /// Sets the bookmarks.
    #[must_use]
    pub fn with_bookmarks(mut self, bookmarks: impl IntoIterator<Item = &'a str>) -> Self {
        self.bookmarks = bookmarks.into_iter().collect();
        self
    }

    /// Sets `db`.
    #[must_use]
    pub fn with_db(mut self, db: &'a str) -> Self {
        self.extra.insert("db", db);
        self
    }

    /// Sets `imp_user` (4.4+).
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

    /// The 4.3 `db` field for this `extra`: `Ok(None)` for null.
    pub(crate) fn db_field_v43(
        &self,
        version: crate::BoltVersion,
    ) -> Result<Option<&'a str>, MessageEncodeError> {
        let err = |what| MessageEncodeError::Unrepresentable {
            message: "ROUTE",
            version,
            what,
        };
        match self.extra.entries() {
            [] | [("db", ValueRef::Null)] => Ok(None),
            [("db", ValueRef::String(s))] => Ok(Some(s)),
            [("db", _)] => Err(err("a `db` that is not a string or null")),
            _ => Err(err("`extra` entries other than `db`")),
        }
    }

    /// The `extra` for a 4.3 `db` field.
    pub(crate) fn extra_from_v43(db: Option<&'a str>) -> Dict<'a> {
        match db {
            Some(db) => Dict::new().with("db", db),
            None => Dict::new(),
        }
    }
}
