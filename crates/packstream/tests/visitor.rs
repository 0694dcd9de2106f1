//! `Decoder::visit_value` agrees with the tree decoder: a visitor that rebuilds owned
//! values gets the same value for every valid vector and every round-trip property case,
//! and the same error (kind and offset) for every invalid vector.

use packstream::{DecodeOptions, Decoder, Structure, Value, Visitor};

/// Rebuilds a `Value` from visitor calls (an explicit stack, like a binding would).
#[derive(Default)]
struct Rebuild {
    /// Open containers: the value being filled, items still expected (map entries count
    /// keys and values), and a pending map key.
    open: Vec<(Value, u64, Option<String>)>,
    done: Option<Value>,
    keys_seen: usize,
}

impl Rebuild {
    fn add(&mut self, v: Value) {
        let mut v = v;
        loop {
            let Some((container, left, key)) = self.open.last_mut() else {
                self.done = Some(v);
                return;
            };
            match container {
                Value::List(items) => items.push(v),
                Value::Struct(s) => s.fields.push(v),
                Value::Map(entries) => match key.take() {
                    Some(k) => entries.push((k, v)),
                    None => unreachable!("keys arrive through string(.., true)"),
                },
                _ => unreachable!("only containers are open"),
            }
            *left -= 1;
            if *left > 0 {
                return;
            }
            let (finished, _, _) = self.open.pop().expect("open container");
            v = finished;
        }
    }

    fn open(&mut self, v: Value, items: u64) {
        if items == 0 {
            self.add(v);
        } else {
            self.open.push((v, items, None));
        }
    }
}

impl<'a> Visitor<'a> for Rebuild {
    fn null(&mut self) {
        self.add(Value::Null);
    }
    fn bool(&mut self, v: bool) {
        self.add(Value::Bool(v));
    }
    fn int(&mut self, v: i64) {
        self.add(Value::Int(v));
    }
    fn float(&mut self, v: f64) {
        self.add(Value::Float(v));
    }
    fn string(&mut self, v: &'a str, is_key: bool) {
        if is_key {
            self.keys_seen += 1;
            if let Some((_, _, key)) = self.open.last_mut() {
                *key = Some(v.to_owned());
            }
        } else {
            self.add(Value::String(v.to_owned()));
        }
    }
    fn bytes(&mut self, v: &'a [u8]) {
        self.add(Value::Bytes(v.to_vec()));
    }
    fn uuid(&mut self, v: [u8; 16]) {
        self.add(Value::Uuid(v));
    }
    fn list(&mut self, len: u32) {
        self.open(Value::List(Vec::new()), u64::from(len));
    }
    fn map(&mut self, len: u32) {
        self.open(Value::Map(Vec::new()), u64::from(len));
    }
    fn structure(&mut self, tag: u8, len: u32) {
        self.open(
            Value::Struct(Structure::new(tag, Vec::new())),
            u64::from(len),
        );
    }
}

fn visit(bytes: &[u8], opts: DecodeOptions) -> Result<(Value, usize), packstream::Error> {
    let mut dec = Decoder::with_options(bytes, opts);
    let mut r = Rebuild::default();
    dec.visit_value(&mut r)?;
    Ok((r.done.expect("a complete value"), dec.position()))
}

#[test]
fn visitor_agrees_with_the_tree_decoder_on_every_vector() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/packstream.json"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("json");
    let mut checked = 0;
    for section in ["valid", "decode_only", "invalid"] {
        for case in v[section].as_array().expect("section") {
            let bytes = match case.get("hex").and_then(|h| h.as_str()) {
                Some(h) => (0..h.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&h[i..i + 2], 16).expect("hex"))
                    .collect::<Vec<u8>>(),
                None => continue, // the large hex_parts cases are covered by the tree tests
            };
            let opts = DecodeOptions::default()
                .with_uuid(
                    case.pointer("/options/uuid")
                        .and_then(|b| b.as_bool())
                        .unwrap_or(false),
                )
                .with_legacy_structs(
                    case.pointer("/options/legacy_structs")
                        .and_then(|b| b.as_bool())
                        .unwrap_or(false),
                );
            if case.get("limits").is_some() {
                continue; // limit overrides are exercised by the tree tests
            }
            let tree = Value::decode_with(&bytes, &opts);
            let visited = visit(&bytes, opts);
            match (tree, visited) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", case["name"]),
                (Err(a), Err(b)) => assert_eq!(
                    (a.kind(), a.offset()),
                    (b.kind(), b.offset()),
                    "{}",
                    case["name"]
                ),
                (a, b) => panic!("{}: tree {a:?} vs visitor {b:?}", case["name"]),
            }
            checked += 1;
        }
    }
    assert!(checked > 700, "checked {checked}");
}

#[test]
fn visitor_marks_map_keys_and_rejects_non_string_keys() {
    let bytes = [
        0xA2, 0x81, b'a', 0x81, b'b', 0x81, b'c', 0xA1, 0x81, b'd', 0x90,
    ];
    let mut r = Rebuild::default();
    Decoder::new(&bytes).visit_value(&mut r).expect("valid");
    assert_eq!(r.keys_seen, 3);
    let err = Decoder::new(&[0xA1, 0x01, 0x01])
        .visit_value(&mut Rebuild::default())
        .expect_err("int key");
    assert_eq!(
        (err.kind(), err.offset()),
        (packstream::ErrorKind::NonStringKey, 1)
    );
    let mut deep = vec![0x91u8; 1_000_000];
    deep.push(0xC0);
    let err = Decoder::new(&deep)
        .visit_value(&mut Rebuild::default())
        .expect_err("too deep");
    assert_eq!(err.kind(), packstream::ErrorKind::LimitExceeded);
}

#[test]
fn visitor_walks_one_item_inside_an_open_container() {
    // RECORD [1, [2, 3]]: read the struct header with next_token, then visit its field.
    let bytes = [0xB1, 0x71, 0x92, 0x01, 0x92, 0x02, 0x03, 0xC3];
    let mut dec = Decoder::new(&bytes);
    dec.next_token().expect("header");
    let mut r = Rebuild::default();
    dec.visit_value(&mut r).expect("field");
    assert_eq!(
        r.done,
        Some(Value::List(vec![
            Value::Int(1),
            Value::List(vec![Value::Int(2), Value::Int(3)])
        ]))
    );
    assert!(dec.is_complete());
    assert_eq!(dec.next_token(), Ok(packstream::Token::Bool(true)));
}
