#!/usr/bin/env bash
# Instructions per decode and per encode (callgrind), boltcodec against rmpv and
# rmp-serde, and the cost per token of the pull decoder (`next_token`) and of the visitor
# walk bindings use (`visit_value`) beside the bare tokenizer's: numbers
# that do not move with the load of a shared machine (criterion's times do). Prints
# markdown tables.
#
#   benches/icount.sh [ITERATIONS] [WORKLOAD...]     (default 20, every workload)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ITERS="${1:-20}"
shift || true
WORKLOADS=("$@")
if [ ${#WORKLOADS[@]} -eq 0 ]; then
  WORKLOADS=(lists_1x1000 lists_100x10 lists_100x100 lists_1000x1 lists_1000x100 records_10000x3 rows_350x20)
fi
cargo build --quiet --profile bench -p boltcodec-benches --example icount --manifest-path "$ROOT/Cargo.toml"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples/icount"
command -v valgrind >/dev/null || { echo "icount.sh: valgrind is needed" >&2; exit 1; }
refs() { # total instructions of a run: workload $1, implementation $2, $3 iterations
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$1" "$2" "$3" 2>&1 |
    awk '/refs:/ {gsub(",", "", $NF); print $NF}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
group() { echo "$1" | sed -e :a -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/;ta'; }
declare -A IR
for w in "${WORKLOADS[@]}"; do
  base=$(refs "$w" ref 0) # data set-up alone
  impls=(ref rmpv-ref owned rmpv-owned tokens visit flat encode rmpv-encode)
  case "$w" in records_* | rows_*) impls+=(serde rmp-serde typed typed-reused rmp-typed) ;; esac
  for i in "${impls[@]}"; do
    IR[$w/$i]=$((($(refs "$w" "$i" "$ITERS") - base) / ITERS))
  done
done
cell() { # ours peer: "a vs b: **ratio×**"
  echo "$(group "${IR[$1]}") vs $(group "${IR[$2]}"): **$(ratio "${IR[$2]}" "${IR[$1]}")×**"
}
echo "| workload | borrowed: boltcodec vs rmpv | owned: boltcodec vs rmpv | serde, untagged enum cells: boltcodec vs rmp-serde | serde, typed structs: boltcodec vs rmp-serde | serde, typed structs, one reused Deserializer: boltcodec vs rmp-serde | pull decoder (next_token), visitor walk (visit_value) vs bare tokenizer |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for w in "${WORKLOADS[@]}"; do
  serde="–" typed="–" reused="–"
  [ -n "${IR[$w/serde]:-}" ] && serde=$(cell "$w/serde" "$w/rmp-serde")
  [ -n "${IR[$w/typed]:-}" ] && typed=$(cell "$w/typed" "$w/rmp-typed")
  [ -n "${IR[$w/typed-reused]:-}" ] && reused=$(cell "$w/typed-reused" "$w/rmp-typed")
  echo "| $w | $(cell "$w/ref" "$w/rmpv-ref") | $(cell "$w/owned" "$w/rmpv-owned") | $serde | $typed | $reused | $(group "${IR[$w/tokens]}"), $(group "${IR[$w/visit]}") vs $(group "${IR[$w/flat]}"): $(ratio "${IR[$w/tokens]}" "${IR[$w/flat]}")×, $(ratio "${IR[$w/visit]}" "${IR[$w/flat]}")× the instructions |"
done
echo
echo "| workload | encode: boltcodec vs rmpv |"
echo "| --- | --- |"
for w in "${WORKLOADS[@]}"; do
  echo "| $w | $(cell "$w/encode" "$w/rmpv-encode") |"
done
