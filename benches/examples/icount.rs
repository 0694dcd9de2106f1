//! Runs one decode workload many times, for instruction counting under callgrind, which
//! counts the same on a busy machine as on an idle one:
//!
//! ```text
//! cargo build --profile bench -p boltcodec-benches --example icount
//! valgrind --tool=callgrind target/release/examples/icount WORKLOAD IMPL ITERS
//! ```
//!
//! WORKLOAD: `lists_NxM`, `records_10000x3`, `rows_350x20` (as in the criterion bench).
//! IMPL: `ref`, `owned` (boltcodec trees), `rmpv-ref`, `rmpv-owned`, `tokens` (the pull
//! decoder, every token) and `flat` (the bare tokenizer under it, no nesting
//! bookkeeping). `benches/icount.sh` runs the table of RESULTS.md.
use std::hint::black_box;

use boltcodec_benches::{encode_all, nested_lists, records};
use packstream::{Value, ValueRef};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (workload, imp, iters) = (&args[1], &args[2], args[3].parse::<usize>().unwrap());
    let split = |p: Vec<Value>, m: Vec<rmpv::Value>| -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        p.iter()
            .zip(&m)
            .map(|(a, b)| encode_all(std::slice::from_ref(a), std::slice::from_ref(b)))
            .unzip()
    };
    let (pb, mb): (Vec<Vec<u8>>, Vec<Vec<u8>>) = match workload.as_str() {
        "records_10000x3" => {
            let (p, m) = records(10_000, 3, false);
            split(p, m)
        }
        "rows_350x20" => {
            let (p, m) = records(350, 20, true);
            split(p, m)
        }
        w => {
            let (n, m) = w.trim_start_matches("lists_").split_once('x').unwrap();
            let (p, m) = nested_lists(n.parse().unwrap(), m.parse().unwrap());
            split(vec![p], vec![m])
        }
    };
    for _ in 0..iters {
        match imp.as_str() {
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
            // Every token of each message through the pull decoder (nesting tracked)...
            "tokens" => pb.iter().for_each(|b| {
                let mut dec = packstream::Decoder::new(black_box(b));
                let mut n = 0usize;
                while dec.position() < b.len() && dec.next_token().is_ok() {
                    n += 1;
                }
                black_box(n);
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
