//! Neo4j query results as Apache Arrow: the RECORD messages of a PULL response decoded
//! straight into Arrow [`RecordBatch`]es, one batch at a time.
//!
//! * [`ArrowDecoder`] turns a run of decoded [`Record`]s (from
//!   [`MessageCodec::decode_records`](bolt::message::MessageCodec::decode_records) and
//!   friends) into one `RecordBatch`, with the column names of the RUN summary's
//!   `fields`.
//! * [`PullDecoder`] takes the raw, chunked bytes of a PULL response as they come off
//!   the socket and gives a `RecordBatch` per call, until the summary; memory is that of
//!   one batch, whatever the result's size (send `PULL {n}` for back-pressure).
//!
//! The Bolt structures are interpreted by [`bolt::structs`] for the negotiated version;
//! nothing here knows a signature byte or a field layout.
//!
//! ```
//! use arrow_array::{Array, Int64Array, StringArray};
//! use bolt::chunk::Chunker;
//! use bolt::message::{Record, Response, Success};
//! use bolt::BoltVersion;
//! use bolt_arrow::PullDecoder;
//! use packstream::ValueRef;
//!
//! // What a server sends for `UNWIND [1, 2] AS n RETURN n, 'x' AS s`:
//! let v = BoltVersion::V5_8;
//! let mut wire = Vec::new();
//! for n in [1, 2] {
//!     Response::Record(Record::new(vec![ValueRef::Int(n), ValueRef::String("x")]))
//!         .encode_framed(v, &Chunker::default(), &mut wire)?;
//! }
//! Response::Success(Success::new().with("t_last", 1)).encode_framed(v, &Chunker::default(), &mut wire)?;
//!
//! let mut pull = PullDecoder::new(v, ["n", "s"]);
//! let batch = pull.feed(&wire)?.expect("two rows");
//! assert!(pull.is_done() && !pull.has_more());
//! let n = batch.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
//! assert_eq!(n.values(), &[1, 2]);
//! assert_eq!(batch.schema().field(1).name(), "s");
//! let s = batch.column(1).as_any().downcast_ref::<StringArray>().unwrap();
//! assert_eq!(s.value(1), "x");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Types
//!
//! A column's type comes from its values:
//!
//! | values | Arrow type |
//! | --- | --- |
//! | null only (or no row) | `Null` |
//! | Boolean | `Boolean` |
//! | Integer | `Int64` |
//! | Float; Integer and Float mixed | `Float64` (integers converted; exact up to 2^53) |
//! | String | `Utf8` |
//! | Bytes | `Binary` |
//! | List | `List<item>`, the item type by these same rules over all the lists' items |
//! | Map | `Map<Utf8, value>`, the value type over all the maps' values |
//! | Node | `Struct{id: Int64, element_id: Utf8, labels: List<Utf8>, properties: Map<Utf8, value>}` |
//! | Relationship | `Struct{id, element_id, start_node_id, start_node_element_id, end_node_id, end_node_element_id, type: Utf8, properties: Map<Utf8, value>}` |
//! | Path | `Struct{nodes: List<node struct>, relationships: List<relationship struct>}`, relationships in traversal order with their real start and end |
//! | Date | `Date32` |
//! | LocalTime | `Time64(ns)` |
//! | Time | `Struct{time: Time64(ns), tz_offset_seconds: Int32}` |
//! | LocalDateTime | `Timestamp(ns)` without zone |
//! | DateTime, all with one offset or one zone id | `Timestamp(ns, that zone)`: the UTC instant, zone `+01:00` or `Europe/Stockholm` |
//! | Duration | `Interval(MonthDayNano)` |
//! | Point (2D and 3D) | `Struct{srid: Int64, x, y, z: Float64}` (`z` null for 2D) |
//! | Vector, one element type and dimension | `FixedSizeList<element>(dimension)` (`Int8` … `Float64`) |
//! | Vector, one element type, several dimensions | `List<element>` |
//! | UUID (Bolt 6.1) | `FixedSizeBinary(16)` |
//! | anything else | `Utf8`, canonical text |
//!
//! **Nulls** join any type: a column or item with nulls and integers is a nullable
//! `Int64`. Every Arrow field is nullable except map keys.
//!
//! **Mixed columns** fall back to **canonical text** (`Utf8`): strings as they are, every
//! other value in the Cypher-like form of [`bolt::structs::DisplayValue`] (`1`,
//! `[1, "a"]`, `date("2024-01-31")`, `(:Person {name: "Alice"})`…). That is the rule for
//! every pair of types not joined above (string and integer, node and map, DateTimes in
//! different zones, vectors of different element types…), for UnsupportedType and
//! malformed structures, for values that do not fit their Arrow type (a Date outside
//! `Date32`, a LocalDateTime or DateTime outside the years 1677–2262, a Duration whose
//! months or days do not fit an `i32` or whose seconds do not fit an `i64` of
//! nanoseconds, a DateTime offset that is not a whole number of minutes, a legacy
//! zone-id DateTime of Bolt 4.4 without the `utc` patch, which only a zone database
//! could place), and for containers nested more than [`MAX_NESTING`] levels deep. A
//! mixed column loses no information, only the type.
//!
//! **Batches after the first.** A stream has one schema. It is fixed by the first batch
//! with at least one row (or given with [`ArrowDecoder::with_schema`]). Later batches
//! are written into those types: a value goes in when the rules above would have given
//! the same type had it been in the first batch — an integer into a `Float64` column,
//! anything into a `Utf8` column (as canonical text), null anywhere, a list of integers
//! into `List<Float64>`, a DateTime into a timestamp column of its own zone (or of zone
//! `UTC`, which takes any instant). Any other value — anything but null in a column
//! that was all null (`Null`), a float in an `Int64` column, a string in a `List<Int64>`
//! column, a property map that gains a string where it had only integers — fails the
//! batch with [`Error::TypeChanged`], which names the record, the column, the byte
//! offset, the column's type and the value's. Nothing of that batch is kept and the
//! decoder is as it was before it: give the whole result to one call, or give the
//! schema, to avoid it (the same choice as polars' `infer_schema_length`).
//!
//! # Hostile input
//!
//! Malformed records give an [`Error`] with the record's index and the byte offset
//! (inside the message, and in the stream when known); a batch builds into fresh Arrow
//! builders, so an error leaves nothing half-written. No input panics. Shapes that make
//! many values of few bytes (100,000 empty lists, maps, nodes or unknown structures in
//! one record, deep nesting) peak below 96 bytes per input byte plus 1 MiB
//! (`tests/memory.rs` measures about 50), and a stream fed in pieces holds one batch.

mod acc;
mod build;
mod convert;
mod decoder;
mod error;
mod stream;
mod ty;

pub use decoder::ArrowDecoder;
pub use error::Error;
pub use stream::PullDecoder;
pub use ty::MAX_NESTING;

pub use arrow_array::RecordBatch;
#[doc(no_inline)]
pub use bolt::message::Record;

/// The field names of the struct a Node becomes.
pub const NODE_FIELDS: [&str; 4] = ["id", "element_id", "labels", "properties"];

/// The field names of the struct a Relationship becomes (an UnboundRelationship too,
/// with null start and end).
pub const RELATIONSHIP_FIELDS: [&str; 8] = [
    "id",
    "element_id",
    "start_node_id",
    "start_node_element_id",
    "end_node_id",
    "end_node_element_id",
    "type",
    "properties",
];

/// The field names of the struct a Path becomes.
pub const PATH_FIELDS: [&str; 2] = ["nodes", "relationships"];

/// The field names of the struct a Point becomes.
pub const POINT_FIELDS: [&str; 4] = ["srid", "x", "y", "z"];

/// The field names of the struct a Time (with offset) becomes.
pub const TIME_FIELDS: [&str; 2] = ["time", "tz_offset_seconds"];
