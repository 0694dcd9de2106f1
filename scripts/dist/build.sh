#!/usr/bin/env bash
# Builds every release artifact into dist/ (git-ignored). `make dist` runs it.
#
#   scripts/dist/build.sh [python|python-musl|sdist|npm|crates|c]...   (default: all but
#                                                       python-musl, a subset of python)
#
#   dist/python/  wheels for CPython 3.9-3.13: manylinux2014 x86_64 and aarch64,
#                 musllinux_1_2 x86_64 (one wheel per version, not abi3: see README
#                 "Install"), each checked with `auditwheel show`; the sdist
#   dist/npm/     npm tarballs in the napi-rs layout: boltcodec (JS, no binary) and
#                 boltcodec-linux-x64-gnu, -linux-arm64-gnu, -linux-x64-musl (the .node)
#   dist/crates/  `cargo package` of boltcodec-packstream and boltcodec-bolt
#   dist/c/       boltcodec-<version>-linux-x86_64.tar.gz: static and shared library
#                 (soname libboltcodec.so.<major>), header, pkg-config file, CMake package
#
# Cross-linking (glibc 2.17, musl, aarch64) goes through zig (`ziglang` from PyPI) with
# maturin and cargo-zigbuild; they and auditwheel are installed into .venv-dist. Needs the
# rustup targets aarch64-unknown-linux-gnu and x86_64-unknown-linux-musl (added if
# missing) and CPython 3.9-3.13 for the native wheels (pyenv's, or PYTHONS="...").
# Times each step into dist/build-times.txt.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DIST="$ROOT/dist"
TOOLS="$ROOT/.venv-dist"
VERSION="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version *= *"\(.*\)"/\1/p' "$ROOT/Cargo.toml")"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
PY_MINORS=(9 10 11 12 13)

log() { echo "dist: $*" >&2; }
die() {
  echo "dist: FAILED: $*" >&2
  exit 1
}

# How long each step took, for the release note.
timed() {
  local name=$1 start end
  shift
  start=$(date +%s)
  "$@"
  end=$(date +%s)
  printf '%-28s %4d s\n' "$name" $((end - start)) >>"$DIST/build-times.txt"
  log "$name: $((end - start)) s"
}

tools() {
  if [ ! -x "$TOOLS/bin/cargo-zigbuild" ]; then
    log "creating $TOOLS (maturin, ziglang, cargo-zigbuild, auditwheel)"
    "${PYTHON:-python3}" -m venv "$TOOLS"
    "$TOOLS/bin/python" -m pip install --quiet --disable-pip-version-check \
      "maturin>=1.9.4,<2" ziglang cargo-zigbuild auditwheel
  fi
  export PATH="$TOOLS/bin:$PATH"
  local have
  have="$(rustup target list --installed)"
  for t in aarch64-unknown-linux-gnu x86_64-unknown-linux-musl; do
    grep -qx "$t" <<<"$have" || rustup target add "$t" >&2
  done
}

# The interpreters the x86_64 glibc wheels are built for (and test.sh tests them with).
pythons() {
  if [ -n "${PYTHONS:-}" ]; then
    echo "$PYTHONS"
    return
  fi
  local m p out=()
  for m in "${PY_MINORS[@]}"; do
    p="$(ls -d "$HOME"/.pyenv/versions/3."$m".*/bin/python3."$m" 2>/dev/null | tail -n 1 || true)"
    [ -z "$p" ] && p="$(command -v python3."$m" || true)"
    [ -n "$p" ] || die "no CPython 3.$m found (pyenv, PATH or PYTHONS)"
    out+=("$p")
  done
  echo "${out[*]}"
}

# A PATH without any Python interpreter on it but .venv-dist's `python3` (for zig):
# every host tool, linked one by one, except python3.X. For the musl target maturin would
# otherwise take the host's glibc CPython 3.X for the target's and name the 3.11+ modules
# `*-x86_64-linux-gnu.so`, which a musl CPython 3.11+ does not import.
no_python_path() {
  local dir="$TARGET_DIR/dist-no-python-bin" f d
  rm -rf "$dir"
  mkdir -p "$dir"
  IFS=: read -ra dirs <<<"$PATH"
  for d in "${dirs[@]}"; do
    [ -d "$d" ] || continue
    for f in "$d"/*; do
      case ${f##*/} in python3.* | python[0-9]*-config | pydoc*) continue ;; esac
      [ -e "$dir/${f##*/}" ] || ln -s "$f" "$dir/${f##*/}"
    done
  done
  ln -sfn "$TOOLS/bin/python3" "$dir/python3"
  ln -sfn "$TOOLS/lib/python3.11/site-packages/ziglang/zig" "$dir/zig"
  echo "$dir"
}

# One maturin run per target builds a wheel per interpreter. Cross targets use maturin's
# bundled sysconfig for the interpreter names (found nowhere on the PATH), so only the
# native target needs real interpreters.
wheels_for() {
  local target=$1 compat=$2 args=() p m path=$PATH
  if [ "$target" = x86_64-unknown-linux-gnu ]; then
    for p in $(pythons); do args+=(-i "$p"); done
  else
    for m in "${PY_MINORS[@]}"; do args+=(-i "python3.$m"); done
    path="$(no_python_path)"
  fi
  (cd "$ROOT/bindings/python" && PATH="$path" \
    maturin build --release --quiet --zig --target "$target" --compatibility "$compat" \
      "${args[@]}" -o "$DIST/python") >&2
}

# The extension suffix of CPython 3.X on x86_64 musl: CPython learnt the musl platform
# triplet in 3.11; 3.9 and 3.10 built on musl call themselves x86_64-linux-gnu.
musl_suffix() { # cpXY
  case $1 in cp39 | cp310) echo "x86_64-linux-gnu.so" ;; *) echo "x86_64-linux-musl.so" ;; esac
}

# A musllinux wheel's module must carry the extension suffix a musl CPython of its
# version imports and need nothing but libc.so. (auditwheel on a glibc host cannot tell:
# it resolves libc.so to glibc's linker script, or finds no musl libc.)
check_musl_wheel() {
  local w=$1 d so tag
  tag="$(basename "$w" | cut -d- -f3)"
  d="$(mktemp -d)"
  (cd "$d" && "$TOOLS/bin/python" -m zipfile -e "$w" .)
  so="$(ls "$d"/boltcodec/_native.*.so)"
  [[ $so == *-"$(musl_suffix "$tag")" ]] || die "$(basename "$w"): module named ${so##*/}"
  [ "$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')" = "libc.so " ] ||
    die "$(basename "$w"): needs $(readelf -d "$so" | grep NEEDED)"
  rm -rf "$d"
}

# `auditwheel show` must find the wheel consistent with the tag it carries.
audit_wheels() {
  local w want n=0
  for w in "$DIST"/python/*.whl; do
    case "$w" in
    *musllinux_1_2_x86_64*)
      check_musl_wheel "$w"
      n=$((n + 1))
      continue
      ;;
    *manylinux_2_17_aarch64*) want=manylinux_2_17_aarch64 ;;
    *manylinux_2_17_x86_64*) want=manylinux_2_17_x86_64 ;;
    *) die "unexpected wheel $(basename "$w")" ;;
    esac
    auditwheel show "$w" >"$DIST/python/.audit" 2>&1 || {
      cat "$DIST/python/.audit" >&2
      die "auditwheel show $(basename "$w")"
    }
    tr -s ' \n' ' ' <"$DIST/python/.audit" | grep "consistent with the following platform tag: \"$want\"" >/dev/null || {
      cat "$DIST/python/.audit" >&2
      die "$(basename "$w") is not $want"
    }
    n=$((n + 1))
  done
  rm -f "$DIST/python/.audit"
  [ "$n" -eq $((3 * ${#PY_MINORS[@]})) ] || die "expected $((3 * ${#PY_MINORS[@]})) wheels, found $n"
  log "$n wheels checked (auditwheel show for manylinux; suffix and NEEDED for musllinux)"
}

build_python() {
  rm -rf "$DIST/python"
  mkdir -p "$DIST/python"
  timed "wheels x86_64 manylinux2014" wheels_for x86_64-unknown-linux-gnu manylinux2014
  timed "wheels aarch64 manylinux2014" wheels_for aarch64-unknown-linux-gnu manylinux2014
  timed "wheels x86_64 musllinux_1_2" wheels_for x86_64-unknown-linux-musl musllinux_1_2
  audit_wheels
}

# Only the musllinux wheels again (then the check of every wheel).
build_python_musl() {
  rm -f "$DIST"/python/*musllinux*.whl
  timed "wheels x86_64 musllinux_1_2" wheels_for x86_64-unknown-linux-musl musllinux_1_2
  audit_wheels
}

build_sdist() {
  mkdir -p "$DIST/python"
  rm -f "$DIST"/python/*.tar.gz
  (cd "$ROOT/bindings/python" && timed "sdist" maturin sdist -o "$DIST/python") >&2
}

# napi-rs layout: npm/<platform>/ holds each platform package's package.json; the .node
# is the cdylib built for that target. The main package gets its optionalDependencies
# here (as `napi pre-publish` would add them), so the development manifest keeps
# installing from the lock file.
NPM_PLATFORMS=(linux-x64-gnu linux-arm64-gnu linux-x64-musl)
npm_target() {
  case $1 in
  linux-x64-gnu) echo x86_64-unknown-linux-gnu ;;
  linux-arm64-gnu) echo aarch64-unknown-linux-gnu ;;
  linux-x64-musl) echo x86_64-unknown-linux-musl ;;
  esac
}

build_node_target() {
  local triple=$1 zig=$1
  # glibc targets link against glibc 2.17's symbols (as manylinux2014).
  case $triple in *-gnu) zig="$triple.2.17" ;; esac
  # A musl cdylib must link the C runtime dynamically (Node itself does).
  (cd "$ROOT" && CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUSTFLAGS="-C target-feature=-crt-static" \
    cargo zigbuild --quiet --release -p boltcodec-node --target "$zig") >&2
}

build_npm() {
  local node="$ROOT/bindings/node" stage="$DIST/.npm-stage" p t
  rm -rf "$DIST/npm" "$stage"
  mkdir -p "$DIST/npm" "$stage"
  for p in "${NPM_PLATFORMS[@]}"; do
    t="$(npm_target "$p")"
    timed "node addon $p" build_node_target "$t"
    mkdir -p "$stage/$p"
    cp "$node/npm/$p/package.json" "$node/npm/$p/README.md" "$stage/$p/"
    cp "$TARGET_DIR/$t/release/libboltcodec_node.so" "$stage/$p/boltcodec.$p.node"
    cp "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" "$stage/$p/"
    (cd "$stage/$p" && npm pack --silent --pack-destination "$DIST/npm" >/dev/null)
  done
  # The main package: JS, types and the loader; the binary comes from a platform package.
  mkdir -p "$stage/main"
  (cd "$node" && npm pack --dry-run --json --ignore-scripts 2>/dev/null) |
    node -e '
      const files = JSON.parse(require("fs").readFileSync(0, "utf8"))[0].files
      for (const f of files) if (!f.path.endsWith(".node")) console.log(f.path)' |
    while read -r f; do
      mkdir -p "$stage/main/$(dirname "$f")"
      cp "$node/$f" "$stage/main/$f"
    done
  cp "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" "$stage/main/"
  node "$ROOT/scripts/dist/npm-main-manifest.js" "$node/package.json" "${NPM_PLATFORMS[@]}" \
    >"$stage/main/package.json"
  (cd "$stage/main" && npm pack --silent --ignore-scripts --pack-destination "$DIST/npm" >/dev/null)
  rm -rf "$stage"
  ls "$DIST/npm" >&2
}

# Both crates in one `cargo package`: cargo verifies boltcodec-bolt against the
# boltcodec-packstream it has just packaged (a local overlay of the registry), so
# nothing needs to be published first.
build_crates() {
  rm -rf "$DIST/crates"
  mkdir -p "$DIST/crates"
  (cd "$ROOT" && RUSTDOCFLAGS="-D warnings" timed "cargo doc (crates)" \
    cargo doc --quiet --no-deps -p boltcodec-packstream -p boltcodec-bolt --features packstream/serde,packstream/arbitrary,bolt/arbitrary) >&2
  (cd "$ROOT" && timed "cargo package (crates)" \
    cargo package --quiet --allow-dirty -p boltcodec-packstream -p boltcodec-bolt) >&2
  cp "$TARGET_DIR/package/boltcodec-packstream-$VERSION.crate" \
    "$TARGET_DIR/package/boltcodec-bolt-$VERSION.crate" "$DIST/crates/"
}

# The C library for x86_64 glibc 2.17+, laid out as `make -C bindings/c install` lays it
# out, with a relocatable pkg-config file (prefix from its own location).
build_c() {
  local name="boltcodec-$VERSION-linux-x86_64" stage="$DIST/.c-stage"
  rm -rf "$DIST/c" "$stage"
  mkdir -p "$DIST/c" "$stage"
  (cd "$ROOT" && timed "C library x86_64" \
    cargo zigbuild --quiet --release -p boltcodec-c --target x86_64-unknown-linux-gnu.2.17) >&2
  # -o lib: use the library just built instead of a native `cargo build`.
  make -s -o lib -C "$ROOT/bindings/c" install PREFIX=/usr/local DESTDIR="$stage" \
    LIBDIR="$TARGET_DIR/x86_64-unknown-linux-gnu/release" >&2
  mv "$stage/usr/local" "$stage/$name"
  sed -i 's|^prefix=.*|prefix=${pcfiledir}/../..|' "$stage/$name/lib/pkgconfig/boltcodec.pc"
  mkdir -p "$stage/$name/share/doc/boltcodec"
  cp "$ROOT/bindings/c/README.md" "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" \
    "$stage/$name/share/doc/boltcodec/"
  tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$DIST/c/$name.tar.gz" "$name"
  rm -rf "$stage"
}

steps=("$@")
mkdir -p "$DIST"
if [ ${#steps[@]} -eq 0 ]; then
  steps=(python sdist npm crates c)
  : >"$DIST/build-times.txt"
fi
tools
for s in "${steps[@]}"; do
  case $s in
  python) build_python ;;
  python-musl) build_python_musl ;;
  check-wheels) audit_wheels ;;
  sdist) build_sdist ;;
  npm) build_npm ;;
  crates) build_crates ;;
  c) build_c ;;
  *) die "unknown step $s (python, sdist, npm, crates, c)" ;;
  esac
done
# Every artifact with its size, for the release note.
(cd "$DIST" && find . -type f \( -name '*.whl' -o -name '*.tar.gz' -o -name '*.tgz' -o -name '*.crate' \) \
  -printf '%8k KiB  %P\n' | sort -k3) >"$DIST/sizes.txt"
cat "$DIST/sizes.txt" >&2
log "done; step times in dist/build-times.txt, sizes in dist/sizes.txt"
