"""Native ``Record`` building (``boltcodec._records``, ``src/record.rs``).

Runs against whichever ``neo4j`` is importable (``scripts/driver-matrix.sh`` runs it on
every supported release). From 6.2 on the driver builds rows with ``Record._new``,
which boltcodec replaces once it gave the same records; before 6.2, where rows are built
with ``Record(zip(keys, values))``, ``Record.__new__`` is replaced (zips natively, the
rest by the release's own ``__new__``).
"""

from __future__ import annotations

import gc
import typing as t

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


def test_records_are_built_natively_on_every_release() -> None:
    from neo4j._data import Record

    _records.install()
    assert _records.state["active"], _records.state
    if isinstance(vars(Record).get("_new"), classmethod):  # 6.2 on
        assert vars(Record)["_new"].__func__ is _native.record_new
    else:
        assert type(vars(Record)["__new__"].__func__) is _native.RecordNew


def _calls() -> list[t.Callable[[], tuple]]:
    """Calls of ``Record(...)`` (fresh iterators each time): the driver's own
    ``zip(keys, values)`` rows and every other shape a caller may pass."""

    def gen():
        yield ("g", 1)
        yield ("h", 2)

    calls: list[t.Callable[[], tuple]] = [
        lambda k=keys, v=values: (zip(k, v),) for keys, values in ROWS if hasattr(keys, "__len__")
    ]
    calls += list(_records.NEW_SAMPLES)
    calls += [
        lambda: (zip(("a", "b"), [1, 2], strict=True),),
        lambda: (zip(("a", "b", "c"), [1, 2], strict=True),),
        lambda: (zip(["a", "b"], iter([1, 2])),),
        lambda: (zip([("k", 1), ("j", 2)]),),  # items are 1-tuples: the release's error
        lambda: (zip(("a", "b"), [1, None]),),
        lambda: (gen(),),
        lambda: (iter([("a", 1)]),),
        lambda: ((("a", 1), ("b", [2])),),
        lambda: ([["a", 1], ["b", 2]],),
        lambda: ([("a", 1, 2)],),
        lambda: ([1],),
        lambda: (None,),
        lambda: (zip(("a",), [1]), "extra"),
    ]
    return calls


def test_record_calls_before_6_2_give_the_releases_records_and_errors() -> None:
    from neo4j._data import Record

    _records.install()
    new = vars(Record)["__new__"].__func__
    if type(new) is not _native.RecordNew:
        pytest.skip("6.2 on: rows are built with Record._new (tested above)")
    original = _records.kept["original_new"]
    assert original is not new
    for make in _calls():
        # Errors: the same type and message; records: the same everything.
        mine = _records._outcome(lambda m=make: Record(*m()))
        theirs = _records._outcome(lambda m=make: original(Record, *m()))
        assert mine[0] == theirs[0], (make(), mine, theirs)
        if mine[0] == "raised":
            assert mine == theirs, make()
        else:
            r, w = Record(*make()), original(Record, *make())
            # type, tuple, vars, repr, hash (the release's raises on an empty record), ==,
            # items
            assert _records._views(r, w) == _records._views(w, r), make()
    # Keyword calls and subclasses are the release's own.
    assert Record(iterable={"a": 1}) == original(Record, iterable={"a": 1})

    class Sub(Record):
        pass

    assert type(Sub(zip(("a",), [1]))) is Sub


def test_a_record_from_a_zip_is_native_and_untracked_before_6_2() -> None:
    from neo4j._data import Record

    _records.install()
    if type(vars(Record)["__new__"].__func__) is not _native.RecordNew:
        pytest.skip("6.2 on: rows are built with Record._new")
    r = Record(zip(("a", "b"), [1, "x"]))
    assert r["b"] == "x"
    assert r.keys() == ["a", "b"]
    assert not gc.is_tracked(r)
    assert not gc.is_tracked(vars(r))
    # A record holding a list stays tracked (a caller may put the record into it).
    assert gc.is_tracked(Record(zip(("a", "b"), [1, [2]])))
    # What the release's __new__ builds stays tracked as it always was.
    assert gc.is_tracked(Record([("a", [1])]))


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
            # Untracked only when no value can lead back to it (no list or dict).
            leaves = not any(isinstance(v, (list, dict)) for v in values)
            assert gc.is_tracked(r) is not leaves, (keys, values)
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


def _collected_after_a_cycle_through(make_record: t.Callable[[list], t.Any]) -> bool:
    """Build a record holding a list, put into that list an object that holds the
    record (a cycle only the GC can free), drop both; tell whether the GC freed it."""
    import weakref

    class Holder:
        pass

    record = make_record([1, 2])
    holder = Holder()
    holder.record = record
    record["l"].append(holder)
    ref = weakref.ref(holder)
    del holder, record
    gc.collect()
    return ref() is None


def test_a_cycle_through_a_list_in_a_native_record_was_never_collected() -> None:
    """Regression: native records were untracked whatever they held, so a cycle a caller
    built through a list value of the record (record -> list -> holder -> record) was
    kept forever; the pure driver's record is tracked and the cycle collected."""
    from neo4j._data import Record

    assert _collected_after_a_cycle_through(
        lambda values: _native.record_new(Record, ("l",), [values])
    )
    assert _collected_after_a_cycle_through(
        lambda values: _native.RecordNew(Record, object.__new__)(Record, zip(("l",), [values]))
    )


def test_a_record_holding_an_untracked_dict_stays_tracked() -> None:
    """An untracked dict (only atomic values) is tracked again by CPython once a list is
    put into it; a record holding one must stay tracked so that a cycle through that
    dict is collected."""
    import weakref

    from neo4j._data import Record

    class Holder:
        pass

    d = {"k": 1}
    assert not gc.is_tracked(d)
    record = _native.record_new(Record, ("d",), [d])
    assert gc.is_tracked(record)
    holder = Holder()
    holder.record = record
    d["cycle"] = [holder]
    ref = weakref.ref(holder)
    del holder, record, d
    gc.collect()
    assert ref() is None
