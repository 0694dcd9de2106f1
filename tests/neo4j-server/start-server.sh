#!/usr/bin/env bash
# Build (if needed) and start the embedded Neo4j Bolt server in the background,
# wait for its ready line, print it, and leave the PID in a file.
#
#   ./start-server.sh [5.26|2026] [PORT]          (defaults: 5.26 7687)
#   stop:  kill "$(cat <pidfile>)"                 (clean shutdown takes ~5-20 s)
#
# Env: NEO4J_AUTH (default neo4j/password, or "none"), JAVA_OPTS (default "-Xmx1g -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"),
#      READY_TIMEOUT (seconds, default 180), STATE_DIR (default $DIR/run),
#      JAVA17_HOME / JAVA21_HOME (JDK to use; default: the first fit under /usr/lib/jvm).
# Exit status 3: no suitable JDK found (nothing was built or started).
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
FLAVOUR="${1:-5.26}"
PORT="${2:-7687}"
STATE_DIR="${STATE_DIR:-$DIR/run}"
mkdir -p "$STATE_DIR"
# find_jdk MIN: the home of an installed JDK whose major version is at least MIN
find_jdk() {
  local home v
  for home in /usr/lib/jvm/*/; do
    [ -x "$home/bin/javac" ] || continue
    v=$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
    if [ -n "$v" ] && [ "$v" -ge "$1" ]; then echo "${home%/}"; return; fi
  done
  echo "no JDK >= $1 under /usr/lib/jvm" >&2; exit 3
}
case "$FLAVOUR" in
  5.26) JH="${JAVA17_HOME:-$(find_jdk 17)}"; PROFILE=(); BUILD=target ;;
  2026) JH="${JAVA21_HOME:-$(find_jdk 21)}"; PROFILE=(-P neo4j-2026); BUILD=target-2026 ;;
  *) echo "unknown flavour $FLAVOUR (5.26|2026)" >&2; exit 2 ;;
esac
JAR="$DIR/$BUILD/neo4j-bolt-server.jar"
if [ ! -f "$JAR" ] || [ "$DIR/src/main/java/bolttest/Main.java" -nt "$JAR" ] || [ "$DIR/pom.xml" -nt "$JAR" ]; then
  echo "building Neo4j $FLAVOUR server (first time: downloads from Maven Central)…" >&2
  t0=$(date +%s)
  JAVA_HOME="$JH" mvn -q -B -Dstyle.color=never -f "$DIR/pom.xml" "${PROFILE[@]}" package >&2   # build output is progress, keep stdout for the ready line
  echo "built $JAR in $(( $(date +%s) - t0 )) s" >&2
fi
LOG="$STATE_DIR/server-$FLAVOUR-$PORT.log"
PIDFILE="$STATE_DIR/server-$FLAVOUR-$PORT.pid"
# shellcheck disable=SC2086
NEO4J_BOLT_PORT="$PORT" "$JH/bin/java" ${JAVA_OPTS:--Xmx1g -XX:TieredStopAtLevel=1 -XX:+UseSerialGC} -jar "$JAR" >"$LOG" 2>&1 &
echo $! >"$PIDFILE"
deadline=$(( $(date +%s) + ${READY_TIMEOUT:-180} ))
while ! grep -q '^NEO4J-BOLT-READY' "$LOG"; do
  if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    echo "server exited before ready; log:" >&2; cat "$LOG" >&2; exit 1
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "server not ready in time; log:" >&2; tail -50 "$LOG" >&2; kill "$(cat "$PIDFILE")"; exit 1
  fi
  sleep 0.2
done
grep '^NEO4J-BOLT-READY' "$LOG"
echo "pidfile: $PIDFILE  log: $LOG"
