# boltcodec — one entry point for the main job, the tests and the benchmarks.
#
#   make demo    the main job, end to end
#   make test    every test (what CI runs through .ci/run)
#   make bench   the benchmark report (benches/RESULTS.md)

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
CARGO ?= cargo
PYTHON ?= python3
VENV_VECTORS := .venv-vectors

.PHONY: demo demo-node python-env test test-rust msrv test-examples copy-long lint test-vectors test-integration test-node test-python test-c fuzz-short bench bench-rust bench-python bench-node chart

# The official Python driver on a real Neo4j 5.26: pure Python vs boltcodec vs
# neo4j-rust-ext, 100,000 nodes written and 100,000 rows read; rows/s side by side, and
# the raw floor (the same read from a bare socket, decoded by boltcodec, no driver).
demo: python-env
	scripts/with-neo4j.sh 5.26 17474 -- .venv/bin/python scripts/demo.py

# The same read with the official JavaScript driver on a real Neo4j 5.26: neo4j-driver
# alone vs with boltcodec's drop-in vs the raw floors (bare socket: pulling 1000 rows at a
# time as the driver does, and in one PULL), alternating rounds;
# wall clock and client CPU side by side; then the client's side alone, the read's
# recorded responses replayed without the database (benches/node/e2e.js --replay).
demo-node:
	bindings/node/scripts/bench.sh --e2e --replay

# .venv with the wheel built and installed, .venv-rustext with neo4j-rust-ext.
python-env:
	bindings/python/scripts/install.sh

test: lint test-rust test-vectors test-integration test-examples test-python test-node test-c test-dist-smoke fuzz-short
	@echo "make test: all suites passed"

# Formatting, clippy, and the API docs (public and private items) with no broken or
# private intra-doc link (the docs: about 55 s of CPU cold). boltcodec-python's docs are
# left out for now: its crate docs link its private modules (bindings/python/src/lib.rs).
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --all-features -- -D warnings
	$(CARGO) clippy -p boltcodec-packstream --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --quiet --workspace \
		--no-deps --document-private-items --all-features

# Every crate built with the oldest Rust its Cargo.toml declares (rust-version: the
# workspace's, 1.88 for the Node addon), with those toolchains. Not part of `make test`:
# rustup downloads the toolchains (about 7 minutes here the first time).
msrv:
	scripts/msrv.sh

test-rust:
	$(CARGO) test -p boltcodec-packstream -p boltcodec-bolt -p boltcodec-inspect -p boltcodec-alloc-count -p boltcodec-test-support -p boltcodec-arrow --all-features

# Real Neo4j servers (5.26, and 2026.x when a Java 21+ JDK is present), started and
# stopped by the script: every Bolt version offered one at a time, WebSocket, the example.
test-integration:
	scripts/test-integration.sh

# The examples against real servers: copy 20,000 nodes between two Neo4j 5.26 servers
# with the Rust connection (crates/bolt/examples/copy.rs), with the Python binding in
# asyncio (examples/copy/copy_boltcodec.py) and with the official Python driver, each copy
# checked against the source. (The Python asyncio client example runs in test-python.)
test-examples:
	examples/copy/run.sh 20000

# The copy at 100,000 and 1,000,000 nodes: peak RSS of both boltcodec copies must stay
# flat (about 20 minutes here). COPY_SOURCE_PORT / COPY_TARGET_PORT move the servers.
copy-long:
	examples/copy/run.sh 100000 1000000

# The pyo3 wheel: vectors, differential tests against the driver's pure-Python codec,
# hostile input, and the drop-in with the official driver against a real Neo4j 5.26.
test-python:
	bindings/python/scripts/test.sh

# The C library: the cbindgen header must be up to date and compile as C11 and C++17;
# the C tests (vectors, API, statuses) plain and under ASan+UBSan; packaging; the C
# example against a real Neo4j 5.26.
test-c:
	bindings/c/scripts/test.sh

# The napi-rs addon: vectors, differential tests against neo4j-driver's codec, and the
# drop-in driving the official driver against a real Neo4j 5.26.
test-node:
	bindings/node/scripts/test.sh

# Every cargo-fuzz target for a short fixed time (installs cargo-fuzz if missing, needs
# the nightly toolchain); fails on any crash, timeout, leak or over-allocation.
# Last in `make test`, so that a regression the fuzzers find shows up in CI (20 s per
# target from the seed corpora; about 4 minutes with the build).
fuzz-short:
	scripts/fuzz-short

# The vector file must be exactly what the official driver's packer produces.
$(VENV_VECTORS)/.ok:
	$(PYTHON) -m venv $(VENV_VECTORS)
	$(VENV_VECTORS)/bin/pip install -q neo4j==6.4.1
	touch $@

test-vectors: $(VENV_VECTORS)/.ok
	$(VENV_VECTORS)/bin/python scripts/gen_vectors.py --check

# Every comparison, then the chart; each writes its own section of benches/RESULTS.md.
bench: bench-rust bench-python bench-node chart

bench-rust:
	$(CARGO) bench -p boltcodec-benches --bench packstream
	$(PYTHON) benches/report.py

bench-python:
	bindings/python/scripts/bench.sh

bench-node:
	bindings/node/scripts/bench.sh --write

chart: python-env
	.venv/bin/python -m pip install --quiet --disable-pip-version-check matplotlib
	.venv/bin/python benches/chart.py

# Release artifacts into dist/ (git-ignored): wheels for CPython 3.9-3.13 (manylinux2014
# x86_64 and aarch64, checked with auditwheel; musllinux x86_64) and the sdist, the
# npm packages (main + linux-x64-gnu, linux-arm64-gnu, linux-x64-musl), the two crates
# (cargo package) and the C tarball. Cross-links with zig (.venv-dist). See README "Install".
.PHONY: dist test-dist test-dist-smoke
dist:
	scripts/dist/build.sh

# The artifacts tested from dist/ alone: each x86_64 wheel in a fresh venv of its CPython
# (vectors, drop-in on neo4j 5.28 and 6.x), the sdist built by pip, the npm tarballs in a
# fresh project, the C tarball through pkg-config and CMake, aarch64 inspected (and run
# under qemu-user when scripts/dist/aarch64-sysroot.sh has made a sysroot). Not part of
# `make test`; CI runs `make dist test-dist` as its own job.
test-dist:
	scripts/dist/test.sh

# The part of the release that builds in minutes, tested from the artifacts alone (in
# `make test`): the sdist (pip builds and installs it into a fresh venv; the vectors and
# the drop-in on neo4j 5.28 and 6.x), the C tarball (a C program through pkg-config and
# CMake, shared and static; soname) and the crates' packages. The wheels for every
# CPython and target, and the npm packages, are `make dist test-dist`.
test-dist-smoke:
	scripts/dist/build.sh sdist c crates
	scripts/dist/test.sh sdist c crates
