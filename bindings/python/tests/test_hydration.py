"""Native hydration (``boltcodec._hydration``, ``src/hydrate.rs``) against the driver's own.

Runs against whichever ``neo4j`` is importable; ``scripts/driver-matrix.sh`` runs it on
the newest patch of every driver minor from 5.18 to 6.4. For every hydration handler the
release's Bolt versions use (and the 4.4 handler with the UTC patch applied), each
structure below is hydrated by a fresh scope of the driver (its pure-Python
``_hydrate_structure``) and by a fresh scope whose hook boltcodec replaced; the results
must be identical (type, attributes, ``==``, ``hash``, ``repr``, errors inside
``BrokenHydrationObject``), and the kinds boltcodec builds natively must really have been
built natively.
"""

from __future__ import annotations

import math
import typing as t

import pytest

neo4j = pytest.importorskip("neo4j")

from test_dropin_release import ADDRESS, TRIPLES, canon, outcome  # noqa: E402

from boltcodec import _hydration, _native, dropin  # noqa: E402

S = _native.Structure
I64_MAX = 2**63 - 1
I64_MIN = -(2**63)


def handlers() -> list[tuple[str, t.Any]]:
    """Every hydration handler class of the release, plus the UTC-patched 4.4 one."""
    out = []
    seen = set()
    for name, _packer, _unpacker, handler in TRIPLES:
        if handler in seen:
            continue
        seen.add(handler)
        out.append((name, handler))
        if hasattr(handler, "patch_utc"):

            def patched(handler=handler):
                h = handler()
                h.patch_utc()
                return h

            out.append((name + "+utc", patched))
    return out


HANDLERS = handlers()
HANDLER_IDS = [name for name, _ in HANDLERS]


def date_cases() -> list[t.Any]:
    days = [
        -719162,  # 0001-01-01
        -719161,
        -719163,  # ordinal 0: ZeroDate
        -719164,  # before the driver's range
        -1,
        0,
        1,
        59,
        789,  # 1972-02-29
        10956,  # 2000-01-01
        11016,  # 2000-02-29
        19722,
        2932896,  # 9999-12-31
        2932897,  # after it
        I64_MAX,
        I64_MIN,
    ]
    # The last days of every month of a leap and a common year, and a stride over all.
    for year_start in (10957 + 365 * 4 + 1, 10957 + 366):
        days += range(year_start, year_start + 366)
    days += range(-719162, 2932897, 7919)
    cases = [S(b"D", d) for d in days]
    cases += [
        S(b"D"),
        S(b"D", 1, 2),
        S(b"D", True),
        S(b"D", 1.0),
        S(b"D", "1"),
        S(b"D", None),
        S(b"D", 2**64),
        S(b"D", -(2**70)),
    ]
    return cases


def point_cases() -> list[t.Any]:
    coords2 = [(1.5, -2.0), (0.0, -0.0), (math.inf, -math.inf), (1e308, -1e-308)]
    coords3 = [(1.0, 2.0, 3.25), (-0.0, 0.0, 1e-300)]
    cases = []
    for srid in (7203, 4326, 9157, 4979, 12345, 0, -1, I64_MAX):
        for c in coords2:
            cases.append(S(b"X", srid, *c))
        for c in coords3:
            cases.append(S(b"Y", srid, *c))
    cases += [
        S(b"X", 7203, 1, 2),  # ints: the driver's float()
        S(b"X", 7203, True, 2.0),
        S(b"X", 7203, "1", 2.0),
        S(b"X", 7203, None, 2.0),
        S(b"X", 7203.0, 1.0, 2.0),
        S(b"X", "7203", 1.0, 2.0),
        S(b"X", True, 1.0, 2.0),
        S(b"X", 7203, 1.0),
        S(b"X", 7203),
        S(b"X"),
        S(b"X", 7203, 1.0, 2.0, 3.0),  # 3 coordinates under tag X, SRID of 2
        S(b"Y", 9157, 1.0, 2.0),
        S(b"X", 2**64, 1.0, 2.0),
    ]
    return cases


def other_cases() -> list[t.Any]:
    """Times, datetimes and durations (built natively), named zones, vectors, unsupported
    types, unknown tags, malformed structures (the driver's own functions)."""
    return [
        S(b"t", 0),
        S(b"t", 86_399_999_999_999),
        S(b"t", -1),
        S(b"t", 86_400_000_000_000),
        S(b"t", I64_MAX),
        S(b"T", 3_600_000_000_000, 3600),
        S(b"T", 1, -64800),
        S(b"T", 1, 64801),
        S(b"d", 0, 0),
        S(b"d", -62135596800, 0),
        S(b"d", -62135596801, 999_999_999),
        S(b"d", 253402300799, 999_999_999),
        S(b"d", 253402300800, 0),
        S(b"d", 1, 1_000_000_000),
        S(b"d", 1, -1),
        S(b"d", I64_MAX, 0),
        S(b"F", 1_600_000_000, 5, 3600),
        S(b"F", 1_600_000_000, 5, -45240),
        S(b"f", 1_600_000_000, 5, "Europe/Stockholm"),
        S(b"f", 1_600_000_000, 5, "No/Such_Zone"),
        S(b"f", 1_600_000_000, 5, ""),
        S(b"f", 1_600_000_000, 5, 7),
        S(b"I", 1_600_000_000, 5, 3600),
        S(b"I", -62135596800, 0, 0),
        S(b"i", 1_600_000_000, 5, "America/New_York"),
        S(b"i", 1_600_000_000, 5, "UTC"),
        S(b"i", 1_600_000_000, 5, "Not/AZone"),
        S(b"E", 1, 2, 3, 4),
        S(b"E", 0, 0, 0, 0),
        S(b"E", -1, -2, -3, -4),
        S(b"E", I64_MAX, I64_MAX, I64_MAX, 999_999_999),
        S(b"E", 1, 2, 3),
        S(b"V", b"\xc8", b"\x01\x02"),
        S(b"V", b"\xc1", b"\x3f\xf0\x00\x00\x00\x00\x00\x00"),
        S(b"V", b"\xff", b""),
        S(b"U", "unsupported", 6, 0, {}),
        S(b"U"),
        *vector_cases(),
        *unsupported_cases(),
        S(b"Q", 1, 2, 3),
        S(b"\x00"),
        S(b""),
        S(b"DD", 1),
        S("D", 1),
    ]


VECTOR_TYPES = b"\xc8\xc9\xca\xcb\xc6\xc1"


def vector_cases() -> list[t.Any]:
    """6.x vectors: every element type with empty data, one element, many, NaN and
    infinities among the floats, lengths that are not a multiple of the element size;
    unknown element types and unusual field types (the driver's errors)."""
    nan_inf = bytes.fromhex("7ff8000000000000fff0000000000000") + bytes.fromhex("7fc00000ff800000")
    data = [b"", b"\x01" * 8, bytes(range(256)) * 3, nan_inf, b"\x01", b"\x01" * 7, b"\xff" * 9]
    cases = [S(b"V", bytes([typ]), d) for typ in VECTOR_TYPES for d in data]
    return [
        *cases,
        S(b"V", b"\xff", b""),
        S(b"V", b"", b""),
        S(b"V", b"\xc8\xc8", b"\x01"),
        S(b"V", "\xc8", b"\x01"),
        S(b"V", b"\xc8", "\x01"),
        S(b"V", b"\xc8", bytearray(b"\x01")),
        S(b"V", b"\xc8", [1, 2]),
        S(b"V", b"\xc8"),
        S(b"V", b"\xc8", b"\x01", b"\x02"),
    ]


def unsupported_cases() -> list[t.Any]:
    """6.x unsupported types (``?``): with and without a message, any message value, huge
    and negative versions; fields of other types or counts (the driver's errors)."""
    return [
        S(b"?", "VECTOR", 6, 0, {}),
        S(b"?", "FUTURE", 7, 3, {"message": "upgrade"}),
        S(b"?", "FUTURE", 7, 3, {"message": None, "other": [1]}),
        S(b"?", "X", I64_MAX, I64_MIN, {"message": {"nested": 1}}),
        S(b"?", "", 0, 0, {"messages": "not it"}),
        S(b"?", 1, 6, 0, {}),
        S(b"?", "X", "6", 0, {}),
        S(b"?", "X", 6, 0.5, {}),
        S(b"?", "X", 6, 0, None),
        S(b"?", "X", 6, 0, ["message"]),
        S(b"?", "X", 6, 0),
        S(b"?", "X", 6, 0, {}, 1),
        S(b"?"),
    ]


def temporal_cases() -> list[t.Any]:
    """Times, datetimes and durations: ordinary values, both ends of every range, values
    just beyond them, BCE, offsets of whole minutes and not, offsets pytz refuses, named
    zones (the driver's), and fields of the wrong type."""
    day = 86_400_000_000_000
    cases = []
    for ticks in (0, 1, day - 1, day, -1, 45_296_789_000_123, I64_MAX, I64_MIN):
        cases.append(S(b"t", ticks))
        for off in (0, 1, 59, 60, -1, -61, 3600, -64800, 64800, 86340, 86399, 86400, -86400):
            cases.append(S(b"T", ticks, off))
    cases += [
        S(b"T", 1, 2**63 - 1),
        S(b"T", 1, -(2**63)),
        S(b"T", 1, None),
        S(b"T", 1, 1.5),
        S(b"T", 1, "+01:00"),
        S(b"T", True, 0),
        S(b"t", 1.0),
        S(b"t", 2**64),
        S(b"t"),
        S(b"t", 1, 2, 3),
    ]
    seconds = (
        0,
        -1,
        86399,
        1_600_000_000,
        951_782_400,  # 2000-02-29
        -62_135_596_800,  # 0001-01-01T00:00:00
        -62_135_596_801,  # the second before it (BCE)
        253_402_300_799,  # 9999-12-31T23:59:59
        253_402_300_800,
        -100_000_000_000,  # well BCE
        I64_MAX,
        I64_MIN,
    )
    for s in seconds:
        for ns in (0, 999_999_999, 1_000_000_000, -1):
            cases.append(S(b"d", s, ns))
        for tag in (b"F", b"I"):
            for off in (0, 59, -1, 3600, -45240, 50400, -64800, 86400, I64_MAX):
                cases.append(S(tag, s, 123, off))
    for tag in (b"F", b"I", b"d"):
        cases += [
            S(tag, 1, 2, None),
            S(tag, 1, 2, 3.0),
            S(tag, 1.0, 2, 3),
            S(tag, 1, True, 3),
            S(tag, 1, 2),
            S(tag, 1),
            S(tag, 1, 2, 3, 4),
        ]
    for tag in (b"f", b"i"):
        for zone in ("Europe/Stockholm", "America/New_York", "UTC", "Etc/GMT+5", "No/Zone"):
            cases += [S(tag, 1_600_000_000, 5, zone), S(tag, -62_135_596_800, 0, zone)]
    for fields in (
        (1, 2, 3, 4),
        (0, 0, 0, 0),
        (-1, -2, -3, -4),
        (0, 0, 1, -1),
        (0, 0, -1, 1),
        (0, 0, 0, 2_500_000_001),
        (0, 0, 0, -2_500_000_001),
        (I64_MAX, 0, 0, 0),
        (3_507_324_295_030, 0, 0, 0),
        (3_507_324_295_031, 0, 0, 0),
        (0, I64_MAX, 0, 0),
        (0, 0, I64_MAX, 0),
        (0, 0, I64_MAX, 999_999_999),
        (0, 0, I64_MIN, 0),
        (0, 0, I64_MIN, -1),
        (I64_MIN, I64_MIN, I64_MIN, I64_MIN),
        (1, 2, 3, 4.0),
        (1, 2, 3, True),
        (1, 2, 3, None),
        (1, 2, 3),
        (1, 2, 3, 4, 5),
    ):
        cases.append(S(b"E", *fields))
    return cases


def path_cases() -> list[t.Any]:
    """Paths (each hydrated in a fresh scope): ordinary, backwards, a relationship walked
    several times, and every malformed shape the driver's asserts and Path reject."""
    a = S(b"N", 1, ["A"], {"k": 1}, "4:x:1")
    b = S(b"N", 2, ["B"], {}, "4:x:2")
    c = S(b"N", 3, [], {}, "4:x:3")
    r1 = S(b"r", 10, "KNOWS", {"w": 1}, "5:x:10")
    r2 = S(b"r", 11, "LIKES", {}, "5:x:11")
    return [
        S(b"P", [a], [], []),
        S(b"P", [a, b], [r1], [1, 1]),
        S(b"P", [a, b, c], [r1, r2], [1, 1, -2, 2]),
        S(b"P", [a, b], [r1], [1, 1, -1, 0, 1, 1]),
        S(b"P", [a, b, c], [r1], [1, 1, 1, 2]),  # r1 walked twice in one direction
        S(b"P", [a, b], [r1], [1, 0]),  # back to itself
        S(b"P", [a, a], [r1], [1, 1]),
        S(b"P", [], [], []),
        S(b"P", [a], [], [1]),
        S(b"P", [a, b], [r1], [0, 1]),
        S(b"P", [a, b], [r1], [2, 1]),
        S(b"P", [a, b], [r1], [-2, 1]),
        S(b"P", [a, b], [r1], [1, 2]),
        S(b"P", [a, b], [r1], [1, -1]),  # Python's negative index
        S(b"P", [a, b], [r1], [1, True]),
        S(b"P", [a, b], [r1], [1.0, 1]),
        S(b"P", [a, "b"], [r1], [1, 1]),
        S(b"P", [a, b], ["r"], [1, 1]),
        S(b"P", [a, b], [S(b"r", "x", "T", {})], [1, 1]),
        S(b"P", (a,), [], []),
        S(b"P", [a], [], [], []),
        S(b"P", [a], []),
        S(b"P", None, None, None),
    ]


@pytest.mark.parametrize(("name", "handler"), HANDLERS, ids=HANDLER_IDS)
def test_paths_hydrate_as_the_release_hydrates_them(name, handler) -> None:
    native = 0
    for p in path_cases():
        mine_scope, mine = native_scope(handler)
        theirs_scope = handler().new_hydration_scope()
        theirs = theirs_scope.hydration_hooks[S]
        got = mine(_nested(p, mine))
        want = theirs(_nested(p, theirs))
        assert _path_key(got) == _path_key(want), (name, p)
        if type(want).__name__ == "Path":
            assert hash(got) == hash(want)
            # The path's relationships are the graph's, their endpoints set as the driver's.
            for r in got.relationships:
                assert mine_scope.get_graph()._relationships[r.element_id] is r
        assert _graph_canon(mine_scope.get_graph()) == _graph_canon(theirs_scope.get_graph())
        native += mine.counts[0]
    assert native > 20


def _path_key(v: t.Any) -> t.Any:
    """canon(), also for the paths the driver builds with a non-node in them."""
    if type(v).__name__ != "Path":
        return canon(v)
    return (
        ADDRESS.sub("0x?", repr(v)),
        [outcome(lambda e=e: e) for e in (*v.nodes, *v.relationships)],
    )


def _nested(s: t.Any, hook: t.Any) -> t.Any:
    """``s`` with the structures inside its list fields hydrated first, as decoding does."""
    fields = [
        [hook(x) if isinstance(x, S) else x for x in v] if type(v) is list else v for v in s.fields
    ]
    return S(s.tag, *fields)


def _graph_canon(g: t.Any) -> t.Any:
    return (
        sorted(canon(n) for n in g.nodes),
        sorted(str(outcome(lambda r=r: canon(r))) for r in g.relationships),
    )


@pytest.mark.parametrize(("name", "handler"), HANDLERS, ids=HANDLER_IDS)
def test_times_datetimes_and_durations_are_built_natively_as_the_release_builds_them(
    name, handler
) -> None:
    native = built = 0
    tags = {b"t", b"T", b"d", b"E", b"I" if b"I" in handler().struct_hydration_functions else b"F"}
    for s in temporal_cases():
        _scope, hydrator = native_scope(handler)
        theirs = handler().new_hydration_scope().hydration_hooks[S]
        got, want = hydrator(s), theirs(s)
        # canon() hashes: the driver's hash raises near the ends of the range, alike.
        assert outcome(lambda g=got: canon(g)) == outcome(lambda w=want: canon(w)), (name, s)
        assert ADDRESS.sub("", repr(got)) == ADDRESS.sub("", repr(want)), (name, s)
        if type(want).__name__ != "BrokenHydrationObject":
            assert vars(got) == vars(want), (name, s)
            # Natively: the usual field count, all exact ints, not the ZeroDate year 0.
            usual = len(s.fields) == {b"t": 1, b"T": 2, b"d": 2, b"E": 4}.get(s.tag, 3)
            ints = all(type(x) is int for x in s.fields)
            built += s.tag in tags and usual and ints and "DateTime(0," not in repr(want)
        if s.tag not in b"fi":  # named zones: test_named_zone_datetimes_...
            native += hydrator.counts[0]
    # Every value of these tags the driver builds without an error was built natively.
    assert native == built, (native, built)
    assert native > 100


#: Zones of the named-zone sweep: every pytz kind (utc, static, with transitions),
#: summer time in both hemispheres, 30- and 45-minute offsets and summer times, negative
#: summer time, a skipped day, names found by case, and one in about 12 of pytz's common
#: zones; and names pytz does not know (the driver's error).
def sweep_zones() -> list[str]:
    import pytz

    zones = [
        *_hydration.ZONE_SAMPLES,
        "Etc/UTC",
        "GMT",
        "Europe/London",
        "Europe/Moscow",
        "Asia/Kolkata",
        "Asia/Tehran",
        "Australia/Adelaide",
        "Pacific/Chatham",
        "Pacific/Kiritimati",
        "America/Sao_Paulo",
        "America/Caracas",
        "Africa/Casablanca",
        "Antarctica/Troll",
        "US/Eastern",
        "Europe/Nowhere",
        "+01:00",
        "UTC ",
        "europe/paris",  # found by pytz, by case: the driver's (not pytz's own name)
    ]
    zones += pytz.common_timezones[::12]
    return list(dict.fromkeys(zones))


def named_zone_cases(tag: int) -> list[t.Any]:
    """Named-zone datetimes of ``tag``: the sweep's zones at fixed instants, around six
    transitions of each (and for ``f`` their gaps and folds as wall-clock times), a DST
    gap and fold of New York by hand, and fields of the wrong type."""
    b = bytes([tag])
    cases = _hydration.zone_samples(tag, sweep_zones(), per_zone=6, both_nanos=True)
    ny = "America/New_York"
    for s in (1_615_689_000, 1_636_248_600, 1_615_685_400, 1_636_252_200):
        cases += [S(b, s, 7, ny), S(b, s - 3600, 7, ny), S(b, s + 3600, 7, ny)]
    cases += [
        S(b, 0, 0, b"UTC"),
        S(b, 0, 0, None),
        S(b, 0, 0, 3600),
        S(b, 0, -1, "UTC"),
        S(b, 0, 1_000_000_000, "Europe/Stockholm"),
        S(b, 1.0, 0, "UTC"),
        S(b, I64_MAX, 0, "Europe/Stockholm"),
        S(b, I64_MIN, 0, "Europe/Stockholm"),
        S(b, 253_402_300_799, 999_999_999, "Pacific/Kiritimati"),
        S(b, -62_135_596_800, 0, "America/Caracas"),
    ]
    return cases


def _zoned_view(v: t.Any) -> t.Any:
    """Everything of a hydrated named-zone datetime two results must share."""
    if type(v).__name__ == "BrokenHydrationObject":
        return ("broken", type(v.error).__qualname__, str(v.error))
    views = (
        repr,
        str,
        hash,
        lambda x: x.tzinfo,
        lambda x: id(x.tzinfo),
        lambda x: x.utcoffset(),
        lambda x: x.dst(),
        lambda x: x.tzname(),
        lambda x: x.iso_format(),
        lambda x: x.to_native(),
        lambda x: vars(x) if hasattr(x, "__dict__") else None,
        lambda x: (x.year, x.month, x.day, x.hour, x.minute, x.second, x.nanosecond),
    )
    return [type(v)] + [outcome_full(lambda f=f: f(v)) for f in views]


def outcome_full(fn: t.Callable[[], t.Any]) -> t.Any:
    try:
        return ("ok", fn())
    except Exception as e:
        return ("error", type(e).__name__, str(e))


@pytest.mark.parametrize(("name", "handler"), HANDLERS, ids=HANDLER_IDS)
def test_named_zone_datetimes_are_built_natively_as_the_release_builds_them(name, handler) -> None:
    functions = handler().struct_hydration_functions
    tags = [tag for tag in b"fi" if bytes([tag]) in functions]
    assert tags, name
    for tag in tags:
        _scope, mine = native_scope(handler)
        assert chr(tag) in "".join(_hydration.state["kinds"]), (name, _hydration.state)
        theirs = handler().new_hydration_scope().hydration_hooks[S]
        cases = named_zone_cases(tag)
        built = 0
        for s in cases:
            got, want = mine(s), theirs(s)
            assert _zoned_view(got) == _zoned_view(want), (name, s)
            if type(want).__name__ != "BrokenHydrationObject":
                assert got == want, (name, s)
                assert got.tzinfo is want.tzinfo, (name, s)
                # Fields of other types (bytes or int zones, float seconds): the driver's.
                # So are names pytz finds that are not the zone's own.
                usual = type(s.fields[2]) is str and all(type(x) is int for x in s.fields[:2])
                usual = usual and _hydration.zone_table(s.fields[2]) is not None
                built += usual
        native = mine.counts[0]
        if tag == ord("i"):
            # UTC seconds: every value the driver builds, in a zone pytz knows, is native.
            assert native == built, (name, native, built)
        else:
            # Wall-clock seconds: all but the gaps and folds and the ends of the range,
            # which go to the driver (the sweep aims at them: about a third of it).
            assert native * 2 >= built, (name, native, built)
        assert native > 1000, (name, native)


def test_zone_cache_grew_with_every_unknown_zone_name() -> None:
    """Regression: names a server makes up (unknown zones, case variants) are the
    driver's, asked of pytz each time, and never kept: the cache of zone tables holds
    pytz's own names only."""
    handler = next(h for _n, h in HANDLERS if b"i" in h().struct_hydration_functions)
    _scope, h = native_scope(handler)
    theirs = handler().new_hydration_scope().hydration_hooks[S]
    h(S(b"i", 0, 0, "Europe/Paris"))
    before = dict(_hydration.ZONES)
    for i in range(2000):
        for name in (
            f"No/Zone{i}",
            "x" * (i + 1),
            "EUROPE/PARIS"[: i % 12] + "europe/paris"[i % 12 :],
        ):
            got, want = h(S(b"i", i, 0, name)), theirs(S(b"i", i, 0, name))
            assert _zoned_view(got) == _zoned_view(want), name
    kept = _hydration.ZONES
    assert kept == before
    assert "Europe/Paris" in kept


def test_a_zone_loader_that_raised_broke_the_result() -> None:
    """Regression: an exception from the zone loader (pytz changed under us) leaves the
    value to the driver's function instead of failing the decode."""
    handler = next(h for _n, h in HANDLERS if b"i" in h().struct_hydration_functions)
    functions = handler().new_hydration_scope()._struct_hydration_functions

    def failing(name: str) -> t.Any:
        raise RuntimeError("no tables")

    import pytz
    from neo4j._codec.hydration import BrokenHydrationObject
    from neo4j.time import Date, DateTime, Time

    h = _native.Hydrator(
        functions,
        BrokenHydrationObject,
        date_cls=Date,
        time_cls=Time,
        fixed_offset=pytz.FixedOffset,
        datetime_cls=DateTime,
        datetime_tags=b"i",
        zone_cache={},
        zone_loader=failing,
    )
    s = S(b"i", 1_600_000_000, 0, "Europe/Stockholm")
    assert _zoned_view(h(s)) == _zoned_view(functions[b"i"](*s.fields))
    assert h.counts == (0, 1)


def test_a_named_zone_datetime_carries_pytzs_tzinfo_for_its_period() -> None:
    import datetime

    import pytz
    from neo4j.time import DateTime

    handler = next(h for _n, h in HANDLERS if b"i" in h().struct_hydration_functions)
    _scope, h = native_scope(handler)
    zone = pytz.timezone("Europe/Stockholm")
    summer = h(S(b"i", 1_600_000_000, 7, "Europe/Stockholm"))
    winter = h(S(b"i", 1_610_000_000, 7, "Europe/Stockholm"))
    assert type(summer) is DateTime
    assert summer.iso_format() == "2020-09-13T14:26:40.000000007+02:00"
    assert summer.to_native() == datetime.datetime(2020, 9, 13, 12, 26, 40, tzinfo=pytz.utc)
    utc_wall = datetime.datetime(2020, 9, 13, 12, 26, 40, tzinfo=zone)
    assert summer.tzinfo is zone.fromutc(utc_wall).tzinfo
    assert summer.tzname() == "CEST"
    assert winter.tzname() == "CET"
    assert h.counts == (2, 0)
    # An unknown zone is the driver's error, inside its BrokenHydrationObject.
    broken = h(S(b"i", 0, 0, "No/Zone"))
    assert type(broken.error) is pytz.UnknownTimeZoneError
    assert h.counts == (2, 1)


def test_a_time_with_an_offset_is_a_native_time_in_pytz_fixed_offset() -> None:
    import pytz
    from neo4j.time import DateTime, Duration, Time

    _scope, h = native_scope(HANDLERS[-1][1])
    t_ = h(S(b"T", 45_296_789_000_123, 3600))
    assert type(t_) is Time
    assert t_ == Time(12, 34, 56, 789_000_123, tzinfo=pytz.FixedOffset(60))
    assert t_.tzinfo is pytz.FixedOffset(60)
    dt = h(S(b"I", 1_600_000_000, 7, -18000))
    assert type(dt) is DateTime
    assert dt == DateTime(2020, 9, 13, 7, 26, 40, 7, tzinfo=pytz.FixedOffset(-300))
    assert h(S(b"E", 1, 2, 3, -4)) == Duration(months=1, days=2, seconds=3, nanoseconds=-4)
    assert h.counts == (3, 0)


def graph_sequence() -> list[t.Any]:
    """Entities in the order one result would bring them (shared graph per scope)."""
    node = S(b"N", 1, ["Person"], {"name": "Ada", "gone": None}, "4:db:1")
    return [
        node,
        S(b"N", 1, ["Dev"], {"age": 36}, "4:db:1"),  # seen again: labels/properties merge
        S(b"R", 10, 1, 2, "KNOWS", {"since": S(b"D", 11000)}, "5:db:10", "4:db:1", "4:db:2"),
        S(b"N", 2, [], {}, "4:db:2"),
        S(b"N", 2, ["Z"], {"gone": None, "k": [1]}, "4:db:2"),  # merged, None kept
        S(b"N", 3, ["A"], None, "4:db:3"),
        S(b"N", 3, [], {"p": 1}, "4:db:3"),
        S(b"R", 11, 2, 1, "KNOWS", {}, "5:db:11", "4:db:2", "4:db:1"),
        S(b"r", 12, "LIKES", {"w": 0.5}, "5:db:12"),
        S(b"P", [node, S(b"N", 3, [], {}, "4:db:3")], [S(b"r", 12, "LIKES", {})], [1, 1]),
        S(b"N", 7, ["Legacy"], {}),
        S(b"N", "x", "not a list", None, None),
        S(b"R", 1),
        S(b"P", [], [], []),
    ]


ALL_CASES = date_cases() + point_cases() + other_cases()


def native_scope(handler: t.Any) -> tuple[t.Any, t.Any]:
    """A fresh scope of ``handler`` and its hook as boltcodec replaces it."""
    scope = handler().new_hydration_scope()
    hooks = _hydration.native_hooks(scope.hydration_hooks)
    return scope, hooks[S]


def test_the_hydrator_replaces_the_releases_hook() -> None:
    for _name, handler in HANDLERS:
        scope = handler().new_hydration_scope()
        hooks = _hydration.native_hooks(scope.hydration_hooks)
        assert type(hooks[S]) is _native.Hydrator, _hydration.state
        assert _hydration.state["active"], _hydration.state
        assert "D" in _hydration.state["kinds"], _hydration.state
        assert "XY" in _hydration.state["kinds"], _hydration.state
        assert "NRr" in _hydration.state["kinds"], _hydration.state
        for kind in ("P", "tT", "E"):
            assert kind in _hydration.state["kinds"], _hydration.state
        # Local datetimes and the offset and zone tags this handler has (F and f before
        # Bolt 5, I and i after).
        offset_tag = "I" if b"I" in scope._struct_hydration_functions else "F"
        datetimes = "d" + offset_tag + offset_tag.lower()
        assert datetimes in _hydration.state["kinds"], _hydration.state
        assert _hydration.state["reason"] == "active", _hydration.state
        # The other hooks stay the driver's.
        for k, v in scope.hydration_hooks.items():
            if k is not S:
                assert hooks[k] is v


@pytest.mark.parametrize(("name", "handler"), HANDLERS, ids=HANDLER_IDS)
def test_every_structure_hydrates_as_the_release_hydrates_it(name, handler) -> None:
    native = 0
    for s in ALL_CASES:
        _scope, hydrator = native_scope(handler)
        theirs = handler().new_hydration_scope().hydration_hooks[S]
        got, want = canon(hydrator(s)), canon(theirs(s))
        assert got == want, (name, s)
        native += hydrator.counts[0]
    # Dates and points with valid fields were built natively.
    assert native > 1000


@pytest.mark.parametrize(("name", "handler"), HANDLERS, ids=HANDLER_IDS)
def test_a_result_graph_is_the_one_the_release_builds(name, handler) -> None:
    mine_scope, mine = native_scope(handler)
    theirs_scope = handler().new_hydration_scope()
    theirs = theirs_scope.hydration_hooks[S]
    got = [mine(s) for s in graph_sequence()]
    want = [theirs(s) for s in graph_sequence()]
    assert [canon(v) for v in got] == [canon(v) for v in want]
    # The same entity seen twice is the same object, as in the driver.
    assert [[a is b for b in got] for a in got] == [[a is b for b in want] for a in want]
    g_mine, g_theirs = mine_scope.get_graph(), theirs_scope.get_graph()
    assert sorted(canon(n) for n in g_mine.nodes) == sorted(canon(n) for n in g_theirs.nodes)
    assert sorted(canon(r) for r in g_mine.relationships) == sorted(
        canon(r) for r in g_theirs.relationships
    )


def test_dates_are_built_natively_and_equal_the_drivers() -> None:
    from neo4j.time import Date

    _scope, hydrator = native_scope(HANDLERS[-1][1])
    d = hydrator(S(b"D", 19000))
    assert hydrator.counts == (1, 0)
    assert type(d) is Date
    assert d == Date(2022, 1, 8)
    assert hash(d) == hash(Date(2022, 1, 8))
    assert (d.year, d.month, d.day) == (2022, 1, 8)
    assert vars(d) == vars(Date(2022, 1, 8))
    assert d.to_native().isoformat() == "2022-01-08"


def test_a_hook_that_is_not_the_drivers_is_left_alone() -> None:
    def hook(s):
        return ("mine", s)

    hooks = {S: hook}
    assert _hydration.native_hooks(hooks) is hooks
    assert not _hydration.state["active"]
    assert "not a HydrationScope" in _hydration.state["reason"]


def test_a_release_whose_date_class_differs_keeps_its_own_dates() -> None:
    """A hydrate_date whose Date is not the one the native builder makes is not replaced."""
    scope = HANDLERS[0][1]().new_hydration_scope()
    functions = scope._struct_hydration_functions
    original = functions[b"D"]

    class Date:  # not the driver's: the native check must fail
        pass

    def hydrate_date(days):
        return original(days)

    # hydrate_date is a function of this module: the Date its module has is this one.
    globals()["Date"] = Date
    try:
        functions[b"D"] = hydrate_date
        hooks = _hydration.native_hooks(scope.hydration_hooks)
        assert "D" not in _hydration.state["kinds"], _hydration.state
        assert "Date:" in _hydration.state["reason"]
        value = hooks[S](S(b"D", 19000))
        assert canon(value) == canon(original(19000))
    finally:
        del globals()["Date"]


def test_status_reports_the_hydration_level_after_a_result() -> None:
    for _name, handler in HANDLERS:
        _hydration.native_hooks(handler().new_hydration_scope().hydration_hooks)
    status = dropin.status()
    if status["receive"]:
        assert status["level"] == "hydration", status
        assert status["hydration"] is True
        assert status["hydration_reason"] == "active"
        assert "D" in status["hydration_kinds"]
    else:
        assert status["hydration"] is False


def test_leaves_are_untracked_by_the_gc_and_entities_stay_tracked() -> None:
    """Dates, times, points, durations, labels and properties without lists cannot be
    part of a cycle and are built untracked; nodes and relationships (their graph points
    back at them), paths (they hold entities) and properties holding a list (a caller
    may change it) stay tracked, so the graph's cycles are still collected."""
    import gc
    import weakref

    scope, h = native_scope(HANDLERS[-1][1])
    leaves = [
        h(S(b"D", 1)),
        h(S(b"t", 1)),
        h(S(b"I", 1, 2, 3600)),
        h(S(b"E", 1, 2, 3, 4)),
        h(S(b"X", 7203, 1.0, 2.0)),
    ]
    node = h(S(b"N", 1, ["A"], {"tags": [1, 2]}, "4:x:1"))
    h(S(b"N", 1, ["B"], {"more": [3]}, "4:x:1"))  # merged: still untracked leaves
    h(S(b"r", 5, "T", {}, "5:x:5"))  # a type new to the graph: the driver makes its class
    rel = h(S(b"R", 2, 1, 3, "T", {"d": leaves[0]}, "5:x:2", "4:x:1", "4:x:3"))
    path = h(S(b"P", [node, rel.end_node], [h(S(b"r", 2, "T", {}, "5:x:2"))], [1, 1]))
    assert h.counts == (10, 1)
    for v in [*leaves, node._labels, rel._properties]:
        assert not gc.is_tracked(v), v
    for v in [node, rel, node._properties, path]:
        assert gc.is_tracked(v), v
    # The graph's cycles (graph -> node -> graph) are still collected.
    graph = weakref.ref(scope.get_graph())
    del scope, h, node, rel, path, v
    gc.collect()
    assert graph() is None


def test_a_cycle_through_a_list_property_of_a_node_was_never_collected() -> None:
    """Regression: properties dicts were untracked whatever they held, so a cycle a
    caller built through a list property (node -> properties -> list -> node) was kept
    forever; the pure driver collects it."""
    import gc
    import weakref

    for merged in (False, True):
        _scope, h = native_scope(HANDLERS[-1][1])
        node = h(S(b"N", 1, ["A"], {"d": h(S(b"D", 1))} if merged else {"tags": [1]}, "4:x:1"))
        if merged:  # the second sighting brings the list: merged into the first's dict
            h(S(b"N", 1, ["A"], {"tags": [1]}, "4:x:1"))
        assert h.counts[1] == 0  # all built natively
        node["tags"].append(node)
        ref = weakref.ref(node)
        del node, h, _scope
        gc.collect()
        assert ref() is None, merged


def test_a_cycle_through_a_path_was_never_collected() -> None:
    """Regression: paths were untracked, so a cycle through one (path -> node ->
    properties -> list -> path) was kept forever; the pure driver collects it."""
    import gc
    import weakref

    _scope, h = native_scope(HANDLERS[-1][1])
    node = h(S(b"N", 1, ["A"], {"tags": [1]}, "4:x:1"))
    path = h(S(b"P", [node], [], []))
    assert h.counts == (2, 0)  # both built natively
    node["tags"].append(path)
    ref = weakref.ref(path)
    del node, path, h, _scope
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize(("name", "handler"), HANDLERS, ids=HANDLER_IDS)
def test_vectors_and_unsupported_types_are_built_natively_as_the_release_builds_them(
    name, handler
) -> None:
    """Both classes compare and hash by identity: every slot and attribute, ``repr``,
    ``str`` and the values read back must be the driver's."""
    functions = handler().struct_hydration_functions
    if b"V" not in functions and b"?" not in functions:
        pytest.skip(f"{name}: no vectors or unsupported types on this Bolt version")
    native = built = 0
    for s in vector_cases() + unsupported_cases():
        _scope, hydrator = native_scope(handler)
        theirs = handler().new_hydration_scope().hydration_hooks[S]
        got, want = hydrator(s), theirs(s)
        assert canon(got) == canon(want), (name, s)
        if type(want).__name__ == "BrokenHydrationObject":
            assert hydrator.counts[0] == 0, (name, s)
            continue
        assert _hydration._state(got) == _hydration._state(want), (name, s)
        assert (repr(got), str(got)) == (repr(want), str(want)), (name, s)
        if s.tag == b"V":
            assert got.raw() == want.raw(), (name, s)
            assert got.dtype == want.dtype, (name, s)
            assert got.raw(byteorder="little") == want.raw(byteorder="little"), (name, s)
            assert canon(got.to_native()) == canon(want.to_native()), (name, s)
            assert len(got) == len(want), (name, s)
        else:
            assert (got.name, got.minimum_protocol_version, got.message) == (
                want.name,
                want.minimum_protocol_version,
                want.message,
            ), (name, s)
        if type(got).__eq__ is object.__eq__:  # identity, as the driver's
            assert got != want, (name, s)
        else:
            assert got == want, (name, s)
            assert hash(got) == hash(want), (name, s)
        # Natively: the usual fields, of exactly the types the driver's protocol sends.
        types = {b"V": [bytes, bytes], b"?": [str, int, int, dict]}[s.tag]
        built += [type(x) for x in s.fields] == types
        native += hydrator.counts[0]
    # Every vector and unsupported type the driver builds without an error from such
    # fields is native.
    assert native == built, (native, built)
    assert built >= 6 * 4 + 5, built


def test_a_native_vector_is_the_drivers_vector() -> None:
    functions = HANDLERS[-1][1]().struct_hydration_functions
    if b"V" not in functions:
        pytest.skip("no vectors on this release")
    from neo4j.vector import Vector

    _scope, h = native_scope(HANDLERS[-1][1])
    v = h(S(b"V", b"\xc9", b"\x00\x01\xff\xfe"))
    assert type(v) is Vector
    assert v.to_native() == [1, -2]
    assert v.raw() == Vector([1, -2], "i16").raw()
    assert h(S(b"V", b"\xc6", b"")).to_native() == []
    assert h.counts == (2, 0)
    assert "V" in _hydration.state["kinds"]
    assert "?" in _hydration.state["kinds"]
