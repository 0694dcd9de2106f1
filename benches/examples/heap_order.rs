//! Page faults per decode of one workload, for several decoders run one after another in
//! one process: shows how much a decoder's page faults (and so its time) depend on what
//! ran before it in the same heap, as in the criterion bench, which runs
//! `boltcodec-ref`, `boltcodec-owned`, `rmpv-ref`, `rmpv-owned` in that order per group.
//!
//! ```text
//! cargo build --profile bench -p boltcodec-benches --example heap_order
//! target/release/examples/heap_order lists_1000x100 200 ref owned rmpv-ref rmpv-owned
//! ```
//!
//! Arguments: a `lists_NxM` workload, decodes per phase, then the decoders in the order
//! to run them (`ref`, `owned`, `rmpv-ref`, `rmpv-owned`; a name may repeat). Each phase
//! decodes and drops the value that many times and prints its minor page faults (from
//! `/proc/self/stat`, Linux only) and mean wall-clock time per decode. The faults do
//! not move with the load of the machine; the times do. A step `free:N` allocates and
//! frees one block of N MiB, as a harness's own buffers may: after `free:2`, glibc no
//! longer trims the heap after a `lists_1000x100` decode, and the faults go away.
use std::hint::black_box;
use std::time::Instant;

use boltcodec_benches::{encode_all, free_block, nested_lists};
use packstream::{Value, ValueRef};

/// Minor page faults of this process so far (field 10 of `/proc/self/stat`).
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat (Linux)");
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let after = &stat[stat.rfind(')').expect("a command name") + 2..];
    after
        .split(' ')
        .nth(7)
        .and_then(|f| f.parse().ok())
        .expect("the minor fault count")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: heap_order lists_NxM DECODES (DECODER | free:MIB)...";
    let (n, m) = args
        .get(1)
        .and_then(|w| w.strip_prefix("lists_")?.split_once('x'))
        .and_then(|(n, m)| Some((n.parse().ok()?, m.parse().ok()?)))
        .expect(usage);
    let rounds: u32 = args.get(2).and_then(|r| r.parse().ok()).expect(usage);
    let (ps, mp) = nested_lists(n, m);
    let (pb, mb) = encode_all(std::slice::from_ref(&ps), std::slice::from_ref(&mp));
    drop((ps, mp));
    println!("| decoder (in run order) | page faults per decode | time per decode |");
    println!("| --- | --- | --- |");
    for name in &args[3..] {
        if let Some(mib) = name.strip_prefix("free:") {
            free_block(mib.parse().expect(usage));
            println!("| (one {mib} MiB block allocated and freed) | | |");
            continue;
        }
        let decode: &dyn Fn() = match name.as_str() {
            "ref" => &|| drop(black_box(ValueRef::decode(black_box(&pb)))),
            "owned" => &|| drop(black_box(Value::decode(black_box(&pb)))),
            "rmpv-ref" => &|| drop(black_box(rmpv::decode::read_value_ref(&mut &mb[..]))),
            "rmpv-owned" => &|| drop(black_box(rmpv::decode::read_value(&mut &mb[..]))),
            other => panic!("unknown decoder {other}; {usage}"),
        };
        let (faults, start) = (minor_faults(), Instant::now());
        for _ in 0..rounds {
            decode();
        }
        let elapsed = start.elapsed() / rounds;
        let faults = (minor_faults() - faults) as f64 / f64::from(rounds);
        println!("| {name} | {faults:.1} | {elapsed:.2?} |");
    }
}
