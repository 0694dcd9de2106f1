//! The pull API (`Decoder`): tokens, `skip_value`, `read_value_ref`, `read_value` and
//! `visit_value` mixed in an order the input chooses, checked against the tree decoder.
//!
//! Input: `[flags] [ops] payload`. Flags as in `packstream_decode` (bits 0–1); `ops`
//! seeds the sequence of calls.
//!
//! Checks: no panic; reading token by token ends exactly where the tree decoder does,
//! with the same error when there is one; a visitor that re-encodes what it is shown
//! writes exactly what encoding the tree writes; the mixed sequence never reads past the
//! input, and its values match the tree's; memory within the documented bound.
#![no_main]

use fuzz_common::{packstream_bound, peak_during, Header};
use libfuzzer_sys::fuzz_target;
use packstream::{DecodeOptions, Decoder, EncodeOptions, Encoder, Token, ValueRef, Visitor};

/// Writes back every value it is shown.
struct Reencode(Encoder<Vec<u8>>);

impl<'a> Visitor<'a> for Reencode {
    type Error = packstream::Error;
    fn null(&mut self) -> Result<(), Self::Error> {
        self.0.write_null();
        Ok(())
    }
    fn bool(&mut self, v: bool) -> Result<(), Self::Error> {
        self.0.write_bool(v);
        Ok(())
    }
    fn int(&mut self, v: i64) -> Result<(), Self::Error> {
        self.0.write_int(v);
        Ok(())
    }
    fn float(&mut self, v: f64) -> Result<(), Self::Error> {
        self.0.write_float(v);
        Ok(())
    }
    fn string(&mut self, v: &'a str, _is_key: bool) -> Result<(), Self::Error> {
        self.0.write_str(v).expect("a decoded string fits");
        Ok(())
    }
    fn bytes(&mut self, v: &'a [u8]) -> Result<(), Self::Error> {
        self.0.write_bytes(v).expect("decoded bytes fit");
        Ok(())
    }
    fn uuid(&mut self, v: [u8; 16]) -> Result<(), Self::Error> {
        self.0.write_uuid(&v).expect("UUIDs enabled");
        Ok(())
    }
    fn list(&mut self, len: u32, _capacity: usize) -> Result<(), Self::Error> {
        self.0.write_list_header(len as usize).expect("fits");
        Ok(())
    }
    fn map(&mut self, len: u32, _capacity: usize) -> Result<(), Self::Error> {
        self.0.write_map_header(len as usize).expect("fits");
        Ok(())
    }
    fn structure(&mut self, tag: u8, len: u32, _capacity: usize) -> Result<(), Self::Error> {
        self.0
            .write_struct_header(tag, len as usize)
            .expect("legacy structures enabled");
        Ok(())
    }
}

const ENCODE: EncodeOptions = EncodeOptions {
    legacy_structs: true,
    uuid: true,
};

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let flags = h.u8();
    let mut ops = u32::from(h.u8()) | 0x100;
    let bytes = h.rest();
    let opts = DecodeOptions::default()
        .with_uuid(flags & 1 != 0)
        .with_legacy_structs(flags & 2 != 0);

    let tree = ValueRef::decode_with(bytes, &opts);

    // Token by token, until one whole value was read.
    let (tokens, peak) = peak_during(|| {
        let mut dec = Decoder::with_options(bytes, opts);
        let mut n = 0usize;
        loop {
            let tok = dec.next_token()?;
            n += 1;
            assert!(dec.position() <= bytes.len());
            if let Token::String(s) = tok {
                assert!(bytes.as_ptr_range().contains(&s.as_ptr()) || s.is_empty());
            }
            if dec.is_complete() {
                return Ok((dec.position(), n));
            }
        }
    });
    assert!(peak <= packstream_bound(bytes.len()), "token peak {peak}");
    match (&tree, &tokens) {
        (Ok((_, used)), Ok((pos, _))) => assert_eq!(used, pos),
        (Err(a), Err(b)) => assert_eq!(a, b, "tree and tokens disagree on the error"),
        _ => panic!("tree {tree:?} but tokens {tokens:?}"),
    }

    // skip_value agrees too.
    let mut dec = Decoder::with_options(bytes, opts);
    match (&tree, dec.skip_value()) {
        (Ok((_, used)), Ok(())) => assert_eq!(dec.position(), *used),
        (Err(a), Err(b)) => assert_eq!(*a, b, "tree and skip disagree on the error"),
        (t, s) => panic!("tree {t:?} but skip {s:?}"),
    }

    // visit_value shows exactly what the tree holds.
    let mut dec = Decoder::with_options(bytes, opts);
    let mut visitor = Reencode(Encoder::with_options(Vec::new(), ENCODE));
    match (&tree, dec.visit_value(&mut visitor)) {
        (Ok((v, used)), Ok(())) => {
            assert_eq!(dec.position(), *used);
            let mut expected = Vec::new();
            Encoder::with_options(&mut expected, ENCODE)
                .write_value_ref(v)
                .expect("encodes");
            assert_eq!(
                visitor.0.into_inner(),
                expected,
                "the visitor saw another value"
            );
        }
        (Err(a), Err(b)) => assert_eq!(*a, b, "tree and visitor disagree on the error"),
        (t, r) => panic!("tree {t:?} but visitor {r:?}"),
    }

    // A mixed sequence over a stream of values.
    let mut dec = Decoder::with_options(bytes, opts);
    for _ in 0..64 {
        if dec.position() >= bytes.len() && dec.is_complete() {
            assert!(dec.finish().is_ok());
            break;
        }
        ops = ops.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        let before = dec.position();
        let ok = match (ops >> 16) % 5 {
            4 => dec
                .visit_value(&mut Reencode(Encoder::with_options(Vec::new(), ENCODE)))
                .is_ok(),
            0 => dec.next_token().is_ok(),
            1 => dec.skip_value().is_ok(),
            2 => {
                let at_top = dec.is_complete();
                match dec.read_value_ref() {
                    Ok(v) => {
                        if at_top {
                            let again = ValueRef::decode_with(&bytes[before..], &opts)
                                .expect("the tree decoder reads what the pull decoder read");
                            assert_eq!(again.0, v);
                            assert_eq!(before + again.1, dec.position());
                        }
                        true
                    }
                    Err(_) => false,
                }
            }
            _ => dec.read_value().is_ok(),
        };
        assert!(dec.position() <= bytes.len());
        if !ok {
            // The state is unspecified after an error: start over is the contract.
            dec.reset(bytes);
            break;
        }
    }
});
