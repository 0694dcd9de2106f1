"""The drop-in on a driver whose internals it does not recognise.

Each test copies the installed driver, changes one internal the drop-in relies on (as a
future release might), and runs it in a fresh interpreter: the drop-in must fall back to
the highest level it can verify, say why in ``status()``, log the reason once on the
``neo4j.boltcodec`` logger, and leave the driver working (the canned PULL response of
test_dropin_release.py still reads to the same records as the pure driver's).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

neo4j = pytest.importorskip("neo4j")

TESTS = Path(__file__).resolve().parent
DRIVER = Path(neo4j.__file__).resolve().parent

# Runs in the copied driver: status, warnings logged, and a canned read compared with the
# release's own Inbox on its pure-Python codec.
PROBE = """
import json, logging, sys
sys.path.insert(0, {tests!r})
records = []
class Keep(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())
logging.getLogger("neo4j").addHandler(Keep())
logging.getLogger("neo4j").setLevel(logging.DEBUG)
import boltcodec.dropin as d
import neo4j
import test_dropin_release as r
name, packer, unpacker, handler = r.TRIPLES[-1]
inbox, _ = r.inbox_classes()
original = getattr(inbox, "_boltcodec_original", inbox)
data, n = r.canned_pull_response(packer, 200)
ours = r.read_sync(inbox, unpacker, data, handler().new_hydration_scope().hydration_hooks)
pure = r.read_sync(
    original,
    r.pure_unpacker_cls(unpacker),
    data,
    handler().new_hydration_scope().hydration_hooks,
)
values = [(1, 2), {{"a": [1.5, None]}}, "x" * 100]
packed = [r.accelerated_pack(packer, v) == r.pure_pack(packer, v) for v in values]
print(json.dumps({{
    "status": d.status(),
    "warnings": [m for m in records if m.startswith("boltcodec")],
    "same_rows": r.rows_from(ours) == r.rows_from(pure),
    "messages": len(ours),
    "n": n,
    "packed": packed,
    "inbox_module": inbox.__module__,
}}))
"""


def changed_driver(tmp_path: Path, edits: list[tuple[str, str, str]]) -> Path:
    """A copy of the installed driver with ``(file, regex, replacement)`` edits applied."""
    root = tmp_path / "site"
    shutil.copytree(DRIVER, root / "neo4j", ignore=shutil.ignore_patterns("__pycache__"))
    for rel, pattern, replacement in edits:
        path = root / "neo4j" / rel
        text = path.read_text(encoding="utf-8")
        new, count = re.subn(pattern, replacement, text)
        assert count > 0, f"{pattern!r} not found in {rel}"
        path.write_text(new, encoding="utf-8")
    return root


def probe(root: Path, mode: str | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("BOLTCODEC_NEO4J", None)
    if mode is not None:
        env["BOLTCODEC_NEO4J"] = mode
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(tests=str(TESTS))],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def find(rel_candidates: list[str], needle: str) -> str:
    for rel in rel_candidates:
        path = DRIVER / rel
        if path.exists() and needle in path.read_text(encoding="utf-8"):
            return rel
    pytest.skip(f"no {needle!r} in {rel_candidates} of this driver")


INBOX_FILES = ["_sync/io/_bolt/_common.py", "_sync/io/_common.py"]


def test_an_inbox_with_another_signature_is_left_alone(tmp_path: Path) -> None:
    rel = find(INBOX_FILES, "def __init__(self, sock, on_error, unpacker_cls):")
    root = changed_driver(
        tmp_path,
        [
            (
                rel,
                r"def __init__\(self, sock, on_error, unpacker_cls\):",
                "def __init__(self, sock, on_error, unpacker_cls, extra=None):",
            )
        ],
    )
    result = probe(root)
    status = result["status"]
    assert (status["codec"], status["receive"], status["level"]) == (True, False, "codec")
    assert "is not recognised: __init__" in status["receive_reason"], status
    assert len(result["warnings"]) == 1, result["warnings"]
    assert "receive path not enabled" in result["warnings"][0]
    assert result["inbox_module"].startswith("neo4j.")
    assert result["same_rows"]
    assert result["messages"] == result["n"]
    assert all(result["packed"])


def unbatchable_protocol_edits() -> list[tuple[str, str, str]]:
    edits = []
    for flavour in ("_sync", "_async"):
        io = DRIVER / flavour / "io"
        bolt_dir = io / "_bolt" if (io / "_bolt").is_dir() else io
        edits += [
            (
                str(p.relative_to(DRIVER)),
                r"\n(\s+)details = fields\n",
                r"\n\1details = list(fields)\n",
            )
            for p in sorted(bolt_dir.glob("_bolt*.py"))
            if "details = fields" in p.read_text(encoding="utf-8")
        ]
    return edits


def test_records_are_not_batched_where_that_cannot_be_checked(tmp_path: Path) -> None:
    edits = unbatchable_protocol_edits()
    root = changed_driver(tmp_path, edits)
    result = probe(root)
    status = result["status"]
    # The probe's records went through the receive path: natively hydrated.
    assert (status["codec"], status["receive"], status["level"]) == (True, True, "hydration")
    assert status["receive_reason"].startswith("active, one RECORD at a time"), status
    assert "does not treat RECORD fields as rows" in status["receive_reason"]
    assert result["inbox_module"] == "boltcodec._inbox"
    assert result["same_rows"]
    assert result["messages"] == result["n"], "one message per pop: nothing was batched"
    assert len(result["warnings"]) == 2, result["warnings"]  # Inbox and AsyncInbox


def test_a_codec_module_that_uses_the_accelerator_differently_is_reverted(
    tmp_path: Path,
) -> None:
    rel = "_codec/packstream/v1/__init__.py"
    find([rel], "data = _rust_pack(data, dehydration_hooks)")
    root = changed_driver(
        tmp_path,
        [
            (
                rel,
                r"data = _rust_pack\(data, dehydration_hooks\)",
                'data = _rust_pack(data, dehydration_hooks) + b"\\\\x00"',
            )
        ],
    )
    result = probe(root)
    status = result["status"]
    assert (status["codec"], status["receive"], status["level"]) == (False, False, "off")
    assert "neo4j._codec.packstream.v1 does not work with boltcodec" in status["codec_reason"]
    assert "it uses its pure-Python code" in status["codec_reason"]
    assert status["receive_reason"].startswith("the Inbox is replaced, but hands over")
    assert any("packing" in w for w in result["warnings"]), result["warnings"]
    assert result["same_rows"]
    assert all(result["packed"]), "the reverted module packs as the pure driver does"


def test_an_accelerator_module_name_it_does_not_know_is_not_served(tmp_path: Path) -> None:
    rel = "_codec/packstream/v1/__init__.py"
    text = (DRIVER / rel).read_text(encoding="utf-8")
    match = re.search(r"from (\.+_rust[\w.]*)\.v1 import", text)
    if match is None:
        pytest.skip("this driver imports its v1 accelerator differently")
    root = changed_driver(
        tmp_path, [(rel, re.escape(match.group(0)), f"from {match.group(1)}.v1_next import")]
    )
    result = probe(root)
    status = result["status"]
    assert (status["codec"], status["level"]) == (False, "off"), status
    assert "does not import an accelerator this boltcodec serves" in status["codec_reason"]
    assert len([w for w in result["warnings"] if "codec not active" in w]) == 1
    assert result["same_rows"]
    assert all(result["packed"])


def test_records_are_not_batched_when_result_buffering_is_not_recognised(
    tmp_path: Path,
) -> None:
    # Batched RECORDs reorder a Result whose _buffer appends what it took after what is
    # still buffered (up to 6.1; corrected there); one boltcodec does not know gets none.
    edits = []
    for rel in ("_sync/work/result.py", "_async/work/result.py"):
        text = (DRIVER / rel).read_text(encoding="utf-8")
        for old in (
            "record_buffer.extend(self._record_buffer)",
            "self._record_buffer.extend(record_buffer)",
        ):
            if old in text:
                edits.append((rel, re.escape(old), old.replace(".extend(", ".extend(list(") + ")"))
    if len(edits) != 2:
        pytest.skip("this driver's Result._buffer is not one of the two known forms")
    result = probe(changed_driver(tmp_path, edits))
    status = result["status"]
    # The probe's records went through the receive path: natively hydrated.
    assert (status["codec"], status["receive"], status["level"]) == (True, True, "hydration")
    assert status["receive_reason"].startswith("active, one RECORD at a time"), status
    assert "Result._buffer is not one boltcodec knows" in status["receive_reason"]
    assert result["same_rows"]
    assert result["messages"] == result["n"], "one message per pop: nothing was batched"


def test_force_batches_records_where_that_cannot_be_checked(tmp_path: Path) -> None:
    result = probe(changed_driver(tmp_path, unbatchable_protocol_edits()), mode="force")
    status = result["status"]
    assert status["level"] == "hydration"
    assert status["receive_reason"].startswith("active, RECORDs batched although unchecked")
    assert result["same_rows"]
    assert result["messages"] < result["n"]
