//! `BoltStruct::from_struct` for every structure found in a hostile value, under every
//! version; `Display` (plain and `{:#}`), `DisplayValue`, path segments, vector
//! elements, and encoding back.
//!
//! Input: `[flags] value`. Flags: bit 0 UUIDs, bit 1 legacy `DC`/`DD` structures.
//!
//! Checks: no panic; a structure that reads as valid in a version keeps its tag and
//! encodes for that version (unless it carries a UUID the version cannot write), and
//! encoding is idempotent: what it writes reads back and writes the same bytes again.
#![no_main]

use bolt::structs::{BoltStruct, DisplayValue, EncodeStruct, StructEncodeError};
use fuzz_common::{Header, VERSIONS};
use libfuzzer_sys::fuzz_target;
use packstream::{DecodeOptions, EncodeError, StructRef, ValueRef};

/// Every structure in `v`, outermost first, at most `max`.
fn structs<'v, 'a>(v: &'v ValueRef<'a>, max: usize) -> Vec<&'v StructRef<'a>> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            ValueRef::List(items) => stack.extend(items.iter()),
            ValueRef::Map(entries) => stack.extend(entries.iter().map(|(_, v)| v)),
            ValueRef::Struct(s) => {
                out.push(s);
                if out.len() >= max {
                    break;
                }
                stack.extend(s.fields.iter());
            }
            _ => {}
        }
    }
    out
}

fn inspect(b: &BoltStruct<'_>) {
    let _ = b.to_string();
    let _ = format!("{b:#}");
    let _ = b.kind();
    match b {
        BoltStruct::Path(p) => {
            for seg in p.segments().take(64) {
                let _ = seg.to_relationship();
            }
            let _ = (p.len(), p.start(), p.end());
        }
        BoltStruct::Vector(v) => {
            let _ = (v.len(), v.elements(), v.iter::<f64>().map(Iterator::count));
            let _ = v.iter::<i8>().map(Iterator::count);
        }
        BoltStruct::Unsupported(u) => drop((u.minimum_version(), u.message())),
        BoltStruct::Date(d) => drop(d.ymd()),
        BoltStruct::DateTime(d) => drop((d.utc(), d.local(), d.to_legacy())),
        BoltStruct::LegacyDateTime(d) => drop((d.local(), d.to_utc())),
        BoltStruct::DateTimeZoneId(d) => drop(d.utc()),
        BoltStruct::LegacyDateTimeZoneId(d) => drop(d.local()),
        BoltStruct::Duration(d) => drop(d.total_nanoseconds()),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let flags = h.u8();
    let bytes = h.rest();
    let opts = DecodeOptions::default()
        .with_uuid(flags & 1 != 0)
        .with_legacy_structs(flags & 2 != 0);
    let Ok((value, _)) = ValueRef::decode_with(bytes, &opts) else {
        return;
    };
    let _ = DisplayValue::new(&value).to_string();
    for version in [VERSIONS[0], VERSIONS[10], VERSIONS[18]] {
        let _ = DisplayValue::new(&value).with_version(version).to_string();
    }
    for s in structs(&value, 8) {
        let _ = BoltStruct::from_struct_any_version(s).to_string();
        for (i, version) in VERSIONS.into_iter().enumerate() {
            let b = BoltStruct::from_struct(s, version);
            if i % 4 == 0 {
                inspect(&b); // rendering is the slow part: a few versions suffice
            }
            if b.is_broken() {
                continue;
            }
            assert_eq!(b.tag(), s.tag, "{version}: {b:?}");
            let first = match b.to_bytes(version) {
                Ok(bytes) => bytes,
                Err(StructEncodeError::PackStream(EncodeError::UuidNotEnabled)) => continue,
                Err(e) => panic!("{version}: {b:?} read as valid but does not encode: {e}"),
            };
            let back_opts = DecodeOptions::default().with_uuid(version.has_uuid());
            let decoded = ValueRef::decode_exact_with(&first, &back_opts)
                .unwrap_or_else(|e| panic!("{version}: {b:?} wrote {first:02X?}: {e}"));
            let again = BoltStruct::from_value(&decoded, version).expect("a structure");
            assert!(
                !again.is_broken(),
                "{version}: {b:?} -> {first:02X?} -> {again:?}"
            );
            let second = again.to_bytes(version).expect("encodes again");
            assert_eq!(
                first, second,
                "{version}: encoding is not idempotent for {b:?}"
            );
        }
    }
});
