//! Bolt requests from JS: the request builders of `lib/connection.js` give a type name and
//! their options packed as one PackStream map (by the JS encoder, so values convert as for
//! `pack`); this module reads the options by name and builds the core's typed request
//! with the core's own builders. Which keys a message has, their wire names and what each
//! version accepts stay in `bolt::message`.

use bolt::message::{
    Begin, BoltAgent, Dict, Discard, Hello, Logon, Pull, Request, Route, Run, Telemetry,
};
use bolt::BoltVersion;
use packstream::{DecodeOptions, ValueRef};

/// The largest integer a JS `number` holds exactly.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// Why a request could not be built from its options (a caller error, before anything
/// is queued).
#[derive(Debug)]
pub(crate) struct BadRequest(pub(crate) String);

type Built<T> = Result<T, BadRequest>;

fn bad<T>(message: String) -> Built<T> {
    Err(BadRequest(message))
}

/// The packed options of one request, read by name; every key must be read once, so that
/// a misspelt option is an error rather than silently ignored.
struct Options<'a> {
    what: &'a str,
    entries: Vec<(&'a str, ValueRef<'a>)>,
    used: Vec<bool>,
}

impl<'a> Options<'a> {
    fn decode(what: &'a str, bytes: &'a [u8], version: BoltVersion) -> Built<Self> {
        let opts = DecodeOptions::default().with_uuid(version.has_uuid());
        let entries = match ValueRef::decode_with(bytes, &opts) {
            Ok((value, used)) if used == bytes.len() => match value.into_map() {
                Ok(entries) => entries,
                Err(_) => return bad(format!("{what}: the options must be one map")),
            },
            Ok(_) => return bad(format!("{what}: the options must be one map")),
            Err(e) => return bad(format!("{what}: options could not be read: {e}")),
        };
        let used = vec![false; entries.len()];
        Ok(Options {
            what,
            entries,
            used,
        })
    }

    /// The value of `key`, unless absent or null.
    fn take(&mut self, key: &str) -> Option<ValueRef<'a>> {
        let i = self.entries.iter().position(|(k, _)| *k == key)?;
        self.used[i] = true;
        match &self.entries[i].1 {
            ValueRef::Null => None,
            v => Some(v.clone()),
        }
    }

    fn string(&mut self, key: &str) -> Built<Option<&'a str>> {
        match self.take(key) {
            None => Ok(None),
            Some(ValueRef::String(s)) => Ok(Some(s)),
            Some(_) => bad(format!("{}: option {key} must be a string", self.what)),
        }
    }

    /// An integer: a PackStream Integer (a JS `bigint`) or an integral Float (a JS
    /// `number`, which `pack` writes as a Float).
    fn int(&mut self, key: &str) -> Built<Option<i64>> {
        match self.take(key) {
            None => Ok(None),
            Some(ValueRef::Int(i)) => Ok(Some(i)),
            Some(ValueRef::Float(f)) if f.fract() == 0.0 && (-MAX_SAFE..=MAX_SAFE).contains(&f) => {
                Ok(Some(f as i64))
            }
            Some(_) => bad(format!("{}: option {key} must be an integer", self.what)),
        }
    }

    fn map(&mut self, key: &str) -> Built<Option<Dict<'a>>> {
        match self.take(key).map(ValueRef::into_map) {
            None => Ok(None),
            Some(Ok(entries)) => Ok(Some(Dict::from(entries))),
            Some(Err(_)) => bad(format!("{}: option {key} must be an object", self.what)),
        }
    }

    fn strings(&mut self, key: &str) -> Built<Option<Vec<&'a str>>> {
        match self.take(key).map(ValueRef::into_list) {
            None => Ok(None),
            Some(Ok(items)) => items
                .iter()
                .map(|v| match v {
                    ValueRef::String(s) => Ok(*s),
                    _ => bad(format!(
                        "{}: option {key} must be a list of strings",
                        self.what
                    )),
                })
                .collect::<Built<Vec<_>>>()
                .map(Some),
            Some(Err(_)) => bad(format!(
                "{}: option {key} must be a list of strings",
                self.what
            )),
        }
    }

    /// Fails on the first option no reader took.
    fn finish(self) -> Built<()> {
        match self.used.iter().position(|u| !u) {
            Some(i) => bad(format!(
                "{}: unknown option {}",
                self.what, self.entries[i].0
            )),
            None => Ok(()),
        }
    }
}

/// `extra` entries added one by one, after the named options.
macro_rules! with_extra {
    ($o:expr, $m:expr) => {{
        let mut m = $m;
        if let Some(extra) = $o.map("extra")? {
            for (k, x) in extra {
                m = m.with_extra(k, x);
            }
        }
        m
    }};
}

/// The transaction settings of an auto-commit RUN and of BEGIN, through the core's
/// builders (one macro there defines them for both types).
macro_rules! tx_settings {
    ($o:expr, $m:expr, $v:expr) => {{
        let (o, mut m, v) = ($o, $m, $v);
        if let Some(b) = o.strings("bookmarks")? {
            m = m.with_bookmarks(b);
        }
        if let Some(t) = o.int("txTimeout")? {
            m = m.with_tx_timeout(t);
        }
        if let Some(d) = o.map("txMetadata")? {
            m = m.with_tx_metadata(d);
        }
        if let Some(s) = o.string("mode")? {
            m = m.with_mode(s);
        }
        if let Some(s) = o.string("db")? {
            m = m.with_db(s);
        }
        if let Some(s) = o.string("impUser")? {
            m = m.with_imp_user(s);
        }
        if let Some(s) = o.string("notificationsMinimumSeverity")? {
            m = m.with_notifications_minimum_severity(s);
        }
        if let Some(g) = o.strings("notificationsDisabledClassifications")? {
            m = m.with_disabled_notifications(v, g);
        }
        with_extra!(o, m)
    }};
}

/// Builds the request `kind` (its protocol name, `"RUN"`) from its packed options.
pub(crate) fn build<'a>(
    kind: &'a str,
    packed: &'a [u8],
    version: BoltVersion,
) -> Built<Request<'a>> {
    let mut o = Options::decode(kind, packed, version)?;
    let request = match kind {
        "HELLO" => {
            let Some(agent) = o.string("userAgent")? else {
                return bad("HELLO: userAgent is required".to_owned());
            };
            let mut h = Hello::new(agent);
            if let Some(mut b) = o.map("boltAgent")? {
                let Some(product) = b.remove("product") else {
                    return bad("HELLO: boltAgent needs a product".to_owned());
                };
                let text = |v: Option<ValueRef<'a>>| match v {
                    Some(ValueRef::String(s)) => Ok(Some(s)),
                    None | Some(ValueRef::Null) => Ok(None),
                    Some(_) => bad("HELLO: boltAgent entries must be strings".to_owned()),
                };
                let Some(product) = text(Some(product))? else {
                    return bad("HELLO: boltAgent needs a product".to_owned());
                };
                let mut a = BoltAgent::new(product);
                a.platform = text(b.remove("platform"))?;
                a.language = text(b.remove("language"))?;
                a.language_details = text(b.remove("languageDetails"))?;
                if let Some(k) = b.keys().next() {
                    return bad(format!("HELLO: unknown boltAgent entry {k}"));
                }
                h = h.with_bolt_agent(a);
            }
            if let Some(r) = o.map("routing")? {
                h = h.with_routing(r);
            }
            if let Some(p) = o.strings("patchBolt")? {
                h = h.with_patch_bolt(p);
            }
            if let Some(auth) = o.map("auth")? {
                h = h.with_auth(auth);
            }
            if let Some(s) = o.string("notificationsMinimumSeverity")? {
                h = h.with_notifications_minimum_severity(s);
            }
            if let Some(g) = o.strings("notificationsDisabledClassifications")? {
                h = h.with_disabled_notifications(version, g);
            }
            Request::Hello(with_extra!(o, h))
        }
        "LOGON" => {
            let Some(auth) = o.map("auth")? else {
                return bad("LOGON: auth is required".to_owned());
            };
            Request::Logon(Logon::new(auth))
        }
        "RUN" => {
            let Some(query) = o.string("query")? else {
                return bad("RUN: query is required".to_owned());
            };
            let mut run = Run::new(query);
            if let Some(p) = o.map("parameters")? {
                run = run.with_parameters(p);
            }
            Request::Run(tx_settings!(&mut o, run, version))
        }
        "BEGIN" => Request::Begin(tx_settings!(&mut o, Begin::new(), version)),
        "PULL" | "DISCARD" => {
            let n = o.int("n")?.unwrap_or(-1);
            let qid = o.int("qid")?;
            if kind == "PULL" {
                let mut p = Pull::new(n);
                if let Some(q) = qid {
                    p = p.with_qid(q);
                }
                Request::Pull(with_extra!(o, p))
            } else {
                let mut d = Discard::new(n);
                if let Some(q) = qid {
                    d = d.with_qid(q);
                }
                Request::Discard(with_extra!(o, d))
            }
        }
        "ROUTE" => {
            let mut r = Route::new(o.map("routing")?.unwrap_or_default());
            if let Some(b) = o.strings("bookmarks")? {
                r = r.with_bookmarks(b);
            }
            if let Some(s) = o.string("db")? {
                r = r.with_db(s);
            }
            if let Some(s) = o.string("impUser")? {
                r = r.with_imp_user(s);
            }
            Request::Route(with_extra!(o, r))
        }
        "TELEMETRY" => {
            let Some(api) = o.int("api")? else {
                return bad("TELEMETRY: api is required".to_owned());
            };
            Request::Telemetry(Telemetry { api })
        }
        "LOGOFF" => Request::Logoff,
        "COMMIT" => Request::Commit,
        "ROLLBACK" => Request::Rollback,
        "RESET" => Request::Reset,
        "GOODBYE" => Request::Goodbye,
        _ => return bad(format!("unknown request type {kind:?}")),
    };
    o.finish()?;
    Ok(request)
}
