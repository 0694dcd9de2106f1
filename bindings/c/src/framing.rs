//! `bc_dechunker`: takes Bolt chunks apart into messages. (Framing outgoing messages is
//! done by the encoder: `bc_encoder_begin_message` / `bc_encoder_end_message` and
//! `bc_encoder_write_framed`.)

use bolt::chunk::{DechunkLimits, Dechunker, DEFAULT_MAX_CHUNKS, DEFAULT_MAX_MESSAGE_SIZE};

use crate::ffi::{self, Handle, Out};
use crate::status::{bc_error, bc_status, ErrorState, Failure};

/// One de-chunked message: the bytes of one PackStream structure, without chunk
/// headers. Decode it with `bc_decoder_decode`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_message {
    /// The message bytes (`len` bytes, never NULL for a message).
    pub data: *const u8,
    /// The message length in bytes (at least 1).
    pub len: usize,
    /// Offset of the message's first chunk header in the stream fed to the dechunker
    /// (the first byte ever fed is offset 0).
    pub stream_offset: u64,
    /// How many chunks carried it.
    pub chunk_count: u32,
    /// `true` if the bytes were copied into the dechunker (the message had several
    /// chunks or straddled two feeds); `false` if `data` points into the buffer that was
    /// fed (zero copy).
    pub copied: bool,
}

/// A push parser for the Bolt chunk stream. Feed it whatever the socket delivered;
/// complete messages come out. Create with `bc_dechunker_new`, free with
/// `bc_dechunker_free`. Not thread-safe.
pub struct bc_dechunker {
    inner: Dechunker,
    messages: Vec<bc_message>,
    err: ErrorState,
}

impl Handle for bc_dechunker {
    fn error_state(&mut self) -> &mut ErrorState {
        &mut self.err
    }
}

/// Creates a dechunker with the default limits (messages up to 64 MiB, up to 2^20 chunks
/// each); `*out` receives it. The caller frees it with `bc_dechunker_free`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_dechunker_new(out: *mut *mut bc_dechunker) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        ffi::new_handle(
            out,
            bc_dechunker {
                inner: Dechunker::new(),
                messages: Vec::new(),
                err: ErrorState::default(),
            },
        );
        Ok(())
    })
}

/// Frees a dechunker. NULL is ignored.
///
/// # Safety
/// `d` is NULL or a dechunker from `bc_dechunker_new` not freed before; its messages
/// must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn bc_dechunker_free(d: *mut bc_dechunker) {
    // SAFETY: forwarded contract.
    unsafe { ffi::free_handle(d) }
}

/// Sets the limits and **resets** the dechunker (as `bc_dechunker_reset`): the largest
/// message in bytes (0 means the default, 64 MiB) and the most chunks per message (0
/// means the default, 1 048 576).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `d` is NULL or a live dechunker.
#[no_mangle]
pub unsafe extern "C" fn bc_dechunker_set_limits(
    d: *mut bc_dechunker,
    max_message_size: usize,
    max_chunks: u32,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(d, |d| {
            let limits = DechunkLimits {
                max_message_size: if max_message_size == 0 {
                    DEFAULT_MAX_MESSAGE_SIZE
                } else {
                    max_message_size
                },
                max_chunks: if max_chunks == 0 {
                    DEFAULT_MAX_CHUNKS
                } else {
                    max_chunks
                },
            };
            d.inner = Dechunker::with_limits(limits);
            d.messages.clear();
            d.err.clear();
            Ok(())
        })
    }
}

/// Feeds `data[0 .. len-1]` (any piece of the stream) and makes every message that
/// completes available: `*count` receives how many, read them with
/// `bc_dechunker_message(d, 0 .. count-1)`. Incomplete data is kept for the next feed;
/// NOOPs are skipped.
///
/// **Lifetime.** The messages of a feed are valid until the next `bc_dechunker_feed`,
/// `bc_dechunker_reset`, `bc_dechunker_set_limits` or `bc_dechunker_free`. A message whose
/// `copied` is false points into `data`, which must then stay unchanged while it is used.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_MESSAGE_TOO_LARGE`,
/// `BC_ERR_TOO_MANY_CHUNKS` (with the offending chunk header's stream offset). After an
/// error `*count` still holds the messages completed before it, and the dechunker is
/// poisoned: every later feed returns the same error until a reset.
///
/// # Safety
/// `d` is NULL or a live dechunker; `data` is NULL or readable for `len` bytes; `count`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_dechunker_feed(
    d: *mut bc_dechunker,
    data: *const u8,
    len: usize,
    count: *mut usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(d, |d| {
            let (data, count) = (ffi::bytes(data, len)?, Out::new(count)?);
            d.messages.clear();
            let batch = d.inner.feed_batch(data);
            d.messages.extend(batch.iter().map(|m| bc_message {
                data: m.bytes().as_ptr(),
                len: m.bytes().len(),
                stream_offset: m.offset(),
                chunk_count: m.chunk_count(),
                copied: m.is_copied(),
            }));
            let error = batch.error().cloned();
            count.set(d.messages.len());
            match error {
                Some(e) => Err(Failure::from(e)),
                None => Ok(()),
            }
        })
    }
}

/// The message at `index` of the last feed into `*out` (see `bc_dechunker_feed` for its
/// lifetime).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_OUT_OF_RANGE` (`index` not below the
/// last feed's count).
///
/// # Safety
/// `d` is NULL or a live dechunker; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_dechunker_message(
    d: *mut bc_dechunker,
    index: usize,
    out: *mut bc_message,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(d, |d| {
            let out = Out::new(out)?;
            let m = d.messages.get(index).ok_or_else(|| {
                Failure::new(
                    bc_status::BC_ERR_OUT_OF_RANGE,
                    format!("message {index} of {}", d.messages.len()),
                )
            })?;
            out.set(*m);
            Ok(())
        })
    }
}

/// Call when the transport reached the end of the stream: fails if it stopped inside a
/// message or chunk header.
///
/// Statuses: `BC_OK` (at a message boundary); `BC_ERR_NULL_POINTER`; `BC_ERR_TRUNCATED`
/// (with the end's stream offset); or the error that poisoned the dechunker.
///
/// # Safety
/// `d` is NULL or a live dechunker.
#[no_mangle]
pub unsafe extern "C" fn bc_dechunker_end_of_stream(d: *mut bc_dechunker) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe { ffi::with_handle(d, |d| Ok(d.inner.end_of_stream()?)) }
}

/// Clears all state, messages, errors and counters, as for a new connection (keeps the
/// limits and memory).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `d` is NULL or a live dechunker.
#[no_mangle]
pub unsafe extern "C" fn bc_dechunker_reset(d: *mut bc_dechunker) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(d, |d| {
            d.inner.reset();
            d.messages.clear();
            d.err.clear();
            Ok(())
        })
    }
}

/// The number of NOOPs (keep-alives) seen since creation or the last reset.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `d` is NULL or a live dechunker; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_dechunker_noop_count(d: *mut bc_dechunker, out: *mut u64) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(d, |d| {
            Out::new(out)?.set(d.inner.noop_count());
            Ok(())
        })
    }
}

/// The dechunker's last error into `*out` (offsets are stream offsets).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `d` is NULL or a live dechunker; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_dechunker_last_error(
    d: *const bc_dechunker,
    out: *mut bc_error,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (d, out) = unsafe { (ffi::handle_ref(d)?, Out::new(out)?) };
        out.set(d.err.to_c());
        Ok(())
    })
}
