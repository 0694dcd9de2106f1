//! Readable, Cypher-like rendering of values with their structures interpreted, for
//! logs and Bolt inspection tools.

use core::fmt;

use packstream::{StructRef, ValueRef};

use super::BoltStruct;
use crate::version::BoltVersion;

/// How nested structures are interpreted while rendering: for a given version, or
/// leniently (see [`BoltStruct::from_struct_any_version`]); and how many structures
/// around the value being rendered were interpreted already.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ctx(pub(super) Option<BoltVersion>, u32);

/// Structures nested deeper than this inside the one being rendered are shown
/// uninterpreted, as `struct<0x4E>[…]`. Interpreting a structure copies its fields (a
/// [`BoltStruct`] owns them), so interpreting at every level copied every subtree once
/// per structure around it: rendering 200 nested structures around a 20 000-item list
/// (20 KB) took 129 MB, in quadratic time. Real values nest a few levels (a Node in a
/// Path, a Date in its properties); the cap keeps rendering linear (3 MB there; test
/// `display_of_deeply_nested_structures_copied_every_subtree`).
const MAX_INTERPRETED_DEPTH: u32 = 4;

impl Ctx {
    pub(super) const ANY: Ctx = Ctx(None, 0);

    pub(super) fn interpret<'a>(self, s: &StructRef<'a>) -> BoltStruct<'a> {
        match self.0 {
            Some(v) => BoltStruct::from_struct(s, v),
            None => BoltStruct::from_struct_any_version(s),
        }
    }
}

/// Renders a PackStream value the way the Bolt structures render, with every nested
/// structure interpreted: `{name: "Alice", born: date("1990-05-17"), tags: ["a"]}`.
///
/// * null, booleans, integers as in Cypher; floats as Rust's `{:?}` (`1.0`, `NaN`,
///   `inf`); strings quoted with Rust escapes; bytes as `#CAFE`; UUIDs as
///   `uuid("…")`;
/// * map keys and labels bare when they are identifiers, else in backticks;
/// * structures through [`BoltStruct`]'s `Display`; by default interpreted with
///   [`BoltStruct::from_struct_any_version`], or strictly for one version with
///   [`DisplayValue::with_version`] (then a structure not valid in that version shows as
///   `broken(…)`).
///
/// ```
/// use bolt::structs::DisplayValue;
/// use bolt::BoltVersion;
/// use packstream::{StructRef, ValueRef};
///
/// let date = ValueRef::Struct(StructRef { tag: 0x44, fields: vec![ValueRef::Int(7441)] });
/// let v = ValueRef::Map(vec![("born", date), ("first name", ValueRef::String("Bob"))]);
/// assert_eq!(DisplayValue::new(&v).to_string(), r#"{born: date("1990-05-17"), `first name`: "Bob"}"#);
/// // Bolt 1 had no temporal types:
/// let strict = DisplayValue::new(&v).with_version(BoltVersion::new(1, 0)).to_string();
/// assert!(strict.starts_with("{born: broken(Date 0x44 [7441]: not valid in Bolt 1.0)"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct DisplayValue<'v, 'a> {
    value: &'v ValueRef<'a>,
    ctx: Ctx,
}

impl<'v, 'a> DisplayValue<'v, 'a> {
    /// Renders `value`, interpreting structures leniently.
    #[must_use]
    pub fn new(value: &'v ValueRef<'a>) -> Self {
        DisplayValue {
            value,
            ctx: Ctx::ANY,
        }
    }

    /// Interprets structures strictly for `version` instead.
    #[must_use]
    pub fn with_version(mut self, version: BoltVersion) -> Self {
        self.ctx = Ctx(Some(version), 0);
        self
    }
}

impl fmt::Display for DisplayValue<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_value(f, self.value, self.ctx)
    }
}

/// Renders `v`. Lists, maps and uninterpreted structures are walked with an explicit
/// stack, and interpretation stops [`MAX_INTERPRETED_DEPTH`] structures deep, so the
/// native stack does not grow with the value's nesting (regression test
/// `display_of_a_million_nested_lists_overflowed_the_stack`).
pub(super) fn write_value(f: &mut fmt::Formatter<'_>, v: &ValueRef<'_>, ctx: Ctx) -> fmt::Result {
    walk(f, Vec::new(), Some(v), ctx)
}

/// `{key: value, …}` in wire order.
pub(super) fn write_map(
    f: &mut fmt::Formatter<'_>,
    entries: &[(&str, ValueRef<'_>)],
    ctx: Ctx,
) -> fmt::Result {
    f.write_str("{")?;
    walk(f, vec![(Open::Entries(entries.iter()), false)], None, ctx)
}

/// A container being rendered: the children still to write.
enum Open<'v, 'a> {
    Items(core::slice::Iter<'v, ValueRef<'a>>),
    Entries(core::slice::Iter<'v, (&'a str, ValueRef<'a>)>),
}

/// Writes `next` (if any) and then the rest of every open container on `stack`; each
/// entry says whether a child of it was written yet.
fn walk<'v, 'a>(
    f: &mut fmt::Formatter<'_>,
    mut stack: Vec<(Open<'v, 'a>, bool)>,
    mut next: Option<&'v ValueRef<'a>>,
    ctx: Ctx,
) -> fmt::Result {
    loop {
        if let Some(v) = next.take() {
            match v {
                ValueRef::List(items) => {
                    f.write_str("[")?;
                    stack.push((Open::Items(items.iter()), false));
                }
                ValueRef::Map(entries) => {
                    f.write_str("{")?;
                    stack.push((Open::Entries(entries.iter()), false));
                }
                ValueRef::Struct(s) if ctx.1 >= MAX_INTERPRETED_DEPTH => {
                    write!(f, "struct<{:#04X}>[", s.tag)?;
                    stack.push((Open::Items(s.fields.iter()), false));
                }
                ValueRef::Struct(s) => ctx.interpret(s).write(f, Ctx(ctx.0, ctx.1 + 1))?,
                leaf => write_leaf(f, leaf)?,
            }
        }
        let Some((top, started)) = stack.last_mut() else {
            return Ok(());
        };
        let more = match top {
            Open::Items(items) => items.next().map(|item| (None, item)),
            Open::Entries(entries) => entries.next().map(|(k, item)| (Some(*k), item)),
        };
        match more {
            Some((key, item)) => {
                if *started {
                    f.write_str(", ")?;
                }
                *started = true;
                if let Some(k) = key {
                    write_ident(f, k)?;
                    f.write_str(": ")?;
                }
                next = Some(item);
            }
            None => {
                f.write_str(match top {
                    Open::Items(_) => "]",
                    Open::Entries(_) => "}",
                })?;
                stack.pop();
            }
        }
    }
}

/// A value that is not a list, map or structure.
fn write_leaf(f: &mut fmt::Formatter<'_>, v: &ValueRef<'_>) -> fmt::Result {
    match v {
        ValueRef::Null => f.write_str("null"),
        ValueRef::Bool(b) => write!(f, "{b}"),
        ValueRef::Int(i) => write!(f, "{i}"),
        ValueRef::Float(x) => write!(f, "{x:?}"),
        ValueRef::String(s) => write!(f, "{s:?}"),
        ValueRef::Bytes(b) => {
            f.write_str("#")?;
            b.iter().try_for_each(|byte| write!(f, "{byte:02X}"))
        }
        ValueRef::Uuid(u) => {
            f.write_str("uuid(\"")?;
            write_uuid(f, u)?;
            f.write_str("\")")
        }
        // Containers are walked by `walk`.
        ValueRef::List(_) | ValueRef::Map(_) | ValueRef::Struct(_) => Ok(()),
    }
}

/// A Cypher name: bare when it is an identifier, else in backticks (doubled inside).
pub(super) fn write_ident(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    let mut chars = name.chars();
    let plain = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_');
    if plain {
        f.write_str(name)
    } else {
        f.write_str("`")?;
        for part in name.split_inclusive('`') {
            f.write_str(part)?;
            if part.ends_with('`') {
                f.write_str("`")?;
            }
        }
        f.write_str("`")
    }
}

/// Canonical 8-4-4-4-12 lowercase form.
pub(super) fn write_uuid(f: &mut fmt::Formatter<'_>, u: &[u8; 16]) -> fmt::Result {
    for (i, byte) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            f.write_str("-")?;
        }
        write!(f, "{byte:02x}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Ident<'s>(&'s str);
    impl fmt::Display for Ident<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_ident(f, self.0)
        }
    }

    #[test]
    fn identifiers() {
        assert_eq!(Ident("name").to_string(), "name");
        assert_eq!(Ident("_x1").to_string(), "_x1");
        assert_eq!(Ident("Ünï").to_string(), "Ünï");
        assert_eq!(Ident("").to_string(), "``");
        assert_eq!(Ident("1a").to_string(), "`1a`");
        assert_eq!(Ident("a b").to_string(), "`a b`");
        assert_eq!(Ident("a`b").to_string(), "`a``b`");
        assert_eq!(Ident("``").to_string(), "``````");
    }

    #[test]
    fn scalars() {
        let v = ValueRef::List(vec![
            ValueRef::Null,
            ValueRef::Bool(true),
            ValueRef::Int(-3),
            ValueRef::Float(1.0),
            ValueRef::Float(f64::NAN),
            ValueRef::String("a\"b"),
            ValueRef::Bytes(&[0xCA, 0xFE]),
            ValueRef::Uuid([
                0x55, 0x0e, 0x84, 0x00, 0xe2, 0x9b, 0x41, 0xd4, 0xa7, 0x16, 0x44, 0x66, 0x55, 0x44,
                0x00, 0x00,
            ]),
            ValueRef::Map(vec![]),
        ]);
        assert_eq!(
            DisplayValue::new(&v).to_string(),
            r#"[null, true, -3, 1.0, NaN, "a\"b", #CAFE, uuid("550e8400-e29b-41d4-a716-446655440000"), {}]"#
        );
    }
}
