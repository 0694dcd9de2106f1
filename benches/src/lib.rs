//! Workloads shared by the criterion benches: the same data as PackStream and as
//! MessagePack (the yardstick format), built deterministically.

use packstream::{Structure, Value};
use serde::Deserialize;

/// Cell `j` of row `i` of a mixed table: an integer, a float, or a short string.
fn mixed(i: usize, j: usize) -> (Value, rmpv::Value) {
    match j % 3 {
        0 => {
            let v = (i * 31 + j * 7) as i64 * if j % 2 == 0 { 1 } else { -1 };
            (Value::Int(v), rmpv::Value::from(v))
        }
        1 => {
            let v = i as f64 * 0.5 + j as f64;
            (Value::Float(v), rmpv::Value::F64(v))
        }
        _ => {
            let s = format!("s{i}-{j}");
            (Value::String(s.clone()), rmpv::Value::from(s))
        }
    }
}

/// One list of `n` lists of `m` mixed values, encoded in both formats.
pub fn nested_lists(n: usize, m: usize) -> (Value, rmpv::Value) {
    let (ps, mp): (Vec<Value>, Vec<rmpv::Value>) = (0..n)
        .map(|i| {
            let (a, b): (Vec<Value>, Vec<rmpv::Value>) = (0..m).map(|j| mixed(i, j)).unzip();
            (Value::List(a), rmpv::Value::Array(b))
        })
        .unzip();
    (Value::List(ps), rmpv::Value::Array(mp))
}

/// A row of the 20-column table: ints, floats, strings of 8-24 bytes, booleans and nulls.
fn wide_cell(i: usize, j: usize) -> (Value, rmpv::Value) {
    match j % 5 {
        0 | 1 => mixed(i, j * 3),
        2 => mixed(i, 1),
        3 => {
            let s = format!(
                "{:width$}",
                format!("name-{i}-{j}"),
                width = 8 + (i + j) % 16
            );
            (Value::String(s.clone()), rmpv::Value::from(s))
        }
        _ if (i + j) % 2 == 0 => (Value::Bool(i % 3 == 0), rmpv::Value::Boolean(i % 3 == 0)),
        _ => (Value::Null, rmpv::Value::Nil),
    }
}

/// `rows` RECORD messages (`B1 71 [fields]`), each of `cols` fields; the MessagePack
/// equivalent of a record is `[0x71, [fields]]`.
pub fn records(rows: usize, cols: usize, wide: bool) -> (Vec<Value>, Vec<rmpv::Value>) {
    (0..rows)
        .map(|i| {
            let (a, b): (Vec<Value>, Vec<rmpv::Value>) = (0..cols)
                .map(|j| if wide { wide_cell(i, j) } else { mixed(i, j) })
                .unzip();
            (
                Value::Struct(Structure::new(0x71, vec![Value::List(a)])),
                rmpv::Value::Array(vec![rmpv::Value::from(0x71), rmpv::Value::Array(b)]),
            )
        })
        .unzip()
}

/// Concatenated encodings of each value.
pub fn encode_all(ps: &[Value], mp: &[rmpv::Value]) -> (Vec<u8>, Vec<u8>) {
    let mut a = Vec::new();
    for v in ps {
        packstream::Encoder::new(&mut a)
            .write_value(v)
            .expect("encodes");
    }
    let mut b = Vec::new();
    for v in mp {
        rmpv::encode::write_value(&mut b, v).expect("encodes");
    }
    (a, b)
}

/// A typed record for the serde comparison: tag then the row (a RECORD in PackStream,
/// `[0x71, [fields]]` in MessagePack).
#[derive(Deserialize)]
#[allow(dead_code)]
pub struct Row<'a>(u8, #[serde(borrow)] Vec<Cell<'a>>);

/// One cell of [`Row`]: whichever scalar the wire holds.
#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum Cell<'a> {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A borrowed string.
    Str(&'a str),
    /// Null.
    Null(()),
}

/// `records_10000x3` decoded into concrete types: the RECORD's tag, then its three
/// fields (an integer, a float, a borrowed string) as a tuple struct. Unlike [`Row`],
/// no untagged enum: serde asks for each field's type, which measures the deserializer
/// rather than serde's variant-guessing machinery.
#[derive(Deserialize)]
#[allow(dead_code)]
pub struct TypedRecord<'a>(u8, #[serde(borrow)] Fields3<'a>);

/// The three fields of a `records_10000x3` RECORD.
#[derive(Deserialize)]
#[allow(dead_code)]
pub struct Fields3<'a>(i64, f64, &'a str);

/// `rows_350x20` decoded into concrete types: the RECORD's tag, then its 20 columns as
/// a struct with named fields (read from the list in order), the nullable boolean
/// columns as `Option<bool>`.
#[derive(Deserialize)]
#[allow(dead_code)]
pub struct TypedWideRecord<'a>(u8, #[serde(borrow)] Wide<'a>);

/// The 20 columns of a `rows_350x20` RECORD (column `j` by `j % 5`: integer, integer,
/// float, string, nullable boolean).
#[derive(Deserialize)]
#[allow(dead_code)]
pub struct Wide<'a> {
    id0: i64,
    n0: i64,
    x0: f64,
    name0: &'a str,
    flag0: Option<bool>,
    id1: i64,
    n1: i64,
    x1: f64,
    name1: &'a str,
    flag1: Option<bool>,
    id2: i64,
    n2: i64,
    x2: f64,
    name2: &'a str,
    flag2: Option<bool>,
    id3: i64,
    n3: i64,
    x3: f64,
    name3: &'a str,
    flag3: Option<bool>,
}

/// Allocates and frees one block of `mib` MiB, which puts glibc's allocator in the state
/// a process reaches once it has freed any large buffer.
///
/// glibc returns the top of its heap to the kernel once more than its trim threshold
/// (128 KiB at start) is free there, and raises that threshold for the rest of the
/// process to twice the size of the largest `mmap`ed block freed so far. Until such a
/// block is freed, every multi-megabyte decode (`lists_1000x100`) is trimmed and its
/// pages faulted in again on the next one; after one of 2 MiB or more, none is
/// (`examples/heap_order.rs` shows it in page faults).
///
/// ```
/// boltcodec_benches::free_block(4);
/// ```
pub fn free_block(mib: usize) {
    drop(std::hint::black_box(vec![1u8; mib << 20]));
}
