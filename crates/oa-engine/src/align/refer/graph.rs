//! One side's part of the WL reference graph of a group of scopes.
//!
//! Every record of the group is a vertex (scopes by name, records in order); a
//! nested scope adds a hub per occurrence of its record array, linked to its
//! records (role `"\0occurrence"`, labelled by the occurrence's place and the
//! number of its items that are not records, where it has any). Then each
//! carrier, in the order met, turns its references into the group into edges: from
//! itself when it is a record of the graph; one edge between two ends of different
//! roles (`a->b`, schema order); a
//! self-loop for one end; otherwise a hub with an edge to each end. A reference
//! reaches every record of its id. An edge's label is the carrier's: its exact
//! scalars, and its references out of the group (`["dangling"]` when no record of
//! its side has the id; else, into a resolved scope, the gold id's image under the
//! bijection, `["unmatched"]` for none, or the candidate id as written), as the
//! canonical rows of `label`. Seeds: `scope|` (the scope only when
//! the group holds several), with the record's own label in blend mode; `|` for hubs.
//!
//! Texts are code points (a string may hold a lone surrogate, as in Python).

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::error::ReferError;
use super::index::id_key;
use super::index::{Carrier, DocumentIndex};
use super::schema::ScopeSchema;
use crate::align::sorted_distinct;
use crate::compare::Value;
use crate::plan::ScopeId;
use crate::value::{write_canonical, write_json_str, write_json_string, IdKey, Json};

/// The role of a nested record in its array's occurrence.
pub const OCCURRENCE: &str = "\u{0}occurrence";

/// Which document the graph is built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Gold,
    Candidate,
}

/// What a vertex stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexKind {
    /// The record at this index of its scope.
    Record {
        scope: ScopeId,
        index: usize,
    },
    Hub,
}

/// A vertex: its kind, the pointer of its record (or hub carrier or occurrence), and
/// a hub's display label (a record's is the caller's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vertex {
    pub kind: VertexKind,
    pub pointer: String,
    pub label: String,
}

/// A directed edge between vertices (numbered in the whole union); the edges of
/// one carrier (or occurrence) share its label, the edges of one role its relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub source: usize,
    pub target: usize,
    pub relation: Arc<str>,
    pub label: Arc<[u32]>,
}

/// Vertices, edges and a seed per vertex, appended to side after side (the
/// records of a scope share one seed unless blend mode gives each its own).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Graph {
    pub vertices: Vec<Vertex>,
    pub edges: Vec<Edge>,
    pub seeds: Vec<Arc<[u32]>>,
}

/// What one side's edges and hubs share, each made once (an edge's own copy of its
/// role, a hub's of its seed, were a good part of a graph's allocations): the
/// relations met so far and the hubs' seed `|`.
struct Shared {
    relations: Vec<Arc<str>>,
    hub_seed: Arc<[u32]>,
}

impl Shared {
    fn new() -> Self {
        Shared {
            relations: Vec::new(),
            hub_seed: Arc::from([u32::from('|')].as_slice()),
        }
    }

    /// The shared relation named `text` (few relations: a linear search).
    fn relation(&mut self, text: &str) -> Arc<str> {
        self.find_or_make(|r| r == text, || Arc::from(text))
    }

    /// The shared relation `a->b`, its text made only the first time.
    fn joined(&mut self, a: &str, b: &str) -> Arc<str> {
        let named = |r: &str| {
            r.strip_prefix(a)
                .and_then(|rest| rest.strip_prefix("->"))
                .is_some_and(|rest| rest == b)
        };
        self.find_or_make(named, || {
            // `format!` costs more than the two roles' bytes
            let mut relation = String::with_capacity(a.len() + b.len() + 2);
            relation.extend([a, "->", b]);
            Arc::from(relation)
        })
    }

    fn find_or_make(
        &mut self,
        named: impl Fn(&str) -> bool,
        make: impl FnOnce() -> Arc<str>,
    ) -> Arc<str> {
        if let Some(found) = self.relations.iter().find(|r| named(r)) {
            return Arc::clone(found);
        }
        let made = make();
        self.relations.push(Arc::clone(&made));
        made
    }
}

/// The scopes resolved so far, each with its bijection (gold id -> the candidate id
/// as written, or `None` when unpaired; read on the gold side only).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resolution {
    pub bijections: BTreeMap<ScopeId, BTreeMap<IdKey, Option<Json>>>,
}

/// A label item's value: a value of the document, or a marker list.
enum Item<'a> {
    Value(&'a Json),
    Marker(&'static str),
}

fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Leaf(Value::Text(_)) => "string",
        Json::Leaf(Value::Number(_)) => "number",
        Json::Leaf(Value::Boolean(_)) => "boolean",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

fn text_of(value: &str) -> Vec<u32> {
    value.chars().map(u32::from).collect()
}

/// The buffers a label is written with, kept from label to label (a label is
/// small and made often: its lists' allocations were a good part of its cost).
#[derive(Default)]
struct Scratch {
    /// Every row's canonical text, side by side.
    texts: Vec<u32>,
    /// Each row: its item's index, its kind and its text's range in `texts`.
    rows: Vec<(usize, &'static str, std::ops::Range<usize>)>,
    out: Vec<u32>,
}

/// The sorted rows (role, kind, canonical JSON) as a compact JSON list of
/// string triples; "" for no rows. Written into `scratch.out`.
fn label(items: &[(&str, Item<'_>)], scratch: &mut Scratch) {
    let Scratch { texts, rows, out } = scratch;
    texts.clear();
    rows.clear();
    out.clear();
    if items.is_empty() {
        return;
    }
    for (k, (_, item)) in items.iter().enumerate() {
        let start = texts.len();
        let kind = match item {
            Item::Value(value) => {
                if write_canonical(value, texts).is_err() {
                    texts.truncate(start); // no canonical text: an empty one
                }
                kind(value)
            }
            Item::Marker(word) => {
                texts.extend(
                    "[\""
                        .chars()
                        .chain(word.chars())
                        .chain("\"]".chars())
                        .map(u32::from),
                );
                "array"
            }
        };
        rows.push((k, kind, start..texts.len()));
    }
    let text = |range: &std::ops::Range<usize>| texts.get(range.clone()).unwrap_or_default();
    let role = |k: usize| items.get(k).map_or("", |(role, _)| *role);
    // str order is code point order, which is UTF-8 byte order for roles and kinds
    rows.sort_by(|a, b| (role(a.0), a.1, text(&a.2)).cmp(&(role(b.0), b.1, text(&b.2))));
    out.reserve(texts.len() + 32 * rows.len());
    out.push(u32::from('['));
    for (k, (item, kind, range)) in rows.iter().enumerate() {
        if k > 0 {
            out.push(u32::from(','));
        }
        out.push(u32::from('['));
        write_json_str(role(*item), out);
        out.push(u32::from(','));
        write_json_str(kind, out);
        out.push(u32::from(','));
        write_json_string(text(range), out);
        out.push(u32::from(']'));
    }
    out.push(u32::from(']'));
}

/// An identifier as a reference names it: a text borrowed from the document (its
/// key would copy it), any other key made.
enum Named<'a> {
    Text(&'a [u32]),
    Other(IdKey),
}

impl<'a> Named<'a> {
    /// `id_key` of `value`, a text borrowed.
    fn of(value: &'a Json) -> Option<Self> {
        match value {
            Json::Leaf(Value::Text(text)) => Some(Named::Text(text)),
            _ => id_key(value).map(Named::Other),
        }
    }

    /// How `key` orders against the key named (`IdKey`'s order: numbers first).
    fn order(&self, key: &IdKey) -> Ordering {
        match (key, self) {
            (IdKey::Text(key), Named::Text(text)) => key.as_slice().cmp(text),
            (IdKey::Number(_), Named::Text(_)) => Ordering::Less,
            (key, Named::Other(other)) => key.cmp(other),
        }
    }
}

/// What a carrier's label reads: the group, the side, the resolution, and the ids of
/// the unresolved scopes' records.
struct Context<'a> {
    group: &'a BTreeSet<ScopeId>,
    side: Side,
    resolution: &'a Resolution,
    /// The distinct ids of each scope out of the group, sorted (searched by a
    /// borrowed id).
    ids: BTreeMap<ScopeId, Vec<&'a IdKey>>,
    /// A label's items, kept from label to label (emptied after each).
    items: Vec<(&'a str, Item<'a>)>,
    scratch: Scratch,
}

impl<'a> Context<'a> {
    /// Whether some record of `scope` (out of the group) has the id `value` names.
    fn names_a_record(&self, scope: ScopeId, value: &Json) -> bool {
        Named::of(value).is_some_and(|named| {
            self.ids
                .get(&scope)
                .is_some_and(|ids| ids.binary_search_by(|key| named.order(key)).is_ok())
        })
    }

    /// A carrier's label: its references and exact scalars as canonical rows
    /// (in `self.scratch.out`).
    fn carrier_label(&mut self, carrier: &'a Carrier<'_>) -> &[u32] {
        let mut items = std::mem::take(&mut self.items);
        items.extend(
            carrier
                .scalars
                .iter()
                .map(|(role, value)| (&**role, Item::Value(value))),
        );
        for reference in &carrier.refs {
            if self.group.contains(&reference.scope) {
                continue;
            }
            let role = &*reference.role;
            // whether it names a record is known on each side alone (so relabelling
            // changes nothing); one that names none dangles, and dangling references
            // agree whatever their ids, as the scoring pass scores them
            if !self.names_a_record(reference.scope, reference.value) {
                items.push((role, Item::Marker("dangling")));
                continue;
            }
            match self.resolution.bijections.get(&reference.scope) {
                None => {} // which record it names is not known yet
                Some(bijection) => match self.side {
                    Side::Gold => {
                        let mapped = id_key(reference.value)
                            .and_then(|key| bijection.get(&key))
                            .and_then(Option::as_ref);
                        items.push((role, mapped.map_or(Item::Marker("unmatched"), Item::Value)));
                    }
                    Side::Candidate => items.push((role, Item::Value(reference.value))),
                },
            }
        }
        label(&items, &mut self.scratch);
        items.clear();
        self.items = items;
        &self.scratch.out
    }
}

/// Append one side's vertices, edges and seeds for `group` to `graph` (its vertices
/// numbered after those already there).
pub fn build_graph(
    index: &DocumentIndex,
    schema: &ScopeSchema,
    side: Side,
    group: &BTreeSet<ScopeId>,
    resolution: &Resolution,
    blend: bool,
    graph: &mut Graph,
) -> Result<(), ReferError> {
    let mut ids = BTreeMap::new();
    for declared in schema.plan().scopes() {
        let scope = schema
            .plan()
            .scope_id(&declared.name)
            .ok_or_else(|| ReferError::UnknownScope(declared.name.clone()))?;
        // a label reads the ids of the scopes out of the group only
        if !group.contains(&scope) {
            let keys = index
                .scope_records(scope)
                .iter()
                .filter_map(|r| r.key.as_ref())
                .collect();
            ids.insert(scope, sorted_distinct(keys));
        }
    }
    let mut context = Context {
        group,
        side,
        resolution,
        ids,
        items: Vec::new(),
        scratch: Scratch::default(),
    };
    let mut shared = Shared::new();
    // (scope, id, vertex), sorted once: a key's vertices are a run, in vertex order
    let mut vertices_of: Vec<(ScopeId, &IdKey, usize)> = Vec::new();
    // a vertex per record, at least: the lists grow once, not push by push
    let records: usize = group.iter().map(|&s| index.scope_records(s).len()).sum();
    graph.vertices.reserve(records);
    graph.seeds.reserve(records);
    let mut first_vertex: BTreeMap<ScopeId, usize> = BTreeMap::new();
    for &scope in group {
        let records = index.scope_records(scope);
        let name = schema.name(scope)?;
        first_vertex.insert(scope, graph.vertices.len());
        let mut base: Vec<u32> = if group.len() > 1 {
            text_of(name)
        } else {
            Vec::new()
        };
        base.push(u32::from('|'));
        let scope_seed: Arc<[u32]> = Arc::from(base.as_slice());
        for (i, record) in records.iter().enumerate() {
            let vertex = graph.vertices.len();
            if let Some(key) = &record.key {
                vertices_of.push((scope, key, vertex));
            }
            graph.vertices.push(Vertex {
                kind: VertexKind::Record { scope, index: i },
                pointer: record.pointer.clone(),
                label: String::new(),
            });
            let own = blend
                .then(|| index.carrier(record.carrier))
                .flatten()
                .map(|carrier| context.carrier_label(carrier));
            graph.seeds.push(match own {
                Some(own) => {
                    let mut seed = Vec::with_capacity(base.len() + own.len());
                    seed.extend_from_slice(&base);
                    seed.extend_from_slice(own);
                    seed.into()
                }
                None => Arc::clone(&scope_seed),
            });
        }
        if schema.is_nested(scope) {
            occurrence_hubs(
                index,
                scope,
                first_vertex.get(&scope).copied().unwrap_or(0),
                &mut shared,
                graph,
            );
        }
    }
    vertices_of.sort_unstable();
    let mut ends: Vec<(&str, usize)> = Vec::new();
    for carrier in index.carriers() {
        // a reference to an id that several records share reaches all of them
        ends.clear();
        for reference in carrier.refs.iter().filter(|r| group.contains(&r.scope)) {
            if let Some(named) = Named::of(reference.value) {
                let order = |&(s, k, _): &(ScopeId, &IdKey, usize)| {
                    s.cmp(&reference.scope).then_with(|| named.order(k))
                };
                let start = vertices_of.partition_point(|end| order(end) == Ordering::Less);
                for &(_, _, v) in vertices_of
                    .get(start..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|end| order(end) == Ordering::Equal)
                {
                    ends.push((&*reference.role, v));
                }
            }
        }
        if ends.is_empty() {
            continue;
        }
        let label: Arc<[u32]> = Arc::from(context.carrier_label(carrier));
        graph.edges.reserve(ends.len());
        let own = carrier.record.and_then(|(scope, i)| {
            group
                .contains(&scope)
                .then(|| first_vertex.get(&scope).map(|first| first + i))
                .flatten()
        });
        let edge = |source: usize, target: usize, relation: Arc<str>| Edge {
            source,
            target,
            relation,
            label: Arc::clone(&label),
        };
        match (own, ends.as_slice()) {
            (Some(own), _) => {
                for &(role, v) in &ends {
                    graph.edges.push(edge(own, v, shared.relation(role)));
                }
            }
            (None, [(a, u), (b, v)]) if a != b => {
                graph.edges.push(edge(*u, *v, shared.joined(a, b)));
            }
            (None, [(role, v)]) => graph.edges.push(edge(*v, *v, shared.relation(role))),
            (None, _) => {
                let hub = graph.vertices.len();
                let pointer = index.carrier_pointer(carrier);
                let shown = if pointer.is_empty() { "/" } else { pointer };
                graph.vertices.push(Vertex {
                    kind: VertexKind::Hub,
                    pointer: pointer.to_owned(),
                    label: format!("{}-way {shown}", ends.len()),
                });
                graph.seeds.push(Arc::clone(&shared.hub_seed));
                for &(role, v) in &ends {
                    graph.edges.push(edge(hub, v, shared.relation(role)));
                }
            }
        }
    }
    Ok(())
}

/// A hub per occurrence of a nested scope's record array (the
/// records' parent pointer), in the order met, with an edge to each of its records
/// labelled by the occurrence's place (its positions in fixed-order lists are scored:
/// structure too) and, where it has any, the number of its items that are not
/// records.
fn occurrence_hubs(
    index: &DocumentIndex,
    scope: ScopeId,
    first: usize,
    shared: &mut Shared,
    graph: &mut Graph,
) {
    let mut occurrences: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, record) in index.scope_records(scope).iter().enumerate() {
        // a record's pointer ends with its index: the parent is what precedes it
        let parent = record
            .pointer
            .rfind('/')
            .and_then(|cut| record.pointer.get(..cut))
            .unwrap_or("");
        match seen.get(parent).and_then(|&k| occurrences.get_mut(k)) {
            Some((_, members)) => members.push(i),
            None => {
                seen.insert(parent, occurrences.len());
                occurrences.push((parent, vec![i]));
            }
        }
    }
    for (pointer, members) in occurrences {
        let hub = graph.vertices.len();
        // every occurrence was noted as its array was met
        let (place, loose) = index
            .occurrences
            .get(pointer)
            .map_or(("", 0), |o| (o.place.as_str(), o.loose));
        let shown = if pointer.is_empty() { "/" } else { pointer };
        graph.vertices.push(Vertex {
            kind: VertexKind::Hub,
            pointer: pointer.to_owned(),
            label: format!("{} in {shown}", members.len()),
        });
        graph.seeds.push(Arc::clone(&shared.hub_seed));
        // an occurrence of records only is labelled by its place alone
        let label: Arc<[u32]> = if loose > 0 {
            text_of(&format!("{place} (+{loose} non-record)")).into()
        } else {
            text_of(place).into()
        };
        for i in members {
            graph.edges.push(Edge {
                source: hub,
                target: first + i,
                relation: shared.relation(OCCURRENCE),
                label: Arc::clone(&label),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::refer::fixture::schema;
    use crate::align::refer::index::index_document;

    fn text(value: &str) -> Json {
        Json::Leaf(Value::from(value))
    }

    #[test]
    fn a_named_id_orders_against_keys_as_its_own_key_does() {
        use crate::compare::{Integer, Number};
        let number = |n: i64| Json::Leaf(Value::Number(Number::Int(Integer::Small(n))));
        let ids = [
            text(""),
            text("a"),
            text("ab"),
            text("b"),
            number(-1),
            number(0),
            number(7),
        ];
        let keys: Vec<IdKey> = ids.iter().filter_map(id_key).collect();
        assert_eq!(keys.len(), ids.len());
        for id in &ids {
            let (named, own) = (Named::of(id), id_key(id));
            for key in &keys {
                assert_eq!(
                    named.as_ref().map(|n| n.order(key)),
                    own.as_ref().map(|own| key.cmp(own)),
                    "{id:?} against {key:?}"
                );
            }
        }
    }

    fn object(entries: &[(&str, &str)]) -> Json {
        Json::object(
            entries
                .iter()
                .map(|(k, v)| ((*k).to_owned(), text(v)))
                .collect(),
        )
    }

    fn document(people: &[&[(&str, &str)]], links: &[&[(&str, &str)]]) -> Json {
        let list =
            |items: &[&[(&str, &str)]]| Json::Array(items.iter().map(|e| object(e)).collect());
        Json::object(vec![
            ("people".into(), list(people)),
            ("links".into(), list(links)),
            ("teams".into(), list(&[&[("name", "red")]])),
        ])
    }

    fn graph(doc: &Json, side: Side, resolution: &Resolution, blend: bool) -> Graph {
        let schema = schema();
        let index = index_document(doc, &schema, 64).unwrap();
        let group = BTreeSet::from([schema.plan().scope_id("person").unwrap()]);
        let mut graph = Graph::default();
        build_graph(&index, &schema, side, &group, resolution, blend, &mut graph).unwrap();
        graph
    }

    fn shown(text: &[u32]) -> String {
        text.iter().filter_map(|&c| char::from_u32(c)).collect()
    }

    fn edges(graph: &Graph) -> Vec<(usize, usize, &str, String)> {
        graph
            .edges
            .iter()
            .map(|e| (e.source, e.target, &*e.relation, shown(&e.label)))
            .collect()
    }

    #[test]
    fn references_become_edges_loops_and_hubs() {
        let doc = document(
            &[
                &[("id", "x"), ("boss", "y")],
                &[("id", "y")],
                &[("id", "w")],
                &[("id", "w"), ("boss", "w")],
            ],
            &[
                &[("a", "x"), ("b", "y")],
                &[("a", "x"), ("b", "nobody")],
                &[("a", "w")],
            ],
        );
        let found = graph(&doc, Side::Gold, &Resolution::default(), false);
        let plain = String::new();
        assert_eq!(
            edges(&found),
            [
                (0, 1, "boss", plain.clone()),
                // a record referencing an id two records share reaches both
                (3, 2, "boss", plain.clone()),
                (3, 3, "boss", plain.clone()),
                // two ends of different roles: one edge, in schema order (b, then a)
                (1, 0, "b->a", plain.clone()),
                (0, 0, "a", plain.clone()),
                (4, 2, "a", plain.clone()),
                (4, 3, "a", plain.clone()),
            ]
        );
        let hub = found.vertices.get(4).unwrap();
        assert_eq!(
            (hub.kind, hub.label.as_str()),
            (VertexKind::Hub, "2-way /links/2")
        );
        assert_eq!(
            found.seeds.iter().map(|s| shown(s)).collect::<Vec<_>>(),
            ["|"; 5]
        );
    }

    #[test]
    fn labels_hold_exact_scalars_and_references_out_of_the_group() {
        let doc = document(
            &[
                &[("id", "x"), ("boss", "x"), ("tag", "t"), ("team", "red")],
                &[("id", "y"), ("boss", "y"), ("team", "blue")],
            ],
            &[],
        );
        let found = graph(&doc, Side::Gold, &Resolution::default(), true);
        let tag = r#"["tag","string","\"t\""]"#;
        let dangling = r#"["team","array","[\"dangling\"]"]"#;
        assert_eq!(
            edges(&found),
            [
                (0, 0, "boss", format!("[{tag}]")),
                (1, 1, "boss", format!("[{dangling}]")),
            ]
        );
        // blend mode seeds a record with its own label
        assert_eq!(shown(found.seeds.first().unwrap()), format!("|[{tag}]"));
        let team = schema().plan().scope_id("team").unwrap();
        let red = id_key(&text("red")).unwrap();
        let resolved = |image: Option<Json>| Resolution {
            bijections: BTreeMap::from([(team, BTreeMap::from([(red.clone(), image)]))]),
        };
        let gold = graph(&doc, Side::Gold, &resolved(Some(text("rot"))), false);
        let unpaired = graph(&doc, Side::Gold, &resolved(None), false);
        let candidate = graph(&doc, Side::Candidate, &resolved(None), false);
        let labels = |g: &Graph| g.edges.iter().map(|e| shown(&e.label)).collect::<Vec<_>>();
        let unmatched = r#"["team","array","[\"unmatched\"]"]"#;
        // red is a team's id: the gold writes its image (or that it has none), the
        // candidate the id itself; no team is blue: that reference dangles on either
        // side, as it does unresolved (dangling references agree, whatever their ids)
        assert_eq!(
            labels(&gold),
            [
                format!(r#"[{tag},["team","string","\"rot\""]]"#),
                format!("[{dangling}]")
            ]
        );
        assert_eq!(
            labels(&unpaired).first(),
            Some(&format!("[{tag},{unmatched}]"))
        );
        assert_eq!(
            labels(&candidate),
            [
                format!(r#"[{tag},["team","string","\"red\""]]"#),
                format!("[{dangling}]")
            ]
        );
    }

    /// xorshift64: a fixed stream of draws.
    struct Stream(u64);

    impl Stream {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            usize::try_from(self.0 % u64::try_from(n.max(1)).unwrap_or(1)).unwrap_or(0)
        }

        fn pick<T: Copy + Default>(&mut self, values: &[T]) -> T {
            let k = self.below(values.len());
            values.get(k).copied().unwrap_or_default()
        }

        /// An item of a record list: mostly record-shaped, ids from a small pool.
        fn item(&mut self) -> Json {
            if self.below(4) == 0 {
                return self.value(1);
            }
            let mut entries = Vec::new();
            for key in ["id", "boss", "team", "a", "b", "name", "tag"] {
                if self.below(2) == 0 {
                    let value = if self.below(4) == 0 {
                        self.value(2)
                    } else {
                        text(self.pick(&["x", "y", "w", "red"]))
                    };
                    entries.push((key.to_owned(), value));
                }
            }
            Json::object(entries)
        }

        /// A value of any kind, ids and wrong kinds alike, nested a little.
        fn value(&mut self, depth: usize) -> Json {
            let keys = [
                "id", "boss", "team", "tag", "steps", "aliases", "a", "b", "name", "zz",
            ];
            match self.below(if depth > 2 { 6 } else { 8 }) {
                0 => Json::Null,
                1 => text(self.pick(&["x", "y", "w", "red", "\u{0}"])),
                2 => Json::Leaf(Value::Number(crate::compare::Number::Float(self.pick(&[
                    1.0,
                    -0.0,
                    0.5,
                    f64::NAN,
                    f64::INFINITY,
                    1e300,
                ])))),
                3 => Json::Leaf(Value::Number(crate::compare::Number::Int(
                    crate::compare::Integer::from(i64::try_from(self.below(4)).unwrap_or(0)),
                ))),
                4 => Json::Leaf(Value::Boolean(self.below(2) == 0)),
                5 => text("y"),
                6 => Json::Array((0..self.below(4)).map(|_| self.value(depth + 1)).collect()),
                _ => Json::object(
                    (0..self.below(5))
                        .map(|_| {
                            let key = self.pick(&keys);
                            (key.to_owned(), self.value(depth + 1))
                        })
                        .collect(),
                ),
            }
        }
    }

    #[test]
    fn hostile_documents_give_graphs_in_range() {
        let schema = schema();
        let (person, team) = (
            schema.plan().scope_id("person").unwrap(),
            schema.plan().scope_id("team").unwrap(),
        );
        let mut stream = Stream(0x9E37_79B9_7F4A_7C15);
        let mut edges = 0;
        for _ in 0..300 {
            let mut entries = Vec::new();
            for key in ["people", "links", "teams", "chain", "zz"] {
                if stream.below(4) > 0 {
                    let value = if stream.below(5) == 0 {
                        stream.value(1)
                    } else {
                        Json::Array((0..stream.below(6)).map(|_| stream.item()).collect())
                    };
                    entries.push((key.to_owned(), value));
                }
            }
            let doc = Json::object(entries);
            let index = index_document(&doc, &schema, 16).unwrap();
            let key = id_key(&text("red")).unwrap();
            let bijection = BTreeMap::from([(key, Some(stream.value(3)))]);
            for (group, resolution) in [
                (BTreeSet::from([person]), Resolution::default()),
                (
                    BTreeSet::from([person]),
                    Resolution {
                        bijections: BTreeMap::from([(team, bijection)]),
                    },
                ),
                (BTreeSet::from([person, team]), Resolution::default()),
            ] {
                for side in [Side::Gold, Side::Candidate] {
                    let mut graph = Graph::default();
                    build_graph(&index, &schema, side, &group, &resolution, true, &mut graph)
                        .unwrap();
                    let n = graph.vertices.len();
                    assert_eq!(graph.seeds.len(), n);
                    assert!(graph.edges.iter().all(|e| e.source < n && e.target < n));
                    edges += graph.edges.len();
                }
            }
        }
        assert!(edges > 300, "the draws make graphs: {edges} edges");
    }
}
