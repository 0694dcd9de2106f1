//! Codec-level throughput into Arrow, reported both per wall-clock second and per
//! second this thread spent on a CPU (from `/proc/thread-self/schedstat`, Linux), so
//! that a machine shared with other work still gives a usable figure.
//!
//! `cargo run --release -p boltcodec-arrow --example throughput [ROWS] [ROUNDS]`
//!
//! Workload: ROWS (default 1,000,000) records of 3 scalars — an integer, a float and a
//! short string — framed as a server sends them, fed to `PullDecoder` 64 KiB at a time
//! (a batch per read, as from a socket).

use std::time::Instant;

use bolt::chunk::Chunker;
use bolt::message::{Record, Response, Success};
use bolt::BoltVersion;
use bolt_arrow::PullDecoder;
use packstream::ValueRef;

const V: BoltVersion = BoltVersion::V5_8;

/// Nanoseconds this thread has run on a CPU, if the kernel says.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rows: usize = args.next().map_or(1_000_000, |a| a.parse().expect("ROWS"));
    let rounds: usize = args.next().map_or(5, |a| a.parse().expect("ROUNDS"));

    let chunker = Chunker::default();
    let mut wire = Vec::new();
    for i in 0..rows {
        let name = format!("name-{i}");
        let rec = Response::Record(Record::new(vec![
            ValueRef::Int(i as i64),
            ValueRef::Float(i as f64 * 0.5),
            ValueRef::String(&name),
        ]));
        rec.encode_framed(V, &chunker, &mut wire).expect("encodes");
    }
    Response::Success(Success::new().with("t_last", 1))
        .encode_framed(V, &chunker, &mut wire)
        .expect("encodes");
    let values = (rows * 3) as f64;
    println!(
        "{rows} rows x 3 scalars, {} bytes framed, {rounds} rounds",
        wire.len()
    );

    let mut best_wall = f64::MAX;
    let mut best_cpu = f64::MAX;
    for round in 0..rounds {
        let cpu0 = cpu_ns();
        let t0 = Instant::now();
        let mut pull = PullDecoder::new(V, ["i", "f", "s"]);
        let mut got = 0;
        for part in wire.chunks(64 * 1024) {
            if let Some(batch) = pull.feed(part).expect("decodes") {
                got += batch.num_rows();
            }
        }
        let wall = t0.elapsed().as_secs_f64();
        assert!(pull.is_done() && got == rows);
        let cpu = match (cpu0, cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64 / 1e9,
            _ => wall,
        };
        best_wall = best_wall.min(wall);
        best_cpu = best_cpu.min(cpu);
        println!(
            "round {round}: wall {:.3} s ({:.1} M values/s), on-CPU {:.3} s ({:.1} M values/s)",
            wall,
            values / wall / 1e6,
            cpu,
            values / cpu / 1e6
        );
    }
    println!(
        "best: {:.1} M values/s wall, {:.1} M values/s on-CPU",
        values / best_wall / 1e6,
        values / best_cpu / 1e6
    );
}
