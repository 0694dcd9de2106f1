//! Strings are validated with a fast path for short ASCII ones (one 16-byte word of the
//! input, the bytes around the string masked off) and `from_utf8` otherwise. Every
//! length around that path's limits, at every position from the start to the very end of
//! the input, with bytes that have their top bit set right before and after the string,
//! must give exactly what `from_utf8` says: the same string, or an `InvalidUtf8` error at
//! the same offset.

use packstream::{Decoder, ErrorKind, Token, Value, ValueRef};

/// The PackStream header of a string of `len` bytes.
fn header(len: usize) -> Vec<u8> {
    match len {
        0..=15 => vec![0x80 | len as u8],
        _ => vec![0xD0, len as u8],
    }
}

/// Payloads of `len` bytes: ASCII, a non-ASCII character at each end, and a stray
/// continuation byte (invalid) at each position.
fn payloads(len: usize) -> Vec<Vec<u8>> {
    let ascii: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
    let mut out = vec![ascii.clone()];
    if len >= 2 {
        let mut first = ascii.clone();
        first[..2].copy_from_slice("é".as_bytes());
        let mut last = ascii.clone();
        last[len - 2..].copy_from_slice("é".as_bytes());
        out.extend([first, last]);
    }
    for at in 0..len {
        let mut bad = ascii.clone();
        bad[at] = 0x80;
        out.push(bad);
    }
    out
}

#[test]
fn short_strings_validate_as_from_utf8_at_every_length_and_position() {
    for len in 0..=20 {
        for payload in payloads(len) {
            let expected = core::str::from_utf8(&payload);
            // `[bytes, string]`: a byte array of `before` bytes with their top bit set in
            // front of the string, and `after` such bytes behind the value.
            // Fewer placements under Miri, which is slow; both words still tried.
            let (befores, afters): (&[usize], &[usize]) = if cfg!(miri) {
                (&[0, 13, 17], &[0, 16])
            } else {
                (
                    &[0, 1, 2, 3, 5, 8, 11, 13, 14, 15, 16, 17],
                    &[0, 1, 3, 15, 16, 20],
                )
            };
            for &before in befores {
                for &after in afters {
                    let mut bytes = vec![0x92, 0xCC];
                    bytes.push(before as u8);
                    bytes.extend(std::iter::repeat_n(0xFF, before));
                    let string_at = bytes.len() + header(len).len();
                    bytes.extend(header(len));
                    bytes.extend(&payload);
                    let used = bytes.len();
                    bytes.extend(std::iter::repeat_n(0xFE, after));
                    let value = ValueRef::decode(&bytes);
                    match expected {
                        Ok(s) => {
                            let (v, n) = value.expect("valid UTF-8 decodes");
                            assert_eq!(n, used);
                            let items = v.into_list().expect("a list");
                            assert_eq!(items[1], ValueRef::String(s), "len {len}");
                        }
                        Err(e) => {
                            let err = value.expect_err("invalid UTF-8 is refused");
                            assert_eq!(
                                (err.kind(), err.offset()),
                                (ErrorKind::InvalidUtf8, string_at + e.valid_up_to()),
                                "len {len}, before {before}, after {after}"
                            );
                        }
                    }
                    // The owned tree and the pull decoder agree.
                    let owned = Value::decode(&bytes).map(|(v, _)| v);
                    assert_eq!(owned.is_ok(), expected.is_ok());
                    let mut dec = Decoder::new(&bytes);
                    let tokens: Result<Vec<Token<'_>>, _> =
                        (0..3).map(|_| dec.next_token()).collect();
                    match (tokens, expected) {
                        (Ok(t), Ok(s)) => assert_eq!(t[2], Token::String(s)),
                        (Err(err), Err(e)) => {
                            assert_eq!(err.offset(), string_at + e.valid_up_to());
                        }
                        (t, e) => panic!("pull decoder {t:?} vs {e:?}"),
                    }
                }
            }
        }
    }
}

#[test]
fn a_string_that_runs_past_the_input_is_incomplete() {
    for len in 1..=20 {
        let mut bytes = header(len);
        bytes.extend(std::iter::repeat_n(b'x', len - 1));
        let err = ValueRef::decode(&bytes).expect_err("one byte short");
        assert_eq!((err.kind(), err.offset()), (ErrorKind::UnexpectedEnd, 0));
    }
}
