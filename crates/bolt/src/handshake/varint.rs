//! The unsigned LEB128 varints of handshake manifest v1 (docs/protocol.md §3.4): counts
//! and capability bits, at most [`MAX_VARINT_LEN`] bytes.

use super::{HandshakeError, Status, MAX_VARINT_LEN};

/// Appends `value` as an unsigned LEB128 varint (7 bits per byte, least significant group
/// first, `0x80` = more bytes follow; docs/protocol.md §3.4). Writes 1 to 10 bytes: 300
/// becomes `AC 02`.
#[cfg_attr(not(any(test, feature = "test-support")), allow(unreachable_pub))]
pub fn encode_varint(mut value: u64, out: &mut Vec<u8>) {
    loop {
        let [low, ..] = (value & 0x7F).to_le_bytes();
        value >>= 7;
        if value == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

/// The number of bytes [`encode_varint`] writes for `value` (1 to 10).
#[cfg(any(test, feature = "test-support"))]
#[must_use]
pub const fn varint_len(value: u64) -> usize {
    let bits = 64 - value.leading_zeros() as usize;
    if bits == 0 {
        1
    } else {
        bits.div_ceil(7)
    }
}

/// Decodes an unsigned LEB128 varint from the start of `input`.
///
/// Returns the value and the number of bytes it took. Non-minimal encodings (such as
/// `80 00` for 0) are accepted, as LEB128 allows them.
///
/// # Errors
///
/// [`HandshakeError::VarintTooLong`] if the 10th byte still has the continuation bit,
/// [`HandshakeError::VarintOverflow`] if a 10-byte varint exceeds 64 bits. Offsets are
/// relative to `input`.
///
/// ```
/// use bolt::handshake::{decode_varint, Status};
/// assert_eq!(decode_varint(&[0xFF, 0x82, 0x71]), Ok(Status::Complete((1_851_775, 3))));
/// assert_eq!(decode_varint(&[0x80]), Ok(Status::NeedMore));
/// assert!(decode_varint(&[0xFF; 11]).is_err());
/// ```
#[cfg(any(test, feature = "test-support"))]
pub fn decode_varint(input: &[u8]) -> Result<Status<(u64, usize)>, HandshakeError> {
    decode_varint_at(input, 0)
}

pub(super) fn decode_varint_at(
    input: &[u8],
    base: usize,
) -> Result<Status<(u64, usize)>, HandshakeError> {
    let mut value: u64 = 0;
    for (i, &byte) in input.iter().take(MAX_VARINT_LEN).enumerate() {
        if i == MAX_VARINT_LEN - 1 {
            if byte & 0x80 != 0 {
                return Err(HandshakeError::VarintTooLong { offset: base + i });
            }
            if byte > 1 {
                return Err(HandshakeError::VarintOverflow { offset: base + i });
            }
        }
        value |= u64::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(Status::Complete((value, i + 1)));
        }
    }
    Ok(Status::NeedMore)
}
