//! PackStream decode/encode against rmpv and rmp-serde on equivalent MessagePack data.
//!
//! Groups are named `<workload>/<direction>`; functions are `boltcodec-ref` (borrowed
//! `ValueRef`), `boltcodec-owned` (`Value`), `rmpv-ref`, `rmpv-owned`, and for the typed
//! record workloads `boltcodec-serde` and `rmp-serde` (cells as an untagged enum) and
//! `boltcodec-typed` (`from_slice` per record), `boltcodec-typed-reused` (one
//! `packstream::serde::Deserializer` kept across the records) and `rmp-typed` (concrete
//! structs). `benches/report.py` turns the
//! results into the ratio tables of `benches/RESULTS.md`.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use std::hint::black_box;
use std::time::Duration;

use boltcodec_benches::{
    encode_all, free_block, nested_lists, records, Row, TypedRecord, TypedWideRecord,
};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use packstream::{Encoder, Value, ValueRef};
use serde::Deserialize;

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
}

/// Puts glibc's allocator in the state every function of the bench is measured in.
///
/// Criterion frees large blocks of its own between functions, at points that differ from
/// run to run, so without this a multi-megabyte decode such as `lists_1000x100` was
/// trimmed and faulted in again on every iteration for whichever functions happened to
/// run before the first such free, and not for the others: the cell measured the order,
/// not the codecs. One 4 MiB block freed before any measurement gives every function,
/// ours and rmpv's alike, the same state ([`free_block`]).
fn settle_allocator() {
    free_block(4);
}

/// One value per workload: decode and encode.
fn single_value(c: &mut Criterion) {
    settle_allocator();
    for (n, m) in [(1, 1000), (100, 10), (1000, 1), (100, 100), (1000, 100)] {
        let (ps, mp) = nested_lists(n, m);
        let (pb, mb) = encode_all(std::slice::from_ref(&ps), std::slice::from_ref(&mp));
        let name = format!("lists_{n}x{m}");
        let mut g = c.benchmark_group(format!("{name}/decode"));
        g.throughput(Throughput::Elements((n * m) as u64));
        g.bench_function("boltcodec-ref", |b| {
            b.iter(|| ValueRef::decode(black_box(&pb)).map(|(v, _)| v))
        });
        g.bench_function("boltcodec-owned", |b| {
            b.iter(|| Value::decode(black_box(&pb)).map(|(v, _)| v))
        });
        g.bench_function("rmpv-ref", |b| {
            b.iter(|| rmpv::decode::read_value_ref(&mut black_box(&mb[..])))
        });
        g.bench_function("rmpv-owned", |b| {
            b.iter(|| rmpv::decode::read_value(&mut black_box(&mb[..])))
        });
        g.finish();
        let mut g = c.benchmark_group(format!("{name}/encode"));
        g.throughput(Throughput::Elements((n * m) as u64));
        let mut out = Vec::with_capacity(pb.len());
        g.bench_function("boltcodec-owned", |b| {
            b.iter(|| {
                out.clear();
                Encoder::new(&mut out)
                    .write_value(black_box(&ps))
                    .map(|()| out.len())
            })
        });
        let mut out = Vec::with_capacity(mb.len());
        g.bench_function("rmpv-owned", |b| {
            b.iter(|| {
                out.clear();
                rmpv::encode::write_value(&mut out, black_box(&mp)).map(|()| out.len())
            })
        });
        g.finish();
    }
}

/// Many small messages, decoded one call per record as a driver does.
fn record_batches(c: &mut Criterion) {
    for (name, rows, cols, wide) in [
        ("records_10000x3", 10_000, 3, false),
        ("rows_350x20", 350, 20, true),
    ] {
        let (ps, mp) = records(rows, cols, wide);
        let (pb, mb) = encode_all(&ps, &mp);
        let mut g = c.benchmark_group(format!("{name}/decode"));
        g.throughput(Throughput::Elements(rows as u64));
        g.bench_function("boltcodec-ref", |b| {
            b.iter(|| {
                let mut rest = &pb[..];
                let mut n = 0;
                while !rest.is_empty() {
                    let (v, used) = ValueRef::decode(rest).expect("decodes");
                    black_box(v);
                    rest = &rest[used..];
                    n += 1;
                }
                n
            })
        });
        g.bench_function("boltcodec-owned", |b| {
            b.iter(|| {
                let mut rest = &pb[..];
                while !rest.is_empty() {
                    let (v, used) = Value::decode(rest).expect("decodes");
                    black_box(v);
                    rest = &rest[used..];
                }
            })
        });
        g.bench_function("rmpv-ref", |b| {
            b.iter(|| {
                let mut rest = &mb[..];
                while !rest.is_empty() {
                    black_box(rmpv::decode::read_value_ref(&mut rest).expect("decodes"));
                }
            })
        });
        g.bench_function("rmpv-owned", |b| {
            b.iter(|| {
                let mut rest = &mb[..];
                while !rest.is_empty() {
                    black_box(rmpv::decode::read_value(&mut rest).expect("decodes"));
                }
            })
        });
        // Typed decoding through serde. PackStream's one-value-per-call API needs the byte
        // span of each record, which the pull decoder gives.
        let spans: Vec<&[u8]> = {
            let mut rest = &pb[..];
            let mut v = Vec::new();
            while !rest.is_empty() {
                let (_, used) = ValueRef::decode(rest).expect("decodes");
                v.push(&rest[..used]);
                rest = &rest[used..];
            }
            v
        };
        g.bench_function("boltcodec-serde", |b| {
            b.iter(|| {
                for span in &spans {
                    black_box(packstream::from_slice::<Row<'_>>(span).expect("decodes"));
                }
            })
        });
        g.bench_function("rmp-serde", |b| {
            b.iter(|| {
                let mut de = rmp_serde::Deserializer::from_read_ref(&mb[..]);
                for _ in 0..rows {
                    black_box(Row::deserialize(&mut de).expect("decodes"));
                }
            })
        });
        // The same records into concrete structs (no untagged enum).
        fn typed<'a, T: Deserialize<'a>>(
            g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
            spans: &[&'a [u8]],
            mb: &'a [u8],
            rows: usize,
        ) {
            g.bench_function("boltcodec-typed", |b| {
                b.iter(|| {
                    for span in spans {
                        black_box(packstream::from_slice::<T>(span).expect("decodes"));
                    }
                })
            });
            // What a caller decoding a stream of RECORD messages would use: one
            // deserializer kept across the messages, each decoded exactly.
            g.bench_function("boltcodec-typed-reused", |b| {
                let mut de = packstream::serde::Deserializer::new(&[]);
                b.iter(|| {
                    for span in spans {
                        black_box(de.decode_exact::<T>(span).expect("decodes"));
                    }
                })
            });
            g.bench_function("rmp-typed", |b| {
                b.iter(|| {
                    let mut de = rmp_serde::Deserializer::from_read_ref(mb);
                    for _ in 0..rows {
                        black_box(T::deserialize(&mut de).expect("decodes"));
                    }
                })
            });
        }
        if wide {
            typed::<TypedWideRecord<'_>>(&mut g, &spans, &mb, rows);
        } else {
            typed::<TypedRecord<'_>>(&mut g, &spans, &mb, rows);
        }
        g.finish();
        let mut g = c.benchmark_group(format!("{name}/encode"));
        g.throughput(Throughput::Elements(rows as u64));
        let mut out = Vec::with_capacity(pb.len());
        g.bench_function("boltcodec-owned", |b| {
            b.iter(|| {
                out.clear();
                let mut enc = Encoder::new(&mut out);
                for v in &ps {
                    enc.write_value(black_box(v)).expect("encodes");
                }
                out.len()
            })
        });
        let mut out = Vec::with_capacity(mb.len());
        g.bench_function("rmpv-owned", |b| {
            b.iter(|| {
                out.clear();
                for v in &mp {
                    rmpv::encode::write_value(&mut out, black_box(v)).expect("encodes");
                }
                out.len()
            })
        });
        g.finish();
    }
}

criterion_group! { name = benches; config = config(); targets = single_value, record_batches }
criterion_main!(benches);
