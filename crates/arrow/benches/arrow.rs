//! Codec-level throughput into Arrow: 1,000,000 rows × 3 scalars (an integer, a float
//! and a short string), framed as a server sends them, decoded by `PullDecoder`.
//! The goal (issue 16) is ≥ 20,000,000 scalar values/s.
//!
//! `cargo bench -p boltcodec-arrow --bench arrow`

#![allow(missing_docs)] // criterion_group! generates undocumented items

use bolt::chunk::Chunker;
use bolt::message::{MessageCodec, Record, Response, Success};
use bolt::BoltVersion;
use bolt_arrow::{ArrowDecoder, PullDecoder};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use packstream::ValueRef;

const ROWS: usize = 1_000_000;
const V: BoltVersion = BoltVersion::V5_8;

/// The framed PULL response and its messages.
fn workload() -> (Vec<u8>, Vec<Vec<u8>>) {
    let chunker = Chunker::default();
    let mut wire = Vec::new();
    let mut messages = Vec::with_capacity(ROWS);
    for i in 0..ROWS {
        let name = format!("name-{i}");
        let rec = Response::Record(Record::new(vec![
            ValueRef::Int(i as i64),
            ValueRef::Float(i as f64 * 0.5),
            ValueRef::String(&name),
        ]))
        .to_vec(V)
        .unwrap();
        chunker.write_message(&rec, &mut wire).unwrap();
        messages.push(rec);
    }
    let done = Response::Success(Success::new().with("t_last", 1))
        .to_vec(V)
        .unwrap();
    chunker.write_message(&done, &mut wire).unwrap();
    (wire, messages)
}

fn bench(c: &mut Criterion) {
    let (wire, messages) = workload();
    let mut g = c.benchmark_group("arrow");
    g.sample_size(10);
    g.throughput(Throughput::Elements((ROWS * 3) as u64));

    // The bytes as read from a socket, 64 KiB at a time: a batch per read.
    g.bench_function("pull_64k_reads", |b| {
        b.iter(|| {
            let mut pull = PullDecoder::new(V, ["i", "f", "s"]);
            let mut rows = 0;
            for part in wire.chunks(64 * 1024) {
                if let Some(batch) = pull.feed(part).unwrap() {
                    rows += batch.num_rows();
                }
            }
            assert_eq!(rows, ROWS);
            black_box(rows)
        })
    });

    // The whole response in one feed: one batch of 1,000,000 rows.
    g.bench_function("pull_one_feed", |b| {
        b.iter(|| {
            let mut pull = PullDecoder::new(V, ["i", "f", "s"]);
            let batch = pull.feed(&wire).unwrap().unwrap();
            assert_eq!(batch.num_rows(), ROWS);
            black_box(batch)
        })
    });

    // Already de-chunked messages in runs of 1,000 (a PULL {n: 1000} each).
    let codec = MessageCodec::new(V);
    g.bench_function("records_runs_of_1000", |b| {
        b.iter(|| {
            let mut dec = ArrowDecoder::new(V, ["i", "f", "s"]);
            let mut rows = 0;
            for run in messages.chunks(1000) {
                let records = codec.decode_records(run);
                rows += dec.decode(records.records()).unwrap().num_rows();
            }
            assert_eq!(rows, ROWS);
            black_box(rows)
        })
    });

    // For comparison: the same messages decoded into the core's ValueRefs only.
    g.bench_function("core_value_refs_only", |b| {
        b.iter(|| {
            let mut n = 0;
            for run in messages.chunks(1000) {
                let records = codec.decode_records(run);
                for r in records.records() {
                    n += r.fields().unwrap().len();
                }
            }
            assert_eq!(n, ROWS * 3);
            black_box(n)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
