//! Base64 with the standard alphabet and padding (RFC 4648 §4), as the WebSocket opening
//! handshake uses it for `Sec-WebSocket-Key` and `Sec-WebSocket-Accept`.

/// The symbol for a 6-bit value.
const fn symbol(v: u8) -> char {
    let b = match v {
        0..=25 => b'A' + v,
        26..=51 => b'a' + (v - 26),
        52..=61 => b'0' + (v - 52),
        62 => b'+',
        _ => b'/',
    };
    b as char
}

/// The 6-bit value of a symbol, or `None` for anything outside the alphabet.
const fn value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Encodes `input` with padding.
pub(crate) fn encode(input: &[u8]) -> String {
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for group in input.chunks(3) {
        let (a, b, c) = match *group {
            [a] => (a, 0, 0),
            [a, b] => (a, b, 0),
            [a, b, c, ..] => (a, b, c),
            [] => continue,
        };
        let n = u32::from(a) << 16 | u32::from(b) << 8 | u32::from(c);
        let six = |shift: u32| symbol(((n >> shift) & 0x3F) as u8);
        out.push(six(18));
        out.push(six(12));
        out.push(if group.len() > 1 { six(6) } else { '=' });
        out.push(if group.len() > 2 { six(0) } else { '=' });
    }
    out
}

/// Decodes canonical padded base64: a multiple of 4 symbols, `=` only at the end, unused
/// bits zero, no whitespace. Anything else gives `None`.
pub(crate) fn decode(input: &[u8]) -> Option<Vec<u8>> {
    if input.len() % 4 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(input.len() / 4 * 3);
    let groups = input.chunks_exact(4);
    let count = groups.len();
    for (i, group) in groups.enumerate() {
        let &[a, b, c, d] = group else { return None };
        let (a, b) = (value(a)?, value(b)?);
        let last = i + 1 == count;
        match (c, d) {
            (b'=', b'=') if last => {
                if b & 0x0F != 0 {
                    return None;
                }
                out.push(a << 2 | b >> 4);
            }
            (c, b'=') if last => {
                let c = value(c)?;
                if c & 0x03 != 0 {
                    return None;
                }
                out.extend_from_slice(&[a << 2 | b >> 4, b << 4 | c >> 2]);
            }
            (c, d) => {
                let (c, d) = (value(c)?, value(d)?);
                out.extend_from_slice(&[a << 2 | b >> 4, b << 4 | c >> 2, c << 6 | d]);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4648 §10 test vectors.
    const RFC_4648: [(&str, &str); 7] = [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ];

    #[test]
    fn rfc_4648_vectors() {
        for (plain, encoded) in RFC_4648 {
            assert_eq!(encode(plain.as_bytes()), encoded);
            assert_eq!(
                decode(encoded.as_bytes()).as_deref(),
                Some(plain.as_bytes())
            );
        }
    }

    #[test]
    fn every_byte_value_round_trips() {
        let all: Vec<u8> = (0..=255).collect();
        for len in 0..all.len() {
            let e = encode(&all[..len]);
            assert_eq!(decode(e.as_bytes()).as_deref(), Some(&all[..len]));
        }
        assert_eq!(encode(&[0xFB, 0xFF]), "+/8=");
    }

    #[test]
    fn decode_is_strict() {
        for bad in [
            "Zg=", "Zg", "Z===", "Zh==", "Zm9=", "Zg==Zg==", "Zm 9", "Zm9\n", "=m9v", "Zm-v",
        ] {
            assert_eq!(decode(bad.as_bytes()), None, "{bad:?}");
        }
    }
}
