//! Python objects → PackStream bytes, with the same type rules, order of checks and error
//! types/messages as the official driver's pure-Python packer (`neo4j._codec.packstream`),
//! so that it can stand in for it.
//!
//! Exact built-in types (`None`, `bool`, `int`, `float`, `str`, `bytes`, `list`, `dict`,
//! `Structure`) take a fast path. Everything else goes through the driver's order:
//! none-like values, booleans, float types, int types, `str`, bytes types, sequence types,
//! mapping types, UUID (PackStream v2), `Structure`, then the dehydration hook (driver) or
//! `default` callable (own API); the type tuples include numpy/pandas types when those are
//! loaded, exactly like `neo4j._codec._types`.

use packstream::{EncodeError as CoreEncodeError, EncodeOptions, Encoder};
use pyo3::exceptions::{PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyIterator, PyList, PyString, PyTuple,
    PyType,
};

use crate::errors::{self, EncodeError};
use crate::ffi;
use crate::structure::Structure;

/// Who is asking: the drop-in for the driver (driver types and messages, dehydration
/// hooks), or boltcodec's own `packb` (tuples as lists, a `default` callable).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavour {
    /// The driver's `packstream.v1` (no UUID) or `v2` (UUID).
    Driver,
    /// `boltcodec.packb`.
    Own,
}

/// The type tuples of `neo4j._codec._types`, in the order the packer checks them.
struct Types<'py> {
    none_values: Bound<'py, PyTuple>,
    true_values: Bound<'py, PyTuple>,
    false_values: Bound<'py, PyTuple>,
    float_types: Bound<'py, PyTuple>,
    int_types: Bound<'py, PyTuple>,
    bytes_types: Bound<'py, PyTuple>,
    sequence_types: Bound<'py, PyTuple>,
    mapping_types: Bound<'py, PyTuple>,
}

static DRIVER_TYPES: PyOnceLock<Py<PyTuple>> = PyOnceLock::new();
static OWN_TYPES_FN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static UUID_CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn load_types<'py>(py: Python<'py>, flavour: Flavour) -> PyResult<Types<'py>> {
    let tuple: Bound<'py, PyTuple> = match flavour {
        Flavour::Driver => DRIVER_TYPES
            .get_or_try_init(py, || -> PyResult<Py<PyTuple>> {
                let m = py.import("neo4j._codec._types")?;
                let names = [
                    "NONE_VALUES",
                    "TRUE_VALUES",
                    "FALSE_VALUES",
                    "FLOAT_TYPES",
                    "INT_TYPES",
                    "BYTES_TYPES",
                    "SEQUENCE_TYPES",
                    "MAPPING_TYPES",
                ];
                let mut items = Vec::with_capacity(names.len());
                for name in names {
                    items.push(m.getattr(name)?);
                }
                Ok(PyTuple::new(py, items)?.unbind())
            })?
            .bind(py)
            .clone(),
        Flavour::Own => {
            // Recomputed per call by Python (cheap, cached there): numpy and pandas types
            // join once those modules are imported.
            let f = OWN_TYPES_FN.import(py, "boltcodec._types", "pack_types")?;
            f.call0()?.cast_into::<PyTuple>()?
        }
    };
    let get = |i: usize| -> PyResult<Bound<'py, PyTuple>> {
        Ok(tuple.get_item(i)?.cast_into::<PyTuple>()?)
    };
    Ok(Types {
        none_values: get(0)?,
        true_values: get(1)?,
        false_values: get(2)?,
        float_types: get(3)?,
        int_types: get(4)?,
        bytes_types: get(5)?,
        sequence_types: get(6)?,
        mapping_types: get(7)?,
    })
}

/// Options of one pack call.
pub(crate) struct PackConfig<'py> {
    pub(crate) flavour: Flavour,
    /// Whether UUIDs may be written (PackStream v2).
    pub(crate) uuid: bool,
    /// The driver's `DehydrationHooks` (with `get_transformer`), or the own API's
    /// `default` callable.
    pub(crate) hook: Option<Bound<'py, PyAny>>,
    /// Deepest nesting of lists, maps and structures.
    pub(crate) max_depth: u32,
}

/// How many levels of exact lists and dicts are packed by native recursion before the
/// packer switches to its explicit stack: a bound on the native stack one call uses.
const RECURSION_LEVELS: usize = 32;

/// The default nesting limit for packing, the same as the decoder's.
pub(crate) const DEFAULT_MAX_DEPTH: u32 = 1024;

/// A container being written: the header is out, the items follow one by one.
///
/// Below [`RECURSION_LEVELS`] exact lists and dicts are packed by plain recursion (fast
/// for the usual small values); everything else and everything deeper is kept on an
/// explicit stack of these, so a deeply nested value (up to `max_depth`, whatever it is)
/// needs heap, not native stack, and a hook that calls `packb` again only costs one more
/// bounded native call.
enum Frame<'py> {
    /// An exact `list`: `list[next..len]` are still to come.
    List {
        list: Bound<'py, PyList>,
        next: usize,
        len: usize,
    },
    /// An exact `dict`, walked with `PyDict_Next` from `pos`; `seen` entries written.
    Dict {
        dict: Bound<'py, PyDict>,
        pos: pyo3::ffi::Py_ssize_t,
        seen: usize,
        len: usize,
    },
    /// A `Structure`'s fields.
    Struct {
        fields: Bound<'py, PyList>,
        next: usize,
        len: usize,
    },
    /// Any other sequence: `len` items as iteration yields them; `n` taken so far.
    Seq {
        iter: Bound<'py, PyIterator>,
        n: usize,
        len: usize,
    },
    /// Any other mapping: `len` entries from `items()`; `n` taken so far.
    Mapping {
        iter: Bound<'py, PyIterator>,
        n: usize,
        len: usize,
    },
    /// The result of a hook (`default` or a dehydration function), packed one level
    /// deeper than the value it replaces.
    Hooked(Option<Bound<'py, PyAny>>),
}

struct Packer<'py, 'c> {
    py: Python<'py>,
    cfg: &'c PackConfig<'py>,
    enc: Encoder<Vec<u8>>,
    types: Option<Types<'py>>,
    /// Nesting depth of the container the explicit stack starts in.
    base: usize,
    /// The open containers of the iterative part, outermost first (one call's state,
    /// dropped with it).
    stack: Vec<Frame<'py>>,
}

fn changed(what: &str) -> PyErr {
    PyRuntimeError::new_err(format!("{what} changed size during packing"))
}

/// Writes a map key: a `str` (or subclass, as the driver does); anything else is a
/// `TypeError`.
fn write_key(enc: &mut Encoder<Vec<u8>>, key: &Bound<'_, PyAny>) -> PyResult<()> {
    if key.is_instance_of::<PyString>() {
        enc.write_bytes_as_str(ffi::str_utf8(key)?)
            .map_err(errors::encode_error)
    } else {
        Err(PyTypeError::new_err(format!(
            "Map keys must be strings, not {}",
            key.get_type().str()?
        )))
    }
}

impl<'py> Frame<'py> {
    /// The next item of this container to pack (a map's key is written here, its value
    /// returned), or `None` once the container is complete.
    #[inline]
    fn next_item(&mut self, enc: &mut Encoder<Vec<u8>>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match self {
            Frame::List { list, next, len } => {
                if *next < *len {
                    // A hook may shrink the list while it is packed: report it instead of
                    // writing fewer items than the header promised.
                    let item = list.get_item(*next).map_err(|_| changed("list"))?;
                    *next += 1;
                    Ok(Some(item))
                } else if list.len() != *len {
                    Err(changed("list"))
                } else {
                    Ok(None)
                }
            }
            Frame::Dict {
                dict,
                pos,
                seen,
                len,
            } => {
                if dict.len() != *len {
                    return Err(changed("dictionary"));
                }
                match ffi::dict_next(dict, pos) {
                    Some((key, value)) => {
                        *seen += 1;
                        write_key(enc, &key)?;
                        Ok(Some(value))
                    }
                    None if *seen == *len => Ok(None),
                    None => Err(changed("dictionary")),
                }
            }
            Frame::Struct { fields, next, len } => {
                if *next < *len {
                    let item = fields
                        .get_item(*next)
                        .map_err(|_| changed("structure fields"))?;
                    *next += 1;
                    Ok(Some(item))
                } else {
                    Ok(None)
                }
            }
            Frame::Seq { iter, n, len } => {
                if *n < *len {
                    match iter.next() {
                        Some(item) => {
                            *n += 1;
                            Ok(Some(item?))
                        }
                        None => Err(changed("sequence")),
                    }
                } else {
                    // One more item than `len` means the sequence grew.
                    match iter.next() {
                        None => Ok(None),
                        Some(_) => Err(changed("sequence")),
                    }
                }
            }
            Frame::Mapping { iter, n, len } => {
                if *n < *len {
                    match iter.next() {
                        Some(item) => {
                            *n += 1;
                            let (key, value): (Bound<'py, PyAny>, Bound<'py, PyAny>) =
                                item?.extract()?;
                            write_key(enc, &key)?;
                            Ok(Some(value))
                        }
                        None => Err(changed("mapping")),
                    }
                } else {
                    match iter.next() {
                        None => Ok(None),
                        Some(_) => Err(changed("mapping")),
                    }
                }
            }
            Frame::Hooked(value) => Ok(value.take()),
        }
    }
}

impl<'py> Packer<'py, '_> {
    fn types(&mut self) -> PyResult<&Types<'py>> {
        if self.types.is_none() {
            self.types = Some(load_types(self.py, self.cfg.flavour)?);
        }
        match &self.types {
            Some(t) => Ok(t),
            None => Err(PyRuntimeError::new_err("type tables not loaded")),
        }
    }

    /// Packs `obj`, found at nesting depth `depth`.
    ///
    /// The hot path: scalars, and exact lists and dicts down to [`RECURSION_LEVELS`]
    /// levels, by plain recursion (which keeps small nested values fast). Anything else,
    /// and everything deeper, goes to [`Packer::run`], which does not recurse; so the
    /// native stack this needs is bounded, whatever the value and `max_depth`.
    fn pack(&mut self, obj: &Bound<'py, PyAny>, depth: usize) -> PyResult<()> {
        if self.scalar(obj)? {
            return Ok(());
        }
        if depth >= RECURSION_LEVELS {
            self.run(obj, depth)?;
        } else if let Ok(list) = obj.cast_exact::<PyList>() {
            self.check_depth(depth)?;
            let len = list.len();
            self.enc
                .write_list_header(len)
                .map_err(errors::encode_error)?;
            for i in 0..len {
                // A hook may shrink the list while it is packed: report it instead of
                // writing fewer items than the header promised.
                let item = list.get_item(i).map_err(|_| changed("list"))?;
                self.pack(&item, depth + 1)?;
            }
            if list.len() != len {
                return Err(changed("list"));
            }
        } else if let Ok(dict) = obj.cast_exact::<PyDict>() {
            self.check_depth(depth)?;
            let len = dict.len();
            self.enc
                .write_map_header(len)
                .map_err(errors::encode_error)?;
            let mut pos = 0;
            let mut seen = 0usize;
            while let Some((key, value)) = ffi::dict_next(dict, &mut pos) {
                write_key(&mut self.enc, &key)?;
                self.pack(&value, depth + 1)?;
                seen += 1;
                if dict.len() != len {
                    break;
                }
            }
            if seen != len || dict.len() != len {
                return Err(changed("dictionary"));
            }
        } else {
            self.run(obj, depth)?;
        }
        Ok(())
    }

    /// Packs `root`, found at nesting depth `depth`, and everything in it, with an
    /// explicit stack instead of native recursion.
    fn run(&mut self, root: &Bound<'py, PyAny>, depth: usize) -> PyResult<()> {
        // Hooks make their own packers, so this never runs inside itself.
        self.base = depth;
        self.stack.clear();
        self.value(root)?;
        loop {
            let Some(top) = self.stack.last_mut() else {
                return Ok(());
            };
            match top.next_item(&mut self.enc)? {
                Some(item) => self.value(&item)?,
                None => {
                    self.stack.pop();
                }
            }
        }
    }

    /// Fails if a container at nesting depth `depth` would exceed `max_depth`.
    #[inline]
    fn check_depth(&self, depth: usize) -> PyResult<()> {
        if depth >= self.cfg.max_depth as usize {
            return Err(EncodeError::new_err(format!(
                "value nested more than {} levels deep (or a container that contains itself)",
                self.cfg.max_depth
            )));
        }
        Ok(())
    }

    /// The nesting depth of the next container the iterative part opens.
    #[inline]
    fn depth(&self) -> usize {
        self.base + self.stack.len()
    }

    /// Opens a container one level below the current one.
    #[inline]
    fn push(&mut self, frame: Frame<'py>) -> PyResult<()> {
        self.check_depth(self.depth())?;
        self.stack.push(frame);
        Ok(())
    }

    /// Writes a scalar, or the header of a container and opens it.
    #[inline]
    fn value(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        if self.scalar(obj)? {
            return Ok(());
        }
        if let Ok(l) = obj.cast_exact::<PyList>() {
            self.open_list(l)?;
        } else if let Ok(d) = obj.cast_exact::<PyDict>() {
            self.open_dict(d)?;
        } else if let Ok(s) = obj.cast::<Structure>() {
            self.open_struct(s.get())?;
        } else if self.cfg.flavour == Flavour::Own && obj.is_exact_instance_of::<PyTuple>() {
            self.open_sequence(obj)?;
        } else {
            self.other(obj)?;
        }
        Ok(())
    }

    /// The dispatch both packing paths share: writes `obj` if it is an exact built-in
    /// scalar (`None`, `str`, `int`, `float`, `bool`, `bytes`) and returns true;
    /// returns false for anything else (containers and other types), writing nothing.
    /// Inlined into both (measured: a call per value cost 10-15 % of packing).
    #[inline(always)]
    fn scalar(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<bool> {
        if obj.is_none() {
            self.enc.write_null();
        } else if let Ok(s) = obj.cast_exact::<PyString>() {
            self.enc
                .write_bytes_as_str(ffi::str_utf8(s.as_any())?)
                .map_err(errors::encode_error)?;
        } else if let Ok(i) = obj.cast_exact::<PyInt>() {
            self.pack_int(i.as_any())?;
        } else if let Ok(f) = obj.cast_exact::<PyFloat>() {
            self.enc.write_float(f.value());
        } else if let Ok(b) = obj.cast_exact::<PyBool>() {
            self.enc.write_bool(b.is_true());
        } else if let Ok(b) = obj.cast_exact::<PyBytes>() {
            self.enc
                .write_bytes(b.as_bytes())
                .map_err(errors::encode_error)?;
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    fn pack_int(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        match obj.extract::<i64>() {
            Ok(v) => {
                self.enc.write_int(v);
                Ok(())
            }
            Err(e) if e.is_instance_of::<PyOverflowError>(self.py) => Err(
                PyOverflowError::new_err(format!("Integer {} out of range", obj.str()?)),
            ),
            Err(e) => Err(e),
        }
    }

    fn open_list(&mut self, list: &Bound<'py, PyList>) -> PyResult<()> {
        let len = list.len();
        let frame = Frame::List {
            list: list.clone(),
            next: 0,
            len,
        };
        self.push(frame)?;
        self.enc
            .write_list_header(len)
            .map_err(errors::encode_error)
    }

    fn open_dict(&mut self, dict: &Bound<'py, PyDict>) -> PyResult<()> {
        let len = dict.len();
        let frame = Frame::Dict {
            dict: dict.clone(),
            pos: 0,
            seen: 0,
            len,
        };
        self.push(frame)?;
        self.enc.write_map_header(len).map_err(errors::encode_error)
    }

    fn open_struct(&mut self, s: &Structure) -> PyResult<()> {
        self.check_depth(self.depth())?;
        let py = self.py;
        let tag = s.tag.bind(py);
        let tag = match tag.cast::<PyBytes>() {
            Ok(b) if b.as_bytes().len() == 1 => b.as_bytes().first().copied().unwrap_or(0),
            _ => {
                return Err(PyValueError::new_err(
                    "Structure signature must be a single byte value",
                ))
            }
        };
        let fields = s.fields.bind(py).clone();
        let len = fields.len();
        self.enc
            .write_struct_header(tag, len)
            .map_err(errors::encode_error)?;
        self.push(Frame::Struct {
            fields,
            next: 0,
            len,
        })
    }

    /// Any iterable of known length (list subclasses, tuples in the own API, numpy arrays,
    /// pandas series …): `len(value)` items, as iteration yields them.
    fn open_sequence(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        self.check_depth(self.depth())?;
        let len = obj.len()?;
        self.enc
            .write_list_header(len)
            .map_err(errors::encode_error)?;
        let iter = obj.try_iter()?;
        self.push(Frame::Seq { iter, n: 0, len })
    }

    /// Any mapping (dict subclasses, pandas DataFrames …): `len(value.keys())` entries from
    /// `value.items()`.
    fn open_mapping(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        self.check_depth(self.depth())?;
        let py = self.py;
        let len = obj.call_method0(pyo3::intern!(py, "keys"))?.len()?;
        self.enc
            .write_map_header(len)
            .map_err(errors::encode_error)?;
        let iter = obj.call_method0(pyo3::intern!(py, "items"))?.try_iter()?;
        self.push(Frame::Mapping { iter, n: 0, len })
    }

    /// Calls a hook, counted by Python's recursion limit (a hook that packs again goes
    /// through here once per level, so endless re-entry raises `RecursionError`).
    fn call_hook(
        &self,
        f: &Bound<'py, PyAny>,
        obj: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _level = ffi::RecursionGuard::enter(self.py, c" while calling a boltcodec pack hook")?;
        f.call1((obj,))
    }

    /// The driver's order of checks for everything that is not an exact built-in type.
    #[inline(never)]
    fn other(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        let py = self.py;
        let is_in = |values: &Bound<'py, PyTuple>| values.iter().any(|v| obj.is(&v));
        let t = self.types()?;
        if is_in(&t.none_values) {
            self.enc.write_null();
            return Ok(());
        }
        if is_in(&t.true_values) {
            self.enc.write_bool(true);
            return Ok(());
        }
        if is_in(&t.false_values) {
            self.enc.write_bool(false);
            return Ok(());
        }
        if obj.is_instance(t.float_types.as_any())? {
            let v: f64 = obj.extract()?;
            self.enc.write_float(v);
            return Ok(());
        }
        if obj.is_instance(t.int_types.as_any())? {
            let as_int = py.get_type::<PyInt>().call1((obj,))?;
            return self.pack_int(&as_int);
        }
        if obj.is_instance_of::<PyString>() {
            return self
                .enc
                .write_bytes_as_str(ffi::str_utf8(obj)?)
                .map_err(errors::encode_error);
        }
        let t = self.types()?;
        if obj.is_instance(t.bytes_types.as_any())? {
            if let Ok(b) = obj.cast::<PyBytes>() {
                return self
                    .enc
                    .write_bytes(b.as_bytes())
                    .map_err(errors::encode_error);
            }
            if let Ok(b) = obj.cast::<PyByteArray>() {
                return self
                    .enc
                    .write_bytes(&b.to_vec())
                    .map_err(errors::encode_error);
            }
            let input = ffi::Input::new(obj)?;
            return self
                .enc
                .write_bytes(input.as_slice())
                .map_err(errors::encode_error);
        }
        if obj.is_instance(t.sequence_types.as_any())? {
            return self.open_sequence(obj);
        }
        if obj.is_instance(t.mapping_types.as_any())? {
            return self.open_mapping(obj);
        }
        let uuid_cls = UUID_CLASS.import(py, "uuid", "UUID")?;
        let is_uuid = obj.is_instance(uuid_cls.as_any())?;
        if is_uuid && self.cfg.uuid {
            let bytes = obj.getattr(pyo3::intern!(py, "bytes"))?;
            let bytes = bytes.cast::<PyBytes>()?.as_bytes();
            let arr: [u8; 16] = bytes
                .try_into()
                .map_err(|_| PyValueError::new_err("UUID.bytes is not 16 bytes long"))?;
            return self.enc.write_uuid(&arr).map_err(errors::encode_error);
        }
        if let Some(hook) = &self.cfg.hook {
            let transformed = match self.cfg.flavour {
                Flavour::Driver => {
                    if hook.is_truthy()? {
                        let f = hook.call_method1(pyo3::intern!(py, "get_transformer"), (obj,))?;
                        if f.is_none() {
                            None
                        } else {
                            Some(self.call_hook(&f, obj)?)
                        }
                    } else {
                        None
                    }
                }
                Flavour::Own => Some(self.call_hook(hook, obj)?),
            };
            if let Some(value) = transformed {
                return self.push(Frame::Hooked(Some(value)));
            }
        }
        let hint = match (is_uuid, self.cfg.flavour) {
            (true, Flavour::Driver) => " (requires Bolt protocol version 6.1 or newer)",
            (true, Flavour::Own) => " (UUIDs need PackStream v2: pass uuid=True)",
            _ => "",
        };
        Err(PyValueError::new_err(format!(
            "Values of type {} are not supported{hint}",
            obj.get_type().str()?
        )))
    }
}

/// Small extension: write already-UTF-8 bytes as a PackStream string.
trait WriteUtf8 {
    fn write_bytes_as_str(&mut self, utf8: &[u8]) -> Result<(), CoreEncodeError>;
}

impl WriteUtf8 for Encoder<Vec<u8>> {
    #[inline]
    fn write_bytes_as_str(&mut self, utf8: &[u8]) -> Result<(), CoreEncodeError> {
        match core::str::from_utf8(utf8) {
            Ok(s) => self.write_str(s),
            // CPython's UTF-8 of a str is always valid; keep the bytes rather than panic.
            Err(_) => self.write_str(&String::from_utf8_lossy(utf8)),
        }
    }
}

/// Packs one value into new `bytes`.
pub(crate) fn pack<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    cfg: &PackConfig<'py>,
) -> PyResult<Bound<'py, PyBytes>> {
    let opts = EncodeOptions {
        uuid: cfg.uuid,
        ..EncodeOptions::default()
    };
    let mut p = Packer {
        py,
        cfg,
        enc: Encoder::with_options(Vec::with_capacity(64), opts),
        types: None,
        base: 0,
        stack: Vec::new(),
    };
    p.pack(obj, 0)?;
    Ok(PyBytes::new(py, p.enc.get_ref()))
}
