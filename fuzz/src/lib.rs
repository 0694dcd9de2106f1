//! Helpers shared by the fuzz targets: the versions to try, a reader for the small
//! header each target puts in front of its payload, stream splitting, and a counting
//! allocator that lets a target assert how much memory a decode used at its peak.
//!
//! Input layout: every target reads a few control bytes first (options, version, how to
//! split the stream) and treats the rest as the hostile payload. `fuzz/seed.py` writes
//! seeds in the same layout.

use bolt::BoltVersion;

/// Every version whose rules the crate knows, plus ones it does not (Bolt 1/2, 5.5,
/// 4.4 with the utc patch, a future 7.0), since the decoders take any `BoltVersion`.
pub const VERSIONS: [BoltVersion; 21] = [
    BoltVersion::V6_1,
    BoltVersion::V6_0,
    BoltVersion::V5_8,
    BoltVersion::V5_7,
    BoltVersion::V5_6,
    BoltVersion::V5_4,
    BoltVersion::V5_3,
    BoltVersion::V5_2,
    BoltVersion::V5_1,
    BoltVersion::V5_0,
    BoltVersion::V4_4,
    BoltVersion::V4_4.with_utc_patch(true),
    BoltVersion::V4_3,
    BoltVersion::V4_3.with_utc_patch(true),
    BoltVersion::V4_2,
    BoltVersion::V4_1,
    BoltVersion::V4_0,
    BoltVersion::V3_0,
    BoltVersion::new(2, 0),
    BoltVersion::new(5, 5),
    BoltVersion::new(7, 0),
];

/// The version a control byte names.
pub fn version(b: u8) -> BoltVersion {
    VERSIONS[usize::from(b) % VERSIONS.len()]
}

/// Reads control bytes off the front of the input; missing bytes read as 0.
pub struct Header<'a> {
    data: &'a [u8],
}

impl<'a> Header<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Header { data }
    }

    pub fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.u8(), self.u8()])
    }

    /// Cut points for splitting the payload: a count byte (0..=15) then that many u16s.
    pub fn cuts(&mut self) -> Vec<u16> {
        let n = self.u8() % 16;
        (0..n).map(|_| self.u16()).collect()
    }

    /// The rest of the input: the payload.
    pub fn rest(self) -> &'a [u8] {
        self.data
    }
}

/// `data` cut at the given points (taken modulo its length + 1, sorted): the pieces a
/// transport might deliver. Empty pieces are kept: feeding nothing must be harmless.
pub fn pieces<'a>(data: &'a [u8], cuts: &[u16]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|c| usize::from(*c) % (data.len() + 1))
        .collect();
    at.push(0);
    at.push(data.len());
    at.sort_unstable();
    at.windows(2).map(|w| &data[w[0]..w[1]]).collect()
}

pub use alloc_count::{packstream_bound, peak_during};
