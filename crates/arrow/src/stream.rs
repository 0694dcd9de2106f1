//! [`PullDecoder`]: the chunked bytes of a PULL response in, Arrow batches out.

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use bolt::chunk::Dechunker;
use bolt::message::{MessageCodec, Summary};
use bolt::BoltVersion;

use crate::{ArrowDecoder, Error};

/// Decodes the bytes of a PULL response, as received, into Arrow record batches.
///
/// Each [`PullDecoder::feed`] takes the next bytes read from the connection (any
/// split: chunks and messages may straddle calls) and returns the records completed by
/// them as one `RecordBatch`. Feeding the whole response at once gives one batch typed
/// from every row; feeding it as it arrives keeps memory to one batch. A `SUCCESS` with
/// `has_more: true` is noted ([`PullDecoder::has_more`]: send the next `PULL {n}`) and
/// the records of that next reply can follow in later feeds; a `SUCCESS` without it ends
/// the stream ([`PullDecoder::is_done`]).
///
/// Feed only the replies to PULL: start after the RUN's `SUCCESS` (which gives the
/// `fields`). A `FAILURE` gives [`Error::Failure`]; `IGNORED` or a message after the
/// final summary gives [`Error::Protocol`].
#[derive(Debug)]
pub struct PullDecoder {
    codec: MessageCodec,
    dechunker: Dechunker,
    arrow: ArrowDecoder,
    done: bool,
    has_more: bool,
    /// A SUCCESS with `has_more` arrived and was not yet reported by `take_has_more`.
    pull_wanted: bool,
}

impl PullDecoder {
    /// A decoder for a result with these column names, received over `version`.
    pub fn new<I>(version: BoltVersion, fields: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        Self::with_decoder(ArrowDecoder::new(version, fields))
    }

    /// A decoder that writes with `arrow` (for a schema given with
    /// [`ArrowDecoder::with_schema`]).
    #[must_use]
    pub fn with_decoder(arrow: ArrowDecoder) -> Self {
        PullDecoder {
            codec: MessageCodec::new(arrow.version()),
            dechunker: Dechunker::new(),
            arrow,
            done: false,
            has_more: false,
            pull_wanted: false,
        }
    }

    /// Whether the final summary (a `SUCCESS` without `has_more`) was received.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Whether the last summary received was a `SUCCESS` with `has_more: true`.
    #[must_use]
    pub fn has_more(&self) -> bool {
        self.has_more
    }

    /// Whether a `SUCCESS` with `has_more: true` arrived since the last call: `true`
    /// once per such summary, the moment to send the next `PULL {n}`.
    pub fn take_has_more(&mut self) -> bool {
        std::mem::take(&mut self.pull_wanted)
    }

    /// The schema, once fixed.
    #[must_use]
    pub fn schema(&self) -> Option<SchemaRef> {
        self.arrow.schema()
    }

    /// The Arrow decoder (its schema, names and version).
    #[must_use]
    pub fn decoder(&self) -> &ArrowDecoder {
        &self.arrow
    }

    /// Takes the next bytes of the response; returns the records they completed as one
    /// batch, or `None` when they completed none.
    ///
    /// # Errors
    ///
    /// See [`Error`]. The records of a failed call are not kept; the schema and the
    /// summary state are those from before the call. A broken chunk stream stays broken
    /// (every later call fails the same way).
    pub fn feed(&mut self, input: &[u8]) -> Result<Option<RecordBatch>, Error> {
        let batch = self.dechunker.feed_batch(input);
        let mut records = Vec::new();
        let mut offsets = Vec::new();
        let (mut done, mut has_more, mut wanted) = (self.done, self.has_more, self.pull_wanted);
        let mut start = 0;
        while start < batch.len() {
            if done {
                return Err(Error::Protocol(format!(
                    "a message after the final summary (stream byte {})",
                    batch.get(start).map_or(0, |m| m.offset())
                )));
            }
            let run = self.codec.decode_batch_records(&batch, start);
            let (found, summary, consumed, error) = run.into_parts();
            offsets.extend(
                (start..start + found.len()).map(|i| batch.get(i).map_or(0, |m| m.offset())),
            );
            records.extend(found);
            if let Some(e) = error {
                return Err(Error::Stream(e));
            }
            match summary {
                Some(Summary::Success(s)) => {
                    has_more = s.has_more();
                    done = !has_more;
                    wanted |= has_more;
                }
                Some(Summary::Failure(f)) => {
                    return Err(Error::Failure {
                        code: f.code().unwrap_or_default().to_string(),
                        message: f.message().unwrap_or_default().to_string(),
                    })
                }
                Some(_) => {
                    return Err(Error::Protocol(format!(
                        "IGNORED in a PULL response (stream byte {})",
                        batch.get(start + consumed - 1).map_or(0, |m| m.offset())
                    )))
                }
                None => {}
            }
            if consumed == 0 {
                break;
            }
            start += consumed;
        }
        if records.is_empty() {
            if let Some(e) = batch.error() {
                return Err(Error::Stream(e.clone().into()));
            }
        }
        let result = if records.is_empty() {
            None
        } else {
            Some(self.arrow.decode_at(&records, Some(&offsets))?)
        };
        self.done = done;
        self.has_more = has_more;
        self.pull_wanted = wanted;
        Ok(result)
    }
}
