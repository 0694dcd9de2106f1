"""Native ``Record`` building for the neo4j driver's receive path.

Driver releases from 6.2 on build every row of a result with the classmethod
``Record._new(keys, values)``. :func:`install` replaces it with
``classmethod(boltcodec._native.record_new)``, which builds the same record natively
and keeps it (and its instance ``__dict__``) out of the cyclic garbage collector: a
record cannot be part of a reference cycle, and on large results the collector walking
every record kept was the largest single cost of the read (see ``src/record.rs``).

It is installed only when the running release's ``Record._new`` is recognised and gives,
on sample rows, exactly what the native one gives (type, values, keys, ``repr``, ``==``,
``hash``, the error for a length mismatch); otherwise the driver's stays, and
:data:`state` says why. Releases before 6.2 build records with ``Record(zip(keys,
values))``: nothing is replaced there.
"""

from __future__ import annotations

import sys
import typing as t

from . import _native

#: ``active``: whether ``Record._new`` is the native one; ``reason``: why (not).
state: dict[str, t.Any] = {"active": False, "reason": "not checked yet"}

#: (keys, values) the native builder is checked on, the last one of unequal lengths.
SAMPLES: tuple[tuple[t.Any, t.Any], ...] = (
    (("a", "b", "c"), [1, "x", 2.5]),
    ((), []),
    (["n"], [None]),
    (("l", "d"), [[1, [2]], {"k": {"j": 1}}]),
    (("a", "a"), [True, b"\x00"]),
    (("a", "b"), [1]),
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


def install() -> None:
    """Replace the driver's ``Record._new`` with the native one if recognised (once)."""
    if state["active"] or state["reason"] != "not checked yet":
        return
    module = sys.modules.get("neo4j._data")
    record_cls = getattr(module, "Record", None)
    new = vars(record_cls).get("_new") if isinstance(record_cls, type) else None
    if not isinstance(new, classmethod):
        state["reason"] = "this release has no Record._new classmethod (before 6.2)"
        return
    problem = _problem(record_cls, new.__get__(None, record_cls))
    if problem is not None:
        state["reason"] = f"Record._new is not the one boltcodec knows: {problem}"
        return
    record_cls._new = classmethod(_native.record_new)
    state.update(active=True, reason="active")
