//! Decoding entry points: one value, a buffer of framed messages, a stream of reads, and
//! the same off the JS thread.

use bolt::chunk::{DechunkError, DechunkLimits, Dechunker};
use napi::bindgen_prelude::{AsyncTask, Buffer, BufferSlice, External};
use napi::{Env, Task};
use napi_derive::napi;
use packstream::{DecodeLimits, DecodeOptions, Decoder};

use crate::tape::{KeyTable, Shape, Tape, HEADER_BYTES};

/// Decoder options; every field is optional and defaults to the core crate's default.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct NativeOptions {
    /// Accept the PackStream v2 UUID marker `E0` (Bolt 6.1+). Default false.
    pub uuid: Option<bool>,
    /// Accept the legacy `DC`/`DD` structure markers. Default false.
    pub legacy_structs: Option<bool>,
    /// Deepest nesting of lists, maps and structures. Default 1024.
    pub max_depth: Option<u32>,
    /// Longest string in bytes. Default 2 147 483 647.
    pub max_string_len: Option<u32>,
    /// Longest byte array. Default 2 147 483 647.
    pub max_bytes_len: Option<u32>,
    /// Most items of one list, map or structure. Default 2 147 483 647.
    pub max_container_len: Option<u32>,
    /// Most items, entries and fields in one value, summed. Default 2^26.
    pub max_total_elements: Option<f64>,
    /// Largest de-chunked message in bytes. Default 64 MiB.
    pub max_message_size: Option<f64>,
    /// Most chunks in one message. Default 2^20.
    pub max_chunks: Option<u32>,
}

impl NativeOptions {
    pub(crate) fn decode_options(&self) -> DecodeOptions {
        let d = DecodeLimits::default();
        let limits = DecodeLimits {
            max_depth: self.max_depth.unwrap_or(d.max_depth),
            max_string_len: self.max_string_len.unwrap_or(d.max_string_len),
            max_bytes_len: self.max_bytes_len.unwrap_or(d.max_bytes_len),
            max_container_len: self.max_container_len.unwrap_or(d.max_container_len),
            max_total_elements: self
                .max_total_elements
                .map_or(d.max_total_elements, |v| v.max(0.0) as u64),
        };
        DecodeOptions::default()
            .with_limits(limits)
            .with_uuid(self.uuid.unwrap_or(false))
            .with_legacy_structs(self.legacy_structs.unwrap_or(false))
    }

    pub(crate) fn dechunk_limits(&self) -> DechunkLimits {
        let d = DechunkLimits::default();
        DechunkLimits {
            max_message_size: self
                .max_message_size
                .map_or(d.max_message_size, |v| v.max(0.0) as usize),
            max_chunks: self.max_chunks.unwrap_or(d.max_chunks),
        }
    }
}

/// A decode or framing error, as data: JS turns it into an `Error`.
#[napi(object)]
#[derive(Debug, Clone)]
pub struct ErrorInfo {
    /// The error kind: a `packstream` kind (`unexpected_end`, `reserved_marker`, …),
    /// `not_a_record`, or a framing kind (`message_too_large`, `too_many_chunks`,
    /// `truncated`, `internal`).
    pub kind: String,
    /// Byte offset of the problem: in the message for decode errors, in the stream for
    /// framing errors.
    pub offset: f64,
    /// Stream offset of the message's first chunk header (decode errors in framed input),
    /// or -1.
    pub message_offset: f64,
    /// Human-readable description, including the offset.
    pub message: String,
}

/// A framing error as data, through the core's kind and offsets.
fn dechunk_error_info(e: &DechunkError) -> ErrorInfo {
    ErrorInfo {
        kind: e.kind().to_owned(),
        offset: e.offset() as f64,
        message_offset: e.message_offset() as f64,
        message: e.to_string(),
    }
}

/// Decodes every message of `input`, a buffer of complete framed messages, into `tape`.
/// Returns the framing error, if any, or the error of a buffer that ends inside a
/// message (the messages before it are in the tape).
///
/// A one-shot buffer keeps nothing between calls, so it is de-chunked in place
/// (`Dechunker::feed_batch`: a message in one chunk is a slice of `input`).
fn frames_into(
    input: &[u8],
    opts: DecodeOptions,
    limits: DechunkLimits,
    shape: Shape,
    keys: &mut KeyTable,
    tape: &mut Tape,
) -> Option<ErrorInfo> {
    let mut dechunker = Dechunker::with_limits(limits);
    let batch = dechunker.feed_batch(input);
    let mut dec = Decoder::with_options(&[], opts);
    for msg in batch.iter() {
        tape.received(msg.bytes(), msg.offset(), &mut dec, keys, shape);
    }
    if let Some(e) = batch.error() {
        return Some(dechunk_error_info(e));
    }
    drop(batch);
    dechunker
        .end_of_stream()
        .err()
        .map(|e| dechunk_error_info(&e))
}

/// Feeds `input` to the stream's `dechunker` and decodes every message it completes
/// into `tape`, in stream order. Returns the framing error, if any (the messages complete
/// before it are in the tape; the dechunker is then poisoned and reports the same error
/// on every later feed, with no messages).
///
/// Every message is decoded in the call that completes it (the JS side reads them all
/// from the tape), so nothing needs queueing: a message in one chunk is decoded straight
/// from `input`, and only one assembled from several chunks or reads is a copy (the
/// dechunker's own buffer). A `bolt::inbox::Inbox` would copy every message into its
/// queue first (about 190 instructions per RECORD on records 10000x3, chunked).
fn stream_into(
    dechunker: &mut Dechunker,
    input: &[u8],
    opts: DecodeOptions,
    shape: Shape,
    keys: &mut KeyTable,
    tape: &mut Tape,
) -> Option<ErrorInfo> {
    let batch = dechunker.feed_batch(input);
    let mut dec = Decoder::with_options(&[], opts);
    for msg in batch.iter() {
        tape.received(msg.bytes(), msg.offset(), &mut dec, keys, shape);
    }
    batch.error().map(dechunk_error_info)
}

/// Largest tape (per area, in bytes) a codec keeps allocated between calls.
const KEEP_BYTES: usize = 4 << 20;

/// The native decoder behind `boltcodec`'s `unpack`, `decodeRecords` and `Dechunker`,
/// held by JS as an external (see [`native_codec`]) and driven by the `codec*` functions.
///
/// Each decoding function decodes into the codec's tape and copies it into `out`, a buffer
/// owned by the JS side. It returns the number of bytes of `out` used, or, when `out` is
/// too small, minus the size it needs: grow it and call [`codec_copy_out`]. Map keys are
/// interned for the codec's life (at most 4096 keys of up to 64 bytes); the JS side keeps
/// the string of each key id.
///
/// Plain functions over an external, not methods of a class: a class method pays napi-rs's
/// receiver unwrap (type tag and class identity checks) and borrow registration on every
/// call: about 2,400 instructions more per call than this (measured with callgrind).
#[derive(Debug)]
pub struct NativeCodec {
    opts: DecodeOptions,
    keys: KeyTable,
    tape: Tape,
    /// The stream fed to `codec_push`.
    stream: Dechunker,
    /// The framing limits of `codec_decode_frames`.
    limits: DechunkLimits,
    status: i32,
    stream_error: Option<ErrorInfo>,
}

impl NativeCodec {
    /// A codec with these options.
    fn new(options: Option<NativeOptions>) -> Self {
        let options = options.unwrap_or_default();
        let limits = options.dechunk_limits();
        NativeCodec {
            opts: options.decode_options(),
            keys: KeyTable::default(),
            tape: Tape::default(),
            stream: Dechunker::with_limits(limits),
            limits,
            status: 0,
            stream_error: None,
        }
    }

    /// One decoding call: starts the tape, runs `decode` (which returns the framing error,
    /// if any), records the status and the framing error, and copies the tape into `out`
    /// (see [`NativeCodec::write_out`]). With `keys_only_if_read`, a call that fails with
    /// a framing error (the JS side then throws and reads none of its messages) interns
    /// none of its keys.
    #[inline(always)]
    fn call(
        &mut self,
        out: &mut [u8],
        keys_only_if_read: bool,
        decode: impl FnOnce(&mut Self) -> Option<ErrorInfo>,
    ) -> i64 {
        self.tape.start(&self.keys);
        let keys_before = self.keys.len();
        self.stream_error = decode(self);
        self.status = i32::from(self.stream_error.is_some());
        if keys_only_if_read && self.stream_error.is_some() {
            self.keys.truncate(keys_before);
        }
        self.write_out(out)
    }

    /// Copies the tape into `out`; once it is there, gives back the tape's memory if the
    /// call was large (see [`KEEP_BYTES`]).
    fn write_out(&mut self, out: &mut [u8]) -> i64 {
        let len = self.tape.out_len() as i64;
        if self.tape.write_out(out, self.status) {
            self.tape.release(KEEP_BYTES);
            len
        } else {
            -len
        }
    }
}

/// A native codec with these options, for the `codec*` functions.
///
/// ```js
/// const native = require('boltcodec/native.js')
/// const codec = native.nativeCodec({ maxDepth: 64 })
/// const out = Buffer.alloc(1 << 16)
/// const len = native.codecDecodeValue(codec, Buffer.from([0x91, 0x01]), out, true)
/// // `out` now holds the tape of [1] (lib/decode.js reads it); len is its size in bytes.
/// ```
#[napi(ts_return_type = "ExternalObject<'NativeCodec'>")]
pub fn native_codec(options: Option<NativeOptions>) -> External<NativeCodec> {
    External::new(NativeCodec::new(options))
}

/// The size of the tape header in bytes (the smallest useful `out`).
#[napi]
pub fn codec_header_bytes() -> u32 {
    HEADER_BYTES as u32
}

/// Decodes the PackStream value at the start of `input`. With `exact`, `input` must be
/// exactly one value (`trailing_bytes` otherwise); without, the bytes after the value are
/// left alone, and header word 18 of the tape says how many bytes the value took (as a
/// stream reader needs: read one value, move past it).
#[napi]
pub fn codec_decode_value(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &mut External<NativeCodec>,
    input: BufferSlice<'_>,
    mut out: BufferSlice<'_>,
    exact: bool,
) -> i64 {
    let c: &mut NativeCodec = codec;
    c.call(&mut out, false, |c| {
        c.tape.whole(&input, c.opts, &mut c.keys, exact);
        None
    })
}

/// Decodes `input`, a buffer of complete framed Bolt messages (chunks and end markers).
/// With `records`, every message must be a RECORD and only its field list is written.
/// A buffer that ends inside a message is a `truncated` error (status 1). A call that
/// fails so (the JS side then throws and reads none of its messages) interns none of
/// its keys: the key table only takes the keys of calls whose tape is read.
#[napi]
pub fn codec_decode_frames(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &mut External<NativeCodec>,
    input: BufferSlice<'_>,
    mut out: BufferSlice<'_>,
    records: bool,
) -> i64 {
    let c: &mut NativeCodec = codec;
    let shape = if records { Shape::Record } else { Shape::Any };
    c.call(&mut out, true, |c| {
        frames_into(&input, c.opts, c.limits, shape, &mut c.keys, &mut c.tape)
    })
}

/// Feeds the next bytes of a Bolt stream and decodes every message they complete.
/// With `records`, a RECORD message is written as its list of fields only. Incomplete
/// data is kept for the next call. After a framing error (status 1) the stream stays
/// broken until `codecReset`.
#[napi]
pub fn codec_push(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &mut External<NativeCodec>,
    input: BufferSlice<'_>,
    mut out: BufferSlice<'_>,
    records: bool,
) -> i64 {
    let c: &mut NativeCodec = codec;
    let shape = if records {
        Shape::RecordOrAny
    } else {
        Shape::Any
    };
    // The messages before a framing error are delivered, so their keys are kept.
    c.call(&mut out, false, |c| {
        let error = stream_into(
            &mut c.stream,
            &input,
            c.opts,
            shape,
            &mut c.keys,
            &mut c.tape,
        );
        // A message assembled across reads grows the stream's buffers to its size: give
        // that back once it has been decoded.
        if c.stream.buffer_capacity() > KEEP_BYTES {
            c.stream.shrink_buffer_to(0);
        }
        error
    })
}

/// Copies the last result into `out` again, after a call returned that `out` was too
/// small (and JS grew it).
#[napi]
pub fn codec_copy_out(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &mut External<NativeCodec>,
    mut out: BufferSlice<'_>,
) -> i64 {
    codec.write_out(&mut out)
}

/// The interned keys of ids `from` to `to` (exclusive): lets the JS side take back
/// keys it missed, should a call ever end between interning and JS reading the tape.
#[napi]
pub fn codec_key_strings(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &External<NativeCodec>,
    from: u32,
    to: u32,
) -> Vec<String> {
    (from..to)
        .map_while(|i| codec.keys.get(i as usize).map(str::to_owned))
        .collect()
}

/// Number of interned keys.
#[napi]
pub fn codec_key_count(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &External<NativeCodec>,
) -> u32 {
    codec.keys.len() as u32
}

/// The error of the `index`-th failed message of the last result.
#[napi]
pub fn codec_error_info(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &External<NativeCodec>,
    index: u32,
) -> Option<ErrorInfo> {
    codec.tape.errors.get(index as usize).map(|e| ErrorInfo {
        kind: e.kind.to_owned(),
        offset: e.offset as f64,
        message_offset: e.message_offset as f64,
        message: e.message.clone(),
    })
}

/// The framing error of the last result (status 1).
#[napi]
pub fn codec_stream_error(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &External<NativeCodec>,
) -> Option<ErrorInfo> {
    codec.stream_error.clone()
}

/// Checks that the stream fed to `codecPush` ended between messages.
#[napi]
pub fn codec_end_of_stream(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &External<NativeCodec>,
) -> Option<ErrorInfo> {
    codec
        .stream
        .end_of_stream()
        .err()
        .map(|e| dechunk_error_info(&e))
}

/// Forgets the state of the stream fed to `codecPush` (as for a new connection); the
/// interned keys are kept.
#[napi]
pub fn codec_reset(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &mut External<NativeCodec>,
) {
    codec.stream.reset();
    codec.stream_error = None;
}

/// Whether the stream fed to `codecPush` is between messages.
#[napi]
pub fn codec_is_at_boundary(
    #[napi(ts_arg_type = "ExternalObject<'NativeCodec'>")] codec: &External<NativeCodec>,
) -> bool {
    codec.stream.is_at_boundary()
}

/// The result of `decodeFramesAsync`.
#[napi(object)]
pub struct DecodedBatch {
    /// The tape, laid out as `NativeCodec` writes it (its keys are all new).
    pub out: Buffer,
    /// The errors of the failed messages, by index.
    pub errors: Vec<ErrorInfo>,
    /// The framing error, if any.
    pub stream_error: Option<ErrorInfo>,
}

/// `decodeFramesAsync` on the libuv thread pool.
pub struct DecodeFramesTask {
    input: Vec<u8>,
    options: NativeOptions,
    records: bool,
}

/// What the thread pool hands back.
pub struct FramesOutput {
    out: Vec<u8>,
    errors: Vec<ErrorInfo>,
    stream_error: Option<ErrorInfo>,
}

impl Task for DecodeFramesTask {
    type Output = FramesOutput;
    type JsValue = DecodedBatch;

    fn compute(&mut self) -> napi::Result<FramesOutput> {
        let mut keys = KeyTable::default();
        let mut tape = Tape::default();
        let shape = if self.records {
            Shape::Record
        } else {
            Shape::Any
        };
        let stream_error = frames_into(
            &self.input,
            self.options.decode_options(),
            self.options.dechunk_limits(),
            shape,
            &mut keys,
            &mut tape,
        );
        let mut out = vec![0u8; tape.out_len()];
        tape.write_out(&mut out, i32::from(stream_error.is_some()));
        let errors = tape
            .errors
            .iter()
            .map(|e| ErrorInfo {
                kind: e.kind.to_owned(),
                offset: e.offset as f64,
                message_offset: e.message_offset as f64,
                message: e.message.clone(),
            })
            .collect();
        Ok(FramesOutput {
            out,
            errors,
            stream_error,
        })
    }

    fn resolve(&mut self, _env: Env, output: FramesOutput) -> napi::Result<DecodedBatch> {
        Ok(DecodedBatch {
            out: output.out.into(),
            errors: output.errors,
            stream_error: output.stream_error,
        })
    }
}

/// Like `NativeCodec.decodeFrames`, but decodes on the libuv thread pool. The input is
/// copied first, so the caller may reuse its buffer at once.
#[napi(ts_return_type = "Promise<DecodedBatch>")]
pub fn decode_frames_async(
    input: BufferSlice<'_>,
    records: bool,
    options: Option<NativeOptions>,
) -> AsyncTask<DecodeFramesTask> {
    AsyncTask::new(DecodeFramesTask {
        input: input.to_vec(),
        options: options.unwrap_or_default(),
        records,
    })
}
