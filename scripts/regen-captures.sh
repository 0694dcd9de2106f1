#!/usr/bin/env bash
# Record the Bolt captures in tests/captures/ again, against real Neo4j servers.
#
#   scripts/regen-captures.sh [OUT_DIR]        (default: tests/captures)
#
# What it does:
#   1. creates .venv-capture/ at the repository root (once) with the official Python
#      driver, neo4j==6.4.1, the version the checked-in captures were made with;
#   2. starts Neo4j 5.26 (scripts/with-neo4j.sh, Java 17) and runs
#      tests/neo4j-server/tools/capture.py once per set:
#        neo4j-<v>/bolt-5.8               the driver's own proposals (manifest handshake)
#        neo4j-<v>/bolt-5.0               --offer 5.0
#        neo4j-<v>/bolt-4.4               --offer 4.4
#        neo4j-<v>/bolt-4.4-no-utc-patch  --offer 4.4 --no-utc-patch
#   3. starts Neo4j 2026 (Java 21+; skipped with a message when there is none) and runs
#        neo4j-<v>/bolt-6.1               --cypher25
#   4. checks every written file with tools/verify_captures.py.
# <v> is the Neo4j version in tests/neo4j-server/pom.xml.
#
# The large_result case (about 7 MB per set) is left out, as in the checked-in set;
# INCLUDE_LARGE_RESULT=1 records it too. PORT_526 and PORT_2026 (default 17687 and 17697)
# choose the Bolt ports. It takes a few minutes; see tests/captures/README.md for what
# differs from run to run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/tests/neo4j-server/tools"
VENV="$ROOT/.venv-capture"
PY="$VENV/bin/python"

# capture_set DIR [CAPTURE_ARGS...]: one set against the server of with-neo4j.sh
capture_set() {
  local dir=$1 log
  shift
  local only=()
  if [ "${INCLUDE_LARGE_RESULT:-0}" != 1 ]; then
    # every case that capture.py would run, except large_result
    # shellcheck disable=SC2207
    only=(--only $("$PY" -c '
import sys; sys.path.insert(0, sys.argv[1]); import capture
cases = capture.CASES + (capture.CASES_CYPHER25 if "--cypher25" in sys.argv[2:] else [])
print(" ".join(c[0] for c in cases if c[0] != "large_result"))' "$TOOLS" "$@"))
  fi
  echo "== $dir (capture.py $*)" >&2
  log=$("$PY" "$TOOLS/capture.py" --target "$NEO4J_BOLT_PORT" --out "$OUT/$dir" "$@" "${only[@]}")
  printf '%s\n' "$log" >&2
  # capture.py exits 0 even when a case fails; its summary line tells
  grep -q '^[0-9]* passed, 0 failed$' <<<"$log" || { echo "regen-captures: failures in $dir" >&2; return 1; }
}

# Internal: what runs inside with-neo4j.sh, for the server it started.
if [ "${1:-}" = --inside ]; then
  case "$NEO4J_FLAVOUR" in
    5.26)
      capture_set "neo4j-$V526/bolt-5.8"
      capture_set "neo4j-$V526/bolt-5.0" --offer 5.0
      capture_set "neo4j-$V526/bolt-4.4" --offer 4.4
      capture_set "neo4j-$V526/bolt-4.4-no-utc-patch" --offer 4.4 --no-utc-patch
      ;;
    2026)
      capture_set "neo4j-$V2026/bolt-6.1" --cypher25
      ;;
  esac
  exit 0
fi

mkdir -p "${1:-$ROOT/tests/captures}"
OUT="$(cd "${1:-$ROOT/tests/captures}" && pwd)"
# the two Neo4j versions of pom.xml: the default (5.26) first, then the neo4j-2026 profile's
mapfile -t versions < <(sed -n 's:.*<neo4j.version>\(.*\)</neo4j.version>.*:\1:p' "$ROOT/tests/neo4j-server/pom.xml")
[ "${#versions[@]}" -eq 2 ] || { echo "regen-captures: cannot read the two Neo4j versions from pom.xml" >&2; exit 1; }
export OUT V526="${versions[0]}" V2026="${versions[1]}"

if [ ! -x "$PY" ]; then
  echo "creating $VENV with neo4j==6.4.1" >&2
  python3 -m venv "$VENV"
  "$PY" -m pip install -q neo4j==6.4.1 pytz
fi
"$PY" -c 'import neo4j, sys; sys.exit(neo4j.__version__ != "6.4.1")' \
  || echo "regen-captures: warning: $VENV has neo4j $("$PY" -c 'import neo4j; print(neo4j.__version__)'), not 6.4.1" >&2

self="$ROOT/scripts/regen-captures.sh"
"$ROOT/scripts/with-neo4j.sh" 5.26 "${PORT_526:-17687}" -- bash "$self" --inside
"$ROOT/scripts/with-neo4j.sh" 2026 "${PORT_2026:-17697}" -- bash "$self" --inside

python3 "$TOOLS/verify_captures.py" "$OUT"
