//! [`Dict`], the ordered borrowed map every message's `extra` / metadata / parameters
//! field is, and [`IntoValueRef`], the conversion the request builders accept.

use core::fmt;

use packstream::{StructRef, Value, ValueRef};

/// The entries of a PackStream map as decoded: keys and values borrowed from the
/// message bytes, in wire order.
pub type Entries<'a> = [(&'a str, ValueRef<'a>)];

/// An ordered map of string keys to borrowed values: the `extra` dicts, the RUN
/// parameters, the auth token, and the SUCCESS / FAILURE metadata.
///
/// * **Order is kept.** Entries stay in the order they were decoded or inserted, so
///   re-encoding gives the same bytes (the official drivers' output is reproduced
///   exactly when you insert keys in their order).
/// * **Nothing is lost.** Unknown keys, and even duplicate keys, are kept; lookups follow
///   the PackStream rule that the last entry for a key wins.
/// * **Borrowed.** Keys are `&'a str` and values [`ValueRef<'a>`]: a decoded dict points
///   into the message bytes; a dict you build points into your data (string literals,
///   or an owned [`Value`] via [`IntoValueRef`]).
///
/// Typed getters (`get_str`, `get_int`, …) return `None` when the key is absent *or*
/// holds another type; use [`Dict::get`] to tell the two apart.
///
/// ```
/// use bolt::message::Dict;
/// use packstream::ValueRef;
///
/// let mut d = Dict::new().with("db", "neo4j").with("tx_timeout", 5000);
/// d.insert("db", "system"); // replaces in place
/// assert_eq!(d.get_str("db"), Some("system"));
/// assert_eq!(d.get_int("tx_timeout"), Some(5000));
/// assert_eq!(d.get_str("tx_timeout"), None); // wrong type
/// assert_eq!(d.get("tx_timeout"), Some(&ValueRef::Int(5000)));
/// let keys: Vec<&str> = d.keys().collect();
/// assert_eq!(keys, ["db", "tx_timeout"]);
/// assert_eq!(d.to_string(), r#"{"db": "system", "tx_timeout": 5000}"#);
/// ```
#[derive(Clone, Default, PartialEq)]
pub struct Dict<'a> {
    entries: Vec<(&'a str, ValueRef<'a>)>,
}

impl<'a> Dict<'a> {
    /// An empty dict.
    #[must_use]
    pub const fn new() -> Self {
        Dict {
            entries: Vec::new(),
        }
    }

    /// An empty dict with room for `n` entries.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        Dict {
            entries: Vec::with_capacity(n),
        }
    }

    /// The number of entries (duplicates counted).
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the dict has no entry.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in order.
    #[must_use]
    pub fn entries(&self) -> &Entries<'a> {
        &self.entries
    }

    /// The entries, by value.
    #[must_use]
    pub fn into_entries(self) -> Vec<(&'a str, ValueRef<'a>)> {
        self.entries
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.entries.iter().map(|(k, _)| *k)
    }

    /// The entries in order.
    pub fn iter(&self) -> core::slice::Iter<'_, (&'a str, ValueRef<'a>)> {
        self.entries.iter()
    }

    /// The value of `key` (the last entry wins when the key is repeated).
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&ValueRef<'a>> {
        get(&self.entries, key)
    }

    /// Whether `key` is present (with any value, `null` included).
    #[must_use]
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The string value of `key`.
    #[must_use]
    pub fn get_str(&self, key: &str) -> Option<&'a str> {
        self.get(key).and_then(str_of)
    }

    /// The integer value of `key`.
    #[must_use]
    pub fn get_int(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(ValueRef::as_int)
    }

    /// The boolean value of `key`.
    #[must_use]
    pub fn get_bool(&self, key: &str) -> Option<bool> {
        self.get(key).and_then(ValueRef::as_bool)
    }

    /// The list value of `key`.
    #[must_use]
    pub fn get_list(&self, key: &str) -> Option<&[ValueRef<'a>]> {
        self.get(key).and_then(ValueRef::as_list)
    }

    /// The map value of `key`, as its entries.
    #[must_use]
    pub fn get_map(&self, key: &str) -> Option<&Entries<'a>> {
        self.get(key).and_then(ValueRef::as_map)
    }

    /// The value of `key` if it is a list of strings (`None` if any item is not one).
    #[must_use]
    pub fn get_str_list(&self, key: &str) -> Option<Vec<&'a str>> {
        self.get(key).and_then(str_list_of)
    }

    /// Sets `key` to `value`: replaces the value of the (last) existing entry in place,
    /// or appends a new entry. Returns the old value.
    pub fn insert(&mut self, key: &'a str, value: impl IntoValueRef<'a>) -> Option<ValueRef<'a>> {
        let value = value.into_value_ref();
        match self.entries.iter_mut().rev().find(|(k, _)| *k == key) {
            Some((_, v)) => Some(core::mem::replace(v, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// [`Dict::insert`] in builder form.
    #[must_use]
    pub fn with(mut self, key: &'a str, value: impl IntoValueRef<'a>) -> Self {
        self.insert(key, value);
        self
    }

    /// Appends an entry without looking for an existing one (so a key can be repeated,
    /// as PackStream allows).
    pub fn push(&mut self, key: &'a str, value: impl IntoValueRef<'a>) {
        self.entries.push((key, value.into_value_ref()));
    }

    /// Removes every entry for `key`; returns the value that was in effect (the last).
    pub fn remove(&mut self, key: &str) -> Option<ValueRef<'a>> {
        let mut removed = None;
        self.entries.retain_mut(|(k, v)| {
            if *k == key {
                removed = Some(core::mem::replace(v, ValueRef::Null));
                false
            } else {
                true
            }
        });
        removed
    }

    /// This dict as a map [`ValueRef`] (clones the entries).
    #[must_use]
    pub fn to_value_ref(&self) -> ValueRef<'a> {
        ValueRef::Map(self.entries.clone())
    }

    /// An owned copy as a map [`Value`].
    #[must_use]
    pub fn to_owned_value(&self) -> Value {
        Value::Map(
            self.entries
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.to_owned_value()))
                .collect(),
        )
    }

    /// A dict borrowing the entries of an owned map [`Value`]; `None` if `value` is not
    /// a map.
    ///
    /// ```
    /// use bolt::message::Dict;
    /// use packstream::Value;
    ///
    /// let owned = Value::Map(vec![("x".to_owned(), Value::from(1))]);
    /// let dict = Dict::from_value(&owned).expect("a map");
    /// assert_eq!(dict.get_int("x"), Some(1));
    /// ```
    #[must_use]
    pub fn from_value(value: &'a Value) -> Option<Self> {
        match value {
            Value::Map(m) => Some(Dict {
                entries: m
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_value_ref()))
                    .collect(),
            }),
            _ => None,
        }
    }

    /// Writes the entries like [`fmt::Display`], with the values of the keys in
    /// `redact` (recursively) replaced by `"********"`.
    pub(crate) fn fmt_redacted(&self, f: &mut fmt::Formatter<'_>, redact: &[&str]) -> fmt::Result {
        fmt_entries(f, &self.entries, redact)
    }
}

/// Keys whose values are never printed by `Debug` / `Display` of messages.
pub(crate) const SECRET_KEYS: &[&str] = &["credentials"];

/// Nested maps are followed (for redaction) with an explicit stack, not by recursion: a
/// server's metadata can nest as deep as the decode limits allow (regression test
/// `debug_of_deeply_nested_metadata_overflowed_the_stack`).
fn fmt_entries(f: &mut fmt::Formatter<'_>, entries: &Entries<'_>, redact: &[&str]) -> fmt::Result {
    f.write_str("{")?;
    let mut stack = vec![(entries.iter(), false)];
    while let Some((top, started)) = stack.last_mut() {
        let Some((k, v)) = top.next() else {
            f.write_str("}")?;
            stack.pop();
            continue;
        };
        if *started {
            f.write_str(", ")?;
        }
        *started = true;
        write!(f, "{k:?}: ")?;
        if redact.contains(k) {
            f.write_str("\"********\"")?;
        } else if let ValueRef::Map(inner) = v {
            f.write_str("{")?;
            stack.push((inner.iter(), false));
        } else {
            write!(f, "{v}")?;
        }
    }
    Ok(())
}

impl fmt::Display for Dict<'_> {
    /// JSON-like, as [`ValueRef`]'s `Display`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_entries(f, &self.entries, &[])
    }
}

impl fmt::Debug for Dict<'_> {
    /// Like `Display`, except that `credentials` values are replaced by asterisks so
    /// that logging a message never leaks a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Dict")?;
        self.fmt_redacted(f, SECRET_KEYS)
    }
}

impl<'a> From<Vec<(&'a str, ValueRef<'a>)>> for Dict<'a> {
    fn from(entries: Vec<(&'a str, ValueRef<'a>)>) -> Self {
        Dict { entries }
    }
}

impl<'a> From<Dict<'a>> for Vec<(&'a str, ValueRef<'a>)> {
    fn from(d: Dict<'a>) -> Self {
        d.entries
    }
}

impl<'a, V: IntoValueRef<'a>> FromIterator<(&'a str, V)> for Dict<'a> {
    fn from_iter<I: IntoIterator<Item = (&'a str, V)>>(iter: I) -> Self {
        Dict {
            entries: iter
                .into_iter()
                .map(|(k, v)| (k, v.into_value_ref()))
                .collect(),
        }
    }
}

impl<'a> IntoIterator for Dict<'a> {
    type Item = (&'a str, ValueRef<'a>);
    type IntoIter = std::vec::IntoIter<(&'a str, ValueRef<'a>)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'b, 'a> IntoIterator for &'b Dict<'a> {
    type Item = &'b (&'a str, ValueRef<'a>);
    type IntoIter = core::slice::Iter<'b, (&'a str, ValueRef<'a>)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

/// Conversion into a [`ValueRef<'a>`], accepted by [`Dict::insert`] and every request
/// builder. Implemented for the scalars, strings borrowed for `'a`, byte slices (as
/// PackStream bytes), [`ValueRef`], a borrowed owned [`Value`], [`Dict`], `Option`
/// (`None` is `null`), and `Vec`, arrays and `&[&str]` (lists).
///
/// ```
/// use bolt::message::{Dict, IntoValueRef};
/// use packstream::{Value, ValueRef};
///
/// let name = String::from("Alice");
/// let tags = Value::from(vec![Value::from("a"), Value::from("b")]);
/// let params = Dict::new()
///     .with("name", &name)
///     .with("age", 33)
///     .with("score", 1.5)
///     .with("tags", &tags)
///     .with("nick", None::<&str>)
///     .with("ids", vec![1, 2, 3]);
/// assert_eq!(params.get("nick"), Some(&ValueRef::Null));
/// assert_eq!(params.to_string(),
///     r#"{"name": "Alice", "age": 33, "score": 1.5, "tags": ["a", "b"], "nick": null, "ids": [1, 2, 3]}"#);
/// assert_eq!(b"\x01".as_slice().into_value_ref(), ValueRef::Bytes(&[1]));
/// ```
pub trait IntoValueRef<'a> {
    /// The value.
    fn into_value_ref(self) -> ValueRef<'a>;
}

impl<'a> IntoValueRef<'a> for ValueRef<'a> {
    fn into_value_ref(self) -> ValueRef<'a> {
        self
    }
}

impl<'a> IntoValueRef<'a> for &ValueRef<'a> {
    fn into_value_ref(self) -> ValueRef<'a> {
        self.clone()
    }
}

impl<'a> IntoValueRef<'a> for &'a Value {
    fn into_value_ref(self) -> ValueRef<'a> {
        self.as_value_ref()
    }
}

impl<'a> IntoValueRef<'a> for &'a str {
    fn into_value_ref(self) -> ValueRef<'a> {
        ValueRef::String(self)
    }
}

impl<'a> IntoValueRef<'a> for &'a String {
    fn into_value_ref(self) -> ValueRef<'a> {
        ValueRef::String(self)
    }
}

impl<'a> IntoValueRef<'a> for &'a [u8] {
    fn into_value_ref(self) -> ValueRef<'a> {
        ValueRef::Bytes(self)
    }
}

impl<'a> IntoValueRef<'a> for Dict<'a> {
    fn into_value_ref(self) -> ValueRef<'a> {
        ValueRef::Map(self.entries)
    }
}

impl<'a> IntoValueRef<'a> for StructRef<'a> {
    fn into_value_ref(self) -> ValueRef<'a> {
        ValueRef::Struct(self)
    }
}

impl<'a> IntoValueRef<'a> for bool {
    fn into_value_ref(self) -> ValueRef<'a> {
        ValueRef::Bool(self)
    }
}

impl<'a> IntoValueRef<'a> for f64 {
    fn into_value_ref(self) -> ValueRef<'a> {
        ValueRef::Float(self)
    }
}

macro_rules! into_int {
    ($($t:ty),*) => {$(
        impl<'a> IntoValueRef<'a> for $t {
            fn into_value_ref(self) -> ValueRef<'a> {
                ValueRef::Int(i64::from(self))
            }
        }
    )*};
}
into_int!(i8, i16, i32, i64, u8, u16, u32);

impl<'a, T: IntoValueRef<'a>> IntoValueRef<'a> for Option<T> {
    fn into_value_ref(self) -> ValueRef<'a> {
        self.map_or(ValueRef::Null, IntoValueRef::into_value_ref)
    }
}

impl<'a, T: IntoValueRef<'a>> IntoValueRef<'a> for Vec<T> {
    fn into_value_ref(self) -> ValueRef<'a> {
        ValueRef::List(self.into_iter().map(IntoValueRef::into_value_ref).collect())
    }
}

impl<'a, T: IntoValueRef<'a>, const N: usize> IntoValueRef<'a> for [T; N] {
    fn into_value_ref(self) -> ValueRef<'a> {
        ValueRef::List(self.into_iter().map(IntoValueRef::into_value_ref).collect())
    }
}

impl<'a> IntoValueRef<'a> for &[&'a str] {
    fn into_value_ref(self) -> ValueRef<'a> {
        ValueRef::List(self.iter().map(|s| ValueRef::String(s)).collect())
    }
}

// ---------------------------------------------------------------------------------------
// Lookup helpers shared by the typed accessors
// ---------------------------------------------------------------------------------------

/// The value of `key` in `entries`, last entry winning.
pub(crate) fn get<'b, 'a>(entries: &'b Entries<'a>, key: &str) -> Option<&'b ValueRef<'a>> {
    entries
        .iter()
        .rev()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// The string of a string value, with the lifetime of the underlying bytes.
pub(crate) fn str_of<'a>(v: &ValueRef<'a>) -> Option<&'a str> {
    match v {
        ValueRef::String(s) => Some(s),
        _ => None,
    }
}

/// The items of a list of strings.
pub(crate) fn str_list_of<'a>(v: &ValueRef<'a>) -> Option<Vec<&'a str>> {
    v.as_list()?.iter().map(str_of).collect()
}

/// `get` + `str_of`.
pub(crate) fn get_str<'a>(entries: &Entries<'a>, key: &str) -> Option<&'a str> {
    get(entries, key).and_then(str_of)
}

/// A list value of strings.
pub(crate) fn str_list<'a>(items: impl IntoIterator<Item = &'a str>) -> ValueRef<'a> {
    ValueRef::List(items.into_iter().map(ValueRef::String).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_duplicates_and_lookup() {
        let mut d: Dict<'_> = vec![
            ("a", ValueRef::Int(1)),
            ("b", ValueRef::Int(2)),
            ("a", ValueRef::Int(3)),
        ]
        .into();
        // the last entry wins, as in PackStream
        assert_eq!(d.get_int("a"), Some(3));
        assert_eq!(d.len(), 3);
        // insert replaces the effective (last) entry in place
        assert_eq!(d.insert("a", 4), Some(ValueRef::Int(3)));
        assert_eq!(d.entries()[0], ("a", ValueRef::Int(1)));
        assert_eq!(d.entries()[2], ("a", ValueRef::Int(4)));
        d.push("b", 5);
        assert_eq!(d.get_int("b"), Some(5));
        assert_eq!(d.remove("a"), Some(ValueRef::Int(4)));
        assert!(!d.contains_key("a"));
        assert_eq!(d.keys().collect::<Vec<_>>(), ["b", "b"]);
        assert_eq!(d.remove("zz"), None);
        let v: Vec<(&str, ValueRef<'_>)> = d.clone().into();
        assert_eq!(v.len(), 2);
        assert_eq!(d.iter().count(), 2);
        assert_eq!((&d).into_iter().count(), 2);
        assert_eq!(d.clone().into_entries().len(), 2);
    }

    #[test]
    fn typed_getters_are_strict_about_types() {
        let bytes = [1u8, 2];
        let d = Dict::new()
            .with("s", "x")
            .with("i", 7)
            .with("b", true)
            .with("l", vec!["p", "q"])
            .with("mixed", vec![ValueRef::String("p"), ValueRef::Int(1)])
            .with("m", Dict::new().with("k", 1))
            .with("n", None::<i64>)
            .with("bytes", &bytes[..])
            .with("f", 0.5);
        assert_eq!(d.get_str("s"), Some("x"));
        assert_eq!(d.get_str("i"), None);
        assert_eq!(d.get_int("i"), Some(7));
        assert_eq!(d.get_bool("b"), Some(true));
        assert_eq!(d.get_list("l").map(<[_]>::len), Some(2));
        assert_eq!(d.get_str_list("l"), Some(vec!["p", "q"]));
        assert_eq!(d.get_str_list("mixed"), None);
        assert_eq!(d.get_map("m").map(<[_]>::len), Some(1));
        assert_eq!(d.get("n"), Some(&ValueRef::Null));
        assert_eq!(d.get_str("n"), None);
        assert_eq!(d.get("bytes"), Some(&ValueRef::Bytes(&[1, 2])));
        assert_eq!(d.get("f"), Some(&ValueRef::Float(0.5)));
        assert_eq!(d.get("missing"), None);
        let owned = d.to_owned_value();
        assert_eq!(Dict::from_value(&owned), Some(d.clone()));
        assert_eq!(Dict::from_value(&Value::Null), None);
        assert_eq!(d.to_value_ref().as_map().map(<[_]>::len), Some(d.len()));
    }

    #[test]
    fn conversions() {
        let s = String::from("owned");
        let v = Value::from(vec![Value::from(1)]);
        let r = ValueRef::Int(9);
        let d: Dict<'_> = [
            ("s", s.as_str().into_value_ref()),
            ("string", (&s).into_value_ref()),
            ("v", (&v).into_value_ref()),
            ("r", (&r).into_value_ref()),
            ("arr", [1u8, 2].into_value_ref()),
            ("strs", (&["a", "b"][..]).into_value_ref()),
            (
                "st",
                StructRef {
                    tag: 0x58,
                    fields: vec![],
                }
                .into_value_ref(),
            ),
            ("i8", (-1i8).into_value_ref()),
            ("u32", u32::MAX.into_value_ref()),
        ]
        .into_iter()
        .collect();
        assert_eq!(d.get_str("s"), Some("owned"));
        assert_eq!(d.get_str("string"), Some("owned"));
        assert_eq!(d.get_list("v"), Some(&[ValueRef::Int(1)][..]));
        assert_eq!(d.get_int("r"), Some(9));
        assert_eq!(d.get_list("arr").map(<[_]>::len), Some(2));
        assert_eq!(d.get_str_list("strs"), Some(vec!["a", "b"]));
        assert!(matches!(d.get("st"), Some(ValueRef::Struct(_))));
        assert_eq!(d.get_int("i8"), Some(-1));
        assert_eq!(d.get_int("u32"), Some(i64::from(u32::MAX)));
    }

    #[test]
    fn debug_redacts_credentials_everywhere() {
        let d = Dict::new()
            .with("scheme", "basic")
            .with("credentials", "top-secret")
            .with("nested", Dict::new().with("credentials", "also-secret"));
        let debug = format!("{d:?}");
        assert!(!debug.contains("secret"), "{debug}");
        assert_eq!(
            debug,
            r#"Dict{"scheme": "basic", "credentials": "********", "nested": {"credentials": "********"}}"#
        );
        // Display is the plain rendering
        assert!(d.to_string().contains("top-secret"));
    }
}
