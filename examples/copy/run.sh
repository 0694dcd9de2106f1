#!/usr/bin/env bash
# Copies nodes between two real Neo4j 5.26 servers, with boltcodec's Rust connection
# (crates/bolt/examples/copy.rs), with boltcodec's Python binding in asyncio
# (examples/copy/copy_boltcodec.py) and with the official Python driver
# (examples/copy/copy_driver.py), and checks that every copy is complete.
#
#   examples/copy/run.sh [SIZE...]        (default: 100000)
#
# Starts both servers (scripts/with-neo4j.sh, stopped by PID), then for each SIZE in
# increasing order: grows the source to SIZE nodes, empties the target, copies with
# boltcodec (Rust), checks the target against the source (count and sums over the copied
# properties), empties it, copies with boltcodec (Python), checks, empties, copies with
# the driver, checks again. Prints a table with time, throughput and peak RSS of each
# copy, and each boltcodec copy's throughput against the driver's. With several sizes it
# fails unless each boltcodec copy's peak RSS at the largest is within 1.5x of the
# smallest (memory bounded by the batch, not the node count).
#
# COPY_BATCH (default 10000) is the PULL {n} / UNWIND batch size; COPY_SOURCE_PORT and
# COPY_TARGET_PORT (17601, 17602) the Bolt ports.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SRC_PORT="${COPY_SOURCE_PORT:-17601}"
DST_PORT="${COPY_TARGET_PORT:-17602}"
BATCH="${COPY_BATCH:-10000}"
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(100000)

if [ -z "${COPY_SERVERS_UP:-}" ]; then
  cargo build --quiet --release -p boltcodec-bolt --example copy --example query \
    --manifest-path "$ROOT/Cargo.toml"
  "$ROOT/bindings/python/scripts/install.sh" >/dev/null  # .venv with the boltcodec wheel
  exec "$ROOT/scripts/with-neo4j.sh" 5.26 "$SRC_PORT" -- \
    "$ROOT/scripts/with-neo4j.sh" 5.26 "$DST_PORT" -- \
    env COPY_SERVERS_UP=1 "$0" "${SIZES[@]}"
fi

BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/examples"
PY="$ROOT/.venv/bin/python"
query() { "$BIN/query" --port "$1" "$2" 2>/dev/null | tail -n +2; }
stats() {
  query "$1" "MATCH (n:Item) RETURN count(n), sum(n.id), sum(size(n.name)), sum(n.score), \
    sum(size(n.tags)), sum(CASE WHEN n.active THEN 1 ELSE 0 END), \
    sum(n.born.ordinal)"
}
count() { query "$1" "MATCH (n:Item) RETURN count(n)"; }
empty_target() {
  query "$DST_PORT" "MATCH (n:Item) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS" >/dev/null
}
seed() { # grows the source to $1 nodes
  local have
  have=$(count "$SRC_PORT")
  [ "$have" -lt "$1" ] || return 0
  query "$SRC_PORT" "UNWIND range($have, $1 - 1) AS i CALL { WITH i CREATE (:Item {id: i, \
    name: 'item-' + toString(i), score: i * 0.5, active: i % 2 = 0, \
    tags: ['a', 'b', toString(i % 7)], born: date('2000-01-01') + duration({days: i % 3650})}) \
    } IN TRANSACTIONS OF 10000 ROWS" >/dev/null
}
# Runs a copy command, checks the target, prints "seconds nodes_per_s peak_kib".
copy_and_check() {
  local line
  empty_target
  line=$("$@")
  echo "$line" >&2
  if [ "$(stats "$DST_PORT")" != "$(stats "$SRC_PORT")" ]; then
    echo "copy/run.sh: the target differs from the source after: $*" >&2
    echo "  source: $(stats "$SRC_PORT")" >&2
    echo "  target: $(stats "$DST_PORT")" >&2
    exit 1
  fi
  # "copied N nodes in S s (R nodes/s), peak RSS M KiB"
  echo "$line" | awk '{print $5, substr($7, 2), $11}'
}

query "$SRC_PORT" "CREATE INDEX item_id IF NOT EXISTS FOR (n:Item) ON (n.id)" >/dev/null
echo "| nodes | boltcodec (Rust) | boltcodec (Python asyncio) | official Python driver | Rust / driver | Python / driver |"
echo "| --- | --- | --- | --- | --- | --- |"
first_rss=""
last_rss=""
first_py_rss=""
last_py_rss=""
for n in "${SIZES[@]}"; do
  seed "$n"
  read -r rs rr rm < <(copy_and_check "$BIN/copy" --source "127.0.0.1:$SRC_PORT" \
    --target "127.0.0.1:$DST_PORT" --batch "$BATCH")
  read -r ps pr pm < <(BOLTCODEC_NEO4J=off copy_and_check "$PY" \
    "$ROOT/examples/copy/copy_boltcodec.py" --source "127.0.0.1:$SRC_PORT" \
    --target "127.0.0.1:$DST_PORT" --batch "$BATCH")
  read -r ds dr dm < <(BOLTCODEC_NEO4J=off copy_and_check "$PY" \
    "$ROOT/examples/copy/copy_driver.py" --source "127.0.0.1:$SRC_PORT" \
    --target "127.0.0.1:$DST_PORT" --batch "$BATCH")
  ratio=$(awk -v a="$rr" -v b="$dr" 'BEGIN { printf "%.2f", a / b }')
  py_ratio=$(awk -v a="$pr" -v b="$dr" 'BEGIN { printf "%.2f", a / b }')
  echo "| $n | $rs s, $rr nodes/s, peak RSS $((rm / 1024)) MiB | $ps s, $pr nodes/s, peak RSS $((pm / 1024)) MiB | $ds s, $dr nodes/s, peak RSS $((dm / 1024)) MiB | **${ratio}x** | **${py_ratio}x** |"
  [ -n "$first_rss" ] || first_rss=$rm
  [ -n "$first_py_rss" ] || first_py_rss=$pm
  last_rss=$rm
  last_py_rss=$pm
done
empty_target
if [ ${#SIZES[@]} -gt 1 ]; then
  if [ "$last_rss" -gt $((first_rss * 3 / 2)) ]; then
    echo "copy/run.sh: boltcodec's (Rust) peak RSS grew from $first_rss KiB to $last_rss KiB" >&2
    exit 1
  fi
  if [ "$last_py_rss" -gt $((first_py_rss * 3 / 2)) ]; then
    echo "copy/run.sh: boltcodec's (Python) peak RSS grew from $first_py_rss KiB to $last_py_rss KiB" >&2
    exit 1
  fi
fi
echo "copy/run.sh: every copy checked against the source"
