//! Query results as Apache Arrow, through the Arrow C stream interface
//! (`struct ArrowArrayStream`): the RECORD messages of a PULL response decoded by
//! `bolt_arrow` into record batches, whole (`bc_arrow_decode`) or as the bytes arrive
//! (`bc_arrow_stream`). The column types follow the rules of the `boltcodec-arrow`
//! crate (crates/arrow/README.md): integers `int64`, floats `float64` (and mixed with
//! integers), strings `utf8`, nulls join any type, other mixes become text; the first
//! batch with rows fixes a stream's schema.
//!
//! Each batch is a struct array (one child per column) with a struct schema, as the C
//! stream interface specifies; any consumer of that interface (nanoarrow, Arrow C++,
//! pyarrow, DuckDB, …) takes it without copying.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::sync::Arc;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bolt_arrow::PullDecoder;

use crate::ffi::{self, Out};
use crate::handshake::bc_version;
use crate::status::{bc_status, kind_status, to_cstring, Failure, Res};

/// An Arrow decoding error in detail: what `bc_arrow_stream_last_error` and
/// `bc_arrow_decode` report.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_arrow_error {
    /// The status of the call that failed (`BC_OK` if none has failed). A value that
    /// does not fit the column type fixed by the first batch gives `BC_ERR_WRONG_TYPE`;
    /// malformed PackStream the decode statuses (`BC_ERR_UNEXPECTED_END`, …); a broken
    /// chunk stream `BC_ERR_MESSAGE_TOO_LARGE` / `BC_ERR_TOO_MANY_CHUNKS`; a record with
    /// another number of fields than the columns, a server FAILURE, an IGNORED or a
    /// message after the final summary `BC_ERR_PROTOCOL`; a batch beyond Arrow's 32-bit
    /// offsets `BC_ERR_SIZE_TOO_LARGE`; bytes that end before the summary
    /// (`bc_arrow_decode` only) `BC_ERR_UNEXPECTED_END`.
    pub status: bc_status,
    /// The stream offset the error refers to (the first byte ever fed is 0), or -1: for
    /// an error in a record, where that record's message starts (its first chunk
    /// header); for a broken chunk stream or a message that is not a record, where that
    /// is; for `bc_arrow_decode`'s incomplete input, the input's length.
    pub offset: i64,
    /// The byte inside the record message (the de-chunked PackStream structure) where a
    /// malformed value or a value of the wrong type starts, or -1.
    pub message_offset: i64,
    /// The error kind, NUL-terminated (never NULL; `""` if none): the decode kinds
    /// (`"unexpected_end"`, `"invalid_utf8"`, …), `"type_changed"`, `"field_count"`,
    /// `"failure"` (the server's FAILURE: the message has its code and text),
    /// `"protocol"`, `"too_large"`, `"schema"`, `"arrow"` (a bug).
    pub kind: *const c_char,
    /// A NUL-terminated, human-readable description (never NULL; `""` if none).
    pub message: *const c_char,
}

/// The error record behind a `bc_arrow_error`.
#[derive(Debug)]
struct ErrorRecord {
    status: bc_status,
    offset: i64,
    message_offset: i64,
    kind: CString,
    message: CString,
}

impl Default for ErrorRecord {
    fn default() -> Self {
        ErrorRecord {
            status: bc_status::BC_OK,
            offset: -1,
            message_offset: -1,
            kind: CString::default(),
            message: CString::default(),
        }
    }
}

impl ErrorRecord {
    fn set(&mut self, f: &ArrowFailure) -> bc_status {
        self.status = f.status;
        self.offset = f.offset;
        self.message_offset = f.message_offset;
        self.kind = to_cstring(&f.kind);
        self.message = to_cstring(&f.message);
        f.status
    }

    fn to_c(&self) -> bc_arrow_error {
        bc_arrow_error {
            status: self.status,
            offset: self.offset,
            message_offset: self.message_offset,
            kind: self.kind.as_ptr(),
            message: self.message.as_ptr(),
        }
    }
}

/// An error on its way to C, with the Arrow details.
#[derive(Debug)]
struct ArrowFailure {
    status: bc_status,
    offset: i64,
    message_offset: i64,
    kind: String,
    message: String,
}

impl From<Failure> for ArrowFailure {
    fn from(f: Failure) -> Self {
        ArrowFailure {
            status: f.status,
            offset: f.offset,
            message_offset: -1,
            kind: status_kind(f.status),
            message: f.message,
        }
    }
}

/// The kind text of a plain status (`bc_status_name`'s).
fn status_kind(status: bc_status) -> String {
    // SAFETY: bc_status_name returns a static NUL-terminated string, never NULL.
    unsafe { CStr::from_ptr(crate::status::bc_status_name(status as i32)) }
        .to_string_lossy()
        .into_owned()
}

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

impl From<&bolt_arrow::Error> for ArrowFailure {
    fn from(e: &bolt_arrow::Error) -> Self {
        use bolt_arrow::Error as E;
        let kind = e.kind();
        let status = kind_status(kind).unwrap_or(bc_status::BC_ERR_INTERNAL);
        // offset() counts inside the record message, except for a stream error, whose
        // offset is the stream offset already reported.
        let message_offset = match e {
            E::Stream(_) => -1,
            _ => e.offset().map_or(-1, to_i64),
        };
        ArrowFailure {
            status,
            offset: e.stream_offset().map_or(-1, to_i64),
            message_offset,
            kind: kind.to_owned(),
            message: e.to_string(),
        }
    }
}

/// Runs an entry point's body; an error is recorded in `record`, a panic too (as
/// `BC_ERR_INTERNAL`).
fn guarded(record: &mut ErrorRecord, f: impl FnOnce() -> Result<(), ArrowFailure>) -> bc_status {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    match result {
        Ok(Ok(())) => bc_status::BC_OK,
        Ok(Err(e)) => record.set(&e),
        Err(_) => record.set(&ArrowFailure::from(Failure::new(
            bc_status::BC_ERR_INTERNAL,
            "internal error (a bug in boltcodec, please report it)",
        ))),
    }
}

/// The column names C gives: `n` NUL-terminated UTF-8 strings.
///
/// # Safety
/// `fields` is NULL (only with `n == 0`) or points to `n` pointers, each NULL or a
/// NUL-terminated string.
unsafe fn field_names(fields: *const *const c_char, n: usize) -> Res<Vec<String>> {
    // SAFETY: forwarded contract.
    let ptrs = unsafe { ffi::slice(fields, n) }?;
    ptrs.iter()
        .enumerate()
        .map(|(i, p)| {
            if p.is_null() {
                return Err(Failure::new(
                    bc_status::BC_ERR_NULL_POINTER,
                    format!("field name {i} is NULL"),
                ));
            }
            // SAFETY: non-NULL, and the caller guarantees a NUL-terminated string.
            let name = unsafe { CStr::from_ptr(*p) };
            name.to_str().map(str::to_owned).map_err(|e| {
                Failure::at(
                    bc_status::BC_ERR_INVALID_UTF8,
                    e.valid_up_to() as u64,
                    format!("field name {i} is not UTF-8"),
                )
            })
        })
        .collect()
}

/// All-`Null` columns, for a result without rows.
fn null_schema(names: &[String]) -> SchemaRef {
    Arc::new(Schema::new(
        names
            .iter()
            .map(|n| Field::new(n, DataType::Null, true))
            .collect::<Vec<_>>(),
    ))
}

/// An `ArrowArrayStream` over `batches`, all of `schema`.
fn export(schema: SchemaRef, batches: Vec<RecordBatch>) -> FFI_ArrowArrayStream {
    let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
    FFI_ArrowArrayStream::new(Box::new(reader))
}

thread_local! {
    /// The last error of `bc_arrow_decode` on this thread.
    static DECODE_ERROR: RefCell<ErrorRecord> = RefCell::new(ErrorRecord::default());
}

/// Decodes a whole PULL response into Arrow: `bytes[0 .. len-1]` are the chunked
/// RECORD messages and the summary, as received after the RUN's SUCCESS; `fields`
/// (`nfields` NUL-terminated UTF-8 names) are that SUCCESS's `fields`; `version` the
/// negotiated version (with `utc_patch` when in effect). The column types are inferred
/// from every row; a result without rows has columns of the Arrow `null` type (`"n"`).
///
/// On `BC_OK`, `*out` receives a stream the caller owns: read it with `get_schema` /
/// `get_next`, then call its `release`. It holds one batch (none when there is no row),
/// a struct array with a child per column. The bytes are not referenced afterwards.
///
/// On an error `*out` is not written, and `*err` (when `err` is not NULL) receives the
/// details: status, stream offset, offset inside the record, kind and message; its
/// strings stay valid until the next `bc_arrow_decode` on the same thread. A response
/// that ends before its summary (SUCCESS, with or without `has_more`) gives
/// `BC_ERR_UNEXPECTED_END` at offset `len`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER` (`bytes` with `len > 0`, `fields` with
/// `nfields > 0`, a field name, or `out`); `BC_ERR_UNKNOWN_VERSION` (unknown version);
/// `BC_ERR_INVALID_UTF8` (a field name); the decoding statuses of `bc_arrow_error`.
///
/// # Safety
/// `bytes` is NULL or readable for `len` bytes; `fields` is NULL or points to `nfields`
/// pointers, each NULL or a NUL-terminated string; `out` is NULL or writable; `err` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_arrow_decode(
    bytes: *const u8,
    len: usize,
    fields: *const *const c_char,
    nfields: usize,
    version: bc_version,
    out: *mut FFI_ArrowArrayStream,
    err: *mut bc_arrow_error,
) -> bc_status {
    let status = ffi::catch(bc_status::BC_ERR_INTERNAL, || {
        DECODE_ERROR.with(|record| {
            let Ok(mut record) = record.try_borrow_mut() else {
                return bc_status::BC_ERR_INTERNAL;
            };
            let status = guarded(&mut record, || {
                // SAFETY: forwarded contract.
                let (data, names, out) = unsafe {
                    (
                        ffi::bytes(bytes, len)?,
                        field_names(fields, nfields)?,
                        Out::new(out)?,
                    )
                };
                let version = version.to_bolt()?;
                let mut pull = PullDecoder::new(version, names.iter().cloned());
                let batch = pull.feed(data).map_err(|e| ArrowFailure::from(&e))?;
                if !(pull.is_done() || pull.has_more()) {
                    return Err(ArrowFailure {
                        status: bc_status::BC_ERR_UNEXPECTED_END,
                        offset: to_i64(len as u64),
                        message_offset: -1,
                        kind: "unexpected_end".to_owned(),
                        message: "the bytes end before the PULL response's summary \
                                  (SUCCESS or FAILURE)"
                            .to_owned(),
                    });
                }
                let schema = pull.schema().unwrap_or_else(|| null_schema(&names));
                out.set(export(schema, batch.into_iter().collect()));
                Ok(())
            });
            if status == bc_status::BC_OK {
                *record = ErrorRecord::default();
            }
            status
        })
    });
    if status != bc_status::BC_OK && !err.is_null() {
        let details = DECODE_ERROR.with(|r| r.try_borrow().ok().map(|r| r.to_c()));
        if let Some(details) = details {
            // SAFETY: the caller guarantees `err` is NULL (checked) or writable.
            unsafe { err.write(details) };
        }
    }
    status
}

/// A PULL response decoded into Arrow as it arrives: feed the bytes read from the
/// socket, take the batches with `bc_arrow_stream_finish`. Memory is that of the
/// batches not yet taken. Create with `bc_arrow_stream_new`, free with
/// `bc_arrow_stream_free`. Not thread-safe.
pub struct bc_arrow_stream {
    pull: PullDecoder,
    names: Vec<String>,
    batches: Vec<RecordBatch>,
    err: ErrorRecord,
}

/// Creates a stream for a result with these columns (`fields`: `nfields`
/// NUL-terminated UTF-8 names, the RUN SUCCESS's `fields`) received over `version`;
/// `*out` receives it. The caller frees it with `bc_arrow_stream_free`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_UNKNOWN_VERSION` (unknown
/// version); `BC_ERR_INVALID_UTF8` (a field name).
///
/// # Safety
/// `fields` is NULL or points to `nfields` pointers, each NULL or a NUL-terminated
/// string; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_arrow_stream_new(
    fields: *const *const c_char,
    nfields: usize,
    version: bc_version,
    out: *mut *mut bc_arrow_stream,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (names, out) = unsafe { (field_names(fields, nfields)?, Out::new(out)?) };
        let version = version.to_bolt()?;
        ffi::new_handle(
            out,
            bc_arrow_stream {
                pull: PullDecoder::new(version, names.iter().cloned()),
                names,
                batches: Vec::new(),
                err: ErrorRecord::default(),
            },
        );
        Ok(())
    })
}

/// Frees a stream (and the batches not taken). NULL is ignored. Streams already handed
/// out by `bc_arrow_stream_finish` stay valid: they own their data.
///
/// # Safety
/// `s` is NULL or a stream from `bc_arrow_stream_new` not freed before.
#[no_mangle]
pub unsafe extern "C" fn bc_arrow_stream_free(s: *mut bc_arrow_stream) {
    // SAFETY: forwarded contract.
    unsafe { ffi::free_handle(s) }
}

/// Runs `f` on the stream behind `s`, recording an error on it.
///
/// # Safety
/// `s` is NULL or a live stream not used by another thread during the call.
unsafe fn with_stream(
    s: *mut bc_arrow_stream,
    f: impl FnOnce(&mut bc_arrow_stream) -> Result<(), ArrowFailure>,
) -> bc_status {
    let Some(mut ptr) = std::ptr::NonNull::new(s) else {
        return bc_status::BC_ERR_NULL_POINTER;
    };
    ffi::catch(bc_status::BC_ERR_INTERNAL, || {
        let result = {
            // SAFETY: the caller guarantees a live stream that nothing else uses during
            // this call; the reference ends with this block.
            let s = unsafe { ptr.as_mut() };
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(s)))
        };
        // SAFETY: as above; the reference given to `f` has ended.
        let s = unsafe { ptr.as_mut() };
        let mut record = std::mem::take(&mut s.err);
        let status = guarded(&mut record, || match result {
            Ok(r) => r,
            Err(_) => Err(ArrowFailure::from(Failure::new(
                bc_status::BC_ERR_INTERNAL,
                "internal error (a bug in boltcodec, please report it)",
            ))),
        });
        s.err = record;
        status
    })
}

/// Feeds the next bytes of the PULL response (any split: chunks and messages may
/// straddle calls). The records they complete become one batch, kept until
/// `bc_arrow_stream_finish`; `*rows` receives how many (0 when none completed).
///
/// The first batch with rows fixes the schema; a later value that does not fit its
/// column fails the call with `BC_ERR_WRONG_TYPE` (kind `"type_changed"`). After any
/// error nothing of that call is kept: the batches taken or kept before, the schema and
/// the summary state are as they were (a broken chunk stream stays broken).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; the decoding statuses of
/// `bc_arrow_error` (details with `bc_arrow_stream_last_error`).
///
/// # Safety
/// `s` is NULL or a live stream; `data` is NULL or readable for `len` bytes; `rows` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_arrow_stream_feed(
    s: *mut bc_arrow_stream,
    data: *const u8,
    len: usize,
    rows: *mut usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        with_stream(s, |s| {
            let (data, rows) = (ffi::bytes(data, len)?, Out::new(rows)?);
            let batch = s.pull.feed(data).map_err(|e| ArrowFailure::from(&e))?;
            rows.set(batch.as_ref().map_or(0, RecordBatch::num_rows));
            s.batches.extend(batch);
            Ok(())
        })
    }
}

/// `*out` receives true once per `SUCCESS {has_more: true}` received (then false until
/// the next): the moment to send the next `PULL {n}`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `s` is NULL or a live stream; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_arrow_stream_take_has_more(
    s: *mut bc_arrow_stream,
    out: *mut bool,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        with_stream(s, |s| {
            Out::new(out)?.set(s.pull.take_has_more());
            Ok(())
        })
    }
}

/// `*out` receives whether the final summary (a SUCCESS without `has_more`) arrived.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `s` is NULL or a live stream; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_arrow_stream_is_done(
    s: *mut bc_arrow_stream,
    out: *mut bool,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        with_stream(s, |s| {
            Out::new(out)?.set(s.pull.is_done());
            Ok(())
        })
    }
}

/// Hands the batches decoded since the last call over to `*out`, a stream the caller
/// owns (read it with `get_schema` / `get_next`, then call its `release`; it stays
/// valid after `bc_arrow_stream_free`). Call it once after the final summary for the
/// whole result, or after each feed to keep memory to one batch. The schema is the one
/// fixed by the first batch with rows; before any row, every column is of the `null`
/// type.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `s` is NULL or a live stream; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_arrow_stream_finish(
    s: *mut bc_arrow_stream,
    out: *mut FFI_ArrowArrayStream,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        with_stream(s, |s| {
            let out = Out::new(out)?;
            let schema = s.pull.schema().unwrap_or_else(|| null_schema(&s.names));
            out.set(export(schema, std::mem::take(&mut s.batches)));
            Ok(())
        })
    }
}

/// The stream's last error into `*out`; its strings are valid until the next call on
/// the stream that fails, or its free.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `s` is NULL or a live stream; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_arrow_stream_last_error(
    s: *const bc_arrow_stream,
    out: *mut bc_arrow_error,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (s, out) = unsafe { (ffi::handle_ref(s)?, Out::new(out)?) };
        out.set(s.err.to_c());
        Ok(())
    })
}
