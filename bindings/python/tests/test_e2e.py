"""End to end: the official driver against a real Neo4j server (scripts/with-neo4j.sh),
with boltcodec as its accelerator, must give exactly what the pure-Python driver gives.

Skipped unless NEO4J_BOLT_PORT is set (bindings/python/scripts/test.sh sets it up).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("neo4j")

if not os.environ.get("NEO4J_BOLT_PORT"):
    pytest.skip("no Neo4j server (NEO4J_BOLT_PORT is not set)", allow_module_level=True)

SCRIPT = Path(__file__).with_name("e2e_queries.py")


def run(mode: str) -> tuple[dict, str]:
    env = {**os.environ, "BOLTCODEC_NEO4J": mode}
    out = subprocess.run(
        [sys.executable, str(SCRIPT)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    status_line, results = out.stdout.splitlines()[-2:]
    return json.loads(status_line), results


@pytest.fixture(scope="module")
def pure() -> str:
    subprocess.run([sys.executable, str(SCRIPT), "setup"], check=True, timeout=300)
    status, results = run("0")
    assert status["rust"] is False
    return results


@pytest.mark.parametrize("mode", ["1", "codec"])
def test_same_results_as_the_pure_python_driver(pure: str, mode: str) -> None:
    status, results = run(mode)
    assert status["rust"] is True
    assert status["status"]["codec"] is True
    assert status["status"]["receive"] is (mode == "1")
    # The queries' results were hydrated natively (dates and points among them).
    assert status["status"]["hydration"] is (mode == "1"), status["status"]
    if mode == "1":
        assert status["status"]["level"] == "hydration"
        assert {"D", "XY"} <= set(status["status"]["hydration_kinds"])
    if results != pure:
        ours, theirs = json.loads(results), json.loads(pure)
        for a, b in zip(ours, theirs):
            assert a == b, f"first difference in {a[0]!r}"
        assert len(ours) == len(theirs)
    assert results == pure
