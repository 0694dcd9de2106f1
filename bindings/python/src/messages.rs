//! The request objects of `boltcodec.bolt` (Python dataclasses) → the core's typed
//! [`Request`]s, and the core's metadata values → Python objects.
//!
//! Conversion only: every field is handed to the core's builder of the same name
//! (`Run::with_db`, `Hello::with_disabled_notifications`, …), which knows the wire keys
//! and what each version expects. Dicts of values are packed with the binding's own
//! packer (the official driver's type rules) and read back as the core's borrowed values.

use bolt::message::{
    Begin, BoltAgent, Dict, Discard, Hello, Logon, Pull, Request, Route, Run, Telemetry,
};
use bolt::BoltVersion;
use packstream::{EncodeOptions, Encoder, Value, ValueRef};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::decode::{self, Config};
use crate::encode::{self, Flavour, PackConfig};

/// A Python value packed as PackStream: the bytes outlive the borrowed values read
/// back from them.
struct Packed(Vec<u8>);

impl Packed {
    /// Packs `obj` (a dict, or `None` for "absent").
    fn of(obj: &Bound<'_, PyAny>, uuid: bool) -> PyResult<Option<Packed>> {
        if obj.is_none() {
            return Ok(None);
        }
        let cfg = PackConfig {
            flavour: Flavour::Own,
            uuid,
            hook: None,
            max_depth: encode::DEFAULT_MAX_DEPTH,
        };
        Ok(Some(Packed(
            encode::pack(obj.py(), obj, &cfg)?.as_bytes().to_vec(),
        )))
    }

    /// The packed dict as the core's [`Dict`].
    fn dict(&self, what: &str) -> PyResult<Dict<'_>> {
        let opts = packstream::DecodeOptions::default().with_uuid(true);
        let value = ValueRef::decode_exact_with(&self.0, &opts)
            .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))?;
        match value.into_map() {
            Ok(entries) => Ok(Dict::from(entries)),
            Err(_) => Err(PyTypeError::new_err(format!("{what} must be a dict"))),
        }
    }
}

/// An optional attribute as `T` (`None` when absent or `None`).
fn opt<'py, T: FromPyObjectOwned<'py>>(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Option<T>> {
    let v = obj.getattr(name)?;
    if v.is_none() {
        Ok(None)
    } else {
        v.extract().map(Some).map_err(Into::into)
    }
}

/// The transaction settings shared by RUN and BEGIN, read from the Python object.
struct TxSettings {
    bookmarks: Option<Vec<String>>,
    tx_timeout: Option<i64>,
    tx_metadata: Option<Packed>,
    mode: Option<String>,
    db: Option<String>,
    imp_user: Option<String>,
    severity: Option<String>,
    disabled: Option<Vec<String>>,
    extra: Option<Packed>,
}

impl TxSettings {
    fn read(obj: &Bound<'_, PyAny>, uuid: bool) -> PyResult<Self> {
        Ok(TxSettings {
            bookmarks: opt(obj, "bookmarks")?,
            tx_timeout: opt(obj, "tx_timeout")?,
            tx_metadata: Packed::of(&obj.getattr("tx_metadata")?, uuid)?,
            mode: opt(obj, "mode")?,
            db: opt(obj, "db")?,
            imp_user: opt(obj, "imp_user")?,
            severity: opt(obj, "notifications_minimum_severity")?,
            disabled: opt(obj, "notifications_disabled")?,
            extra: Packed::of(&obj.getattr("extra")?, uuid)?,
        })
    }
}

/// Applies [`TxSettings`] through the builder methods RUN and BEGIN share.
macro_rules! apply_tx {
    ($req:expr, $tx:expr, $v:expr) => {{
        let tx = $tx;
        let mut r = $req;
        if let Some(p) = &tx.extra {
            for (k, val) in p.dict("extra")? {
                r = r.with_extra(k, val);
            }
        }
        if let Some(b) = &tx.bookmarks {
            r = r.with_bookmarks(b.iter().map(String::as_str));
        }
        if let Some(t) = tx.tx_timeout {
            r = r.with_tx_timeout(t);
        }
        if let Some(m) = &tx.tx_metadata {
            r = r.with_tx_metadata(m.dict("tx_metadata")?);
        }
        if let Some(m) = &tx.mode {
            r = r.with_mode(m);
        }
        if let Some(d) = &tx.db {
            r = r.with_db(d);
        }
        if let Some(u) = &tx.imp_user {
            r = r.with_imp_user(u);
        }
        if let Some(s) = &tx.severity {
            r = r.with_notifications_minimum_severity(s);
        }
        if let Some(g) = &tx.disabled {
            r = r.with_disabled_notifications($v, g.iter().map(String::as_str));
        }
        r
    }};
}

/// A PULL or DISCARD (`$ty`) from the `n` and `qid` of the Python object.
macro_rules! n_qid {
    ($ty:ident, $obj:expr) => {{
        let mut r = $ty::new($obj.getattr("n")?.extract()?);
        if let Some(q) = opt::<i64>($obj, "qid")? {
            r = r.with_qid(q);
        }
        r
    }};
}

/// Builds the core request for the Python request `obj` on version `v` and hands it to
/// `f`. The request's name comes from the class attribute `_name` (`"RUN"`, …).
pub(crate) fn with_request<R>(
    obj: &Bound<'_, PyAny>,
    v: BoltVersion,
    f: impl FnOnce(&Request<'_>) -> R,
) -> PyResult<R> {
    let uuid = v.has_uuid();
    let name: String = obj
        .getattr("_name")
        .and_then(|n| n.extract())
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "not a boltcodec.bolt request: {}",
                obj.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
    Ok(match name.as_str() {
        "HELLO" => {
            let user_agent: String = obj.getattr("user_agent")?.extract()?;
            let routing = Packed::of(&obj.getattr("routing")?, uuid)?;
            let auth = Packed::of(&obj.getattr("auth")?, uuid)?;
            let extra = Packed::of(&obj.getattr("extra")?, uuid)?;
            let agent: Option<[Option<String>; 4]> =
                match opt::<Bound<'_, PyAny>>(obj, "bolt_agent")? {
                    None => None,
                    Some(a) => Some([
                        Some(a.get_item("product")?.extract()?),
                        opt_item(&a, "platform")?,
                        opt_item(&a, "language")?,
                        opt_item(&a, "language_details")?,
                    ]),
                };
            let patch: Option<Vec<String>> = opt(obj, "patch_bolt")?;
            let severity: Option<String> = opt(obj, "notifications_minimum_severity")?;
            let disabled: Option<Vec<String>> = opt(obj, "notifications_disabled")?;
            let mut h = Hello::new(&user_agent);
            if let Some(e) = &extra {
                for (k, val) in e.dict("extra")? {
                    h = h.with_extra(k, val);
                }
            }
            if let Some(r) = &routing {
                h = h.with_routing(r.dict("routing")?);
            }
            if let Some(a) = &auth {
                h = h.with_auth(a.dict("auth")?);
            }
            if let Some([Some(product), platform, language, details]) = &agent {
                let mut ba = BoltAgent::new(product);
                if let Some(p) = platform {
                    ba = ba.with_platform(p);
                }
                if let Some(l) = language {
                    ba = ba.with_language(l);
                }
                if let Some(d) = details {
                    ba = ba.with_language_details(d);
                }
                h = h.with_bolt_agent(ba);
            }
            if let Some(p) = &patch {
                h = h.with_patch_bolt(p.iter().map(String::as_str));
            }
            if let Some(s) = &severity {
                h = h.with_notifications_minimum_severity(s);
            }
            if let Some(g) = &disabled {
                h = h.with_disabled_notifications(v, g.iter().map(String::as_str));
            }
            let out = f(&Request::Hello(h));
            out
        }
        "LOGON" => {
            let auth = Packed::of(&obj.getattr("auth")?, uuid)?;
            let logon = match &auth {
                Some(a) => Logon::new(a.dict("auth")?),
                None => Logon::none(),
            };
            let out = f(&Request::Logon(logon));
            out
        }
        "RUN" => {
            let query: String = obj.getattr("query")?.extract()?;
            let params = Packed::of(&obj.getattr("parameters")?, uuid)?;
            let tx = TxSettings::read(obj, uuid)?;
            let mut run = Run::new(&query);
            if let Some(p) = &params {
                run = run.with_parameters(p.dict("parameters")?);
            }
            let out = f(&Request::Run(apply_tx!(run, &tx, v)));
            out
        }
        "BEGIN" => {
            let tx = TxSettings::read(obj, uuid)?;
            let out = f(&Request::Begin(apply_tx!(Begin::new(), &tx, v)));
            out
        }
        "PULL" => f(&Request::Pull(n_qid!(Pull, obj))),
        "DISCARD" => f(&Request::Discard(n_qid!(Discard, obj))),
        "ROUTE" => {
            let routing = Packed::of(&obj.getattr("routing")?, uuid)?;
            let bookmarks: Option<Vec<String>> = opt(obj, "bookmarks")?;
            let db: Option<String> = opt(obj, "db")?;
            let imp_user: Option<String> = opt(obj, "imp_user")?;
            let mut r = Route::new(match &routing {
                Some(p) => p.dict("routing")?,
                None => Dict::new(),
            });
            if let Some(b) = &bookmarks {
                r = r.with_bookmarks(b.iter().map(String::as_str));
            }
            if let Some(d) = &db {
                r = r.with_db(d);
            }
            if let Some(u) = &imp_user {
                r = r.with_imp_user(u);
            }
            let out = f(&Request::Route(r));
            out
        }
        "TELEMETRY" => f(&Request::Telemetry(Telemetry {
            api: obj.getattr("api")?.extract()?,
        })),
        "COMMIT" => f(&Request::Commit),
        "ROLLBACK" => f(&Request::Rollback),
        "RESET" => f(&Request::Reset),
        "LOGOFF" => f(&Request::Logoff),
        "GOODBYE" => f(&Request::Goodbye),
        other => return Err(PyValueError::new_err(format!("unknown request {other:?}"))),
    })
}

/// An optional item of a dict-like `obj`.
fn opt_item(obj: &Bound<'_, PyAny>, key: &str) -> PyResult<Option<String>> {
    match obj.call_method1("get", (key,)) {
        Ok(v) if v.is_none() => Ok(None),
        Ok(v) => v.extract().map(Some),
        Err(e) => Err(e),
    }
}

/// A core value (SUCCESS or FAILURE metadata) as a Python object, through the same
/// decoder as everything else (`struct_hook` applies to structures inside).
pub(crate) fn value_to_py<'py>(
    py: Python<'py>,
    value: &Value,
    cfg: &Config<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut bytes = Vec::new();
    let opts = EncodeOptions {
        uuid: true,
        ..EncodeOptions::default()
    };
    Encoder::with_options(&mut bytes, opts)
        .write_value(value)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    decode::decode_exact(py, &bytes, cfg).map_err(|e| e.into_pyerr(py, 0, &bytes))
}
