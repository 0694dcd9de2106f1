#!/usr/bin/env bash
# Run a command against a real, throw-away Neo4j server.
#
#   scripts/with-neo4j.sh FLAVOUR PORT -- COMMAND [ARGS...]
#
#   FLAVOUR  5.26  Neo4j 5.26.30 LTS, runs on Java 17+
#            2026  Neo4j 2026.08.1, needs a JDK 21+ (e.g. Temurin 25)
#   PORT     Bolt port on 127.0.0.1 (plain Bolt, no TLS)
#
# Builds the embedded server of tests/neo4j-server/ if needed (Maven; the first
# build downloads Neo4j from Maven Central into ~/.m2), starts it, runs COMMAND
# with these variables set, then stops the server again, whatever happened:
#
#   NEO4J_BOLT_PORT=PORT  NEO4J_FLAVOUR=FLAVOUR  NEO4J_USER=neo4j  NEO4J_PASSWORD=password
#
# Exits with COMMAND's exit status (1 if the server could not be started).
# FLAVOUR 2026 without a JDK 21+ on the machine: prints
# "skipping Neo4j 2026.x: no Java 21+ JDK" and exits 0 without running COMMAND.
#
# JDKs are looked up under /usr/lib/jvm; JAVA17_HOME / JAVA21_HOME override that.
# Server log and pid file: tests/neo4j-server/run/server-FLAVOUR-PORT.{log,pid}
# (STATE_DIR overrides the directory). Progress goes to stderr.
#
# COMMAND runs in the foreground (it keeps stdin and gets Ctrl-C). A SIGTERM sent to
# this script alone takes effect once COMMAND has finished. After a kill -9 of this
# script the server keeps running; the next run on the same FLAVOUR and PORT notices its
# pid file and refuses to start until it is stopped (kill "$(cat THE_PID_FILE)").
set -euo pipefail

usage() { echo "usage: $0 5.26|2026 PORT -- COMMAND [ARGS...]" >&2; exit 2; }
if [ $# -lt 4 ] || [ "$3" != "--" ]; then usage; fi
FLAVOUR=$1
PORT=$2
shift 3
case "$FLAVOUR" in 5.26|2026) ;; *) usage ;; esac
case "$PORT" in '' | *[!0-9]*) usage ;; esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVER_DIR="$ROOT/tests/neo4j-server"
export STATE_DIR="${STATE_DIR:-$SERVER_DIR/run}"
PIDFILE="$STATE_DIR/server-$FLAVOUR-$PORT.pid"
NEO4J_USER=neo4j
NEO4J_PASSWORD=password

# alive PID: the process exists and is not a zombie waiting to be reaped
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  [ -r "/proc/$1/stat" ] || return 0
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [ "${stat%% *}" != Z ]
}

if [ -f "$PIDFILE" ]; then
  old=$(cat "$PIDFILE")
  if [ -n "$old" ] && alive "$old"; then
    echo "with-neo4j: a server from an earlier run is still up (pid $old, $PIDFILE); stop it first" >&2
    exit 1
  fi
  rm -f "$PIDFILE"
fi

# shellcheck disable=SC2317  # called by the EXIT trap
stop_server() {
  [ -f "$PIDFILE" ] || return 0
  local pid i
  pid=$(cat "$PIDFILE")
  if [ -n "$pid" ] && alive "$pid"; then
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 300; i++)); do   # clean shutdown: up to 30 s
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      echo "with-neo4j: pid $pid still running after 30 s; kill -9" >&2
      kill -9 "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$PIDFILE"
  echo "stopped Neo4j $FLAVOUR server (pid $pid)" >&2
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

t0=$(date +%s)
rc=0
ready=$(NEO4J_AUTH="$NEO4J_USER/$NEO4J_PASSWORD" "$SERVER_DIR/start-server.sh" "$FLAVOUR" "$PORT") || rc=$?
if [ "$rc" -eq 3 ] && [ "$FLAVOUR" = 2026 ]; then
  echo "skipping Neo4j 2026.x: no Java 21+ JDK (set JAVA21_HOME or install one under /usr/lib/jvm)" >&2
  exit 0
elif [ "$rc" -ne 0 ]; then
  echo "with-neo4j: could not start the Neo4j $FLAVOUR server (start-server.sh exit $rc)" >&2
  exit 1
fi
line=$(printf '%s\n' "$ready" | grep -m1 'NEO4J-BOLT-READY' || true)
version=$(printf '%s\n' "$line" | sed -n 's/.* neo4j=\([^ ]*\).*/\1/p')
java=$(printf '%s\n' "$line" | sed -n 's/.* java=\([^ ]*\).*/\1/p')
echo "started Neo4j $version (Java $java) on bolt://127.0.0.1:$PORT pid $(cat "$PIDFILE") in $(( $(date +%s) - t0 )) s" >&2

set +e
NEO4J_BOLT_PORT="$PORT" NEO4J_FLAVOUR="$FLAVOUR" NEO4J_USER="$NEO4J_USER" NEO4J_PASSWORD="$NEO4J_PASSWORD" "$@"
status=$?
set -e
exit "$status"
