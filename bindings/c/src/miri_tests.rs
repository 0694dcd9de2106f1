//! Tests of the C API that call every entry point the way a C program does: raw
//! pointers, out-parameters left uninitialised, NULLs, handles created and freed, and
//! pointers into decoded trees, encoder buffers, dechunked messages, handshake replies
//! and connection events kept and read after the further calls that the documentation
//! says leave them valid.
//!
//! They exist for Miri (`bindings/c/scripts/miri.sh`): the C tests run under
//! AddressSanitizer, which sees out-of-bounds reads and use after free but not Rust's
//! aliasing rules (Stacked Borrows) that the library's `unsafe` code must follow. They
//! also run, faster, under plain `cargo test -p boltcodec-c`. They are unit tests
//! because the crate has no rlib for integration tests to link. Inputs are embedded
//! (Miri isolates the file system) and small (Miri is about a thousand times slower
//! than native code).

use std::ffi::{c_char, CStr};
use std::mem::MaybeUninit;
use std::ptr::{null, null_mut};

use crate::connection::*;
use crate::decoder::*;
use crate::encoder::*;
use crate::framing::*;
use crate::handshake::*;
use crate::status::bc_status::{self, *};
use crate::status::{bc_error, bc_library_version, bc_selftest_panic, bc_status_name};
use crate::structs::*;
use crate::value::*;

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// Asserts that a call returned `BC_OK`.
macro_rules! ok {
    ($call:expr) => {
        assert_eq!($call, BC_OK, "{}", stringify!($call))
    };
}

/// Asserts that a call returned the status `$want`.
macro_rules! st {
    ($call:expr, $want:expr) => {
        assert_eq!($call, $want, "{}", stringify!($call))
    };
}

/// Bytes from hex digits (spaces allowed), as the C tests' `hx`.
fn hx(hex: &str) -> Vec<u8> {
    let digits: Vec<u8> = hex
        .bytes()
        .filter(u8::is_ascii_hexdigit)
        .map(|b| char::from(b).to_digit(16).map_or(0, |d| d as u8))
        .collect();
    assert!(digits.len() % 2 == 0, "odd number of hex digits: {hex}");
    digits.chunks(2).map(|p| p[0] * 16 + p[1]).collect()
}

/// A text as the `const char *` + length pairs the API takes.
fn cs(s: &str) -> *const c_char {
    s.as_ptr().cast()
}

const fn ver(major: u8, minor: u8) -> bc_version {
    bc_version {
        major,
        minor,
        utc_patch: 0,
        reserved: [0; 5],
        capabilities: 0,
    }
}

const V44: bc_version = ver(4, 4);
const V50: bc_version = ver(5, 0);
const V58: bc_version = ver(5, 8);
const V60: bc_version = ver(6, 0);

/// Calls `f` with a pointer to uninitialised memory, as C's `T x; f(&x);`, asserts
/// `BC_OK` and returns what was written (Miri reports a read of the memory before the
/// library wrote it).
///
/// # Safety
/// `f` writes a valid `T` through the pointer when it returns `BC_OK`.
unsafe fn fill<T>(f: impl FnOnce(*mut T) -> bc_status) -> T {
    let mut slot = MaybeUninit::<T>::uninit();
    ok!(f(slot.as_mut_ptr()));
    slot.assume_init()
}

/// A copy of `len` bytes at `ptr` (NULL allowed with 0).
///
/// # Safety
/// `ptr` is readable for `len` bytes.
unsafe fn bytes_at(ptr: *const u8, len: usize) -> Vec<u8> {
    if len == 0 {
        return Vec::new();
    }
    assert!(!ptr.is_null());
    std::slice::from_raw_parts(ptr, len).to_vec()
}

/// The text of a NUL-terminated string the library handed out.
///
/// # Safety
/// `p` is a live NUL-terminated string.
unsafe fn c_text(p: *const c_char) -> String {
    assert!(!p.is_null());
    CStr::from_ptr(p).to_str().expect("UTF-8").to_owned()
}

/// The text of a `bc_str` view.
///
/// # Safety
/// The view's value is still valid.
unsafe fn view_text(s: bc_str) -> String {
    assert!(!s.ptr.is_null());
    String::from_utf8(bytes_at(s.ptr.cast(), s.len)).expect("UTF-8")
}

/// The string of a `BC_TYPE_STRING` value, through `bc_value_as_string`.
///
/// # Safety
/// `v` is a live value.
unsafe fn text_of(v: *const bc_value) -> String {
    let mut p: *const c_char = null();
    let mut n = usize::MAX;
    ok!(bc_value_as_string(v, &mut p, &mut n));
    String::from_utf8(bytes_at(p.cast(), n)).expect("UTF-8")
}

/// The integer of a `BC_TYPE_INT` value.
///
/// # Safety
/// `v` is a live value.
unsafe fn int_of(v: *const bc_value) -> i64 {
    fill(|p| bc_value_as_int(v, p))
}

/// Item `i` of a list, through `bc_value_list_get`.
///
/// # Safety
/// `v` is a live value.
unsafe fn item(v: *const bc_value, i: usize) -> *const bc_value {
    fill(|p| bc_value_list_get(v, i, p))
}

/// The value of `key` in a map, through `bc_value_map_get`.
///
/// # Safety
/// `v` is a live value.
unsafe fn entry(v: *const bc_value, key: &str) -> *const bc_value {
    fill(|p| bc_value_map_get(v, cs(key), key.len(), p))
}

/// Child `i` read straight from the node array, as C's `v->data.items[i]`.
///
/// # Safety
/// `v` is a live container with more than `i` child nodes.
unsafe fn raw_child(v: *const bc_value, i: usize) -> *const bc_value {
    (*v).data.items.add(i)
}

/// A new decoder with the option flags `flags`.
///
/// # Safety
/// None beyond the library's; the caller frees the decoder.
unsafe fn decoder(flags: u32) -> *mut bc_decoder {
    let d = fill(|p| bc_decoder_new(p));
    ok!(bc_decoder_set_options(d, flags));
    d
}

/// A new encoder with the option flags `flags`.
///
/// # Safety
/// None beyond the library's; the caller frees the encoder.
unsafe fn encoder(flags: u32) -> *mut bc_encoder {
    let e = fill(|p| bc_encoder_new(p));
    ok!(bc_encoder_set_options(e, flags));
    e
}

/// Decodes `input` as exactly one value with `d` (asserting `BC_OK`).
///
/// # Safety
/// `d` is a live decoder; `input` outlives the value unless `d` copies its input.
unsafe fn decode(d: *mut bc_decoder, input: &[u8]) -> *const bc_value {
    fill(|p| bc_decoder_decode(d, input.as_ptr(), input.len(), p))
}

/// Decodes, with `d`, what `e` holds, straight from the encoder's buffer.
///
/// # Safety
/// Live handles; the value reads the encoder's buffer unless `d` copies its input.
unsafe fn decode_encoded(d: *mut bc_decoder, e: *mut bc_encoder) -> *const bc_value {
    let mut p: *const u8 = null();
    let mut n = 0usize;
    ok!(bc_encoder_data(e, &mut p, &mut n));
    fill(|out| bc_decoder_decode(d, p, n, out))
}

/// A copy of the encoder's bytes.
///
/// # Safety
/// `e` is a live encoder.
unsafe fn encoded(e: *mut bc_encoder) -> Vec<u8> {
    let mut p: *const u8 = null();
    let mut n = usize::MAX;
    ok!(bc_encoder_data(e, &mut p, &mut n));
    bytes_at(p, n)
}

/// Writes a string with `e`.
///
/// # Safety
/// `e` is a live encoder.
unsafe fn w_str(e: *mut bc_encoder, s: &str) {
    ok!(bc_encoder_write_string(e, cs(s), s.len()));
}

/// A handle's last error as (status, offset, message), through its `*_last_error`.
///
/// # Safety
/// `h` is a live handle of the type `f` takes.
unsafe fn error_of<H>(
    f: unsafe extern "C" fn(*const H, *mut bc_error) -> bc_status,
    h: *const H,
) -> (bc_status, i64, String) {
    let err = fill(|p| f(h, p));
    (err.status, err.offset, c_text(err.message))
}

// ---------------------------------------------------------------------------------------
// Status codes, panic guard, NULL handling
// ---------------------------------------------------------------------------------------

#[test]
fn status_names_library_version_and_panic_guard() {
    // SAFETY: the names and the version are static NUL-terminated strings; the other
    // calls take plain values or pointers to locals.
    unsafe {
        let mut seen = Vec::new();
        for s in 0..=crate::status::BC_STATUS_MAX {
            let name = c_text(bc_status_name(s));
            assert_ne!(name, "unknown_status");
            assert!(!seen.contains(&name), "duplicate name {name}");
            seen.push(name);
        }
        assert_eq!(c_text(bc_status_name(0)), "ok");
        assert_eq!(c_text(bc_status_name(8)), "unexpected_end");
        assert_eq!(c_text(bc_status_name(14)), "trailing_bytes");
        for bad in [crate::status::BC_STATUS_MAX + 1, -1, i32::MIN, i32::MAX] {
            assert_eq!(c_text(bc_status_name(bad)), "unknown_status");
        }
        assert_eq!(c_text(bc_library_version()), env!("CARGO_PKG_VERSION"));
        // A panic inside the library comes back as a status, not an unwind into C.
        st!(bc_selftest_panic(), BC_ERR_INTERNAL);
        let mut known = false;
        ok!(bc_version_is_known(V58, &mut known));
        assert!(known);
        ok!(bc_version_is_known(ver(5, 5), &mut known));
        assert!(!known);
        ok!(bc_version_is_known(ver(3, 0), &mut known));
        assert!(known);
        st!(bc_version_is_known(V58, null_mut()), BC_ERR_NULL_POINTER);
    }
}

#[test]
fn null_handles_inputs_and_outputs_are_refused() {
    // SAFETY: every pointer is NULL, a local, or a handle created here and freed at
    // the end; the library checks NULLs before any use.
    unsafe {
        let d = decoder(0);
        let e = encoder(0);
        let one = [0x01u8];
        let mut v: *const bc_value = null();
        let mut n = 0usize;
        let mut i = 0i64;
        let mut err = MaybeUninit::<bc_error>::uninit();
        // Creating a handle with nowhere to put it.
        st!(bc_decoder_new(null_mut()), BC_ERR_NULL_POINTER);
        st!(bc_encoder_new(null_mut()), BC_ERR_NULL_POINTER);
        st!(bc_dechunker_new(null_mut()), BC_ERR_NULL_POINTER);
        st!(bc_connection_new(null(), null_mut()), BC_ERR_NULL_POINTER);
        st!(
            bc_client_handshake_new(null(), 0, 0, null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_server_handshake_new(null(), 0, 0, null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(bc_decode_limits_default(null_mut()), BC_ERR_NULL_POINTER);
        st!(
            bc_connection_config_default(null_mut()),
            BC_ERR_NULL_POINTER
        );
        // NULL handles.
        st!(
            bc_decoder_decode(null_mut(), one.as_ptr(), 1, &mut v),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_decoder_decode_prefix(null_mut(), one.as_ptr(), 1, &mut v, &mut n),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_decoder_decode_all(null_mut(), one.as_ptr(), 1, &mut v),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_decoder_decode_messages(null_mut(), null(), 0, &mut v),
            BC_ERR_NULL_POINTER
        );
        st!(bc_decoder_reset(null_mut()), BC_ERR_NULL_POINTER);
        st!(bc_decoder_set_options(null_mut(), 0), BC_ERR_NULL_POINTER);
        st!(
            bc_decoder_set_limits(null_mut(), null()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_decoder_last_error(null(), err.as_mut_ptr()),
            BC_ERR_NULL_POINTER
        );
        st!(bc_encoder_write_int(null_mut(), 1), BC_ERR_NULL_POINTER);
        st!(
            bc_encoder_data(null_mut(), null_mut(), null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_encoder_last_error(null(), err.as_mut_ptr()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_dechunker_feed(null_mut(), one.as_ptr(), 1, &mut n),
            BC_ERR_NULL_POINTER
        );
        st!(bc_dechunker_end_of_stream(null_mut()), BC_ERR_NULL_POINTER);
        st!(
            bc_dechunker_last_error(null(), err.as_mut_ptr()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_client_handshake_receive(null_mut(), one.as_ptr(), 1, null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_client_handshake_hello(null_mut(), null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_server_handshake_receive(null_mut(), one.as_ptr(), 1, null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_connection_receive(null_mut(), one.as_ptr(), 1),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_connection_poll_event(null_mut(), null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(bc_connection_send_commit(null_mut()), BC_ERR_NULL_POINTER);
        st!(
            bc_connection_last_error(null(), err.as_mut_ptr()),
            BC_ERR_NULL_POINTER
        );
        // NULL outputs and data.
        st!(bc_decoder_set_limits(d, null()), BC_ERR_NULL_POINTER);
        st!(bc_decoder_limits(d, null_mut()), BC_ERR_NULL_POINTER);
        st!(bc_decoder_last_error(d, null_mut()), BC_ERR_NULL_POINTER);
        st!(
            bc_decoder_decode(d, one.as_ptr(), 1, null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(bc_decoder_decode(d, null(), 1, &mut v), BC_ERR_NULL_POINTER);
        st!(
            bc_decoder_decode(d, null(), 0, &mut v),
            BC_ERR_UNEXPECTED_END
        );
        st!(
            bc_decoder_decode_prefix(d, one.as_ptr(), 1, &mut v, null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_decoder_decode_messages(d, null(), 1, &mut v),
            BC_ERR_NULL_POINTER
        );
        st!(bc_encoder_write_string(e, null(), 3), BC_ERR_NULL_POINTER);
        st!(bc_encoder_write_bytes(e, null(), 2), BC_ERR_NULL_POINTER);
        st!(bc_encoder_write_uuid(e, null()), BC_ERR_NULL_POINTER);
        st!(bc_encoder_write_value(e, null()), BC_ERR_NULL_POINTER);
        st!(
            bc_encoder_write_framed(e, null(), 2, 0),
            BC_ERR_NULL_POINTER
        );
        st!(bc_encoder_data(e, null_mut(), &mut n), BC_ERR_NULL_POINTER);
        st!(bc_encoder_depth(e, null_mut()), BC_ERR_NULL_POINTER);
        assert!(encoded(e).is_empty(), "a refused write wrote something");
        // NULL with a length of 0 is an empty input.
        ok!(bc_encoder_write_string(e, null(), 0));
        ok!(bc_encoder_write_bytes(e, null(), 0));
        assert_eq!(encoded(e), hx("80 CC 00"));
        // Accessors.
        st!(bc_value_as_int(null(), &mut i), BC_ERR_NULL_POINTER);
        let v = decode(d, &one);
        st!(bc_value_as_int(v, null_mut()), BC_ERR_NULL_POINTER);
        st!(bc_value_len(null(), &mut n), BC_ERR_NULL_POINTER);
        let mut out: *const bc_value = null();
        st!(bc_value_list_get(null(), 0, &mut out), BC_ERR_NULL_POINTER);
        st!(
            bc_value_map_get(null(), cs("k"), 1, &mut out),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_value_struct_field(null(), 0, &mut out),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_value_as_node(null(), V58, null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_value_struct_kind(v, V58, null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_value_format(null(), null(), null_mut(), 0, null_mut()),
            BC_ERR_NULL_POINTER
        );
        st!(bc_vector_get_int(null(), 0, &mut i), BC_ERR_NULL_POINTER);
        assert_eq!(int_of(v), 1, "the value survived the refused calls");
        // Freeing NULL does nothing.
        bc_decoder_free(null_mut());
        bc_encoder_free(null_mut());
        bc_dechunker_free(null_mut());
        bc_connection_free(null_mut());
        bc_client_handshake_free(null_mut());
        bc_server_handshake_free(null_mut());
        bc_decoder_free(d);
        bc_encoder_free(e);
    }
}

// ---------------------------------------------------------------------------------------
// Values and accessors
// ---------------------------------------------------------------------------------------

/// Every scalar type: its accessor works; the others say `BC_ERR_WRONG_TYPE` and leave
/// the output as it was.
#[test]
fn scalar_accessors_and_wrong_types() {
    // SAFETY: a decoder created and freed here; the values are read while valid (before
    // the next decode), their inputs are locals that outlive them.
    unsafe {
        let d = decoder(BC_OPT_UUID);
        let (mut b, mut i, mut f, mut n) = (true, 77i64, 7.5f64, 77usize);
        let mut s: *const c_char = null();
        let mut bp: *const u8 = null();
        let mut u = [0u8; 16];

        let input = hx("C0");
        let v = decode(d, &input);
        assert_eq!((*v).kind, BC_TYPE_NULL);
        st!(bc_value_as_bool(v, &mut b), BC_ERR_WRONG_TYPE);
        st!(bc_value_len(v, &mut n), BC_ERR_WRONG_TYPE);
        assert!(b && n == 77);

        let input = hx("C2");
        let v = decode(d, &input);
        ok!(bc_value_as_bool(v, &mut b));
        assert!(!b && (*v).kind == BC_TYPE_BOOL && !(*v).data.b);
        st!(bc_value_as_int(v, &mut i), BC_ERR_WRONG_TYPE);
        assert_eq!(i, 77);

        let input = hx("CB 80 00 00 00 00 00 00 00");
        let v = decode(d, &input);
        ok!(bc_value_as_int(v, &mut i));
        assert_eq!((i, (*v).data.i), (i64::MIN, i64::MIN));
        st!(bc_value_as_float(v, &mut f), BC_ERR_WRONG_TYPE); // no implicit conversion
        assert_eq!(f, 7.5);

        let input = hx("C1 3F F8 00 00 00 00 00 00");
        let v = decode(d, &input);
        ok!(bc_value_as_float(v, &mut f));
        assert_eq!(f, 1.5);
        st!(bc_value_as_string(v, &mut s, &mut n), BC_ERR_WRONG_TYPE);
        assert!(s.is_null());

        let input = hx("85 68 C3 A9 6C 6C"); // "héll"
        let v = decode(d, &input);
        assert_eq!(text_of(v), "h\u{e9}ll");
        ok!(bc_value_len(v, &mut n));
        assert_eq!(n, 5);
        st!(bc_value_as_bytes(v, &mut bp, &mut n), BC_ERR_WRONG_TYPE);
        assert!(bp.is_null());

        let input = hx("CC 03 01 02 03");
        let v = decode(d, &input);
        ok!(bc_value_as_bytes(v, &mut bp, &mut n));
        assert_eq!(bytes_at(bp, n), [1, 2, 3]);
        st!(bc_value_as_uuid(v, u.as_mut_ptr()), BC_ERR_WRONG_TYPE);
        assert_eq!(u, [0; 16]);

        let input = hx("CC 00");
        let v = decode(d, &input);
        ok!(bc_value_as_bytes(v, &mut bp, &mut n));
        assert_eq!(n, 0);

        let input = hx("E0 550e8400e29b41d4a716446655440000");
        let v = decode(d, &input);
        ok!(bc_value_as_uuid(v, u.as_mut_ptr()));
        assert_eq!(u, hx("550e8400e29b41d4a716446655440000")[..]);
        ok!(bc_value_len(v, &mut n));
        assert_eq!((n, (*v).len), (16, 16));
        // The UUID's bytes live in the decoder, not in the input.
        assert_eq!(bytes_at((*v).data.bytes, 16), u);
        let mut out = v;
        st!(bc_value_list_get(v, 0, &mut out), BC_ERR_WRONG_TYPE);
        assert_eq!(out, v);
        bc_decoder_free(d);
    }
}

#[test]
fn list_map_and_structure_accessors() {
    // SAFETY: a decoder created and freed here; values and the pointers taken from
    // them are read before the next decode; inputs outlive them.
    unsafe {
        let d = decoder(0);
        let mut n = 0usize;
        let mut tag = 0u8;
        let mut k: *const c_char = null();
        let mut kl = 0usize;
        let mut val: *const bc_value = null();

        // [1, "a", [], {}]
        let input = hx("94 01 81 61 90 A0");
        let v = decode(d, &input);
        ok!(bc_value_len(v, &mut n));
        assert_eq!((n, (*v).kind), (4, BC_TYPE_LIST));
        let first = item(v, 0);
        let a = item(v, 1);
        let empty = item(v, 2);
        assert_eq!(int_of(first), 1);
        assert_eq!(text_of(a), "a");
        assert_eq!(((*empty).kind, (*empty).len), (BC_TYPE_LIST, 0));
        assert_eq!(((*item(v, 3)).kind, (*item(v, 3)).len), (BC_TYPE_MAP, 0));
        assert_eq!(raw_child(v, 1), a, "the checked and the raw access agree");
        let mut out = empty;
        st!(bc_value_list_get(v, 4, &mut out), BC_ERR_OUT_OF_RANGE);
        st!(
            bc_value_list_get(v, usize::MAX, &mut out),
            BC_ERR_OUT_OF_RANGE
        );
        assert_eq!(out, empty);
        st!(bc_value_list_get(empty, 0, &mut out), BC_ERR_OUT_OF_RANGE);
        st!(
            bc_value_map_entry(v, 0, &mut k, &mut kl, &mut val),
            BC_ERR_WRONG_TYPE
        );
        st!(bc_value_struct_tag(v, &mut tag), BC_ERR_WRONG_TYPE);
        // Pointers taken earlier still read the same items.
        assert_eq!((int_of(first), text_of(a)), (1, "a".to_owned()));

        // {"a": 1, "b": 2, "a": 3}: duplicates in wire order; lookups take the last.
        let input = hx("A3 81 61 01 81 62 02 81 61 03");
        let v = decode(d, &input);
        assert_eq!(((*v).kind, (*v).len), (BC_TYPE_MAP, 3));
        ok!(bc_value_map_entry(v, 2, &mut k, &mut kl, &mut val));
        assert_eq!((bytes_at(k.cast(), kl), int_of(val)), (b"a".to_vec(), 3));
        ok!(bc_value_map_entry(v, 1, null_mut(), null_mut(), &mut val));
        assert_eq!(int_of(val), 2);
        ok!(bc_value_map_entry(v, 0, &mut k, &mut kl, null_mut()));
        assert_eq!(bytes_at(k.cast(), kl), b"a");
        st!(
            bc_value_map_entry(v, 0, &mut k, null_mut(), &mut val),
            BC_ERR_NULL_POINTER
        );
        st!(
            bc_value_map_entry(v, 3, &mut k, &mut kl, &mut val),
            BC_ERR_OUT_OF_RANGE
        );
        st!(
            bc_value_map_entry(v, usize::MAX, &mut k, &mut kl, &mut val),
            BC_ERR_OUT_OF_RANGE
        );
        assert_eq!(int_of(entry(v, "a")), 3);
        assert_eq!(int_of(entry(v, "b")), 2);
        for missing in ["c", "ab", "b!", ""] {
            st!(
                bc_value_map_get(v, cs(missing), missing.len(), &mut val),
                BC_ERR_NOT_FOUND
            );
        }
        st!(bc_value_map_get(v, null(), 0, &mut val), BC_ERR_NOT_FOUND);
        st!(
            bc_value_map_get(v, null(), 1, &mut val),
            BC_ERR_NULL_POINTER
        );
        st!(bc_value_list_get(v, 0, &mut val), BC_ERR_WRONG_TYPE);
        // The raw layout: key, value, key, value.
        assert_eq!(text_of(raw_child(v, 2)), "b");
        assert_eq!((*raw_child(v, 3)).data.i, 2);

        // Structure 0x4E with 2 fields.
        let input = hx("B2 4E 01 C3");
        let v = decode(d, &input);
        ok!(bc_value_struct_tag(v, &mut tag));
        assert_eq!((tag, (*v).tag, (*v).len), (0x4E, 0x4E, 2));
        let f1 = fill(|p| bc_value_struct_field(v, 1, p));
        assert!((*f1).kind == BC_TYPE_BOOL && (*f1).data.b);
        st!(bc_value_struct_field(v, 2, &mut val), BC_ERR_OUT_OF_RANGE);
        ok!(bc_value_len(v, &mut n));
        assert_eq!(n, 2);
        st!(bc_value_map_get(v, cs("a"), 1, &mut val), BC_ERR_WRONG_TYPE);
        st!(bc_value_list_get(v, 0, &mut val), BC_ERR_WRONG_TYPE);
        bc_decoder_free(d);
    }
}

#[test]
fn copy_string_and_format() {
    // SAFETY: a decoder created and freed here; buffers are locals of the stated
    // capacity.
    unsafe {
        let d = decoder(0);
        let input = hx("85 68 65 6C 6C 6F"); // "hello"
        let v = decode(d, &input);
        let mut needed = 0usize;
        st!(
            bc_value_copy_string(v, null_mut(), 0, &mut needed),
            BC_ERR_BUFFER_TOO_SMALL
        );
        assert_eq!(needed, 6);
        let mut out = [b'x' as c_char; 16];
        st!(
            bc_value_copy_string(v, out.as_mut_ptr(), 5, &mut needed),
            BC_ERR_BUFFER_TOO_SMALL
        );
        assert_eq!(out[0], b'x' as c_char, "not written");
        ok!(bc_value_copy_string(v, out.as_mut_ptr(), 6, null_mut()));
        assert_eq!(c_text(out.as_ptr()), "hello");
        st!(
            bc_value_copy_string(v, null_mut(), 6, null_mut()),
            BC_ERR_NULL_POINTER
        );
        // Exactly the capacity of an uninitialised buffer: only those bytes are written.
        let mut exact = MaybeUninit::<[c_char; 6]>::uninit();
        ok!(bc_value_copy_string(
            v,
            exact.as_mut_ptr().cast(),
            6,
            &mut needed
        ));
        assert_eq!(c_text(exact.assume_init().as_ptr()), "hello");
        // Embedded NUL bytes are copied as they are.
        let input = hx("83 61 00 62");
        let v = decode(d, &input);
        ok!(bc_value_copy_string(
            v,
            out.as_mut_ptr(),
            out.len(),
            &mut needed
        ));
        assert_eq!(needed, 4);
        assert_eq!(
            out[..4].iter().map(|&c| c as u8).collect::<Vec<_>>(),
            b"a\0b\0"
        );
        let mut nope = 0i64;
        st!(
            bc_value_copy_string(v, out.as_mut_ptr(), 0, null_mut()),
            BC_ERR_BUFFER_TOO_SMALL
        );
        st!(bc_value_as_int(v, &mut nope), BC_ERR_WRONG_TYPE);
        let input = hx("01");
        let v = decode(d, &input);
        st!(
            bc_value_copy_string(v, out.as_mut_ptr(), out.len(), null_mut()),
            BC_ERR_WRONG_TYPE
        );

        // {born: date("1990-05-17"), `first name`: "Bob", n: [1, 2.5, null]}
        let input = hx(
            "A3 84 62 6F 72 6E B1 44 C9 1D 11 8A 66 69 72 73 74 20 6E 61 6D 65 83 42 6F 62
             81 6E 93 01 C1 40 04 00 00 00 00 00 00 C0",
        );
        let v = decode(d, &input);
        let want = "{born: date(\"1990-05-17\"), `first name`: \"Bob\", n: [1, 2.5, null]}";
        st!(
            bc_value_format(v, null(), null_mut(), 0, &mut needed),
            BC_ERR_BUFFER_TOO_SMALL
        );
        assert_eq!(needed, want.len() + 1);
        let mut big = vec![0 as c_char; needed];
        ok!(bc_value_format(
            v,
            &V58,
            big.as_mut_ptr(),
            big.len(),
            &mut needed
        ));
        assert_eq!(c_text(big.as_ptr()), want);
        st!(
            bc_value_format(v, &ver(5, 5), big.as_mut_ptr(), big.len(), null_mut()),
            BC_ERR_UNKNOWN_VERSION
        );
        // A structure not valid in the version shows as broken there.
        let input = hx("B1 44 01 02");
        st!(decode_status(d, &input), BC_ERR_TRAILING_BYTES);
        let input = hx("B2 44 01 02");
        let v = decode(d, &input);
        ok!(bc_value_format(
            v,
            &V58,
            big.as_mut_ptr(),
            big.len(),
            null_mut()
        ));
        assert!(
            c_text(big.as_ptr()).starts_with("broken("),
            "{}",
            c_text(big.as_ptr())
        );
        bc_decoder_free(d);
    }
}

/// The status of decoding `input` as exactly one value.
///
/// # Safety
/// `d` is a live decoder.
unsafe fn decode_status(d: *mut bc_decoder, input: &[u8]) -> bc_status {
    let mut v: *const bc_value = null();
    bc_decoder_decode(d, input.as_ptr(), input.len(), &mut v)
}

// ---------------------------------------------------------------------------------------
// Decoder
// ---------------------------------------------------------------------------------------

/// Regression: the root node of a decoded tree lived inside the decoder handle, and the
/// handle is reborrowed mutably by every call on it, starting with the end of the very
/// call that returned the root. Under Stacked Borrows that invalidated the pointer C had
/// just received: the first read of `*root` was undefined behaviour (as was any read
/// after `bc_decoder_limits`, `set_limits`, `set_options`, which must keep it valid).
#[test]
fn decoded_root_was_invalidated_by_the_next_reborrow_of_the_decoder() {
    // SAFETY: a decoder and a dechunker created and freed here; each root is read
    // before the decoder's next decode; inputs outlive the values.
    unsafe {
        let d = decoder(0);
        let input = hx("92 01 81 61"); // [1, "a"]
        let v = decode(d, &input);
        assert_eq!(((*v).kind, (*v).len), (BC_TYPE_LIST, 2));
        // Calls on the same decoder that keep its values valid.
        let mut lim = fill(|p| bc_decoder_limits(d, p));
        lim.max_depth = 7;
        ok!(bc_decoder_set_limits(d, &lim));
        ok!(bc_decoder_set_options(d, BC_OPT_UUID));
        let (status, _, _) = error_of(bc_decoder_last_error, d);
        assert_eq!(status, BC_OK);
        assert_eq!(((*v).kind, (*v).len), (BC_TYPE_LIST, 2));
        assert_eq!(
            (int_of(raw_child(v, 0)), text_of(item(v, 1))),
            (1, "a".to_owned())
        );

        let mut used = 0usize;
        let v = fill(|p| bc_decoder_decode_prefix(d, input.as_ptr(), input.len(), p, &mut used));
        ok!(bc_decoder_set_options(d, 0));
        assert_eq!(((*v).kind, used), (BC_TYPE_LIST, 4));

        let run = hx("01 81 62");
        let v = fill(|p| bc_decoder_decode_all(d, run.as_ptr(), run.len(), p));
        ok!(bc_decoder_set_limits(d, &lim));
        assert_eq!(((*v).kind, (*v).len), (BC_TYPE_LIST, 2));
        assert_eq!(text_of(item(v, 1)), "b");

        let msgs = [bc_message {
            data: input.as_ptr(),
            len: input.len(),
            stream_offset: 0,
            chunk_count: 1,
            copied: false,
        }];
        let v = fill(|p| bc_decoder_decode_messages(d, msgs.as_ptr(), 1, p));
        ok!(bc_decoder_set_options(d, BC_OPT_COPY_INPUT));
        assert_eq!(((*v).kind, (*v).len), (BC_TYPE_LIST, 1));
        assert_eq!(text_of(item(item(v, 0), 1)), "a");
        bc_decoder_free(d);
    }
}

/// Regression (issue 13: memory given back after large calls): a decoder kept the
/// memory of the largest value it had ever decoded (its nodes, the build buffers and the
/// input copy) for the rest of its life; with a second buffer for failing decodes, up to
/// twice that (104 MB after the 2 MB list below). Now what is not live is trimmed to
/// about 4 MiB per buffer. Not under
/// Miri (two million nodes).
#[test]
#[cfg_attr(miri, ignore)]
fn decoder_kept_the_memory_of_its_largest_value() {
    // SAFETY: a decoder created and freed here; values read while valid.
    unsafe {
        const N: usize = 2_000_000;
        let d = decoder(BC_OPT_COPY_INPUT);
        let mut big = vec![0xD6];
        big.extend_from_slice(&(N as u32).to_be_bytes());
        big.resize(5 + N, 0x01);
        let v = decode(d, &big);
        assert_eq!(((*v).kind, (*v).len as usize), (BC_TYPE_LIST, N));
        let live = (*d).capacity_bytes();
        assert!(live > N * 16, "the big value's nodes: {live} bytes");
        // A failing decode of a big input, then small ones: the big memory goes.
        big[5 + N - 1] = 0xC4;
        assert_ne!(decode_status(d, &big), BC_OK);
        for _ in 0..2 {
            let small = hx("92 01 81 61");
            let w = decode(d, &small);
            assert_eq!(text_of(item(w, 1)), "a");
        }
        let kept = (*d).capacity_bytes();
        assert!(kept <= 24 << 20, "kept {kept} bytes after small decodes");
        ok!(bc_decoder_reset(d));
        assert!((*d).capacity_bytes() <= 24 << 20);
        bc_decoder_free(d);
    }
}

/// Regression (issue 13: one bad call must never touch another): a decode that failed
/// had already cleared the decoder's tree and built part of the bad value over the nodes
/// of the last successful decode, so the values the caller held changed under it (and,
/// with `BC_OPT_COPY_INPUT`, the bytes their strings pointed to). A failing call now
/// builds aside and leaves them valid and unchanged, through every decode entry point.
#[test]
fn failed_decode_overwrote_the_values_of_the_last_successful_one() {
    // SAFETY: handles created and freed here; the good value is read only while the
    // documentation says it is valid (no successful decode on `d` since); `good`
    // outlives it.
    unsafe {
        for flags in [0, BC_OPT_COPY_INPUT] {
            let d = decoder(flags);
            // {"name": "Alice", "n": [1, 2, 3]}
            let good = hx("A2 84 6E 61 6D 65 85 41 6C 69 63 65 81 6E 93 01 02 03");
            let v = decode(d, &good);
            let check = |v: *const bc_value| {
                assert_eq!(((*v).kind, (*v).len), (BC_TYPE_MAP, 2));
                assert_eq!(text_of(entry(v, "name")), "Alice");
                let n = entry(v, "n");
                assert_eq!((int_of(item(n, 0)), int_of(item(n, 2))), (1, 3));
            };
            check(v);
            // Bad inputs that fail late, after many nodes and strings were built: a
            // long map cut short, a reserved marker deep inside, trailing bytes.
            let mut long = hx("A8");
            for i in 0..7u8 {
                long.extend_from_slice(&[0x81, b'a' + i, 0x85, b'B', b'o', b'b', b'b', b'y']);
            }
            let mut reserved = long.clone();
            reserved.extend_from_slice(&hx("81 7A C4"));
            let mut trailing = good.clone();
            trailing.push(0x01);
            for bad in [&long, &reserved, &trailing] {
                assert_ne!(decode_status(d, bad), BC_OK);
                check(v);
                let mut out = null();
                let mut used = 0usize;
                assert_ne!(
                    bc_decoder_decode_prefix(d, bad.as_ptr(), good.len() - 1, &mut out, &mut used),
                    BC_OK
                );
                check(v);
                let cut_tail = [bad.as_slice(), &[0x85]].concat();
                assert_ne!(
                    bc_decoder_decode_all(d, cut_tail.as_ptr(), cut_tail.len(), &mut out),
                    BC_OK
                );
                check(v);
                let msgs = [good.as_slice(), bad.as_slice()].map(|m| bc_message {
                    data: m.as_ptr(),
                    len: m.len(),
                    stream_offset: 0,
                    chunk_count: 1,
                    copied: false,
                });
                assert_ne!(
                    bc_decoder_decode_messages(d, msgs.as_ptr(), 2, &mut out),
                    BC_OK
                );
                check(v);
            }
            // Decoding the value's own string bytes ("Alice": the integer 0x41, then
            // trailing bytes) fails, and keeps them and the value.
            let mut p: *const c_char = null();
            let mut n = 0usize;
            ok!(bc_value_as_string(entry(v, "name"), &mut p, &mut n));
            let mut out = null();
            st!(
                bc_decoder_decode(d, p.cast(), n, &mut out),
                BC_ERR_TRAILING_BYTES
            );
            check(v);
            // The next successful decode replaces it, as documented.
            let x = hx("81 78");
            let w = decode(d, &x);
            assert_eq!(text_of(w), "x");
            bc_decoder_free(d);
        }
    }
}

/// Regression: with `BC_OPT_COPY_INPUT`, decoding bytes that belong to a value of the
/// same decoder's previous decode (a PackStream blob in a byte array, decoded again)
/// refilled the decoder's copy in place: it cleared and overwrote the very bytes it was
/// copying from (undefined behaviour: Stacked Borrows, and an overlapping
/// `copy_nonoverlapping`). Each decode entry point is fed such bytes here.
#[test]
fn copied_input_was_overwritten_while_it_was_being_copied() {
    // SAFETY: a decoder created and freed here; each input is a byte array of the
    // previous value, valid until the call that decodes it (which copies it first).
    unsafe {
        let d = decoder(BC_OPT_COPY_INPUT);
        // [1, b1] where b1 holds ["hi", b2], b2 holds [b3, b4], b3 holds "hi", b4 holds
        // b5 and b5 holds "x": each entry point below decodes byte arrays of the last.
        let outer = hx("92 01 CC 12  92 82 68 69 CC 0C  92 CC 03 82 68 69 CC 04 CC 02 81 78");
        let v = decode(d, &outer);
        drop(outer);
        let b1 = raw_child(v, 1);
        let mut used = 0usize;
        let v = fill(|out| {
            bc_decoder_decode_prefix(d, (*b1).data.bytes, (*b1).len as usize, out, &mut used)
        });
        assert_eq!((used, text_of(item(v, 0))), (18, "hi".to_owned()));
        let b2 = raw_child(v, 1);
        let v = fill(|out| bc_decoder_decode_all(d, (*b2).data.bytes, (*b2).len as usize, out));
        assert_eq!((*v).len, 1);
        let inner = item(v, 0);
        assert_eq!(((*inner).kind, (*inner).len), (BC_TYPE_LIST, 2));
        let message = |b: *const bc_value| bc_message {
            data: (*b).data.bytes,
            len: (*b).len as usize,
            stream_offset: 0,
            chunk_count: 1,
            copied: true,
        };
        let msgs = [message(item(inner, 0)), message(item(inner, 1))];
        let v = fill(|out| bc_decoder_decode_messages(d, msgs.as_ptr(), 2, out));
        assert_eq!(text_of(item(v, 0)), "hi");
        let b5 = item(v, 1);
        let mut p: *const u8 = null();
        let mut n = 0usize;
        ok!(bc_value_as_bytes(b5, &mut p, &mut n));
        assert_eq!(n, 2);
        let v = fill(|out| bc_decoder_decode(d, p, n, out));
        assert_eq!(text_of(v), "x");
        bc_decoder_free(d);
    }
}

#[test]
fn decoder_limits_options_reset_and_last_error() {
    // SAFETY: a decoder created and freed here; error messages are read before the
    // decoder's next failing call; inputs outlive the values.
    unsafe {
        let d = decoder(0);
        let defaults = fill(|p| bc_decode_limits_default(p));
        assert_eq!(
            (
                defaults.max_depth,
                defaults.max_string_len,
                defaults.max_total_elements
            ),
            (1024, 2_147_483_647, 1 << 26)
        );
        assert_eq!(fill(|p| bc_decoder_limits(d, p)), defaults);
        st!(bc_decoder_set_options(d, 8), BC_ERR_INVALID_ARGUMENT);
        st!(bc_decoder_set_options(d, u32::MAX), BC_ERR_INVALID_ARGUMENT);
        let (status, offset, message) = error_of(bc_decoder_last_error, d);
        assert_eq!((status, offset), (BC_ERR_INVALID_ARGUMENT, -1));
        assert!(message.contains("0xffffffff"), "{message}");

        // One limit at a time: each is enforced at the header that exceeds it.
        /// A limit to set, an input that exceeds it, and the offset of the error.
        type LimitCase = (fn(&mut bc_decode_limits), &'static str, i64);
        let cases: [LimitCase; 5] = [
            (|l| l.max_depth = 2, "91 91 90", 2),
            (|l| l.max_string_len = 2, "92 81 61 83 61 62 63", 3),
            (|l| l.max_bytes_len = 1, "CC 02 00 00", 0),
            (|l| l.max_container_len = 1, "91 92 01 02", 1),
            (|l| l.max_total_elements = 2, "92 91 01 01", 1),
        ];
        for (set, hex, want_offset) in cases {
            let mut lim = defaults;
            set(&mut lim);
            ok!(bc_decoder_set_limits(d, &lim));
            assert_eq!(fill(|p| bc_decoder_limits(d, p)), lim);
            let input = hx(hex);
            st!(decode_status(d, &input), BC_ERR_LIMIT_EXCEEDED);
            let err = fill(|p| bc_decoder_last_error(d, p));
            assert_eq!(
                (err.status, err.offset),
                (BC_ERR_LIMIT_EXCEEDED, want_offset),
                "{hex}"
            );
            // The message stays readable across successful calls.
            let message = err.message;
            ok!(bc_decoder_set_limits(d, &defaults));
            let v = decode(d, &input);
            assert!(matches!((*v).kind, BC_TYPE_LIST | BC_TYPE_BYTES), "{hex}");
            assert!(!c_text(message).is_empty());
        }
        // Success does not clear the last error; reset does.
        assert_eq!(error_of(bc_decoder_last_error, d).0, BC_ERR_LIMIT_EXCEEDED);
        ok!(bc_decoder_reset(d));
        assert_eq!(
            error_of(bc_decoder_last_error, d),
            (BC_OK, -1, String::new())
        );
        // Reset keeps the limits and options.
        let mut lim = defaults;
        lim.max_depth = 1;
        ok!(bc_decoder_set_limits(d, &lim));
        ok!(bc_decoder_set_options(d, BC_OPT_UUID));
        ok!(bc_decoder_reset(d));
        assert_eq!(fill(|p| bc_decoder_limits(d, p)).max_depth, 1);
        let uuid = hx("E0 00112233445566778899AABBCCDDEEFF");
        assert_eq!((*decode(d, &uuid)).kind, BC_TYPE_UUID);
        bc_decoder_free(d);
    }
}

#[test]
fn decode_errors_report_status_and_offset() {
    // SAFETY: a decoder created and freed here; inputs are locals.
    unsafe {
        let d = decoder(0);
        let cases = [
            ("C4", BC_ERR_RESERVED_MARKER, 0),
            ("92 01 DF", BC_ERR_RESERVED_MARKER, 2),
            ("83 61 FF 62", BC_ERR_INVALID_UTF8, 2),
            ("A1 01 01", BC_ERR_NON_STRING_KEY, 1),
            ("01 02", BC_ERR_TRAILING_BYTES, 1),
            ("", BC_ERR_UNEXPECTED_END, 0),
            (
                "E0 00112233445566778899AABBCCDDEEFF",
                BC_ERR_RESERVED_MARKER,
                0,
            ),
            ("DC 01 4E 01", BC_ERR_RESERVED_MARKER, 0),
        ];
        for (hex, want, offset) in cases {
            let input = hx(hex);
            st!(decode_status(d, &input), want);
            let (status, at, message) = error_of(bc_decoder_last_error, d);
            assert_eq!((status, at), (want, offset), "{hex}: {message}");
            assert!(!message.is_empty());
        }
        // The options make the last two valid.
        ok!(bc_decoder_set_options(
            d,
            BC_OPT_UUID | BC_OPT_LEGACY_STRUCTS
        ));
        let input = hx("E0 00112233445566778899AABBCCDDEEFF");
        let v = decode(d, &input);
        let u: [u8; 16] = fill(|p: *mut [u8; 16]| bc_value_as_uuid(v, p.cast()));
        assert_eq!(u[15], 0xFF);
        let mut input = hx("DD 00 10 4E");
        input.extend(0..16u8);
        let v = decode(d, &input);
        assert_eq!(((*v).kind, (*v).tag, (*v).len), (BC_TYPE_STRUCT, 0x4E, 16));
        assert_eq!(int_of(raw_child(v, 15)), 15);
        bc_decoder_free(d);
    }
}

#[test]
fn decode_prefix_walks_a_stream_of_values() {
    // SAFETY: a decoder created and freed here; each value is read before the next
    // decode; the stream outlives the values (zero copy).
    unsafe {
        let d = decoder(0);
        let stream = hx("01 81 61 92 02 03 C0 85 68 65");
        let mut at = 0usize;
        let mut seen = Vec::new();
        loop {
            let rest = &stream[at..];
            let mut v: *const bc_value = null();
            let mut used = usize::MAX;
            let status = bc_decoder_decode_prefix(d, rest.as_ptr(), rest.len(), &mut v, &mut used);
            if status != BC_OK {
                // A value cut off at the end: a streaming caller waits for more.
                st!(status, BC_ERR_UNEXPECTED_END);
                assert_eq!(used, usize::MAX, "not written on error");
                break;
            }
            seen.push(((*v).kind, used));
            if (*v).kind == BC_TYPE_STRING {
                assert_eq!(text_of(v), "a");
                assert_eq!((*v).data.s.cast::<u8>(), rest.as_ptr().add(1), "zero copy");
            }
            at += used;
        }
        assert_eq!(
            seen,
            [
                (BC_TYPE_INT, 1),
                (BC_TYPE_STRING, 2),
                (BC_TYPE_LIST, 3),
                (BC_TYPE_NULL, 1)
            ]
        );
        assert_eq!(at, 7);
        st!(decode_status(d, &stream), BC_ERR_TRAILING_BYTES);
        bc_decoder_free(d);
    }
}

#[test]
fn decode_all_values_and_error_offsets() {
    // SAFETY: a decoder created and freed here; values are read before the next
    // decode; zero-copy inputs outlive their values.
    unsafe {
        let d = decoder(0);
        // Three RECORDs end to end: B1 71 [i] for i = 1..3.
        let input = hx("B1 71 91 01 B1 71 91 02 B1 71 91 03");
        let v = fill(|p| bc_decoder_decode_all(d, input.as_ptr(), input.len(), p));
        assert_eq!(((*v).kind, (*v).len), (BC_TYPE_LIST, 3));
        for i in 0..3 {
            let r = raw_child(v, i);
            assert_eq!(((*r).kind, (*r).tag), (BC_TYPE_STRUCT, 0x71));
            assert_eq!((*raw_child(raw_child(r, 0), 0)).data.i, i as i64 + 1);
        }
        let v = fill(|p| bc_decoder_decode_all(d, null(), 0, p));
        assert_eq!(((*v).kind, (*v).len), (BC_TYPE_LIST, 0));
        // An error in the third value: the offset counts from the start of the input.
        let input = hx("01 02 92 01");
        let mut v: *const bc_value = null();
        st!(
            bc_decoder_decode_all(d, input.as_ptr(), input.len(), &mut v),
            BC_ERR_UNEXPECTED_END
        );
        assert!(v.is_null(), "not written on error");
        let (_, offset, message) = error_of(bc_decoder_last_error, d);
        assert_eq!(offset, 2);
        assert!(message.contains("value 2"), "{message}");
        let input = hx("01 C4");
        st!(
            bc_decoder_decode_all(d, input.as_ptr(), input.len(), &mut v),
            BC_ERR_RESERVED_MARKER
        );
        assert_eq!(error_of(bc_decoder_last_error, d).1, 1);
        bc_decoder_free(d);
    }
}

/// With `BC_OPT_COPY_INPUT` the values do not read the caller's buffer: it is freed
/// right after each call (Miri reports any read of it) and the values are read after.
#[test]
fn copied_input_may_be_freed_before_the_values_are_read() {
    // SAFETY: a decoder created and freed here; each input buffer is freed after the
    // call, which the option allows; values are read before the next decode.
    unsafe {
        let d = decoder(BC_OPT_COPY_INPUT);
        let heap = hx("92 85 61 62 63 64 65 CC 01 FF");
        let v = decode(d, &heap);
        drop(heap);
        assert_eq!(text_of(item(v, 0)), "abcde");
        assert_eq!(*(*raw_child(v, 1)).data.bytes, 0xFF);

        let heap = hx("83 78 79 7A 01");
        let mut used = 0usize;
        let v = fill(|p| bc_decoder_decode_prefix(d, heap.as_ptr(), heap.len(), p, &mut used));
        drop(heap);
        assert_eq!((text_of(v), used), ("xyz".to_owned(), 4));

        let heap = hx("81 61 81 62");
        let v = fill(|p| bc_decoder_decode_all(d, heap.as_ptr(), heap.len(), p));
        drop(heap);
        assert_eq!(
            (text_of(item(v, 0)), text_of(item(v, 1))),
            ("a".to_owned(), "b".to_owned())
        );

        let (one, two) = (hx("81 63"), hx("B1 71 91 82 64 65"));
        let msgs = [
            bc_message {
                data: one.as_ptr(),
                len: one.len(),
                stream_offset: 0,
                chunk_count: 1,
                copied: false,
            },
            bc_message {
                data: two.as_ptr(),
                len: two.len(),
                stream_offset: 6,
                chunk_count: 1,
                copied: false,
            },
        ];
        let v = fill(|p| bc_decoder_decode_messages(d, msgs.as_ptr(), msgs.len(), p));
        drop((one, two));
        assert_eq!(text_of(item(v, 0)), "c");
        assert_eq!(
            text_of(item(fill(|p| bc_value_struct_field(item(v, 1), 0, p)), 0)),
            "de"
        );
        // The values of one decoder do not depend on another's calls.
        let other = decoder(0);
        let x = hx("7F");
        assert_eq!(int_of(decode(other, &x)), 127);
        assert_eq!(text_of(item(v, 0)), "c");
        bc_decoder_free(other);
        bc_decoder_free(d);
    }
}

#[test]
fn zero_copy_values_point_into_the_input() {
    // SAFETY: a decoder created and freed here; the input outlives the values.
    unsafe {
        let d = decoder(0);
        let input = hx("93 83 61 62 63 CC 02 01 02 E0 00112233445566778899AABBCCDDEEFF");
        ok!(bc_decoder_set_options(d, BC_OPT_UUID));
        let v = decode(d, &input);
        let s = raw_child(v, 0);
        assert_eq!((*s).data.s.cast::<u8>(), input.as_ptr().add(2));
        let b = raw_child(v, 1);
        assert_eq!((*b).data.bytes, input.as_ptr().add(7));
        assert_eq!(bytes_at((*b).data.bytes, (*b).len as usize), [1, 2]);
        let u = raw_child(v, 2);
        assert_eq!(bytes_at((*u).data.bytes, 16), input[10..26]);
        bc_decoder_free(d);
    }
}

/// A length of 2^32 - 1 in every sized header, and other claims far beyond the input:
/// refused before any allocation or read past the input.
#[test]
fn hostile_length_claims_are_refused() {
    // SAFETY: a decoder created and freed here; inputs are locals.
    unsafe {
        let d = decoder(0);
        for (hex, offset) in [
            ("D2 FF FF FF FF 61", 0),
            ("CE FF FF FF FF 00", 0),
            ("D6 FF FF FF FF 01", 0),
            ("DA FF FF FF FF 81 61 01", 0),
            ("91 D6 FF FF FF FF", 1),
            ("A1 81 61 D2 80 00 00 00", 3),
        ] {
            let input = hx(hex);
            st!(decode_status(d, &input), BC_ERR_SIZE_TOO_LARGE);
            assert_eq!(error_of(bc_decoder_last_error, d).1, offset, "{hex}");
        }
        // 2^31 - 1, the largest size: above the default total, else just cut short.
        let big = hx("D6 7F FF FF FF 01");
        st!(decode_status(d, &big), BC_ERR_LIMIT_EXCEEDED);
        let mut lim = fill(|p| bc_decode_limits_default(p));
        lim.max_total_elements = u64::MAX;
        ok!(bc_decoder_set_limits(d, &lim));
        st!(decode_status(d, &big), BC_ERR_UNEXPECTED_END);
        for hex in [
            "D2 7F FF FF FF 61",
            "CE 7F FF FF FF",
            "DA 7F FF FF FF 81 61",
        ] {
            st!(decode_status(d, &hx(hex)), BC_ERR_UNEXPECTED_END);
        }
        // Nested headers that each claim nearly the whole input.
        let mut claim = Vec::new();
        for i in 0..16u32 {
            claim.push(0xD6);
            claim.extend_from_slice(&(80 - 5 * i - 5).to_be_bytes());
        }
        st!(decode_status(d, &claim), BC_ERR_UNEXPECTED_END);
        // Lengths above PTRDIFF_MAX are refused without reading the (1-byte) buffer.
        let one = [0x01u8];
        let mut v: *const bc_value = null();
        st!(
            bc_decoder_decode(d, one.as_ptr(), usize::MAX, &mut v),
            BC_ERR_INVALID_ARGUMENT
        );
        st!(
            bc_decoder_decode_all(d, one.as_ptr(), isize::MAX as usize + 1, &mut v),
            BC_ERR_INVALID_ARGUMENT
        );
        let msg = bc_message {
            data: one.as_ptr(),
            len: 1,
            stream_offset: 0,
            chunk_count: 1,
            copied: false,
        };
        st!(
            bc_decoder_decode_messages(d, &msg, usize::MAX / 8, &mut v),
            BC_ERR_INVALID_ARGUMENT
        );
        let huge = bc_message {
            len: usize::MAX,
            ..msg
        };
        st!(
            bc_decoder_decode_messages(d, &huge, 1, &mut v),
            BC_ERR_INVALID_ARGUMENT
        );
        assert!(v.is_null());
        bc_decoder_free(d);
    }
}

/// Every proper prefix of a valid value is `BC_ERR_UNEXPECTED_END`, whole it decodes.
#[test]
fn truncated_input_is_unexpected_end_at_every_cut() {
    // SAFETY: a decoder created and freed here; the input outlives the values.
    unsafe {
        let d = decoder(BC_OPT_UUID);
        // {a: [1, -200, 70000], b: b"\x01\x02", c: 1.5, d: B1 4E "x", e: uuid}
        let input = hx(
            "A5 81 61 93 01 C9 FF 38 CA 00 01 11 70 81 62 CC 02 01 02 81 63
             C1 3F F8 00 00 00 00 00 00 81 64 B1 4E 81 78 81 65
             E0 00112233445566778899AABBCCDDEEFF",
        );
        for cut in 0..input.len() {
            let mut v: *const bc_value = null();
            let mut used = 0usize;
            st!(
                bc_decoder_decode_prefix(d, input.as_ptr(), cut, &mut v, &mut used),
                BC_ERR_UNEXPECTED_END
            );
            st!(decode_status(d, &input[..cut]), BC_ERR_UNEXPECTED_END);
        }
        let v = decode(d, &input);
        assert_eq!(((*v).kind, (*v).len), (BC_TYPE_MAP, 5));
        assert_eq!(int_of(item(entry(v, "a"), 2)), 70000);
        assert_eq!(int_of(item(entry(v, "a"), 1)), -200);
        assert_eq!(text_of(raw_child(entry(v, "d"), 0)), "x");
        bc_decoder_free(d);
    }
}

/// 2000 nested lists: the default depth limit refuses them, without a limit they decode,
/// are walked, re-encoded and decoded again with nothing recursive on the stack.
#[test]
fn deep_nesting_of_two_thousand_levels() {
    // SAFETY: a decoder and an encoder created and freed here; the input outlives the
    // values; the tree is walked while valid.
    unsafe {
        const DEPTH: usize = 2000;
        let d = decoder(0);
        let mut deep = vec![0x91u8; DEPTH];
        st!(decode_status(d, &deep), BC_ERR_LIMIT_EXCEEDED);
        assert_eq!(error_of(bc_decoder_last_error, d).1, 1024);
        let mut lim = fill(|p| bc_decode_limits_default(p));
        lim.max_depth = u32::MAX;
        ok!(bc_decoder_set_limits(d, &lim));
        st!(decode_status(d, &deep), BC_ERR_UNEXPECTED_END);
        deep[DEPTH - 1] = 0x90;
        let root = decode(d, &deep);
        let mut v = root;
        let mut depth = 0;
        while (*v).kind == BC_TYPE_LIST && (*v).len == 1 {
            v = item(v, 0);
            depth += 1;
        }
        assert_eq!((depth, (*v).len), (DEPTH - 1, 0));
        let e = encoder(0);
        ok!(bc_encoder_write_value(e, root));
        ok!(bc_encoder_depth(e, &mut depth));
        assert_eq!(depth, 0);
        assert_eq!(encoded(e), deep);
        let again = decode_encoded(d, e);
        assert_eq!(((*again).kind, (*again).len), (BC_TYPE_LIST, 1));
        bc_encoder_free(e);
        bc_decoder_free(d);
    }
}

/// Regression (issue 13): with a raised `max_depth`, a RECORD a server sent nested 50,000
/// deep overflowed the stack in `bc_connection_receive` (recursive conversion to owned
/// values in the core), `bc_value_format` at 20,000 levels and `bc_value_as_node` at
/// 100,000 (recursive clone). Here a million levels pass through each, on a thread with
/// a 256 KiB stack. Not under Miri (far too slow there); the C suite
/// `tests/test_deep.c` covers every other entry point.
#[test]
#[cfg_attr(miri, ignore)]
fn server_record_nested_deep_overflowed_the_stack_in_receive_format_and_views() {
    const DEPTH: usize = 1_000_000;
    let run = || {
        // SAFETY: handles created and freed here; values read while valid; inputs
        // outlive them.
        unsafe {
            // bc_value_format and bc_value_as_node: a node whose property is DEPTH deep.
            let d = decoder(0);
            let mut lim = fill(|p| bc_decode_limits_default(p));
            lim.max_depth = DEPTH as u32 + 8;
            ok!(bc_decoder_set_limits(d, &lim));
            let mut bytes = hx("B3 4E 07 91 81 4C A1 81 70");
            bytes.extend(std::iter::repeat_n(0x91, DEPTH));
            bytes.push(0x01);
            let v = decode(d, &bytes);
            let node: bc_node = fill(|p| bc_value_as_node(v, V44, p));
            assert_eq!(node.id, 7);
            let mut needed = 0usize;
            st!(
                bc_value_format(v, &V44, null_mut(), 0, &mut needed),
                BC_ERR_BUFFER_TOO_SMALL
            );
            let mut text = vec![0 as c_char; needed];
            ok!(bc_value_format(
                v,
                &V44,
                text.as_mut_ptr(),
                needed,
                &mut needed
            ));
            let text = CStr::from_ptr(text.as_ptr()).to_str().expect("UTF-8");
            assert_eq!(text.matches('[').count(), DEPTH, "one [ per level");
            assert!(text.starts_with("(:L {p: [[[") && text.ends_with("]]]})"));
            bc_decoder_free(d);

            // bc_connection_receive and bc_connection_poll_event: the RECORD itself.
            let mut cfg = fill(|p| bc_connection_config_default(p));
            cfg.flags = BC_HANDSHAKE_LEGACY;
            cfg.supported = &V44;
            cfg.supported_len = 1;
            cfg.decode_limits.max_depth = DEPTH as u32 + 8;
            let c = fill(|p| bc_connection_new(&cfg, p));
            let (mut p, mut n): (*const u8, usize) = (null(), 0);
            ok!(bc_connection_output(c, &mut p, &mut n));
            ok!(bc_connection_consume_output(c, n));
            ok!(bc_connection_receive(c, [0, 0, 4, 4].as_ptr(), 4));
            ok!(bc_connection_send_hello(c, cs("t"), 1, null(), 0));
            ok!(bc_connection_send_run(
                c,
                cs("RETURN 1"),
                8,
                null(),
                0,
                null(),
                0
            ));
            ok!(bc_connection_send_pull(c, -1, -1));
            let mut record = hx("B1 71 91");
            record.extend(std::iter::repeat_n(0x91, DEPTH));
            record.push(0x01);
            let mut stream = hx("00 03 B1 70 A0 00 00 00 03 B1 70 A0 00 00");
            for chunk in record.chunks(65535) {
                stream.extend_from_slice(&(chunk.len() as u16).to_be_bytes());
                stream.extend_from_slice(chunk);
            }
            stream.extend_from_slice(&hx("00 00 00 03 B1 70 A0 00 00"));
            ok!(bc_connection_receive(c, stream.as_ptr(), stream.len()));
            let mut kinds = Vec::new();
            for _ in 0..5 {
                let ev: bc_event = fill(|p| bc_connection_poll_event(c, p));
                kinds.push(ev.kind);
                if ev.kind == BC_EVENT_RECORD {
                    // The fields: one list DEPTH levels deep around the integer 1.
                    let mut v = item(ev.value, 0);
                    let mut levels = 0;
                    while (*v).kind == BC_TYPE_LIST && (*v).len == 1 {
                        v = item(v, 0);
                        levels += 1;
                    }
                    assert_eq!((levels, int_of(v)), (DEPTH, 1));
                }
            }
            let success = BC_EVENT_SUCCESS;
            assert_eq!(
                kinds,
                [
                    BC_EVENT_NEGOTIATED,
                    success,
                    success,
                    BC_EVENT_RECORD,
                    success
                ]
            );
            bc_connection_free(c);
        }
    };
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(run)
        .expect("a thread")
        .join()
        .expect("no stack overflow, no failed check");
}

/// Pseudo-random bytes: any status is fine; what decodes must re-encode to bytes that
/// decode and re-encode to themselves.
#[test]
fn random_bytes_never_break_the_decoder_or_dechunker() {
    // SAFETY: handles created and freed here; values are read before the next decode.
    unsafe {
        let d = decoder(BC_OPT_UUID | BC_OPT_LEGACY_STRUCTS);
        let e = encoder(BC_OPT_UUID | BC_OPT_LEGACY_STRUCTS);
        let dc = fill(|p| bc_dechunker_new(p));
        let mut seed = 12345u32;
        let mut decoded = 0;
        for _ in 0..200 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let len = (seed >> 16) as usize % 12;
            let mut rnd = Vec::with_capacity(len);
            for _ in 0..len {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                // Small markers are likelier to form values.
                let b = (seed >> 16) as u8;
                rnd.push(if b & 1 == 0 { b & 0x9F } else { b });
            }
            let mut v: *const bc_value = null();
            if bc_decoder_decode(d, rnd.as_ptr(), rnd.len(), &mut v) == BC_OK {
                decoded += 1;
                ok!(bc_encoder_clear(e));
                ok!(bc_encoder_write_value(e, v));
                let once = encoded(e);
                let w = decode(d, &once);
                ok!(bc_encoder_clear(e));
                ok!(bc_encoder_write_value(e, w));
                assert_eq!(encoded(e), once, "{rnd:02X?}");
            }
            let mut count = 0usize;
            if bc_dechunker_feed(dc, rnd.as_ptr(), rnd.len(), &mut count) != BC_OK {
                ok!(bc_dechunker_reset(dc));
            }
        }
        assert!(decoded >= 10, "only {decoded} inputs decoded");
        bc_dechunker_free(dc);
        bc_encoder_free(e);
        bc_decoder_free(d);
    }
}

// ---------------------------------------------------------------------------------------
// Encoder and framing
// ---------------------------------------------------------------------------------------

#[test]
fn encoder_writes_every_value_type() {
    // SAFETY: an encoder created and freed here; the data pointer is read before the
    // encoder changes (depth and last_error do not change it).
    unsafe {
        let e = encoder(0);
        ok!(bc_encoder_write_map_header(e, 2));
        w_str(e, "name");
        w_str(e, "Alice");
        w_str(e, "age");
        ok!(bc_encoder_write_int(e, 33));
        let mut p: *const u8 = null();
        let mut n = 0usize;
        ok!(bc_encoder_data(e, &mut p, &mut n));
        let mut depth = usize::MAX;
        ok!(bc_encoder_depth(e, &mut depth));
        assert_eq!(error_of(bc_encoder_last_error, e).0, BC_OK);
        assert_eq!(depth, 0);
        assert_eq!(
            bytes_at(p, n),
            hx("A2 84 6E 61 6D 65 85 41 6C 69 63 65 83 61 67 65 21")
        );
        ok!(bc_encoder_clear(e));
        // The smallest integer forms, as the official drivers write them.
        for i in [-16, -17, 127, 128, -129, 32768, i64::MIN] {
            ok!(bc_encoder_write_int(e, i));
        }
        assert_eq!(
            encoded(e),
            hx("F0 C8 EF 7F C9 00 80 C9 FF 7F CA 00 00 80 00 CB 80 00 00 00 00 00 00 00")
        );
        ok!(bc_encoder_clear(e));
        ok!(bc_encoder_write_null(e));
        ok!(bc_encoder_write_bool(e, true));
        ok!(bc_encoder_write_bool(e, false));
        ok!(bc_encoder_write_float(e, -0.0));
        ok!(bc_encoder_write_bytes(e, [7u8, 8, 9].as_ptr(), 3));
        ok!(bc_encoder_write_list_header(e, 0));
        ok!(bc_encoder_write_map_header(e, 0));
        ok!(bc_encoder_write_struct_header(e, 0x44, 1));
        ok!(bc_encoder_write_int(e, 0));
        w_str(e, "0123456789abcdef");
        assert_eq!(
            encoded(e),
            hx(
                "C0 C3 C2 C1 80 00 00 00 00 00 00 00 CC 03 07 08 09 90 A0 B1 44 00
                D0 10 30 31 32 33 34 35 36 37 38 39 61 62 63 64 65 66"
            )
        );
        // The options: a UUID, a structure of 16 fields.
        ok!(bc_encoder_clear(e));
        ok!(bc_encoder_set_options(
            e,
            BC_OPT_UUID | BC_OPT_LEGACY_STRUCTS
        ));
        let u = hx("00112233445566778899AABBCCDDEEFF");
        ok!(bc_encoder_write_uuid(e, u.as_ptr()));
        ok!(bc_encoder_write_struct_header(e, 0x10, 16));
        for _ in 0..16 {
            ok!(bc_encoder_write_null(e));
        }
        let mut want = hx("E0 00112233445566778899AABBCCDDEEFF DC 10 10");
        want.extend([0xC0; 16]);
        assert_eq!(encoded(e), want);
        bc_encoder_free(e);
    }
}

/// `BC_ERR_NON_STRING_KEY`, `BC_ERR_INVALID_UTF8`, `BC_ERR_SIZE_TOO_LARGE`,
/// `BC_ERR_TOO_MANY_FIELDS`, `BC_ERR_UUID_NOT_ENABLED`, `BC_ERR_INVALID_STATE`,
/// `BC_ERR_INVALID_ARGUMENT`, `BC_ERR_OUT_OF_RANGE`: nothing is written on error.
#[test]
fn encoder_errors_write_nothing() {
    // SAFETY: an encoder created and freed here; the pointers passed are locals (the
    // over-long lengths are refused before the 1-byte buffers are read).
    unsafe {
        let e = encoder(0);
        let mut depth = 0usize;
        ok!(bc_encoder_write_map_header(e, 1));
        st!(bc_encoder_write_int(e, 1), BC_ERR_NON_STRING_KEY);
        st!(bc_encoder_write_list_header(e, 0), BC_ERR_NON_STRING_KEY);
        st!(bc_encoder_write_null(e), BC_ERR_NON_STRING_KEY);
        assert_eq!(encoded(e), [0xA1]);
        let bad = [b'o', b'k', 0xFF];
        st!(
            bc_encoder_write_string(e, bad.as_ptr().cast(), 3),
            BC_ERR_INVALID_UTF8
        );
        let (status, offset, message) = error_of(bc_encoder_last_error, e);
        assert_eq!((status, offset), (BC_ERR_INVALID_UTF8, 2));
        assert!(message.contains('2'), "{message}");
        w_str(e, "k");
        ok!(bc_encoder_depth(e, &mut depth));
        assert_eq!(depth, 1);
        st!(bc_encoder_begin_message(e), BC_ERR_INVALID_STATE); // value incomplete
        ok!(bc_encoder_write_list_header(e, 1));
        ok!(bc_encoder_depth(e, &mut depth));
        assert_eq!(depth, 2);
        ok!(bc_encoder_write_int(e, 5));
        ok!(bc_encoder_depth(e, &mut depth));
        assert_eq!(depth, 0);
        assert_eq!(encoded(e), hx("A1 81 6B 91 05"));
        st!(
            bc_encoder_write_list_header(e, 1 << 31),
            BC_ERR_SIZE_TOO_LARGE
        );
        st!(
            bc_encoder_write_map_header(e, usize::MAX),
            BC_ERR_SIZE_TOO_LARGE
        );
        st!(
            bc_encoder_write_struct_header(e, 0x10, 16),
            BC_ERR_TOO_MANY_FIELDS
        );
        let one = [0x61u8];
        st!(
            bc_encoder_write_string(e, one.as_ptr().cast(), 1 << 31),
            BC_ERR_SIZE_TOO_LARGE
        );
        st!(
            bc_encoder_write_bytes(e, one.as_ptr(), usize::MAX),
            BC_ERR_SIZE_TOO_LARGE
        );
        st!(
            bc_encoder_write_framed(e, one.as_ptr(), usize::MAX, 0),
            BC_ERR_INVALID_ARGUMENT
        );
        let u = [1u8; 16];
        st!(
            bc_encoder_write_uuid(e, u.as_ptr()),
            BC_ERR_UUID_NOT_ENABLED
        );
        st!(bc_encoder_set_options(e, 64), BC_ERR_INVALID_ARGUMENT);
        st!(
            bc_encoder_set_options(e, BC_OPT_COPY_INPUT),
            BC_ERR_INVALID_ARGUMENT
        );
        assert_eq!(encoded(e), hx("A1 81 6B 91 05"));
        ok!(bc_encoder_set_options(e, BC_OPT_LEGACY_STRUCTS));
        st!(
            bc_encoder_write_struct_header(e, 0x10, 65536),
            BC_ERR_TOO_MANY_FIELDS
        );
        // Consume: a prefix of the bytes, never more than there are.
        st!(bc_encoder_consume(e, 1000), BC_ERR_OUT_OF_RANGE);
        ok!(bc_encoder_consume(e, 3));
        assert_eq!(encoded(e), hx("91 05"));
        ok!(bc_encoder_consume(e, 2));
        assert!(encoded(e).is_empty());
        // Clear forgets the error and any open container.
        ok!(bc_encoder_write_list_header(e, 3));
        ok!(bc_encoder_clear(e));
        ok!(bc_encoder_depth(e, &mut depth));
        assert_eq!(depth, 0);
        assert_eq!(
            error_of(bc_encoder_last_error, e),
            (BC_OK, -1, String::new())
        );
        bc_encoder_free(e);
    }
}

#[test]
fn framing_in_place_write_framed_and_noop() {
    // SAFETY: an encoder created and freed here; inputs are locals.
    unsafe {
        let e = encoder(0);
        // In place: RESET.
        st!(bc_encoder_end_message(e, 0), BC_ERR_INVALID_STATE);
        ok!(bc_encoder_begin_message(e));
        st!(bc_encoder_begin_message(e), BC_ERR_INVALID_STATE);
        st!(bc_encoder_write_noop(e), BC_ERR_INVALID_STATE);
        st!(bc_encoder_consume(e, 0), BC_ERR_INVALID_STATE);
        ok!(bc_encoder_write_struct_header(e, 0x0F, 0));
        st!(bc_encoder_end_message(e, 70000), BC_ERR_INVALID_ARGUMENT);
        ok!(bc_encoder_end_message(e, 0));
        assert_eq!(encoded(e), hx("00 02 B0 0F 00 00"));
        // An empty message is dropped.
        ok!(bc_encoder_begin_message(e));
        st!(bc_encoder_end_message(e, 0), BC_ERR_EMPTY_MESSAGE);
        assert_eq!(encoded(e), hx("00 02 B0 0F 00 00"));
        // A container still open: nothing changes.
        ok!(bc_encoder_begin_message(e));
        ok!(bc_encoder_write_struct_header(e, 0x3F, 1));
        st!(bc_encoder_end_message(e, 0), BC_ERR_INVALID_STATE);
        // PULL {"n": -1} in chunks of at most 4 bytes.
        ok!(bc_encoder_write_map_header(e, 1));
        w_str(e, "n");
        ok!(bc_encoder_write_int(e, -1));
        ok!(bc_encoder_end_message(e, 4));
        assert_eq!(
            encoded(e),
            hx("00 02 B0 0F 00 00 00 04 B1 3F A1 81 00 02 6E FF 00 00")
        );
        ok!(bc_encoder_write_noop(e));
        // Framing finished bytes (from another buffer).
        let msg = [0xB0u8, 0x02];
        st!(
            bc_encoder_write_framed(e, msg.as_ptr(), 0, 0),
            BC_ERR_EMPTY_MESSAGE
        );
        st!(
            bc_encoder_write_framed(e, msg.as_ptr(), 2, 65536),
            BC_ERR_INVALID_ARGUMENT
        );
        ok!(bc_encoder_write_framed(e, msg.as_ptr(), 2, 1));
        assert_eq!(
            encoded(e),
            hx("00 02 B0 0F 00 00 00 04 B1 3F A1 81 00 02 6E FF 00 00 00 00
                00 01 B0 00 01 02 00 00")
        );
        ok!(bc_encoder_write_list_header(e, 1));
        st!(
            bc_encoder_write_framed(e, msg.as_ptr(), 2, 0),
            BC_ERR_INVALID_STATE
        );
        st!(bc_encoder_write_noop(e), BC_ERR_INVALID_STATE);
        bc_encoder_free(e);
    }
}

/// Every value type survives decode -> `bc_encoder_write_value` -> decode; a failed
/// write leaves the buffer as it was.
#[test]
fn write_value_of_a_decoded_tree() {
    // SAFETY: handles created and freed here; the decoded value is read while valid,
    // its input outlives it.
    unsafe {
        let d = decoder(BC_OPT_UUID);
        let e = encoder(BC_OPT_UUID);
        let input = hx(
            "B4 4E 94 C0 C3 C9 01 00 C1 3F F0 00 00 00 00 00 00 A2 81 61 CC 02 00 01
             81 62 E0 00112233445566778899AABBCCDDEEFF 93 90 A0 B0 7F 83 78 79 7A",
        );
        let v = decode(d, &input);
        ok!(bc_encoder_write_list_header(e, 1));
        ok!(bc_encoder_write_value(e, v));
        let mut want = vec![0x91];
        want.extend_from_slice(&input);
        assert_eq!(encoded(e), want);
        // A string value may be a key; another value may not (nothing written).
        ok!(bc_encoder_clear(e));
        ok!(bc_encoder_write_map_header(e, 1));
        st!(bc_encoder_write_value(e, v), BC_ERR_NON_STRING_KEY);
        ok!(bc_encoder_write_value(
            e,
            fill(|p| bc_value_struct_field(v, 3, p))
        ));
        ok!(bc_encoder_write_value(e, raw_child(v, 0)));
        assert_eq!(
            encoded(e),
            hx("A1 83 78 79 7A 94 C0 C3 C9 01 00 C1 3F F0 00 00 00 00 00 00")
        );
        // A UUID deep inside a value, without the option: the whole write is undone.
        ok!(bc_encoder_clear(e));
        ok!(bc_encoder_set_options(e, 0));
        ok!(bc_encoder_write_int(e, 1));
        st!(bc_encoder_write_value(e, v), BC_ERR_UUID_NOT_ENABLED);
        assert_eq!(encoded(e), [0x01]);
        // The source value is intact.
        assert_eq!(text_of(raw_child(v, 3)), "xyz");
        bc_encoder_free(e);
        bc_decoder_free(d);
    }
}

// ---------------------------------------------------------------------------------------
// Dechunker
// ---------------------------------------------------------------------------------------

/// RESET, a NOOP and PULL {"n": -1} in two chunks, fed in two pieces that split the
/// last message; zero-copy messages point into the fed buffer, copied ones into the
/// dechunker, and both stay readable across calls other than feed, reset, set_limits.
#[test]
fn dechunker_feeds_in_pieces_and_messages_stay_valid() {
    // SAFETY: handles created and freed here; `wire` outlives the zero-copy messages;
    // messages are read before the dechunker's next feed, reset or set_limits.
    unsafe {
        let d = fill(|p| bc_dechunker_new(p));
        let wire = hx("00 02 B0 0F 00 00 00 00 00 04 B1 3F A1 81 00 02 6E FF 00 00");
        let mut count = usize::MAX;
        ok!(bc_dechunker_feed(d, wire.as_ptr(), 9, &mut count));
        assert_eq!(count, 1);
        let m = fill(|p| bc_dechunker_message(d, 0, p));
        assert_eq!((m.len, m.data, m.copied), (2, wire.as_ptr().add(2), false));
        assert_eq!((m.stream_offset, m.chunk_count), (0, 1));
        let mut out = MaybeUninit::<bc_message>::uninit();
        st!(
            bc_dechunker_message(d, 1, out.as_mut_ptr()),
            BC_ERR_OUT_OF_RANGE
        );
        st!(bc_dechunker_end_of_stream(d), BC_ERR_TRUNCATED);
        let (status, offset, _) = error_of(bc_dechunker_last_error, d);
        assert_eq!((status, offset), (BC_ERR_TRUNCATED, 9));
        assert_eq!(bytes_at(m.data, m.len), [0xB0, 0x0F]);

        ok!(bc_dechunker_feed(
            d,
            wire.as_ptr().add(9),
            wire.len() - 9,
            &mut count
        ));
        assert_eq!(count, 1);
        let m = fill(|p| bc_dechunker_message(d, 0, p));
        assert!(m.copied, "it straddled two feeds");
        assert_eq!((m.len, m.chunk_count, m.stream_offset), (6, 2, 8));
        let noops: u64 = fill(|p| bc_dechunker_noop_count(d, p));
        assert_eq!(noops, 1);
        ok!(bc_dechunker_end_of_stream(d));
        let again = fill(|p| bc_dechunker_message(d, 0, p));
        assert_eq!(again.data, m.data);
        assert_eq!(bytes_at(m.data, m.len), hx("B1 3F A1 81 6E FF"));

        // One feed of everything; then decode its messages in one call, zero copy: the
        // values point into `wire` and into the dechunker's buffer.
        let w2 = hx("00 02 B0 0F 00 00 00 04 B1 3F A1 81 00 02 6E FF 00 00 00 00");
        ok!(bc_dechunker_feed(d, w2.as_ptr(), w2.len(), &mut count));
        assert_eq!(count, 2);
        let ms = [
            fill(|p| bc_dechunker_message(d, 0, p)),
            fill(|p| bc_dechunker_message(d, 1, p)),
        ];
        assert!(!ms[0].copied && ms[1].copied);
        let dec = decoder(0);
        let v = fill(|p| bc_decoder_decode_messages(dec, ms.as_ptr(), 2, p));
        let noops: u64 = fill(|p| bc_dechunker_noop_count(d, p));
        assert_eq!(noops, 2);
        ok!(bc_dechunker_end_of_stream(d));
        assert_eq!((*v).len, 2);
        assert_eq!(
            ((*raw_child(v, 0)).tag, (*raw_child(v, 1)).tag),
            (0x0F, 0x3F)
        );
        let pull_extra = raw_child(raw_child(v, 1), 0);
        assert_eq!(int_of(entry(pull_extra, "n")), -1);
        let mut k: *const c_char = null();
        let mut kl = 0usize;
        ok!(bc_value_map_entry(
            pull_extra,
            0,
            &mut k,
            &mut kl,
            null_mut()
        ));
        assert_eq!(bytes_at(k.cast(), kl), b"n");
        // The same with copied input, and errors naming the message.
        ok!(bc_decoder_set_options(dec, BC_OPT_COPY_INPUT));
        let v = fill(|p| bc_decoder_decode_messages(dec, ms.as_ptr(), 2, p));
        assert_eq!(int_of(entry(raw_child(raw_child(v, 1), 0), "n")), -1);
        let mut cut = ms;
        cut[1].len = 3; // B1 3F A1
        let mut v: *const bc_value = null();
        st!(
            bc_decoder_decode_messages(dec, cut.as_ptr(), 2, &mut v),
            BC_ERR_UNEXPECTED_END
        );
        let (_, offset, message) = error_of(bc_decoder_last_error, dec);
        assert_eq!(
            offset, 2,
            "the map header cut short, counted in its message"
        );
        assert!(message.contains("value 1"), "{message}");
        let v = fill(|p| bc_decoder_decode_messages(dec, null(), 0, p));
        assert_eq!(((*v).kind, (*v).len), (BC_TYPE_LIST, 0));
        bc_decoder_free(dec);
        bc_dechunker_free(d);
    }
}

#[test]
fn dechunker_byte_by_byte() {
    // SAFETY: a dechunker created and freed here; each message is read before the next
    // feed.
    unsafe {
        let d = fill(|p| bc_dechunker_new(p));
        let wire = hx("00 03 B1 70 A0 00 00 00 00 00 02 B1 71 00 01 90 00 00");
        let mut got = Vec::new();
        for (i, b) in wire.iter().enumerate() {
            let mut count = 0usize;
            ok!(bc_dechunker_feed(d, b, 1, &mut count));
            for k in 0..count {
                let m = fill(|p| bc_dechunker_message(d, k, p));
                got.push((i, bytes_at(m.data, m.len), m.copied, m.chunk_count));
            }
        }
        assert_eq!(
            got,
            [(6, hx("B1 70 A0"), true, 1), (17, hx("B1 71 90"), true, 2)]
        );
        assert_eq!(fill(|p| bc_dechunker_noop_count(d, p)), 1u64);
        ok!(bc_dechunker_end_of_stream(d));
        let mut count = 0usize;
        st!(
            bc_dechunker_feed(d, wire.as_ptr(), usize::MAX, &mut count),
            BC_ERR_INVALID_ARGUMENT
        );
        st!(
            bc_dechunker_feed(d, null(), 1, &mut count),
            BC_ERR_NULL_POINTER
        );
        ok!(bc_dechunker_feed(d, null(), 0, &mut count));
        assert_eq!(count, 0);
        bc_dechunker_free(d);
    }
}

#[test]
fn dechunker_limits_poison_and_reset() {
    // SAFETY: a dechunker created and freed here; `wire` outlives the messages.
    unsafe {
        let d = fill(|p| bc_dechunker_new(p));
        let wire = hx("00 02 B0 0F 00 00 00 00 00 04 B1 3F A1 81 00 02 6E FF 00 00");
        let mut count = usize::MAX;
        // A message above 4 bytes: the RESET before it is still delivered.
        ok!(bc_dechunker_set_limits(d, 4, 0));
        st!(
            bc_dechunker_feed(d, wire.as_ptr(), wire.len(), &mut count),
            BC_ERR_MESSAGE_TOO_LARGE
        );
        assert_eq!(count, 1);
        let m = fill(|p| bc_dechunker_message(d, 0, p));
        assert_eq!(bytes_at(m.data, m.len), [0xB0, 0x0F]);
        let (status, offset, message) = error_of(bc_dechunker_last_error, d);
        assert_eq!((status, offset), (BC_ERR_MESSAGE_TOO_LARGE, 14));
        assert!(!message.is_empty());
        // Poisoned until a reset.
        st!(
            bc_dechunker_feed(d, wire.as_ptr(), 6, &mut count),
            BC_ERR_MESSAGE_TOO_LARGE
        );
        st!(bc_dechunker_end_of_stream(d), BC_ERR_MESSAGE_TOO_LARGE);
        ok!(bc_dechunker_reset(d));
        assert_eq!(
            error_of(bc_dechunker_last_error, d),
            (BC_OK, -1, String::new())
        );
        ok!(bc_dechunker_feed(d, wire.as_ptr(), 6, &mut count));
        assert_eq!(count, 1);
        assert_eq!(fill(|p| bc_dechunker_noop_count(d, p)), 0u64);
        // A message of more than one chunk.
        ok!(bc_dechunker_set_limits(d, 0, 1));
        st!(
            bc_dechunker_feed(d, wire.as_ptr(), wire.len(), &mut count),
            BC_ERR_TOO_MANY_CHUNKS
        );
        assert_eq!(error_of(bc_dechunker_last_error, d).1, 14);
        // set_limits resets: the defaults take it all.
        ok!(bc_dechunker_set_limits(d, 0, 0));
        ok!(bc_dechunker_feed(d, wire.as_ptr(), wire.len(), &mut count));
        assert_eq!(count, 2);
        bc_dechunker_free(d);
    }
}

// ---------------------------------------------------------------------------------------
// Handshake
// ---------------------------------------------------------------------------------------

/// Client and server negotiate 6.1 over the manifest handshake; every byte crosses in
/// small pieces, and each step's `send` is read after another call on its handshake.
#[test]
fn manifest_handshake_fed_in_pieces() {
    // SAFETY: handshakes created and freed here; each step's `send` is read before its
    // handshake's next receive.
    unsafe {
        let c = fill(|p| bc_client_handshake_new(null(), 0, 0, p));
        let s = fill(|p| bc_server_handshake_new(null(), 0, 0, p));
        let hello: [u8; 20] = fill(|p: *mut [u8; 20]| bc_client_handshake_hello(c, p.cast()));
        assert_eq!(hello[..8], hx("60 60 B0 17 00 00 01 FF"));
        // The server takes the 20 bytes one at a time.
        for b in &hello[..19] {
            let step = fill(|p| bc_server_handshake_receive(s, b, 1, p));
            assert_eq!((step.kind, step.send_len), (BC_STEP_NEED_MORE, 0));
        }
        let step = fill(|p| bc_server_handshake_receive(s, &hello[19], 1, p));
        assert_eq!((step.kind, step.consumed), (BC_STEP_CONTINUE, 1));
        assert!(step.send_len > 4);
        assert_eq!(error_of(bc_server_handshake_last_error, s).0, BC_OK);
        let offer = bytes_at(step.send, step.send_len);
        assert_eq!(offer[..4], hx("00 00 01 FF"));
        // The client takes the offer in pieces of 3 bytes.
        let mut pick = Vec::new();
        for (i, piece) in offer.chunks(3).enumerate() {
            let step = fill(|p| bc_client_handshake_receive(c, piece.as_ptr(), piece.len(), p));
            if (i + 1) * 3 < offer.len() {
                assert_eq!((step.kind, step.send_len), (BC_STEP_NEED_MORE, 0));
                continue;
            }
            assert_eq!(step.kind, BC_STEP_NEGOTIATED);
            assert_eq!((step.version.major, step.version.minor), (6, 1));
            assert_eq!(step.consumed, piece.len());
            assert_eq!(error_of(bc_client_handshake_last_error, c).0, BC_OK);
            pick = bytes_at(step.send, step.send_len);
        }
        assert_eq!(pick[..4], hx("00 00 01 06"));
        // The server takes the pick one byte at a time.
        for (i, b) in pick.iter().enumerate() {
            let step = fill(|p| bc_server_handshake_receive(s, b, 1, p));
            let want = if i + 1 < pick.len() {
                BC_STEP_NEED_MORE
            } else {
                BC_STEP_NEGOTIATED
            };
            assert_eq!(step.kind, want);
            if want == BC_STEP_NEGOTIATED {
                assert_eq!((step.version.major, step.version.minor), (6, 1));
                assert_eq!((step.send_len, step.version.capabilities), (0, 0));
            }
        }
        // Finished: further bytes belong to the message stream.
        let mut step = MaybeUninit::<bc_handshake_step>::uninit();
        st!(
            bc_client_handshake_receive(c, pick.as_ptr(), 1, step.as_mut_ptr()),
            BC_ERR_INVALID_STATE
        );
        st!(
            bc_server_handshake_receive(s, pick.as_ptr(), 1, step.as_mut_ptr()),
            BC_ERR_INVALID_STATE
        );
        assert_eq!(
            error_of(bc_client_handshake_last_error, c).0,
            BC_ERR_INVALID_STATE
        );
        bc_client_handshake_free(c);
        bc_server_handshake_free(s);
    }
}

#[test]
fn legacy_handshake_and_rejection() {
    // SAFETY: handshakes created and freed here; each step's `send` is read before its
    // handshake's next receive.
    unsafe {
        let c = fill(|p| bc_client_handshake_new(null(), 0, BC_HANDSHAKE_LEGACY, p));
        let only44 = [V44];
        let s = fill(|p| bc_server_handshake_new(only44.as_ptr(), 1, BC_HANDSHAKE_LEGACY, p));
        let hello: [u8; 20] = fill(|p: *mut [u8; 20]| bc_client_handshake_hello(c, p.cast()));
        assert_eq!(hello[4..8], hx("00 01 01 06"), "6.1-6.0 first, no manifest");
        let step = fill(|p| bc_server_handshake_receive(s, hello.as_ptr(), 20, p));
        assert_eq!(
            (step.kind, step.consumed, step.send_len),
            (BC_STEP_NEGOTIATED, 20, 4)
        );
        assert_eq!((step.version.major, step.version.minor), (4, 4));
        let reply = bytes_at(step.send, 4);
        assert_eq!(reply, hx("00 00 04 04"));
        // The reply and the first message bytes in one read.
        let mut more = reply.clone();
        more.extend([0x00, 0x00]);
        let step = fill(|p| bc_client_handshake_receive(c, more.as_ptr(), more.len(), p));
        assert_eq!(
            (step.kind, step.consumed, step.send_len),
            (BC_STEP_NEGOTIATED, 4, 0)
        );
        assert_eq!(step.version.minor, 4);
        bc_client_handshake_free(c);
        bc_server_handshake_free(s);

        // Nothing in common: a server that only knows 3.0.
        let c = fill(|p| bc_client_handshake_new(null(), 0, 0, p));
        let only30 = [ver(3, 0)];
        let s = fill(|p| bc_server_handshake_new(only30.as_ptr(), 1, BC_HANDSHAKE_LEGACY, p));
        let hello: [u8; 20] = fill(|p: *mut [u8; 20]| bc_client_handshake_hello(c, p.cast()));
        let step = fill(|p| bc_server_handshake_receive(s, hello.as_ptr(), 20, p));
        assert_eq!((step.kind, step.send_len), (BC_STEP_REJECTED, 4));
        let reply = bytes_at(step.send, 4);
        assert_eq!(reply, [0; 4]);
        let step = fill(|p| bc_client_handshake_receive(c, reply.as_ptr(), 4, p));
        assert_eq!(step.kind, BC_STEP_REJECTED);
        bc_client_handshake_free(c);
        bc_server_handshake_free(s);
    }
}

#[test]
fn handshake_errors() {
    // SAFETY: handshakes created and freed here; error messages are read before the
    // next failing call.
    unsafe {
        let mut step = MaybeUninit::<bc_handshake_step>::uninit();
        // An HTTP server; then poisoned.
        let c = fill(|p| bc_client_handshake_new(null(), 0, 0, p));
        let http = b"HTTP/1.1 400";
        st!(
            bc_client_handshake_receive(c, http.as_ptr(), http.len(), step.as_mut_ptr()),
            BC_ERR_HANDSHAKE
        );
        let err = fill(|p| bc_client_handshake_last_error(c, p));
        assert_eq!((err.status, err.offset), (BC_ERR_HANDSHAKE, 0));
        // The message is valid until the next failing call: read it before that.
        assert!(
            c_text(err.message).contains("HTTP"),
            "{}",
            c_text(err.message)
        );
        let reply = hx("00 00 04 04");
        st!(
            bc_client_handshake_receive(c, reply.as_ptr(), 4, step.as_mut_ptr()),
            BC_ERR_HANDSHAKE
        );
        assert_eq!(
            error_of(bc_client_handshake_last_error, c).0,
            BC_ERR_HANDSHAKE
        );
        bc_client_handshake_free(c);
        // A version the client does not accept (it proposes 5.8 alone).
        let only58 = [V58];
        let c = fill(|p| bc_client_handshake_new(only58.as_ptr(), 1, BC_HANDSHAKE_LEGACY, p));
        let hello: [u8; 20] = fill(|p: *mut [u8; 20]| bc_client_handshake_hello(c, p.cast()));
        assert_eq!(hello[..4], hx("60 60 B0 17"));
        assert_eq!(hello[4..], hx("00 00 08 05 00000000 00000000 00000000"));
        st!(
            bc_client_handshake_receive(c, reply.as_ptr(), 4, step.as_mut_ptr()),
            BC_ERR_HANDSHAKE
        );
        assert_eq!(error_of(bc_client_handshake_last_error, c).1, 0);
        bc_client_handshake_free(c);
        // Bad magic at the server.
        let s = fill(|p| bc_server_handshake_new(null(), 0, 0, p));
        let magic = hx("60 60 B0 18");
        st!(
            bc_server_handshake_receive(s, magic.as_ptr(), 4, step.as_mut_ptr()),
            BC_ERR_HANDSHAKE
        );
        let (status, offset, _) = error_of(bc_server_handshake_last_error, s);
        assert_eq!((status, offset), (BC_ERR_HANDSHAKE, 3));
        bc_server_handshake_free(s);
        // Unknown flags and versions; NULL lists with a length.
        let v55 = [ver(5, 5)];
        let mut c: *mut bc_client_handshake = null_mut();
        let mut s: *mut bc_server_handshake = null_mut();
        st!(
            bc_client_handshake_new(null(), 0, 2, &mut c),
            BC_ERR_INVALID_ARGUMENT
        );
        st!(
            bc_client_handshake_new(v55.as_ptr(), 1, 0, &mut c),
            BC_ERR_UNKNOWN_VERSION
        );
        st!(
            bc_server_handshake_new(v55.as_ptr(), 1, 0, &mut s),
            BC_ERR_UNKNOWN_VERSION
        );
        // A list pointer with no entries is an empty list, not the defaults.
        st!(
            bc_client_handshake_new(v55.as_ptr(), 0, 0, &mut c),
            BC_ERR_NO_VERSIONS
        );
        st!(
            bc_server_handshake_new(v55.as_ptr(), 0, BC_HANDSHAKE_LEGACY, &mut s),
            BC_ERR_NO_VERSIONS
        );
        st!(
            bc_server_handshake_new(null(), 0, 4, &mut s),
            BC_ERR_INVALID_ARGUMENT
        );
        st!(
            bc_client_handshake_new(null(), 1, 0, &mut c),
            BC_ERR_NULL_POINTER
        );
        assert!(c.is_null() && s.is_null(), "nothing created on error");
    }
}

// ---------------------------------------------------------------------------------------
// Typed views of Bolt structures
// ---------------------------------------------------------------------------------------

/// Node and Relationship views; their pointers (labels, properties, element ids, type
/// names) stay readable across further calls on the value.
#[test]
fn node_and_relationship_views() {
    // SAFETY: handles created and freed here; views are read while the value they were
    // made from is valid (the decoder copies its input).
    unsafe {
        let d = decoder(BC_OPT_COPY_INPUT);
        let e = encoder(0);
        // Node 5.x: (id, labels, properties, element_id)
        ok!(bc_encoder_write_struct_header(e, 0x4E, 4));
        ok!(bc_encoder_write_int(e, 42));
        ok!(bc_encoder_write_list_header(e, 1));
        w_str(e, "Person");
        ok!(bc_encoder_write_map_header(e, 1));
        w_str(e, "name");
        w_str(e, "Alice");
        w_str(e, "4:db:42");
        let v = decode_encoded(d, e);
        ok!(bc_encoder_clear(e));
        let node = fill(|p| bc_value_as_node(v, V58, p));
        let kind: bc_struct_kind = fill(|p| bc_value_struct_kind(v, V58, p));
        assert_eq!(kind, BC_STRUCT_NODE);
        let mut why = [0 as c_char; 128];
        let mut needed = 0usize;
        // The same 4 fields are one too many for Bolt 4.4: broken there.
        let mut other = MaybeUninit::<bc_node>::uninit();
        st!(
            bc_value_as_node(v, V44, other.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        assert_eq!(fill(|p| bc_value_struct_kind(v, V44, p)), BC_STRUCT_BROKEN);
        ok!(bc_value_broken_reason(
            v,
            V44,
            why.as_mut_ptr(),
            why.len(),
            &mut needed
        ));
        assert!(
            c_text(why.as_ptr()).contains("field"),
            "{}",
            c_text(why.as_ptr())
        );
        assert_eq!(needed, c_text(why.as_ptr()).len() + 1);
        st!(
            bc_value_broken_reason(v, V44, why.as_mut_ptr(), 3, &mut needed),
            BC_ERR_BUFFER_TOO_SMALL
        );
        st!(
            bc_value_broken_reason(v, V58, why.as_mut_ptr(), why.len(), null_mut()),
            BC_ERR_WRONG_TYPE
        );
        // The first view's pointers after all that.
        assert_eq!(node.id, 42);
        assert_eq!(((*node.labels).kind, (*node.labels).len), (BC_TYPE_LIST, 1));
        assert_eq!(text_of(item(node.labels, 0)), "Person");
        assert_eq!(text_of(entry(node.properties, "name")), "Alice");
        assert_eq!(view_text(node.element_id), "4:db:42");
        // Another kind, not a structure, an unknown version.
        let mut rel = MaybeUninit::<bc_relationship>::uninit();
        st!(
            bc_value_as_relationship(v, V58, rel.as_mut_ptr()),
            BC_ERR_WRONG_TYPE
        );
        st!(
            bc_value_as_node(node.labels, V58, other.as_mut_ptr()),
            BC_ERR_WRONG_TYPE
        );
        st!(
            bc_value_as_node(v, ver(7, 0), other.as_mut_ptr()),
            BC_ERR_UNKNOWN_VERSION
        );
        let mut k = 0u8;
        st!(
            bc_value_struct_kind(node.labels, V58, &mut k),
            BC_ERR_WRONG_TYPE
        );
        st!(
            bc_value_broken_reason(node.labels, V58, why.as_mut_ptr(), why.len(), null_mut()),
            BC_ERR_WRONG_TYPE
        );

        // Relationship 5.x
        ok!(bc_encoder_write_struct_header(e, 0x52, 8));
        for i in [11, 2, 3] {
            ok!(bc_encoder_write_int(e, i));
        }
        w_str(e, "KNOWS");
        ok!(bc_encoder_write_map_header(e, 1));
        w_str(e, "since");
        ok!(bc_encoder_write_int(e, 1999));
        for s in ["r11", "n2", "n3"] {
            w_str(e, s);
        }
        let v = decode_encoded(d, e);
        let rel = fill(|p| bc_value_as_relationship(v, V58, p));
        assert_eq!((rel.id, rel.start_node_id, rel.end_node_id), (11, 2, 3));
        assert_eq!(view_text(rel.type_name), "KNOWS");
        assert_eq!(int_of(entry(rel.properties, "since")), 1999);
        let ids = (
            view_text(rel.element_id),
            view_text(rel.start_node_element_id),
        );
        assert_eq!(ids, ("r11".to_owned(), "n2".to_owned()));
        assert_eq!(view_text(rel.end_node_element_id), "n3");
        assert_eq!(
            fill(|p| bc_value_struct_kind(v, V58, p)),
            BC_STRUCT_RELATIONSHIP
        );
        // Its 4.4 form (5 fields) has no element ids.
        ok!(bc_encoder_clear(e));
        ok!(bc_encoder_write_struct_header(e, 0x52, 5));
        for i in [11, 2, 3] {
            ok!(bc_encoder_write_int(e, i));
        }
        w_str(e, "KNOWS");
        ok!(bc_encoder_write_map_header(e, 0));
        let v = decode_encoded(d, e);
        let rel = fill(|p| bc_value_as_relationship(v, V44, p));
        assert!(rel.element_id.ptr.is_null() && rel.end_node_element_id.ptr.is_null());
        assert_eq!(view_text(rel.type_name), "KNOWS");
        bc_encoder_free(e);
        bc_decoder_free(d);
    }
}

/// Path 4.4: nodes (1), (2), (3); relationships r1, r2; indices 1, 1, -2, 2:
/// (1)-[r1]->(2)<-[r2]-(3).
#[test]
fn path_view_and_segments() {
    // SAFETY: handles created and freed here; views and segments are read while the
    // path value is valid.
    unsafe {
        let d = decoder(BC_OPT_COPY_INPUT);
        let e = encoder(0);
        ok!(bc_encoder_write_struct_header(e, 0x50, 3));
        ok!(bc_encoder_write_list_header(e, 3));
        for i in 1..=3 {
            ok!(bc_encoder_write_struct_header(e, 0x4E, 3));
            ok!(bc_encoder_write_int(e, i));
            ok!(bc_encoder_write_list_header(e, 0));
            ok!(bc_encoder_write_map_header(e, 0));
        }
        ok!(bc_encoder_write_list_header(e, 2));
        for (i, t) in [(101, "A"), (102, "B")] {
            ok!(bc_encoder_write_struct_header(e, 0x72, 3));
            ok!(bc_encoder_write_int(e, i));
            w_str(e, t);
            ok!(bc_encoder_write_map_header(e, 0));
        }
        ok!(bc_encoder_write_list_header(e, 4));
        for i in [1, 1, -2, 2] {
            ok!(bc_encoder_write_int(e, i));
        }
        let v = decode_encoded(d, e);
        bc_encoder_free(e);
        let path = fill(|p| bc_value_as_path(v, V44, p));
        assert_eq!(path.length, 2);
        let segs: Vec<bc_path_segment> = (0..2)
            .map(|i| fill(|p| bc_path_get_segment(v, V44, i, p)))
            .collect();
        let mut seg = MaybeUninit::<bc_path_segment>::uninit();
        st!(
            bc_path_get_segment(v, V44, 2, seg.as_mut_ptr()),
            BC_ERR_OUT_OF_RANGE
        );
        st!(
            bc_path_get_segment(v, ver(5, 5), 0, seg.as_mut_ptr()),
            BC_ERR_UNKNOWN_VERSION
        );
        assert_eq!(
            (
                (*path.nodes).len,
                (*path.relationships).len,
                (*path.indices).len
            ),
            (3, 2, 4)
        );
        assert_eq!(int_of(item(path.indices, 2)), -2);
        let ends = |s: &bc_path_segment| {
            let start = fill(|p| bc_value_as_node(s.start, V44, p));
            let end = fill(|p| bc_value_as_node(s.end, V44, p));
            let rel = fill(|p| bc_value_as_unbound_relationship(s.relationship, V44, p));
            (
                start.id,
                rel.id,
                view_text(rel.type_name),
                end.id,
                s.reversed,
            )
        };
        assert_eq!(ends(&segs[0]), (1, 101, "A".to_owned(), 2, false));
        assert_eq!(ends(&segs[1]), (2, 102, "B".to_owned(), 3, true));
        // The segments' values are the path's own nodes.
        assert_eq!(segs[1].start, item(path.nodes, 1));
        assert_eq!(segs[1].relationship, item(path.relationships, 1));
        let start = fill(|p| bc_value_as_node(segs[0].start, V44, p));
        assert!(start.element_id.ptr.is_null(), "no element ids before 5.0");
        let ur = fill(|p| bc_value_as_unbound_relationship(segs[0].relationship, V44, p));
        assert_eq!(
            ((*ur.properties).kind, (*ur.properties).len),
            (BC_TYPE_MAP, 0)
        );
        // Indices that do not fit the lists: broken.
        let input = hx("B3 50 91 B3 4E 01 90 A0 90 92 01 01");
        let v = decode(d, &input);
        let mut bad = MaybeUninit::<bc_path>::uninit();
        st!(
            bc_value_as_path(v, V44, bad.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        st!(
            bc_path_get_segment(v, V44, 0, seg.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        bc_decoder_free(d);
    }
}

/// Writes a structure of integer fields (a string for `Some(s)` after them).
///
/// # Safety
/// `e` is a live encoder.
unsafe fn write_struct(e: *mut bc_encoder, tag: u8, ints: &[i64], s: Option<&str>) {
    ok!(bc_encoder_clear(e));
    ok!(bc_encoder_write_struct_header(
        e,
        tag,
        ints.len() + usize::from(s.is_some())
    ));
    for &i in ints {
        ok!(bc_encoder_write_int(e, i));
    }
    if let Some(s) = s {
        w_str(e, s);
    }
}

#[test]
fn temporal_views() {
    // SAFETY: handles created and freed here; each view is read before the decoder's
    // next decode.
    unsafe {
        let d = decoder(BC_OPT_COPY_INPUT);
        let e = encoder(0);
        let temporal = |v: bc_version| fill(|p| bc_value_as_temporal(decode_encoded(d, e), v, p));
        // Date 1990-05-17
        write_struct(e, 0x44, &[7441], None);
        let t = temporal(V58);
        assert_eq!(
            (t.kind, t.days, t.year, t.month, t.day),
            (BC_STRUCT_DATE, 7441, 1990, 5, 17)
        );
        // DateTime (UTC seconds) 2024-02-29T12:34:56.5+01:00
        write_struct(e, 0x49, &[1_709_210_096 - 3600, 500_000_000, 3600], None);
        let t = temporal(V58);
        assert_eq!(
            (t.kind, t.has_tz_offset, t.tz_offset_seconds),
            (BC_STRUCT_DATE_TIME, true, 3600)
        );
        assert_eq!(
            (t.year, t.month, t.day, t.hour, t.minute, t.second),
            (2024, 2, 29, 12, 34, 56)
        );
        assert_eq!(t.nanosecond, 500_000_000);
        // Not in 4.4 without the utc patch; with it, it is.
        let v = decode_encoded(d, e);
        let mut out = MaybeUninit::<bc_temporal>::uninit();
        st!(
            bc_value_as_temporal(v, V44, out.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        let utc = bc_version {
            utc_patch: 1,
            ..V44
        };
        assert_eq!(
            fill(|p| bc_value_as_temporal(v, utc, p)).kind,
            BC_STRUCT_DATE_TIME
        );
        // DateTimeZoneId: the zone id points into the value.
        write_struct(e, 0x69, &[0, 0], Some("Europe/Stockholm"));
        let v = decode_encoded(d, e);
        let t = fill(|p| bc_value_as_temporal(v, V58, p));
        assert_eq!(
            (t.kind, t.has_tz_offset, t.year),
            (BC_STRUCT_DATE_TIME_ZONE_ID, false, 1970)
        );
        assert_eq!(
            fill(|p| bc_value_struct_kind(v, V58, p)),
            BC_STRUCT_DATE_TIME_ZONE_ID
        );
        assert_eq!(view_text(t.tz_id), "Europe/Stockholm");
        assert_eq!(t.tz_id.ptr, (*raw_child(v, 2)).data.s);
        // LocalTime 12:34:56.789, Time 01:00-08:30
        write_struct(e, 0x74, &[45_296_789_000_000], None);
        let t = temporal(V58);
        assert_eq!(
            (t.kind, t.hour, t.minute, t.second),
            (BC_STRUCT_LOCAL_TIME, 12, 34, 56)
        );
        assert_eq!(
            (t.nanosecond, t.nanoseconds),
            (789_000_000, 45_296_789_000_000)
        );
        write_struct(e, 0x54, &[3_600_000_000_000, -30600], None);
        let t = temporal(V58);
        assert_eq!(
            (t.kind, t.hour, t.tz_offset_seconds),
            (BC_STRUCT_TIME, 1, -30600)
        );
        // Duration P1Y2M3DT4H5M6.789S
        write_struct(e, 0x45, &[14, 3, 14706, 789_000_000], None);
        let v = decode_encoded(d, e);
        let t = fill(|p| bc_value_as_temporal(v, V58, p));
        assert_eq!(
            (t.kind, t.months, t.days, t.seconds),
            (BC_STRUCT_DURATION, 14, 3, 14706)
        );
        let mut text = [0 as c_char; 64];
        ok!(bc_value_format(
            v,
            &V58,
            text.as_mut_ptr(),
            text.len(),
            null_mut()
        ));
        assert_eq!(c_text(text.as_ptr()), "duration(\"P1Y2M3DT4H5M6.789S\")");
        // LocalDateTime 1900-01-01
        write_struct(e, 0x64, &[-2_208_988_800, 0], None);
        let t = temporal(V58);
        assert_eq!(
            (t.kind, t.year, t.month, t.day),
            (BC_STRUCT_LOCAL_DATE_TIME, 1900, 1, 1)
        );
        // Legacy DateTime on 4.4 (local seconds), broken on 5.0.
        write_struct(e, 0x46, &[8100, 42, 3600], None);
        let t = temporal(V44);
        assert_eq!(
            (t.kind, t.hour, t.minute, t.nanosecond),
            (BC_STRUCT_LEGACY_DATE_TIME, 2, 15, 42)
        );
        let v = decode_encoded(d, e);
        st!(
            bc_value_as_temporal(v, V50, out.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        let mut point = MaybeUninit::<bc_point>::uninit();
        st!(
            bc_value_as_point(v, V44, point.as_mut_ptr()),
            BC_ERR_WRONG_TYPE
        );
        // Legacy DateTimeZoneId on 4.4.
        write_struct(e, 0x66, &[86400, 0], Some("UTC"));
        let v = decode_encoded(d, e);
        let t = fill(|p| bc_value_as_temporal(v, V44, p));
        assert_eq!(
            (t.kind, t.year, t.month, t.day),
            (BC_STRUCT_LEGACY_DATE_TIME_ZONE_ID, 1970, 1, 2)
        );
        assert_eq!(view_text(t.tz_id), "UTC");
        // A Date with a string where its day count belongs: broken.
        write_struct(e, 0x44, &[], Some("x"));
        let v = decode_encoded(d, e);
        st!(
            bc_value_as_temporal(v, V58, out.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        bc_encoder_free(e);
        bc_decoder_free(d);
    }
}

#[test]
fn point_views() {
    // SAFETY: handles created and freed here; each view is read while its value is
    // valid.
    unsafe {
        let d = decoder(BC_OPT_COPY_INPUT);
        let e = encoder(0);
        ok!(bc_encoder_write_struct_header(e, 0x59, 4));
        ok!(bc_encoder_write_int(e, 4979));
        for f in [-122.5, 37.75, 15.5] {
            ok!(bc_encoder_write_float(e, f));
        }
        let v = decode_encoded(d, e);
        let p = fill(|out| bc_value_as_point(v, V58, out));
        assert_eq!(
            (p.srid, p.x, p.y, p.z, p.has_z),
            (4979, -122.5, 37.75, 15.5, true)
        );
        assert_eq!(
            fill(|out| bc_value_struct_kind(v, V58, out)),
            BC_STRUCT_POINT_3D
        );
        ok!(bc_encoder_clear(e));
        ok!(bc_encoder_write_struct_header(e, 0x58, 3));
        ok!(bc_encoder_write_int(e, 7203));
        ok!(bc_encoder_write_float(e, 1.0));
        ok!(bc_encoder_write_float(e, 2.0));
        let v = decode_encoded(d, e);
        let p = fill(|out| bc_value_as_point(v, V44, out));
        assert_eq!(
            (p.srid, p.x, p.y, p.z, p.has_z),
            (7203, 1.0, 2.0, 0.0, false)
        );
        let mut t = MaybeUninit::<bc_temporal>::uninit();
        st!(
            bc_value_as_temporal(v, V58, t.as_mut_ptr()),
            BC_ERR_WRONG_TYPE
        );
        // An integer coordinate: broken.
        let input = hx("B3 58 C9 1C 23 01 02");
        let v = decode(d, &input);
        let mut p = MaybeUninit::<bc_point>::uninit();
        st!(
            bc_value_as_point(v, V58, p.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        bc_encoder_free(e);
        bc_decoder_free(d);
    }
}

/// Writes Vector(`marker`, `data`).
///
/// # Safety
/// `e` is a live encoder.
unsafe fn write_vector(e: *mut bc_encoder, marker: u8, data: &[u8]) {
    ok!(bc_encoder_clear(e));
    ok!(bc_encoder_write_struct_header(e, 0x56, 2));
    ok!(bc_encoder_write_bytes(e, &marker, 1));
    ok!(bc_encoder_write_bytes(e, data.as_ptr(), data.len()));
}

#[test]
fn vector_views_of_every_element_type() {
    // SAFETY: handles created and freed here; each view is read while its value is
    // valid; the forged views point at live memory.
    unsafe {
        let d = decoder(BC_OPT_COPY_INPUT);
        let e = encoder(0);
        let (mut i, mut f) = (0i64, 0f64);
        let ints: [(u8, bc_vector_type, &str, [i64; 2]); 4] = [
            (0xC8, BC_VECTOR_I8, "7F 80", [127, -128]),
            (0xC9, BC_VECTOR_I16, "00 01 FF FE", [1, -2]),
            (
                0xCA,
                BC_VECTOR_I32,
                "80 00 00 00 00 01 00 00",
                [i64::from(i32::MIN), 65536],
            ),
            (
                0xCB,
                BC_VECTOR_I64,
                "7F FF FF FF FF FF FF FF 00 00 00 00 00 00 00 03",
                [i64::MAX, 3],
            ),
        ];
        for (marker, ty, hex, want) in ints {
            let data = hx(hex);
            write_vector(e, marker, &data);
            let v = decode_encoded(d, e);
            let vec = fill(|p| bc_value_as_vector(v, V60, p));
            assert_eq!(
                (vec.element_type, vec.len, vec.data_len),
                (ty, 2, data.len())
            );
            assert_eq!(bytes_at(vec.data, vec.data_len), data);
            assert_eq!(
                vec.data,
                (*raw_child(v, 1)).data.bytes,
                "the value's own bytes"
            );
            for (k, w) in want.iter().enumerate() {
                ok!(bc_vector_get_int(&vec, k, &mut i));
                assert_eq!(i, *w);
            }
            st!(bc_vector_get_int(&vec, 2, &mut i), BC_ERR_OUT_OF_RANGE);
            st!(bc_vector_get_float(&vec, 0, &mut f), BC_ERR_WRONG_TYPE);
            assert_eq!(fill(|p| bc_value_struct_kind(v, V60, p)), BC_STRUCT_VECTOR);
        }
        for (marker, ty, hex, want) in [
            (0xC6, BC_VECTOR_F32, "3F C0 00 00", 1.5),
            (0xC1, BC_VECTOR_F64, "BF D0 00 00 00 00 00 00", -0.25),
        ] {
            write_vector(e, marker, &hx(hex));
            let v = decode_encoded(d, e);
            let vec = fill(|p| bc_value_as_vector(v, V60, p));
            assert_eq!((vec.element_type, vec.len), (ty, 1));
            ok!(bc_vector_get_float(&vec, 0, &mut f));
            assert_eq!(f, want);
            st!(bc_vector_get_float(&vec, 1, &mut f), BC_ERR_OUT_OF_RANGE);
            st!(bc_vector_get_int(&vec, 0, &mut i), BC_ERR_WRONG_TYPE);
        }
        // Forged views are refused, not read.
        let vec = fill(|p| bc_value_as_vector(decode_encoded(d, e), V60, p));
        let forged = bc_vector {
            element_type: 99,
            ..vec
        };
        st!(
            bc_vector_get_float(&forged, 0, &mut f),
            BC_ERR_INVALID_ARGUMENT
        );
        let forged = bc_vector { len: 2, ..vec };
        st!(
            bc_vector_get_float(&forged, 1, &mut f),
            BC_ERR_INVALID_ARGUMENT
        );
        // Vector is 6.0+; an unknown element type or a ragged length is broken.
        let v = decode_encoded(d, e);
        let mut out = MaybeUninit::<bc_vector>::uninit();
        st!(
            bc_value_as_vector(v, V58, out.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        write_vector(e, 0x01, &[0, 1, 2, 3]);
        st!(
            bc_value_as_vector(decode_encoded(d, e), V60, out.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        write_vector(e, 0xC9, &[0, 1, 2]);
        st!(
            bc_value_as_vector(decode_encoded(d, e), V60, out.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        bc_encoder_free(e);
        bc_decoder_free(d);
    }
}

#[test]
fn unsupported_view_and_unknown_structures() {
    // SAFETY: handles created and freed here; each view is read while its value is
    // valid.
    unsafe {
        let d = decoder(BC_OPT_COPY_INPUT);
        let e = encoder(0);
        // UnsupportedType("UUID", 6, 1, {message: "needs Bolt 6.1"})
        ok!(bc_encoder_write_struct_header(e, 0x3F, 4));
        w_str(e, "UUID");
        ok!(bc_encoder_write_int(e, 6));
        ok!(bc_encoder_write_int(e, 1));
        ok!(bc_encoder_write_map_header(e, 1));
        w_str(e, "message");
        w_str(e, "needs Bolt 6.1");
        let v = decode_encoded(d, e);
        let u = fill(|p| bc_value_as_unsupported(v, V60, p));
        assert_eq!(
            fill(|p| bc_value_struct_kind(v, V60, p)),
            BC_STRUCT_UNSUPPORTED
        );
        assert_eq!(view_text(u.name), "UUID");
        assert_eq!((u.minimum_version.major, u.minimum_version.minor), (6, 1));
        assert_eq!(view_text(u.message), "needs Bolt 6.1");
        assert_eq!(u.extra, raw_child(v, 3));
        assert_eq!(text_of(entry(u.extra, "message")), "needs Bolt 6.1");
        let mut out = MaybeUninit::<bc_unsupported>::uninit();
        st!(
            bc_value_as_unsupported(v, V58, out.as_mut_ptr()),
            BC_ERR_BROKEN_STRUCT
        );
        // Without a message entry.
        let input = hx("B4 3F 84 55 55 49 44 06 01 A0");
        let v = decode(d, &input);
        let u = fill(|p| bc_value_as_unsupported(v, V60, p));
        assert!(u.message.ptr.is_null());
        // An unknown tag is broken and no kind; a non-structure is the wrong type.
        write_struct(e, 0x5A, &[], None);
        let v = decode_encoded(d, e);
        assert_eq!(fill(|p| bc_value_struct_kind(v, V60, p)), BC_STRUCT_BROKEN);
        let mut why = [0 as c_char; 64];
        ok!(bc_value_broken_reason(
            v,
            V60,
            why.as_mut_ptr(),
            why.len(),
            null_mut()
        ));
        assert!(!c_text(why.as_ptr()).is_empty());
        let mut node = MaybeUninit::<bc_node>::uninit();
        st!(
            bc_value_as_node(v, V60, node.as_mut_ptr()),
            BC_ERR_WRONG_TYPE
        );
        st!(
            bc_value_as_unsupported(v, V60, out.as_mut_ptr()),
            BC_ERR_WRONG_TYPE
        );
        let v = decode(d, &[0x01]);
        let mut kind = 0u8;
        st!(bc_value_struct_kind(v, V60, &mut kind), BC_ERR_WRONG_TYPE);
        let mut vec = MaybeUninit::<bc_vector>::uninit();
        st!(
            bc_value_as_vector(v, V60, vec.as_mut_ptr()),
            BC_ERR_WRONG_TYPE
        );
        bc_encoder_free(e);
        bc_decoder_free(d);
    }
}

// ---------------------------------------------------------------------------------------
// Connection
// ---------------------------------------------------------------------------------------

/// A scripted server around a client connection, made of the library's own server
/// handshake, dechunker, decoder and encoder (as the C tests' rig).
struct Rig {
    c: *mut bc_connection,
    hs: *mut bc_server_handshake,
    dch: *mut bc_dechunker,
    dec: *mut bc_decoder,
    out: *mut bc_encoder,
    negotiated: bool,
    /// The requests the server received, as message bytes, in order.
    requests: Vec<Vec<u8>>,
}

impl Rig {
    /// A connection (`config` NULL: the defaults) and a server accepting `only` (empty:
    /// every version, passed as NULL; a non-NULL list of 0 versions is refused).
    ///
    /// # Safety
    /// `config` is NULL or readable.
    unsafe fn open(config: *const bc_connection_config, only: &[bc_version]) -> Rig {
        let list = if only.is_empty() {
            null()
        } else {
            only.as_ptr()
        };
        Rig {
            c: fill(|p| bc_connection_new(config, p)),
            hs: fill(|p| bc_server_handshake_new(list, only.len(), 0, p)),
            dch: fill(|p| bc_dechunker_new(p)),
            dec: decoder(BC_OPT_UUID),
            out: encoder(0),
            negotiated: false,
            requests: Vec::new(),
        }
    }

    /// The server side receives `data` from the client: handshake first (its replies go
    /// to the client in pieces of 2 bytes), then messages.
    ///
    /// # Safety
    /// The rig's handles are live.
    unsafe fn server_receive(&mut self, mut data: &[u8]) {
        if !self.negotiated {
            let step = fill(|p| bc_server_handshake_receive(self.hs, data.as_ptr(), data.len(), p));
            let reply = bytes_at(step.send, step.send_len);
            for piece in reply.chunks(2) {
                ok!(bc_connection_receive(self.c, piece.as_ptr(), piece.len()));
            }
            match step.kind {
                BC_STEP_NEGOTIATED => {
                    self.negotiated = true;
                    data = &data[step.consumed..];
                }
                BC_STEP_CONTINUE => {
                    assert_eq!(step.consumed, data.len());
                    return;
                }
                kind => {
                    assert_eq!(kind, BC_STEP_NEED_MORE);
                    return;
                }
            }
        }
        let mut count = 0usize;
        ok!(bc_dechunker_feed(
            self.dch,
            data.as_ptr(),
            data.len(),
            &mut count
        ));
        for i in 0..count {
            let m = fill(|p| bc_dechunker_message(self.dch, i, p));
            let v = fill(|p| bc_decoder_decode(self.dec, m.data, m.len, p));
            assert_eq!((*v).kind, BC_TYPE_STRUCT);
            self.requests.push(bytes_at(m.data, m.len));
        }
    }

    /// Moves the client's output to the server as a socket would: writes of at most
    /// `piece` bytes, each followed by `bc_connection_consume_output`. Returns the
    /// number of bytes moved.
    ///
    /// # Safety
    /// The rig's handles are live.
    unsafe fn pump(&mut self, piece: usize) -> usize {
        let mut moved = 0;
        loop {
            let mut p: *const u8 = null();
            let mut n = usize::MAX;
            ok!(bc_connection_output(self.c, &mut p, &mut n));
            if n == 0 {
                return moved;
            }
            // Calls that do not change the output leave the pointer valid.
            let mut pending = 0usize;
            ok!(bc_connection_pending_requests(self.c, &mut pending));
            let sent = bytes_at(p, n.min(piece));
            ok!(bc_connection_consume_output(self.c, sent.len()));
            moved += sent.len();
            self.server_receive(&sent);
        }
    }

    /// Sends what the server's encoder holds to the client in pieces of `piece` bytes,
    /// stopping at the first error (returned), then clears the encoder.
    ///
    /// # Safety
    /// The rig's handles are live.
    unsafe fn flush(&mut self, piece: usize) -> bc_status {
        let mut p: *const u8 = null();
        let mut n = 0usize;
        ok!(bc_encoder_data(self.out, &mut p, &mut n));
        let mut status = BC_OK;
        let mut off = 0;
        while off < n && status == BC_OK {
            let k = piece.min(n - off);
            status = bc_connection_receive(self.c, p.add(off), k);
            off += k;
        }
        ok!(bc_encoder_clear(self.out));
        status
    }

    /// Begins a server message with signature `sig` and `fields` fields.
    ///
    /// # Safety
    /// The rig's handles are live.
    unsafe fn begin(&mut self, sig: u8, fields: usize) {
        ok!(bc_encoder_begin_message(self.out));
        ok!(bc_encoder_write_struct_header(self.out, sig, fields));
    }

    /// Ends the server message begun.
    ///
    /// # Safety
    /// The rig's handles are live.
    unsafe fn end(&mut self) {
        ok!(bc_encoder_end_message(self.out, 0));
    }

    /// Queues SUCCESS with the string entries `meta`.
    ///
    /// # Safety
    /// The rig's handles are live.
    unsafe fn success(&mut self, meta: &[(&str, &str)]) {
        self.begin(0x70, 1);
        ok!(bc_encoder_write_map_header(self.out, meta.len()));
        for (k, v) in meta {
            w_str(self.out, k);
            w_str(self.out, v);
        }
        self.end();
    }

    /// Queues RECORD [i].
    ///
    /// # Safety
    /// The rig's handles are live.
    unsafe fn record(&mut self, i: i64) {
        self.begin(0x71, 1);
        ok!(bc_encoder_write_list_header(self.out, 1));
        ok!(bc_encoder_write_int(self.out, i));
        self.end();
    }

    /// The next event (asserting `BC_OK`).
    ///
    /// # Safety
    /// The rig's handles are live.
    unsafe fn event(&self) -> bc_event {
        fill(|p| bc_connection_poll_event(self.c, p))
    }

    /// The signatures of the requests received so far.
    fn tags(&self) -> Vec<u8> {
        self.requests.iter().map(|r| r[1]).collect()
    }

    /// The connection's state.
    ///
    /// # Safety
    /// The rig's handles are live.
    unsafe fn state(&self) -> bc_server_state {
        fill(|p| bc_connection_state(self.c, p))
    }

    /// Negotiates, then sends HELLO and LOGON and answers both with SUCCESS.
    ///
    /// # Safety
    /// The rig's handles are live.
    unsafe fn login(&mut self) {
        self.pump(usize::MAX);
        assert_eq!(self.event().kind, BC_EVENT_NEGOTIATED);
        ok!(bc_connection_send_hello(self.c, cs("t"), 1, null(), 0));
        ok!(bc_connection_send_logon_basic(
            self.c,
            cs("u"),
            1,
            cs("p"),
            1
        ));
        self.pump(usize::MAX);
        self.success(&[]);
        self.success(&[]);
        ok!(self.flush(usize::MAX));
        assert_eq!(self.event().kind, BC_EVENT_SUCCESS);
        assert_eq!(self.event().kind, BC_EVENT_SUCCESS);
        assert_eq!(self.state(), BC_STATE_READY);
    }

    /// Frees every handle.
    ///
    /// # Safety
    /// The rig's handles are live; nothing they handed out is used afterwards.
    unsafe fn close(self) {
        bc_connection_free(self.c);
        bc_server_handshake_free(self.hs);
        bc_dechunker_free(self.dch);
        bc_decoder_free(self.dec);
        bc_encoder_free(self.out);
    }
}

/// Regression: like the decoder's root, the value of a connection event lived inside
/// the connection handle, so the pointer `bc_connection_poll_event` returned was
/// invalidated (Stacked Borrows) before the call even returned, and by any later call
/// such as `bc_connection_state`, although events stay valid until the next poll.
#[test]
fn event_value_was_invalidated_by_the_next_reborrow_of_the_connection() {
    // SAFETY: a connection created and freed here; the event is read before the next
    // poll.
    unsafe {
        let c = fill(|p| bc_connection_new(null(), p));
        let hello_reply = hx("00 00 01 05 00 06 B1 70 A1 81 61 01 00 00");
        ok!(bc_connection_consume_output(c, 20));
        ok!(bc_connection_receive(c, hello_reply.as_ptr(), 4));
        assert_eq!(
            fill(|p| bc_connection_poll_event(c, p)).kind,
            BC_EVENT_NEGOTIATED
        );
        ok!(bc_connection_send_hello(c, cs("t"), 1, null(), 0));
        ok!(bc_connection_receive(
            c,
            hello_reply.as_ptr().add(4),
            hello_reply.len() - 4
        ));
        let ev = fill(|p| bc_connection_poll_event(c, p));
        assert_eq!((ev.kind, ev.request), (BC_EVENT_SUCCESS, BC_REQUEST_HELLO));
        assert_eq!(((*ev.value).kind, (*ev.value).len), (BC_TYPE_MAP, 1));
        assert_eq!(fill(|p| bc_connection_state(c, p)), BC_STATE_AUTHENTICATION);
        let mut pending = 1usize;
        ok!(bc_connection_pending_requests(c, &mut pending));
        assert_eq!(pending, 0);
        assert_eq!(
            ((*ev.value).kind, int_of(entry(ev.value, "a"))),
            (BC_TYPE_MAP, 1)
        );
        bc_connection_free(c);
    }
}

/// HELLO, LOGON, RUN, PULL over a manifest handshake (Bolt 6.1) against the scripted
/// server; an event stays valid across every call but the next poll (including a
/// receive); then a transaction and GOODBYE.
#[test]
fn connection_runs_a_query() {
    // SAFETY: handles created and freed here; events are read before the next poll,
    // encoder bytes before the encoder changes.
    unsafe {
        let mut r = Rig::open(null(), &[]);
        assert_eq!(r.state(), BC_STATE_HANDSHAKE);
        st!(bc_connection_send_reset(r.c), BC_ERR_NOT_NEGOTIATED);
        let mut v = ver(9, 9);
        st!(bc_connection_version(r.c, &mut v), BC_ERR_NOT_NEGOTIATED);
        assert_eq!(v, ver(9, 9), "not written on error");
        let mut p: *const u8 = null();
        let mut n = 0usize;
        ok!(bc_connection_output(r.c, &mut p, &mut n));
        assert_eq!((n, bytes_at(p, 4)), (20, hx("60 60 B0 17")));
        assert_eq!(r.event().kind, BC_EVENT_NONE);
        // The handshake in 3-byte writes (the server's replies go back 2 bytes at a time).
        assert!(r.pump(3) > 20);
        let ev = r.event();
        assert_eq!(ev.kind, BC_EVENT_NEGOTIATED);
        assert_eq!((ev.version.major, ev.version.minor), (6, 1));
        assert!(ev.value.is_null() && ev.code.is_null() && ev.message.is_null());
        let ev = r.event();
        assert!(ev.kind == BC_EVENT_NONE && ev.value.is_null());
        let v = fill(|p| bc_connection_version(r.c, p));
        assert_eq!((v.major, v.minor), (6, 1));
        assert_eq!(r.state(), BC_STATE_NEGOTIATION);
        // RUN before HELLO is refused before anything is queued.
        st!(
            bc_connection_send_run(r.c, cs("RETURN 1"), 8, null(), 0, null(), 0),
            BC_ERR_ILLEGAL_REQUEST
        );
        let mut can = true;
        ok!(bc_connection_can_send(r.c, BC_REQUEST_RUN, &mut can));
        assert!(!can);
        ok!(bc_connection_can_send(r.c, BC_REQUEST_HELLO, &mut can));
        assert!(can);
        st!(
            bc_connection_can_send(r.c, 999, &mut can),
            BC_ERR_INVALID_ARGUMENT
        );
        // HELLO with a bolt_agent map, LOGON, RUN with parameters and extra, PULL.
        let x = encoder(0);
        ok!(bc_encoder_write_map_header(x, 1));
        w_str(x, "bolt_agent");
        ok!(bc_encoder_write_map_header(x, 1));
        w_str(x, "product");
        w_str(x, "boltcodec-miri/1.0");
        let mut xp: *const u8 = null();
        let mut xn = 0usize;
        ok!(bc_encoder_data(x, &mut xp, &mut xn));
        ok!(bc_connection_send_hello(r.c, cs("test/1.0"), 8, xp, xn));
        ok!(bc_connection_send_logon_basic(
            r.c,
            cs("neo4j"),
            5,
            cs("secret"),
            6
        ));
        ok!(bc_encoder_clear(x));
        ok!(bc_encoder_write_map_header(x, 1));
        w_str(x, "n");
        ok!(bc_encoder_write_int(x, 2));
        let params = encoded(x);
        ok!(bc_encoder_clear(x));
        ok!(bc_encoder_write_map_header(x, 1));
        w_str(x, "db");
        w_str(x, "neo4j");
        let extra = encoded(x);
        let query = "UNWIND range(1, $n) AS x RETURN x";
        ok!(bc_connection_send_run(
            r.c,
            cs(query),
            query.len(),
            params.as_ptr(),
            params.len(),
            extra.as_ptr(),
            extra.len()
        ));
        ok!(bc_connection_send_pull(r.c, -1, -1));
        assert_eq!(fill(|p| bc_connection_pending_requests(r.c, p)), 4usize);
        r.pump(5);
        assert_eq!(r.tags(), [0x01, 0x6A, 0x10, 0x3F]);
        // What the server received, decoded.
        let d = decoder(0);
        let hello = decode(d, &r.requests[0]);
        let meta = raw_child(hello, 0);
        assert_eq!(text_of(entry(meta, "user_agent")), "test/1.0");
        assert_eq!(
            text_of(entry(entry(meta, "bolt_agent"), "product")),
            "boltcodec-miri/1.0"
        );
        let logon = decode(d, &r.requests[1]);
        let auth = raw_child(logon, 0);
        assert_eq!(text_of(entry(auth, "scheme")), "basic");
        assert_eq!(text_of(entry(auth, "principal")), "neo4j");
        assert_eq!(text_of(entry(auth, "credentials")), "secret");
        let run = decode(d, &r.requests[2]);
        assert_eq!(text_of(raw_child(run, 0)), query);
        assert_eq!(int_of(entry(raw_child(run, 1), "n")), 2);
        assert_eq!(text_of(entry(raw_child(run, 2), "db")), "neo4j");
        let pull = decode(d, &r.requests[3]);
        assert_eq!(int_of(entry(raw_child(pull, 0), "n")), -1);

        // The server answers up to the first record; the client reads 3 bytes at a time.
        r.success(&[("server", "Neo4j/5.26.0")]);
        r.success(&[]);
        r.begin(0x70, 1);
        ok!(bc_encoder_write_map_header(r.out, 1));
        w_str(r.out, "fields");
        ok!(bc_encoder_write_list_header(r.out, 1));
        w_str(r.out, "x");
        r.end();
        r.record(1);
        ok!(r.flush(3));
        let ev = r.event();
        assert_eq!((ev.kind, ev.request), (BC_EVENT_SUCCESS, BC_REQUEST_HELLO));
        assert_eq!(text_of(entry(ev.value, "server")), "Neo4j/5.26.0");
        let ev = r.event();
        assert_eq!(
            (ev.kind, ev.request, (*ev.value).len),
            (BC_EVENT_SUCCESS, BC_REQUEST_LOGON, 0)
        );
        let ev = r.event();
        assert_eq!((ev.kind, ev.request), (BC_EVENT_SUCCESS, BC_REQUEST_RUN));
        let fields = entry(ev.value, "fields");
        assert_eq!(
            ((*fields).len, text_of(item(fields, 0))),
            (1, "x".to_owned())
        );
        let ev = r.event();
        assert_eq!((ev.kind, ev.request), (BC_EVENT_RECORD, BC_REQUEST_PULL));
        let rec = ev.value;
        // Everything but the next poll keeps the event: state queries, sends, output,
        // and receiving the rest of the stream.
        assert_eq!(r.state(), BC_STATE_STREAMING);
        ok!(bc_connection_can_send(r.c, BC_REQUEST_PULL, &mut can));
        ok!(bc_connection_output(r.c, &mut p, &mut n));
        assert_eq!(n, 0);
        r.record(2);
        r.success(&[("type", "r")]);
        ok!(r.flush(5));
        assert_eq!(((*rec).kind, (*rec).len), (BC_TYPE_LIST, 1));
        assert_eq!(int_of(item(rec, 0)), 1);
        // An event's value can be written again with an encoder.
        ok!(bc_encoder_clear(x));
        ok!(bc_encoder_write_value(x, rec));
        assert_eq!(encoded(x), hx("91 01"));
        let ev = r.event();
        assert_eq!((ev.kind, int_of(item(ev.value, 0))), (BC_EVENT_RECORD, 2));
        let ev = r.event();
        assert_eq!((ev.kind, ev.request), (BC_EVENT_SUCCESS, BC_REQUEST_PULL));
        assert_eq!(text_of(entry(ev.value, "type")), "r");
        assert_eq!(r.event().kind, BC_EVENT_NONE);
        assert_eq!(r.state(), BC_STATE_READY);
        ok!(bc_connection_can_send(r.c, BC_REQUEST_RUN, &mut can));
        assert!(can);

        // A transaction, then GOODBYE: the connection is defunct afterwards.
        ok!(bc_encoder_clear(x));
        ok!(bc_encoder_write_map_header(x, 1));
        w_str(x, "mode");
        w_str(x, "r");
        let begin = encoded(x);
        ok!(bc_connection_send_begin(r.c, begin.as_ptr(), begin.len()));
        ok!(bc_connection_send_run(
            r.c,
            cs("RETURN 1"),
            8,
            null(),
            0,
            null(),
            0
        ));
        ok!(bc_connection_send_discard(r.c, -1, -1));
        ok!(bc_connection_send_commit(r.c));
        st!(bc_connection_send_rollback(r.c), BC_ERR_ILLEGAL_REQUEST);
        ok!(bc_connection_send_goodbye(r.c));
        st!(bc_connection_send_reset(r.c), BC_ERR_DEFUNCT);
        st!(
            bc_connection_consume_output(r.c, 100_000),
            BC_ERR_OUT_OF_RANGE
        );
        r.pump(64);
        assert_eq!(r.tags()[4..], [0x11, 0x10, 0x2F, 0x12, 0x02]);
        let begin = decode(d, &r.requests[4]);
        assert_eq!(text_of(entry(raw_child(begin, 0), "mode")), "r");
        assert_eq!(r.state(), BC_STATE_DEFUNCT);
        bc_decoder_free(d);
        bc_encoder_free(x);
        r.close();
    }
}

/// FAILURE and IGNORED, RESET, requests refused before they are queued, a response
/// nobody asked for (`BC_ERR_PROTOCOL`), then defunct.
#[test]
fn connection_failures_and_protocol_errors() {
    // SAFETY: handles created and freed here; events are read before the next poll,
    // error messages before the next failing call.
    unsafe {
        let mut r = Rig::open(null(), &[]);
        r.login();
        ok!(bc_connection_send_run(
            r.c,
            cs("RETURN"),
            6,
            null(),
            0,
            null(),
            0
        ));
        ok!(bc_connection_send_pull(r.c, 10, -1));
        r.pump(100);
        // RUN fails, PULL is ignored.
        r.begin(0x7F, 1);
        ok!(bc_encoder_write_map_header(r.out, 2));
        w_str(r.out, "neo4j_code");
        w_str(r.out, "Neo.ClientError.Statement.SyntaxError");
        w_str(r.out, "message");
        w_str(r.out, "Invalid input");
        r.end();
        r.begin(0x7E, 0);
        r.end();
        ok!(r.flush(7));
        let ev = r.event();
        assert_eq!((ev.kind, ev.request), (BC_EVENT_FAILURE, BC_REQUEST_RUN));
        assert_eq!(r.state(), BC_STATE_FAILED);
        // Both summaries arrived: nothing is pending, though IGNORED is not polled yet.
        assert_eq!(fill(|p| bc_connection_pending_requests(r.c, p)), 0usize);
        assert_eq!(c_text(ev.code), "Neo.ClientError.Statement.SyntaxError");
        assert_eq!(c_text(ev.message), "Invalid input");
        assert_eq!(((*ev.value).kind, (*ev.value).len), (BC_TYPE_MAP, 2));
        assert_eq!(text_of(entry(ev.value, "message")), "Invalid input");
        let ev = r.event();
        assert_eq!((ev.kind, ev.request), (BC_EVENT_IGNORED, BC_REQUEST_PULL));
        assert!(ev.value.is_null() && ev.code.is_null() && ev.message.is_null());
        assert_eq!(r.state(), BC_STATE_FAILED);
        ok!(bc_connection_send_reset(r.c));
        assert_eq!(r.state(), BC_STATE_INTERRUPTED);
        // Requests the library checks before queueing them.
        let bad = [0xFFu8];
        st!(
            bc_connection_send_run(r.c, bad.as_ptr().cast(), 1, null(), 0, null(), 0),
            BC_ERR_INVALID_UTF8
        );
        let err = fill(|p| bc_connection_last_error(r.c, p));
        assert_eq!(err.status, BC_ERR_INVALID_UTF8);
        assert_eq!(r.state(), BC_STATE_INTERRUPTED);
        assert!(
            !c_text(err.message).is_empty(),
            "valid across successful calls"
        );
        let notmap = hx("91 01");
        st!(
            bc_connection_send_begin(r.c, notmap.as_ptr(), 2),
            BC_ERR_WRONG_TYPE
        );
        let cut = hx("A1 81");
        st!(
            bc_connection_send_begin(r.c, cut.as_ptr(), 2),
            BC_ERR_UNEXPECTED_END
        );
        st!(
            bc_connection_send_hello(r.c, bad.as_ptr().cast(), 1, null(), 0),
            BC_ERR_INVALID_UTF8
        );
        st!(
            bc_connection_send_logon(r.c, notmap.as_ptr(), 2),
            BC_ERR_WRONG_TYPE
        );
        st!(
            bc_connection_send_logon(r.c, null(), 1),
            BC_ERR_NULL_POINTER
        );
        let garbage = hx("B0 55");
        st!(
            bc_connection_send_message(r.c, garbage.as_ptr(), 2),
            BC_ERR_PROTOCOL
        );
        let rollback = hx("B0 13");
        st!(
            bc_connection_send_message(r.c, rollback.as_ptr(), 2),
            BC_ERR_ILLEGAL_REQUEST
        );
        st!(
            bc_connection_send_message(r.c, null(), 1),
            BC_ERR_NULL_POINTER
        );
        let run = hx("B3 10 80 A0 A0"); // RUN "" {} {}
        ok!(bc_connection_send_message(r.c, run.as_ptr(), run.len()));
        assert_eq!(fill(|p| bc_connection_pending_requests(r.c, p)), 2usize);
        r.pump(100);
        assert_eq!(r.tags()[2..], [0x10, 0x3F, 0x0F, 0x10]);
        // The server answers RESET, RUN, and once more: nobody asked for that.
        r.success(&[]);
        r.success(&[]);
        r.success(&[]);
        st!(r.flush(1000), BC_ERR_PROTOCOL);
        let (status, offset, message) = error_of(bc_connection_last_error, r.c);
        assert_eq!(status, BC_ERR_PROTOCOL);
        assert!(
            offset > 0 && message.contains("SUCCESS"),
            "{offset} {message}"
        );
        // Events before the error are still delivered.
        for want in [BC_REQUEST_RESET, BC_REQUEST_RUN] {
            let ev = r.event();
            assert_eq!((ev.kind, ev.request), (BC_EVENT_SUCCESS, want));
        }
        assert_eq!(r.event().kind, BC_EVENT_NONE);
        let nothing = hx("00 00");
        st!(
            bc_connection_receive(r.c, nothing.as_ptr(), 2),
            BC_ERR_DEFUNCT
        );
        st!(bc_connection_send_reset(r.c), BC_ERR_DEFUNCT);
        st!(
            bc_connection_send_message(r.c, run.as_ptr(), run.len()),
            BC_ERR_DEFUNCT
        );
        assert_eq!(r.state(), BC_STATE_DEFUNCT);
        let mut can = true;
        ok!(bc_connection_can_send(r.c, BC_REQUEST_RESET, &mut can));
        assert!(!can);
        r.close();
    }
}

/// Requests without a helper through `bc_connection_send_message` (TELEMETRY, ROUTE,
/// LOGOFF), LOGON with an auth map, PULL of a given result; and a request that does not
/// exist in the negotiated version.
#[test]
fn connection_send_message_and_versions() {
    // SAFETY: handles created and freed here.
    unsafe {
        let mut r = Rig::open(null(), &[]);
        r.login();
        let mut can = false;
        ok!(bc_connection_can_send(r.c, BC_REQUEST_TELEMETRY, &mut can));
        assert!(can);
        for hex in ["B1 54 01", "B3 66 A0 90 A0", "B0 6B"] {
            let msg = hx(hex);
            ok!(bc_connection_send_message(r.c, msg.as_ptr(), msg.len()));
        }
        st!(bc_connection_send_pull(r.c, 5, 7), BC_ERR_ILLEGAL_REQUEST);
        let x = encoder(0);
        ok!(bc_encoder_write_map_header(x, 1));
        w_str(x, "scheme");
        w_str(x, "none");
        let auth = encoded(x);
        ok!(bc_connection_send_logon(r.c, auth.as_ptr(), auth.len()));
        r.pump(7);
        assert_eq!(r.tags(), [0x01, 0x6A, 0x54, 0x66, 0x6B, 0x6A]);
        assert_eq!(
            r.requests[5],
            hx("B1 6A A1 86 73 63 68 65 6D 65 84 6E 6F 6E 65")
        );
        // An explicit result id in a transaction.
        for _ in 0..4 {
            r.success(&[]);
        }
        ok!(r.flush(64));
        for _ in 0..4 {
            assert_eq!(r.event().kind, BC_EVENT_SUCCESS);
        }
        ok!(bc_connection_send_begin(r.c, null(), 0));
        ok!(bc_connection_send_run(
            r.c,
            cs("RETURN 1"),
            8,
            null(),
            0,
            null(),
            0
        ));
        ok!(bc_connection_send_pull(r.c, 5, 7));
        // The PULL may drain the result: a DISCARD behind it could find none.
        st!(
            bc_connection_send_discard(r.c, 1, 7),
            BC_ERR_ILLEGAL_REQUEST
        );
        r.pump(64);
        r.success(&[]);
        r.success(&[]);
        r.begin(0x70, 1);
        ok!(bc_encoder_write_map_header(r.out, 1));
        w_str(r.out, "has_more");
        ok!(bc_encoder_write_bool(r.out, true));
        r.end();
        ok!(r.flush(64));
        for want in [BC_REQUEST_BEGIN, BC_REQUEST_RUN, BC_REQUEST_PULL] {
            let ev = r.event();
            assert_eq!((ev.kind, ev.request), (BC_EVENT_SUCCESS, want));
        }
        assert_eq!(r.state(), BC_STATE_TX_STREAMING);
        ok!(bc_connection_send_discard(r.c, 1, 7));
        r.pump(64);
        let d = decoder(0);
        let pull = decode(d, &r.requests[8]);
        assert_eq!((*pull).tag, 0x3F);
        let pull_extra = raw_child(pull, 0);
        assert_eq!(
            (
                int_of(entry(pull_extra, "n")),
                int_of(entry(pull_extra, "qid"))
            ),
            (5, 7)
        );
        let discard = decode(d, &r.requests[9]);
        assert_eq!(
            ((*discard).tag, int_of(entry(raw_child(discard, 0), "qid"))),
            (0x2F, 7)
        );
        bc_decoder_free(d);
        bc_encoder_free(x);
        r.close();

        // TELEMETRY does not exist in Bolt 5.0.
        let mut r = Rig::open(null(), &[V50]);
        r.pump(100);
        let ev = r.event();
        assert_eq!(
            (ev.kind, ev.version.major, ev.version.minor),
            (BC_EVENT_NEGOTIATED, 5, 0)
        );
        ok!(bc_connection_send_hello(r.c, cs("t"), 1, null(), 0));
        r.pump(100);
        r.success(&[]);
        ok!(r.flush(100));
        assert_eq!(r.event().kind, BC_EVENT_SUCCESS);
        assert_eq!(r.state(), BC_STATE_READY);
        let telemetry = hx("B1 54 01");
        st!(
            bc_connection_send_message(r.c, telemetry.as_ptr(), 3),
            BC_ERR_NOT_IN_VERSION
        );
        r.close();
    }
}

/// A legacy connection limited to Bolt 4.4 whose server bytes are written by hand: the
/// handshake reply one byte at a time, responses in several chunks, the configured
/// chunk size, message size, chunk count and decode limits.
///
/// # Safety
/// `cfg` is a valid configuration.
unsafe fn legacy_connection(cfg: &bc_connection_config) -> *mut bc_connection {
    let c = fill(|p| bc_connection_new(cfg, p));
    let mut p: *const u8 = null();
    let mut n = 0usize;
    ok!(bc_connection_output(c, &mut p, &mut n));
    assert_eq!(n, 20);
    // A legacy client offers the versions of its list exactly: 4.4 alone.
    assert_eq!(
        bytes_at(p, 20),
        hx("60 60 B0 17 00 00 04 04 00000000 00000000 00000000")
    );
    ok!(bc_connection_consume_output(c, 20));
    for b in hx("00 00 04 04") {
        ok!(bc_connection_receive(c, &b, 1));
    }
    let ev = fill(|p| bc_connection_poll_event(c, p));
    assert_eq!(
        (ev.kind, ev.version.major, ev.version.minor),
        (BC_EVENT_NEGOTIATED, 4, 4)
    );
    ok!(bc_connection_send_hello(c, cs("agent"), 5, null(), 0));
    c
}

#[test]
fn connection_legacy_by_hand_and_limits() {
    // SAFETY: connections and a dechunker created and freed here; events are read
    // before the next poll.
    unsafe {
        let mut cfg = fill(|p| bc_connection_config_default(p));
        assert_eq!(
            (cfg.flags, cfg.max_chunk_size, cfg.supported_len),
            (0, 0, 0)
        );
        assert_eq!((cfg.max_message_size, cfg.max_chunks), (64 << 20, 1 << 20));
        assert_eq!(cfg.decode_limits, fill(|p| bc_decode_limits_default(p)));
        assert!(cfg.supported.is_null());
        let only44 = [V44];
        cfg.flags = BC_HANDSHAKE_LEGACY;
        cfg.supported = only44.as_ptr();
        cfg.supported_len = 1;
        cfg.max_chunk_size = 4;
        cfg.max_message_size = 16;
        cfg.max_chunks = 2;
        cfg.decode_limits.max_depth = 3;
        let c = legacy_connection(&cfg);
        // HELLO went out in chunks of at most 4 bytes.
        let mut p: *const u8 = null();
        let mut n = 0usize;
        ok!(bc_connection_output(c, &mut p, &mut n));
        let out = bytes_at(p, n);
        let dc = fill(|p| bc_dechunker_new(p));
        let mut count = 0usize;
        ok!(bc_dechunker_feed(dc, out.as_ptr(), out.len(), &mut count));
        let m = fill(|p| bc_dechunker_message(dc, 0, p));
        assert_eq!((count, out[..2].to_vec()), (1, vec![0x00, 0x04]));
        assert_eq!(m.chunk_count as usize, m.len.div_ceil(4));
        assert_eq!(bytes_at(m.data, 2), [0xB1, 0x01]);
        bc_dechunker_free(dc);
        ok!(bc_connection_consume_output(c, n));
        // SUCCESS {} in two chunks.
        let wire = hx("00 02 B1 70 00 01 A0 00 00");
        ok!(bc_connection_receive(c, wire.as_ptr(), wire.len()));
        let ev = fill(|p| bc_connection_poll_event(c, p));
        assert_eq!(
            (ev.kind, ev.request, (*ev.value).len),
            (BC_EVENT_SUCCESS, BC_REQUEST_HELLO, 0)
        );
        assert_eq!(fill(|p| bc_connection_state(c, p)), BC_STATE_READY);
        ok!(bc_connection_send_run(
            c,
            cs("RETURN [[1]]"),
            12,
            null(),
            0,
            null(),
            0
        ));
        ok!(bc_connection_send_pull(c, -1, -1));
        // SUCCESS {fields: []}, RECORD [[1]] (3 deep: the limit), RECORD [[[1]]] (4).
        let wire = hx("00 0B B1 70 A1 86 66 69 65 6C 64 73 90 00 00
             00 05 B1 71 91 91 01 00 00
             00 06 B1 71 91 91 91 01 00 00");
        st!(
            bc_connection_receive(c, wire.as_ptr(), wire.len()),
            BC_ERR_PROTOCOL
        );
        let (_, offset, _) = error_of(bc_connection_last_error, c);
        // The message stream starts after the handshake reply: HELLO's SUCCESS took 9
        // bytes, then 15 + 9 before the message too deep.
        assert_eq!(offset, 9 + 24, "the stream offset of the message too deep");
        let ev = fill(|p| bc_connection_poll_event(c, p));
        assert_eq!((ev.kind, ev.request), (BC_EVENT_SUCCESS, BC_REQUEST_RUN));
        let ev = fill(|p| bc_connection_poll_event(c, p));
        assert_eq!(ev.kind, BC_EVENT_RECORD);
        assert_eq!(int_of(item(item(ev.value, 0), 0)), 1);
        assert_eq!(fill(|p| bc_connection_state(c, p)), BC_STATE_DEFUNCT);
        bc_connection_free(c);

        // A message above 16 bytes; a message of 3 chunks.
        let c = legacy_connection(&cfg);
        let big = hx("00 20");
        st!(
            bc_connection_receive(c, big.as_ptr(), 2),
            BC_ERR_MESSAGE_TOO_LARGE
        );
        bc_connection_free(c);
        let c = legacy_connection(&cfg);
        let three = hx("00 01 B1 00 01 70 00 01 A0 00 00");
        st!(
            bc_connection_receive(c, three.as_ptr(), three.len()),
            BC_ERR_TOO_MANY_CHUNKS
        );
        assert_eq!(error_of(bc_connection_last_error, c).1, 6);
        bc_connection_free(c);
    }
}

#[test]
fn connection_handshake_failures_and_bad_configs() {
    // SAFETY: connections created and freed here; configurations are locals.
    unsafe {
        // No common version; an HTTP server.
        let c = fill(|p| bc_connection_new(null(), p));
        let zeros = [0u8; 4];
        st!(
            bc_connection_receive(c, zeros.as_ptr(), 4),
            BC_ERR_NO_COMMON_VERSION
        );
        assert_eq!(fill(|p| bc_connection_state(c, p)), BC_STATE_DEFUNCT);
        st!(bc_connection_receive(c, zeros.as_ptr(), 4), BC_ERR_DEFUNCT);
        bc_connection_free(c);
        let c = fill(|p| bc_connection_new(null(), p));
        let http = b"HTTP/1.1";
        st!(
            bc_connection_receive(c, http.as_ptr(), http.len()),
            BC_ERR_HANDSHAKE
        );
        let (status, offset, message) = error_of(bc_connection_last_error, c);
        assert_eq!((status, offset), (BC_ERR_HANDSHAKE, 0));
        assert!(message.contains("HTTP"), "{message}");
        st!(
            bc_connection_receive(c, http.as_ptr(), usize::MAX),
            BC_ERR_INVALID_ARGUMENT
        );
        let mut ev = MaybeUninit::<bc_event>::uninit();
        ok!(bc_connection_poll_event(c, ev.as_mut_ptr()));
        assert_eq!(ev.assume_init().kind, BC_EVENT_NONE);
        bc_connection_free(c);
        // Configurations refused.
        let mut c: *mut bc_connection = null_mut();
        let mut cfg = fill(|p| bc_connection_config_default(p));
        cfg.flags = 4;
        st!(bc_connection_new(&cfg, &mut c), BC_ERR_INVALID_ARGUMENT);
        cfg.flags = 0;
        let v55 = [ver(5, 5)];
        cfg.supported = v55.as_ptr();
        cfg.supported_len = 1;
        st!(bc_connection_new(&cfg, &mut c), BC_ERR_UNKNOWN_VERSION);
        cfg.supported_len = 0;
        st!(bc_connection_new(&cfg, &mut c), BC_ERR_NO_VERSIONS);
        cfg.supported_len = 1;
        cfg.supported = null();
        st!(bc_connection_new(&cfg, &mut c), BC_ERR_NULL_POINTER);
        assert!(c.is_null());
    }
}
