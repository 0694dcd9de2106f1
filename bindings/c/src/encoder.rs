//! `bc_encoder`: writes PackStream values into a growable buffer, and frames messages
//! into Bolt chunks.

use std::ffi::c_char;

use bolt::chunk::{Chunker, MessageStart, DEFAULT_MAX_CHUNK_SIZE};
use packstream::{WriteError, Writer};

use crate::decoder::{BC_OPT_LEGACY_STRUCTS, BC_OPT_UUID};
use crate::ffi::{self, Handle, Out};
use crate::status::{bc_error, bc_status, ErrorState, Failure, Res};
use crate::value::{bc_value, write_tree};

/// A PackStream encoder writing into a buffer it owns. Create with `bc_encoder_new`,
/// free with `bc_encoder_free`.
///
/// It tracks the containers it opened: a map key must be a string, and a message can
/// only be finished once every container is filled. Not thread-safe.
pub struct bc_encoder {
    // The bookkeeping is the core's checked writer's (`packstream::Writer`, closing each
    // container when it holds its declared items); this binding only converts.
    w: Writer<Vec<u8>>,
    message: Option<MessageStart>,
    err: ErrorState,
}

impl Handle for bc_encoder {
    fn error_state(&mut self) -> &mut ErrorState {
        &mut self.err
    }
}

fn state(message: impl Into<String>) -> Failure {
    Failure::new(bc_status::BC_ERR_INVALID_STATE, message)
}

/// A writer error for C: its status and message from its kind, and no offset (the
/// header documents none for the encoder's errors).
fn refused(e: WriteError) -> Failure {
    without_offset(Failure::from(e))
}

fn without_offset(f: Failure) -> Failure {
    Failure { offset: -1, ..f }
}

/// Refuses a size above the PackStream maximum up front, before any memory is reserved
/// for it or any byte of it is read.
fn check_size(len: usize, what: &str) -> Res {
    if len > packstream::marker::MAX_SIZE as usize {
        let e = Failure::from(packstream::EncodeError::SizeTooLarge(len));
        return Err(Failure {
            message: format!("{what}: {}", e.message),
            ..e
        });
    }
    Ok(())
}

fn chunker(max_chunk_size: usize) -> Res<Chunker> {
    let size = if max_chunk_size == 0 {
        DEFAULT_MAX_CHUNK_SIZE
    } else {
        max_chunk_size
    };
    Ok(Chunker::new(size)?)
}

impl bc_encoder {
    fn new() -> Self {
        bc_encoder {
            // No depth limit beyond memory: the C API never had one (each open
            // container costs 24 bytes here and one byte of output).
            w: Writer::new(Vec::new())
                .close_when_full(true)
                .max_depth(u32::MAX),
            message: None,
            err: ErrorState::default(),
        }
    }

    /// Runs one writer call, mapping its error.
    #[inline]
    fn write(&mut self, f: impl FnOnce(&mut Writer<Vec<u8>>) -> Result<(), WriteError>) -> Res {
        f(&mut self.w).map_err(refused)
    }

    /// The values written so far are complete (no container open).
    fn complete(&self) -> Res {
        self.w.finish().map_err(refused)
    }
}

/// Creates an encoder with an empty buffer and no options; `*out` receives it. The
/// caller owns it and frees it with `bc_encoder_free`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_new(out: *mut *mut bc_encoder) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        ffi::new_handle(out, bc_encoder::new());
        Ok(())
    })
}

/// Frees an encoder and its buffer. NULL is ignored.
///
/// # Safety
/// `enc` is NULL or an encoder from `bc_encoder_new` not freed before; pointers from
/// `bc_encoder_data` must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_free(enc: *mut bc_encoder) {
    // SAFETY: forwarded contract.
    unsafe { ffi::free_handle(enc) }
}

/// Sets the options: a bitwise OR of `BC_OPT_UUID` (allow UUID values, Bolt 6.1+) and
/// `BC_OPT_LEGACY_STRUCTS` (write structures of 16–65 535 fields with `DC`/`DD`).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_INVALID_ARGUMENT` (an unknown bit).
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_set_options(enc: *mut bc_encoder, flags: u32) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            if flags & !(BC_OPT_UUID | BC_OPT_LEGACY_STRUCTS) != 0 {
                return Err(ffi::invalid(format!(
                    "unknown encoder option bits {flags:#x}"
                )));
            }
            let mut opts = e.w.options();
            opts.uuid = flags & BC_OPT_UUID != 0;
            opts.legacy_structs = flags & BC_OPT_LEGACY_STRUCTS != 0;
            e.w.set_options(opts);
            Ok(())
        })
    }
}

/// Writes Null.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_NON_STRING_KEY` (a map key is due;
/// nothing is written — the same holds for every write below).
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_null(enc: *mut bc_encoder) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(enc, |e| e.write(Writer::write_null)) }
}

/// Writes a boolean.
///
/// Statuses: as `bc_encoder_write_null`.
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_bool(enc: *mut bc_encoder, v: bool) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(enc, |e| e.write(|w| w.write_bool(v))) }
}

/// Writes an integer in its smallest form.
///
/// Statuses: as `bc_encoder_write_null`.
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_int(enc: *mut bc_encoder, v: i64) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(enc, |e| e.write(|w| w.write_int(v))) }
}

/// Writes a float (FLOAT_64, bits unchanged).
///
/// Statuses: as `bc_encoder_write_null`.
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_float(enc: *mut bc_encoder, v: f64) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(enc, |e| e.write(|w| w.write_float(v))) }
}

/// Writes a string of `len` bytes at `ptr` (need not be NUL-terminated; `ptr` may be
/// NULL when `len` is 0). The bytes are copied.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_INVALID_UTF8` (with the offset of
/// the first invalid byte); `BC_ERR_SIZE_TOO_LARGE` (above 2 147 483 647 bytes).
///
/// # Safety
/// `enc` is NULL or a live encoder; `ptr` is NULL or readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_string(
    enc: *mut bc_encoder,
    ptr: *const c_char,
    len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            check_size(len, "a string")?;
            let bytes = ffi::bytes(ptr.cast(), len)?;
            let s = std::str::from_utf8(bytes).map_err(|err| {
                Failure::at(
                    bc_status::BC_ERR_INVALID_UTF8,
                    err.valid_up_to() as u64,
                    format!("string byte {}: {err}", err.valid_up_to()),
                )
            })?;
            e.write(|w| w.write_str(s))
        })
    }
}

/// Writes a byte array of `len` bytes at `ptr` (copied; `ptr` may be NULL when `len` is
/// 0).
///
/// Statuses: as `bc_encoder_write_null`, and `BC_ERR_SIZE_TOO_LARGE`.
///
/// # Safety
/// `enc` is NULL or a live encoder; `ptr` is NULL or readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_bytes(
    enc: *mut bc_encoder,
    ptr: *const u8,
    len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            check_size(len, "a byte array")?;
            let bytes = ffi::bytes(ptr, len)?;
            e.write(|w| w.write_bytes(bytes))
        })
    }
}

/// Writes a list header; `len` values must follow.
///
/// Statuses: as `bc_encoder_write_null`, and `BC_ERR_SIZE_TOO_LARGE`.
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_list_header(
    enc: *mut bc_encoder,
    len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(enc, |e| e.write(|w| w.begin_list(len))) }
}

/// Writes a map header; `len` key/value pairs must follow, each key a string.
///
/// Statuses: as `bc_encoder_write_null`, and `BC_ERR_SIZE_TOO_LARGE`.
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_map_header(
    enc: *mut bc_encoder,
    len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(enc, |e| e.write(|w| w.begin_map(len))) }
}

/// Writes a structure header with `tag`; `len` fields must follow. A Bolt message is a
/// structure: `bc_encoder_write_struct_header(enc, 0x10, 3)` starts a RUN.
///
/// Statuses: as `bc_encoder_write_null`, and `BC_ERR_TOO_MANY_FIELDS` (above 15 fields
/// without `BC_OPT_LEGACY_STRUCTS`, or above 65 535).
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_struct_header(
    enc: *mut bc_encoder,
    tag: u8,
    len: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(enc, |e| e.write(|w| w.begin_struct(tag, len))) }
}

/// Writes a UUID: the 16 bytes at `bytes`, in RFC 4122 order (PackStream v2).
///
/// Statuses: as `bc_encoder_write_null`, and `BC_ERR_UUID_NOT_ENABLED` (without
/// `BC_OPT_UUID`).
///
/// # Safety
/// `enc` is NULL or a live encoder; `bytes` is NULL or readable for 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_uuid(
    enc: *mut bc_encoder,
    bytes: *const u8,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            let b: &[u8; 16] = ffi::bytes(bytes, 16)?
                .try_into()
                .map_err(|_| ffi::invalid("a UUID has 16 bytes"))?;
            e.write(|w| w.write_uuid(b))
        })
    }
}

/// Writes a whole decoded value again (for example a value from a decoder, forwarded).
///
/// Statuses: as `bc_encoder_write_null` (`BC_ERR_NON_STRING_KEY` when the value is not a
/// string and a key is due), and the statuses of the writes it makes
/// (`BC_ERR_UUID_NOT_ENABLED`, `BC_ERR_TOO_MANY_FIELDS`). On error the buffer is left as
/// it was.
///
/// # Safety
/// `enc` is NULL or a live encoder; `value` is NULL or a value handed out by this
/// library and still valid.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_value(
    enc: *mut bc_encoder,
    value: *const bc_value,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            let v = ffi::handle_ref(value)?;
            // `v` is a live value of this library (the contract above); a failed value
            // leaves the buffer and the open containers as they were.
            e.w.all_or_nothing(|w| write_tree(w, v))
                .map_err(without_offset)
        })
    }
}

/// The encoded bytes so far: `*ptr` and `*len`. They belong to the encoder and stay
/// valid until the next call that changes it (any write, frame, consume, clear) or its
/// free.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `enc` is NULL or a live encoder; `ptr` and `len` are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_data(
    enc: *mut bc_encoder,
    ptr: *mut *const u8,
    len: *mut usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            let (ptr, len) = (Out::new(ptr)?, Out::new(len)?);
            ptr.set(e.w.get_ref().as_ptr());
            len.set(e.w.get_ref().len());
            Ok(())
        })
    }
}

/// How many containers are open (0 when the values written so far are complete).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `enc` is NULL or a live encoder; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_depth(enc: *mut bc_encoder, out: *mut usize) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            Out::new(out)?.set(e.w.depth());
            Ok(())
        })
    }
}

/// Empties the buffer, forgets open containers and any message begun, and clears the
/// last error (keeps the options and the memory).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_clear(enc: *mut bc_encoder) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            e.w.get_mut().clear();
            e.w.reset();
            e.message = None;
            e.err.clear();
            Ok(())
        })
    }
}

/// Removes the first `n` bytes of the buffer (for example after a partial socket write).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_OUT_OF_RANGE` (`n` above the length);
/// `BC_ERR_INVALID_STATE` (a message is begun and not ended).
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_consume(enc: *mut bc_encoder, n: usize) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            if e.message.is_some() {
                return Err(state("a message is begun; end it first"));
            }
            let buf = e.w.get_mut();
            if n > buf.len() {
                return Err(Failure::new(
                    bc_status::BC_ERR_OUT_OF_RANGE,
                    format!("cannot consume {n} of {} bytes", buf.len()),
                ));
            }
            buf.drain(..n);
            Ok(())
        })
    }
}

/// Begins a Bolt message: the values written until `bc_encoder_end_message` form it and
/// are framed in place (no copy). Reserves 2 bytes for the first chunk header.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_INVALID_STATE` (a container is open,
/// or a message is already begun).
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_begin_message(enc: *mut bc_encoder) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            e.complete()?;
            if e.message.is_some() {
                return Err(state("a message is already begun"));
            }
            e.message = Some(Chunker::default().start_message(e.w.get_mut()));
            Ok(())
        })
    }
}

/// Ends the message begun by `bc_encoder_begin_message`: cuts it into chunks of at most
/// `max_chunk_size` bytes (0 means 65 535, the largest) and appends the `00 00` end
/// marker.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_INVALID_STATE` (no message begun, or
/// a container still open: nothing changes); `BC_ERR_INVALID_ARGUMENT` (`max_chunk_size`
/// above 65 535: nothing changes); `BC_ERR_EMPTY_MESSAGE` (nothing was written since the
/// begin: the message is dropped).
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_end_message(
    enc: *mut bc_encoder,
    max_chunk_size: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            let Some(start) = e.message else {
                return Err(state("no message is begun"));
            };
            e.complete()?;
            let chunker = chunker(max_chunk_size)?;
            e.message = None;
            chunker.finish_message(e.w.get_mut(), start)?;
            Ok(())
        })
    }
}

/// Appends the message `msg[0 .. len-1]` (already encoded, for example by another
/// encoder) framed as Bolt chunks of at most `max_chunk_size` bytes (0 means 65 535)
/// followed by `00 00`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_INVALID_STATE` (a container is open or
/// a message begun); `BC_ERR_INVALID_ARGUMENT` (`max_chunk_size` above 65 535);
/// `BC_ERR_EMPTY_MESSAGE` (`len` is 0). Nothing is written on error.
///
/// # Safety
/// `enc` is NULL or a live encoder; `msg` is NULL or readable for `len` bytes and does
/// not point into this encoder's own buffer.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_framed(
    enc: *mut bc_encoder,
    msg: *const u8,
    len: usize,
    max_chunk_size: usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            let msg = ffi::bytes(msg, len)?;
            e.complete()?;
            if e.message.is_some() {
                return Err(state("a message is begun; end it first"));
            }
            chunker(max_chunk_size)?.write_message(msg, e.w.get_mut())?;
            Ok(())
        })
    }
}

/// Appends a NOOP (`00 00`), the keep-alive allowed between messages (Bolt 4.1+).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_INVALID_STATE` (a container is open
/// or a message begun).
///
/// # Safety
/// `enc` is NULL or a live encoder.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_write_noop(enc: *mut bc_encoder) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(enc, |e| {
            e.complete()?;
            if e.message.is_some() {
                return Err(state("a message is begun; end it first"));
            }
            Chunker::write_noop(e.w.get_mut());
            Ok(())
        })
    }
}

/// The encoder's last error into `*out` (see `bc_decoder_last_error`; UTF-8 errors carry
/// the offset in the string given).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `enc` is NULL or a live encoder; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_encoder_last_error(
    enc: *const bc_encoder,
    out: *mut bc_error,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (e, out) = unsafe { (ffi::handle_ref(enc)?, Out::new(out)?) };
        out.set(e.err.to_c());
        Ok(())
    })
}
