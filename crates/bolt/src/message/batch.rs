//! Decoding a whole run of RECORDs and the summary that ends it in one call: the hot
//! path of a PULL response, made for bindings (one native call per received buffer).

use crate::chunk::{Batch, Message};

use super::error::{BatchError, MessageError};
use super::record::Record;
use super::response::{self, Response, Summary};
use super::MessageCodec;

/// One message given to the batch decoder: its bytes and, when known, where it started
/// in the stream. Implemented for `&[u8]`, `&Vec<u8>` and the dechunker's
/// [`Message`].
pub trait MessageSource<'a> {
    /// The message bytes (one PackStream structure).
    fn message_bytes(&self) -> &'a [u8];

    /// The stream offset of the message's first chunk header, if known.
    fn stream_offset(&self) -> Option<u64> {
        None
    }
}

impl<'a> MessageSource<'a> for &'a [u8] {
    fn message_bytes(&self) -> &'a [u8] {
        self
    }
}

impl<'a> MessageSource<'a> for &'a Vec<u8> {
    fn message_bytes(&self) -> &'a [u8] {
        self.as_slice()
    }
}

impl<'a> MessageSource<'a> for Message<'a> {
    fn message_bytes(&self) -> &'a [u8] {
        self.bytes()
    }

    fn stream_offset(&self) -> Option<u64> {
        Some(self.offset())
    }
}

/// The RECORDs at the front of a list of response messages, and the summary that ends
/// them: the result of [`MessageCodec::decode_records`] and friends.
///
/// Decoding stops at the first message that is not a RECORD (the summary, which is
/// decoded and included), at the first error, or at the end of the messages. Records
/// are decoded lazily (their field count is read; see [`Record`]).
///
/// [`RecordBatch::consumed`] says how many messages were used (the records plus the
/// summary); continue after them for the responses to later requests.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordBatch<'a> {
    records: Vec<Record<'a>>,
    summary: Option<Summary<'a>>,
    consumed: usize,
    error: Option<BatchError>,
}

impl<'a> RecordBatch<'a> {
    /// The records, in stream order.
    #[must_use]
    pub fn records(&self) -> &[Record<'a>] {
        &self.records
    }

    /// The records, by value.
    #[must_use]
    pub fn into_records(self) -> Vec<Record<'a>> {
        self.records
    }

    /// The summary that ended the records (SUCCESS, FAILURE or IGNORED), if it was among
    /// the messages.
    #[must_use]
    pub fn summary(&self) -> Option<&Summary<'a>> {
        self.summary.as_ref()
    }

    /// Whether a summary ended the batch (otherwise more records may follow in the next
    /// bytes).
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.summary.is_some()
    }

    /// Whether the summary is a SUCCESS with `has_more: true` (send another PULL).
    #[must_use]
    pub fn has_more(&self) -> bool {
        self.summary
            .as_ref()
            .and_then(Summary::success)
            .is_some_and(|s| s.has_more())
    }

    /// How many messages were used: the records, plus one for the summary. On an error,
    /// the index (relative to where decoding started) of the message that failed.
    #[must_use]
    pub fn consumed(&self) -> usize {
        self.consumed
    }

    /// The error that stopped decoding, if any. The records before it are kept.
    #[must_use]
    pub fn error(&self) -> Option<&BatchError> {
        self.error.as_ref()
    }

    /// The records, the summary, the number of messages used and the error.
    #[must_use]
    pub fn into_parts(
        self,
    ) -> (
        Vec<Record<'a>>,
        Option<Summary<'a>>,
        usize,
        Option<BatchError>,
    ) {
        (self.records, self.summary, self.consumed, self.error)
    }

    /// Every field of every record, decoded.
    ///
    /// # Errors
    ///
    /// The first field that fails to decode, as [`BatchError::Message`] with `index`
    /// the record's position in this batch.
    pub fn decode_fields(&self) -> Result<Vec<Vec<packstream::ValueRef<'a>>>, BatchError> {
        self.records
            .iter()
            .enumerate()
            .map(|(index, r)| {
                r.fields().map_err(|source| BatchError::Message {
                    index,
                    stream_offset: None,
                    source,
                })
            })
            .collect()
    }
}

#[cfg(feature = "serde")]
impl<'a> RecordBatch<'a> {
    /// Every record deserialised into a `T` (feature `serde`; see
    /// [`Record::deserialize`]), one result per record in stream order, through one
    /// deserializer set up once for the whole batch with the options the records were
    /// decoded with. Errors carry the byte offset inside the record's message; the
    /// record's index in the batch is its position in the iteration.
    ///
    /// ```
    /// use bolt::message::MessageCodec;
    /// use bolt::BoltVersion;
    ///
    /// let messages: [&[u8]; 3] = [
    ///     b"\xB1\x71\x92\x01\x81a",           // RECORD [1, "a"]
    ///     b"\xB1\x71\x92\x02\x81b",           // RECORD [2, "b"]
    ///     b"\xB1\x70\xA1\x88has_more\xC2",    // SUCCESS {"has_more": false}
    /// ];
    /// let batch = MessageCodec::new(BoltVersion::V5_8).decode_records(messages);
    /// let rows: Vec<(i64, &str)> = batch.deserialize_rows().collect::<Result<_, _>>()?;
    /// assert_eq!(rows, [(1, "a"), (2, "b")]);
    /// # Ok::<(), packstream::serde::Error>(())
    /// ```
    pub fn deserialize_rows<'s, T: serde::Deserialize<'a>>(
        &'s self,
    ) -> impl Iterator<Item = Result<T, packstream::serde::Error>> + use<'a, 's, T> {
        let opts = self
            .records
            .iter()
            .find_map(Record::decode_options)
            .unwrap_or_default();
        let mut de = packstream::serde::Deserializer::with_options(&[], &opts);
        self.records
            .iter()
            .map(move |r| r.deserialize_with(&mut de))
    }
}

impl MessageCodec {
    /// Decodes the RECORDs at the front of `messages` and the summary that ends them.
    ///
    /// ```
    /// use bolt::message::{MessageCodec, Summary};
    /// use bolt::BoltVersion;
    ///
    /// let messages: [&[u8]; 4] = [
    ///     &[0xB1, 0x71, 0x91, 0x01],                     // RECORD [1]
    ///     &[0xB1, 0x71, 0x91, 0x02],                     // RECORD [2]
    ///     b"\xB1\x70\xA1\x88has_more\xC3",               // SUCCESS {"has_more": true}
    ///     &[0xB1, 0x70, 0xA0],                           // (the next request's reply)
    /// ];
    /// let batch = MessageCodec::new(BoltVersion::V5_8).decode_records(messages);
    /// assert_eq!(batch.records().len(), 2);
    /// assert!(matches!(batch.summary(), Some(Summary::Success(_))));
    /// assert!(batch.has_more());
    /// assert_eq!(batch.consumed(), 3);
    /// assert!(batch.error().is_none());
    /// ```
    pub fn decode_records<'a, I>(&self, messages: I) -> RecordBatch<'a>
    where
        I: IntoIterator,
        I::Item: MessageSource<'a>,
    {
        let mut records = Vec::new();
        let mut index = 0;
        for m in messages {
            match response::decode(m.message_bytes(), self.version(), self.decode_options()) {
                Ok(Response::Record(r)) => records.push(r),
                Ok(other) => {
                    return RecordBatch {
                        records,
                        summary: other.into_summary(),
                        consumed: index + 1,
                        error: None,
                    }
                }
                Err(source) => {
                    return RecordBatch {
                        records,
                        summary: None,
                        consumed: index,
                        error: Some(BatchError::Message {
                            index,
                            stream_offset: m.stream_offset(),
                            source,
                        }),
                    }
                }
            }
            index += 1;
        }
        RecordBatch {
            records,
            summary: None,
            consumed: index,
            error: None,
        }
    }

    /// [`MessageCodec::decode_records`] over the messages of a dechunker batch from
    /// position `start` on. If the batch runs out before a summary and the dechunker
    /// reported an error, that error ends the result.
    ///
    /// Call it again with `start + consumed` for the responses to later requests
    /// (while `consumed > 0` and `start < batch.len()`).
    pub fn decode_batch_records<'a>(&self, batch: &Batch<'a>, start: usize) -> RecordBatch<'a> {
        let mut result = self.decode_records((start..batch.len()).filter_map(|i| batch.get(i)));
        if let Some(BatchError::Message { index, .. }) = &mut result.error {
            *index += start;
        }
        if result.summary.is_none() && result.error.is_none() {
            if let Some(e) = batch.error() {
                result.error = Some(BatchError::Dechunk(e.clone()));
            }
        }
        result
    }

    /// Feeds `input` to `dechunker` and decodes the records and summary at the front of
    /// the messages that completed: one call per received buffer. Returns the result
    /// and the dechunker's batch, from which the messages after
    /// [`RecordBatch::consumed`] can be taken (or decoded with
    /// [`MessageCodec::decode_batch_records`]).
    ///
    /// Records borrow `input` when their message lay in one chunk of it, and the
    /// dechunker's buffer otherwise.
    ///
    /// ```
    /// use bolt::chunk::{Chunker, Dechunker};
    /// use bolt::message::{MessageCodec, Record, Response, Success};
    /// use bolt::BoltVersion;
    /// use packstream::ValueRef;
    ///
    /// let v = BoltVersion::V5_8;
    /// let chunker = Chunker::default();
    /// let mut wire = Vec::new();
    /// for i in 0..3 {
    ///     Response::Record(Record::new(vec![ValueRef::Int(i)])).encode_framed(v, &chunker, &mut wire)?;
    /// }
    /// Response::Success(Success::new().with("t_last", 1)).encode_framed(v, &chunker, &mut wire)?;
    ///
    /// let codec = MessageCodec::new(v);
    /// let mut dechunker = Dechunker::new();
    /// let (records, batch) = codec.feed_records(&mut dechunker, &wire);
    /// assert_eq!(records.records().len(), 3);
    /// assert_eq!(records.records()[2].fields()?, [ValueRef::Int(2)]);
    /// assert!(records.is_complete() && records.error().is_none());
    /// assert_eq!(records.consumed(), batch.len());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn feed_records<'a>(
        &self,
        dechunker: &'a mut crate::chunk::Dechunker,
        input: &'a [u8],
    ) -> (RecordBatch<'a>, Batch<'a>) {
        let batch = dechunker.feed_batch(input);
        let records = self.decode_batch_records(&batch, 0);
        (records, batch)
    }

    /// Decodes each message as a response (not only records) with this codec, one
    /// result per message, stopping at nothing: for callers that walk a whole batch.
    pub fn decode_responses<'a, I>(
        &self,
        messages: I,
    ) -> impl Iterator<Item = Result<Response<'a>, MessageError>> + 'a
    where
        I: IntoIterator,
        I::Item: MessageSource<'a>,
        I::IntoIter: 'a,
    {
        let codec = *self;
        messages.into_iter().map(move |m| {
            response::decode(m.message_bytes(), codec.version(), codec.decode_options())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{Chunker, DechunkLimits, Dechunker};
    use crate::message::{Failure, Request, Success};
    use crate::version::BoltVersion;
    use packstream::ValueRef;

    const V: BoltVersion = BoltVersion::V5_8;

    fn record(i: i64) -> Vec<u8> {
        Response::Record(Record::new(vec![ValueRef::Int(i)]))
            .to_vec(V)
            .unwrap()
    }

    #[test]
    fn stops_at_the_first_summary() {
        let codec = MessageCodec::new(V);
        let success = Response::Success(Success::new().with("has_more", false))
            .to_vec(V)
            .unwrap();
        let messages = [record(1), record(2), success.clone(), record(3)];
        let b = codec.decode_records(&messages);
        assert_eq!(b.records().len(), 2);
        assert_eq!(b.consumed(), 3);
        assert!(b.is_complete() && !b.has_more() && b.error().is_none());
        assert_eq!(
            b.decode_fields().unwrap(),
            [[ValueRef::Int(1)], [ValueRef::Int(2)]]
        );
        // the rest
        let rest = codec.decode_records(&messages[3..]);
        assert_eq!((rest.records().len(), rest.consumed()), (1, 1));
        assert!(!rest.is_complete());
        // a summary first
        let ignored = [0xB0, 0x7E];
        let b = codec.decode_records([&ignored[..]]);
        assert_eq!(b.summary(), Some(&Summary::Ignored));
        assert_eq!((b.records().len(), b.consumed()), (0, 1));
        let failure = Response::Failure(Failure::new(V, "c", "m"))
            .to_vec(V)
            .unwrap();
        let pair = [record(1), failure];
        let b = codec.decode_records(pair.iter());
        assert!(b.summary().and_then(Summary::failure).is_some());
        let (records, summary, consumed, error) = b.into_parts();
        assert_eq!((records.len(), consumed), (1, 2));
        assert!(summary.is_some() && error.is_none());
        // nothing at all
        let b = codec.decode_records(std::iter::empty::<&[u8]>());
        assert_eq!(
            (b.records().len(), b.consumed(), b.is_complete()),
            (0, 0, false)
        );
    }

    #[test]
    fn errors_name_the_message() {
        let codec = MessageCodec::new(V);
        let run = Request::Run(crate::message::Run::new("x"))
            .to_vec(V)
            .unwrap();
        let messages = [record(1), run];
        let b = codec.decode_records(&messages);
        assert_eq!(b.records().len(), 1);
        assert_eq!(b.consumed(), 1);
        assert_eq!(
            b.error(),
            Some(&BatchError::Message {
                index: 1,
                stream_offset: None,
                source: MessageError::UnknownSignature {
                    offset: 0,
                    direction: "response",
                    signature: 0x10
                }
            })
        );
        assert_eq!(
            b.error().unwrap().to_string(),
            "message 1 of the batch: message byte 0: unknown response message signature 0x10"
        );
        // field errors of a lazy record
        let broken = [0xB1, 0x71, 0x91, 0xDF];
        let b = codec.decode_records([&broken[..]]);
        assert!(matches!(
            b.decode_fields(),
            Err(BatchError::Message { index: 0, .. })
        ));
    }

    #[test]
    fn from_a_dechunker_with_offsets() {
        let codec = MessageCodec::new(V);
        let chunker = Chunker::default();
        let mut wire = Vec::new();
        for i in 0..3 {
            chunker.write_message(&record(i), &mut wire).unwrap();
        }
        let success = Response::Success(Success::new().with("has_more", true))
            .to_vec(V)
            .unwrap();
        chunker.write_message(&success, &mut wire).unwrap();
        // the next PULL's reply: a record, then a broken message
        chunker.write_message(&record(9), &mut wire).unwrap();
        let second_start = wire.len() as u64;
        chunker
            .write_message(&[0xB1, 0x70, 0x01], &mut wire)
            .unwrap();
        let cut = wire.len() - 3;

        let mut d = Dechunker::new();
        let (first, batch) = codec.feed_records(&mut d, &wire[..cut]);
        assert_eq!(first.records().len(), 3);
        assert!(first.has_more());
        assert_eq!(first.consumed(), 4);
        assert_eq!(batch.len(), 5); // the broken one is not complete yet
        let second = codec.decode_batch_records(&batch, 4);
        assert_eq!((second.records().len(), second.consumed()), (1, 1));
        assert!(!second.is_complete() && second.error().is_none());
        assert!(codec.decode_batch_records(&batch, 5).records().is_empty());
        // Decoded values borrow from the dechunker until they are dropped.
        drop((first, second, batch));

        let (rest, _) = codec.feed_records(&mut d, &wire[cut..]);
        assert_eq!(
            rest.error(),
            Some(&BatchError::Message {
                index: 0,
                stream_offset: Some(second_start),
                source: MessageError::FieldType {
                    offset: 2,
                    message: "SUCCESS",
                    field: "metadata",
                    expected: "a map",
                    found: "integer"
                }
            })
        );
        assert!(rest
            .error()
            .unwrap()
            .to_string()
            .contains(&format!("(stream offset {second_start})")));
    }

    #[test]
    fn dechunk_errors_end_the_batch() {
        let codec = MessageCodec::new(V);
        let limits = DechunkLimits {
            max_message_size: 8,
            ..DechunkLimits::default()
        };
        let mut wire = Vec::new();
        Chunker::default()
            .write_message(&record(1), &mut wire)
            .unwrap();
        Chunker::default()
            .write_message(&[0xB1, 0x71, 0x91, 0xD0, 0x10, 0, 0, 0, 0], &mut wire)
            .unwrap();
        let mut d = Dechunker::with_limits(limits);
        let (b, batch) = codec.feed_records(&mut d, &wire);
        assert_eq!(batch.len(), 1);
        assert_eq!(b.records().len(), 1);
        assert!(matches!(b.error(), Some(BatchError::Dechunk(_))));
        assert_eq!(b.consumed(), 1);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn typed_rows_through_one_deserializer_with_offsets_in_the_message() {
        use packstream::ErrorKind;

        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Row<'a> {
            id: i64,
            name: &'a str,
        }
        let codec = MessageCodec::new(V);
        let row = |id: i64, name: &'static str| {
            Response::Record(Record::new(vec![ValueRef::Int(id), ValueRef::String(name)]))
                .to_vec(V)
                .unwrap()
        };
        let messages = [
            row(1, "a"),
            row(2, "b"),
            // the name is an integer: its marker is message byte 4
            vec![0xB1, 0x71, 0x92, 0x03, 0x04],
            // a byte after the list
            vec![0xB1, 0x71, 0x92, 0x05, 0x81, b'e', 0xC0],
            row(6, "f"),
        ];
        let batch = codec.decode_records(&messages);
        // (A list header claiming more items than the message holds fails the batch
        // decoding itself: `errors_name_the_message`.)
        assert_eq!(batch.records().len(), 5);
        let rows: Vec<_> = batch.deserialize_rows::<Row<'_>>().collect();
        assert_eq!(rows[0], Ok(Row { id: 1, name: "a" }));
        assert_eq!(rows[1], Ok(Row { id: 2, name: "b" }));
        assert_eq!(rows[2].as_ref().map_err(|e| e.offset()), Err(Some(4)));
        assert!(matches!(
            rows[3].as_ref().map_err(packstream::serde::Error::detail),
            Err(packstream::serde::ErrorDetail::Decode(e)) if e.kind() == ErrorKind::TrailingBytes && e.offset() == 6
        ));
        assert_eq!(rows[4], Ok(Row { id: 6, name: "f" }));
        // The same, one record at a time.
        for (r, expected) in batch.records().iter().zip(&rows) {
            assert_eq!(&r.deserialize::<Row<'_>>(), expected);
        }
        // A built record has no bytes to read.
        let built = Record::new(vec![ValueRef::Int(1), ValueRef::String("a")]);
        assert!(matches!(
            built
                .deserialize::<Row<'_>>()
                .map_err(packstream::serde::Error::into_detail),
            Err(packstream::serde::ErrorDetail::Data { .. })
        ));
    }

    #[test]
    fn decode_responses_walks_everything() {
        let codec = MessageCodec::new(V);
        let messages = [record(1), vec![0xB0, 0x7E], vec![0xB0, 0x0F]];
        let names: Vec<_> = codec
            .decode_responses(&messages)
            .map(|r| r.map(|r| r.name()))
            .collect();
        assert_eq!(names[..2], [Ok("RECORD"), Ok("IGNORED")]);
        assert!(names[2].is_err());
    }
}
