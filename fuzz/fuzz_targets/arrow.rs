//! `bolt_arrow::PullDecoder`: the bytes of a hostile PULL response decoded into Arrow
//! record batches, fed whole and in random pieces.
//!
//! Input: `[version] [columns] [cuts…] stream`. `version` picks the Bolt version
//! (`fuzz_common::VERSIONS`), `columns % 8` the number of column names given (a record
//! with another number of fields is an error), the cuts how the stream is split.
//!
//! Checks: no panic; every batch is a valid Arrow array set (`validate_full`: offsets,
//! UTF-8, child lengths, null counts) with the decoder's schema and the column names;
//! every error offset lies inside the input; a failed call keeps nothing (schema, done
//! and has_more as before it) and a broken chunk stream stays broken; fed whole or in
//! pieces, a stream that decodes both ways gives the same number of rows and the same
//! end state; peak memory of the whole-stream decode within the documented bound
//! (crate documentation, "Hostile input": 96 bytes per input byte plus 1 MiB).
#![no_main]

use arrow_array::{Array, RecordBatch, StructArray};
use bolt::message::BatchError;
use bolt::BoltVersion;
use bolt_arrow::{Error, PullDecoder};
use fuzz_common::{peak_during, pieces, version, Header};
use libfuzzer_sys::fuzz_target;

const NAMES: [&str; 7] = ["a", "b", "c", "d", "e", "f", "g"];

/// What one run over the pieces ended with.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    rows: usize,
    done: bool,
    has_more: bool,
    failed: bool,
}

fn check_batch(pull: &PullDecoder, batch: &RecordBatch, columns: usize) {
    assert!(batch.num_rows() > 0, "a batch is returned only with rows");
    assert_eq!(batch.num_columns(), columns);
    assert_eq!(
        Some(batch.schema()),
        pull.schema(),
        "the batch has the decoder's schema"
    );
    for (field, name) in batch.schema().fields().iter().zip(NAMES) {
        assert_eq!(field.name(), name);
    }
    let data = StructArray::from(batch.clone()).into_data();
    if let Err(e) = data.validate_full() {
        panic!("invalid Arrow data: {e}");
    }
}

fn check_error(e: &Error, fed: usize) {
    let _ = (e.to_string(), e.kind());
    if let Some(at) = e.stream_offset() {
        assert!(at <= fed as u64, "{e}: stream offset outside {fed} bytes");
    }
    if let Some(at) = e.offset() {
        assert!(at <= fed as u64, "{e}: offset outside {fed} bytes");
    }
}

fn run(v: BoltVersion, columns: usize, parts: &[&[u8]]) -> Outcome {
    let mut pull = PullDecoder::new(v, NAMES[..columns].iter().copied());
    let mut rows = 0;
    let mut fed = 0;
    let mut failed = false;
    for part in parts {
        fed += part.len();
        let before = (pull.schema(), pull.is_done(), pull.has_more());
        match pull.feed(part) {
            Ok(Some(batch)) => {
                check_batch(&pull, &batch, columns);
                rows += batch.num_rows();
            }
            Ok(None) => {}
            Err(e) => {
                check_error(&e, fed);
                let after = (pull.schema(), pull.is_done(), pull.has_more());
                assert_eq!(before, after, "a failed feed changed the decoder: {e}");
                if let Error::Stream(BatchError::Dechunk(_)) = e {
                    // A broken chunk stream stays broken, whatever comes next.
                    let again = pull.feed(&[0x00, 0x02, 0xB0, 0x7E, 0x00, 0x00]);
                    assert!(
                        matches!(again, Err(Error::Stream(BatchError::Dechunk(_)))),
                        "the chunk stream recovered after {e}: {again:?}"
                    );
                }
                failed = true;
                break;
            }
        }
    }
    Outcome {
        rows,
        done: pull.is_done(),
        has_more: pull.has_more(),
        failed,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let v = version(h.u8());
    let columns = usize::from(h.u8() % 8);
    let cuts = h.cuts();
    let stream = h.rest();

    let bound = 96 * stream.len() + (1 << 20);
    let (whole, peak) = peak_during(|| run(v, columns, &[stream]));
    assert!(peak <= bound, "{v}: peak {peak} for {} bytes", stream.len());

    let split = run(v, columns, &pieces(stream, &cuts));
    if !whole.failed && !split.failed {
        assert_eq!(whole, split, "the split changed the result");
    }
});
