#!/usr/bin/env bash
# Tests the release artifacts in dist/ (scripts/dist/build.sh) from the artifacts alone,
# as a user on a fresh machine of this kind would install them. `make test-dist` runs it.
#
#   scripts/dist/test.sh [python|sdist|npm|c|aarch64|musl|crates]...   (default: all)
#
#   python   each x86_64 manylinux2014 wheel into a fresh venv of its CPython (3.9-3.13):
#            the vector suite (bindings/python/tests/test_vectors.py, pytest) and
#            smoke_python.py, which decodes tests/vectors/packstream.json and checks that
#            importing the official driver turns the drop-in on: neo4j 5.28 on every
#            version, and neo4j 6.x as well where the driver supports it (3.10+)
#   sdist    `pip install` of the sdist into a fresh venv (builds it with maturin from
#            PyPI and the Rust toolchain), then smoke_python.py
#   npm      the npm tarballs into a fresh project, offline (npm install of the main and
#            the linux-x64-gnu tarball), then smoke_node.js; the other platform packages
#            inspected (`file`, the package's os/cpu/libc)
#   c        the C tarball unpacked; a C program built through pkg-config and through the
#            CMake package (shared and static), run; the soname and links checked
#   aarch64  the aarch64 wheels: `file`, `auditwheel show`; run under qemu-user when an
#            aarch64 CPython is available (AARCH64_SYSROOT, see README "Install")
#   musl     the musllinux wheels: module name (musl suffix) and NEEDED libraries
#   crates   the .crate files hold their licence files and README
#
# The musllinux wheels and the linux-x64-musl addon cannot run on this glibc host (no
# musl CPython or Node); they are inspected only. The drivers and pytest come from PyPI.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIST="$ROOT/dist"
TOOLS="$ROOT/.venv-dist"
VECTORS="$ROOT/tests/vectors/packstream.json"
VERSION="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' "$ROOT/Cargo.toml")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
PIP=(python -m pip install --quiet --disable-pip-version-check)
NEO4J_5=5.28.8
NEO4J_6=6.4.1
failures=()
passed=0

log() { echo "test-dist: $*" >&2; }
ok() {
  passed=$((passed + 1))
  log "ok: $*"
}
bad() {
  failures+=("$*")
  log "FAILED: $*"
}
need() { [ -e "$1" ] || {
  echo "test-dist: $1 is missing: run make dist first" >&2
  exit 1
}; }

interpreter() { # 3.X -> path of that CPython
  local m=${1#3.} p
  p="$(ls -d "$HOME"/.pyenv/versions/3."$m".*/bin/python3."$m" 2>/dev/null | tail -n 1 || true)"
  [ -n "$p" ] || p="$(command -v "python$1" || true)"
  echo "$p"
}

# A fresh venv of $1 at $2 with pytest.
fresh_venv() {
  "$1" -m venv "$2"
  (cd "$WORK" && "$2/bin/${PIP[0]}" "${PIP[@]:1}" pytest)
}

# The drop-in must switch on by itself in a fresh interpreter (the .pth hook).
smoke_with_driver() { # venv driver-version label
  local venv=$1 drv=$2 label=$3
  if (cd "$WORK" && "$venv/bin/${PIP[0]}" "${PIP[@]:1}" "neo4j==$drv" &&
    env -u BOLTCODEC_NEO4J "$venv/bin/python" "$ROOT/scripts/dist/smoke_python.py" "$VECTORS" --driver "$drv") >&2; then
    ok "$label: drop-in with neo4j $drv"
  else
    bad "$label: drop-in with neo4j $drv"
  fi
}

test_python() {
  local minor wheel py venv tag
  for minor in 3.9 3.10 3.11 3.12 3.13; do
    tag="cp${minor/./}"
    wheel="$(ls "$DIST"/python/boltcodec-"$VERSION"-"$tag"-"$tag"-manylinux*_x86_64.whl 2>/dev/null || true)"
    [ -n "$wheel" ] || {
      bad "no x86_64 manylinux wheel for CPython $minor"
      continue
    }
    py="$(interpreter "$minor")"
    [ -n "$py" ] || {
      bad "no CPython $minor to test $(basename "$wheel")"
      continue
    }
    venv="$WORK/venv-$minor"
    if ! { fresh_venv "$py" "$venv" &&
      (cd "$WORK" && "$venv/bin/${PIP[0]}" "${PIP[@]:1}" --no-index "$wheel"); } >&2; then
      bad "CPython $minor: pip install $(basename "$wheel")"
      continue
    fi
    smoke_with_driver "$venv" "$NEO4J_5" "CPython $minor"
    # The vector suite of the Python tests, against the installed wheel and driver
    # (pytest's rootdir import mode puts tests/ on sys.path, not the source tree;
    # smoke_python.py checks where boltcodec comes from).
    if (cd "$ROOT/bindings/python" && env -u BOLTCODEC_NEO4J "$venv/bin/python" -m pytest -q \
      -p no:cacheprovider tests/test_vectors.py 2>&1 | tail -n 1) >&2; then
      ok "CPython $minor: $(basename "$wheel"): vector suite"
    else
      bad "CPython $minor: $(basename "$wheel"): vector suite"
    fi
    if [ "$minor" != 3.9 ]; then # neo4j 6 needs Python 3.10+
      smoke_with_driver "$venv" "$NEO4J_6" "CPython $minor"
    fi
  done
}

test_sdist() {
  local sdist venv="$WORK/venv-sdist" py start
  sdist="$DIST/python/boltcodec-$VERSION.tar.gz"
  need "$sdist"
  py="$(interpreter 3.11)"
  [ -n "$py" ] || py=python3
  "$py" -m venv "$venv"
  start=$(date +%s)
  # A dedicated target dir, kept between runs for the dependencies (the first build
  # compiles every one). sdist_build_reused_stale_workspace_crates: pip unpacks the sdist
  # with the files' original times, older than a kept build of our own crates, so cargo
  # took those as fresh and built the binding against an earlier boltcodec-bolt; our
  # crates' fingerprints go before every build, so they are always compiled from the sdist.
  rm -rf "$ROOT/target/dist-sdist"/*/.fingerprint/boltcodec-*
  if (cd "$WORK" && CARGO_TARGET_DIR="$ROOT/target/dist-sdist" \
    "$venv/bin/${PIP[0]}" "${PIP[@]:1}" "$sdist") >&2; then
    ok "sdist: pip install built it ($(($(date +%s) - start)) s)"
    # sdist_built_wheel_lacked_the_pth_startup_hook: the .pth was only in the wheel's
    # include list, so the wheel pip built from the sdist had no drop-in.
    if [ -f "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/boltcodec-neo4j.pth" ]; then
      ok "sdist: the wheel built from it installs boltcodec-neo4j.pth"
    else
      bad "sdist: the wheel built from it lacks boltcodec-neo4j.pth (sdist_built_wheel_lacked_the_pth_startup_hook)"
    fi
    smoke_with_driver "$venv" "$NEO4J_6" "sdist build"
  else
    bad "sdist: pip install"
  fi
}

test_npm() {
  local proj="$WORK/npm-project" main gnu p meta
  main="$DIST/npm/boltcodec-$VERSION.tgz"
  gnu="$DIST/npm/boltcodec-linux-x64-gnu-$VERSION.tgz"
  need "$main"
  need "$gnu"
  mkdir -p "$proj"
  (cd "$proj" && npm init -y >/dev/null &&
    npm install --offline --no-audit --no-fund --loglevel=error "$main" "$gnu") >&2 ||
    bad "npm install of the tarballs"
  # The smoke test runs from inside the project, so that require() resolves there.
  cp "$ROOT/scripts/dist/smoke_node.js" "$proj/smoke.js"
  if (cd "$proj" && node smoke.js "$VECTORS" linux-x64-gnu) >&2; then
    ok "npm: boltcodec + boltcodec-linux-x64-gnu from the tarballs"
  else
    bad "npm: smoke_node.js"
  fi
  # The main package ships no binary and depends on every platform package.
  meta="$(tar -xOzf "$main" package/package.json)"
  if tar -tzf "$main" | grep '\.node$' >/dev/null; then bad "npm: the main package ships a .node"; fi
  for p in linux-x64-gnu linux-arm64-gnu linux-x64-musl; do
    if node -e 'const m=JSON.parse(process.argv[1]); process.exit(m.optionalDependencies[process.argv[2]] === m.version ? 0 : 1)' \
      "$meta" "boltcodec-$p"; then
      ok "npm: main package depends on boltcodec-$p"
    else
      bad "npm: main package lacks optionalDependencies boltcodec-$p"
    fi
  done
  check_addon linux-arm64-gnu "ELF 64-bit LSB shared object, ARM aarch64" '"cpu":["arm64"]' '"libc":["glibc"]'
  check_addon linux-x64-musl "ELF 64-bit LSB shared object, x86-64" '"cpu":["x64"]' '"libc":["musl"]'
}

check_addon() { # platform file-pattern cpu libc
  local p=$1 tgz="$DIST/npm/boltcodec-$1-$VERSION.tgz" d="$WORK/addon-$1" desc meta
  need "$tgz"
  mkdir -p "$d"
  tar -xzf "$tgz" -C "$d"
  desc="$(file -b "$d/package/boltcodec.$p.node")"
  meta="$(node -e 'const m=require(process.argv[1]); console.log(JSON.stringify({cpu:m.cpu,libc:m.libc}))' "$d/package/package.json")"
  if [[ $desc == "$2"* ]] && [[ $meta == *"$3"* ]] && [[ $meta == *"$4"* ]]; then
    ok "npm: boltcodec-$p: $desc"
  else
    bad "npm: boltcodec-$p: $desc $meta"
  fi
  if [ "$p" = linux-x64-musl ]; then
    if readelf -d "$d/package/boltcodec.$p.node" | grep 'NEEDED.*libc.so' >/dev/null; then
      ok "npm: boltcodec-$p links musl's libc.so dynamically (as Node on Alpine)"
    else
      bad "npm: boltcodec-$p does not link libc dynamically"
    fi
  fi
}

test_c() {
  local tgz="$DIST/c/boltcodec-$VERSION-linux-x86_64.tar.gz" d="$WORK/c" prefix mode b
  need "$tgz"
  mkdir -p "$d"
  tar -xzf "$tgz" -C "$d"
  prefix="$d/boltcodec-$VERSION-linux-x86_64"
  local major=${VERSION%%.*}
  if [ "$(readlink "$prefix/lib/libboltcodec.so")" = "libboltcodec.so.$major" ] &&
    [ "$(readlink "$prefix/lib/libboltcodec.so.$major")" = "libboltcodec.so.$VERSION" ] &&
    readelf -d "$prefix/lib/libboltcodec.so.$VERSION" | grep "SONAME.*\[libboltcodec.so.$major\]" >/dev/null; then
    ok "C: libboltcodec.so -> .so.$major -> .so.$VERSION, soname libboltcodec.so.$major"
  else
    bad "C: shared library links or soname"
  fi
  # Consumers see only the unpacked tarball: copy the consumer's sources out of the tree.
  cp -r "$ROOT/bindings/c/tests/consumer" "$d/src"
  for mode in OFF ON; do
    b="$d/build-$mode"
    if cmake -S "$d/src" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DBOLTCODEC_USE_STATIC="$mode" \
      >"$d/cmake.log" 2>&1 && cmake --build "$b" >>"$d/cmake.log" 2>&1 &&
      "$b/consumer" >&2; then
      if [ "$mode" = ON ] && ldd "$b/consumer" | grep libboltcodec >/dev/null; then
        bad "C: static CMake consumer links libboltcodec.so"
      else
        ok "C: CMake package, BOLTCODEC_USE_STATIC=$mode"
      fi
    else
      cat "$d/cmake.log" >&2
      bad "C: CMake consumer (BOLTCODEC_USE_STATIC=$mode)"
    fi
  done
  # pkg-config: shared (rpath to the tarball's lib/), and static (--static).
  # shellcheck disable=SC2046  # word splitting of pkg-config's output is intended
  if cc -std=c11 -Wall -Werror -o "$d/pc-shared" "$d/src/main.c" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs boltcodec) \
    -Wl,-rpath,"$prefix/lib" && "$d/pc-shared" >&2 &&
    ldd "$d/pc-shared" | grep "libboltcodec.so.$major => $prefix/lib" >/dev/null; then
    ok "C: pkg-config, shared"
  else
    bad "C: pkg-config, shared"
  fi
  # shellcheck disable=SC2046
  if cc -std=c11 -Wall -Werror -o "$d/pc-static" "$d/src/main.c" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --static --cflags boltcodec) \
    "$prefix/lib/libboltcodec.a" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --static --libs-only-l boltcodec | sed 's/-lboltcodec//') &&
    "$d/pc-static" >&2 && ! ldd "$d/pc-static" | grep libboltcodec >/dev/null; then
    ok "C: pkg-config --static"
  else
    bad "C: pkg-config --static"
  fi
  # The shared library needs nothing newer than glibc 2.17.
  local newest
  newest="$(objdump -T "$prefix/lib/libboltcodec.so.$VERSION" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)"
  if [ "$(printf '%s\n' "$newest" GLIBC_2.17 | sort -V | tail -n 1)" = GLIBC_2.17 ]; then
    ok "C: shared library needs at most $newest"
  else
    bad "C: shared library needs $newest (> GLIBC_2.17)"
  fi
}

test_aarch64() {
  local w n=0 desc
  for w in "$DIST"/python/*manylinux*_aarch64.whl; do
    need "$w"
    rm -rf "$WORK/aarch64"
    mkdir -p "$WORK/aarch64"
    (cd "$WORK/aarch64" && "$TOOLS/bin/python" -m zipfile -e "$w" .)
    desc="$(file -b "$WORK"/aarch64/boltcodec/_native*.so)"
    if [[ $desc == "ELF 64-bit LSB shared object, ARM aarch64"* ]] &&
      "$TOOLS/bin/auditwheel" show "$w" 2>&1 | tr -s ' \n' ' ' |
      grep -q 'consistent with the following platform tag: "manylinux_2_17_aarch64"'; then
      n=$((n + 1))
    else
      bad "aarch64: $(basename "$w"): $desc"
    fi
  done
  ok "aarch64: $n wheels are aarch64 ELF and manylinux_2_17_aarch64 (file, auditwheel show)"
  run_aarch64
}

# Runs the cp311 aarch64 wheel under qemu-user with Debian's aarch64 CPython 3.11, from a
# sysroot of unpacked Debian packages (scripts/dist/aarch64-sysroot.sh makes one).
run_aarch64() {
  local sysroot="${AARCH64_SYSROOT:-$ROOT/target/dist-aarch64-sysroot}" w site qemu
  qemu="$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)"
  if [ -z "$qemu" ] || [ ! -x "$sysroot/usr/bin/python3.11" ]; then
    log "skipped: running the aarch64 wheel (needs qemu-user and $sysroot: scripts/dist/aarch64-sysroot.sh)"
    return
  fi
  w="$(ls "$DIST"/python/boltcodec-"$VERSION"-cp311-cp311-manylinux*_aarch64.whl)"
  site="$WORK/aarch64-site"
  mkdir -p "$site"
  (cd "$site" && "$TOOLS/bin/python" -m zipfile -e "$w" .)
  # The driver and its dependency for aarch64 (pure-Python wheels), unpacked beside it.
  "$TOOLS/bin/python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
    --platform manylinux2014_aarch64 --python-version 3.11 --implementation cp \
    "neo4j==$NEO4J_6" -d "$WORK/aarch64-dl" >&2
  for d in "$WORK"/aarch64-dl/*.whl; do (cd "$site" && "$TOOLS/bin/python" -m zipfile -e "$d" .); done
  if PYTHONPATH="$site" "$qemu" -L "$sysroot" "$sysroot/usr/bin/python3.11" -c "import platform, boltcodec
data = boltcodec.packb({'a': [1, 2.5, None, 'x' * 300]})
assert boltcodec.unpackb(data) == {'a': [1, 2.5, None, 'x' * 300]}
print('aarch64 under qemu:', platform.machine(), boltcodec.__file__)" >&2 &&
    "$qemu" -L "$sysroot" "$sysroot/usr/bin/python3.11" -c "import runpy, site, sys
site.addsitedir('$site')  # processes boltcodec-neo4j.pth, as site-packages would
sys.argv = ['smoke_python.py', '$VECTORS', '--no-site-check', '--driver', '$NEO4J_6']
runpy.run_path('$ROOT/scripts/dist/smoke_python.py', run_name='__main__')" >&2; then
    ok "aarch64: cp311 wheel runs under qemu-user (vectors, drop-in on neo4j $NEO4J_6)"
  else
    bad "aarch64: cp311 wheel under qemu-user"
  fi
}

# The musllinux wheels cannot run here (no musl CPython): each module must carry the
# extension suffix a musl CPython of its version imports (`-linux-musl.so` from 3.11 on)
# and need nothing but libc.so.
test_musl() {
  local w n=0 d so needed suffix
  for w in "$DIST"/python/*musllinux_1_2_x86_64.whl; do
    need "$w"
    d="$WORK/musl-$(basename "$w")"
    mkdir -p "$d"
    (cd "$d" && "$TOOLS/bin/python" -m zipfile -e "$w" .)
    so="$(ls "$d"/boltcodec/_native.*.so)"
    needed="$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
    # CPython names the musl platform only from 3.11 on; 3.9 and 3.10 on musl use -gnu.
    case $(basename "$w" | cut -d- -f3) in
    cp39 | cp310) suffix=x86_64-linux-gnu.so ;;
    *) suffix=x86_64-linux-musl.so ;;
    esac
    if [[ $so == *-"$suffix" ]] && [ "$needed" = "libc.so " ] &&
      [[ "$(file -b "$so")" == "ELF 64-bit LSB shared object, x86-64"* ]]; then
      n=$((n + 1))
    else
      bad "musl: $(basename "$w"): ${so##*/} needs $needed"
    fi
  done
  ok "musl: $n musllinux wheels: x86-64 ELF, musl CPython's module names, needing only libc.so"
}

test_crates() {
  local c name
  for name in packstream bolt; do
    c="$DIST/crates/boltcodec-$name-$VERSION.crate"
    need "$c"
    local listing
    listing="$(tar -tzf "$c")"
    if grep -qx "boltcodec-$name-$VERSION/LICENSE-MIT" <<<"$listing" &&
      grep -qx "boltcodec-$name-$VERSION/README.md" <<<"$listing" &&
      tar -xOzf "$c" "boltcodec-$name-$VERSION/LICENSE-APACHE" | grep "Apache License" >/dev/null; then
      ok "crates: boltcodec-$name-$VERSION.crate: README, licences ($(du -k "$c" | cut -f1) KiB)"
    else
      bad "crates: boltcodec-$name-$VERSION.crate lacks its README or licence files"
    fi
  done
}

steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(python sdist npm c aarch64 musl crates)
start=$(date +%s)
for s in "${steps[@]}"; do
  case $s in
  python) test_python ;;
  sdist) test_sdist ;;
  npm) test_npm ;;
  c) test_c ;;
  aarch64) test_aarch64 ;;
  musl) test_musl ;;
  crates) test_crates ;;
  *)
    echo "test-dist: unknown step $s" >&2
    exit 2
    ;;
  esac
done
if [ ${#failures[@]} -gt 0 ]; then
  log "${#failures[@]} FAILED, $passed passed ($(($(date +%s) - start)) s):"
  printf '  %s\n' "${failures[@]}" >&2
  exit 1
fi
log "all $passed checks passed ($(($(date +%s) - start)) s)"
