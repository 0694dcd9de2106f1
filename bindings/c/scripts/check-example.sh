#!/usr/bin/env bash
# Runs examples/query.c against a live server and checks its output. Called by test.sh
# through scripts/with-neo4j.sh, which exports NEO4J_BOLT_PORT, NEO4J_USER and
# NEO4J_PASSWORD. Arguments: the query binaries to check (e.g. a normal and a sanitizer
# build). Last line: `N passed, M failed`.
set -uo pipefail
passed=0
failed=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# expect NAME WANT_STATUS WANT_STDOUT_FILE_OR_- GREP_STDERR_OR_- -- QUERY ARGS...
check() {
  local name=$1 want_status=$2 want_out=$3 want_err=$4
  shift 5
  local status=0
  "$@" >"$out" 2>"$err" || status=$?
  local ok=1
  if [ "$status" != "$want_status" ]; then
    echo "FAIL $name: exit $status, expected $want_status" >&2
    ok=0
  fi
  if [ "$want_out" != - ] && ! diff -u "$want_out" "$out" >&2; then
    echo "FAIL $name: output differs" >&2
    ok=0
  fi
  if [ "$want_err" != - ] && ! grep -q -- "$want_err" "$err"; then
    echo "FAIL $name: stderr lacks $want_err:" >&2
    cat "$err" >&2
    ok=0
  fi
  if [ "$ok" = 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

expect() { printf '%b' "$1" >"$2"; }

dir=$(mktemp -d)
trap 'rm -rf "$dir" "$out" "$err"' EXIT
expect 'x\ty\ts\n1\t2.5\t"1"\n2\t5.0\t"2"\n3\t7.5\t"3"\n' "$dir/rows"
expect 'd\tp\tm\tdu\ndate("2024-01-31")\tpoint({srid: 7203, x: 1.0, y: 2.0})\t{a: [1, "two", null, true]}\tduration("P1Y2M")\n' "$dir/types"
expect 'a\tr\tb\n(:Person {name: "Alice"})\t[:KNOWS {since: 2020}]\t(:Person {name: "Bob"})\n' "$dir/graph"
expect 'p\tdt\n(:Person {name: "Carol"})-[:KNOWS {since: 2021}]->(:Person {name: "Dave"})\tdatetime("2024-02-29T12:34:56.500+01:00")\n' "$dir/path"

for q in "$@"; do
  b=$(basename "$(dirname "$q")")/$(basename "$q")
  check "$b rows" 0 "$dir/rows" - -- "$q" "UNWIND range(1, 3) AS x RETURN x, x * 2.5 AS y, toString(x) AS s"
  check "$b types, 3-byte reads and writes" 0 "$dir/types" - -- "$q" -c 3 \
    "RETURN date('2024-01-31') AS d, point({x: 1.0, y: 2.0}) AS p, {a: [1, 'two', null, true]} AS m, duration('P1Y2M') AS du"
  check "$b nodes and relationships" 0 "$dir/graph" - -- "$q" \
    "CREATE (a:Person {name: 'Alice'})-[r:KNOWS {since: 2020}]->(b:Person {name: 'Bob'}) RETURN a, r, b"
  check "$b path, 1-byte reads and writes" 0 "$dir/path" - -- "$q" -c 1 \
    "CREATE p = (:Person {name: 'Carol'})-[:KNOWS {since: 2021}]->(:Person {name: 'Dave'}) RETURN p, datetime('2024-02-29T12:34:56.5+01:00') AS dt"
  # 20 000 rows: many RECORD messages per read.
  check "$b 20000 rows" 0 - - -- "$q" "UNWIND range(1, 20000) AS x RETURN x, 'row-' + toString(x) AS s"
  if [ "$(wc -l <"$out")" != 20001 ] || [ "$(tail -n 1 "$out")" != "$(printf '20000\t"row-20000"')" ]; then
    echo "FAIL $b 20000 rows: $(wc -l <"$out") lines, last: $(tail -n 1 "$out")" >&2
    passed=$((passed - 1)); failed=$((failed + 1))
  fi
  # One value of 80 000 bytes: a message of several chunks.
  check "$b 80000-byte string" 0 - - -- "$q" "RETURN reduce(s = '', i IN range(1, 20000) | s + 'abcd') AS big"
  if [ "$(tail -n 1 "$out" | wc -c)" != 80003 ]; then
    echo "FAIL $b 80000-byte string: $(tail -n 1 "$out" | wc -c) bytes" >&2
    passed=$((passed - 1)); failed=$((failed + 1))
  fi
  check "$b syntax error" 1 - "Neo.ClientError.Statement.SyntaxError" -- "$q" "RETURN 1 +"
  check "$b wrong password" 1 - "Neo.ClientError.Security.Unauthorized" -- "$q" -w not-the-password "RETURN 1"
  check "$b closed port" 2 - "cannot connect" -- "$q" -p 1 "RETURN 1"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
