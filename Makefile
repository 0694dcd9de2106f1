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

.PHONY: demo test test-rust lint test-vectors test-integration test-node bench bench-rust

demo:
	$(CARGO) run -q --release -p boltcodec-inspect -- capture tests/captures/neo4j-5.26.30/bolt-5.8/node.txt

test: lint test-rust test-vectors test-integration test-node
	@echo "make test: all suites passed"

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --all-features -- -D warnings
	$(CARGO) clippy -p boltcodec-packstream --all-targets -- -D warnings

test-rust:
	$(CARGO) test -p boltcodec-packstream -p boltcodec-bolt -p boltcodec-inspect --all-features

# Real Neo4j servers (5.26, and 2026.x when a Java 21+ JDK is present), started and
# stopped by the script: every Bolt version offered one at a time, WebSocket, the example.
test-integration:
	scripts/test-integration.sh

# The napi-rs addon: vectors, differential tests against neo4j-driver's codec, and the
# drop-in driving the official driver against a real Neo4j 5.26.
test-node:
	bindings/node/scripts/test.sh

# The vector file must be exactly what the official driver's packer produces.
$(VENV_VECTORS)/.ok:
	$(PYTHON) -m venv $(VENV_VECTORS)
	$(VENV_VECTORS)/bin/pip install -q neo4j==6.4.1
	touch $@

test-vectors: $(VENV_VECTORS)/.ok
	$(VENV_VECTORS)/bin/python scripts/gen_vectors.py --check

bench: bench-rust

bench-rust:
	$(CARGO) bench -p boltcodec-benches --bench packstream
	$(PYTHON) benches/report.py
