//! Graph structures: Node, Relationship, UnboundRelationship and Path
//! (docs/protocol.md §2.2–§2.5).
//!
//! Their shape depends on the version: from Bolt 5.0 each carries string element ids
//! (`BoltVersion::has_element_ids`). Decoded values hold them as `Some`; on older
//! versions they are `None`. Encoding for 5.0+ requires them; encoding for an older
//! version leaves them out.

use core::fmt;

use packstream::{StructRef, ValueRef};

use super::broken::BrokenReason;
use super::display::{write_ident, write_map, Ctx};
use super::encode::{EncodeStruct, StructEncodeError};
use super::fields::{Field, Fields};
use super::kind::StructKind;
use crate::version::BoltVersion;

type Properties<'a> = Vec<(&'a str, ValueRef<'a>)>;

fn property<'p, 'a>(props: &'p [(&'a str, ValueRef<'a>)], key: &str) -> Option<&'p ValueRef<'a>> {
    props.iter().rev().find(|(k, _)| *k == key).map(|(_, v)| v)
}

fn need<'s>(
    value: Option<&'s str>,
    kind: StructKind,
    field: &'static str,
    version: BoltVersion,
) -> Result<ValueRef<'s>, StructEncodeError> {
    value
        .map(ValueRef::String)
        .ok_or(StructEncodeError::MissingField {
            kind,
            field,
            version,
        })
}

fn labels_value<'s>(labels: &[&'s str]) -> ValueRef<'s> {
    ValueRef::List(labels.iter().map(|l| ValueRef::String(l)).collect())
}

/// ` {k: v}` when there are properties.
fn write_props(
    f: &mut fmt::Formatter<'_>,
    props: &[(&str, ValueRef<'_>)],
    ctx: Ctx,
    space: bool,
) -> fmt::Result {
    if props.is_empty() {
        return Ok(());
    }
    if space {
        f.write_str(" ")?;
    }
    write_map(f, props, ctx)
}

/// `[:TYPE {props}]` (with `#id` first in alternate mode).
fn write_rel_body(
    f: &mut fmt::Formatter<'_>,
    id: i64,
    rel_type: &str,
    props: &[(&str, ValueRef<'_>)],
    ctx: Ctx,
) -> fmt::Result {
    f.write_str("[")?;
    if f.alternate() {
        write!(f, "#{id}")?;
    }
    f.write_str(":")?;
    write_ident(f, rel_type)?;
    write_props(f, props, ctx, true)?;
    f.write_str("]")
}

// ---------------------------------------------------------------------------------------
// Node
// ---------------------------------------------------------------------------------------

/// Node `4E`: `(id, labels, properties[, element_id])`.
///
/// `Display` writes Cypher-like text, `(:Person {name: "Alice"})`; the alternate form
/// `{:#}` adds the id: `(#3:Person {name: "Alice"})`.
///
/// ```
/// use bolt::structs::{BoltStruct, EncodeStruct, Node};
/// use bolt::BoltVersion;
/// use packstream::ValueRef;
///
/// // docs/protocol.md §2.2.
/// let bytes = [0xB4, 0x4E, 0x03, 0x92, 0x87, 0x45, 0x78, 0x61, 0x6D, 0x70, 0x6C, 0x65, 0x84,
///     0x4E, 0x6F, 0x64, 0x65, 0xA1, 0x84, 0x6E, 0x61, 0x6D, 0x65, 0x87, 0x65, 0x78, 0x61, 0x6D,
///     0x70, 0x6C, 0x65, 0x86, 0x61, 0x62, 0x63, 0x31, 0x32, 0x33];
/// let value = ValueRef::decode_exact(&bytes).unwrap();
/// let BoltStruct::Node(node) = BoltStruct::from_value(&value, BoltVersion::V5_0).unwrap() else { panic!() };
/// assert_eq!((node.id, node.labels.as_slice(), node.element_id), (3, &["Example", "Node"][..], Some("abc123")));
/// assert_eq!(node.property("name"), Some(&ValueRef::String("example")));
/// assert_eq!(node.to_string(), r#"(:Example:Node {name: "example"})"#);
/// assert_eq!(node.to_bytes(BoltVersion::V5_0).unwrap(), bytes);
/// // Bolt 4 has no element id: three fields.
/// assert_eq!(node.to_bytes(BoltVersion::V4_4).unwrap()[0], 0xB3);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Node<'a> {
    /// The numeric id (deprecated by Neo4j, still sent).
    pub id: i64,
    /// The labels.
    pub labels: Vec<&'a str>,
    /// The properties, in wire order.
    pub properties: Properties<'a>,
    /// The element id (Bolt 5.0+).
    pub element_id: Option<&'a str>,
}

impl<'a> Node<'a> {
    /// The property `key` (the last entry wins on duplicates).
    #[must_use]
    pub fn property(&self, key: &str) -> Option<&ValueRef<'a>> {
        property(&self.properties, key)
    }

    pub(super) fn from_fields(f: Fields<'_, 'a>, version: BoltVersion) -> Field<Self> {
        let f = f.expect(StructKind::Node.field_count(version))?;
        Ok(Node {
            id: f.int(0, "id")?,
            labels: f.strings(1, "labels")?,
            properties: f.map(2, "properties")?.to_vec(),
            element_id: if version.has_element_ids() {
                Some(f.string(3, "element_id")?)
            } else {
                None
            },
        })
    }

    pub(super) fn encode_fields(
        &self,
        version: BoltVersion,
    ) -> Result<Vec<ValueRef<'_>>, StructEncodeError> {
        let mut fields = vec![
            ValueRef::Int(self.id),
            labels_value(&self.labels),
            ValueRef::Map(self.properties.clone()),
        ];
        if version.has_element_ids() {
            fields.push(need(
                self.element_id,
                StructKind::Node,
                "element_id",
                version,
            )?);
        }
        Ok(fields)
    }

    pub(super) fn write(&self, f: &mut fmt::Formatter<'_>, ctx: Ctx) -> fmt::Result {
        f.write_str("(")?;
        if f.alternate() {
            write!(f, "#{}", self.id)?;
        }
        for label in &self.labels {
            f.write_str(":")?;
            write_ident(f, label)?;
        }
        let space = f.alternate() || !self.labels.is_empty();
        write_props(f, &self.properties, ctx, space)?;
        f.write_str(")")
    }
}

impl fmt::Display for Node<'_> {
    /// `(:Label {key: value})`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, Ctx::ANY)
    }
}

// ---------------------------------------------------------------------------------------
// Relationship
// ---------------------------------------------------------------------------------------

/// Relationship `52`: `(id, start_node_id, end_node_id, type, properties[,
/// element_id, start_node_element_id, end_node_element_id])`.
///
/// `Display` writes `[:KNOWS {since: 2020}]`; the alternate form `{:#}` adds the ids
/// and endpoints: `(#2)-[#11:KNOWS]->(#3)`.
///
/// ```
/// use bolt::structs::{BoltStruct, EncodeStruct};
/// use bolt::BoltVersion;
/// use packstream::ValueRef;
///
/// // docs/protocol.md §2.3.
/// let bytes = [0xB8, 0x52, 0x0B, 0x02, 0x03, 0x85, 0x4B, 0x4E, 0x4F, 0x57, 0x53, 0xA0, 0x83,
///     0x72, 0x31, 0x31, 0x82, 0x6E, 0x32, 0x82, 0x6E, 0x33];
/// let value = ValueRef::decode_exact(&bytes).unwrap();
/// let BoltStruct::Relationship(r) = BoltStruct::from_value(&value, BoltVersion::V5_8).unwrap() else { panic!() };
/// assert_eq!((r.id, r.start_node_id, r.end_node_id, r.rel_type), (11, 2, 3, "KNOWS"));
/// assert_eq!((r.element_id, r.start_node_element_id, r.end_node_element_id), (Some("r11"), Some("n2"), Some("n3")));
/// assert_eq!(r.to_string(), "[:KNOWS]");
/// assert_eq!(format!("{r:#}"), "(#2)-[#11:KNOWS]->(#3)");
/// assert_eq!(r.to_bytes(BoltVersion::V5_8).unwrap(), bytes);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Relationship<'a> {
    /// The numeric id.
    pub id: i64,
    /// The start node's numeric id.
    pub start_node_id: i64,
    /// The end node's numeric id.
    pub end_node_id: i64,
    /// The relationship type.
    pub rel_type: &'a str,
    /// The properties, in wire order.
    pub properties: Properties<'a>,
    /// The element id (Bolt 5.0+).
    pub element_id: Option<&'a str>,
    /// The start node's element id (Bolt 5.0+).
    pub start_node_element_id: Option<&'a str>,
    /// The end node's element id (Bolt 5.0+).
    pub end_node_element_id: Option<&'a str>,
}

impl<'a> Relationship<'a> {
    /// The property `key` (the last entry wins on duplicates).
    #[must_use]
    pub fn property(&self, key: &str) -> Option<&ValueRef<'a>> {
        property(&self.properties, key)
    }

    pub(super) fn from_fields(f: Fields<'_, 'a>, version: BoltVersion) -> Field<Self> {
        let f = f.expect(StructKind::Relationship.field_count(version))?;
        let eids = version.has_element_ids();
        let eid = |i, name| -> Field<Option<&'a str>> {
            if eids {
                f.string(i, name).map(Some)
            } else {
                Ok(None)
            }
        };
        Ok(Relationship {
            id: f.int(0, "id")?,
            start_node_id: f.int(1, "start_node_id")?,
            end_node_id: f.int(2, "end_node_id")?,
            rel_type: f.string(3, "type")?,
            properties: f.map(4, "properties")?.to_vec(),
            element_id: eid(5, "element_id")?,
            start_node_element_id: eid(6, "start_node_element_id")?,
            end_node_element_id: eid(7, "end_node_element_id")?,
        })
    }

    pub(super) fn encode_fields(
        &self,
        version: BoltVersion,
    ) -> Result<Vec<ValueRef<'_>>, StructEncodeError> {
        let mut fields = vec![
            ValueRef::Int(self.id),
            ValueRef::Int(self.start_node_id),
            ValueRef::Int(self.end_node_id),
            ValueRef::String(self.rel_type),
            ValueRef::Map(self.properties.clone()),
        ];
        if version.has_element_ids() {
            let kind = StructKind::Relationship;
            fields.push(need(self.element_id, kind, "element_id", version)?);
            fields.push(need(
                self.start_node_element_id,
                kind,
                "start_node_element_id",
                version,
            )?);
            fields.push(need(
                self.end_node_element_id,
                kind,
                "end_node_element_id",
                version,
            )?);
        }
        Ok(fields)
    }

    pub(super) fn write(&self, f: &mut fmt::Formatter<'_>, ctx: Ctx) -> fmt::Result {
        if f.alternate() {
            write!(f, "(#{})-", self.start_node_id)?;
        }
        write_rel_body(f, self.id, self.rel_type, &self.properties, ctx)?;
        if f.alternate() {
            write!(f, "->(#{})", self.end_node_id)?;
        }
        Ok(())
    }
}

impl fmt::Display for Relationship<'_> {
    /// `[:TYPE {key: value}]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, Ctx::ANY)
    }
}

// ---------------------------------------------------------------------------------------
// UnboundRelationship
// ---------------------------------------------------------------------------------------

/// UnboundRelationship `72`: `(id, type, properties[, element_id])`, a relationship
/// without its endpoints, as it appears inside a [`Path`].
#[derive(Clone, Debug, PartialEq)]
pub struct UnboundRelationship<'a> {
    /// The numeric id.
    pub id: i64,
    /// The relationship type.
    pub rel_type: &'a str,
    /// The properties, in wire order.
    pub properties: Properties<'a>,
    /// The element id (Bolt 5.0+).
    pub element_id: Option<&'a str>,
}

impl<'a> UnboundRelationship<'a> {
    /// The property `key` (the last entry wins on duplicates).
    #[must_use]
    pub fn property(&self, key: &str) -> Option<&ValueRef<'a>> {
        property(&self.properties, key)
    }

    /// The full relationship running from `start` to `end` (the ids, and in Bolt 5 the
    /// element ids, come from the nodes).
    #[must_use]
    pub fn bind(&self, start: &Node<'a>, end: &Node<'a>) -> Relationship<'a> {
        Relationship {
            id: self.id,
            start_node_id: start.id,
            end_node_id: end.id,
            rel_type: self.rel_type,
            properties: self.properties.clone(),
            element_id: self.element_id,
            start_node_element_id: start.element_id,
            end_node_element_id: end.element_id,
        }
    }

    pub(super) fn from_fields(f: Fields<'_, 'a>, version: BoltVersion) -> Field<Self> {
        let f = f.expect(StructKind::UnboundRelationship.field_count(version))?;
        Ok(UnboundRelationship {
            id: f.int(0, "id")?,
            rel_type: f.string(1, "type")?,
            properties: f.map(2, "properties")?.to_vec(),
            element_id: if version.has_element_ids() {
                Some(f.string(3, "element_id")?)
            } else {
                None
            },
        })
    }

    pub(super) fn encode_fields(
        &self,
        version: BoltVersion,
    ) -> Result<Vec<ValueRef<'_>>, StructEncodeError> {
        let mut fields = vec![
            ValueRef::Int(self.id),
            ValueRef::String(self.rel_type),
            ValueRef::Map(self.properties.clone()),
        ];
        if version.has_element_ids() {
            fields.push(need(
                self.element_id,
                StructKind::UnboundRelationship,
                "element_id",
                version,
            )?);
        }
        Ok(fields)
    }

    pub(super) fn write(&self, f: &mut fmt::Formatter<'_>, ctx: Ctx) -> fmt::Result {
        write_rel_body(f, self.id, self.rel_type, &self.properties, ctx)
    }
}

impl fmt::Display for UnboundRelationship<'_> {
    /// `[:TYPE {key: value}]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, Ctx::ANY)
    }
}

// ---------------------------------------------------------------------------------------
// Path
// ---------------------------------------------------------------------------------------

/// A never-used fallback so that [`Path::start`] needs no panic path.
static NO_NODE: Node<'static> = Node {
    id: 0,
    labels: Vec::new(),
    properties: Vec::new(),
    element_id: None,
};

/// Path `50`: `(nodes, rels, indices)`, a validated walk through the graph
/// (docs/protocol.md §2.5).
///
/// `nodes[0]` starts the path; `indices` holds one `(r, n)` pair per hop: `r` is a
/// 1-based index into the relationships, negative when the hop goes against the
/// relationship's direction, and `n` a 0-based index into the nodes. Nodes and
/// relationships may repeat. A `Path` always satisfies these rules: [`Path::new`]
/// checks them, and decoding turns a path that breaks them into a
/// [`Broken`](super::Broken) value.
///
/// ```
/// use bolt::structs::{Node, Path, UnboundRelationship};
///
/// let node = |id| Node { id, labels: vec![], properties: vec![], element_id: None };
/// let rel = |id, t| UnboundRelationship { id, rel_type: t, properties: vec![], element_id: None };
/// // docs/protocol.md §2.5: (42)-[1000]->(69)-[1000]->(42)<-[1001]-(1)
/// let path = Path::new(
///     vec![node(42), node(69), node(1)],
///     vec![rel(1000, "A"), rel(1001, "B")],
///     vec![1, 1, 1, 0, -2, 2],
/// ).unwrap();
/// let hops: Vec<_> = path
///     .segments()
///     .map(|s| (s.start.id, s.relationship.id, s.end.id, s.reversed))
///     .collect();
/// assert_eq!(hops, [(42, 1000, 69, false), (69, 1000, 42, false), (42, 1001, 1, true)]);
/// assert_eq!((path.start().id, path.end().id, path.len()), (42, 1, 3));
/// assert_eq!(path.to_string(), "()-[:A]->()-[:A]->()<-[:B]-()");
/// // The last hop, as a full relationship, runs from node 1 to node 42.
/// let last = path.segments().last().unwrap().to_relationship();
/// assert_eq!((last.start_node_id, last.end_node_id), (1, 42));
///
/// assert!(Path::new(vec![node(1)], vec![], vec![1]).is_err()); // odd length
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Path<'a> {
    nodes: Vec<Node<'a>>,
    relationships: Vec<UnboundRelationship<'a>>,
    indices: Vec<i64>,
}

impl<'a> Path<'a> {
    /// A path from its three wire lists.
    ///
    /// # Errors
    /// [`BrokenReason::PathWithoutNodes`], [`BrokenReason::PathOddIndices`],
    /// [`BrokenReason::PathRelationshipIndex`] (0, or beyond the relationships) or
    /// [`BrokenReason::PathNodeIndex`] (negative, or beyond the nodes).
    pub fn new(
        nodes: Vec<Node<'a>>,
        relationships: Vec<UnboundRelationship<'a>>,
        indices: Vec<i64>,
    ) -> Result<Self, BrokenReason> {
        if nodes.is_empty() {
            return Err(BrokenReason::PathWithoutNodes);
        }
        if indices.len() % 2 != 0 {
            return Err(BrokenReason::PathOddIndices { len: indices.len() });
        }
        for (position, &index) in indices.iter().enumerate() {
            if position % 2 == 0 {
                let ok = usize::try_from(index.unsigned_abs())
                    .is_ok_and(|r| r >= 1 && r <= relationships.len());
                if !ok {
                    return Err(BrokenReason::PathRelationshipIndex {
                        position,
                        index,
                        relationships: relationships.len(),
                    });
                }
            } else if !usize::try_from(index).is_ok_and(|n| n < nodes.len()) {
                return Err(BrokenReason::PathNodeIndex {
                    position,
                    index,
                    nodes: nodes.len(),
                });
            }
        }
        Ok(Path {
            nodes,
            relationships,
            indices,
        })
    }

    /// The distinct nodes, in wire order (`nodes[0]` is the start).
    #[must_use]
    pub fn nodes(&self) -> &[Node<'a>] {
        &self.nodes
    }

    /// The distinct relationships, in wire order.
    #[must_use]
    pub fn relationships(&self) -> &[UnboundRelationship<'a>] {
        &self.relationships
    }

    /// The index pairs, flattened as on the wire.
    #[must_use]
    pub fn indices(&self) -> &[i64] {
        &self.indices
    }

    /// The three lists, taken apart.
    #[must_use]
    pub fn into_parts(self) -> (Vec<Node<'a>>, Vec<UnboundRelationship<'a>>, Vec<i64>) {
        (self.nodes, self.relationships, self.indices)
    }

    /// The number of hops (relationships traversed, counting repeats).
    #[must_use]
    pub fn len(&self) -> usize {
        self.indices.len() / 2
    }

    /// Whether the path has no hops (a single node).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The first node.
    #[must_use]
    pub fn start(&self) -> &Node<'a> {
        self.nodes.first().unwrap_or(&NO_NODE)
    }

    /// The last node (the start for a path without hops).
    #[must_use]
    pub fn end(&self) -> &Node<'a> {
        self.segments().last().map_or(self.start(), |s| s.end)
    }

    /// The hops, in order.
    #[must_use]
    pub fn segments(&self) -> Segments<'_, 'a> {
        Segments {
            path: self,
            pairs: self.indices.chunks_exact(2),
            current: self.start(),
        }
    }

    pub(super) fn from_fields(f: Fields<'_, 'a>, version: BoltVersion) -> Field<Self> {
        let f = f.expect(StructKind::Path.field_count(version))?;
        let nodes = path_items(f.list(0, "nodes")?, "nodes", StructKind::Node)?
            .into_iter()
            .enumerate()
            .map(|(index, fields)| {
                Node::from_fields(fields, version).map_err(|reason| BrokenReason::PathNode {
                    index,
                    reason: Box::new(reason),
                })
            })
            .collect::<Field<Vec<_>>>()?;
        let relationships =
            path_items(f.list(1, "rels")?, "rels", StructKind::UnboundRelationship)?
                .into_iter()
                .enumerate()
                .map(|(index, fields)| {
                    UnboundRelationship::from_fields(fields, version).map_err(|reason| {
                        BrokenReason::PathRelationship {
                            index,
                            reason: Box::new(reason),
                        }
                    })
                })
                .collect::<Field<Vec<_>>>()?;
        Path::new(nodes, relationships, f.ints(2, "indices")?)
    }

    pub(super) fn encode_fields(
        &self,
        version: BoltVersion,
    ) -> Result<Vec<ValueRef<'_>>, StructEncodeError> {
        let nodes = self
            .nodes
            .iter()
            .map(|n| n.to_struct_ref(version).map(ValueRef::Struct))
            .collect::<Result<Vec<_>, _>>()?;
        let rels = self
            .relationships
            .iter()
            .map(|r| r.to_struct_ref(version).map(ValueRef::Struct))
            .collect::<Result<Vec<_>, _>>()?;
        let indices = self.indices.iter().map(|i| ValueRef::Int(*i)).collect();
        Ok(vec![
            ValueRef::List(nodes),
            ValueRef::List(rels),
            ValueRef::List(indices),
        ])
    }

    pub(super) fn write(&self, f: &mut fmt::Formatter<'_>, ctx: Ctx) -> fmt::Result {
        self.start().write(f, ctx)?;
        for s in self.segments() {
            f.write_str(if s.reversed { "<-" } else { "-" })?;
            s.relationship.write(f, ctx)?;
            f.write_str(if s.reversed { "-" } else { "->" })?;
            s.end.write(f, ctx)?;
        }
        Ok(())
    }
}

impl fmt::Display for Path<'_> {
    /// `(:A)-[:R]->(:B)<-[:S]-(:C)`, every node and relationship in full.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, Ctx::ANY)
    }
}

/// The fields of each structure in a Path's node or relationship list, which must all
/// have `kind`'s tag.
fn path_items<'s, 'a>(
    list: &'s [ValueRef<'a>],
    name: &'static str,
    kind: StructKind,
) -> Field<Vec<Fields<'s, 'a>>> {
    let wrap = |index, reason| match kind {
        StructKind::Node => BrokenReason::PathNode {
            index,
            reason: Box::new(reason),
        },
        _ => BrokenReason::PathRelationship {
            index,
            reason: Box::new(reason),
        },
    };
    list.iter()
        .enumerate()
        .map(|(index, item)| match item {
            ValueRef::Struct(s) if s.tag == kind.tag() => Ok(Fields(&s.fields)),
            ValueRef::Struct(s) => Err(wrap(
                index,
                BrokenReason::WrongTag {
                    expected: kind.tag(),
                    found: s.tag,
                },
            )),
            other => Err(wrap(
                index,
                BrokenReason::ListItemType {
                    field: name,
                    index,
                    expected: "a structure",
                    found: other.type_name(),
                },
            )),
        })
        .collect()
}

/// One hop of a [`Path`], in path order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment<'p, 'a> {
    /// The node the hop leaves (the previous node in the path).
    pub start: &'p Node<'a>,
    /// The relationship traversed.
    pub relationship: &'p UnboundRelationship<'a>,
    /// The node the hop reaches (the next node in the path).
    pub end: &'p Node<'a>,
    /// `true` when the relationship points from `end` to `start`, against the path
    /// (a negative index on the wire).
    pub reversed: bool,
}

impl<'a> Segment<'_, 'a> {
    /// The relationship with its real endpoints: from `start` to `end`, or from `end`
    /// to `start` when [`reversed`](Segment::reversed).
    #[must_use]
    pub fn to_relationship(&self) -> Relationship<'a> {
        if self.reversed {
            self.relationship.bind(self.end, self.start)
        } else {
            self.relationship.bind(self.start, self.end)
        }
    }
}

/// Iterator over a [`Path`]'s hops; see [`Path::segments`].
#[derive(Clone, Debug)]
pub struct Segments<'p, 'a> {
    path: &'p Path<'a>,
    pairs: core::slice::ChunksExact<'p, i64>,
    current: &'p Node<'a>,
}

impl<'p, 'a> Iterator for Segments<'p, 'a> {
    type Item = Segment<'p, 'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let [r, n] = *self.pairs.next()? else {
            return None;
        };
        // Path::new checked both indices, so the lookups succeed.
        let relationship = usize::try_from(r.unsigned_abs())
            .ok()
            .and_then(|r| r.checked_sub(1))
            .and_then(|r| self.path.relationships.get(r))?;
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.path.nodes.get(n))?;
        let start = core::mem::replace(&mut self.current, end);
        Some(Segment {
            start,
            relationship,
            end,
            reversed: r < 0,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.pairs.size_hint()
    }
}

impl ExactSizeIterator for Segments<'_, '_> {}

// ---------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------

macro_rules! encode_graph {
    ($($ty:ident => $kind:ident),*) => {$(
        impl EncodeStruct for $ty<'_> {
            fn to_struct_ref(
                &self,
                version: BoltVersion,
            ) -> Result<StructRef<'_>, StructEncodeError> {
                super::encode::check_version(StructKind::$kind, version)?;
                Ok(StructRef {
                    tag: StructKind::$kind.tag(),
                    fields: self.encode_fields(version)?,
                })
            }
        }
    )*};
}
encode_graph!(
    Node => Node,
    Relationship => Relationship,
    UnboundRelationship => UnboundRelationship,
    Path => Path
);
