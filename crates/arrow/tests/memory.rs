//! Peak memory of decoding into Arrow, measured with the counting allocator: hostile
//! shapes that make many values from few bytes stay within a fixed multiple of the
//! input, and a stream fed in pieces holds one batch, not the result.

use bolt::chunk::Chunker;
use bolt::message::{Record, Response, Success};
use bolt::BoltVersion;
use bolt_arrow::PullDecoder;
use packstream::ValueRef;
use test_support::peak_during;

const V: BoltVersion = BoltVersion::V5_8;

/// The documented bound (crate documentation, "Hostile input"): 96 bytes per input
/// byte, plus 1 MiB. Measured: at most about 50 bytes per input byte.
fn bound(input: usize) -> usize {
    96 * input + (1 << 20)
}

/// One RECORD whose single field is `field` (raw PackStream), framed, then SUCCESS.
fn response_with_field(field: &[u8]) -> Vec<u8> {
    let chunker = Chunker::default();
    let mut wire = Vec::new();
    let mut message = vec![0xB1, 0x71, 0x91];
    message.extend_from_slice(field);
    chunker.write_message(&message, &mut wire).unwrap();
    Response::Success(Success::new().with("t_last", 1))
        .encode_framed(V, &chunker, &mut wire)
        .unwrap();
    wire
}

/// A LIST_32 header for `n` items, then `item` `n` times.
fn list_of(n: usize, item: &[u8]) -> Vec<u8> {
    let mut out = vec![0xD6];
    out.extend_from_slice(&(n as u32).to_be_bytes());
    for _ in 0..n {
        out.extend_from_slice(item);
    }
    out
}

fn peak_of(wire: &[u8]) -> usize {
    let (rows, peak) = peak_during(|| {
        let mut pull = PullDecoder::new(V, ["x"]);
        let batch = pull.feed(wire).expect("decodes");
        assert!(pull.is_done());
        batch.map_or(0, |b| b.num_rows())
    });
    assert_eq!(rows, 1);
    peak
}

#[test]
fn hostile_shapes_stay_within_a_multiple_of_the_input() {
    let n = 100_000;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        // structures of an unknown tag: each becomes canonical text ("broken(…)")
        ("unknown structures", list_of(n, &[0xB0, 0x00])),
        // empty lists and maps: offsets and validity per item
        ("empty lists", list_of(n, &[0x90])),
        ("empty maps", list_of(n, &[0xA0])),
        // a map with n entries of one-byte keys
        ("map entries", {
            let mut m = vec![0xDA];
            m.extend_from_slice(&(n as u32).to_be_bytes());
            for _ in 0..n {
                m.extend_from_slice(&[0x80, 0xC0]);
            }
            m
        }),
        // nulls and tiny integers mixed with strings: canonical text per item
        ("mixed items", {
            let mut l = list_of(n, &[0x01, 0x80]);
            // n pairs: 2n items
            l[1..5].copy_from_slice(&(2 * n as u32).to_be_bytes());
            l
        }),
        // nodes with no labels and no properties: a struct per item
        (
            "empty nodes",
            list_of(n, &[0xB4, 0x4E, 0x01, 0x90, 0xA0, 0x80]),
        ),
        // a thousand nested lists (the decoder's default depth limit is 1024)
        ("deep nesting", {
            let mut v = vec![0x91; 1000];
            v.push(0x01);
            v
        }),
    ];
    for (name, field) in cases {
        let wire = response_with_field(&field);
        let peak = peak_of(&wire);
        eprintln!(
            "{name}: {} bytes in, peak {peak} bytes ({:.1} per input byte)",
            wire.len(),
            peak as f64 / wire.len() as f64
        );
        assert!(
            peak <= bound(wire.len()),
            "{name}: peak {peak} for {} bytes (bound {})",
            wire.len(),
            bound(wire.len())
        );
    }
}

#[test]
fn a_stream_fed_in_pieces_holds_one_batch_not_the_result() {
    // 200,000 records of 3 scalars, fed 64 KiB at a time: the peak while decoding is
    // that of a few reads' worth of records, not of the whole result.
    let chunker = Chunker::default();
    let mut wire = Vec::new();
    for i in 0..200_000i64 {
        Response::Record(Record::new(vec![
            ValueRef::Int(i),
            ValueRef::Float(0.5),
            ValueRef::String("name"),
        ]))
        .encode_framed(V, &chunker, &mut wire)
        .unwrap();
    }
    Response::Success(Success::new().with("t_last", 1))
        .encode_framed(V, &chunker, &mut wire)
        .unwrap();
    let (rows, peak) = peak_during(|| {
        let mut pull = PullDecoder::new(V, ["i", "f", "s"]);
        let mut rows = 0;
        for part in wire.chunks(64 * 1024) {
            if let Some(b) = pull.feed(part).unwrap() {
                rows += b.num_rows();
            }
        }
        rows
    });
    assert_eq!(rows, 200_000);
    eprintln!(
        "{} bytes fed in 64 KiB pieces: peak {peak} bytes",
        wire.len()
    );
    assert!(
        peak < 2 << 20,
        "peak {peak} for a {} byte stream",
        wire.len()
    );
}
