//! Reading and writing the fields of a message structure (crate-internal).

use packstream::{DecodeOptions, Decoder, EncodeOptions, Encoder, Sink, Token, ValueRef};

use super::dict::{str_of, Dict};
use super::error::{MessageEncodeError, MessageError};

/// The type name of a token, as [`ValueRef::type_name`] names values.
pub(crate) fn token_type(t: &Token<'_>) -> &'static str {
    match t {
        Token::Null => "null",
        Token::Bool(_) => "boolean",
        Token::Int(_) => "integer",
        Token::Float(_) => "float",
        Token::String(_) => "string",
        Token::Bytes(_) => "bytes",
        Token::List(_) => "list",
        Token::Map(_) => "map",
        Token::Struct { .. } => "structure",
        Token::Uuid(_) => "uuid",
    }
}

/// Reads the outer structure header of a message: returns the decoder (positioned at
/// the first field), the signature and the field count.
pub(crate) fn open(
    bytes: &[u8],
    opts: DecodeOptions,
) -> Result<(Decoder<'_>, u8, u32), MessageError> {
    let mut dec = Decoder::with_options(bytes, opts);
    match dec.next_token()? {
        Token::Struct { tag, len } => Ok((dec, tag, len)),
        other => Err(MessageError::NotAStructure {
            offset: 0,
            found: token_type(&other),
        }),
    }
}

/// Reads the fields of one message, naming the message and field in errors.
pub(crate) struct Fields<'a> {
    dec: Decoder<'a>,
    message: &'static str,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(dec: Decoder<'a>, message: &'static str) -> Self {
        Fields { dec, message }
    }

    fn type_error(
        &self,
        offset: usize,
        field: &'static str,
        expected: &'static str,
        found: &ValueRef<'_>,
    ) -> MessageError {
        MessageError::FieldType {
            offset,
            message: self.message,
            field,
            expected,
            found: found.type_name(),
        }
    }

    /// The next field as a value, with its offset.
    pub(crate) fn value(&mut self) -> Result<(usize, ValueRef<'a>), MessageError> {
        let at = self.dec.position();
        Ok((at, self.dec.read_value_ref()?))
    }

    pub(crate) fn string(&mut self, field: &'static str) -> Result<&'a str, MessageError> {
        let (at, v) = self.value()?;
        str_of(&v).ok_or_else(|| self.type_error(at, field, "a string", &v))
    }

    pub(crate) fn string_or_null(
        &mut self,
        field: &'static str,
    ) -> Result<Option<&'a str>, MessageError> {
        let (at, v) = self.value()?;
        match v {
            ValueRef::Null => Ok(None),
            ValueRef::String(s) => Ok(Some(s)),
            other => Err(self.type_error(at, field, "a string or null", &other)),
        }
    }

    pub(crate) fn int(&mut self, field: &'static str) -> Result<i64, MessageError> {
        let (at, v) = self.value()?;
        v.as_int()
            .ok_or_else(|| self.type_error(at, field, "an integer", &v))
    }

    pub(crate) fn dict(&mut self, field: &'static str) -> Result<Dict<'a>, MessageError> {
        let (at, v) = self.value()?;
        match v.into_map() {
            Ok(entries) => Ok(Dict::from(entries)),
            Err(other) => Err(self.type_error(at, field, "a map", &other)),
        }
    }

    pub(crate) fn str_list(&mut self, field: &'static str) -> Result<Vec<&'a str>, MessageError> {
        let (at, v) = self.value()?;
        match v.into_list() {
            Ok(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in &items {
                    match str_of(item) {
                        Some(s) => out.push(s),
                        None => return Err(self.type_error(at, field, "a list of strings", item)),
                    }
                }
                Ok(out)
            }
            Err(other) => Err(self.type_error(at, field, "a list of strings", &other)),
        }
    }

    /// Fails if bytes follow the structure.
    pub(crate) fn finish(self) -> Result<(), MessageError> {
        finish(&self.dec, self.message)
    }
}

/// [`MessageError::TrailingBytes`] unless `dec` has read all of its input.
pub(crate) fn finish(dec: &Decoder<'_>, message: &'static str) -> Result<(), MessageError> {
    let rest = dec.remaining().len();
    if rest > 0 {
        return Err(MessageError::TrailingBytes {
            offset: dec.position(),
            count: rest,
            message,
        });
    }
    Ok(())
}

/// Writes message structures.
pub(crate) struct Writer<B> {
    enc: Encoder<B>,
}

impl<B: Sink> Writer<B> {
    pub(crate) fn new(out: B, opts: EncodeOptions) -> Self {
        Writer {
            enc: Encoder::with_options(out, opts),
        }
    }

    pub(crate) fn header(
        &mut self,
        signature: u8,
        fields: usize,
    ) -> Result<(), MessageEncodeError> {
        Ok(self.enc.write_struct_header(signature, fields)?)
    }

    pub(crate) fn str(&mut self, s: &str) -> Result<(), MessageEncodeError> {
        Ok(self.enc.write_str(s)?)
    }

    pub(crate) fn null(&mut self) {
        self.enc.write_null();
    }

    pub(crate) fn int(&mut self, v: i64) {
        self.enc.write_int(v);
    }

    pub(crate) fn value(&mut self, v: &ValueRef<'_>) -> Result<(), MessageEncodeError> {
        Ok(self.enc.write_value_ref(v)?)
    }

    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        self.enc.write_raw(bytes);
    }

    pub(crate) fn dict(&mut self, d: &Dict<'_>) -> Result<(), MessageEncodeError> {
        self.enc.write_map_header(d.len())?;
        for (k, v) in d {
            self.enc.write_str(k)?;
            self.enc.write_value_ref(v)?;
        }
        Ok(())
    }

    pub(crate) fn str_list(&mut self, items: &[&str]) -> Result<(), MessageEncodeError> {
        self.enc.write_list_header(items.len())?;
        for s in items {
            self.enc.write_str(s)?;
        }
        Ok(())
    }
}
