"""benches/python/read_gaps.py: its timeline arithmetic on a made-up trace."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "benches" / "python" / "read_gaps.py"


@pytest.fixture(scope="module")
def gaps():
    spec = importlib.util.spec_from_file_location("read_gaps", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def chunked(*messages: bytes) -> bytes:
    return b"".join(len(m).to_bytes(2, "big") + m + b"\x00\x00" for m in messages)


PULL = b"\xb1\x3f\xa1\x81n\xc9\x03\xe8"  # PULL {n: 1000}
RUN = b"\xb3\x10\x81x\xa0\xa0"


def test_pulls_are_found_in_what_was_sent(gaps) -> None:
    assert gaps._has_pull(chunked(PULL))
    assert gaps._has_pull(chunked(RUN, PULL))
    assert not gaps._has_pull(chunked(RUN))
    assert not gaps._has_pull(b"\x00\x02\xb0\x02\x00\x00")  # GOODBYE
    assert not gaps._has_pull(b"")


def ms(x: float) -> int:
    return int(x * 1_000_000)


def test_a_made_up_read_is_split_into_server_work_and_idle_gaps(gaps) -> None:
    # PULL at 10 ms; its batch arrives by 28 ms (kernel stamps), read by 30 ms; a full
    # collection from 30 to 50 ms; the next PULL at 60 ms, its batch (the last) stamped
    # 65 ms; the read ends at 80 ms. A young collection at 70 ms, in no gap.
    events = [
        ("read", ms(0), ms(80), None),
        ("send", ms(2), ms(3), chunked(RUN)),
        ("send", ms(9), ms(10), chunked(PULL)),
        ("recv", ms(12), ms(20), (100, ms(15))),
        ("recv", ms(20), ms(30), (50, ms(28))),
        ("gc", ms(30), ms(50), 2),
        ("send", ms(59), ms(60), chunked(PULL)),
        ("recv", ms(60), ms(70), (10, ms(65))),
        ("gc", ms(70), ms(71), 0),
        ("recv", ms(90), ms(95), (10, ms(92))),  # after the read: ignored
    ]
    res = gaps.analyse(events)
    assert res["pulls"] == 2
    assert res["read_s"] == pytest.approx(0.080)
    assert res["before_first_pull_s"] == pytest.approx(0.010)
    assert res["first_batch_s"] == pytest.approx(0.018)
    assert res["server_s"] == pytest.approx(0.018 + 0.005)
    assert res["gap_s"] == pytest.approx(0.032)
    assert res["gaps_ms"] == [32.0]
    assert res["gap_gc_s"] == pytest.approx(0.020)
    assert res["gap_full_gc_s"] == pytest.approx(0.020)
    assert res["full_gc_in_gap"] == 1  # it started after the SUCCESS arrived
    assert res["after_last_success_s"] == pytest.approx(0.015)
    assert res["wait_s"] == pytest.approx(0.028)
    assert res["gc_s"] == pytest.approx(0.021)
    assert (res["full_gc"], res["full_gc_s"]) == (1, pytest.approx(0.020))
    assert res["first_bytes_s"] == pytest.approx(0.005 + 0.005)
    assert res["bytes"] == 160
    assert [b["gap_ms"] for b in res["batches"]] == [32.0, 15.0]


def test_update_replaces_only_what_is_between_the_markers(gaps, tmp_path) -> None:
    f = tmp_path / "RESULTS.md"
    f.write_text(f"head\n{gaps.START}\nold table\n{gaps.END}\ntail\n", encoding="utf-8")
    gaps.update(f, "new table")
    assert f.read_text(encoding="utf-8") == f"head\n{gaps.START}\nnew table\n{gaps.END}\ntail\n"
    f.write_text("no markers\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        gaps.update(f, "new table")
