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
  ``hydrate_point`` for ``X``/``Y``, ``hydrate_time`` for ``t``/``T``,
  ``hydrate_datetime`` for ``d`` and the offset tags ``F`` (Bolt < 5: wall-clock seconds)
  and ``I`` (Bolt 5 and the 4.4 utc patch: UTC seconds), ``hydrate_duration`` for ``E``,
  the graph hydrator's ``hydrate_node``, ``hydrate_relationship``,
  ``hydrate_unbound_relationship`` and ``hydrate_path`` for ``N``/``R``/``r``/``P``) and
  the class or table it builds from are found in that function's module or object, and
  the native builder is checked against the function on sample values (type,
  attributes, ``==``, ``hash``, ``repr``; for graph entities also which are the same
  object and the whole graph afterwards, on two fresh graph hydrators). A kind that fails
  the check stays the driver's.

* 6.x: ``hydrate_vector`` for ``V`` (its module's element-type table and ``Vector``, each
  type's inner vector class from the vector module's ``_get_type``) and
  ``hydrate_unsupported`` for ``?`` (its module's ``UnsupportedType``), checked the same
  way on every element type (empty vectors too) and on unsupported types with and
  without a message. Both classes compare and hash by identity, so there the check
  compares every attribute and slot, ``repr`` and ``str`` (``_same_state``).

* named time zones (``f``: wall-clock seconds, pytz's ``localize``; ``i``: UTC seconds,
  pytz's ``fromutc``): each zone's transition table is read from pytz once
  (:func:`zone_table`, kept in :data:`ZONES`) and looked up natively; checked per tag
  on zones of every pytz kind, around their transitions (:func:`zone_samples`), with
  the same tzinfo object as the driver's.

Each function is checked once (the result is kept with the function). Values the native
builders do not handle (out of range, zero date, unknown SRID, unknown zone names,
wall-clock times in a zone's gap or fold, unknown vector types or lengths not a multiple
of the element size, unusual field types) are passed to the driver's own function, so
their results and errors are the driver's.
"""

from __future__ import annotations

import logging
import os
import sys
import typing as t

from . import _native, _records

log = logging.getLogger("neo4j.boltcodec")

#: ``BOLTCODEC_HYDRATION=0`` (or off/false/no) keeps the driver's Python hydration on the
#: native receive path.
ENV = "BOLTCODEC_HYDRATION"
ENABLED = os.environ.get(ENV, "").strip().lower() not in ("0", "off", "false", "no")

#: The reasons already logged (each is logged once).
_logged: set[str] = set()

#: The result of each check: (id(function), tag) -> (function, passed, why not).
_checked: dict[tuple[int, int], tuple[t.Any, bool, str]] = {}

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


S = _native.Structure

#: Times (t, T) the native Time is checked on: midnight, the last nanosecond, offsets of
#: whole minutes and not, east and west, zero (pytz's utc).
TIME_SAMPLES = [
    S(b"t", 0),
    S(b"t", 86_399_999_999_999),
    S(b"t", 45_296_789_000_123),
    S(b"T", 45_296_789_000_123, 3600),
    S(b"T", 1, -64800),
    S(b"T", 5, 0),
    S(b"T", 5, 59),
    S(b"T", 5, -1),
    S(b"T", 86_399_999_999_999, 50399),
]

#: Durations (E) the native Duration is checked on: signs mixed, nanoseconds beyond a
#: second both ways, the largest values in range.
DURATION_SAMPLES = [
    S(b"E", 1, 2, 3, 4),
    S(b"E", 0, 0, 0, 0),
    S(b"E", -1, -2, -3, -4),
    S(b"E", 0, 0, 1, -1),
    S(b"E", 0, 0, -1, 1),
    S(b"E", 14, 35, 86_401, 2_500_000_000),
    S(b"E", 0, 0, 0, -2_500_000_001),
    S(b"E", 0, 0, 2**63 - 1, 0),
    S(b"E", 3_507_324_295_030, 0, 0, 0),
]


#: Zones the native named-zone datetimes (``f``, ``i``) are checked on: UTC (pytz's own
#: class), fixed zones, zones with summer time both hemispheres, half-hour and
#: 45-minute offsets, negative summer time, a skipped day, and unknown names (the
#: driver's error).
ZONE_SAMPLES = (
    "UTC",
    "Etc/GMT+5",
    "EST",
    "Europe/Stockholm",
    "America/New_York",
    "Australia/Lord_Howe",
    "Asia/Kathmandu",
    "America/St_Johns",
    "Europe/Dublin",
    "Pacific/Apia",
    "No/Zone",
    "",
)

#: Seconds the named-zone datetimes are checked on, besides each zone's transitions:
#: the epoch, now-ish, both ends of the driver's range, before 1901, after 2037 (pytz's
#: last transition holds).
ZONE_SECONDS = (0, 1_600_000_000, -62_135_596_800, 253_402_300_799, -2_000_000_000, 4_000_000_000)


def zone_samples(
    tag: int,
    zones: t.Iterable[str] = ZONE_SAMPLES,
    per_zone: int = 2,
    both_nanos: bool = False,
) -> list[t.Any]:
    """Return ``f``/``i`` structures in ``zones``.

    At ``ZONE_SECONDS`` and around ``per_zone`` transitions of each zone spread over its
    table, the first and the last included (a second either side and, for ``f``, the
    wall-clock times at both offsets: gaps and folds); with 0 or 999,999,999 nanoseconds
    in turn, or (``both_nanos``) both. The check on the first result uses the defaults
    (pytz's ``localize`` is slow: about a quarter of a millisecond a value); the tests
    sweep further.
    """
    out = []
    b = bytes([tag])
    for name in zones:
        seconds = list(ZONE_SECONDS)
        parts = _zone_parts(name)
        if parts is not None and len(parts[0]) > 1:
            transitions, offsets = parts[0], parts[1]
            last = len(transitions) - 1
            picked = {1 + k * (last - 1) // max(1, per_zone - 1) for k in range(per_zone)}
            for i in sorted(picked):
                u, before, after = transitions[i], offsets[i - 1], offsets[i]
                seconds += [u - 1, u, u + 1]
                if tag == ord("f"):  # the same instants as wall-clock times
                    seconds += [u + before - 1, u + before, u + after - 1, u + after]
                    seconds.append(u + (before + after) // 2)
        for k, s in enumerate(seconds):
            nanos = (0, 999_999_999) if both_nanos else ((0, 999_999_999)[k % 2],)
            out += [S(b, s, ns, name) for ns in nanos]
    return out


def _whole_seconds(delta: t.Any) -> int | None:
    if delta.microseconds:
        return None
    return delta.days * 86_400 + delta.seconds


def _zone_parts(  # noqa: PLR0911 (one return per kind of zone and per refusal)
    name: str,
) -> tuple[list[int], list[int], list[t.Any]] | None:
    """Return pytz's zone ``name`` as (UTC transitions in seconds, offsets in seconds, tzinfos).

    ``None`` where pytz does not know the name, where the name is not the zone's own
    (pytz also finds zones by case), or the zone is not one of pytz's three kinds
    (``utc``, ``StaticTzInfo``, ``DstTzInfo``) with whole-second tables: such values
    stay the driver's, and the cache of tables (:data:`ZONES`) holds at most one entry
    per pytz zone whatever names a server sends.
    """
    import datetime

    import pytz
    from pytz.tzinfo import DstTzInfo, StaticTzInfo

    try:
        zone = pytz.timezone(name)
    except Exception:
        return None
    if getattr(zone, "zone", None) != name:
        return None
    if zone is pytz.utc:
        return [], [0], [zone]
    if type(zone).__mro__[1] is StaticTzInfo:
        offset = _whole_seconds(zone._utcoffset)
        return None if offset is None else ([], [offset], [zone])
    if type(zone).__mro__[1] is not DstTzInfo:
        return None
    epoch = datetime.datetime(1970, 1, 1)
    transitions = [_whole_seconds(u - epoch) for u in zone._utc_transition_times]
    infos = zone._transition_info
    offsets = [_whole_seconds(inf[0]) for inf in infos]
    if None in transitions or None in offsets or len(infos) != len(transitions):
        return None
    return transitions, offsets, [zone._tzinfos[inf] for inf in infos]


def zone_table(name: str) -> t.Any:
    """Return the :class:`boltcodec._native.ZoneTable` of pytz's zone ``name``, or None."""
    parts = _zone_parts(name)
    if parts is None:
        return None
    try:
        return _native.ZoneTable(*parts)
    except ValueError:
        return None  # unsorted, or an offset of a day or more: the driver's


#: zone name -> ZoneTable, shared by every Hydrator (pytz keeps its zones too); only
#: pytz's own zone names are kept.
ZONES: dict[str, t.Any] = {}


def datetime_samples(tag: int) -> list[t.Any]:
    """Return the datetimes of ``tag`` the native DateTime is checked on.

    ``d``: (seconds, nanoseconds); ``F``, ``I``: also an offset. The epoch, before it,
    both ends of the driver's range, a leap day, nanoseconds, offsets of whole minutes
    and not. ``f``, ``i``: :func:`zone_samples`.
    """
    if tag in b"fi":
        return zone_samples(tag)
    seconds = (0, -1, 1_600_000_000, -62135596800, 253402300799, 951782400, 86399)
    nanos = (0, 999_999_999, 5)
    offsets = (0, 3600, -45240, 59, -1, 50400, -64800)
    out = []
    for i, s in enumerate(seconds):
        ns = nanos[i % len(nanos)]
        if tag == ord("d"):
            out.append(S(b"d", s, ns))
        else:
            out += [S(bytes([tag]), s, ns, off) for off in offsets]
    return out


def _same(a: t.Any, b: t.Any) -> bool:
    """Tell whether two hydrated values are indistinguishable."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple) and tuple(a) != tuple(b):
        return False
    if getattr(a, "__dict__", None) != getattr(b, "__dict__", None):
        return False
    # hash and == may raise on the driver's own values (a datetime at the end of the
    # range whose UTC instant is beyond it): then both must raise alike.
    return all(
        _outcome(lambda op=op: op(a)) == _outcome(lambda op=op: op(b))
        for op in (lambda v: v == (b if v is a else a), hash, repr)
    )


_MISSING = object()


def _state(v: t.Any, depth: int = 0) -> t.Any:
    """Everything an object holds: its type, slots and ``__dict__``, recursively."""
    if v is None or type(v) in (bool, int, float, str, bytes) or depth > 4:
        return (type(v).__name__, repr(v))
    if type(v) in (tuple, list):
        return (type(v).__name__, [_state(x, depth + 1) for x in v])
    cls = type(v)
    out: list[t.Any] = [cls]
    for c in cls.__mro__:
        slots = getattr(c, "__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__weakref__", "__dict__"):
                out.append((c.__name__, name, _state(getattr(v, name, _MISSING), depth + 1)))
    if hasattr(v, "__dict__"):
        out.append([(k, _state(x, depth + 1)) for k, x in vars(v).items()])
    return out


def _same_state(a: t.Any, b: t.Any) -> bool:
    """Tell whether two values of a class that may compare by identity are alike.

    For ``Vector`` and ``UnsupportedType``: the same state, ``repr`` and ``str``, and
    where the class defines ``==`` or ``hash``, what :func:`_same` asks.
    """
    if type(a) is not type(b) or _state(a) != _state(b):
        return False
    if (repr(a), str(a)) != (repr(b), str(b)):
        return False
    cls = type(a)
    if cls.__eq__ is object.__eq__ and cls.__hash__ is object.__hash__:
        return True  # identity: two objects are never equal, as two of the driver's
    return _same(a, b)


def _same_zoned(a: t.Any, b: t.Any) -> bool:
    """Tell whether two named-zone datetimes are indistinguishable.

    :func:`_same`, and the same tzinfo object (pytz's, per period of the zone) with the
    same ``utcoffset``, ``dst`` and ``tzname`` answers.
    """
    if not _same(a, b) or getattr(a, "tzinfo", None) is not getattr(b, "tzinfo", None):
        return False
    return all(
        _outcome(lambda op=op: op(a)) == _outcome(lambda op=op: op(b))
        for op in (lambda v: v.utcoffset(), lambda v: v.dst(), lambda v: v.tzname())
    )


def _outcome(fn: t.Callable[[], t.Any]) -> tuple:
    try:
        return ("ok", fn())
    except Exception as error:
        return ("raised", type(error), str(error))


def _check(function: t.Any, run: t.Callable[[], str | None], tag: int = 0) -> tuple[bool, str]:
    """Run ``run`` (returns why the check failed, or None) once per ``function``.

    ``tag`` tells apart the checks of a function that serves several tags differently.
    """
    done = _checked.get((id(function), tag))
    if done is not None and done[0] is function:
        return done[1], done[2]
    try:
        problem = run()
    except Exception as error:
        problem = f"the check raised {error!r}"
    ok = problem is None
    _checked[(id(function), tag)] = (function, ok, problem or "")
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


def _date_kit(functions: dict, broken: type, _kits: dict) -> tuple[dict, str | None]:
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


def _point_kit(functions: dict, broken: type, _kits: dict) -> tuple[dict, str | None]:
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


def _differs(
    h: t.Any,
    functions: dict,
    samples: list[t.Any],
    same: t.Callable = _same,
    some_delegated: bool = False,
) -> str | None:
    """Compare ``h`` with the driver's functions on ``samples``.

    Each sample the driver builds without an error must be ``same`` and built natively
    (``some_delegated``: at least half of them; the rest, wall-clock times in the gaps
    and folds of named zones and near the ends of the range, go to the driver's function
    by design).
    """
    built = 0
    for s in samples:
        try:
            theirs = functions[s.tag](*s.fields)
        except Exception:
            continue  # the driver's error: the Hydrator hands such values to it
        built += 1
        mine = h(s)
        if not same(mine, theirs):
            return f"{s!r}: {mine!r} instead of {theirs!r}"
    if h.counts[0] != built and not (some_delegated and h.counts[0] * 2 >= built):
        return f"{h.counts[0]} of {built} samples were built natively"
    return None


def _named(functions: dict, tags: bytes, name: str) -> t.Any:
    """Return the function all of ``tags`` share if it is called ``name``, else None."""
    fs = {id(functions.get(bytes([tag]))): functions.get(bytes([tag])) for tag in tags}
    f = next(iter(fs.values())) if len(fs) == 1 else None
    return f if getattr(f, "__name__", None) == name else None


def _time_kit(functions: dict, broken: type, _kits: dict) -> tuple[dict, str | None]:
    f = _named(functions, b"tT", "hydrate_time")
    if f is None:
        return {}, "tags t and T do not share one hydrate_time"
    time_cls = getattr(f, "__globals__", {}).get("Time")
    if not isinstance(time_cls, type):
        return {}, "hydrate_time's module has no Time class"
    import pytz

    kit = {"time_cls": time_cls, "fixed_offset": pytz.FixedOffset}

    def run() -> str | None:
        h = _native.Hydrator({b"t": f, b"T": f}, broken, **kit)
        return _differs(h, {b"t": f, b"T": f}, TIME_SAMPLES)

    ok, problem = _check(f, run)
    return (kit if ok else {}), (None if ok else problem)


def _datetime_kit(functions: dict, broken: type, time: dict) -> tuple[dict, str | None]:
    """Enable each of the tags ``d``, ``F``, ``I``, ``f``, ``i`` its function matches.

    Each tag's function must be ``hydrate_datetime``. The native builder reads them as
    local, wall-clock + offset, UTC + offset, wall-clock in a named zone (pytz's
    ``localize``), UTC shown in a named zone (pytz's ``fromutc``). The dates inside are
    the native Date builder's, so that must be on, of the same class.
    """
    if "time_cls" not in time:
        return {}, "needs the native Time"
    tags = b""
    problems = []
    for tag in b"dFIfi":
        f = _named(functions, bytes([tag]), "hydrate_datetime")
        if f is None:
            continue
        module = getattr(f, "__globals__", {})
        kit = {
            "time_cls": time["time_cls"],
            "fixed_offset": time["fixed_offset"],
            "date_cls": module.get("Date"),
            "datetime_cls": module.get("DateTime"),
            "datetime_tags": bytes([tag]),
        }
        if tag in b"fi":
            kit |= {"zone_cache": ZONES, "zone_loader": zone_table}
        if time.get("date_cls") is not kit["date_cls"] or not isinstance(
            kit["datetime_cls"], type
        ):
            problems.append(f"{chr(tag)}: not the native Date's class, or no DateTime")
            continue

        def run(f=f, kit=kit, tag=tag) -> str | None:
            h = _native.Hydrator({bytes([tag]): f}, broken, **kit)
            same = _same_zoned if tag in b"fi" else _same
            return _differs(h, {bytes([tag]): f}, datetime_samples(tag), same, tag in b"f")

        # The same function serves several tags, read differently: checked per tag.
        ok, problem = _check(f, run, tag)
        if ok:
            tags += bytes([tag])
            found = kit
        else:
            problems.append(f"{chr(tag)}: {problem}")
    if not tags:
        return {}, "; ".join(problems) or "no hydrate_datetime for tags d, F, I, f, i"
    return {**found, "datetime_tags": tags, "zone_cache": ZONES, "zone_loader": zone_table}, None


def _duration_kit(functions: dict, broken: type, kits: dict) -> tuple[dict, str | None]:
    f = _named(functions, b"E", "hydrate_duration")
    if f is None or "time_cls" not in kits:
        return {}, "no hydrate_duration for tag E (or no native Time)"
    duration_cls = getattr(f, "__globals__", {}).get("Duration")
    if not isinstance(duration_cls, type):
        return {}, "hydrate_duration's module has no Duration class"
    kit = {k: kits[k] for k in ("time_cls", "fixed_offset")} | {"duration_cls": duration_cls}

    def run() -> str | None:
        h = _native.Hydrator({b"E": f}, broken, **kit)
        return _differs(h, {b"E": f}, DURATION_SAMPLES)

    ok, problem = _check(f, run)
    return ({"duration_cls": duration_cls} if ok else {}), (None if ok else problem)


#: Element types and data the native Vector is checked on: every type of the release's
#: table gets these (those whose length is not a multiple of the element size are the
#: driver's error, skipped by the check).
VECTOR_DATA = (b"", bytes(range(1, 9)), bytes(range(200, 256)) + bytes(8), b"\x80" * 24)


def _vector_kit(  # noqa: PLR0911 (one reason per way the release can differ)
    functions: dict, broken: type, _kits: dict
) -> tuple[dict, str | None]:
    if b"V" not in functions:
        return {}, ""  # a release (or Bolt version) without vectors
    f = _named(functions, b"V", "hydrate_vector")
    if f is None:
        return {}, "no hydrate_vector for tag V"
    module = getattr(f, "__globals__", {})
    lookup, vector_cls = module.get("_DTYPE_LOOKUP"), module.get("Vector")
    if type(lookup) is not dict or not isinstance(vector_cls, type):
        return {}, "hydrate_vector's module has no _DTYPE_LOOKUP dict or Vector class"
    get_type = getattr(sys.modules.get(vector_cls.__module__), "_get_type", None)
    if get_type is None:
        return {}, "Vector's module has no _get_type"
    types = {}
    for typ, dtype in lookup.items():
        inner = get_type(dtype)
        if type(typ) is not bytes or not isinstance(inner, type):
            return {}, f"element type {typ!r} has no inner vector class"
        size = getattr(inner, "size", None)
        if type(size) is not int or size <= 0:
            return {}, f"{inner.__name__} has no element size"
        types[typ] = (inner, size)
    kit = {"vector_cls": vector_cls, "vector_types": types}

    def run() -> str | None:
        h = _native.Hydrator({b"V": f}, broken, **kit)
        samples = [S(b"V", typ, data) for typ in lookup for data in VECTOR_DATA]
        return _differs(h, {b"V": f}, samples, _same_state)

    ok, problem = _check(f, run)
    return (kit if ok else {}), (None if ok else problem)


#: Unsupported types (``?``) the native UnsupportedType is checked on.
UNSUPPORTED_SAMPLES = [
    S(b"?", "VECTOR", 6, 0, {}),
    S(b"?", "X", 7, 12, {"message": "needs a newer driver"}),
    S(b"?", "", -1, 2**70, {"other": 1, "message": None}),
    S(b"?", "Y", 6, 0, {"message": ["not", "a", "str"]}),
]


def _unsupported_kit(functions: dict, broken: type, _kits: dict) -> tuple[dict, str | None]:
    if b"?" not in functions:
        return {}, ""  # a release (or Bolt version) without unsupported types
    f = _named(functions, b"?", "hydrate_unsupported")
    if f is None:
        return {}, "no hydrate_unsupported for tag ?"
    cls = getattr(f, "__globals__", {}).get("UnsupportedType")
    if not isinstance(cls, type):
        return {}, "hydrate_unsupported's module has no UnsupportedType class"
    kit = {"unsupported_cls": cls}

    def run() -> str | None:
        h = _native.Hydrator({b"?": f}, broken, **kit)
        return _differs(h, {b"?": f}, UNSUPPORTED_SAMPLES, _same_state)

    ok, problem = _check(f, run)
    return (kit if ok else {}), (None if ok else problem)


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


def _graph_kit(functions: dict, broken: type, _kits: dict) -> tuple[dict, str | None]:
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
        table = _graph_table
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


def _path_samples() -> list[t.Any]:
    s = _native.Structure
    a = s(b"N", 1, ["A"], {"k": 1}, "4:x:1")
    b = s(b"N", 2, ["B"], {}, "4:x:2")
    c = s(b"N", 3, [], {}, "4:x:3")
    knows = s(b"r", 10, "KNOWS", {"w": 1}, "5:x:10")
    likes = s(b"r", 11, "LIKES", {}, "5:x:11")
    return [
        s(b"P", [a], [], []),
        s(b"P", [a, b], [knows], [1, 1]),
        s(b"P", [a, b, c], [knows, likes], [1, 1, -2, 2]),  # the second walked backwards
        s(b"P", [a, b], [knows], [1, 1, -1, 0, 1, 1]),  # one relationship, three times
        s(b"P", [b, a], [knows], [-1, 1]),
    ]


def _path_kit(functions: dict, broken: type, kits: dict) -> tuple[dict, str | None]:
    if "graph" not in kits:
        return {}, "needs the native Node/Relationship"
    f = functions.get(b"P")
    owner = getattr(functions.get(b"N"), "__self__", None)
    if getattr(getattr(f, "__func__", None), "__name__", None) != "hydrate_path" or (
        f.__self__ is not owner
    ):
        return {}, "tag P is not the graph hydrator's hydrate_path"
    path_cls = f.__func__.__globals__.get("Path")
    init_globals = getattr(getattr(path_cls, "__init__", None), "__globals__", {})
    rel_cls = init_globals.get("Relationship")
    if not isinstance(path_cls, type) or not isinstance(rel_cls, type):
        return {}, "no Path or Relationship class"
    kit = {"path_cls": path_cls, "relationship_cls": rel_cls}

    def run() -> str | None:
        graph = {k: kits[k] for k in ("node_cls", "legacy")}
        mine, theirs = type(owner)(), type(owner)()
        h = _native.Hydrator(_graph_table(mine), broken, graph=mine.graph, **graph, **kit)
        nested = _native.Hydrator(_graph_table(theirs), broken)  # the driver's, nested
        got, want = [], []
        for sample in _path_samples():
            got.append(h(_hydrated(sample, h)))
            want.append(nested(_hydrated(sample, nested)))

            def key(p: t.Any) -> t.Any:
                if type(p) is not path_cls:
                    return repr(p)
                return [repr(p), hash(p) == hash(p), [_entity_key(e) for e in (*p.nodes, *p)]]

            if key(got[-1]) != key(want[-1]):
                return f"{sample!r}: {got[-1]!r} instead of {want[-1]!r}"
        if _graph_key(mine.graph) != _graph_key(theirs.graph):
            return "the result's graph differs from the driver's"
        if h.counts[0] < len(got):
            return "the native path builder was not used"
        return None

    ok, problem = _check(f.__func__, run)
    return (kit if ok else {}), (None if ok else problem)


def _hydrated(s: t.Any, h: t.Any) -> t.Any:
    """``s`` with the structures in its list fields hydrated by ``h`` (as a decoder does)."""
    fields = [
        [h(x) if isinstance(x, _native.Structure) else x for x in v] if type(v) is list else v
        for v in s.fields
    ]
    return _native.Structure(s.tag, *fields)


def _graph_table(o: t.Any) -> dict:
    return {
        b"N": o.hydrate_node,
        b"R": o.hydrate_relationship,
        b"r": o.hydrate_unbound_relationship,
        b"P": o.hydrate_path,
    }


#: The tags each kit builds (datetimes: the tags whose check passed).
KIND_TAGS = {
    "_date_kit": "D",
    "_point_kit": "XY",
    "_graph_kit": "NRr",
    "_path_kit": "P",
    "_time_kit": "tT",
    "_datetime_kit": "",
    "_duration_kit": "E",
    "_vector_kit": "V",
    "_unsupported_kit": "?",
}


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
    for name, make in (
        ("Date", _date_kit),
        ("Point", _point_kit),
        ("Node/Relationship", _graph_kit),
        ("Path", _path_kit),
        ("Time", _time_kit),
        ("DateTime", _datetime_kit),
        ("Duration", _duration_kit),
        ("Vector", _vector_kit),
        ("UnsupportedType", _unsupported_kit),
    ):
        # Each kit may build on the ones before it (paths on the graph, datetimes on
        # dates and times).
        kit, problem = make(functions, broken, kits)
        if problem == "":
            continue  # the kind does not exist on this release or Bolt version
        if problem is None:
            kits.update(kit)
            kinds.append(KIND_TAGS[make.__name__] or kit["datetime_tags"].decode())
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
    # The rows of the result become records natively too, where the release allows.
    _records.install()
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
