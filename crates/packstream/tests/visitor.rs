//! `Decoder::visit_value` agrees with the tree decoder: a visitor that rebuilds owned
//! values gets the same value for every valid vector and every round-trip property case,
//! and the same error (kind and offset) for every invalid vector.

use packstream::{DecodeOptions, Decoder, Error, ErrorKind, Structure, Value, Visitor};

/// Rebuilds a `Value` from visitor calls with no counting of its own: `end` says when a
/// container is complete, as a binding building host objects uses it.
#[derive(Default)]
struct Rebuild {
    /// Open containers and, for maps, the pending key.
    open: Vec<(Value, Option<String>)>,
    done: Option<Value>,
    keys_seen: usize,
    /// The largest capacity hint seen, against the length announced with it.
    hints: Vec<(u32, usize)>,
}

impl Rebuild {
    fn add(&mut self, v: Value) -> Result<(), Error> {
        let Some((container, key)) = self.open.last_mut() else {
            self.done = Some(v);
            return Ok(());
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
        Ok(())
    }

    fn open(&mut self, v: Value, len: u32, capacity: usize) -> Result<(), Error> {
        self.hints.push((len, capacity));
        self.open.push((v, None));
        Ok(())
    }
}

impl<'a> Visitor<'a> for Rebuild {
    type Error = Error;
    fn null(&mut self) -> Result<(), Error> {
        self.add(Value::Null)
    }
    fn bool(&mut self, v: bool) -> Result<(), Error> {
        self.add(Value::Bool(v))
    }
    fn int(&mut self, v: i64) -> Result<(), Error> {
        self.add(Value::Int(v))
    }
    fn float(&mut self, v: f64) -> Result<(), Error> {
        self.add(Value::Float(v))
    }
    fn string(&mut self, v: &'a str, is_key: bool) -> Result<(), Error> {
        if is_key {
            self.keys_seen += 1;
            if let Some((_, key)) = self.open.last_mut() {
                *key = Some(v.to_owned());
            }
            Ok(())
        } else {
            self.add(Value::String(v.to_owned()))
        }
    }
    fn bytes(&mut self, v: &'a [u8]) -> Result<(), Error> {
        self.add(Value::Bytes(v.to_vec()))
    }
    fn uuid(&mut self, v: [u8; 16]) -> Result<(), Error> {
        self.add(Value::Uuid(v))
    }
    fn list(&mut self, len: u32, capacity: usize) -> Result<(), Error> {
        self.open(Value::List(Vec::with_capacity(capacity)), len, capacity)
    }
    fn map(&mut self, len: u32, capacity: usize) -> Result<(), Error> {
        self.open(Value::Map(Vec::with_capacity(capacity)), len, capacity)
    }
    fn structure(&mut self, tag: u8, len: u32, capacity: usize) -> Result<(), Error> {
        let fields = Vec::with_capacity(capacity);
        self.open(Value::Struct(Structure::new(tag, fields)), len, capacity)
    }
    fn end(&mut self) -> Result<(), Error> {
        let (finished, _) = self.open.pop().expect("end closes an open container");
        self.add(finished)
    }
}

fn visit(bytes: &[u8], opts: DecodeOptions) -> Result<(Value, usize), packstream::Error> {
    let mut dec = Decoder::with_options(bytes, opts);
    let mut r = Rebuild::default();
    dec.visit_value(&mut r)?;
    assert!(r.open.is_empty(), "every container was ended");
    for (len, capacity) in &r.hints {
        assert!(*capacity <= *len as usize && *capacity <= bytes.len());
    }
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

/// The error of [`FailAt`]: its own refusal, or a decode error as text.
#[derive(Debug, PartialEq)]
struct Refused(String);

impl From<Error> for Refused {
    fn from(e: Error) -> Self {
        Refused(e.to_string())
    }
}

/// A visitor whose own error stops the walk where it happened.
struct FailAt(usize, usize);

impl<'a> Visitor<'a> for FailAt {
    type Error = Refused;
    fn null(&mut self) -> Result<(), Refused> {
        self.tick()
    }
    fn bool(&mut self, _: bool) -> Result<(), Refused> {
        self.tick()
    }
    fn int(&mut self, _: i64) -> Result<(), Refused> {
        self.tick()
    }
    fn float(&mut self, _: f64) -> Result<(), Refused> {
        self.tick()
    }
    fn string(&mut self, _: &'a str, _: bool) -> Result<(), Refused> {
        self.tick()
    }
    fn bytes(&mut self, _: &'a [u8]) -> Result<(), Refused> {
        self.tick()
    }
    fn uuid(&mut self, _: [u8; 16]) -> Result<(), Refused> {
        self.tick()
    }
    fn list(&mut self, _: u32, _: usize) -> Result<(), Refused> {
        self.tick()
    }
    fn map(&mut self, _: u32, _: usize) -> Result<(), Refused> {
        self.tick()
    }
    fn structure(&mut self, _: u8, _: u32, _: usize) -> Result<(), Refused> {
        self.tick()
    }
}

impl FailAt {
    fn tick(&mut self) -> Result<(), Refused> {
        self.1 += 1;
        if self.1 == self.0 {
            Err(Refused(format!("refused item {}", self.1)))
        } else {
            Ok(())
        }
    }
}

#[test]
fn a_visitor_error_stops_the_walk_and_decode_errors_convert_into_it() {
    // [1, [2, 3], 4]
    let bytes = [0x93, 0x01, 0x92, 0x02, 0x03, 0x04];
    let mut dec = Decoder::new(&bytes);
    let err = dec.visit_value(&mut FailAt(4, 0)).unwrap_err();
    assert_eq!(err, Refused("refused item 4".into()));
    assert_eq!(dec.position(), 4, "stopped right after the refused item");
    // A decode error arrives converted into the visitor's error type.
    let mut dec = Decoder::new(&bytes[..3]);
    let err = dec.visit_value(&mut FailAt(99, 0)).unwrap_err();
    assert!(err.0.contains("ended early at byte 0"), "{err:?}");
}

#[test]
fn a_visitor_error_inside_a_short_list_of_scalars_leaves_the_list_open() {
    // [1, 300, "ab", null, [7]]: the walk reads a tiny list's leading scalars without
    // opening its frame; a refusal at any of them must leave the list open with the
    // items after the refused one still to come, as the general walk leaves it, so that
    // the pull decoder reads on from there.
    let bytes = [
        0x95, 0x01, 0xC9, 0x01, 0x2C, 0x82, b'a', b'b', 0xC0, 0x91, 0x07,
    ];
    // Items 2 to 5 are the list's scalars (item 1 is the list itself).
    let ends = [2, 5, 8, 9];
    for (i, end) in ends.iter().enumerate() {
        let mut dec = Decoder::new(&bytes);
        let err = dec.visit_value(&mut FailAt(i + 2, 0)).unwrap_err();
        assert_eq!(err, Refused(format!("refused item {}", i + 2)));
        assert_eq!(dec.position(), *end, "stopped right after the refused item");
        assert_eq!(dec.depth(), 1, "the list stays open");
        let mut rest = 0;
        while dec.depth() > 0 {
            dec.next_token().unwrap();
            rest += 1;
        }
        // The scalars after the refused one, then the inner list and its item.
        assert_eq!(
            rest,
            ends.len() - i - 1 + 2,
            "items left after item {}",
            i + 2
        );
        assert_eq!(dec.position(), bytes.len());
    }
}

impl From<Error> for FailAtError {
    fn from(e: Error) -> Self {
        FailAtError(e.kind())
    }
}

#[derive(Debug)]
struct FailAtError(ErrorKind);

#[test]
fn capacity_hints_are_bounded_by_the_bytes_that_remain() {
    // A list claiming 2^31-1 items with three bytes behind it: decoding fails, but the
    // hint given before the failure never exceeds what the input can hold.
    struct Hints(Vec<usize>);
    impl<'a> Visitor<'a> for Hints {
        type Error = FailAtError;
        fn null(&mut self) -> Result<(), FailAtError> {
            Ok(())
        }
        fn bool(&mut self, _: bool) -> Result<(), FailAtError> {
            Ok(())
        }
        fn int(&mut self, _: i64) -> Result<(), FailAtError> {
            Ok(())
        }
        fn float(&mut self, _: f64) -> Result<(), FailAtError> {
            Ok(())
        }
        fn string(&mut self, _: &'a str, _: bool) -> Result<(), FailAtError> {
            Ok(())
        }
        fn bytes(&mut self, _: &'a [u8]) -> Result<(), FailAtError> {
            Ok(())
        }
        fn uuid(&mut self, _: [u8; 16]) -> Result<(), FailAtError> {
            Ok(())
        }
        fn list(&mut self, _: u32, capacity: usize) -> Result<(), FailAtError> {
            self.0.push(capacity);
            Ok(())
        }
        fn map(&mut self, _: u32, capacity: usize) -> Result<(), FailAtError> {
            self.0.push(capacity);
            Ok(())
        }
        fn structure(&mut self, _: u8, _: u32, capacity: usize) -> Result<(), FailAtError> {
            self.0.push(capacity);
            Ok(())
        }
    }
    // [[…3 items…]] where the inner list claims 5 items but only 3 bytes follow it.
    let bytes = [0x91, 0x95, 0x01, 0x02, 0x03];
    let mut hints = Hints(Vec::new());
    let err = Decoder::new(&bytes).visit_value(&mut hints).unwrap_err();
    assert_eq!(err.0, ErrorKind::UnexpectedEnd);
    assert_eq!(
        hints.0,
        [1],
        "the inner list was refused before any allocation hint"
    );
    let bytes = [0x92, 0x93, 0x01, 0x02, 0x03, 0x90];
    let mut hints = Hints(Vec::new());
    Decoder::new(&bytes).visit_value(&mut hints).expect("valid");
    assert_eq!(hints.0, [2, 3, 0]);
}
