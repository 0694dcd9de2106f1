//! Native hydration for the official neo4j driver: the driver's own objects
//! (`neo4j.time.Date`, `neo4j.spatial` points, …) built from a decoded [`Structure`]
//! without running the driver's Python hydration functions.
//!
//! A [`Hydrator`] stands in for the driver's `HydrationScope._hydrate_structure` (the
//! `Structure` entry of the hydration hooks the driver hands to its Inbox). It is built by
//! `boltcodec._hydration` only after that module has checked, on the running driver
//! release, that each native builder gives exactly what the driver's own function gives
//! (type, attributes, `==`, `hash`, `repr`). Everything a builder does not handle — other
//! tags, unusual field types, out-of-range values, zero dates, unknown SRIDs — goes to
//! the driver's own function for that tag, called directly (`f(*fields)`, an exception
//! becoming the driver's `BrokenHydrationObject(error, structure)` as in
//! `_hydrate_structure`), so edge cases and errors are the driver's by construction.

use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyInt, PyList, PyTuple};

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

/// An exact `int` field that fits an `i64`.
fn exact_i64(v: &Bound<'_, PyAny>) -> Option<i64> {
    if v.is_exact_instance_of::<PyInt>() {
        v.extract::<i64>().ok()
    } else {
        None
    }
}

/// Native hydration for one hydration scope (one result) of the driver.
///
/// ``Hydrator(functions, broken, *, date_cls=None, srid_table=None, graph=None,
/// node_cls=None, legacy=False)``: ``functions`` is
/// the scope's tag → hydration function dict (looked up on every call, so it stays the
/// driver's), ``broken`` its ``BrokenHydrationObject`` class; ``date_cls`` enables native
/// ``Date`` (tag ``D``), ``srid_table`` (the driver's SRID → ``(class, dimensions)`` table)
/// native points (tags ``X``, ``Y``), ``graph`` and ``node_cls`` (the scope's ``Graph``
/// and the ``Node`` class) native nodes and relationships (tags ``N``, ``R``, ``r``;
/// ``legacy``: also fill the 5.x graph's integer-id dicts). Calling it with a ``Structure`` returns what the
/// driver's ``_hydrate_structure`` returns for it.
#[pyclass(module = "boltcodec._native", frozen)]
pub struct Hydrator {
    functions: Py<PyDict>,
    broken: Py<PyAny>,
    date_cls: Option<Py<PyAny>>,
    srid_table: Option<Py<PyDict>>,
    graph: Option<GraphKit>,
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
                existing.setattr(name, merged)?;
            }
            if let Some(p) = properties.filter(|p| !p.is_none()) {
                if p.is_truthy()? {
                    existing
                        .getattr(pyo3::intern!(py, "_properties"))?
                        .call_method1(pyo3::intern!(py, "update"), (p,))?;
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

impl Hydrator {
    /// `N`: (id, labels, properties[, element_id]).
    fn node<'py>(
        &self,
        py: Python<'py>,
        g: &GraphKit,
        fields: &Bound<'py, PyList>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        if !matches!(fields.len(), 3 | 4) {
            return Ok(None);
        }
        let id = fields.get_item(0)?;
        let Some(id_value) = exact_i64(&id) else {
            return Ok(None);
        };
        let labels = fields.get_item(1)?;
        let Ok(labels) = labels.cast_into_exact::<PyList>() else {
            return Ok(None);
        };
        if !labels
            .iter()
            .all(|l| l.is_exact_instance_of::<pyo3::types::PyString>())
        {
            return Ok(None);
        }
        let properties = fields.get_item(2)?;
        if !(properties.is_none() || properties.is_exact_instance_of::<PyDict>()) {
            return Ok(None);
        }
        let Some(element_id) = element_id(py, fields, 3, id_value)? else {
            return Ok(None);
        };
        g.node(
            py,
            self.object_new.bind(py),
            &id,
            Some(&labels),
            Some(&properties),
            &element_id,
        )
    }

    /// `r`: (id, type, properties[, element_id]).
    fn unbound_relationship<'py>(
        &self,
        py: Python<'py>,
        g: &GraphKit,
        fields: &Bound<'py, PyList>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        if !matches!(fields.len(), 3 | 4) {
            return Ok(None);
        }
        let id = fields.get_item(0)?;
        let Some(id_value) = exact_i64(&id) else {
            return Ok(None);
        };
        let Some(element_id) = element_id(py, fields, 3, id_value)? else {
            return Ok(None);
        };
        g.relationship(
            py,
            self.object_new.bind(py),
            &id,
            &fields.get_item(1)?,
            &fields.get_item(2)?,
            &element_id,
        )
    }

    /// `R`: (id, start id, end id, type, properties[, element_id, start element_id,
    /// end element_id]).
    fn relationship<'py>(
        &self,
        py: Python<'py>,
        g: &GraphKit,
        fields: &Bound<'py, PyList>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        if !matches!(fields.len(), 5 | 8) {
            return Ok(None);
        }
        let id = fields.get_item(0)?;
        let start = fields.get_item(1)?;
        let end = fields.get_item(2)?;
        let (Some(id_value), Some(start_value), Some(end_value)) =
            (exact_i64(&id), exact_i64(&start), exact_i64(&end))
        else {
            return Ok(None);
        };
        let (Some(element_id), Some(start_eid), Some(end_eid)) = (
            element_id(py, fields, 5, id_value)?,
            element_id(py, fields, 6, start_value)?,
            element_id(py, fields, 7, end_value)?,
        ) else {
            return Ok(None);
        };
        let object_new = self.object_new.bind(py);
        let Some(rel) = g.relationship(
            py,
            object_new,
            &id,
            &fields.get_item(3)?,
            &fields.get_item(4)?,
            &element_id,
        )?
        else {
            return Ok(None);
        };
        // Endpoints are only looked up or created bare: never merged, always native.
        let Some(start_node) = g.node(py, object_new, &start, None, None, &start_eid)? else {
            return Ok(None);
        };
        rel.setattr(pyo3::intern!(py, "_start_node"), start_node)?;
        let Some(end_node) = g.node(py, object_new, &end, None, None, &end_eid)? else {
            return Ok(None);
        };
        rel.setattr(pyo3::intern!(py, "_end_node"), end_node)?;
        Ok(Some(rel))
    }

    fn date<'py>(
        &self,
        py: Python<'py>,
        cls: &Bound<'py, PyAny>,
        fields: &Bound<'py, PyList>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        if fields.len() != 1 {
            return Ok(None);
        }
        let Some(days) = exact_i64(&fields.get_item(0)?) else {
            return Ok(None);
        };
        let Some(ordinal) = days.checked_add(UNIX_EPOCH_ORDINAL) else {
            return Ok(None);
        };
        // 0 is the driver's ZeroDate singleton, the rest an error: both the driver's.
        if !(1..=MAX_ORDINAL).contains(&ordinal) {
            return Ok(None);
        }
        let (year, month, day) = civil_from_ordinal(ordinal);
        let obj = self.object_new.bind(py).call1((cls,))?;
        obj.setattr(pyo3::intern!(py, "_Date__ordinal"), ordinal)?;
        obj.setattr(pyo3::intern!(py, "_Date__year"), year)?;
        obj.setattr(pyo3::intern!(py, "_Date__month"), month)?;
        obj.setattr(
            pyo3::intern!(py, "_Date__day"),
            internal_day(year, month, day),
        )?;
        Ok(Some(obj))
    }

    fn point<'py>(
        &self,
        py: Python<'py>,
        table: &Bound<'py, PyDict>,
        fields: &Bound<'py, PyList>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let n = fields.len();
        if n < 2 {
            return Ok(None);
        }
        let srid = fields.get_item(0)?;
        if !srid.is_exact_instance_of::<PyInt>() {
            return Ok(None);
        }
        let Some(entry) = table.get_item(&srid)? else {
            return Ok(None); // an unknown SRID: the driver's plain Point
        };
        let Ok(entry) = entry.cast_into::<PyTuple>() else {
            return Ok(None);
        };
        if entry.len() != 2 || exact_i64(&entry.get_item(1)?) != Some(n as i64 - 1) {
            return Ok(None); // wrong dimensions: the driver's error
        }
        let mut coords = Vec::with_capacity(n - 1);
        for i in 1..n {
            let c = fields.get_item(i)?;
            if !c.is_exact_instance_of::<PyFloat>() {
                return Ok(None);
            }
            coords.push(c);
        }
        let coords = PyTuple::new(py, coords)?;
        let cls = entry.get_item(0)?;
        Ok(Some(self.tuple_new.bind(py).call1((cls, coords))?))
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
            Ok(b) if b.as_bytes().len() == 1 => b.as_bytes()[0],
            _ => 0,
        };
        let built = match byte {
            b'D' => match &self.date_cls {
                Some(cls) => self.date(py, cls.bind(py), fields)?,
                None => None,
            },
            b'X' | b'Y' => match &self.srid_table {
                Some(table) => self.point(py, table.bind(py), fields)?,
                None => None,
            },
            b'N' => match &self.graph {
                Some(g) => self.node(py, g, fields)?,
                None => None,
            },
            b'R' => match &self.graph {
                Some(g) => self.relationship(py, g, fields)?,
                None => None,
            },
            b'r' => match &self.graph {
                Some(g) => self.unbound_relationship(py, g, fields)?,
                None => None,
            },
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
        node_cls = None, legacy = false,
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
                    graph: graph.unbind(),
                })
            }
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
