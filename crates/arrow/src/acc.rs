//! A column's values while a batch is read: scalars of one kind straight into typed
//! vectors (the fast path), anything else as borrowed values for the general rules.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{new_null_array, ArrayRef, Float64Array, Int64Array};
use arrow_buffer::NullBufferBuilder;
use arrow_schema::DataType;
use packstream::{Decoder, Error as PsError, ErrorKind, StructRef, Token, ValueRef};

/// The values of one column of a batch, in row order.
pub(crate) enum Acc<'a> {
    /// Only nulls so far.
    Nulls(usize),
    /// Integers and nulls.
    Int(Vec<i64>, NullBufferBuilder),
    /// Floats and nulls.
    Float(Vec<f64>, NullBufferBuilder),
    /// Strings and nulls.
    Str(Vec<&'a str>, NullBufferBuilder),
    /// Anything else, as values.
    Any(Vec<ValueRef<'a>>),
}

fn scalar<'a>(tok: Token<'a>) -> ValueRef<'a> {
    match tok {
        Token::Null => ValueRef::Null,
        Token::Bool(b) => ValueRef::Bool(b),
        Token::Int(i) => ValueRef::Int(i),
        Token::Float(f) => ValueRef::Float(f),
        Token::String(s) => ValueRef::String(s),
        Token::Bytes(b) => ValueRef::Bytes(b),
        Token::Uuid(u) => ValueRef::Uuid(u),
        // Containers are read by `read_field`; never pushed as tokens.
        Token::List(_) | Token::Map(_) | Token::Struct { .. } => ValueRef::Null,
    }
}

fn nulls_then(n: usize, capacity: usize) -> NullBufferBuilder {
    let mut b = NullBufferBuilder::new(capacity.max(n + 1));
    b.append_n_nulls(n);
    b
}

/// Room for `n` items without trusting `n` for more than a few: the decoder has checked
/// that they fit the bytes left, and the vector grows as they come.
fn room(n: u32) -> usize {
    (n as usize).min(1024)
}

impl<'a> Acc<'a> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Acc::Nulls(n) => *n,
            Acc::Int(v, _) => v.len(),
            Acc::Float(v, _) => v.len(),
            Acc::Str(v, _) => v.len(),
            Acc::Any(v) => v.len(),
        }
    }

    /// Reads the next field from `dec` (positioned inside the record's field list) and
    /// appends it. Scalars never become a tree.
    #[inline]
    pub(crate) fn read_field(
        &mut self,
        dec: &mut Decoder<'a>,
        capacity: usize,
    ) -> Result<(), PsError> {
        let tok = dec.next_token()?;
        let value = match tok {
            Token::List(n) => {
                let mut items = Vec::with_capacity(room(n));
                for _ in 0..n {
                    items.push(dec.read_value_ref()?);
                }
                ValueRef::List(items)
            }
            Token::Map(n) => {
                let mut entries = Vec::with_capacity(room(n));
                for _ in 0..n {
                    let at = dec.position();
                    // The decoder checks that keys are strings; say so again rather
                    // than trust it.
                    let Token::String(k) = dec.next_token()? else {
                        return Err(PsError::new(
                            ErrorKind::NonStringKey,
                            at,
                            "a string map key",
                        ));
                    };
                    entries.push((k, dec.read_value_ref()?));
                }
                ValueRef::Map(entries)
            }
            Token::Struct { tag, len } => {
                let mut fields = Vec::with_capacity(room(len));
                for _ in 0..len {
                    fields.push(dec.read_value_ref()?);
                }
                ValueRef::Struct(StructRef { tag, fields })
            }
            tok => {
                self.push_scalar(tok, capacity);
                return Ok(());
            }
        };
        self.push_value(value);
        Ok(())
    }

    #[inline]
    fn push_scalar(&mut self, tok: Token<'a>, capacity: usize) {
        match (&mut *self, tok) {
            (Acc::Int(v, n), Token::Int(i)) => {
                v.push(i);
                n.append_non_null();
            }
            (Acc::Float(v, n), Token::Float(f)) => {
                v.push(f);
                n.append_non_null();
            }
            (Acc::Str(v, n), Token::String(s)) => {
                v.push(s);
                n.append_non_null();
            }
            (Acc::Int(v, n), Token::Null) => {
                v.push(0);
                n.append_null();
            }
            (Acc::Float(v, n), Token::Null) => {
                v.push(0.0);
                n.append_null();
            }
            (Acc::Str(v, n), Token::Null) => {
                v.push("");
                n.append_null();
            }
            (Acc::Nulls(k), Token::Null) => *k += 1,
            (Acc::Nulls(k), Token::Int(i)) => {
                let mut v = Vec::with_capacity(capacity.max(*k + 1));
                v.resize(*k, 0);
                v.push(i);
                let mut n = nulls_then(*k, capacity);
                n.append_non_null();
                *self = Acc::Int(v, n);
            }
            (Acc::Nulls(k), Token::Float(f)) => {
                let mut v = Vec::with_capacity(capacity.max(*k + 1));
                v.resize(*k, 0.0);
                v.push(f);
                let mut n = nulls_then(*k, capacity);
                n.append_non_null();
                *self = Acc::Float(v, n);
            }
            (Acc::Nulls(k), Token::String(s)) => {
                let mut v = Vec::with_capacity(capacity.max(*k + 1));
                v.resize(*k, "");
                v.push(s);
                let mut n = nulls_then(*k, capacity);
                n.append_non_null();
                *self = Acc::Str(v, n);
            }
            (Acc::Any(v), tok) => v.push(scalar(tok)),
            (_, tok) => {
                self.make_any(capacity);
                if let Acc::Any(v) = self {
                    v.push(scalar(tok));
                }
            }
        }
    }

    pub(crate) fn push_value(&mut self, value: ValueRef<'a>) {
        if !matches!(self, Acc::Any(_)) {
            self.make_any(0);
        }
        if let Acc::Any(v) = self {
            v.push(value);
        }
    }

    /// Turns the typed vectors into values.
    fn make_any(&mut self, capacity: usize) {
        let old = std::mem::replace(self, Acc::Nulls(0));
        let cap = capacity.max(old.len() + 1);
        *self = Acc::Any(old.into_values(cap));
    }

    /// The values, in row order.
    pub(crate) fn into_values(self, capacity: usize) -> Vec<ValueRef<'a>> {
        fn with<'a, T: Copy>(
            vals: Vec<T>,
            mut nulls: NullBufferBuilder,
            capacity: usize,
            f: impl Fn(T) -> ValueRef<'a>,
        ) -> Vec<ValueRef<'a>> {
            let valid = nulls.finish();
            let mut out = Vec::with_capacity(capacity.max(vals.len()));
            for (i, x) in vals.into_iter().enumerate() {
                out.push(match &valid {
                    Some(b) if b.is_null(i) => ValueRef::Null,
                    _ => f(x),
                });
            }
            out
        }
        match self {
            Acc::Nulls(n) => {
                let mut out = Vec::with_capacity(capacity.max(n));
                out.resize_with(n, || ValueRef::Null);
                out
            }
            Acc::Int(v, n) => with(v, n, capacity, ValueRef::Int),
            Acc::Float(v, n) => with(v, n, capacity, ValueRef::Float),
            Acc::Str(v, n) => with(v, n, capacity, ValueRef::String),
            Acc::Any(v) => v,
        }
    }

    /// The Arrow type of a column of only these scalars, if it is one.
    pub(crate) fn simple_type(&self) -> Option<DataType> {
        Some(match self {
            Acc::Nulls(_) => DataType::Null,
            Acc::Int(..) => DataType::Int64,
            Acc::Float(..) => DataType::Float64,
            Acc::Str(..) => DataType::Utf8,
            Acc::Any(_) => return None,
        })
    }

    /// The array straight from the typed vectors when `dt` takes them as they are;
    /// otherwise gives the accumulator back for the general path.
    ///
    /// # Errors
    ///
    /// The row at which a string column passes Arrow's 2 GiB of 32-bit offsets.
    pub(crate) fn finish_simple(self, dt: &DataType) -> Result<Result<ArrayRef, Self>, usize> {
        Ok(Ok(match (self, dt) {
            (Acc::Nulls(n), dt) => new_null_array(dt, n),
            (Acc::Int(v, mut n), DataType::Int64) => {
                Arc::new(Int64Array::new(v.into(), n.finish()))
            }
            (Acc::Int(v, mut n), DataType::Float64) => {
                let f: Vec<f64> = v.into_iter().map(|i| i as f64).collect();
                Arc::new(Float64Array::new(f.into(), n.finish()))
            }
            (Acc::Float(v, mut n), DataType::Float64) => {
                Arc::new(Float64Array::new(v.into(), n.finish()))
            }
            (Acc::Str(v, mut n), DataType::Utf8) => {
                let mut total = 0usize;
                for (row, s) in v.iter().enumerate() {
                    total += s.len();
                    if total > i32::MAX as usize {
                        return Err(row);
                    }
                }
                let valid = n.finish();
                let mut b = StringBuilder::with_capacity(v.len(), total);
                for (i, s) in v.iter().enumerate() {
                    match &valid {
                        Some(m) if m.is_null(i) => b.append_null(),
                        _ => b.append_value(s),
                    }
                }
                Arc::new(b.finish())
            }
            (other, _) => return Ok(Err(other)),
        }))
    }
}
