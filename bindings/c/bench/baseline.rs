//! The Rust side of the C benchmark (`bindings/c/scripts/bench.sh`), built as a shared
//! library that `bench/bench.c` links:
//!
//! * `bcb_workload` hands out the bytes of the criterion bench's workloads
//!   (`benches/src/lib.rs`: the very same data and bytes);
//! * `bcb_rust_decode_walk` decodes them with the `packstream` crate called directly
//!   (`ValueRef::decode`, as a Rust program would) and walks every value, folding it into
//!   a checksum exactly as `walk()` in bench.c does over the C API's value tree.
//!
//! One call runs one whole iteration, so the call itself costs nothing measurable next
//! to the work (microseconds to milliseconds). Equal checksums prove both sides did the
//! same work on the same bytes.
// The two exported functions take raw pointers from C.
#![allow(unsafe_code)]

use std::ffi::c_char;
use std::sync::OnceLock;

use boltcodec_benches::{encode_all, nested_lists, records};
use packstream::ValueRef;

/// A workload: a NUL-terminated name, its bytes, and whether they are a stream of
/// values (records, decoded one call each) or one value.
struct Workload {
    name: &'static std::ffi::CStr,
    bytes: Vec<u8>,
    stream: bool,
}

fn workloads() -> &'static [Workload] {
    static ALL: OnceLock<Vec<Workload>> = OnceLock::new();
    ALL.get_or_init(|| {
        let lists = |name, n, m| {
            let (ps, mp) = nested_lists(n, m);
            let bytes = encode_all(std::slice::from_ref(&ps), std::slice::from_ref(&mp)).0;
            Workload {
                name,
                bytes,
                stream: false,
            }
        };
        let recs = |name, rows, cols, wide| {
            let (ps, mp) = records(rows, cols, wide);
            Workload {
                name,
                bytes: encode_all(&ps, &mp).0,
                stream: true,
            }
        };
        vec![
            lists(c"lists_1x1000", 1, 1000),
            lists(c"lists_100x10", 100, 10),
            lists(c"lists_1000x1", 1000, 1),
            lists(c"lists_100x100", 100, 100),
            lists(c"lists_1000x100", 1000, 100),
            recs(c"records_10000x3", 10_000, 3, false),
            recs(c"rows_350x20", 350, 20, true),
        ]
    })
}

/// The checksum fold, identical to `mix` in bench.c.
#[inline(always)]
fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x0000_0100_0000_01B3)
}

/// Folds every value of the tree into `h`, pre-order, as `walk()` in bench.c.
fn walk(v: &ValueRef<'_>, h: u64) -> u64 {
    match v {
        ValueRef::Null => mix(h, 1),
        ValueRef::Bool(b) => mix(h, 2 + u64::from(*b)),
        ValueRef::Int(i) => mix(h, *i as u64),
        ValueRef::Float(f) => mix(h, f.to_bits()),
        ValueRef::String(s) => mix(
            h,
            s.len() as u64 + u64::from(s.as_bytes().first().copied().unwrap_or(0)),
        ),
        ValueRef::Bytes(b) => mix(h, b.len() as u64),
        ValueRef::Uuid(u) => mix(h, u64::from(u[0])),
        ValueRef::List(items) => items
            .iter()
            .fold(mix(h, items.len() as u64), |h, v| walk(v, h)),
        ValueRef::Map(entries) => entries
            .iter()
            .fold(mix(h, entries.len() as u64), |h, (k, v)| {
                walk(v, mix(h, k.len() as u64))
            }),
        ValueRef::Struct(s) => s
            .fields
            .iter()
            .fold(mix(h, u64::from(s.tag)), |h, v| walk(v, h)),
    }
}

/// The number of workloads.
#[no_mangle]
pub extern "C" fn bcb_workload_count() -> usize {
    workloads().len()
}

/// Workload `i`: its NUL-terminated name, its bytes (owned by this library, valid for
/// the life of the process) and whether it is a stream of values. Returns 0, or -1 if
/// `i` is out of range.
///
/// # Safety
/// The output pointers are writable.
#[no_mangle]
pub unsafe extern "C" fn bcb_workload(
    i: usize,
    name: *mut *const c_char,
    bytes: *mut *const u8,
    len: *mut usize,
    stream: *mut i32,
) -> i32 {
    let Some(w) = workloads().get(i) else {
        return -1;
    };
    // SAFETY: the caller guarantees the four pointers are writable.
    unsafe {
        name.write(w.name.as_ptr());
        bytes.write(w.bytes.as_ptr());
        len.write(w.bytes.len());
        stream.write(i32::from(w.stream));
    }
    0
}

/// One iteration with the crate called directly: decode every value of
/// `bytes[0 .. len-1]` (one value, or a stream of them when `stream` is non-zero) as a
/// `ValueRef` tree and walk it. Returns the checksum, or 0 if decoding failed.
///
/// # Safety
/// `bytes` is readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn bcb_rust_decode_walk(bytes: *const u8, len: usize, stream: i32) -> u64 {
    // SAFETY: the caller guarantees `len` readable bytes that stay unchanged during the
    // call.
    let bytes = unsafe { std::slice::from_raw_parts(bytes, len) };
    let mut h = 0xCBF2_9CE4_8422_2325;
    if stream != 0 {
        let mut rest = bytes;
        while !rest.is_empty() {
            let Ok((v, used)) = ValueRef::decode(rest) else {
                return 0;
            };
            h = walk(&v, h);
            rest = rest.get(used..).unwrap_or_default();
        }
    } else {
        let Ok(v) = ValueRef::decode_exact(bytes) else {
            return 0;
        };
        h = walk(&v, h);
    }
    h
}
