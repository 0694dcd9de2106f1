//! The dechunker fed a hostile stream in random pieces, through `feed` (draining, or
//! dropping the feed early) and `feed_batch`.
//!
//! Input: `[limits] [mode] [cuts…] stream`. `limits` picks default or tiny
//! `DechunkLimits`; `mode` picks how messages are taken out per piece.
//!
//! Checks: no panic; however the stream is split and however messages are taken out,
//! the same messages (bytes, stream offset, chunk count) and the same final error come
//! out as when the stream is fed whole; a message is borrowed from the input only when
//! it lies there; the buffered bytes never exceed what was fed.
#![no_main]

use bolt::chunk::{DechunkError, DechunkLimits, Dechunker, Message};
use fuzz_common::{pieces, Header};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, PartialEq, Eq)]
struct Got {
    bytes: Vec<u8>,
    offset: u64,
    chunks: u32,
}

fn got(m: &Message<'_>) -> Got {
    Got {
        bytes: m.bytes().to_vec(),
        offset: m.offset(),
        chunks: m.chunk_count(),
    }
}

fn limits(b: u8) -> DechunkLimits {
    match b % 4 {
        0 => DechunkLimits::default(),
        1 => DechunkLimits {
            max_message_size: usize::from(b >> 2),
            max_chunks: 3,
        },
        2 => DechunkLimits {
            max_message_size: 1000,
            max_chunks: u32::from(b >> 2) + 1,
        },
        _ => DechunkLimits {
            max_message_size: 0,
            max_chunks: 0,
        },
    }
}

/// Feeds all pieces; `mode` chooses the way out per piece. Returns the messages, the
/// final error and the NOOP count.
fn run(
    stream: &[u8],
    parts: &[&[u8]],
    lim: DechunkLimits,
    mut mode: u8,
) -> (Vec<Got>, Option<DechunkError>, u64) {
    let mut d = Dechunker::with_limits(lim);
    let mut out = Vec::new();
    let mut fed = 0usize;
    for part in parts {
        fed += part.len();
        mode = mode.rotate_left(3) ^ 0x5A;
        match mode % 3 {
            0 => {
                let mut feed = d.feed(part);
                while let Ok(Some(m)) = feed.next_message() {
                    if let Some(r) = m.input_range() {
                        assert_eq!(&part[r], m.bytes(), "a borrowed message lies in the input");
                    }
                    out.push(got(&m));
                }
                assert!(feed.unprocessed() <= part.len());
            }
            1 => {
                // Take at most one message, then drop the feed: the rest is queued.
                let mut feed = d.feed(part);
                if let Ok(Some(m)) = feed.next_message() {
                    out.push(got(&m));
                }
            }
            _ => {
                let batch = d.feed_batch(part);
                for m in batch.iter() {
                    if let Some(r) = m.input_range() {
                        assert_eq!(&part[r], m.bytes());
                    }
                    out.push(got(&m));
                }
                assert_eq!(batch.len(), batch.iter().count());
            }
        }
        assert!(
            d.buffered_len() <= fed,
            "buffered {} of {fed} bytes",
            d.buffered_len()
        );
        assert_eq!(d.stream_offset(), fed as u64);
    }
    // Take out whatever was queued by dropped feeds.
    loop {
        let mut feed = d.feed(&[]);
        match feed.next_message() {
            Ok(Some(m)) => out.push(got(&m)),
            _ => break,
        }
    }
    assert_eq!(d.stream_offset(), stream.len() as u64);
    let eos = d.end_of_stream();
    if d.error().is_none() && d.is_at_boundary() {
        assert!(eos.is_ok());
    } else {
        assert!(eos.is_err());
    }
    (out, d.error().cloned(), d.noop_count())
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let lim = limits(h.u8());
    let mode = h.u8();
    let cuts = h.cuts();
    let stream = h.rest();

    let whole = run(stream, &[stream], lim, 2);
    let split = run(stream, &pieces(stream, &cuts), lim, mode);
    assert_eq!(whole.0, split.0, "messages differ with the split");
    assert_eq!(whole.1, split.1, "errors differ with the split");
    if whole.1.is_none() {
        assert_eq!(whole.2, split.2, "NOOP counts differ with the split");
    }
    for m in &whole.0 {
        assert!(m.bytes.len() <= lim.max_message_size);
        assert!(m.chunks <= lim.max_chunks);
    }
});
