"""Native hydration for the neo4j driver's receive path (see ``src/hydrate.rs``).

The driver hands its Inbox the hydration hooks of one result (``{Structure:
scope._hydrate_structure, ...}``). :func:`native_hooks` returns the same hooks with the
``Structure`` entry replaced by a native :class:`boltcodec._native.Hydrator` when the
hook is one boltcodec recognises, and the hooks unchanged otherwise.

Recognised means, on the running driver release, not from a list of versions:

* the hook is a bound ``_hydrate_structure`` of an object with a
  ``_struct_hydration_functions`` dict, and its module has ``BrokenHydrationObject``;
  the Hydrator then calls the scope's functions directly. This is checked against the
  hook itself on sample structures (a good one, one whose function raises, an unknown
  tag): the same values, the same ``BrokenHydrationObject`` errors;
* per kind, the scope's function for the tag (``hydrate_date`` for ``D``,
  ``hydrate_point`` for ``X``/``Y``, the graph hydrator's ``hydrate_node``,
  ``hydrate_relationship``, ``hydrate_unbound_relationship`` for ``N``/``R``/``r``) and
  the class or table it builds from are found in that function's module or object, and
  the native builder is checked against the function on sample values (type,
  attributes, ``==``, ``hash``, ``repr``; for graph entities also which are the same
  object and the whole graph afterwards, on two fresh graph hydrators). A kind that fails
  the check stays the driver's.

Each function is checked once (the result is kept with the function). Values the native
builders do not handle (out of range, zero date, unknown SRID, unusual field types) are
passed to the driver's own function, so their results and errors are the driver's.
"""

from __future__ import annotations

import logging
import os
import typing as t

from . import _native

log = logging.getLogger("neo4j.boltcodec")

#: ``BOLTCODEC_HYDRATION=0`` (or off/false/no) keeps the driver's Python hydration on the
#: native receive path.
ENV = "BOLTCODEC_HYDRATION"
ENABLED = os.environ.get(ENV, "").strip().lower() not in ("0", "off", "false", "no")

#: The reasons already logged (each is logged once).
_logged: set[str] = set()

#: The result of each check: id(function) -> (function, passed, why not).
_checked: dict[int, tuple[t.Any, bool, str]] = {}

#: What the last recognition found: ``active`` (a native kind is in use), ``kinds``
#: (the tags built natively), ``reason``.
state: dict[str, t.Any] = {
    "active": False,
    "kinds": (),
    "reason": (
        "not checked yet (checked on the first result the receive path decodes)"
        if ENABLED
        else f"switched off ({ENV}={os.environ.get(ENV)})"
    ),
}

#: Day counts (since 1970-01-01) the native Date is checked on: both ends of the
#: driver's range, the epoch, leap days, the last three days of months.
DATE_SAMPLES = (
    -719162,
    -719161,
    -1,
    0,
    1,
    58,
    59,
    60,
    365,
    10956,
    11015,
    11016,
    11017,
    11045,
    19000,
    19722,
    2932894,
    2932895,
    2932896,
)

#: (SRID, coordinates) the native points are checked on.
POINT_SAMPLES = (
    (7203, (1.5, -2.0)),
    (9157, (1.0, 2.0, 3.25)),
    (4326, (12.5, 55.75)),
    (4979, (12.5, 55.75, 100.0)),
)


def _same(a: t.Any, b: t.Any) -> bool:
    """Tell whether two hydrated values are indistinguishable."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple) and tuple(a) != tuple(b):
        return False
    if getattr(a, "__dict__", None) != getattr(b, "__dict__", None):
        return False
    return a == b and hash(a) == hash(b) and repr(a) == repr(b)


def _check(function: t.Any, run: t.Callable[[], str | None]) -> tuple[bool, str]:
    """Run ``run`` (returns why the check failed, or None) once per ``function``."""
    done = _checked.get(id(function))
    if done is not None and done[0] is function:
        return done[1], done[2]
    try:
        problem = run()
    except Exception as error:
        problem = f"the check raised {error!r}"
    ok = problem is None
    _checked[id(function)] = (function, ok, problem or "")
    return ok, problem or ""


def _check_delegation(hook: t.Any, functions: dict, broken: type) -> str | None:
    hydrator = _native.Hydrator(functions, broken)
    # An unknown tag, a date, a date with too few fields (the driver's TypeError).
    samples = [_native.Structure(b"\x00\xff")]
    if b"D" in functions:
        samples += [_native.Structure(b"D", 19000), _native.Structure(b"D")]
    for s in samples:
        mine, theirs = hydrator(s), hook(s)
        if type(mine) is not type(theirs):
            return f"{s!r}: {type(mine).__name__} instead of {type(theirs).__name__}"
        if not isinstance(theirs, broken) and not _same(mine, theirs):
            return f"{s!r}: {mine!r} instead of {theirs!r}"
        if isinstance(theirs, broken) and (
            type(mine.error) is not type(theirs.error)
            or str(mine.error) != str(theirs.error)
            or mine.raw_data is not s
        ):
            return f"{s!r}: error {mine.error!r} instead of {theirs.error!r}"
    return None


def _date_kit(functions: dict, broken: type) -> tuple[dict, str | None]:
    f = functions.get(b"D")
    if getattr(f, "__name__", None) != "hydrate_date":
        return {}, "no hydrate_date for tag D"
    date_cls = getattr(f, "__globals__", {}).get("Date")
    if not isinstance(date_cls, type):
        return {}, "hydrate_date's module has no Date class"

    def run() -> str | None:
        h = _native.Hydrator({b"D": f}, broken, date_cls=date_cls)
        for days in DATE_SAMPLES:
            mine, theirs = h(_native.Structure(b"D", days)), f(days)
            if not _same(mine, theirs):
                return f"Date for {days} days: {mine!r} instead of {theirs!r}"
        if h.counts[0] != len(DATE_SAMPLES):
            return "the native Date builder was not used"
        return None

    ok, problem = _check(f, run)
    return ({"date_cls": date_cls} if ok else {}), (None if ok else problem)


def _point_kit(functions: dict, broken: type) -> tuple[dict, str | None]:
    f = functions.get(b"X")
    if f is None or functions.get(b"Y") is not f:
        return {}, "tags X and Y do not share one function"
    if getattr(f, "__name__", None) != "hydrate_point":
        return {}, "no hydrate_point for tags X and Y"
    module = getattr(f, "__globals__", {})
    # 6.x names the SRID table _srid_table, 5.x srid_table.
    table = module.get("_srid_table", module.get("srid_table"))
    if type(table) is not dict:
        return {}, "hydrate_point's module has no SRID table dict"

    def run() -> str | None:
        h = _native.Hydrator({b"X": f, b"Y": f}, broken, srid_table=table)
        for srid, coords in POINT_SAMPLES:
            tag = b"X" if len(coords) == 2 else b"Y"
            mine = h(_native.Structure(tag, srid, *coords))
            theirs = f(srid, *coords)
            if not _same(mine, theirs) or mine.srid != theirs.srid:
                return f"point {srid} {coords}: {mine!r} instead of {theirs!r}"
        if h.counts[0] != len(POINT_SAMPLES):
            return "the native point builder was not used"
        return None

    ok, problem = _check(f, run)
    return ({"srid_table": table} if ok else {}), (None if ok else problem)


def _graph_samples() -> list[t.Any]:
    s = _native.Structure
    return [
        s(b"N", 1, ["Person"], {"name": "Ada", "gone": None}, "4:x:1"),
        s(b"R", 10, 1, 2, "KNOWS", {"since": 2001}, "5:x:10", "4:x:1", "4:x:2"),
        s(b"R", 11, 2, 3, "KNOWS", {}, "5:x:11", "4:x:2", "4:x:3"),
        s(b"N", 2, ["Dev"], {"age": 36}, "4:x:2"),  # seen as an endpoint first: merged
        s(b"N", 1, [], {}, "4:x:1"),  # seen before: the same object
        s(b"N", 1, ["Person", "X"], {"gone": None, "age": 1}, "4:x:1"),  # merged as-is
        s(b"r", 12, "KNOWS", {"w": 0.5}, "5:x:12"),
        s(b"R", 10, 1, 2, "KNOWS", {}, "5:x:10", "4:x:1", "4:x:2"),
        s(b"N", 7, ["Old"], {}),  # no element id: str(id)
        s(b"R", 13, 7, 1, "KNOWS", {}),
        s(b"r", 14, "KNOWS", None),
    ]


def _entity_key(e: t.Any) -> t.Any:
    """Everything that tells two graph entities (of two graphs) apart."""
    if e is None or isinstance(e, type):
        return getattr(e, "__name__", None)
    cls = type(e)
    out: list[t.Any] = [[c.__name__ for c in cls.__mro__], repr(e)]
    for k, v in sorted(vars(e).items()):
        if k == "_graph":
            continue
        if k in ("_start_node", "_end_node"):
            out.append((k, None if v is None else (v._element_id, repr(v))))
        else:
            out.append((k, v))
    return out


def _graph_key(graph: t.Any) -> t.Any:
    return [
        (k, [(key, _entity_key(e)) for key, e in v.items()])
        for k, v in sorted(vars(graph).items())
        if type(v) is dict
    ]


def _graph_kit(functions: dict, broken: type) -> tuple[dict, str | None]:
    bound = [functions.get(tag) for tag in (b"N", b"R", b"r")]
    names = [getattr(getattr(f, "__func__", None), "__name__", None) for f in bound]
    if names != ["hydrate_node", "hydrate_relationship", "hydrate_unbound_relationship"]:
        return {}, "tags N, R, r are not a graph hydrator's hydrate_* methods"
    owner = bound[0].__self__
    if any(f.__self__ is not owner for f in bound):
        return {}, "tags N, R, r are methods of different objects"
    node_cls = bound[0].__func__.__globals__.get("Node")
    graph = getattr(owner, "graph", None)
    if not isinstance(node_cls, type) or graph is None:
        return {}, "no Node class or graph"
    legacy = hasattr(graph, "_legacy_nodes")

    def run() -> str | None:
        mine, theirs = type(owner)(), type(owner)()

        def table(o: t.Any) -> dict:
            return {
                b"N": o.hydrate_node,
                b"R": o.hydrate_relationship,
                b"r": o.hydrate_unbound_relationship,
            }

        h = _native.Hydrator(
            table(mine), broken, graph=mine.graph, node_cls=node_cls, legacy=legacy
        )
        got, want = [], []
        for sample in _graph_samples():
            got.append(h(sample))
            want.append(table(theirs)[sample.tag](*sample.fields))
            if _entity_key(got[-1]) != _entity_key(want[-1]):
                return f"{sample!r}: {got[-1]!r} instead of {want[-1]!r}"
        same = [[a is b for b in got] for a in got]
        if same != [[a is b for b in want] for a in want]:
            return "entities seen twice are not the same objects as in the driver"
        if _graph_key(mine.graph) != _graph_key(theirs.graph):
            return "the result's graph differs from the driver's"
        if h.counts[0] < len(got) // 2:
            return "the native graph builders were not used"
        return None

    ok, problem = _check(bound[0].__func__, run)
    if not ok:
        return {}, problem
    return {"graph": graph, "node_cls": node_cls, "legacy": legacy}, None


def _hydrator_for(hook: t.Any) -> tuple[t.Any, str, tuple[str, ...]]:
    """Return ``(Hydrator or None, reason, native tags)`` for the driver's hook."""
    func = getattr(hook, "__func__", None)
    scope = getattr(hook, "__self__", None)
    if func is None or getattr(func, "__name__", None) != "_hydrate_structure":
        return None, "the Structure hook is not a HydrationScope's _hydrate_structure", ()
    functions = getattr(scope, "_struct_hydration_functions", None)
    if type(functions) is not dict:
        return None, "the hydration scope has no _struct_hydration_functions dict", ()
    broken = getattr(func, "__globals__", {}).get("BrokenHydrationObject")
    if not isinstance(broken, type):
        return None, "_hydrate_structure's module has no BrokenHydrationObject", ()
    ok, problem = _check(func, lambda: _check_delegation(hook, functions, broken))
    if not ok:
        return None, f"_hydrate_structure is not the one boltcodec knows: {problem}", ()
    kits: dict[str, t.Any] = {}
    kinds = []
    notes = []
    for name, tags, make in (
        ("Date", "D", _date_kit),
        ("Point", "XY", _point_kit),
        ("Node/Relationship", "NRr", _graph_kit),
    ):
        kit, problem = make(functions, broken)
        if problem is None:
            kits.update(kit)
            kinds.append(tags)
        else:
            notes.append(f"{name}: {problem}")
    hydrator = _native.Hydrator(functions, broken, **kits)
    reason = "active" if kinds else "no native kind recognised"
    if notes:
        reason += " (the driver's own for " + "; ".join(notes) + ")"
    return hydrator, reason, tuple(kinds)


def native_hooks(hooks: t.Any) -> t.Any:
    """Return ``hooks`` with a native Hydrator as its ``Structure`` entry, if recognised."""
    if type(hooks) is not dict or not hooks:
        return hooks
    hook = hooks.get(_native.Structure)
    if hook is None:
        return hooks
    hydrator, reason, kinds = _hydrator_for(hook)
    if reason != "active" and reason not in _logged:
        # Once per reason, in the driver's logger: what stays the driver's, and why.
        _logged.add(reason)
        log.warning("boltcodec: native hydration: %s", reason)
    state.update(active=bool(kinds), kinds=kinds, reason=reason)
    if hydrator is None:
        return hooks
    return {**hooks, _native.Structure: hydrator}
