#!/usr/bin/env bash
# The numbers of the "Arrow" section of benches/RESULTS.md, printed (the section is
# written from this output).
#
#   crates/arrow/scripts/bench.sh [ROUNDS]      (default 3)
#
# 1. codec level: `cargo run --release -p boltcodec-arrow --example throughput`
#    (1,000,000 rows x 3 scalars fed 64 KiB at a time; values/s per wall second and per
#    on-CPU second);
# 2. against a throw-away Neo4j 5.26 on port 17487 (scripts/with-neo4j.sh):
#    * crates/arrow/tests/server.rs, release build: 1,000,000 rows into Arrow against
#      the socket floor, and the peak RSS of a 10,000,000-row read in batches
#      (PULL 10,000; ARROW_ROWS overrides the row count);
#    * crates/arrow/scripts/pybench.py: Python end to end, ArrowStream -> pyarrow /
#      polars against the driver's Result.to_df() (pure, boltcodec, neo4j-rust-ext)
#      and the bare socket, alternating rounds.
#
# Needs .venv-arrow (boltcodec with boltcodec.arrow, pyarrow, polars, pandas, neo4j)
# and .venv-rustext (neo4j + neo4j-rust-ext); bindings/python/scripts/install.sh makes
# .venv-rustext. Exits non-zero if anything failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
ROUNDS=${1:-3}

if [ "${1:-}" = "--against-server" ]; then
  ROUNDS=$2
  cargo test --release -q -p boltcodec-arrow --test server -- --ignored --nocapture \
    --test-threads=1 one_million_rows_of_three_scalars_timed_against_the_socket_floor
  cargo test --release -q -p boltcodec-arrow --test server -- --ignored --nocapture \
    --test-threads=1 peak_memory_of_a_batched_read_does_not_grow_with_the_rows
  .venv-arrow/bin/python crates/arrow/scripts/pybench.py --rounds "$ROUNDS" \
    --rustext .venv-rustext/bin/python
  exit 0
fi

echo "== $(date -u +%FT%TZ), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== codec level"
cargo run --release -q -p boltcodec-arrow --example throughput
cargo test --release -q -p boltcodec-arrow --test server --no-run
echo "== against Neo4j 5.26"
scripts/with-neo4j.sh 5.26 17487 -- bash crates/arrow/scripts/bench.sh --against-server "$ROUNDS"
echo "== done, load average $(cut -d' ' -f1-3 /proc/loadavg)"
