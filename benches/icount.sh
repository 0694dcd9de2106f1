#!/usr/bin/env bash
# Instructions per decode (callgrind), boltcodec against rmpv, and the pull decoder's
# cost per token beside the bare tokenizer's: numbers that do not move with the load
# of a shared machine (criterion's times do). Prints a markdown table.
#
#   benches/icount.sh [ITERATIONS]     (default 20)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ITERS="${1:-20}"
cargo build --quiet --profile bench -p boltcodec-benches --example icount --manifest-path "$ROOT/Cargo.toml"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/icount"
command -v valgrind >/dev/null || { echo "icount.sh: valgrind is needed" >&2; exit 1; }
ir() { # instructions of one iteration of workload $1, implementation $2
  local n b
  n=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$1" "$2" "$ITERS" 2>&1 |
    awk '/refs:/ {gsub(",", "", $NF); print $NF}')
  b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$1" "$2" 0 2>&1 |
    awk '/refs:/ {gsub(",", "", $NF); print $NF}')
  echo $(((n - b) / ITERS))
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "| workload | borrowed: boltcodec vs rmpv (instructions, ratio) | owned: boltcodec vs rmpv | pull decoder vs bare tokenizer (per decode) |"
echo "| --- | --- | --- | --- |"
for w in lists_1x1000 lists_100x10 lists_100x100 lists_1000x1 lists_1000x100 records_10000x3 rows_350x20; do
  r=$(ir "$w" ref); rr=$(ir "$w" rmpv-ref); o=$(ir "$w" owned); ro=$(ir "$w" rmpv-owned)
  t=$(ir "$w" tokens); f=$(ir "$w" flat)
  echo "| $w | $r vs $rr: **$(ratio "$rr" "$r")×** | $o vs $ro: **$(ratio "$ro" "$o")×** | $t vs $f: $(ratio "$t" "$f")× the instructions |"
done
