//! PackStream value decoding, borrowed (`ValueRef`) and owned (`Value`), with every
//! option combination and with tight limits.
//!
//! Input: `[flags] payload`. Flags: bit 0 UUIDs (PackStream v2), bit 1 legacy
//! `DC`/`DD` structures, bit 2 tight limits.
//!
//! Checks: no panic; the two trees agree with each other (value, bytes used, error);
//! `decode_exact` agrees with `decode`; an error's offset lies inside the input; and the
//! peak heap use stays within the documented `96 * n + 64 KiB`.
#![no_main]

use fuzz_common::{packstream_bound, peak_during, Header};
use libfuzzer_sys::fuzz_target;
use packstream::{DecodeLimits, DecodeOptions, ErrorKind, Value, ValueRef};

fn options(flags: u8) -> DecodeOptions {
    let mut opts = DecodeOptions::default()
        .with_uuid(flags & 1 != 0)
        .with_legacy_structs(flags & 2 != 0);
    if flags & 4 != 0 {
        opts = opts.with_limits(DecodeLimits {
            max_depth: u32::from(flags >> 4) + 1,
            max_string_len: 40,
            max_bytes_len: 40,
            max_container_len: 20,
            max_total_elements: 100,
        });
    }
    opts
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let flags = h.u8();
    let bytes = h.rest();
    let opts = options(flags);
    let bound = packstream_bound(bytes.len());

    let (borrowed, peak) = peak_during(|| ValueRef::decode_with(bytes, &opts));
    assert!(
        peak <= bound,
        "ValueRef peak {peak} for {} bytes",
        bytes.len()
    );
    let (owned, peak) = peak_during(|| Value::decode_with(bytes, &opts));
    assert!(peak <= bound, "Value peak {peak} for {} bytes", bytes.len());

    match (&borrowed, &owned) {
        (Ok((r, used_r)), Ok((v, used_v))) => {
            assert_eq!(used_r, used_v);
            assert!(*used_r <= bytes.len() && *used_r > 0);
            assert_eq!(&r.to_owned_value(), v);
            let _ = r.to_string();
            let exact = ValueRef::decode_exact_with(bytes, &opts);
            if *used_r == bytes.len() {
                assert_eq!(exact.as_ref().ok(), Some(r));
            } else {
                let e = exact.expect_err("trailing bytes");
                assert_eq!((e.kind(), e.offset()), (ErrorKind::TrailingBytes, *used_r));
            }
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "the two trees report different errors");
            assert!(
                a.offset() <= bytes.len(),
                "{a} outside {} bytes",
                bytes.len()
            );
            assert_eq!(a.is_incomplete(), a.kind() == ErrorKind::UnexpectedEnd);
            let exact = Value::decode_exact_with(bytes, &opts).expect_err("fails too");
            assert_eq!(&exact, a);
        }
        _ => panic!("borrowed {borrowed:?} but owned {owned:?}"),
    }
});
