//! SHA-1 (RFC 3174), used only to compute `Sec-WebSocket-Accept` in the opening
//! handshake. SHA-1 is not collision resistant; RFC 6455 uses it as a fixed transform,
//! not for security.

/// The SHA-1 digest of `data`.
pub(crate) fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let mut blocks = data.chunks_exact(64);
    for block in blocks.by_ref() {
        compress(&mut h, block);
    }
    // Padding: 0x80, zeros, and the message length in bits as a big-endian u64, filling
    // one or two final blocks.
    let rest = blocks.remainder();
    let mut tail = [0u8; 128];
    if let Some(head) = tail.get_mut(..rest.len()) {
        head.copy_from_slice(rest);
    }
    if let Some(b) = tail.get_mut(rest.len()) {
        *b = 0x80;
    }
    let tail_len = if rest.len() < 56 { 64 } else { 128 };
    let bits = (data.len() as u64).wrapping_mul(8);
    if let Some(len) = tail.get_mut(tail_len - 8..tail_len) {
        len.copy_from_slice(&bits.to_be_bytes());
    }
    for block in tail.get(..tail_len).unwrap_or_default().chunks_exact(64) {
        compress(&mut h, block);
    }
    let mut out = [0u8; 20];
    for (o, word) in out.chunks_exact_mut(4).zip(h) {
        o.copy_from_slice(&word.to_be_bytes());
    }
    out
}

/// Processes one 64-byte block (RFC 3174 §6.1).
fn compress(h: &mut [u32; 5], block: &[u8]) {
    // The message schedule as a 16-word window: before round t >= 16 it holds
    // W[t-16..t], so W[t-3], W[t-8], W[t-14] and W[t-16] sit at fixed places.
    let mut w = [0u32; 16];
    for (word, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
        if let &[a, b, c, d] = bytes {
            *word = u32::from_be_bytes([a, b, c, d]);
        }
    }
    let [mut a, mut b, mut c, mut d, mut e] = *h;
    for t in 0..80 {
        let wt = if t < 16 {
            let x = w[0];
            w.rotate_left(1);
            x
        } else {
            let x = (w[13] ^ w[8] ^ w[2] ^ w[0]).rotate_left(1);
            w.rotate_left(1);
            w[15] = x;
            x
        };
        let (f, k) = match t {
            0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
            20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
            40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
            _ => (b ^ c ^ d, 0xCA62_C1D6),
        };
        let temp = a
            .rotate_left(5)
            .wrapping_add(f)
            .wrapping_add(e)
            .wrapping_add(k)
            .wrapping_add(wt);
        e = d;
        d = c;
        c = b.rotate_left(30);
        b = a;
        a = temp;
    }
    for (hi, v) in h.iter_mut().zip([a, b, c, d, e]) {
        *hi = hi.wrapping_add(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(digest: [u8; 20]) -> String {
        digest.iter().map(|b| format!("{b:02X}")).collect()
    }

    /// RFC 3174 §7.3, TEST1..TEST4 (TEST3 is one million times "a", TEST4 ten times a
    /// 64-byte string).
    #[test]
    fn rfc_3174_vectors() {
        assert_eq!(
            hex(sha1(b"abc")),
            "A9993E364706816ABA3E25717850C26C9CD0D89D"
        );
        assert_eq!(
            hex(sha1(
                b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
            )),
            "84983E441C3BD26EBAAE4AA1F95129E5E54670F1"
        );
        assert_eq!(
            hex(sha1(&vec![b'a'; 1_000_000])),
            "34AA973CD4C4DAA4F61EEB2BDBAD27316534016F"
        );
        let test4 = b"0123456701234567012345670123456701234567012345670123456701234567".repeat(10);
        assert_eq!(
            hex(sha1(&test4)),
            "DEA356A2CDDD90C7A7ECEDC5EBB563934F460452"
        );
    }

    #[test]
    fn padding_boundaries() {
        // The empty message, and lengths around the one/two padding block boundary.
        assert_eq!(hex(sha1(b"")), "DA39A3EE5E6B4B0D3255BFEF95601890AFD80709");
        let a55 = sha1(&[b'a'; 55]);
        let a56 = sha1(&[b'a'; 56]);
        let a64 = sha1(&[b'a'; 64]);
        assert_eq!(hex(a55), "C1C8BBDC22796E28C0E15163D20899B65621D65A");
        assert_eq!(hex(a56), "C2DB330F6083854C99D4B5BFB6E8F29F201BE699");
        assert_eq!(hex(a64), "0098BA824B5C16427BD7A1122A5A442A25EC644D");
    }
}
