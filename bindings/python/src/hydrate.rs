//! Native hydration for the official neo4j driver: the driver's own objects
//! (`neo4j.time` dates, times, datetimes and durations, `neo4j.spatial` points,
//! `neo4j.graph` nodes, relationships and paths, 6.x vectors and unsupported types)
//! built from a decoded [`Structure`]
//! without running the driver's Python hydration functions.
//!
//! A [`Hydrator`] stands in for the driver's `HydrationScope._hydrate_structure` (the
//! `Structure` entry of the hydration hooks the driver hands to its Inbox). It is built by
//! `boltcodec._hydration` only after that module has checked, on the running driver
//! release, that each native builder gives exactly what the driver's own function gives
//! (type, attributes, `==`, `hash`, `repr`). Everything a builder does not handle — other
//! tags, unusual field types, out-of-range values, zero dates, unknown SRIDs, unknown
//! time zones, wall-clock times in a zone's gap or fold — goes to the driver's own function for that tag, called directly (`f(*fields)`,
//! an exception becoming the driver's `BrokenHydrationObject(error, structure)` as in
//! `_hydrate_structure`), so edge cases and errors are the driver's by construction.
//!
//! Named time zones are pytz's (the driver's): each zone's transition table is read from
//! pytz once (a [`ZoneTable`]) and looked up natively.
//!
//! Which builder serves which tag, and with how many fields, is one table ([`KINDS`]);
//! the builders read their fields through [`Fields`]. Dates, times, datetimes,
//! durations and points are leaves (nothing points back at them), so they are built
//! untracked by the cyclic GC (see `record.rs`), and so are the label sets of nodes and
//! relationships and their properties dicts when those hold no list; the entities
//! themselves, which their graph points back at, paths (which hold entities), and
//! properties dicts holding a list (which a caller may change) stay tracked.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyInt, PyList, PyTuple};

use crate::ffi::{untrack, untrack_if_leaves};
use crate::structure::Structure;

/// Proleptic Gregorian ordinal of 1970-01-01 (0001-01-01 is 1), the epoch of Bolt dates.
const UNIX_EPOCH_ORDINAL: i64 = 719_163;
/// Ordinal of 9999-12-31, the driver's largest date.
const MAX_ORDINAL: i64 = 3_652_059;

/// Year, month and day of a proleptic Gregorian ordinal (`1` is 0001-01-01).
fn civil_from_ordinal(ordinal: i64) -> (i64, i64, i64) {
    // Count from 0000-03-01 so that the leap day ends each 400-year era's years.
    let z = ordinal - 1 + 365 - 59; // days since 0000-03-01 (0000 is a leap year)
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of era, 0..146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // year of era
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of (March-based) year
    let mp = (5 * doy + 2) / 153; // March = 0
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = era * 400 + yoe + i64::from(month <= 2);
    (year, month, day)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 => {
            if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) {
                29
            } else {
                28
            }
        }
        _ => 31,
    }
}

/// The driver's internal day of the month: the last three days are -1, -2, -3.
fn internal_day(year: i64, month: i64, day: i64) -> i64 {
    let last = days_in_month(year, month);
    if day == last {
        -1
    } else if day == last - 1 {
        -2
    } else if day == last - 2 {
        -3
    } else {
        day
    }
}

/// An exact `int` that fits an `i64` (not a `bool`, not a subclass).
fn exact_i64(v: &Bound<'_, PyAny>) -> Option<i64> {
    if v.is_exact_instance_of::<PyInt>() {
        v.extract::<i64>().ok()
    } else {
        None
    }
}

/// A structure's fields, read by position. The arity is checked before a builder runs
/// (see [`KINDS`]); every reader answers `None` for a field of another type, which sends
/// the structure to the driver's own function.
struct Fields<'a, 'py>(&'a Bound<'py, PyList>);

impl<'py> Fields<'_, 'py> {
    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, at: usize) -> PyResult<Bound<'py, PyAny>> {
        self.0.get_item(at)
    }

    /// Field `at` as an exact `int` that fits an `i64`.
    fn int(&self, at: usize) -> PyResult<Option<i64>> {
        Ok(exact_i64(&self.get(at)?))
    }

    /// `N` consecutive exact-`int` fields from `from` on.
    fn ints<const N: usize>(&self, from: usize) -> PyResult<Option<[i64; N]>> {
        let mut out = [0; N];
        for (i, slot) in out.iter_mut().enumerate() {
            match self.int(from + i)? {
                Some(v) => *slot = v,
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }

    /// Field `at` if it is exactly of type `T` (no subclass).
    fn exact<T: pyo3::PyTypeInfo>(&self, at: usize) -> PyResult<Option<Bound<'py, T>>> {
        Ok(self.get(at)?.cast_into_exact::<T>().ok())
    }
}

/// A builder: the driver's object for the fields, or `None` to hand the structure to the
/// driver's function.
type Build = for<'py> fn(&Hydrator, Python<'py>, &Fields<'_, 'py>) -> Built<'py>;
type Built<'py> = PyResult<Option<Bound<'py, PyAny>>>;

/// One structure kind: its tag, the field counts its builder reads, the builder.
struct Kind {
    tag: u8,
    arity: &'static [usize],
    build: Build,
}

/// Every kind built natively. A builder whose classes were not given to the Hydrator
/// (the check in `boltcodec._hydration` did not pass) answers `None`.
const KINDS: &[Kind] = &[
    Kind {
        tag: b'D',
        arity: &[1],
        build: Hydrator::date,
    },
    Kind {
        tag: b'X',
        arity: &[3],
        build: Hydrator::point,
    },
    Kind {
        tag: b'Y',
        arity: &[4],
        build: Hydrator::point,
    },
    Kind {
        tag: b'N',
        arity: &[3, 4],
        build: Hydrator::node,
    },
    Kind {
        tag: b'R',
        arity: &[5, 8],
        build: Hydrator::relationship,
    },
    Kind {
        tag: b'r',
        arity: &[3, 4],
        build: Hydrator::unbound_relationship,
    },
    Kind {
        tag: b'P',
        arity: &[3],
        build: Hydrator::path,
    },
    Kind {
        tag: b't',
        arity: &[1],
        build: Hydrator::time,
    },
    Kind {
        tag: b'T',
        arity: &[2],
        build: Hydrator::time,
    },
    Kind {
        tag: b'd',
        arity: &[2],
        build: Hydrator::local_datetime,
    },
    Kind {
        tag: b'F',
        arity: &[3],
        build: Hydrator::offset_datetime_legacy,
    },
    Kind {
        tag: b'I',
        arity: &[3],
        build: Hydrator::offset_datetime_utc,
    },
    Kind {
        tag: b'f',
        arity: &[3],
        build: Hydrator::zoned_datetime_legacy,
    },
    Kind {
        tag: b'i',
        arity: &[3],
        build: Hydrator::zoned_datetime_utc,
    },
    Kind {
        tag: b'E',
        arity: &[4],
        build: Hydrator::duration,
    },
    Kind {
        tag: b'V',
        arity: &[2],
        build: Hydrator::vector,
    },
    Kind {
        tag: b'?',
        arity: &[4],
        build: Hydrator::unsupported,
    },
];

const NANOS: i64 = 1_000_000_000;
const DAY_NANOS: i64 = 86_400 * NANOS;

/// How a datetime tag's seconds are read (the driver's two `hydrate_datetime`s).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DateTimeMode {
    /// `d`: local wall-clock seconds, no zone.
    Local,
    /// Bolt < 5 `F`: wall-clock seconds in the zone of the offset (`zone.localize`).
    Legacy,
    /// Bolt 5 / 4.4 utc patch `I`: UTC seconds, shown in the zone of the offset.
    Utc,
    /// Bolt < 5 `f`: wall-clock seconds in a named zone (pytz's `localize`, `is_dst=False`).
    ZoneLegacy,
    /// Bolt 5 / 4.4 utc patch `i`: UTC seconds, shown in a named zone (pytz's `fromutc`).
    ZoneUtc,
}

/// One named zone as pytz resolves it: its UTC transition instants (seconds since the
/// epoch, sorted; empty for a zone with one offset) and, per period, the offset in
/// seconds and the pytz tzinfo object the driver's datetimes carry in that period.
///
/// Made by `boltcodec._hydration.zone_table` from pytz's own tables (once per zone name,
/// kept in the cache dict the Hydrator was given), so a lookup here is pytz's
/// `bisect_right(_utc_transition_times, dt) - 1` without a Python call.
#[pyclass(module = "boltcodec._native", frozen)]
pub struct ZoneTable {
    transitions: Vec<i64>,
    offsets: Vec<i64>,
    tzinfos: Vec<Py<PyAny>>,
}

impl ZoneTable {
    /// The period in effect at `seconds` (pytz's `max(0, bisect_right(...) - 1)`; the
    /// fraction of a second never matters, transitions being whole seconds).
    fn period(&self, seconds: i64) -> usize {
        self.transitions
            .partition_point(|&t| t <= seconds)
            .saturating_sub(1)
    }
}

#[pymethods]
impl ZoneTable {
    /// ``ZoneTable(transitions, offsets, tzinfos)``: ``transitions`` the sorted UTC
    /// instants (seconds since 1970) where a period starts, the first one included (may
    /// be empty: one period); ``offsets`` (seconds) and ``tzinfos`` one per transition
    /// (one when there is none).
    ///
    /// ```python
    /// import pytz
    /// from boltcodec._native import ZoneTable
    ///
    /// ZoneTable([], [0], [pytz.utc])
    /// ```
    #[new]
    fn new(transitions: Vec<i64>, offsets: Vec<i64>, tzinfos: Vec<Py<PyAny>>) -> PyResult<Self> {
        let periods = transitions.len().max(1);
        if offsets.len() != periods || tzinfos.len() != periods {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "ZoneTable: one offset and one tzinfo per transition",
            ));
        }
        if transitions.windows(2).any(|w| w[0] > w[1]) {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "ZoneTable: transitions must be sorted",
            ));
        }
        if offsets.iter().any(|o| o.abs() >= 86_400) {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "ZoneTable: offsets must be less than a day",
            ));
        }
        Ok(ZoneTable {
            transitions,
            offsets,
            tzinfos,
        })
    }

    fn __traverse__(&self, visit: pyo3::gc::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        for z in &self.tzinfos {
            visit.call(z)?;
        }
        Ok(())
    }
}

/// The driver's `neo4j.time` classes, for native times, datetimes and durations.
struct TemporalKit {
    time_cls: Py<PyAny>,
    /// `pytz.FixedOffset`, asked once per offset (in minutes) and kept: pytz returns the
    /// same object for the same offset, so the kept one is the driver's.
    fixed_offset: Py<PyAny>,
    offsets: Mutex<HashMap<i64, Py<PyAny>>>,
    /// `DateTime` and the datetime tags it is built for (needs `date_cls`).
    datetime_cls: Option<Py<PyAny>>,
    datetime_tags: Vec<u8>,
    duration_cls: Option<Py<PyAny>>,
    /// Named zones (`f`, `i`): zone name → [`ZoneTable`], a dict shared by every
    /// Hydrator, and the function that makes a missing entry (`None`: the driver's,
    /// not kept, so that names a server makes up do not grow the dict).
    zones: Option<(Py<PyDict>, Py<PyAny>)>,
}

/// Native hydration for one hydration scope (one result) of the driver.
///
/// ``Hydrator(functions, broken, *, date_cls=None, srid_table=None, graph=None,
/// node_cls=None, legacy=False, time_cls=None, fixed_offset=None, datetime_cls=None,
/// datetime_tags=b"", duration_cls=None, path_cls=None, relationship_cls=None,
/// vector_cls=None, vector_types=None, unsupported_cls=None)``:
/// ``functions`` is the scope's tag → hydration function dict (looked up on every call,
/// so it stays the driver's), ``broken`` its ``BrokenHydrationObject`` class;
/// ``date_cls`` enables native ``Date`` (tag ``D``), ``srid_table`` (the driver's SRID →
/// ``(class, dimensions)`` table) native points (tags ``X``, ``Y``), ``graph`` and
/// ``node_cls`` (the scope's ``Graph`` and the ``Node`` class) native nodes and
/// relationships (tags ``N``, ``R``, ``r``; ``legacy``: also fill the 5.x graph's
/// integer-id dicts), with ``path_cls`` and ``relationship_cls`` also paths (``P``);
/// ``time_cls`` and ``fixed_offset`` (``pytz.FixedOffset``) times (``t``, ``T``);
/// ``datetime_cls`` with ``datetime_tags`` (which of ``d`` (local), ``F`` (Bolt < 5:
/// wall-clock seconds and an offset), ``I`` (UTC seconds and an offset), ``f``, ``i``
/// (the same with a zone name: see ``zone_cache``); needs
/// ``date_cls`` and ``time_cls``) datetimes with no zone or an offset; ``duration_cls``
/// durations (``E``); ``vector_cls`` with ``vector_types`` (element-type byte →
/// ``(inner vector class, element size)``) vectors (``V``); ``unsupported_cls``
/// unsupported types (``?``); ``zone_cache`` (a dict shared by Hydrators) and
/// ``zone_loader`` (zone name → :class:`ZoneTable` or ``None``, a table kept in the
/// cache) datetimes in named zones, for ``f`` (Bolt < 5: wall-clock seconds, pytz's
/// ``localize``) and ``i`` (UTC seconds, pytz's ``fromutc``) in ``datetime_tags``.
/// Calling it with a ``Structure`` returns what the driver's ``_hydrate_structure``
/// returns for it.
///
/// ```python
/// from boltcodec._native import Hydrator, Structure
/// from neo4j._codec.hydration import BrokenHydrationObject
/// from neo4j.time import Date
///
/// h = Hydrator({}, BrokenHydrationObject, date_cls=Date)
/// assert h(Structure(b"D", 19000)) == Date(2022, 1, 8)
/// ```
#[pyclass(module = "boltcodec._native", frozen)]
pub struct Hydrator {
    functions: Py<PyDict>,
    broken: Py<PyAny>,
    date_cls: Option<Py<PyAny>>,
    srid_table: Option<Py<PyDict>>,
    graph: Option<GraphKit>,
    temporal: Option<TemporalKit>,
    /// 6.x `neo4j.vector.Vector` and its element-type byte → `(inner class, element
    /// size)` table, for native vectors (`V`).
    vector: Option<(Py<PyAny>, Py<PyDict>)>,
    /// 6.x `neo4j.types.UnsupportedType`, for native unsupported types (`?`).
    unsupported_cls: Option<Py<PyAny>>,
    object_new: Py<PyAny>,
    tuple_new: Py<PyAny>,
    /// Structures built natively / handed to the driver's function (for tests and
    /// `status()`).
    native: AtomicU64,
    delegated: AtomicU64,
}

/// The driver's per-result graph, for native nodes and relationships.
struct GraphKit {
    /// The `Graph` every entity points back to.
    graph: Py<PyAny>,
    node_cls: Py<PyAny>,
    /// `graph._nodes` / `graph._relationships`: element id → entity.
    nodes: Py<PyDict>,
    relationships: Py<PyDict>,
    /// `graph._relationship_types`: type name → the graph's Relationship subclass.
    relationship_types: Py<PyDict>,
    /// 5.x only: `graph._legacy_nodes` / `_legacy_relationships` (integer id → entity).
    legacy_nodes: Option<Py<PyDict>>,
    legacy_relationships: Option<Py<PyDict>>,
    /// `Path` and the `Relationship` base class, for native paths.
    path: Option<(Py<PyAny>, Py<PyAny>)>,
}

/// `{k: v for k, v in properties.items() if v is not None}` (the driver's entity
/// properties), or None when `properties` is not a plain dict.
fn entity_properties<'py>(
    py: Python<'py>,
    properties: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    if properties.is_none() {
        return Ok(Some(PyDict::new(py)));
    }
    let Ok(d) = properties.cast::<PyDict>() else {
        return Ok(None);
    };
    if !d.is_exact_instance_of::<PyDict>() {
        return Ok(None);
    }
    let out = PyDict::new(py);
    for (k, v) in d.iter() {
        if !v.is_none() {
            out.set_item(k, v)?;
        }
    }
    Ok(Some(out))
}

/// An element id field: an exact `str`, or (when the field is absent) `str(id)`.
fn element_id<'py>(
    py: Python<'py>,
    fields: &Bound<'py, PyList>,
    at: usize,
    id: i64,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    if at < fields.len() {
        let e = fields.get_item(at)?;
        return Ok(e
            .is_exact_instance_of::<pyo3::types::PyString>()
            .then_some(e));
    }
    Ok(Some(
        pyo3::types::PyString::new(py, &id.to_string()).into_any(),
    ))
}

impl GraphKit {
    fn set_entity<'py>(
        &self,
        py: Python<'py>,
        obj: &Bound<'py, PyAny>,
        element_id: &Bound<'py, PyAny>,
        id: &Bound<'py, PyAny>,
        properties: Bound<'py, PyDict>,
    ) -> PyResult<()> {
        // Nothing the driver makes points back at a properties dict: it is untracked
        // when its values are all leaves (no list), as CPython untracks a dict of atomic
        // values, and tracked again by CPython if a later merge puts a container into it.
        untrack_if_leaves(&properties, properties.values().iter());
        obj.setattr(pyo3::intern!(py, "_graph"), self.graph.bind(py))?;
        obj.setattr(pyo3::intern!(py, "_element_id"), element_id)?;
        obj.setattr(pyo3::intern!(py, "_id"), id)?;
        obj.setattr(pyo3::intern!(py, "_properties"), properties)?;
        Ok(())
    }

    /// The node `element_id`: created (with `labels` and the non-null `properties`) if
    /// the graph has none yet, otherwise given `labels` and `properties` as the driver
    /// does (`_labels = _labels.union(labels)`, `_properties.update(properties)`, each only
    /// when non-empty). `properties` is `None` or a plain dict (checked by the caller).
    fn node<'py>(
        &self,
        py: Python<'py>,
        object_new: &Bound<'py, PyAny>,
        id: &Bound<'py, PyAny>,
        labels: Option<&Bound<'py, PyList>>,
        properties: Option<&Bound<'py, PyAny>>,
        element_id: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let nodes = self.nodes.bind(py);
        if let Some(existing) = nodes.get_item(element_id)? {
            if let Some(l) = labels.filter(|l| !l.is_empty()) {
                let name = pyo3::intern!(py, "_labels");
                let merged = existing
                    .getattr(name)?
                    .call_method1(pyo3::intern!(py, "union"), (l,))?;
                untrack(&merged);
                existing.setattr(name, merged)?;
            }
            if let Some(p) = properties.filter(|p| !p.is_none()) {
                if p.is_truthy()? {
                    let mine = existing.getattr(pyo3::intern!(py, "_properties"))?;
                    mine.call_method1(pyo3::intern!(py, "update"), (p,))?;
                    if let Ok(d) = mine.cast::<PyDict>() {
                        untrack_if_leaves(d, d.values().iter());
                    }
                }
            }
            return Ok(Some(existing));
        }
        let filtered = match properties {
            Some(p) => match entity_properties(py, p)? {
                Some(f) => f,
                None => return Ok(None),
            },
            None => PyDict::new(py),
        };
        let obj = object_new.call1((self.node_cls.bind(py),))?;
        self.set_entity(py, &obj, element_id, id, filtered)?;
        let labels = match labels {
            Some(l) => pyo3::types::PyFrozenSet::new(py, l.iter())?,
            None => pyo3::types::PyFrozenSet::empty(py)?,
        };
        untrack(&labels); // strings only: never part of a cycle
        obj.setattr(pyo3::intern!(py, "_labels"), labels)?;
        nodes.set_item(element_id, &obj)?;
        if let Some(legacy) = &self.legacy_nodes {
            legacy.bind(py).set_item(id, &obj)?;
        }
        Ok(Some(obj))
    }

    /// The relationship `element_id` (its start and end nodes not set), created if the
    /// graph has none yet. `None` when the driver must do it (a type this graph has no
    /// class for yet).
    fn relationship<'py>(
        &self,
        py: Python<'py>,
        object_new: &Bound<'py, PyAny>,
        id: &Bound<'py, PyAny>,
        type_: &Bound<'py, PyAny>,
        properties: &Bound<'py, PyAny>,
        element_id: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let relationships = self.relationships.bind(py);
        if let Some(existing) = relationships.get_item(element_id)? {
            return Ok(Some(existing));
        }
        if !type_.is_exact_instance_of::<pyo3::types::PyString>() {
            return Ok(None);
        }
        let Some(cls) = self.relationship_types.bind(py).get_item(type_)? else {
            return Ok(None);
        };
        let Some(properties) = entity_properties(py, properties)? else {
            return Ok(None);
        };
        let obj = object_new.call1((cls,))?;
        self.set_entity(py, &obj, element_id, id, properties)?;
        obj.setattr(pyo3::intern!(py, "_start_node"), py.None())?;
        obj.setattr(pyo3::intern!(py, "_end_node"), py.None())?;
        relationships.set_item(element_id, &obj)?;
        if let Some(legacy) = &self.legacy_relationships {
            legacy.bind(py).set_item(id, &obj)?;
        }
        Ok(Some(obj))
    }
}

/// `pytz.FixedOffset(minutes)` (kept per Hydrator), or `None` where pytz refuses it.
fn offset_zone<'py>(py: Python<'py>, kit: &TemporalKit, minutes: i64) -> Built<'py> {
    if let Some(zone) = kit
        .offsets
        .lock()
        .ok()
        .and_then(|m| m.get(&minutes).map(|z| z.clone_ref(py)))
    {
        return Ok(Some(zone.into_bound(py)));
    }
    match kit.fixed_offset.bind(py).call1((minutes,)) {
        Ok(zone) => {
            if let Ok(mut m) = kit.offsets.lock() {
                m.insert(minutes, zone.clone().unbind());
            }
            Ok(Some(zone))
        }
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyException>(py) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Whether the day of `seconds` (since 1970-01-01T00:00) is within `margin` days of the
/// driver's date range (0001-01-01 ..= 9999-12-31) on both sides.
fn in_date_range(seconds: i64, margin: i64) -> bool {
    seconds
        .div_euclid(86_400)
        .checked_add(UNIX_EPOCH_ORDINAL)
        .is_some_and(|o| (1 + margin..=MAX_ORDINAL - margin).contains(&o))
}

/// pytz's `localize(wall, is_dst=False)` where it is unambiguous: the period of `table`
/// whose offset maps the wall-clock `seconds` to an instant shown as that same wall time,
/// trying the periods in effect a day before and a day after as pytz does. `None` where
/// pytz's answer is not that one period (no period fits: a gap; two that differ: a fold),
/// and near the ends of the driver's range (pytz's day steps leave it there): the driver
/// does those.
fn localize(table: &ZoneTable, seconds: i64) -> Option<usize> {
    if !in_date_range(seconds, 2) {
        return None;
    }
    let mut found: Option<usize> = None;
    for delta in [-86_400, 86_400] {
        let offset = table.offsets[table.period(seconds + delta)];
        // tzinfo.normalize(wall.replace(tzinfo)): fromutc of wall - offset.
        let at = table.period(seconds - offset);
        if table.offsets[at] != offset {
            continue; // shown at another wall time: not a candidate
        }
        match found {
            None => found = Some(at),
            Some(prev) if table.tzinfos[prev].is(&table.tzinfos[at]) => {}
            Some(_) => return None,
        }
    }
    found
}

/// The [`ZoneTable`] of the zone `name` from the kit's cache, made by its loader the
/// first time; `None` for a zone the loader refused (unknown, not pytz's own name for
/// it, or not one pytz's tables describe), asked again each time and never kept.
fn zone_table<'py>(
    py: Python<'py>,
    kit: &TemporalKit,
    name: &Bound<'py, pyo3::types::PyString>,
) -> PyResult<Option<Bound<'py, ZoneTable>>> {
    let Some((cache, loader)) = &kit.zones else {
        return Ok(None);
    };
    let cache = cache.bind(py);
    let entry = match cache.get_item(name)? {
        Some(e) => e,
        None => {
            // A loader that fails leaves the value to the driver's function, as a refusal.
            let e = match loader.bind(py).call1((name,)) {
                Ok(e) => e,
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyException>(py) => return Ok(None),
                Err(e) => return Err(e),
            };
            match e.cast_into_exact::<ZoneTable>() {
                Ok(table) => {
                    cache.set_item(name, &table)?;
                    table.into_any()
                }
                Err(_) => return Ok(None),
            }
        }
    };
    Ok(entry.cast_into_exact::<ZoneTable>().ok())
}

impl Hydrator {
    fn new_object<'py>(&self, py: Python<'py>, cls: &Py<PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.object_new.bind(py).call1((cls.bind(py),))
    }

    /// The driver's `Date` of a proleptic Gregorian ordinal, `None` outside 1..=9999-12-31
    /// (ordinal 0 is the driver's ZeroDate singleton, the rest its error).
    fn date_at<'py>(&self, py: Python<'py>, ordinal: i64) -> Built<'py> {
        let Some(cls) = &self.date_cls else {
            return Ok(None);
        };
        if !(1..=MAX_ORDINAL).contains(&ordinal) {
            return Ok(None);
        }
        let (year, month, day) = civil_from_ordinal(ordinal);
        let obj = self.new_object(py, cls)?;
        obj.setattr(pyo3::intern!(py, "_Date__ordinal"), ordinal)?;
        obj.setattr(pyo3::intern!(py, "_Date__year"), year)?;
        obj.setattr(pyo3::intern!(py, "_Date__month"), month)?;
        obj.setattr(
            pyo3::intern!(py, "_Date__day"),
            internal_day(year, month, day),
        )?;
        untrack(&obj);
        Ok(Some(obj))
    }

    /// The driver's `Time` of `ticks` nanoseconds since midnight (`0..DAY_NANOS`, checked
    /// by the caller) in `zone` (`None`: a local time).
    fn time_at<'py>(
        &self,
        py: Python<'py>,
        kit: &TemporalKit,
        ticks: i64,
        zone: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (seconds, nanosecond) = (ticks / NANOS, ticks % NANOS);
        let obj = self.new_object(py, &kit.time_cls)?;
        obj.setattr(pyo3::intern!(py, "_Time__ticks"), ticks)?;
        obj.setattr(pyo3::intern!(py, "_Time__hour"), seconds / 3600)?;
        obj.setattr(pyo3::intern!(py, "_Time__minute"), seconds / 60 % 60)?;
        obj.setattr(pyo3::intern!(py, "_Time__second"), seconds % 60)?;
        obj.setattr(pyo3::intern!(py, "_Time__nanosecond"), nanosecond)?;
        obj.setattr(pyo3::intern!(py, "_Time__tzinfo"), zone)?;
        untrack(&obj);
        Ok(obj)
    }

    /// `D`: (days since 1970-01-01).
    fn date<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        match f.int(0)?.and_then(|d| d.checked_add(UNIX_EPOCH_ORDINAL)) {
            Some(ordinal) => self.date_at(py, ordinal),
            None => Ok(None),
        }
    }

    /// `t`: (nanoseconds since midnight); `T`: (nanoseconds, offset in seconds).
    fn time<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        let Some(kit) = &self.temporal else {
            return Ok(None);
        };
        let Some(ticks) = f.int(0)?.filter(|t| (0..DAY_NANOS).contains(t)) else {
            return Ok(None); // the driver's error
        };
        let zone = if f.len() == 2 {
            let Some(offset) = f.int(1)? else {
                return Ok(None);
            };
            match offset_zone(py, kit, offset.div_euclid(60))? {
                Some(z) => Some(z),
                None => return Ok(None),
            }
        } else {
            None
        };
        Ok(Some(self.time_at(py, kit, ticks, zone)?))
    }

    /// A `DateTime` from (seconds, nanoseconds[, offset in seconds]) read as `mode` says.
    fn datetime<'py>(
        &self,
        py: Python<'py>,
        f: &Fields<'_, 'py>,
        tag: u8,
        mode: DateTimeMode,
    ) -> Built<'py> {
        let Some(kit) = &self.temporal else {
            return Ok(None);
        };
        let Some(cls) = kit
            .datetime_cls
            .as_ref()
            .filter(|_| kit.datetime_tags.contains(&tag))
        else {
            return Ok(None);
        };
        let Some([seconds, nanos]) = f.ints::<2>(0)? else {
            return Ok(None);
        };
        if !(0..NANOS).contains(&nanos) {
            return Ok(None); // the driver's error
        }
        let (wall, zone) = match mode {
            DateTimeMode::Local => (seconds, None),
            DateTimeMode::Legacy | DateTimeMode::Utc => {
                let Some(offset) = f.int(2)? else {
                    return Ok(None);
                };
                let minutes = offset.div_euclid(60);
                let wall = if mode == DateTimeMode::Utc {
                    // The driver converts through the UTC instant: it too must be in range.
                    if !in_date_range(seconds, 0) {
                        return Ok(None);
                    }
                    match seconds.checked_add(minutes * 60) {
                        Some(w) => w,
                        None => return Ok(None),
                    }
                } else {
                    seconds
                };
                match offset_zone(py, kit, minutes)? {
                    Some(z) => (wall, Some(z)),
                    None => return Ok(None),
                }
            }
            DateTimeMode::ZoneUtc | DateTimeMode::ZoneLegacy => {
                let Some(name) = f.exact::<pyo3::types::PyString>(2)? else {
                    return Ok(None);
                };
                let Some(table) = zone_table(py, kit, &name)? else {
                    return Ok(None); // an unknown zone (the driver's error) or an unusual one
                };
                let table = table.get();
                let at = if mode == DateTimeMode::ZoneUtc {
                    // as_timezone: the UTC instant, in the period pytz's fromutc finds.
                    if !in_date_range(seconds, 0) {
                        return Ok(None);
                    }
                    let at = table.period(seconds);
                    (seconds + table.offsets[at], at)
                } else {
                    match localize(table, seconds) {
                        Some(at) => (seconds, at),
                        None => return Ok(None), // a gap or a fold: the driver's
                    }
                };
                (at.0, Some(table.tzinfos[at.1].bind(py).clone()))
            }
        };
        let Some(ordinal) = wall.div_euclid(86_400).checked_add(UNIX_EPOCH_ORDINAL) else {
            return Ok(None);
        };
        let Some(date) = self.date_at(py, ordinal)? else {
            return Ok(None);
        };
        let time = self.time_at(py, kit, wall.rem_euclid(86_400) * NANOS + nanos, zone)?;
        let obj = self.new_object(py, cls)?;
        obj.setattr(pyo3::intern!(py, "_DateTime__date"), date)?;
        obj.setattr(pyo3::intern!(py, "_DateTime__time"), time)?;
        untrack(&obj);
        Ok(Some(obj))
    }

    /// `d`: (seconds, nanoseconds), a local datetime.
    fn local_datetime<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        self.datetime(py, f, b'd', DateTimeMode::Local)
    }

    /// `F` (Bolt < 5 without the utc patch): wall-clock seconds, nanoseconds, offset.
    fn offset_datetime_legacy<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        self.datetime(py, f, b'F', DateTimeMode::Legacy)
    }

    /// `I` (Bolt 5, 4.4 with the utc patch): UTC seconds, nanoseconds, offset.
    fn offset_datetime_utc<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        self.datetime(py, f, b'I', DateTimeMode::Utc)
    }

    /// `f` (Bolt < 5 without the utc patch): wall-clock seconds, nanoseconds, zone name.
    fn zoned_datetime_legacy<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        self.datetime(py, f, b'f', DateTimeMode::ZoneLegacy)
    }

    /// `i` (Bolt 5, 4.4 with the utc patch): UTC seconds, nanoseconds, zone name.
    fn zoned_datetime_utc<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        self.datetime(py, f, b'i', DateTimeMode::ZoneUtc)
    }

    /// `E`: (months, days, seconds, nanoseconds), normalised and range-checked as the
    /// driver's `Duration(months=, days=, seconds=, nanoseconds=)` does.
    fn duration<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        let Some(cls) = self.temporal.as_ref().and_then(|k| k.duration_cls.as_ref()) else {
            return Ok(None);
        };
        let Some([months, days, seconds, nanos]) = f.ints::<4>(0)? else {
            return Ok(None);
        };
        let total = i128::from(seconds) * i128::from(NANOS) + i128::from(nanos);
        // Both parts carry the sign of the whole (the driver's symmetric divmod).
        let (s, ns) = (total / i128::from(NANOS), total % i128::from(NANOS));
        let average =
            i128::from(months) * 2_629_746 + i128::from(days) * 86_400 + s - i128::from(ns < 0);
        let (Ok(s), Ok(_)) = (i64::try_from(s), i64::try_from(average)) else {
            return Ok(None); // the driver's error
        };
        let tuple = PyTuple::new(py, [months, days, s, ns as i64])?;
        let obj = self.tuple_new.bind(py).call1((cls.bind(py), tuple))?;
        untrack(&obj);
        Ok(Some(obj))
    }

    /// `V` (6.x): (element type byte, big-endian data), as the driver's `Vector(data,
    /// dtype)`: the inner vector of the type holding the data (its little-endian copy not
    /// made yet), in a `Vector`. An unknown type or a length that is not a multiple of the
    /// element size is the driver's error.
    fn vector<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        let Some((cls, types)) = &self.vector else {
            return Ok(None);
        };
        let (Some(typ), Some(data)) = (f.exact::<PyBytes>(0)?, f.exact::<PyBytes>(1)?) else {
            return Ok(None);
        };
        let Some(entry) = types.bind(py).get_item(typ)? else {
            return Ok(None);
        };
        let Ok(entry) = entry.cast_into::<PyTuple>() else {
            return Ok(None);
        };
        if entry.len() != 2 {
            return Ok(None);
        }
        let Some(size) = exact_i64(&entry.get_item(1)?).filter(|s| *s > 0) else {
            return Ok(None);
        };
        if data.as_bytes().len() as i64 % size != 0 {
            return Ok(None);
        }
        let inner = self.object_new.bind(py).call1((entry.get_item(0)?,))?;
        inner.setattr(pyo3::intern!(py, "_data"), data)?;
        inner.setattr(pyo3::intern!(py, "_data_le"), py.None())?;
        untrack(&inner); // bytes only
        let obj = self.new_object(py, cls)?;
        obj.setattr(pyo3::intern!(py, "_inner"), inner)?;
        untrack(&obj); // its inner vector only
        Ok(Some(obj))
    }

    /// `?` (6.x): (name, minimum Bolt major, minor, extra), as the driver's
    /// `UnsupportedType._new(name, (major, minor), extra.get("message"))`, for a `str`
    /// name, `int` versions and a plain dict.
    fn unsupported<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        let Some(cls) = &self.unsupported_cls else {
            return Ok(None);
        };
        let name = f.get(0)?;
        let (major, minor) = (f.get(1)?, f.get(2)?);
        let Some(extra) = f.exact::<PyDict>(3)? else {
            return Ok(None);
        };
        if !name.is_exact_instance_of::<pyo3::types::PyString>()
            || !major.is_exact_instance_of::<PyInt>()
            || !minor.is_exact_instance_of::<PyInt>()
        {
            return Ok(None);
        }
        let message = match extra.get_item(pyo3::intern!(py, "message"))? {
            Some(m) => m,
            None => py.None().into_bound(py),
        };
        let obj = self.new_object(py, cls)?;
        obj.setattr(pyo3::intern!(py, "_name"), name)?;
        obj.setattr(
            pyo3::intern!(py, "_minimum_protocol_version"),
            PyTuple::new(py, [major, minor])?,
        )?;
        obj.setattr(pyo3::intern!(py, "_message"), message)?;
        Ok(Some(obj))
    }

    /// `X`: (srid, x, y); `Y`: (srid, x, y, z).
    fn point<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        let Some(table) = &self.srid_table else {
            return Ok(None);
        };
        let srid = f.get(0)?;
        if !srid.is_exact_instance_of::<PyInt>() {
            return Ok(None);
        }
        let Some(entry) = table.bind(py).get_item(&srid)? else {
            return Ok(None); // an unknown SRID: the driver's plain Point
        };
        let Ok(entry) = entry.cast_into::<PyTuple>() else {
            return Ok(None);
        };
        let n = f.len();
        if entry.len() != 2 || exact_i64(&entry.get_item(1)?) != Some(n as i64 - 1) {
            return Ok(None); // wrong dimensions: the driver's error
        }
        let mut coords = Vec::with_capacity(n - 1);
        for i in 1..n {
            match f.exact::<PyFloat>(i)? {
                Some(c) => coords.push(c),
                None => return Ok(None),
            }
        }
        let coords = PyTuple::new(py, coords)?;
        let obj = self
            .tuple_new
            .bind(py)
            .call1((entry.get_item(0)?, coords))?;
        untrack(&obj);
        Ok(Some(obj))
    }

    /// `N`: (id, labels, properties[, element_id]).
    fn node<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        let Some(g) = &self.graph else {
            return Ok(None);
        };
        let Some(id_value) = f.int(0)? else {
            return Ok(None);
        };
        let Some(labels) = f.exact::<PyList>(1)? else {
            return Ok(None);
        };
        if !labels
            .iter()
            .all(|l| l.is_exact_instance_of::<pyo3::types::PyString>())
        {
            return Ok(None);
        }
        let properties = f.get(2)?;
        if !(properties.is_none() || properties.is_exact_instance_of::<PyDict>()) {
            return Ok(None);
        }
        let Some(element_id) = element_id(py, f.0, 3, id_value)? else {
            return Ok(None);
        };
        let object_new = self.object_new.bind(py);
        g.node(
            py,
            object_new,
            &f.get(0)?,
            Some(&labels),
            Some(&properties),
            &element_id,
        )
    }

    /// `r`: (id, type, properties[, element_id]).
    fn unbound_relationship<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        let Some(g) = &self.graph else {
            return Ok(None);
        };
        let Some(id_value) = f.int(0)? else {
            return Ok(None);
        };
        let Some(element_id) = element_id(py, f.0, 3, id_value)? else {
            return Ok(None);
        };
        let object_new = self.object_new.bind(py);
        g.relationship(
            py,
            object_new,
            &f.get(0)?,
            &f.get(1)?,
            &f.get(2)?,
            &element_id,
        )
    }

    /// `R`: (id, start id, end id, type, properties[, element_id, start element_id,
    /// end element_id]).
    fn relationship<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        let Some(g) = &self.graph else {
            return Ok(None);
        };
        let Some([id, start, end]) = f.ints::<3>(0)? else {
            return Ok(None);
        };
        let (Some(element_id), Some(start_eid), Some(end_eid)) = (
            element_id(py, f.0, 5, id)?,
            element_id(py, f.0, 6, start)?,
            element_id(py, f.0, 7, end)?,
        ) else {
            return Ok(None);
        };
        let object_new = self.object_new.bind(py);
        let Some(rel) = g.relationship(
            py,
            object_new,
            &f.get(0)?,
            &f.get(3)?,
            &f.get(4)?,
            &element_id,
        )?
        else {
            return Ok(None);
        };
        // Endpoints are only looked up or created bare: never merged, always native.
        let Some(start_node) = g.node(py, object_new, &f.get(1)?, None, None, &start_eid)? else {
            return Ok(None);
        };
        rel.setattr(pyo3::intern!(py, "_start_node"), start_node)?;
        let Some(end_node) = g.node(py, object_new, &f.get(2)?, None, None, &end_eid)? else {
            return Ok(None);
        };
        rel.setattr(pyo3::intern!(py, "_end_node"), end_node)?;
        Ok(Some(rel))
    }

    /// `P`: (nodes, unbound relationships, sequence), as the driver's `hydrate_path`: each
    /// relationship is given its start and end node in the direction the sequence walks
    /// it, then the `Path` is made of the start node and the relationships. Anything
    /// unusual (no node, an odd sequence, an index out of range, a field that is not
    /// the graph's entity) is the driver's, before any relationship is changed.
    fn path<'py>(&self, py: Python<'py>, f: &Fields<'_, 'py>) -> Built<'py> {
        let Some((g, (path_cls, rel_cls))) = self
            .graph
            .as_ref()
            .and_then(|g| g.path.as_ref().map(|p| (g, p)))
        else {
            return Ok(None);
        };
        let node_cls = &g.node_cls;
        let (Some(nodes), Some(rels), Some(sequence)) = (
            f.exact::<PyList>(0)?,
            f.exact::<PyList>(1)?,
            f.exact::<PyList>(2)?,
        ) else {
            return Ok(None);
        };
        if nodes.is_empty() || sequence.len() % 2 != 0 {
            return Ok(None);
        }
        let node_cls = node_cls.bind(py);
        let rel_cls = rel_cls.bind(py);
        if !nodes.iter().all(|n| n.get_type().is(node_cls)) {
            return Ok(None);
        }
        for r in rels.iter() {
            if !r.is_instance(rel_cls)? {
                return Ok(None);
            }
        }
        let seq = Fields(&sequence);
        let mut steps = Vec::with_capacity(sequence.len() / 2);
        for i in 0..sequence.len() / 2 {
            let Some([rel, node]) = seq.ints::<2>(2 * i)? else {
                return Ok(None);
            };
            let rel_at = rel.unsigned_abs() as usize;
            if rel == 0 || rel_at > rels.len() || !(0..nodes.len() as i64).contains(&node) {
                return Ok(None);
            }
            steps.push((rel > 0, rel_at - 1, node as usize));
        }
        let (start_name, end_name) = (
            pyo3::intern!(py, "_start_node"),
            pyo3::intern!(py, "_end_node"),
        );
        let mut last = nodes.get_item(0)?;
        let mut walked = Vec::with_capacity(steps.len());
        for (forward, rel_at, node_at) in steps {
            let next = nodes.get_item(node_at)?;
            let r = rels.get_item(rel_at)?;
            let (start, end) = if forward {
                (&last, &next)
            } else {
                (&next, &last)
            };
            r.setattr(start_name, start)?;
            r.setattr(end_name, end)?;
            walked.push(r);
            last = next;
        }
        // The Path's own walk, on each relationship's final endpoints (a relationship
        // walked twice keeps its last direction); a gap is the driver's ValueError.
        let first = nodes.get_item(0)?;
        let mut path_nodes = vec![first.clone()];
        let mut at = first;
        for r in &walked {
            let (start, end) = (r.getattr(start_name)?, r.getattr(end_name)?);
            at = if start.is(&at) {
                end
            } else if end.is(&at) {
                start
            } else {
                return Ok(None);
            };
            path_nodes.push(at.clone());
        }
        let obj = self.new_object(py, path_cls)?;
        obj.setattr(pyo3::intern!(py, "_nodes"), PyTuple::new(py, path_nodes)?)?;
        obj.setattr(
            pyo3::intern!(py, "_relationships"),
            PyTuple::new(py, walked)?,
        )?;
        // A path stays tracked: it holds nodes, whose list properties a caller may point
        // back at the path.
        Ok(Some(obj))
    }

    /// What the driver's `_hydrate_structure` does: `f(*fields)`, an exception becoming
    /// `BrokenHydrationObject(error, structure)`.
    fn delegate<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        tag: &Bound<'py, PyAny>,
        fields: &Bound<'py, PyList>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.delegated.fetch_add(1, Ordering::Relaxed);
        let result = match self.functions.bind(py).get_item(tag)? {
            Some(f) if f.is_truthy()? => f.call1(fields.to_tuple()),
            _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
                "Protocol error: unknown Structure tag: {}",
                tag.repr()?
            ))),
        };
        match result {
            Ok(v) => Ok(v),
            Err(e) if e.is_instance_of::<pyo3::exceptions::PyException>(py) => {
                self.broken.bind(py).call1((e.into_value(py), value))
            }
            Err(e) => Err(e),
        }
    }

    fn hydrate<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Ok(s) = value.cast::<Structure>() else {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "boltcodec Hydrator: expected a Structure",
            ));
        };
        let s = s.get();
        let tag = s.tag.bind(py);
        let fields = s.fields.bind(py);
        let byte = match tag.cast::<PyBytes>() {
            Ok(b) if b.as_bytes().len() == 1 => Some(b.as_bytes()[0]),
            _ => None,
        };
        let kind = byte.and_then(|b| KINDS.iter().find(|k| k.tag == b));
        let built = match kind {
            Some(k) if k.arity.contains(&fields.len()) => (k.build)(self, py, &Fields(fields))?,
            _ => None,
        };
        match built {
            Some(obj) => {
                self.native.fetch_add(1, Ordering::Relaxed);
                Ok(obj)
            }
            None => self.delegate(py, value, tag, fields),
        }
    }
}

#[pymethods]
impl Hydrator {
    #[new]
    #[pyo3(signature = (
        functions, broken, *, date_cls = None, srid_table = None, graph = None,
        node_cls = None, legacy = false, time_cls = None, fixed_offset = None,
        datetime_cls = None, datetime_tags = None, duration_cls = None, path_cls = None,
        relationship_cls = None, vector_cls = None, vector_types = None,
        unsupported_cls = None, zone_cache = None, zone_loader = None,
    ))]
    #[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments
    fn new(
        py: Python<'_>,
        functions: Py<PyDict>,
        broken: Py<PyAny>,
        date_cls: Option<Py<PyAny>>,
        srid_table: Option<Py<PyDict>>,
        graph: Option<Bound<'_, PyAny>>,
        node_cls: Option<Py<PyAny>>,
        legacy: bool,
        time_cls: Option<Py<PyAny>>,
        fixed_offset: Option<Py<PyAny>>,
        datetime_cls: Option<Py<PyAny>>,
        datetime_tags: Option<Vec<u8>>,
        duration_cls: Option<Py<PyAny>>,
        path_cls: Option<Py<PyAny>>,
        relationship_cls: Option<Py<PyAny>>,
        vector_cls: Option<Py<PyAny>>,
        vector_types: Option<Py<PyDict>>,
        unsupported_cls: Option<Py<PyAny>>,
        zone_cache: Option<Py<PyDict>>,
        zone_loader: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let graph = match (graph, node_cls) {
            (Some(graph), Some(node_cls)) => {
                let dict = |name: &str| -> PyResult<Py<PyDict>> {
                    Ok(graph.getattr(name)?.cast_into_exact::<PyDict>()?.unbind())
                };
                Some(GraphKit {
                    node_cls,
                    nodes: dict("_nodes")?,
                    relationships: dict("_relationships")?,
                    relationship_types: dict("_relationship_types")?,
                    legacy_nodes: if legacy {
                        Some(dict("_legacy_nodes")?)
                    } else {
                        None
                    },
                    legacy_relationships: if legacy {
                        Some(dict("_legacy_relationships")?)
                    } else {
                        None
                    },
                    path: path_cls.zip(relationship_cls),
                    graph: graph.unbind(),
                })
            }
            _ => None,
        };
        let temporal = match (time_cls, fixed_offset) {
            (Some(time_cls), Some(fixed_offset)) => Some(TemporalKit {
                time_cls,
                fixed_offset,
                offsets: Mutex::new(HashMap::new()),
                datetime_cls: datetime_cls.filter(|_| date_cls.is_some()),
                datetime_tags: datetime_tags.unwrap_or_default(),
                duration_cls,
                zones: zone_cache.zip(zone_loader),
            }),
            _ => None,
        };
        let builtins = py.import("builtins")?;
        let object_new = builtins.getattr("object")?.getattr("__new__")?.unbind();
        let tuple_new = builtins.getattr("tuple")?.getattr("__new__")?.unbind();
        Ok(Hydrator {
            functions,
            broken,
            date_cls,
            srid_table,
            graph,
            temporal,
            vector: vector_cls.zip(vector_types),
            unsupported_cls,
            object_new,
            tuple_new,
            native: AtomicU64::new(0),
            delegated: AtomicU64::new(0),
        })
    }

    /// Hydrate one structure, as the driver's ``_hydrate_structure`` does.
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::guard(|| self.hydrate(py, value))
    }

    /// ``(built natively, handed to the driver's function)`` since this was created.
    #[getter]
    fn counts(&self) -> (u64, u64) {
        (
            self.native.load(Ordering::Relaxed),
            self.delegated.load(Ordering::Relaxed),
        )
    }

    fn __traverse__(&self, visit: pyo3::gc::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        visit.call(&self.functions)?;
        visit.call(&self.broken)?;
        if let Some(c) = &self.date_cls {
            visit.call(c)?;
        }
        if let Some(t) = &self.srid_table {
            visit.call(t)?;
        }
        if let Some(g) = &self.graph {
            visit.call(&g.graph)?;
            visit.call(&g.node_cls)?;
            visit.call(&g.nodes)?;
            visit.call(&g.relationships)?;
            visit.call(&g.relationship_types)?;
            if let Some(d) = &g.legacy_nodes {
                visit.call(d)?;
            }
            if let Some(d) = &g.legacy_relationships {
                visit.call(d)?;
            }
            if let Some((p, r)) = &g.path {
                visit.call(p)?;
                visit.call(r)?;
            }
        }
        if let Some((c, t)) = &self.vector {
            visit.call(c)?;
            visit.call(t)?;
        }
        if let Some(c) = &self.unsupported_cls {
            visit.call(c)?;
        }
        if let Some(k) = &self.temporal {
            visit.call(&k.time_cls)?;
            visit.call(&k.fixed_offset)?;
            for c in [&k.datetime_cls, &k.duration_cls].into_iter().flatten() {
                visit.call(c)?;
            }
            if let Some((cache, loader)) = &k.zones {
                visit.call(cache)?;
                visit.call(loader)?;
            }
            if let Ok(m) = k.offsets.lock() {
                for z in m.values() {
                    visit.call(z)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_map_to_their_calendar_dates() {
        assert_eq!(civil_from_ordinal(1), (1, 1, 1));
        assert_eq!(civil_from_ordinal(UNIX_EPOCH_ORDINAL), (1970, 1, 1));
        assert_eq!(civil_from_ordinal(MAX_ORDINAL), (9999, 12, 31));
        assert_eq!(civil_from_ordinal(730_179), (2000, 2, 29));
        assert_eq!(civil_from_ordinal(730_180), (2000, 3, 1));
        // Every day in order: each follows the previous one on the calendar.
        let mut prev = civil_from_ordinal(1);
        for o in 2..=MAX_ORDINAL {
            let (y, m, d) = civil_from_ordinal(o);
            let next = if prev.2 < days_in_month(prev.0, prev.1) {
                (prev.0, prev.1, prev.2 + 1)
            } else if prev.1 < 12 {
                (prev.0, prev.1 + 1, 1)
            } else {
                (prev.0 + 1, 1, 1)
            };
            assert_eq!((y, m, d), next, "ordinal {o}");
            prev = next;
        }
    }

    #[test]
    fn the_last_three_days_of_a_month_are_stored_negative() {
        assert_eq!(internal_day(2023, 2, 28), -1);
        assert_eq!(internal_day(2024, 2, 28), -2);
        assert_eq!(internal_day(2024, 1, 29), -3);
        assert_eq!(internal_day(2024, 1, 28), 28);
    }
}
