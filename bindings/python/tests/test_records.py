"""Native ``Record`` building (``boltcodec._records``, ``src/record.rs``).

Runs against whichever ``neo4j`` is importable (``scripts/driver-matrix.sh`` runs it on
every supported release). From 6.2 on the driver builds rows with ``Record._new``,
which boltcodec replaces once it gave the same records; before 6.2 nothing is replaced.
"""

from __future__ import annotations

import gc

import pytest

neo4j = pytest.importorskip("neo4j")

from test_dropin_release import canon, outcome  # noqa: E402

from boltcodec import _native, _records  # noqa: E402

ROWS = [
    (("a", "b", "c"), [1, "x", 2.5]),
    ((), []),
    (["k"], [None]),
    (("l", "d"), [[1, [2, None]], {"k": {"j": 1}}]),
    (("same", "same"), [True, b"\x00\xff"]),
    (("big",), [2**63 - 1]),
    (("a", "b"), [1]),
    (("a",), [1, 2]),
    (iter(()), []),
]


def test_records_are_built_natively_from_6_2_on() -> None:
    from neo4j._data import Record

    _records.install()
    has_new = isinstance(vars(Record).get("_new"), classmethod)
    assert _records.state["active"] is has_new, _records.state
    if has_new:
        assert vars(Record)["_new"].__func__ is _native.record_new


def test_native_records_equal_the_drivers_and_are_not_tracked_by_the_gc() -> None:
    from neo4j._data import Record

    def drivers(keys, values):
        # What every release's Record does: tuple.__new__ + the keys (6.2's _new).
        if len(keys) != len(values):
            raise ValueError(
                f"keys and values have different length ({keys=}, {values=}); "
                "this is either a bug in the driver or a protocol violation "
                "by the server"
            )
        r = tuple.__new__(Record, values)
        r._Record__keys = tuple(keys)
        return r

    for keys, values in ROWS:
        if not hasattr(keys, "__len__"):
            continue
        mine = outcome(lambda k=keys, v=values: _native.record_new(Record, k, v))
        theirs = outcome(lambda k=keys, v=values: drivers(k, v))
        assert mine == theirs, (keys, values)
        if mine[0] == "ok":
            r = _native.record_new(Record, keys, values)
            assert type(r) is Record
            assert list(r.keys()) == list(keys)
            assert [canon(v) for v in r.values()] == [canon(v) for v in values]
            assert repr(r) == repr(drivers(keys, values))
            assert not gc.is_tracked(r)
            assert not gc.is_tracked(vars(r))


def test_a_native_record_keeps_its_values_alive_and_frees_them() -> None:
    import weakref

    from neo4j._data import Record

    class Value:
        pass

    v = Value()
    ref = weakref.ref(v)
    r = _native.record_new(Record, ("v",), [v])
    del v
    gc.collect()
    assert ref() is r["v"]
    del r
    assert ref() is None


def test_a_record_given_a_container_attribute_is_tracked_again_through_its_dict() -> None:
    from neo4j._data import Record

    r = _native.record_new(Record, ("a",), [1])
    r.extra = [1]
    assert gc.is_tracked(vars(r))
