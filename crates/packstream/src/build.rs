//! Building value trees from tokens.
//!
//! Shallow nesting (the common case) is built by plain recursion, which is fastest; a
//! subtree that starts deeper than [`RECURSION_DEPTH`] is built by an iterative loop with an
//! explicit stack. Stack use is therefore bounded whatever the input and the limits are.

use crate::error::{Error, ErrorKind};
use crate::limits::DecodeOptions;
use crate::reader::{missing_item, Reader, Token};
use crate::value::{StructRef, Structure, Value, ValueRef};

/// Containers nested deeper than this are built iteratively. An unoptimised build spends
/// about 20 KiB of stack per level here (a release build a few hundred bytes), and a
/// 256 KiB thread stack must be enough for any input (test
/// `a_million_nested_levels_overflowed_the_stack_in_clone_eq_display_and_drop`).
const RECURSION_DEPTH: u64 = if cfg!(debug_assertions) { 4 } else { 48 };

/// A tree node type that can be built from tokens: [`ValueRef`] or [`Value`].
pub(crate) trait Node<'a>: Sized {
    /// The map key type.
    type Key;
    /// A node for a token that is not a container header.
    fn scalar(tok: Token<'a>) -> Self;
    /// A map key.
    fn key(s: &'a str) -> Self::Key;
    /// A list.
    fn list(items: Vec<Self>) -> Self;
    /// A map.
    fn map(entries: Vec<(Self::Key, Self)>) -> Self;
    /// A structure.
    fn structure(tag: u8, fields: Vec<Self>) -> Self;
}

impl<'a> Node<'a> for ValueRef<'a> {
    type Key = &'a str;
    #[inline]
    fn scalar(tok: Token<'a>) -> Self {
        match tok {
            Token::Null => ValueRef::Null,
            Token::Bool(b) => ValueRef::Bool(b),
            Token::Int(i) => ValueRef::Int(i),
            Token::Float(f) => ValueRef::Float(f),
            Token::String(s) => ValueRef::String(s),
            Token::Bytes(b) => ValueRef::Bytes(b),
            Token::Uuid(u) => ValueRef::Uuid(u),
            Token::List(_) => ValueRef::List(Vec::new()),
            Token::Map(_) => ValueRef::Map(Vec::new()),
            Token::Struct { tag, .. } => ValueRef::Struct(StructRef {
                tag,
                fields: Vec::new(),
            }),
        }
    }
    #[inline]
    fn key(s: &'a str) -> &'a str {
        s
    }
    #[inline]
    fn list(items: Vec<Self>) -> Self {
        ValueRef::List(items)
    }
    #[inline]
    fn map(entries: Vec<(&'a str, Self)>) -> Self {
        ValueRef::Map(entries)
    }
    #[inline]
    fn structure(tag: u8, fields: Vec<Self>) -> Self {
        ValueRef::Struct(StructRef { tag, fields })
    }
}

impl<'a> Node<'a> for Value {
    type Key = String;
    #[inline]
    fn scalar(tok: Token<'a>) -> Self {
        match tok {
            Token::Null => Value::Null,
            Token::Bool(b) => Value::Bool(b),
            Token::Int(i) => Value::Int(i),
            Token::Float(f) => Value::Float(f),
            Token::String(s) => Value::String(s.to_owned()),
            Token::Bytes(b) => Value::Bytes(b.to_vec()),
            Token::Uuid(u) => Value::Uuid(u),
            Token::List(_) => Value::List(Vec::new()),
            Token::Map(_) => Value::Map(Vec::new()),
            Token::Struct { tag, .. } => Value::Struct(Structure::new(tag, Vec::new())),
        }
    }
    #[inline]
    fn key(s: &'a str) -> String {
        s.to_owned()
    }
    #[inline]
    fn list(items: Vec<Self>) -> Self {
        Value::List(items)
    }
    #[inline]
    fn map(entries: Vec<(String, Self)>) -> Self {
        Value::Map(entries)
    }
    #[inline]
    fn structure(tag: u8, fields: Vec<Self>) -> Self {
        Value::Struct(Structure::new(tag, fields))
    }
}

/// Builds one complete value. `depth` containers are already open around it (their
/// innermost starts at `container`); `key_expected` says the value sits in a map-key
/// position and so must be a string.
pub(crate) fn build<'a, N: Node<'a>>(
    r: &mut Reader<'a>,
    depth: u64,
    max_depth: u64,
    container: Option<usize>,
    key_expected: bool,
) -> Result<N, Error> {
    if key_expected {
        return key(r, depth, max_depth, container).map(|s| N::scalar(Token::String(s)));
    }
    value(r, depth, max_depth, container)
}

/// Reads the token of an item at `depth`.
#[inline(always)]
fn token<'a>(
    r: &mut Reader<'a>,
    depth: u64,
    max_depth: u64,
    container: Option<usize>,
) -> Result<(Token<'a>, usize), Error> {
    let start = r.pos();
    r.depth_full = depth >= max_depth;
    let tok = r
        .token()
        .map_err(|e| missing_item(e, start, r.len(), container))?;
    Ok((tok, start))
}

#[inline(always)]
fn key<'a>(
    r: &mut Reader<'a>,
    depth: u64,
    max_depth: u64,
    container: Option<usize>,
) -> Result<&'a str, Error> {
    match token(r, depth, max_depth, container)? {
        (Token::String(s), _) => Ok(s),
        (_, start) => Err(Error::new(
            ErrorKind::NonStringKey,
            start,
            "a string map key",
        )),
    }
}

#[inline]
fn value<'a, N: Node<'a>>(
    r: &mut Reader<'a>,
    depth: u64,
    max_depth: u64,
    container: Option<usize>,
) -> Result<N, Error> {
    let (tok, start) = token(r, depth, max_depth, container)?;
    node(r, tok, start, depth, max_depth)
}

/// The node for a token just read at `start`: a scalar, or a container whose items are
/// read now.
#[inline(always)]
fn node<'a, N: Node<'a>>(
    r: &mut Reader<'a>,
    tok: Token<'a>,
    start: usize,
    depth: u64,
    max_depth: u64,
) -> Result<N, Error> {
    match tok {
        Token::List(n) | Token::Map(n) | Token::Struct { len: n, .. } if n > 0 => {
            container(r, tok, start, depth, max_depth)
        }
        tok => Ok(N::scalar(tok)),
    }
}

/// Reads the items of the non-empty container whose header `tok` was read at `start`.
/// Scalar items are pushed straight from their token; only nested containers recurse, so
/// the common case never passes a value back through a call's return slot.
fn container<'a, N: Node<'a>>(
    r: &mut Reader<'a>,
    tok: Token<'a>,
    start: usize,
    depth: u64,
    max_depth: u64,
) -> Result<N, Error> {
    if depth >= RECURSION_DEPTH {
        return deep(r, tok, start, depth, max_depth);
    }
    let inner = depth + 1;
    match tok {
        Token::Map(n) => {
            let mut entries = Vec::with_capacity(r.capacity_for(n, 2));
            for _ in 0..n {
                let k = N::key(key(r, inner, max_depth, Some(start))?);
                let (t, at) = token(r, inner, max_depth, Some(start))?;
                match t {
                    Token::Int(i) => entries.push((k, N::scalar(Token::Int(i)))),
                    Token::Float(f) => entries.push((k, N::scalar(Token::Float(f)))),
                    Token::String(v) => entries.push((k, N::scalar(Token::String(v)))),
                    Token::Null => entries.push((k, N::scalar(Token::Null))),
                    Token::Bool(b) => entries.push((k, N::scalar(Token::Bool(b)))),
                    t => entries.push((k, node(r, t, at, inner, max_depth)?)),
                }
            }
            Ok(N::map(entries))
        }
        Token::List(n) | Token::Struct { len: n, .. } => {
            let mut items = Vec::with_capacity(r.capacity_for(n, 1));
            for _ in 0..n {
                let (t, at) = token(r, inner, max_depth, Some(start))?;
                // One push per variant, so each value is written straight into the vector
                // (a shared temporary costs a store-forwarding stall per item).
                match t {
                    Token::Int(i) => items.push(N::scalar(Token::Int(i))),
                    Token::Float(f) => items.push(N::scalar(Token::Float(f))),
                    Token::String(v) => items.push(N::scalar(Token::String(v))),
                    Token::Null => items.push(N::scalar(Token::Null)),
                    Token::Bool(b) => items.push(N::scalar(Token::Bool(b))),
                    t => items.push(node(r, t, at, inner, max_depth)?),
                }
            }
            Ok(match tok {
                Token::Struct { tag, .. } => N::structure(tag, items),
                _ => N::list(items),
            })
        }
        tok => Ok(N::scalar(tok)),
    }
}

/// A container being built by [`deep`].
enum Open<'a, N: Node<'a>> {
    List(Vec<N>, usize, usize),
    Map(Vec<(N::Key, N)>, Option<N::Key>, usize, usize),
    Struct(u8, Vec<N>, usize, usize),
}

impl<'a, N: Node<'a>> Open<'a, N> {
    /// Opens a container for a non-empty container token read at `start`.
    fn new(r: &Reader<'a>, tok: Token<'a>, start: usize) -> Self {
        match tok {
            Token::Map(n) => Open::Map(
                Vec::with_capacity(r.capacity_for(n, 2)),
                None,
                n as usize,
                start,
            ),
            Token::Struct { tag, len } => Open::Struct(
                tag,
                Vec::with_capacity(r.capacity_for(len, 1)),
                len as usize,
                start,
            ),
            Token::List(n) => {
                Open::List(Vec::with_capacity(r.capacity_for(n, 1)), n as usize, start)
            }
            // Only container tokens are opened.
            _ => Open::List(Vec::new(), 0, start),
        }
    }

    fn start(&self) -> usize {
        match self {
            Open::List(.., at) | Open::Map(.., at) | Open::Struct(.., at) => *at,
        }
    }

    /// Adds a finished item; true when the container is complete.
    fn push(&mut self, v: N) -> bool {
        match self {
            Open::List(items, n, _) | Open::Struct(_, items, n, _) => {
                items.push(v);
                items.len() >= *n
            }
            Open::Map(entries, key, n, _) => {
                if let Some(k) = key.take() {
                    entries.push((k, v));
                }
                entries.len() >= *n
            }
        }
    }

    fn finish(self) -> N {
        match self {
            Open::List(items, ..) => N::list(items),
            Open::Map(entries, ..) => N::map(entries),
            Open::Struct(tag, fields, ..) => N::structure(tag, fields),
        }
    }
}

/// Builds the container whose (non-empty) header `first` was read at `start`, with an
/// explicit stack instead of recursion. `depth` containers are open around it.
fn deep<'a, N: Node<'a>>(
    r: &mut Reader<'a>,
    first: Token<'a>,
    start: usize,
    depth: u64,
    max_depth: u64,
) -> Result<N, Error> {
    let mut stack: Vec<Open<'a, N>> = vec![Open::new(r, first, start)];
    loop {
        let item_depth = depth + stack.len() as u64;
        let Some(top) = stack.last_mut() else {
            return Err(Error::new(ErrorKind::UnexpectedEnd, start, "a value"));
        };
        let at = top.start();
        if let Open::Map(_, key_slot @ None, _, _) = top {
            *key_slot = Some(N::key(key(r, item_depth, max_depth, Some(at))?));
            continue;
        }
        let (tok, tok_start) = token(r, item_depth, max_depth, Some(at))?;
        let mut value = match tok {
            Token::List(n) | Token::Map(n) | Token::Struct { len: n, .. } if n > 0 => {
                stack.push(Open::new(r, tok, tok_start));
                continue;
            }
            tok => N::scalar(tok),
        };
        // Attach the finished value; close every container it completes.
        while let Some(top) = stack.last_mut() {
            if !top.push(value) {
                break;
            }
            let Some(done) = stack.pop() else { break };
            value = done.finish();
            if stack.is_empty() {
                return Ok(value);
            }
        }
    }
}

/// Decodes one value from the start of `buf`; returns it and the bytes it used.
pub(crate) fn decode_node<'a, N: Node<'a>>(
    buf: &'a [u8],
    opts: &DecodeOptions,
) -> Result<(N, usize), Error> {
    let mut r = Reader::new(buf, *opts);
    let v = build(&mut r, 0, u64::from(opts.limits.max_depth), None, false)?;
    Ok((v, r.pos()))
}

impl<'a> ValueRef<'a> {
    /// Decodes one value from the start of `buf` with default options, returning the value
    /// and how many bytes it used. Bytes after the value are left alone.
    ///
    /// # Errors
    /// Any [`Error`]; [`Error::is_incomplete`] tells whether more input could complete it.
    pub fn decode(buf: &'a [u8]) -> Result<(Self, usize), Error> {
        decode_node(buf, &DecodeOptions::default())
    }

    /// Like [`ValueRef::decode`], with options.
    ///
    /// # Errors
    /// Any [`Error`].
    pub fn decode_with(buf: &'a [u8], opts: &DecodeOptions) -> Result<(Self, usize), Error> {
        decode_node(buf, opts)
    }

    /// Decodes `buf` as exactly one value: bytes left over are a
    /// [`TrailingBytes`](ErrorKind::TrailingBytes) error.
    ///
    /// ```
    /// use packstream::{ErrorKind, ValueRef};
    /// assert_eq!(ValueRef::decode_exact(&[0x2A]).unwrap(), ValueRef::Int(42));
    /// let err = ValueRef::decode_exact(&[0x2A, 0x00]).unwrap_err();
    /// assert_eq!((err.kind(), err.offset()), (ErrorKind::TrailingBytes, 1));
    /// ```
    ///
    /// # Errors
    /// Any [`Error`].
    pub fn decode_exact(buf: &'a [u8]) -> Result<Self, Error> {
        Self::decode_exact_with(buf, &DecodeOptions::default())
    }

    /// Like [`ValueRef::decode_exact`], with options.
    ///
    /// # Errors
    /// Any [`Error`].
    pub fn decode_exact_with(buf: &'a [u8], opts: &DecodeOptions) -> Result<Self, Error> {
        let (v, used) = decode_node(buf, opts)?;
        if used < buf.len() {
            return Err(Error::new(
                ErrorKind::TrailingBytes,
                used,
                "the end of the input",
            ));
        }
        Ok(v)
    }
}

impl Value {
    /// Decodes one value from the start of `buf` into an owned value; returns it and the
    /// number of bytes used.
    ///
    /// # Errors
    /// Any [`Error`].
    pub fn decode(buf: &[u8]) -> Result<(Self, usize), Error> {
        decode_node(buf, &DecodeOptions::default())
    }

    /// Decodes `buf` as exactly one owned value.
    ///
    /// # Errors
    /// Any [`Error`], including trailing bytes.
    pub fn decode_exact(buf: &[u8]) -> Result<Self, Error> {
        Self::decode_exact_with(buf, &DecodeOptions::default())
    }

    /// Decodes `buf` as exactly one owned value, with options.
    ///
    /// # Errors
    /// Any [`Error`], including trailing bytes.
    pub fn decode_exact_with(buf: &[u8], opts: &DecodeOptions) -> Result<Self, Error> {
        let (v, used) = decode_node(buf, opts)?;
        if used < buf.len() {
            return Err(Error::new(
                ErrorKind::TrailingBytes,
                used,
                "the end of the input",
            ));
        }
        Ok(v)
    }

    /// Like [`Value::decode`], with options.
    ///
    /// # Errors
    /// Any [`Error`].
    pub fn decode_with(buf: &[u8], opts: &DecodeOptions) -> Result<(Self, usize), Error> {
        decode_node(buf, opts)
    }
}
