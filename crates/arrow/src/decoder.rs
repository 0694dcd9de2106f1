//! [`ArrowDecoder`]: records in, one Arrow `RecordBatch` out.

use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};
use bolt::message::{MessageError, Record};
use bolt::BoltVersion;

use crate::acc::Acc;
use crate::build::{AppendError, Builder, Cx};
use crate::ty;
use crate::Error;

/// Turns runs of RECORDs into Arrow record batches with one schema.
///
/// Create it with the RUN summary's `fields` and the negotiated version, then call
/// [`ArrowDecoder::decode`] for each run of records (each PULL's reply, or any slice of
/// it). The first batch with rows fixes the schema (crate documentation, "Types").
///
/// ```
/// use arrow_array::{Array, Float64Array};
/// use arrow_schema::DataType;
/// use bolt::message::{MessageCodec, Response, Record};
/// use bolt::BoltVersion;
/// use bolt_arrow::ArrowDecoder;
/// use packstream::ValueRef;
///
/// let v = BoltVersion::V5_8;
/// let encode = |x: ValueRef<'static>| Response::Record(Record::new(vec![x])).to_vec(v).unwrap();
/// let messages = [encode(ValueRef::Int(1)), encode(ValueRef::Float(2.5)), encode(ValueRef::Null)];
/// let records = MessageCodec::new(v).decode_records(&messages);
///
/// let mut dec = ArrowDecoder::new(v, ["x"]);
/// let batch = dec.decode(records.records())?;
/// assert_eq!(batch.schema().field(0).data_type(), &DataType::Float64); // int + float
/// let x = batch.column(0).as_any().downcast_ref::<Float64Array>().unwrap();
/// assert_eq!((x.value(0), x.value(1), x.is_null(2)), (1.0, 2.5, true));
/// assert_eq!(dec.schema().unwrap().field(0).data_type(), &DataType::Float64);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ArrowDecoder {
    version: BoltVersion,
    names: Vec<String>,
    schema: Option<SchemaRef>,
}

impl ArrowDecoder {
    /// A decoder for a result with these column names (the RUN summary's `fields`),
    /// received over `version`.
    pub fn new<I>(version: BoltVersion, fields: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        ArrowDecoder {
            version,
            names: fields.into_iter().map(Into::into).collect(),
            schema: None,
        }
    }

    /// Fixes the schema instead of inferring it from the first batch. It must have one
    /// field per column, in order, of types this crate writes: those of the crate
    /// documentation's table (a struct whose field names are not those of a node,
    /// relationship, path, point or time is filled from maps, by key).
    ///
    /// # Errors
    ///
    /// [`Error::Schema`] when the field count differs or a type is not supported.
    pub fn with_schema(mut self, schema: SchemaRef) -> Result<Self, Error> {
        if schema.fields().len() != self.names.len() {
            return Err(Error::Schema(format!(
                "{} fields for {} columns",
                schema.fields().len(),
                self.names.len()
            )));
        }
        for f in schema.fields() {
            Builder::new(f.data_type(), 0).map_err(|what| {
                Error::Schema(format!("column `{}`: unsupported type {what}", f.name()))
            })?;
        }
        self.schema = Some(schema);
        Ok(self)
    }

    /// The column names.
    #[must_use]
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The protocol version the records are interpreted for.
    #[must_use]
    pub fn version(&self) -> BoltVersion {
        self.version
    }

    /// The schema, once fixed (by [`ArrowDecoder::with_schema`] or by the first batch
    /// with rows).
    #[must_use]
    pub fn schema(&self) -> Option<SchemaRef> {
        self.schema.clone()
    }

    /// Decodes `records` into one batch (all of them; an empty slice gives an empty
    /// batch).
    ///
    /// # Errors
    ///
    /// See [`Error`]. On error nothing changes: the schema stays unfixed if it was.
    pub fn decode(&mut self, records: &[Record<'_>]) -> Result<RecordBatch, Error> {
        self.decode_at(records, None)
    }

    /// [`ArrowDecoder::decode`] with the stream offset of each record's message
    /// (`stream_offsets[i]` for `records[i]`), which errors then report
    /// ([`Error::stream_offset`]): for a binding that keeps received RECORDs and decodes
    /// them later.
    ///
    /// ```
    /// use bolt::message::{MessageCodec, Record, Response};
    /// use bolt::BoltVersion;
    /// use bolt_arrow::{ArrowDecoder, Error};
    /// use packstream::ValueRef;
    ///
    /// let v = BoltVersion::V5_8;
    /// let one = Response::Record(Record::new(vec![ValueRef::Int(1)])).to_vec(v).unwrap();
    /// let two = Response::Record(Record::new(vec![ValueRef::Int(1), ValueRef::Int(2)]))
    ///     .to_vec(v)
    ///     .unwrap();
    /// let records = MessageCodec::new(v).decode_records([&one, &two]);
    /// let err = ArrowDecoder::new(v, ["x"])
    ///     .decode_at(records.records(), Some(&[100, 200]))
    ///     .unwrap_err();
    /// assert!(matches!(err, Error::FieldCount { record: 1, .. }));
    /// assert_eq!(err.stream_offset(), Some(200));
    /// ```
    ///
    /// # Errors
    ///
    /// As for [`ArrowDecoder::decode`].
    pub fn decode_at(
        &mut self,
        records: &[Record<'_>],
        stream_offsets: Option<&[u64]>,
    ) -> Result<RecordBatch, Error> {
        let at = |i: usize| stream_offsets.and_then(|o| o.get(i).copied());
        let ncols = self.names.len();
        let nrows = records.len();

        // 1. Every field of every record, by column. Errors here are about the bytes.
        let mut columns: Vec<Acc<'_>> = (0..ncols).map(|_| Acc::Nulls(0)).collect();
        for (i, record) in records.iter().enumerate() {
            if record.len() != ncols {
                return Err(Error::FieldCount {
                    record: i,
                    stream_offset: at(i),
                    expected: ncols,
                    found: record.len(),
                });
            }
            let bad = |source: MessageError| Error::Record {
                record: i,
                stream_offset: at(i),
                source,
            };
            match record.decoder() {
                Some(mut dec) => {
                    for column in &mut columns {
                        column
                            .read_field(&mut dec, nrows)
                            .map_err(|e| bad(e.into()))?;
                    }
                    dec.finish().map_err(|e| bad(e.into()))?;
                }
                None => {
                    // A record built from values (not decoded): the general path.
                    for (column, v) in columns.iter_mut().zip(record.fields().map_err(bad)?) {
                        column.push_value(v);
                    }
                }
            }
        }

        // 2. The types: fixed, or inferred from these values.
        let schema = match &self.schema {
            Some(s) => s.clone(),
            None => Arc::new(Schema::new(
                self.names
                    .iter()
                    .zip(&mut columns)
                    .map(|(name, acc)| {
                        let dt = match acc.simple_type() {
                            Some(dt) => dt,
                            None => {
                                let values = std::mem::replace(acc, Acc::Nulls(0)).into_values(0);
                                let dt = ty::to_arrow(&ty::infer_all(&values, self.version, 0));
                                *acc = Acc::Any(values);
                                dt
                            }
                        };
                        Field::new(name, dt, true)
                    })
                    .collect::<Vec<_>>(),
            )),
        };

        // 3. The arrays: scalars straight from their vectors, the rest through fresh
        //    builders.
        let mut cx = Cx::new(self.version);
        let mut arrays = Vec::with_capacity(ncols);
        for (j, (field, acc)) in schema.fields().iter().zip(columns).enumerate() {
            let too_large = |record| Error::TooLarge {
                record,
                column: field.name().clone(),
            };
            let acc = match acc.finish_simple(field.data_type()).map_err(too_large)? {
                Ok(array) => {
                    arrays.push(array);
                    continue;
                }
                Err(acc) => acc,
            };
            let values = acc.into_values(0);
            let mut b = Builder::new(field.data_type(), nrows).map_err(|what| {
                Error::Schema(format!(
                    "column `{}`: unsupported type {what}",
                    field.name()
                ))
            })?;
            for (i, v) in values.iter().enumerate() {
                if let Err(e) = b.append(v, &mut cx) {
                    return Err(match e {
                        AppendError::Mismatch(found) => Error::TypeChanged {
                            record: i,
                            stream_offset: at(i),
                            column: field.name().clone(),
                            offset: field_offset(&records[i], j),
                            expected: field.data_type().clone(),
                            found,
                        },
                        AppendError::TooLarge => too_large(i),
                    });
                }
            }
            arrays.push(b.finish()?);
        }
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            arrays,
            &RecordBatchOptions::new().with_row_count(Some(nrows)),
        )?;
        if self.schema.is_none() && nrows > 0 {
            self.schema = Some(schema);
        }
        Ok(batch)
    }
}

/// Where field `j` of `record` starts in its message (0 for a built record).
fn field_offset(record: &Record<'_>, j: usize) -> usize {
    let Some(mut dec) = record.decoder() else {
        return 0;
    };
    for _ in 0..j {
        if dec.skip_value().is_err() {
            break;
        }
    }
    dec.position()
}
