//! Every value structure in the Bolt sessions captured from real Neo4j servers
//! (`tests/captures/` at the repository root, format in its README) read with
//! `bolt::structs` for the connection's version:
//!
//! * every structure nested in a RECORD (server) or in RUN parameters (client) is read,
//!   and none comes out `Broken`;
//! * re-encoding each one for the same version gives exactly its original bytes;
//! * the values match the header's "driver-decoded result" lines (what the official
//!   Python driver made of them), compared through a Python-`repr` rendering;
//! * case-specific checks: far dates, path directions, vector elements, points.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path as FsPath;

use bolt::structs::{
    BoltStruct, Date, DateTime, EncodeStruct, LocalDateTime, LocalTime, StructKind, Vector,
    VectorType,
};
use bolt::BoltVersion;
use packstream::{DecodeOptions, Decoder, StructRef, Token, ValueRef};
use test_support::{capture_files, hex};

struct Msg {
    from_server: bool,
    name: String,
    bytes: Vec<u8>,
}

struct Capture {
    name: String,
    dir: String,
    header_version: Option<BoltVersion>,
    handshake_version: Option<BoltVersion>,
    query: String,
    /// (field name, Python repr) from "driver-decoded result" lines.
    driver: Vec<(String, String)>,
    messages: Vec<Msg>,
}

fn parse(path: &FsPath) -> Capture {
    let text = fs::read_to_string(path).expect("read capture");
    let mut c = Capture {
        name: path.file_stem().unwrap().to_string_lossy().into_owned(),
        dir: path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        header_version: None,
        handshake_version: None,
        query: String::new(),
        driver: Vec::new(),
        messages: Vec::new(),
    };
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("# bolt negotiated: ") {
            c.header_version = v.parse().ok();
        } else if let Some(q) = line.strip_prefix("# query: ") {
            c.query = q.to_owned();
        } else if let Some(r) = line.strip_prefix("# driver-decoded result: ") {
            if let Some((name, repr)) = r.split_once(" = ") {
                if name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                {
                    c.driver.push((name.to_owned(), repr.to_owned()));
                }
            }
        } else if let Some(rest) = line
            .strip_prefix("#   = agreed version ")
            .or_else(|| line.strip_prefix("#   = chosen version "))
        {
            let v = rest.split_whitespace().next().unwrap();
            c.handshake_version = Some(v.parse().expect("handshake version"));
        } else if line.starts_with("MSG ") {
            let t: Vec<&str> = line.split_whitespace().collect();
            let [_, dir, _seq, name, _offset, _chunks, h] = t[..] else {
                panic!("bad MSG line {line}");
            };
            c.messages.push(Msg {
                from_server: dir == "S>C",
                name: name.to_owned(),
                bytes: hex(h),
            });
        }
    }
    c
}

/// Whether `patch_bolt` of the first message in one direction (HELLO, or the server's
/// reply to it) contains "utc"; `None` when the server's reply is not a SUCCESS.
fn utc_patch_in(c: &Capture, from_server: bool) -> Option<bool> {
    let m = c.messages.iter().find(|m| m.from_server == from_server)?;
    if from_server && m.name != "SUCCESS" {
        return None;
    }
    let v = ValueRef::decode_exact(&m.bytes).expect("first message decodes");
    let meta = &v.as_struct().unwrap().fields[0];
    Some(
        meta.get("patch_bolt")
            .and_then(ValueRef::as_list)
            .is_some_and(|l| l.iter().any(|p| p.as_str() == Some("utc"))),
    )
}

fn version_of(c: &Capture) -> BoltVersion {
    let number = match (c.header_version, c.handshake_version) {
        (Some(h), Some(s)) => {
            assert_eq!(h, s, "{}: header and handshake disagree", c.name);
            h
        }
        (Some(v), None) | (None, Some(v)) => v,
        (None, None) => panic!("{}: no negotiated version", c.name),
    };
    if !number.supports_utc_patch() {
        return number;
    }
    // The directory says which 4.4 set this is; the HELLO exchange must agree.
    let by_dir = !c.dir.ends_with("no-utc-patch");
    assert_eq!(
        utc_patch_in(c, false),
        Some(by_dir),
        "{}/{}: HELLO",
        c.dir,
        c.name
    );
    if let Some(accepted) = utc_patch_in(c, true) {
        assert_eq!(accepted, by_dir, "{}/{}: HELLO SUCCESS", c.dir, c.name);
    }
    number.with_utc_patch(by_dir)
}

/// Byte spans of every structure in `bytes` (a whole message), outermost first.
fn struct_spans(bytes: &[u8], opts: DecodeOptions) -> Vec<(usize, usize)> {
    let mut dec = Decoder::with_options(bytes, opts);
    let mut open: Vec<(usize, usize)> = Vec::new(); // (start, depth before)
    let mut spans = Vec::new();
    loop {
        let start = dec.position();
        let depth = dec.depth();
        let tok = dec.next_token().expect("token");
        if let Token::Struct { len, .. } = tok {
            if len == 0 {
                spans.push((start, dec.position()));
            } else {
                open.push((start, depth));
            }
        }
        while let Some(&(s, d)) = open.last() {
            if dec.depth() > d {
                break;
            }
            open.pop();
            spans.push((s, dec.position()));
        }
        if dec.is_complete() {
            break;
        }
    }
    spans.sort_unstable();
    spans
}

#[derive(Default)]
struct Stats {
    files: usize,
    structs: usize,
    by_kind: BTreeMap<&'static str, usize>,
    driver_checks: usize,
    case_checks: usize,
}

fn walk<'a>(v: &ValueRef<'a>, f: &mut impl FnMut(&StructRef<'a>)) {
    match v {
        ValueRef::List(items) => items.iter().for_each(|i| walk(i, f)),
        ValueRef::Map(entries) => entries.iter().for_each(|(_, i)| walk(i, f)),
        ValueRef::Struct(s) => {
            f(s);
            s.fields.iter().for_each(|i| walk(i, f));
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------
// Python repr of decoded values, the way the neo4j driver prints them.
// ---------------------------------------------------------------------------------------

fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap();
    let exp: i32 = exp.parse().unwrap();
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        let body = if point <= 0 {
            format!("0.{}{}", "0".repeat((-point) as usize), digits)
        } else if point as usize >= digits.len() {
            format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let es = if exp < 0 { '-' } else { '+' };
        format!("{sign}{m}e{es}{:02}", exp.unsigned_abs())
    }
}

fn py_quote(body: impl Iterator<Item = char> + Clone, bytes: bool) -> String {
    let has_single = body.clone().any(|c| c == '\'');
    let has_double = body.clone().any(|c| c == '"');
    let q = if has_single && !has_double { '"' } else { '\'' };
    let mut out = String::new();
    if bytes {
        out.push('b');
    }
    out.push(q);
    for c in body {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7F || (bytes && c as u32 > 0x7F) => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

fn py_str(s: &str) -> String {
    py_quote(s.chars(), false)
}

fn py_bytes(b: &[u8]) -> String {
    py_quote(b.iter().map(|&x| x as char), true)
}

fn py_tz(offset: i64) -> String {
    if offset == 0 {
        "<UTC>".into()
    } else {
        format!("pytz.FixedOffset({})", offset / 60)
    }
}

fn py_time(t: LocalTime) -> String {
    format!(
        "{}, {}, {}, {}",
        t.hour(),
        t.minute(),
        t.second(),
        t.nanosecond()
    )
}

fn py_datetime(ldt: LocalDateTime) -> String {
    let (y, m, d) = ldt.date().ymd();
    format!("neo4j.time.DateTime({y}, {m}, {d}, {}", py_time(ldt.time()))
}

/// A zone-id DateTime the driver printed: local wall-clock time, zone name, and the
/// tzinfo text (which holds the offset).
struct ZonedRepr {
    local: LocalDateTime,
    zone: String,
    offset: i64,
    tzinfo: String,
}

/// Finds `neo4j.time.DateTime(…, tzinfo=<DstTzInfo 'Z' ABBR±H:MM:SS STD>)` and
/// `…tzinfo=<UTC>)` occurrences in an expected repr.
fn zoned_reprs(expected: &str) -> Vec<ZonedRepr> {
    let mut out = Vec::new();
    let mut rest = expected;
    while let Some(i) = rest.find("neo4j.time.DateTime(") {
        rest = &rest[i + "neo4j.time.DateTime(".len()..];
        let Some((args, _)) = rest.split_once(", tzinfo=") else {
            continue;
        };
        if args.contains(')') {
            continue; // no tzinfo on this one
        }
        let n: Vec<i64> = args.split(", ").map(|a| a.parse().unwrap()).collect();
        let [y, mo, d, h, mi, s, ns] = n[..] else {
            panic!("DateTime repr {args}")
        };
        let local = LocalDateTime::new(
            Date::from_ymd(y, mo as u8, d as u8).unwrap(),
            LocalTime::new(h as u8, mi as u8, s as u8, ns as u32).unwrap(),
        )
        .unwrap();
        let tz = &rest[args.len() + ", tzinfo=".len()..];
        if tz.starts_with("<UTC>") {
            out.push(ZonedRepr {
                local,
                zone: "UTC".into(),
                offset: 0,
                tzinfo: "<UTC>".into(),
            });
        } else if let Some(dst) = tz.strip_prefix("<DstTzInfo '") {
            let end = dst.find('>').unwrap();
            let tzinfo = format!("<DstTzInfo '{}>", &dst[..end]);
            let (zone, rest_tz) = dst[..end].split_once("' ").unwrap();
            // ABBR then a Python timedelta: "+1:00:00" or "-1 day, 19:00:00", then STD/DST.
            let td_start = rest_tz.find(['+', '-']).unwrap();
            let td = rest_tz[td_start..].rsplit_once(' ').unwrap().0;
            let offset = if let Some(pos) = td.strip_prefix('+') {
                hms(pos)
            } else {
                let (days, clock) = td.split_once(" day, ").unwrap();
                days.parse::<i64>().unwrap() * 86_400 + hms(clock)
            };
            out.push(ZonedRepr {
                local,
                zone: zone.to_owned(),
                offset,
                tzinfo,
            });
        }
    }
    out
}

fn hms(s: &str) -> i64 {
    let p: Vec<i64> = s.split(':').map(|x| x.parse().unwrap()).collect();
    p[0] * 3600 + p[1] * 60 + p[2]
}

fn zoned(zones: &[ZonedRepr], zone: &str, local: Option<LocalDateTime>, utc: i64) -> String {
    let found = zones.iter().find(|z| {
        z.zone == zone
            && match local {
                Some(l) => l == z.local,
                None => utc.checked_add(z.offset) == Some(z.local.seconds),
            }
    });
    match found {
        Some(z) => format!("{}, tzinfo={})", py_datetime(z.local), z.tzinfo),
        None => format!("<no driver zone matching {zone} at {utc}>"),
    }
}

fn py_node(
    element_id: String,
    labels: &[&str],
    props: &[(&str, ValueRef<'_>)],
    v: BoltVersion,
    z: &[ZonedRepr],
) -> String {
    let labels: BTreeSet<String> = labels.iter().map(|l| py_str(l)).collect();
    let labels = if labels.is_empty() {
        "frozenset()".to_owned()
    } else {
        format!(
            "frozenset({{{}}})",
            labels.into_iter().collect::<Vec<_>>().join(", ")
        )
    };
    format!(
        "<Node element_id={} labels={labels} properties={}>",
        py_str(&element_id),
        py_map(props, v, z)
    )
}

fn py_map(entries: &[(&str, ValueRef<'_>)], v: BoltVersion, z: &[ZonedRepr]) -> String {
    let items: Vec<String> = entries
        .iter()
        .map(|(k, x)| format!("{}: {}", py_str(k), py(x, v, z)))
        .collect();
    format!("{{{}}}", items.join(", "))
}

fn py_uuid(u: &[u8; 16]) -> String {
    let h: String = u.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "UUID('{}-{}-{}-{}-{}')",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

fn eid(e: Option<&str>, id: i64) -> String {
    e.map_or_else(|| id.to_string(), str::to_owned)
}

fn py(value: &ValueRef<'_>, v: BoltVersion, z: &[ZonedRepr]) -> String {
    match value {
        ValueRef::Null => "None".into(),
        ValueRef::Bool(b) => if *b { "True" } else { "False" }.into(),
        ValueRef::Int(i) => i.to_string(),
        ValueRef::Float(x) => py_float(*x),
        ValueRef::String(s) => py_str(s),
        ValueRef::Bytes(b) => py_bytes(b),
        ValueRef::List(items) => {
            let items: Vec<String> = items.iter().map(|x| py(x, v, z)).collect();
            format!("[{}]", items.join(", "))
        }
        ValueRef::Map(m) => py_map(m, v, z),
        ValueRef::Uuid(u) => py_uuid(u),
        ValueRef::Struct(s) => py_struct(&BoltStruct::from_struct(s, v), v, z),
    }
}

fn py_struct(s: &BoltStruct<'_>, v: BoltVersion, z: &[ZonedRepr]) -> String {
    match s {
        BoltStruct::Node(n) => py_node(eid(n.element_id, n.id), &n.labels, &n.properties, v, z),
        BoltStruct::Relationship(r) => format!(
            "<Relationship element_id={} nodes=({}, {}) type={} properties={}>",
            py_str(&eid(r.element_id, r.id)),
            py_node(
                eid(r.start_node_element_id, r.start_node_id),
                &[],
                &[],
                v,
                z
            ),
            py_node(eid(r.end_node_element_id, r.end_node_id), &[], &[], v, z),
            py_str(r.rel_type),
            py_map(&r.properties, v, z)
        ),
        BoltStruct::Path(p) => {
            let node = |n: &bolt::structs::Node<'_>| {
                py_node(eid(n.element_id, n.id), &n.labels, &n.properties, v, z)
            };
            format!(
                "<Path start={} end={} size={}>",
                node(p.start()),
                node(p.end()),
                p.len()
            )
        }
        BoltStruct::Date(d) => {
            let (y, m, dd) = d.ymd();
            format!("neo4j.time.Date({y}, {m}, {dd})")
        }
        BoltStruct::Time(t) => format!(
            "neo4j.time.Time({}, tzinfo={})",
            py_time(t.local_time()),
            py_tz(t.tz_offset_seconds)
        ),
        BoltStruct::LocalTime(t) => format!("neo4j.time.Time({})", py_time(*t)),
        BoltStruct::LocalDateTime(t) => format!("{})", py_datetime(*t)),
        BoltStruct::DateTime(t) => format!(
            "{}, tzinfo={})",
            py_datetime(t.local().unwrap()),
            py_tz(t.tz_offset_seconds)
        ),
        BoltStruct::LegacyDateTime(t) => format!(
            "{}, tzinfo={})",
            py_datetime(t.local()),
            py_tz(t.tz_offset_seconds)
        ),
        BoltStruct::DateTimeZoneId(t) => zoned(z, t.tz_id, None, t.seconds),
        BoltStruct::LegacyDateTimeZoneId(t) => zoned(z, t.tz_id, Some(t.local()), t.seconds),
        BoltStruct::Duration(d) => {
            let total = d.total_nanoseconds();
            let (secs, nanos) = (total / 1_000_000_000, total % 1_000_000_000);
            format!(
                "neo4j.time.Duration(months={}, days={}, seconds={secs}, nanoseconds={nanos})",
                d.months, d.days
            )
        }
        BoltStruct::Point2D(p) => {
            let class = if p.srid == 4326 {
                "WGS84Point"
            } else {
                "CartesianPoint"
            };
            format!("{class}({}, {})", py_float(p.x), py_float(p.y))
        }
        BoltStruct::Point3D(p) => {
            let class = if p.srid == 4979 {
                "WGS84Point"
            } else {
                "CartesianPoint"
            };
            format!(
                "{class}({}, {}, {})",
                py_float(p.x),
                py_float(p.y),
                py_float(p.z)
            )
        }
        BoltStruct::Vector(vec) => {
            format!("Vector({}, '{}')", py_bytes(vec.data()), vec.element_type())
        }
        other => format!("<unexpected {other}>"),
    }
}

/// Sorts the items of every `frozenset({…})` (the driver prints them in hash order).
fn normalise_frozensets(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("frozenset({") {
        out.push_str(&rest[..i + "frozenset({".len()]);
        rest = &rest[i + "frozenset({".len()..];
        let end = rest.find("})").unwrap();
        let mut items: Vec<&str> = rest[..end].split(", ").collect();
        items.sort_unstable();
        out.push_str(&items.join(", "));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Compares a rendering with the driver's text; a long driver text is cut as
/// `<prefix>... (N chars)`.
fn same_repr(ours: &str, theirs: &str) -> bool {
    let theirs = normalise_frozensets(theirs);
    let ours = normalise_frozensets(ours);
    if let Some((prefix, tail)) = theirs.rsplit_once("... (") {
        if let Some(n) = tail
            .strip_suffix(" chars)")
            .and_then(|n| n.parse::<usize>().ok())
        {
            return ours.starts_with(prefix) && ours.chars().count() == n;
        }
    }
    ours == theirs
}

// ---------------------------------------------------------------------------------------
// The test
// ---------------------------------------------------------------------------------------

/// Each RECORD's bytes with the field names of the SUCCESS before it.
fn records(c: &Capture, opts: DecodeOptions) -> Vec<(Vec<String>, &[u8])> {
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for m in c.messages.iter().filter(|m| m.from_server) {
        if m.name == "SUCCESS" {
            let val = ValueRef::decode_exact_with(&m.bytes, &opts).unwrap();
            if let Some(f) = val.as_struct().unwrap().fields[0].get("fields") {
                names = f
                    .as_list()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap().to_owned())
                    .collect();
            }
        } else if m.name == "RECORD" {
            out.push((names.clone(), m.bytes.as_slice()));
        }
    }
    out
}

fn check_file(path: &FsPath, stats: &mut Stats) {
    let c = parse(path);
    let v = version_of(&c);
    let opts = DecodeOptions::default().with_uuid(v.has_uuid());
    let label = format!("{}/{} (Bolt {v}, utc {})", c.dir, c.name, v.utc_datetime());
    stats.files += 1;

    // 1. Every structure in RECORDs and RUN parameters: read, not broken, re-encodes.
    for m in &c.messages {
        let value_part = match (m.from_server, m.name.as_str()) {
            (true, "RECORD") => 0,
            (false, "RUN") => 1,
            _ => continue,
        };
        let msg = ValueRef::decode_exact_with(&m.bytes, &opts)
            .unwrap_or_else(|e| panic!("{label}: {} does not decode: {e}", m.name));
        let spans = struct_spans(&m.bytes, opts);
        // spans[0] is the message itself; the others are the values, in wire order.
        let mut nested = spans.iter().skip(1);
        let fields = &msg.as_struct().unwrap().fields;
        for (i, field) in fields.iter().enumerate() {
            walk(field, &mut |s| {
                let (start, end) = *nested.next().expect("a span per structure");
                if i != value_part {
                    return;
                }
                let original = &m.bytes[start..end];
                let typed = BoltStruct::from_struct(s, v);
                assert!(
                    !typed.is_broken(),
                    "{label}: {} carries a broken value: {typed}",
                    m.name
                );
                stats.structs += 1;
                *stats
                    .by_kind
                    .entry(typed.kind().unwrap().name())
                    .or_default() += 1;
                let again = typed
                    .to_bytes(v)
                    .unwrap_or_else(|e| panic!("{label}: re-encoding {typed}: {e}"));
                assert_eq!(again, original, "{label}: {typed} re-encodes differently");
                // The borrowed form round-trips too.
                assert_eq!(
                    BoltStruct::from_struct(&typed.to_struct_ref(v).unwrap(), v),
                    typed
                );
                // Display never panics; the lenient reading agrees for valid values.
                assert_eq!(
                    BoltStruct::from_struct_any_version(s).to_string(),
                    typed.to_string()
                );
            });
        }
        assert!(nested.next().is_none(), "{label}: unvisited structures");
    }

    // 2. The driver's view of each returned field.
    let mut by_name: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (names, bytes) in records(&c, opts) {
        let rec = ValueRef::decode_exact_with(bytes, &opts).unwrap();
        let items = rec.as_struct().unwrap().fields[0].as_list().unwrap();
        assert_eq!(items.len(), names.len(), "{label}");
        for (name, item) in names.into_iter().zip(items) {
            by_name
                .entry(name)
                .or_insert_with(|| item.to_bytes().unwrap());
        }
    }
    for (name, expected) in &c.driver {
        let Some(bytes) = by_name.get(name) else {
            continue;
        };
        let value = ValueRef::decode_exact_with(bytes, &opts).unwrap();
        let zones = zoned_reprs(expected);
        let ours = py(&value, v, &zones);
        assert!(
            same_repr(&ours, expected),
            "{label}: field {name}\n  driver: {expected}\n  ours:   {ours}"
        );
        stats.driver_checks += 1;
    }

    // 3. Case-specific checks on the typed values.
    let typed = |name: &str| -> BoltStruct<'_> {
        let bytes = by_name
            .get(name)
            .unwrap_or_else(|| panic!("{label}: no field {name}"));
        let value = ValueRef::decode_exact_with(bytes, &opts).unwrap();
        BoltStruct::from_struct(value.as_struct().expect("a structure"), v)
    };
    stats.case_checks += check_case(&c, v, &typed, &label);
}

fn check_case<'b>(
    c: &Capture,
    v: BoltVersion,
    typed: &dyn Fn(&str) -> BoltStruct<'b>,
    label: &str,
) -> usize {
    match c.name.as_str() {
        "temporal_date_bce" => {
            let BoltStruct::Date(bce) = typed("bce") else {
                panic!("{label}")
            };
            let BoltStruct::Date(far) = typed("far") else {
                panic!("{label}")
            };
            assert_eq!((bce.days, bce.ymd()), (-719_893, (-1, 1, 1)), "{label}");
            assert_eq!(
                (far.days, far.ymd()),
                (365_241_780_471, (999_999_999, 12, 31)),
                "{label}"
            );
            // Exactly the strings of the query.
            assert!(c.query.contains(&format!("date('{bce}')")), "{label}");
            assert!(c.query.contains(&format!("date('{far}')")), "{label}");
            assert_eq!(Date::from_ymd(-1, 1, 1), Some(bce));
            assert_eq!(Date::from_ymd(999_999_999, 12, 31), Some(far));
            1
        }
        "temporal_date" => {
            for name in ["d", "before_epoch", "epoch", "max"] {
                let BoltStruct::Date(d) = typed(name) else {
                    panic!("{label}")
                };
                assert!(
                    c.query.contains(&format!("date('{d}') AS {name}")),
                    "{label}"
                );
            }
            1
        }
        "temporal_datetime_offset" => {
            // Whatever the form on the wire, it is the same instant.
            let instant = |name| match typed(name) {
                BoltStruct::DateTime(d) => d,
                BoltStruct::LegacyDateTime(l) => {
                    assert!(!v.utc_datetime(), "{label}");
                    l.to_utc().unwrap()
                }
                other => panic!("{label}: {other}"),
            };
            assert_eq!(
                instant("dt"),
                DateTime {
                    seconds: 1_709_206_496,
                    nanoseconds: 123_456_789,
                    tz_offset_seconds: 3600
                }
            );
            assert_eq!(
                instant("before_epoch").to_string(),
                "1969-12-31T23:59:59.500-05:00"
            );
            assert_eq!(instant("utc").to_string(), "2024-06-01T00:00:00Z");
            1
        }
        "temporal_duration" => {
            let BoltStruct::Duration(d) = typed("d") else {
                panic!("{label}")
            };
            assert_eq!(d.to_string(), "P1Y2M3DT4H5M6.789S");
            let BoltStruct::Duration(neg) = typed("neg") else {
                panic!("{label}")
            };
            assert_eq!((neg.days, neg.total_nanoseconds()), (-1, -2_000_000_003));
            1
        }
        "path" | "path_zero_length" => {
            let BoltStruct::Path(p) = typed("p") else {
                panic!("{label}")
            };
            let hops: Vec<(&str, bool)> = p
                .segments()
                .map(|s| (s.relationship.rel_type, s.reversed))
                .collect();
            if c.name == "path" {
                // (Alice)-[:KNOWS]->(Bob)<-[:EMPLOYS]-(Acme)
                assert_eq!(hops, [("KNOWS", false), ("EMPLOYS", true)], "{label}");
                let rels: Vec<_> = p.segments().map(|s| s.to_relationship()).collect();
                assert_eq!(rels[0].start_node_id, p.start().id);
                assert_eq!(rels[1].start_node_id, p.end().id); // Acme employs Bob
                assert_eq!(rels[1].end_node_element_id, p.nodes()[1].element_id);
                assert_eq!(p.start().property("name"), Some(&ValueRef::String("Alice")));
                assert_eq!(p.end().property("name"), Some(&ValueRef::String("Acme")));
                assert!(p.to_string().contains(")-[:KNOWS {"), "{label}: {p}");
                assert!(
                    p.to_string().contains(")<-[:EMPLOYS]-(:Company"),
                    "{label}: {p}"
                );
            } else {
                assert!(hops.is_empty() && p.is_empty(), "{label}");
                assert_eq!(p.start(), p.end());
            }
            assert_eq!(p.start().element_id.is_some(), v.has_element_ids());
            1
        }
        "node" => {
            let BoltStruct::Node(n) = typed("n") else {
                panic!("{label}")
            };
            assert_eq!(n.labels, ["Person"]);
            assert_eq!(n.property("age"), Some(&ValueRef::Int(33)));
            assert_eq!(n.element_id.is_some(), v.has_element_ids(), "{label}");
            assert_eq!(
                n.to_string(),
                r#"(:Person {name: "Alice", age: 33, height: 1.72, tags: ["a", "b"]})"#
            );
            let BoltStruct::Node(m) = typed("m") else {
                panic!("{label}")
            };
            assert!(m.to_string().contains(r#"born: date("1990-05-17")"#), "{m}");
            1
        }
        "relationship" => {
            let BoltStruct::Relationship(r) = typed("r") else {
                panic!("{label}")
            };
            assert_eq!(r.rel_type, "KNOWS");
            assert_eq!(r.to_string(), "[:KNOWS {weight: 0.5, since: 2020}]");
            assert_eq!(r.element_id.is_some(), v.has_element_ids(), "{label}");
            1
        }
        "vector_int_types" => {
            let vec = |name| match typed(name) {
                BoltStruct::Vector(x) => x,
                other => panic!("{label}: {other}"),
            };
            assert_eq!(vec("i8").to_vec::<i8>(), Some(vec![1, -2, 127]));
            assert_eq!(vec("i16").to_vec::<i16>(), Some(vec![1, -2, 32767]));
            assert_eq!(vec("i32").to_vec::<i32>(), Some(vec![1, -2, i32::MAX]));
            assert_eq!(vec("i64").to_vec::<i64>(), Some(vec![1, -2, i64::MAX]));
            assert_eq!(vec("i8").to_string(), "vector<i8>[1, -2, 127]");
            assert_eq!(vec("i16"), Vector::from_slice(&[1i16, -2, 32767]));
            1
        }
        "vector_float_types" => {
            let vec = |name| match typed(name) {
                BoltStruct::Vector(x) => x,
                other => panic!("{label}: {other}"),
            };
            assert_eq!(vec("f32").element_type(), VectorType::F32);
            assert_eq!(vec("f32").to_vec::<f32>(), Some(vec![1.5, -2.25, 0.0]));
            assert_eq!(vec("f64").to_vec::<f64>(), Some(vec![1.5, -2.25, 0.0]));
            assert_eq!(vec("f32").to_string(), "vector<f32>[1.5, -2.25, 0.0]");
            assert_eq!(vec("f64"), Vector::from_slice(&[1.5f64, -2.25, 0.0]));
            1
        }
        name if name.starts_with("spatial_") => {
            let (srid, coords): (i64, &[f64]) = match name {
                "spatial_cartesian_2d" => (7203, &[1.5, -2.25]),
                "spatial_cartesian_3d" => (9157, &[1.0, 2.0, 3.5]),
                "spatial_wgs84_2d" => (4326, &[12.5686, 55.6761]),
                "spatial_wgs84_3d" => (4979, &[-122.4194, 37.7749, 15.5]),
                other => panic!("unknown case {other}"),
            };
            match typed("p") {
                BoltStruct::Point2D(p) => assert_eq!((p.srid, &[p.x, p.y][..]), (srid, coords)),
                BoltStruct::Point3D(p) => {
                    assert_eq!((p.srid, &[p.x, p.y, p.z][..]), (srid, coords))
                }
                other => panic!("{label}: {other}"),
            }
            1
        }
        _ => 0,
    }
}

#[test]
fn captures_decode_to_valid_structures_and_re_encode_exactly() {
    let files = capture_files();
    assert!(files.len() >= 164, "only {} capture files", files.len());
    let mut stats = Stats::default();
    for f in &files {
        check_file(f, &mut stats);
    }
    eprintln!(
        "{} files, {} structures {:?}, {} driver values, {} case checks",
        stats.files, stats.structs, stats.by_kind, stats.driver_checks, stats.case_checks
    );
    // Every value structure the captures hold was seen.
    for kind in StructKind::ALL {
        if kind == StructKind::UnsupportedType {
            continue; // only sent at Bolt 6.0, which is not in this capture set
        }
        assert!(
            stats.by_kind.get(kind.name()).copied().unwrap_or(0) > 0,
            "no {kind} in the captures"
        );
    }
    assert!(stats.driver_checks > 400, "{}", stats.driver_checks);
    assert!(stats.case_checks >= 5 * 12 + 2, "{}", stats.case_checks);
}

#[test]
fn python_float_repr() {
    for (x, s) in [
        (1.72, "1.72"),
        (1.0, "1.0"),
        (f64::MAX, "1.7976931348623157e+308"),
        (5e-324, "5e-324"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (1e16, "1e+16"),
        (123456789012345.6, "123456789012345.6"),
        (-2.25, "-2.25"),
    ] {
        assert_eq!(py_float(x), s);
    }
}
