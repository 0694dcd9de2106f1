"""Native ``Record`` building for the neo4j driver's receive path.

Driver releases from 6.2 on build every row of a result with the classmethod
``Record._new(keys, values)``. :func:`install` replaces it with
``classmethod(boltcodec._native.record_new)``, which builds the same record natively
and keeps its instance ``__dict__`` out of the cyclic garbage collector, and the record
too when its values are all leaves (no list, dict or graph entity, which a caller could
point back at the record): on large results of such rows the collector walking every
record kept was the largest single cost of the read (see ``src/record.rs``).

It is installed only when the running release's ``Record._new`` is recognised and gives,
on sample rows, exactly what the native one gives (type, values, keys, ``repr``, ``==``,
``hash``, the error for a length mismatch); otherwise the driver's stays, and
:data:`state` says why.

Releases before 6.2 build every row with ``Record(zip(keys, values))``. There
:func:`install` replaces ``Record.__new__`` with ``boltcodec._native.RecordNew``, which
reads an exact ``zip`` of pairs natively and makes the same record (untracked likewise),
and hands every other call (a dict, a list of pairs, keyword arguments, a zip whose items
are not pairs, a subclass) to the release's own ``__new__``; checked first on sample
calls (:data:`NEW_SAMPLES`) against the release's ``__new__`` the same way.
"""

from __future__ import annotations

import sys
import typing as t

from . import _native

#: ``active``: whether records are built natively; ``reason``: why (not).
state: dict[str, t.Any] = {"active": False, "reason": "not checked yet"}

#: Before 6.2: ``original_new``, the release's own ``Record.__new__`` once replaced (the
#: native one hands it every call that is not a zip of pairs).
kept: dict[str, t.Callable[..., t.Any]] = {}

#: (keys, values) the native builder is checked on, the last one of unequal lengths.
SAMPLES: tuple[tuple[t.Any, t.Any], ...] = (
    (("a", "b", "c"), [1, "x", 2.5]),
    ((), []),
    (["n"], [None]),
    (("l", "d"), [[1, [2]], {"k": {"j": 1}}]),
    (("a", "a"), [True, b"\x00"]),
    (("a", "b"), [1]),
)


def _strict_zip(keys: t.Any, values: t.Any) -> t.Any:
    """``zip(keys, values, strict=True)`` (6.0 and 6.1 build rows with it)."""
    return zip(keys, values, strict=True)


#: Calls of ``Record(...)`` (a function making the argument, so each call gets a fresh
#: iterator) the native ``__new__`` is checked on: zips of pairs, empty, strict and of
#: unequal lengths, of triples and single items (the release's unpacking errors), a
#: dict, a list of pairs, nothing at all.
NEW_SAMPLES: tuple[t.Callable[[], tuple], ...] = (
    lambda: (zip(("a", "b", "c"), [1, "x", 2.5]),),
    lambda: (zip((), []),),
    lambda: (zip(["n"], [None]),),
    lambda: (zip(("l", "d"), [[1, [2]], {"k": {"j": 1}}]),),
    lambda: (zip(("a", "a"), [True, b"\x00"]),),
    lambda: (zip(("a", "b"), [1]),),
    lambda: (_strict_zip(("a", "b"), [1]),),
    lambda: (_strict_zip(("a", "b"), [1, 2]),),
    lambda: (zip(("a", "b"), [1, 2], [3, 4]),),
    lambda: (zip(("a", "b")),),
    lambda: (zip([1, 2], ["k", "v"]),),
    lambda: ({"a": 1, "b": 2},),
    lambda: ([("a", 1), ("b", 2)],),
    lambda: ([("a", 1), 5],),
    lambda: (),
)


def _outcome(fn: t.Callable[[], t.Any]) -> tuple:
    try:
        return ("ok", fn())
    except Exception as error:
        return ("raised", type(error), str(error))


def _views(record: t.Any, other: t.Any) -> list[tuple]:
    """Everything a caller can see of ``record`` (``other``: what it is compared with)."""
    views = (type, tuple, vars, repr, hash, lambda r: r == other, lambda r: list(r.items()))
    return [_outcome(lambda v=view: v(record)) for view in views]


def _problem(record_cls: type, original: t.Callable) -> str | None:
    """Say how the native builder differs from ``original`` on the samples, or None."""
    for keys, values in SAMPLES:
        mine = _outcome(lambda k=keys, v=values: _native.record_new(record_cls, k, v))
        theirs = _outcome(lambda k=keys, v=values: original(k, v))
        if mine[0] != theirs[0] or (mine[0] == "raised" and mine != theirs):
            return f"{keys!r}, {values!r}: {mine!r} instead of {theirs!r}"
        if mine[0] == "raised":
            continue
        if _views(mine[1], theirs[1]) != _views(theirs[1], mine[1]):
            return f"{keys!r}, {values!r}: {mine[1]!r} differs from {theirs[1]!r}"
    return None


def _new_problem(record_cls: type, original: t.Callable, native: t.Any) -> str | None:
    """Say how ``native`` differs from the release's ``Record.__new__``, or None."""
    for make in NEW_SAMPLES:
        mine = _outcome(lambda m=make: native(record_cls, *m()))
        theirs = _outcome(lambda m=make: original(record_cls, *m()))
        if mine[0] != theirs[0] or (mine[0] == "raised" and mine != theirs):
            return f"{make()!r}: {mine!r} instead of {theirs!r}"
        if mine[0] == "ok" and _views(mine[1], theirs[1]) != _views(theirs[1], mine[1]):
            return f"{make()!r}: {mine[1]!r} differs from {theirs[1]!r}"
    return None


def _install_new(record_cls: type) -> None:
    """Before 6.2: replace ``Record.__new__`` with the native one if recognised."""
    new = vars(record_cls).get("__new__")
    original = getattr(new, "__func__", None)
    if not isinstance(new, staticmethod) or getattr(original, "__name__", None) != "__new__":
        state["reason"] = "this release's Record has neither _new nor its own __new__"
        return
    native = _native.RecordNew(record_cls, original)
    problem = _new_problem(record_cls, original, native)
    if problem is not None:
        state["reason"] = f"Record.__new__ is not the one boltcodec knows: {problem}"
        return
    kept["original_new"] = original
    record_cls.__new__ = staticmethod(native)
    state.update(active=True, reason="active (Record.__new__: this release has no _new)")


def install() -> None:
    """Make the driver's records natively if its ``Record`` is recognised (once).

    Its ``Record._new`` (6.2 on) or, before, its ``Record.__new__`` is replaced.
    """
    if state["active"] or state["reason"] != "not checked yet":
        return
    module = sys.modules.get("neo4j._data")
    record_cls = getattr(module, "Record", None)
    if not isinstance(record_cls, type):
        state["reason"] = "neo4j._data has no Record class"
        return
    new = vars(record_cls).get("_new")
    if not isinstance(new, classmethod):
        _install_new(record_cls)
        return
    problem = _problem(record_cls, new.__get__(None, record_cls))
    if problem is not None:
        state["reason"] = f"Record._new is not the one boltcodec knows: {problem}"
        return
    record_cls._new = classmethod(_native.record_new)
    state.update(active=True, reason="active")
