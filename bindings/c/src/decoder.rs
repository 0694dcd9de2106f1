//! `bc_decoder`: decodes PackStream bytes into a `bc_value` tree.

use packstream::{DecodeLimits, DecodeOptions, Decoder};

use crate::ffi::{self, Handle, Out};
use crate::status::{bc_error, bc_status, ErrorState, Failure, Res};
use crate::value::{bc_value, Tree};

/// Option flag: accept the PackStream v2 UUID marker `E0` (Bolt 6.1+). Decoder and
/// encoder.
pub const BC_OPT_UUID: u32 = 1;
/// Option flag: accept (decoder) or write above 15 fields (encoder) the legacy `DC`/`DD`
/// structure markers.
pub const BC_OPT_LEGACY_STRUCTS: u32 = 2;
/// Decoder option flag: copy each input into the decoder before decoding, so that the
/// values do not point into the caller's buffer (which may then be reused at once).
pub const BC_OPT_COPY_INPUT: u32 = 4;

/// Bounds a decoder enforces before it allocates anything (see the test vectors'
/// README). `bc_decode_limits_default` gives the defaults.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct bc_decode_limits {
    /// Deepest nesting of lists, maps and structures (the outermost is depth 1).
    /// Default 1024. Any value is safe for the stack: decoding, the accessors and views,
    /// `bc_value_format`, the encoder and the connection recurse a few levels at most and
    /// walk deeper values with an explicit stack (tested at 1 000 000 levels, and at the
    /// default on a 256 KiB thread stack). Memory grows with the depth instead (measured at 1 000 000 levels: about
    /// 70 bytes per level to decode, 160 to format).
    pub max_depth: u32,
    /// Longest string in bytes. Default 2 147 483 647.
    pub max_string_len: u32,
    /// Longest byte array. Default 2 147 483 647.
    pub max_bytes_len: u32,
    /// Most items (entries, fields) of one container. Default 2 147 483 647.
    pub max_container_len: u32,
    /// Most items, entries and fields of one value, summed over all its containers.
    /// Default 67 108 864 (2^26).
    pub max_total_elements: u64,
}

impl From<DecodeLimits> for bc_decode_limits {
    fn from(l: DecodeLimits) -> Self {
        bc_decode_limits {
            max_depth: l.max_depth,
            max_string_len: l.max_string_len,
            max_bytes_len: l.max_bytes_len,
            max_container_len: l.max_container_len,
            max_total_elements: l.max_total_elements,
        }
    }
}

impl From<bc_decode_limits> for DecodeLimits {
    fn from(l: bc_decode_limits) -> Self {
        DecodeLimits {
            max_depth: l.max_depth,
            max_string_len: l.max_string_len,
            max_bytes_len: l.max_bytes_len,
            max_container_len: l.max_container_len,
            max_total_elements: l.max_total_elements,
        }
    }
}

/// A PackStream decoder: turns bytes into a read-only `bc_value` tree held in memory
/// the decoder owns. Create with `bc_decoder_new`, free with `bc_decoder_free`.
///
/// Memory: the values of the last successful decode, plus up to about 4 MiB of nodes
/// and 4 MiB of input copy kept for reuse; the memory of a larger value is freed once
/// another decode replaces it.
///
/// Not thread-safe: use one decoder per thread (different decoders are independent).
pub struct bc_decoder {
    opts: DecodeOptions,
    copy_input: bool,
    /// The values of the last successful decode (and, with `BC_OPT_COPY_INPUT`, the copy
    /// of the input they point into).
    current: Output,
    /// Where the next decode is built. It becomes `current` only when the decode
    /// succeeds, so that a failing call leaves the values the caller already has valid
    /// and unchanged (regression test
    /// `failed_decode_overwrote_the_values_of_the_last_successful_one`).
    next: Output,
    err: ErrorState,
}

/// A value tree and the input copy it may point into.
#[derive(Default)]
struct Output {
    tree: Tree,
    /// The copy of the input (`BC_OPT_COPY_INPUT`); empty otherwise.
    input: Vec<u8>,
}

/// Bytes of input copy an [`Output`] keeps for reuse once its values are dead.
const KEEP_INPUT: usize = 4 << 20;

impl Output {
    /// Forgets the values (dead by now) and frees their memory beyond a bound.
    fn trim(&mut self) {
        self.tree.clear_and_trim();
        self.input.clear();
        self.input.shrink_to(KEEP_INPUT);
    }
}

impl Handle for bc_decoder {
    fn error_state(&mut self) -> &mut ErrorState {
        &mut self.err
    }
}

impl bc_decoder {
    fn new() -> Self {
        bc_decoder {
            opts: DecodeOptions::default(),
            copy_input: false,
            current: Output::default(),
            next: Output::default(),
            err: ErrorState::default(),
        }
    }

    /// Makes the output just built the current one; returns its root. The previous
    /// values are dead then: [`bc_decoder::settle`] trims their memory to a bound; the
    /// build buffers are trimmed here (regression test
    /// `decoder_kept_the_memory_of_its_largest_value`).
    fn commit(&mut self) -> Res<*const bc_value> {
        let root = self
            .next
            .tree
            .root()
            .ok_or_else(|| Failure::new(bc_status::BC_ERR_INTERNAL, "no value built"))?;
        // Moving the trees and vectors does not move the memory the values live in.
        std::mem::swap(&mut self.current, &mut self.next);
        self.current.tree.trim_scratch();
        Ok(root)
    }

    /// Called by each entry point once the decode is over and its input is no longer
    /// borrowed: the output aside (the previous values after a success, the partial value
    /// after a failure) is dead; trims its memory. Not done in [`bc_decoder::commit`]:
    /// the input may lie in the previous values' input copy (a blob decoded again), and
    /// freeing that while the input is still borrowed is undefined behaviour (Miri, in
    /// `copied_input_was_overwritten_while_it_was_being_copied`).
    fn settle<T>(&mut self, r: Res<T>) -> Res<T> {
        self.next.trim();
        r
    }

    /// Bytes of memory the decoder holds for values and input copies.
    #[cfg(test)]
    pub(crate) fn capacity_bytes(&self) -> usize {
        [&self.current, &self.next]
            .iter()
            .map(|o| o.tree.capacity_bytes() + o.input.capacity())
            .sum()
    }

    /// Decodes one value from the start of `data`; returns the bytes it used.
    fn decode(&mut self, data: &[u8], exact: bool) -> Res<(*const bc_value, usize)> {
        let next = &mut self.next;
        next.input.clear();
        // The copy goes to `next.input`, never to the current one: `data` may be the
        // bytes of a current value (decoded again), and those stay valid on failure.
        let input: &[u8] = if self.copy_input {
            next.input.extend_from_slice(data);
            &next.input
        } else {
            data
        };
        let mut dec = Decoder::with_options(input, self.opts);
        next.tree.build(&mut dec)?;
        if exact {
            dec.finish()?;
        }
        let used = dec.position();
        Ok((self.commit()?, used))
    }

    /// Decodes each of `parts` as exactly one value, as the items of one list (a copy
    /// of them all with `BC_OPT_COPY_INPUT`). Reuses one `Decoder` for all.
    fn decode_parts(&mut self, parts: &[&[u8]]) -> Res<*const bc_value> {
        let next = &mut self.next;
        next.input.clear();
        let mut copied: Vec<&[u8]> = Vec::new();
        let parts: &[&[u8]] = if self.copy_input {
            let mut ends = Vec::with_capacity(parts.len());
            for p in parts {
                next.input.extend_from_slice(p);
                ends.push(next.input.len());
            }
            let all: &[u8] = &next.input;
            let mut start = 0;
            for end in ends {
                copied.push(all.get(start..end).unwrap_or_default());
                start = end;
            }
            &copied
        } else {
            parts
        };
        next.tree.start_list();
        let mut dec: Option<Decoder<'_>> = None;
        for (i, part) in parts.iter().enumerate() {
            let d = match dec.as_mut() {
                Some(d) => {
                    d.reset(part);
                    d
                }
                None => dec.insert(Decoder::with_options(part, self.opts)),
            };
            let result = next.tree.push_value(d).and_then(|()| Ok(d.finish()?));
            if let Err(e) = result {
                return Err(Failure {
                    message: format!("value {i}: {}", e.message),
                    ..e
                });
            }
        }
        next.tree.finish_list()?;
        self.commit()
    }

    /// Decodes consecutive values of `data` as the items of one list.
    fn decode_all(&mut self, data: &[u8]) -> Res<*const bc_value> {
        let next = &mut self.next;
        next.input.clear();
        let input: &[u8] = if self.copy_input {
            next.input.extend_from_slice(data);
            &next.input
        } else {
            data
        };
        next.tree.start_list();
        let mut dec = Decoder::with_options(input, self.opts);
        let mut index = 0usize;
        let mut pos = 0usize;
        while pos < input.len() {
            let rest = input.get(pos..).unwrap_or_default();
            dec.reset(rest);
            if let Err(e) = next.tree.push_value(&mut dec) {
                let shift = if e.offset >= 0 {
                    i64::try_from(pos).unwrap_or(i64::MAX)
                } else {
                    0
                };
                return Err(Failure {
                    offset: e.offset.saturating_add(shift),
                    message: format!("value {index}: {}", e.message),
                    ..e
                });
            }
            pos += dec.position();
            index += 1;
        }
        next.tree.finish_list()?;
        self.commit()
    }
}

/// Writes the default limits to `*out`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_decode_limits_default(out: *mut bc_decode_limits) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        unsafe { Out::new(out) }?.set(DecodeLimits::default().into());
        Ok(())
    })
}

/// Creates a decoder with the default limits and no options; `*out` receives it. The
/// caller owns it and frees it with `bc_decoder_free`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER` (`out` NULL).
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_new(out: *mut *mut bc_decoder) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        ffi::new_handle(out, bc_decoder::new());
        Ok(())
    })
}

/// Frees a decoder and every value it produced. NULL is ignored.
///
/// # Safety
/// `dec` is NULL or a decoder from `bc_decoder_new` not freed before; its values must
/// not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_free(dec: *mut bc_decoder) {
    // SAFETY: forwarded contract.
    unsafe { ffi::free_handle(dec) }
}

/// Sets the limits used by the following decodes (they apply to each value decoded).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `dec` is NULL or a live decoder; `limits` is NULL or readable.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_set_limits(
    dec: *mut bc_decoder,
    limits: *const bc_decode_limits,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(dec, |d| {
            let limits = ffi::handle_ref(limits)?;
            d.opts.limits = (*limits).into();
            Ok(())
        })
    }
}

/// Writes the decoder's limits to `*out`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `dec` is NULL or a live decoder; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_limits(
    dec: *mut bc_decoder,
    out: *mut bc_decode_limits,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(dec, |d| {
            Out::new(out)?.set(d.opts.limits.into());
            Ok(())
        })
    }
}

/// Sets the options: a bitwise OR of `BC_OPT_UUID`, `BC_OPT_LEGACY_STRUCTS` and
/// `BC_OPT_COPY_INPUT` (0 for none). They apply to the following decodes.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_INVALID_ARGUMENT` (an unknown bit;
/// nothing changes).
///
/// # Safety
/// `dec` is NULL or a live decoder.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_set_options(dec: *mut bc_decoder, flags: u32) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(dec, |d| {
            if flags & !(BC_OPT_UUID | BC_OPT_LEGACY_STRUCTS | BC_OPT_COPY_INPUT) != 0 {
                return Err(ffi::invalid(format!(
                    "unknown decoder option bits {flags:#x}"
                )));
            }
            d.opts.uuid = flags & BC_OPT_UUID != 0;
            d.opts.legacy_structs = flags & BC_OPT_LEGACY_STRUCTS != 0;
            d.copy_input = flags & BC_OPT_COPY_INPUT != 0;
            Ok(())
        })
    }
}

/// Decodes `data[0 .. len-1]` as exactly one value; `*out` receives its root.
///
/// **Ownership and lifetime.** The tree belongs to the decoder. It stays valid until the
/// next successful `bc_decoder_decode*`, or `bc_decoder_reset`, on this decoder, or
/// `bc_decoder_free`, whichever comes first. A call that fails leaves the values of the
/// last successful one valid and unchanged; a call that succeeds invalidates them.
/// Strings, byte arrays and UUIDs point into `data` (zero copy), so `data`
/// must also stay unchanged while they are used — unless `BC_OPT_COPY_INPUT` is set.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER` (`dec` or `out` NULL, or `data` NULL with
/// `len > 0`); a decode error — `BC_ERR_UNEXPECTED_END`, `BC_ERR_RESERVED_MARKER`,
/// `BC_ERR_INVALID_UTF8`, `BC_ERR_NON_STRING_KEY`, `BC_ERR_SIZE_TOO_LARGE`,
/// `BC_ERR_LIMIT_EXCEEDED`, `BC_ERR_TRAILING_BYTES` (bytes after the value) — with its
/// byte offset in `bc_decoder_last_error`. On error `*out` is not written.
///
/// # Safety
/// `dec` is NULL or a live decoder; `data` is NULL or readable for `len` bytes; `out`
/// is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_decode(
    dec: *mut bc_decoder,
    data: *const u8,
    len: usize,
    out: *mut *const bc_value,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(dec, |d| {
            let (data, out) = (ffi::bytes(data, len)?, Out::new(out)?);
            let r = d.decode(data, true);
            let (root, _) = d.settle(r)?;
            out.set(root);
            Ok(())
        })
    }
}

/// Decodes one value from the start of `data[0 .. len-1]`, leaving any bytes after it;
/// `*out` receives its root and `*consumed` the number of bytes it used. Decode a stream
/// of concatenated values by calling it again on `data + consumed`.
///
/// Ownership, lifetime and statuses as `bc_decoder_decode` (never
/// `BC_ERR_TRAILING_BYTES`). `BC_ERR_UNEXPECTED_END` means the bytes are a valid prefix:
/// a streaming caller should wait for more.
///
/// # Safety
/// As `bc_decoder_decode`; `consumed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_decode_prefix(
    dec: *mut bc_decoder,
    data: *const u8,
    len: usize,
    out: *mut *const bc_value,
    consumed: *mut usize,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(dec, |d| {
            let (data, out, consumed) =
                (ffi::bytes(data, len)?, Out::new(out)?, Out::new(consumed)?);
            let r = d.decode(data, false);
            let (root, used) = d.settle(r)?;
            out.set(root);
            consumed.set(used);
            Ok(())
        })
    }
}

/// Decodes `data[0 .. len-1]` as a sequence of complete values (for example a run of
/// RECORD messages laid end to end), all in one call; `*out` receives a `BC_TYPE_LIST`
/// whose items are the values, in order (an empty list for `len` 0). Each value is
/// checked against the limits on its own.
///
/// Ownership, lifetime and statuses as `bc_decoder_decode`; on error the last error's
/// offset counts from `data` and its message names the value's index.
///
/// # Safety
/// As `bc_decoder_decode`.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_decode_all(
    dec: *mut bc_decoder,
    data: *const u8,
    len: usize,
    out: *mut *const bc_value,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(dec, |d| {
            let (data, out) = (ffi::bytes(data, len)?, Out::new(out)?);
            let r = d.decode_all(data);
            out.set(d.settle(r)?);
            Ok(())
        })
    }
}

/// Decodes `count` de-chunked messages (from `bc_dechunker_message`) in one call, each as
/// exactly one value; `*out` receives a `BC_TYPE_LIST` whose items are the messages'
/// values, in order. The batch path for a PULL response: one call per feed instead of
/// one per RECORD.
///
/// Ownership and lifetime as `bc_decoder_decode`: the values point into the messages'
/// bytes (which must stay valid while they are used: see `bc_dechunker_feed`) unless
/// `BC_OPT_COPY_INPUT` is set. Statuses as `bc_decoder_decode`; on error the offset
/// counts from the start of the failing message and the message text names its index.
///
/// # Safety
/// `dec` is NULL or a live decoder; `messages` is NULL or readable for `count`
/// `bc_message`s whose `data` are readable for their `len`; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_decode_messages(
    dec: *mut bc_decoder,
    messages: *const crate::framing::bc_message,
    count: usize,
    out: *mut *const bc_value,
) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(dec, |d| {
            let (list, out) = (ffi::slice(messages, count)?, Out::new(out)?);
            let mut parts: Vec<&[u8]> = Vec::with_capacity(list.len());
            for m in list {
                parts.push(ffi::bytes(m.data, m.len)?);
            }
            let r = d.decode_parts(&parts);
            out.set(d.settle(r)?);
            Ok(())
        })
    }
}

/// Releases the values of the last decode (they become invalid) and clears the last
/// error; keeps the limits, the options, and memory for reuse up to a bound (about
/// 4 MiB of nodes and 4 MiB of input copy per buffer; the rest is freed).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `dec` is NULL or a live decoder.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_reset(dec: *mut bc_decoder) -> bc_status {
    // SAFETY: forwarded contract.
    unsafe {
        ffi::with_handle(dec, |d| {
            d.current.trim();
            d.next.trim();
            d.err.clear();
            Ok(())
        })
    }
}

/// The decoder's last error (status, byte offset in the decoded input, message) into
/// `*out`; `BC_OK` / -1 / `""` if no call has failed since creation or the last reset.
/// The message belongs to the decoder (valid until its next failing call, reset or
/// free).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`.
///
/// # Safety
/// `dec` is NULL or a live decoder; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_decoder_last_error(
    dec: *const bc_decoder,
    out: *mut bc_error,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (d, out) = unsafe { (ffi::handle_ref(dec)?, Out::new(out)?) };
        out.set(d.err.to_c());
        Ok(())
    })
}
