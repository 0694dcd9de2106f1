#!/usr/bin/env bash
# Every test of the boltcodec C library:
#
#   1. build libboltcodec (release and debug) and check that include/boltcodec.h is what
#      cbindgen generates from the sources (CI fails on any difference);
#   2. build the C tests with CMake (C11 and C++17, -Wall -Wextra -pedantic -Werror) and
#      run them: the header checks, test_api, test_vectors on tests/vectors,
#      test_deep, test_interleave and test_arrow (the Arrow C stream interface);
#   3. the same under AddressSanitizer + UndefinedBehaviorSanitizer, first with the
#      ordinary library, then with the library itself built under AddressSanitizer
#      (nightly `-Zsanitizer=address`), so that the loads and stores of its own `unsafe`
#      FFI code are checked too, not only the C side (skipped without nightly);
#   3b. the crate's Rust tests under Miri (scripts/miri.sh; skipped without nightly);
#   4. `make install` into a temporary prefix, then build and run a consumer through the
#      CMake package (shared and static) and through pkg-config;
#   5. the example (examples/query.c, normal and sanitizer builds) against a real Neo4j
#      5.26 started by scripts/with-neo4j.sh (needs Java 17+ and Maven).
#
# Honours CARGO_TARGET_DIR. Exit status non-zero on any failure; the last line is
# `N passed, M failed`, summed over every suite.
#
#   bindings/c/scripts/test.sh [--no-server]
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
PORT="${BOLTCODEC_C_TEST_PORT:-18087}"
WITH_SERVER=1
[ "${1:-}" = --no-server ] && WITH_SERVER=0

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
passed=0
failed=0

log() { printf '== %s\n' "$*" >&2; }
pass() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }

# Runs a test program; adds its closing `N passed, M failed` to the totals.
suite() {
  local name=$1
  shift
  local out="$WORK/out.txt" status=0
  "$@" >"$out" 2>"$WORK/err.txt" || status=$?
  local last
  last=$(tail -n 1 "$out")
  if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
    echo "   $name: $last" >&2
    if [ "$status" != 0 ] && [ "${BASH_REMATCH[2]}" = 0 ]; then fail "$name exited $status"; fi
  else
    fail "$name (exit $status, no summary line)"
  fi
  if [ "$status" != 0 ]; then tail -n 40 "$WORK/err.txt" >&2; fi
}

cd "$ROOT"

log "build libboltcodec and check include/boltcodec.h"
if BOLTCODEC_CHECK_HEADER=1 cargo build -q --release -p boltcodec-c &&
  BOLTCODEC_CHECK_HEADER=1 cargo build -q -p boltcodec-c; then
  pass
else
  fail "cargo build (or include/boltcodec.h out of date: run bindings/c/scripts/update-header.sh)"
  echo "$passed passed, $failed failed"
  exit 1
fi

build_tests() { # DIR LIBDIR SANITIZE
  cmake -S "$HERE" -B "$1" -DBOLTCODEC_LIB_DIR="$2" -DBOLTCODEC_SANITIZE="$3" \
    -DCMAKE_BUILD_TYPE=Debug >"$WORK/cmake.log" 2>&1 &&
    cmake --build "$1" -j 2 >>"$WORK/cmake.log" 2>&1
}

run_tests() { # DIR LABEL
  suite "header as C11 ($2)" "$1/header_c"
  suite "header as C++17 ($2)" "$1/header_cxx"
  suite "test_api ($2)" "$1/test_api"
  suite "test_vectors ($2)" "$1/test_vectors" "$ROOT/tests/vectors/packstream.json"
  suite "test_deep ($2)" "$1/test_deep"
  suite "test_interleave ($2)" "$1/test_interleave"
  suite "test_arrow ($2)" "$1/test_arrow"
}

log "C tests"
if build_tests "$WORK/build" "$TARGET_DIR/release" OFF; then
  run_tests "$WORK/build" plain
else
  cat "$WORK/cmake.log" >&2
  fail "building the C tests"
fi

log "C tests under AddressSanitizer + UndefinedBehaviorSanitizer"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
if build_tests "$WORK/asan" "$TARGET_DIR/debug" ON; then
  run_tests "$WORK/asan" "asan+ubsan"
else
  cat "$WORK/cmake.log" >&2
  fail "building the C tests with sanitizers"
fi

log "C tests under ASan + UBSan, with libboltcodec itself built under ASan"
# Without this step a Rust-side read past a buffer the caller passed goes unseen: only
# the C code is instrumented. Its own target directory, so that the nightly build with
# other flags does not invalidate the ordinary ones.
# The nightly toolchain's host triple; empty without nightly (steps 3 and 3b skip).
NIGHTLY_HOST=$(rustup run nightly rustc -vV 2>/dev/null | sed -n 's/^host: //p' || true)
NO_NIGHTLY="   skipped: no nightly toolchain (rustup toolchain install nightly)"
if [ -n "$NIGHTLY_HOST" ]; then
  if RUSTFLAGS="-Zsanitizer=address" CARGO_TARGET_DIR="$TARGET_DIR/rust-asan" \
    cargo +nightly build -q -p boltcodec-c --target "$NIGHTLY_HOST" &&
    build_tests "$WORK/rust-asan" "$TARGET_DIR/rust-asan/$NIGHTLY_HOST/debug" ON; then
    run_tests "$WORK/rust-asan" "asan+ubsan, instrumented library"
  else
    cat "$WORK/cmake.log" >&2
    fail "building libboltcodec or the C tests with the library under ASan"
  fi
else
  echo "$NO_NIGHTLY" >&2
fi

log "the Rust tests of the C API under Miri"
if [ -n "$NIGHTLY_HOST" ]; then
  if "$HERE/scripts/miri.sh" >"$WORK/miri.log" 2>&1; then
    pass
    grep -E '^test result:' "$WORK/miri.log" | sed 's/^/   /' >&2
  else
    tail -n 60 "$WORK/miri.log" >&2
    fail "Miri (bindings/c/scripts/miri.sh)"
  fi
else
  echo "$NO_NIGHTLY" >&2
fi

log "install, then use it through CMake and pkg-config"
PREFIX="$WORK/prefix"
if make -s -C "$HERE" install PREFIX="$PREFIX" >"$WORK/install.log" 2>&1; then
  pass
  for mode in OFF ON; do
    b="$WORK/consumer-$mode"
    if cmake -S "$HERE/tests/consumer" -B "$b" -DCMAKE_PREFIX_PATH="$PREFIX" \
      -DBOLTCODEC_USE_STATIC="$mode" >"$WORK/consumer.log" 2>&1 &&
      cmake --build "$b" >>"$WORK/consumer.log" 2>&1 && "$b/consumer" >&2; then
      if [ "$mode" = ON ] && ldd "$b/consumer" | grep -q libboltcodec; then
        fail "static consumer links libboltcodec.so"
      else
        pass
      fi
    else
      cat "$WORK/consumer.log" >&2
      fail "CMake consumer (BOLTCODEC_USE_STATIC=$mode)"
    fi
  done
  # shellcheck disable=SC2046  # word splitting of pkg-config output is intended
  if PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" cc -std=c11 -Wall -Wextra -pedantic -Werror \
    -o "$WORK/pc-consumer" "$HERE/tests/consumer/main.c" \
    $(PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" pkg-config --cflags --libs boltcodec) \
    -Wl,-rpath,"$PREFIX/lib" && "$WORK/pc-consumer" >&2 &&
    readelf -d "$PREFIX/lib/libboltcodec.so" | grep -q 'SONAME.*libboltcodec\.so\.0'; then
    pass
  else
    fail "pkg-config consumer"
  fi
else
  cat "$WORK/install.log" >&2
  fail "make install"
fi

if [ "$WITH_SERVER" = 1 ]; then
  log "example against a real Neo4j 5.26 (port $PORT)"
  if [ -x "$WORK/build/query" ] && [ -x "$WORK/asan/query" ]; then
    suite "examples/query.c against Neo4j 5.26" \
      "$ROOT/scripts/with-neo4j.sh" 5.26 "$PORT" -- \
      "$HERE/scripts/check-example.sh" "$WORK/build/query" "$WORK/asan/query"
  else
    fail "the example was not built"
  fi
else
  log "skipping the example against Neo4j (--no-server)"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
