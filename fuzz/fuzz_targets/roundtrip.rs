//! Round trips: decode → encode → decode gives the same value, for PackStream values
//! and for Bolt requests and responses of every version; and encoding what was decoded
//! is a fixed point (the second encoding equals the first).
//!
//! Input: `[what] [version/flags] bytes`. `what` picks value, request or response.
#![no_main]

use bolt::message::{Request, Response};
use fuzz_common::{version, Header};
use libfuzzer_sys::fuzz_target;
use packstream::{DecodeOptions, EncodeOptions, Encoder, Value, ValueRef};

fn value_round_trip(flags: u8, bytes: &[u8]) {
    let opts = DecodeOptions::default()
        .with_uuid(flags & 1 != 0)
        .with_legacy_structs(flags & 2 != 0);
    let Ok((v, _)) = ValueRef::decode_with(bytes, &opts) else {
        return;
    };
    // Legacy structures of 16+ fields need the legacy encoder too.
    let enc_opts = EncodeOptions {
        legacy_structs: flags & 2 != 0,
        uuid: flags & 1 != 0,
    };
    let mut first = Vec::new();
    Encoder::with_options(&mut first, enc_opts)
        .write_value_ref(&v)
        .expect("whatever decodes encodes with the same options");
    let back = ValueRef::decode_exact_with(&first, &opts).expect("what we wrote decodes");
    assert_eq!(back, v);
    let owned = Value::decode_exact_with(&first, &opts).expect("decodes owned");
    assert_eq!(owned, v.to_owned_value());
    let mut second = Vec::new();
    Encoder::with_options(&mut second, enc_opts)
        .write_value(&owned)
        .expect("encodes");
    assert_eq!(first, second, "not a fixed point");
    assert!(
        first.len() <= bytes.len(),
        "the smallest markers never grow the value"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let what = h.u8();
    let flags = h.u8();
    let bytes = h.rest();
    let v = version(flags);
    match what % 3 {
        0 => value_round_trip(flags, bytes),
        1 => {
            let Ok(req) = Request::decode(bytes, v) else {
                return;
            };
            let first = req.to_vec(v).expect("a decoded request encodes");
            let back = Request::decode(&first, v).expect("and decodes again");
            assert_eq!(back, req);
            assert_eq!(back.to_vec(v).expect("encodes"), first);
        }
        _ => {
            let Ok(resp) = Response::decode(bytes, v) else {
                return;
            };
            if let Response::Record(r) = &resp {
                if r.fields().is_err() {
                    // A lazily decoded RECORD with bad fields is written back verbatim.
                    return;
                }
            }
            let first = resp.to_vec(v).expect("a decoded response encodes");
            let back = Response::decode(&first, v).expect("and decodes again");
            assert_eq!(back, resp);
            assert_eq!(back.to_vec(v).expect("encodes"), first);
        }
    }
});
