//! Runs every case of `tests/vectors/packstream.json` (the language-neutral vectors shared
//! with the Python, Node and C suites).

use packstream::{DecodeLimits, DecodeOptions, EncodeOptions, Encoder, Value, ValueRef};
use serde_json::Value as Json;

fn vectors() -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/packstream.json"
    );
    let text = std::fs::read_to_string(path).expect("tests/vectors/packstream.json is readable");
    serde_json::from_str(&text).expect("vector file is JSON")
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// Bytes from `<prefix>hex` or `<prefix>hex_parts`.
fn case_bytes(case: &Json, prefix: &str) -> Vec<u8> {
    if let Some(h) = case.get(format!("{prefix}hex")).and_then(Json::as_str) {
        return unhex(h);
    }
    let parts = case
        .get(format!("{prefix}hex_parts"))
        .and_then(Json::as_array)
        .unwrap_or_else(|| panic!("case has no {prefix}hex: {case}"));
    let mut out = Vec::new();
    for p in parts {
        let chunk = unhex(p[0].as_str().expect("part hex"));
        for _ in 0..p[1].as_u64().expect("part count") {
            out.extend_from_slice(&chunk);
        }
    }
    out
}

fn count(j: &Json) -> usize {
    j["count"].as_u64().expect("count") as usize
}

/// Builds the owned value a notation object describes.
fn build(j: &Json) -> Value {
    match j["t"].as_str().expect("type key t") {
        "null" => Value::Null,
        "bool" => Value::Bool(j["v"].as_bool().expect("bool")),
        "int" => Value::Int(j["v"].as_str().expect("int string").parse().expect("i64")),
        "float" => Value::Float(f64::from_bits(
            u64::from_str_radix(j["bits"].as_str().expect("bits"), 16).expect("bits hex"),
        )),
        "str" => match j.get("v") {
            Some(v) => Value::String(v.as_str().expect("str").to_owned()),
            None => Value::String(j["repeat"].as_str().expect("repeat").repeat(count(j))),
        },
        "bytes" => match j.get("hex") {
            Some(h) => Value::Bytes(unhex(h.as_str().expect("hex"))),
            None => {
                Value::Bytes(unhex(j["repeat_hex"].as_str().expect("repeat_hex")).repeat(count(j)))
            }
        },
        "list" => match j.get("items") {
            Some(items) => {
                Value::List(items.as_array().expect("items").iter().map(build).collect())
            }
            None => Value::List(vec![build(&j["repeat"]); count(j)]),
        },
        "map" => match j.get("entries") {
            Some(entries) => Value::Map(
                entries
                    .as_array()
                    .expect("entries")
                    .iter()
                    .map(|e| (e[0].as_str().expect("key").to_owned(), build(&e[1])))
                    .collect(),
            ),
            None => {
                let gen = &j["gen_keys"];
                let width = gen["width"].as_u64().expect("width") as usize;
                let value = build(&j["value"]);
                Value::Map(
                    (0..count(gen))
                        .map(|i| (format!("{i:0width$}"), value.clone()))
                        .collect(),
                )
            }
        },
        "struct" => Value::Struct(packstream::Structure::new(
            u8::try_from(j["tag"].as_u64().expect("tag")).expect("tag fits u8"),
            j["fields"]
                .as_array()
                .expect("fields")
                .iter()
                .map(build)
                .collect(),
        )),
        "uuid" => {
            let hex: String = j["v"]
                .as_str()
                .expect("uuid")
                .chars()
                .filter(|c| *c != '-')
                .collect();
            Value::Uuid(unhex(&hex).try_into().expect("16 bytes"))
        }
        other => panic!("unknown type {other}"),
    }
}

fn options(case: &Json) -> DecodeOptions {
    let mut opts = DecodeOptions::default();
    if let Some(o) = case.get("options") {
        opts.uuid = o.get("uuid").and_then(Json::as_bool).unwrap_or(false);
        opts.legacy_structs = o
            .get("legacy_structs")
            .and_then(Json::as_bool)
            .unwrap_or(false);
    }
    if let Some(l) = case.get("limits") {
        let mut limits = DecodeLimits::default();
        let get = |k: &str| l.get(k).and_then(Json::as_u64);
        if let Some(v) = get("max_depth") {
            limits.max_depth = v as u32;
        }
        if let Some(v) = get("max_string_len") {
            limits.max_string_len = v as u32;
        }
        if let Some(v) = get("max_bytes_len") {
            limits.max_bytes_len = v as u32;
        }
        if let Some(v) = get("max_container_len") {
            limits.max_container_len = v as u32;
        }
        if let Some(v) = get("max_total_elements") {
            limits.max_total_elements = v;
        }
        opts.limits = limits;
    }
    opts
}

fn encode(v: &Value, opts: &DecodeOptions) -> Vec<u8> {
    let mut out = Vec::new();
    let enc_opts = EncodeOptions {
        uuid: opts.uuid,
        legacy_structs: false,
    };
    Encoder::with_options(&mut out, enc_opts)
        .write_value(v)
        .expect("encodes");
    out
}

fn section<'a>(v: &'a Json, name: &str) -> &'a Vec<Json> {
    v[name]
        .as_array()
        .unwrap_or_else(|| panic!("section {name}"))
}

#[test]
fn vector_file_is_substantial() {
    let v = vectors();
    let total: usize = ["valid", "decode_only", "invalid"]
        .iter()
        .map(|s| section(&v, s).len())
        .sum();
    assert!(total >= 300, "only {total} vectors");
}

#[test]
fn valid_vectors_encode_and_decode() {
    let v = vectors();
    for case in section(&v, "valid") {
        let name = case["name"].as_str().unwrap_or("?");
        let bytes = case_bytes(case, "");
        let opts = options(case);
        let value = build(&case["value"]);
        assert_eq!(encode(&value, &opts), bytes, "encode {name}");
        let decoded = ValueRef::decode_exact_with(&bytes, &opts)
            .unwrap_or_else(|e| panic!("decode {name}: {e}"));
        assert_eq!(decoded.to_owned_value(), value, "decode {name}");
        // The pull API sees the same number of bytes.
        let mut dec = packstream::Decoder::with_options(&bytes, opts);
        dec.skip_value()
            .unwrap_or_else(|e| panic!("skip {name}: {e}"));
        assert_eq!(dec.position(), bytes.len(), "skip {name}");
    }
}

#[test]
fn non_minimal_vectors_decode_and_reencode_canonically() {
    let v = vectors();
    for case in section(&v, "decode_only") {
        let name = case["name"].as_str().unwrap_or("?");
        let bytes = case_bytes(case, "");
        let opts = options(case);
        let value = build(&case["value"]);
        let decoded = ValueRef::decode_exact_with(&bytes, &opts)
            .unwrap_or_else(|e| panic!("decode {name}: {e}"));
        assert_eq!(decoded.to_owned_value(), value, "decode {name}");
        assert_eq!(
            encode(&value, &opts),
            case_bytes(case, "canonical_"),
            "canonical {name}"
        );
    }
}

#[test]
fn invalid_vectors_give_their_error_and_offset() {
    let v = vectors();
    for case in section(&v, "invalid") {
        let name = case["name"].as_str().unwrap_or("?");
        let bytes = case_bytes(case, "");
        let opts = options(case);
        let want_kind = case["error"].as_str().expect("error");
        let want_offset = case["offset"].as_u64().expect("offset") as usize;
        let err = ValueRef::decode_exact_with(&bytes, &opts).expect_err(name);
        assert_eq!(
            (err.kind().as_str(), err.offset()),
            (want_kind, want_offset),
            "{name}: {err}"
        );
        // The token decoder finds the same error (trailing bytes aside, which it leaves to
        // the caller).
        if want_kind != "trailing_bytes" {
            let mut dec = packstream::Decoder::with_options(&bytes, opts);
            let err = dec.skip_value().expect_err(name);
            assert_eq!(
                (err.kind().as_str(), err.offset()),
                (want_kind, want_offset),
                "pull {name}"
            );
        }
    }
}
