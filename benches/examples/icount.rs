//! Runs one workload many times, for instruction counting under callgrind, which counts
//! the same on a busy machine as on an idle one:
//!
//! ```text
//! cargo build --profile bench -p boltcodec-benches --example icount
//! valgrind --tool=callgrind target/release/examples/icount WORKLOAD IMPL ITERS
//! ```
//!
//! WORKLOAD: `lists_NxM`, `records_10000x3`, `rows_350x20` (as in the criterion bench).
//! IMPL: decode with `ref`, `owned` (boltcodec trees), `rmpv-ref`, `rmpv-owned`,
//! `serde`, `rmp-serde` (rows of an untagged enum per cell; record workloads only),
//! `typed`, `typed-reused`, `rmp-typed` (the same records into concrete structs: one
//! `from_slice` per record, one reused `packstream::serde::Deserializer`), `tokens` (the pull decoder,
//! every token), `visit` (`Decoder::visit_value` with a visitor that only counts: what a
//! binding's visitor costs beyond its own work) and `flat` (the bare tokenizer under
//! them, no nesting bookkeeping); encode
//! with `encode` and `rmpv-encode`. `benches/icount.sh` runs the table of RESULTS.md.
use std::hint::black_box;

use boltcodec_benches::{encode_all, nested_lists, records, Row, TypedRecord, TypedWideRecord};
use packstream::{Encoder, Value, ValueRef};
use serde::Deserialize;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (workload, imp, iters) = (&args[1], &args[2], args[3].parse::<usize>().unwrap());
    let (ps, mp): (Vec<Value>, Vec<rmpv::Value>) = match workload.as_str() {
        "records_10000x3" => records(10_000, 3, false),
        "rows_350x20" => records(350, 20, true),
        w => {
            let (n, m) = w.trim_start_matches("lists_").split_once('x').unwrap();
            let (p, m) = nested_lists(n.parse().unwrap(), m.parse().unwrap());
            (vec![p], vec![m])
        }
    };
    // One buffer per message, as the criterion bench decodes them one call each.
    let (pb, mb): (Vec<Vec<u8>>, Vec<Vec<u8>>) = ps
        .iter()
        .zip(&mp)
        .map(|(a, b)| encode_all(std::slice::from_ref(a), std::slice::from_ref(b)))
        .unzip();
    let all_mb: Vec<u8> = mb.concat();
    let mut out = Vec::with_capacity(pb.iter().map(Vec::len).sum());
    measured(
        workload,
        imp,
        iters,
        (&ps, &mp),
        (&pb, &mb, &all_mb),
        &mut out,
    );
}

/// How [`typed`] decodes the records.
#[derive(Clone, Copy, PartialEq)]
enum Typed {
    /// One `packstream::from_slice` per record.
    FromSlice,
    /// One `packstream::serde::Deserializer`, `decode_exact` per record.
    Reused,
    /// One rmp-serde deserializer over the concatenated records.
    Rmp,
}

/// Typed decode of every record, as [`Typed`] says. Each way is a function of its own,
/// not inlined, so that what the compiler makes of one does not depend on the others.
fn typed(workload: &str, how: Typed, pb: &[Vec<u8>], all_mb: &[u8], n: usize) {
    #[inline(never)]
    fn from_slice<'a, T: Deserialize<'a>>(pb: &'a [Vec<u8>]) {
        pb.iter().for_each(|b| {
            black_box(packstream::from_slice::<T>(black_box(b)).ok());
        });
    }
    #[inline(never)]
    fn reused<'a, T: Deserialize<'a>>(pb: &'a [Vec<u8>]) {
        let mut de = packstream::serde::Deserializer::new(&[]);
        pb.iter().for_each(|b| {
            black_box(de.decode_exact::<T>(black_box(b)).ok());
        });
    }
    #[inline(never)]
    fn rmp<'a, T: Deserialize<'a>>(all_mb: &'a [u8], n: usize) {
        let mut de = rmp_serde::Deserializer::from_read_ref(black_box(all_mb));
        for _ in 0..n {
            black_box(T::deserialize(&mut de).ok());
        }
    }
    fn run<'a, T: Deserialize<'a>>(how: Typed, pb: &'a [Vec<u8>], all_mb: &'a [u8], n: usize) {
        match how {
            Typed::FromSlice => from_slice::<T>(pb),
            Typed::Reused => reused::<T>(pb),
            Typed::Rmp => rmp::<T>(all_mb, n),
        }
    }
    match workload {
        "records_10000x3" => run::<TypedRecord<'_>>(how, pb, all_mb, n),
        _ => run::<TypedWideRecord<'_>>(how, pb, all_mb, n),
    }
}

/// Every token of `b` through the pull decoder; a function of its own, as the bare
/// tokenizer's `flat_token_count` is, so that both are compiled alike (inlined into
/// `measured`, the decoder's state was kept in memory: the comparison measured the
/// bench loop's register pressure).
#[inline(never)]
fn pulled_token_count(b: &[u8]) -> usize {
    let mut dec = packstream::Decoder::new(b);
    let mut n = 0usize;
    while dec.position() < b.len() && dec.next_token().is_ok() {
        n += 1;
    }
    n
}

/// Counts the items `Decoder::visit_value` hands it (and nothing else), so that `visit`
/// measures the walk itself.
struct Count(usize);

impl<'a> packstream::Visitor<'a> for Count {
    type Error = packstream::Error;
    #[inline]
    fn null(&mut self) -> Result<(), Self::Error> {
        self.0 += 1;
        Ok(())
    }
    #[inline]
    fn bool(&mut self, _: bool) -> Result<(), Self::Error> {
        self.0 += 1;
        Ok(())
    }
    #[inline]
    fn int(&mut self, _: i64) -> Result<(), Self::Error> {
        self.0 += 1;
        Ok(())
    }
    #[inline]
    fn float(&mut self, _: f64) -> Result<(), Self::Error> {
        self.0 += 1;
        Ok(())
    }
    #[inline]
    fn string(&mut self, _: &'a str, _: bool) -> Result<(), Self::Error> {
        self.0 += 1;
        Ok(())
    }
    #[inline]
    fn bytes(&mut self, _: &'a [u8]) -> Result<(), Self::Error> {
        self.0 += 1;
        Ok(())
    }
    #[inline]
    fn uuid(&mut self, _: [u8; 16]) -> Result<(), Self::Error> {
        self.0 += 1;
        Ok(())
    }
    #[inline]
    fn list(&mut self, _: u32, _: usize) -> Result<(), Self::Error> {
        self.0 += 1;
        Ok(())
    }
    #[inline]
    fn map(&mut self, _: u32, _: usize) -> Result<(), Self::Error> {
        self.0 += 1;
        Ok(())
    }
    #[inline]
    fn structure(&mut self, _: u8, _: u32, _: usize) -> Result<(), Self::Error> {
        self.0 += 1;
        Ok(())
    }
}

/// Every token of `b` through `Decoder::visit_value` (one walk per value), in a function
/// of its own like [`pulled_token_count`].
#[inline(never)]
fn visited_token_count(b: &[u8]) -> usize {
    let mut dec = packstream::Decoder::new(b);
    let mut count = Count(0);
    while dec.position() < b.len() && dec.visit_value(&mut count).is_ok() {}
    count.0
}

/// The measured loop, on its own so that a profile can be limited to it
/// (`valgrind --tool=callgrind --toggle-collect='*measured*' ...`).
#[inline(never)]
fn measured(
    workload: &str,
    imp: &str,
    iters: usize,
    (ps, mp): (&[Value], &[rmpv::Value]),
    (pb, mb, all_mb): (&[Vec<u8>], &[Vec<u8>], &[u8]),
    out: &mut Vec<u8>,
) {
    for _ in 0..iters {
        match imp {
            "ref" => pb.iter().for_each(|b| {
                black_box(ValueRef::decode(black_box(b)).map(|(v, _)| v).ok());
            }),
            "owned" => pb.iter().for_each(|b| {
                black_box(Value::decode(black_box(b)).map(|(v, _)| v).ok());
            }),
            "rmpv-ref" => mb.iter().for_each(|b| {
                black_box(rmpv::decode::read_value_ref(&mut black_box(&b[..])).ok());
            }),
            "rmpv-owned" => mb.iter().for_each(|b| {
                black_box(rmpv::decode::read_value(&mut black_box(&b[..])).ok());
            }),
            // Typed rows, as in the criterion bench: one `from_slice` per record, and
            // one rmp-serde deserializer over the concatenated records.
            "serde" => pb.iter().for_each(|b| {
                black_box(packstream::from_slice::<Row<'_>>(black_box(b)).ok());
            }),
            "rmp-serde" => {
                let mut de = rmp_serde::Deserializer::from_read_ref(black_box(all_mb));
                for _ in 0..mb.len() {
                    black_box(Row::deserialize(&mut de).ok());
                }
            }
            // The same records into concrete structs (no untagged enum).
            "typed" => typed(workload, Typed::FromSlice, pb, all_mb, mb.len()),
            "typed-reused" => typed(workload, Typed::Reused, pb, all_mb, mb.len()),
            "rmp-typed" => typed(workload, Typed::Rmp, pb, all_mb, mb.len()),
            "encode" => {
                out.clear();
                let mut enc = Encoder::new(&mut *out);
                ps.iter()
                    .for_each(|v| enc.write_value(black_box(v)).expect("encodes"));
                black_box(out.len());
            }
            "rmpv-encode" => {
                out.clear();
                mp.iter().for_each(|v| {
                    rmpv::encode::write_value(&mut *out, black_box(v)).expect("encodes");
                });
                black_box(out.len());
            }
            // Every token of each message through the pull decoder (nesting tracked)...
            "tokens" => pb.iter().for_each(|b| {
                black_box(pulled_token_count(black_box(b)));
            }),
            // ...through the visitor walk bindings use...
            "visit" => pb.iter().for_each(|b| {
                black_box(visited_token_count(black_box(b)));
            }),
            // ...and through the bare tokenizer under it (no nesting bookkeeping).
            "flat" => pb.iter().for_each(|b| {
                let opts = packstream::DecodeOptions::default();
                black_box(packstream::bench::flat_token_count(black_box(b), opts).ok());
            }),
            _ => panic!("impl"),
        }
    }
}
