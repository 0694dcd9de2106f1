//! Internals exposed for the project's benchmarks only (feature `bench-internals`; not a
//! public API): the cost of decoding beside the cost of reading tokens alone.

use crate::error::Error;
use crate::limits::DecodeOptions;
use crate::reader::Reader;

/// Reads every token of `buf` with the bare tokenizer the decoders are built on: every
/// read checked against what remains, sizes against the limits, but no nesting
/// bookkeeping (no depth, no map-key check, no tracking of open containers). Returns how
/// many tokens it read.
///
/// Never inlined, so that the benchmark's loop does not change how it is compiled (see
/// `benches/examples/icount.rs`).
///
/// # Errors
/// The first token that cannot be read.
#[inline(never)]
pub fn flat_token_count(buf: &[u8], opts: DecodeOptions) -> Result<usize, Error> {
    let mut r = Reader::new(buf, opts);
    let mut n = 0;
    while r.pos() < buf.len() {
        r.token()?;
        n += 1;
    }
    Ok(n)
}
