//! `index_document`: the records of every scope and the reference carriers of one
//! document, in the order a walk of the document meets them (keys in schema order,
//! see below).
//!
//! A *carrier* is the nearest enclosing object that is an array item (the root
//! object for what lies outside any array). It collects the references below it
//! (scope, role, value) and its exactly compared scalars (role, value): the role is
//! the path of keys from the carrier down (`*` for an item of an unordered list, its
//! position in a fixed-order one). An item of a fixed-order list that is not a
//! record carries its position (role `"\0position"`). Keys are read in schema order,
//! then the undeclared ones sorted.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use super::error::ReferError;
use super::schema::ScopeSchema;
use crate::compare::{Comparator, Integer, Number, Value};
use crate::plan::{NodeId, NodeType, Order, ScopeId};
use crate::pointer::{push_decimal, push_token};
use crate::value::{canonical_text, IdKey, Json};

/// The role of an item's position in a fixed-order list.
pub const POSITION: &str = "\u{0}position";

/// One step of a path from the document's root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// A step as the walk meets it: a key borrowed from the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum At<'d> {
    Key(&'d str),
    Index(usize),
}

/// A record of a scope: an item of its record array, borrowed from the document.
#[derive(Clone, Debug, PartialEq)]
pub struct Record<'d> {
    pub pointer: String,
    /// The steps from the root to the record, in [`DocumentIndex`]'s path store
    /// ([`DocumentIndex::path`] reads them).
    path: Range<usize>,
    pub value: &'d Json,
    /// The identifier's key, `None` when the id is missing or no identifier.
    pub key: Option<IdKey>,
    /// The record's carrier, an index into [`DocumentIndex::carriers`].
    pub carrier: usize,
}

/// A reference of a carrier.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference<'d> {
    pub scope: ScopeId,
    /// Borrowed from the document where the role is one key (most are).
    pub role: Cow<'d, str>,
    pub value: &'d Json,
}

/// An object that carries references and scalars (see the module).
#[derive(Clone, Debug, PartialEq)]
pub struct Carrier<'d> {
    /// Empty for a record's carrier: [`DocumentIndex::carrier_pointer`] reads it.
    pointer: String,
    pub refs: Vec<Reference<'d>>,
    /// The document's scalars, and the position an item of a fixed-order list is at.
    pub scalars: Vec<(Cow<'d, str>, Cow<'d, Json>)>,
    /// (scope, index) when the carrier is a record.
    pub record: Option<(ScopeId, usize)>,
}

impl Carrier<'_> {
    fn new(pointer: String) -> Self {
        Carrier {
            pointer,
            refs: Vec::new(),
            scalars: Vec::new(),
            record: None,
        }
    }
}

/// An occurrence of a nested scope's record array, as its hub in the WL graph is
/// labelled: its place, and how many of its items are not records (items the scope
/// does not pair, which the scoring pass aligns among themselves: occurrences that
/// differ in them are told apart, so that look-alike records follow their own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    /// The array's pointer with the indices of order-agnostic lists written `*` (the
    /// positions that are scored, and the keys).
    pub place: String,
    /// Its items that are not objects.
    pub loose: usize,
}

/// The records of every scope (by [`ScopeId`] index), the carriers in the order
/// they were met (the root's first, when the document is an object), and the place
/// of each occurrence of a nested scope's record array; all borrowed from the
/// document `'d`.
#[derive(Clone, Debug, PartialEq)]
pub struct DocumentIndex<'d> {
    pub records: Vec<Vec<Record<'d>>>,
    /// An occurrence's pointer -> what its hub is labelled by.
    pub occurrences: BTreeMap<String, Occurrence>,
    carriers: Vec<Carrier<'d>>,
    /// Every record's path, one after another (a record holds its range).
    steps: Vec<At<'d>>,
    /// The root carrier is a carrier only when the document is an object.
    root_listed: bool,
}

impl<'d> DocumentIndex<'d> {
    /// The carriers, in the order they were met.
    pub fn carriers(&self) -> &[Carrier<'d>] {
        let skip = usize::from(!self.root_listed);
        self.carriers.get(skip..).unwrap_or(&[])
    }

    /// A carrier by its index (a record's [`Record::carrier`]).
    pub fn carrier(&self, index: usize) -> Option<&Carrier<'d>> {
        self.carriers.get(index)
    }

    /// A carrier's JSON Pointer (a record's carrier: its record's).
    pub fn carrier_pointer<'s>(&'s self, carrier: &'s Carrier<'d>) -> &'s str {
        match carrier.record {
            Some((scope, i)) => self
                .scope_records(scope)
                .get(i)
                .map_or("", |record| record.pointer.as_str()),
            None => &carrier.pointer,
        }
    }

    /// A scope's records.
    pub fn scope_records(&self, scope: ScopeId) -> &[Record<'d>] {
        self.records.get(scope.index()).map_or(&[], Vec::as_slice)
    }

    /// The steps from the root to one of this index's records (the pointer's
    /// tokens, unescaped): made here, as only what `align` shows reads them.
    pub fn path(&self, record: &Record<'_>) -> Vec<Step> {
        self.steps
            .get(record.path.clone())
            .unwrap_or(&[])
            .iter()
            .map(|step| match *step {
                At::Key(key) => Step::Key(key.to_owned()),
                At::Index(i) => Step::Index(i),
            })
            .collect()
    }

    /// The indices of a scope's records whose id some reference of the document names
    /// (such an id matters to the score, any other id does not: `Documents::alike`
    /// leaves the others out).
    pub fn named_records(&self, scope: ScopeId) -> Vec<usize> {
        let named: BTreeSet<IdKey> = self
            .carriers()
            .iter()
            .flat_map(|carrier| &carrier.refs)
            .filter(|reference| reference.scope == scope)
            .filter_map(|reference| id_key(reference.value))
            .collect();
        self.scope_records(scope)
            .iter()
            .enumerate()
            .filter(|(_, record)| record.key.as_ref().is_some_and(|key| named.contains(key)))
            .map(|(k, _)| k)
            .collect()
    }

    /// A record's canonical JSON with every list in the order of its
    /// items' canonical JSON (when the text holds a list at all), then as written.
    pub fn record_key(record: &Record<'_>) -> (Vec<u32>, Vec<u32>) {
        value_key(record.value)
    }
}

/// [`DocumentIndex::record_key`] of a record's value.
pub fn value_key(value: &Json) -> (Vec<u32>, Vec<u32>) {
    let text = canonical(value);
    let free = if text.contains(&u32::from('[')) {
        canonical(&order_free(value))
    } else {
        text.clone()
    };
    (free, text)
}

/// `id_key`: the key of an identifier, `None` for a value that identifies nothing (a
/// non-finite number, which no converted document holds, identifies nothing here).
pub fn id_key(value: &Json) -> Option<IdKey> {
    IdKey::of(value).ok().flatten()
}

/// Canonical text of a converted document (finite numbers only: cannot fail).
fn canonical(value: &Json) -> Vec<u32> {
    canonical_text(value).unwrap_or_default()
}

/// `value` with every list sorted by its items' canonical text.
fn order_free(value: &Json) -> Json {
    match value {
        Json::Object(entries) => Json::Object(
            entries
                .iter()
                .map(|(key, item)| (key.clone(), order_free(item)))
                .collect(),
        ),
        Json::Array(items) => {
            let mut keyed: Vec<(Vec<u32>, Json)> = items
                .iter()
                .map(|item| {
                    let free = order_free(item);
                    (canonical(&free), free)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.cmp(&b.0)); // stable, as Python's sorted
            Json::Array(keyed.into_iter().map(|(_, item)| item).collect())
        }
        leaf => leaf.clone(),
    }
}

/// The entry of `key` in an object's entries (sorted by key, as a converted
/// document's are). Keys compared byte by byte inline (the order of `str`): these
/// short keys cost more through a `memcmp` call per probe.
fn entry_of<'d>(entries: &'d [(String, Json)], key: &str) -> Option<&'d (String, Json)> {
    entries
        .binary_search_by(|(name, _)| name.bytes().cmp(key.bytes()))
        .ok()
        .and_then(|found| entries.get(found))
}

/// The walk's pointer, role and place, each one string grown on the way down and
/// cut back on the way up (a string is made only for what the index keeps).
struct Trail<'d> {
    pointer: String,
    role: String,
    /// Written only when some scope is nested (places are kept only then).
    place: String,
    path: Vec<At<'d>>,
}

/// The step from a carrier's object down to a leaf: a key of the document, or a
/// list's item, whose slot is its position in a fixed-order list, else `*`.
#[derive(Clone, Copy)]
enum Slot<'d> {
    Key(&'d str),
    Item { position: usize, positional: bool },
}

/// Room for the trail's strings and steps made once: most documents' paths fit,
/// and they grow no more on the way down.
const TRAIL_CAPACITY: usize = 64;
const TRAIL_STEPS: usize = 8;

/// The lengths a [`Trail`] is cut back to.
#[derive(Clone, Copy)]
struct Mark {
    pointer: usize,
    role: usize,
    place: usize,
    path: usize,
}

impl<'d> Trail<'d> {
    /// An empty trail; `places`, whether its place is written at all.
    fn new(places: bool) -> Self {
        Trail {
            pointer: String::with_capacity(TRAIL_CAPACITY),
            role: String::with_capacity(TRAIL_CAPACITY),
            place: if places {
                String::with_capacity(TRAIL_CAPACITY)
            } else {
                String::new()
            },
            path: Vec::with_capacity(TRAIL_STEPS),
        }
    }

    fn mark(&self) -> Mark {
        Mark {
            pointer: self.pointer.len(),
            role: self.role.len(),
            place: self.place.len(),
            path: self.path.len(),
        }
    }

    fn cut(&mut self, mark: Mark) {
        self.pointer.truncate(mark.pointer);
        self.role.truncate(mark.role);
        self.place.truncate(mark.place);
        self.path.truncate(mark.path);
    }

    /// The role one `slot` further down.
    fn push_role(&mut self, slot: Slot<'_>) {
        if !self.role.is_empty() {
            self.role.push('/');
        }
        push_slot(&mut self.role, slot);
    }

    /// The role one `step` further down (the trail left as it was): the step itself,
    /// borrowed, where the role is empty and the step is a key of the document.
    fn role_below(&mut self, step: Option<Slot<'d>>) -> Cow<'d, str> {
        let slot = match step {
            None => return Cow::Owned(self.role.clone()),
            Some(Slot::Key(key)) if self.role.is_empty() => return Cow::Borrowed(key),
            Some(slot) => slot,
        };
        let mark = self.mark();
        self.push_role(slot);
        let role = self.role.clone();
        self.cut(mark);
        Cow::Owned(role)
    }

    /// One step down to the entry `key`: the key in the pointer, the role and the
    /// place.
    fn down_key(&mut self, key: &'d str, places: bool) {
        push_token(&mut self.pointer, key);
        self.push_role(Slot::Key(key));
        if places {
            push_token(&mut self.place, key);
        }
        self.path.push(At::Key(key));
    }

    /// One step down to a list's item at `position`: the position in the pointer,
    /// its slot in the role and the place (no token of either needs an escape).
    fn down_item(&mut self, position: usize, positional: bool, places: bool) {
        self.pointer.push('/');
        push_decimal(&mut self.pointer, position);
        let slot = Slot::Item {
            position,
            positional,
        };
        self.push_role(slot);
        if places {
            self.place.push('/');
            push_slot(&mut self.place, slot);
        }
        self.path.push(At::Index(position));
    }
}

/// Append a slot to `out`: a key as it is (as a role holds it; a place escapes its
/// keys as a pointer does), an item's position, or `*`.
fn push_slot(out: &mut String, slot: Slot<'_>) {
    match slot {
        Slot::Key(key) => out.push_str(key),
        Slot::Item {
            position,
            positional: true,
        } => push_decimal(out, position),
        Slot::Item {
            positional: false, ..
        } => out.push('*'),
    }
}

struct Walker<'s, 'd> {
    schema: &'s ScopeSchema,
    index: DocumentIndex<'d>,
    trail: Trail<'d>,
    max_depth: usize,
    /// Whether any scope is nested: places are only written (and built) then.
    places: bool,
}

/// Collect the records and carriers of `document` (nested at most `max_depth`
/// containers deep).
///
/// ```
/// use std::collections::BTreeMap;
/// use oa_engine::align::refer::{index_document, ScopeSchema};
/// use oa_engine::plan::{Node, NodeType, PlanBuilder, Scope};
/// use oa_engine::value::Json;
/// use oa_engine::compare::Value;
/// // {"type": "array", "items": {"properties": {"id": {"idScope": "p"}}}}
/// let mut builder = PlanBuilder::default();
/// let [root, record, id, any, object, array] = [(); 6].map(|()| builder.reserve());
/// builder.declare_scopes(vec![Scope { name: "p".into(), records: root }]).unwrap();
/// let mut list = Node::new(NodeType::Array);
/// list.array.items = Some(record);
/// let mut item = Node::new(NodeType::Object);
/// item.object.properties = vec![("id".into(), id)];
/// let mut field = Node::new(NodeType::String);
/// field.id_scope = builder.scope_id("p");
/// for (slot, node) in [(root, list), (record, item), (id, field),
///                      (any, Node::new(NodeType::Any)), (object, Node::new(NodeType::Object)),
///                      (array, Node::new(NodeType::Array))] {
///     builder.set(slot, node).unwrap();
/// }
/// let plan = builder.finish(root, any, object, array).unwrap();
/// let schema = ScopeSchema::new(plan, &BTreeMap::new(),
///                               &BTreeMap::from([("p".into(), "id".into())])).unwrap();
/// let doc = Json::Array(vec![Json::object(vec![("id".into(), Json::Leaf(Value::from("a")))])]);
/// let index = index_document(&doc, &schema, 64).unwrap();
/// assert_eq!(index.records[0][0].pointer, "/0");
/// assert_eq!(index.carrier_pointer(&index.carriers()[0]), "/0");
/// ```
pub fn index_document<'d>(
    document: &'d Json,
    schema: &ScopeSchema,
    max_depth: usize,
) -> Result<DocumentIndex<'d>, ReferError> {
    let places = schema
        .plan()
        .scopes()
        .iter()
        .filter_map(|scope| schema.plan().scope_id(&scope.name))
        .any(|scope| schema.is_nested(scope));
    let mut walker = Walker {
        schema,
        index: DocumentIndex {
            records: vec![Vec::new(); schema.plan().scopes().len()],
            occurrences: BTreeMap::new(),
            carriers: vec![Carrier::new(String::new())],
            steps: Vec::new(),
            root_listed: document.is_object(),
        },
        trail: Trail::new(places),
        max_depth,
        places,
    };
    walker.walk(document, schema.plan().root(), 0, 0)?;
    Ok(walker.index)
}

impl<'d> Walker<'_, 'd> {
    /// `concrete(node, value, value)`.
    fn concrete(&self, id: NodeId, value: &Json) -> Result<NodeId, ReferError> {
        let plan = self.schema.plan();
        let node = plan.node(id)?;
        let fits = match node.ty {
            NodeType::Object => value.is_object(),
            NodeType::Array => value.is_array(),
            _ => false,
        };
        let id = if node.inferred && !fits {
            plan.any()
        } else {
            id
        };
        if plan.node(id)?.ty != NodeType::Any {
            return Ok(id);
        }
        Ok(match value {
            Json::Object(_) => plan.any_object(),
            Json::Array(_) => plan.any_array(),
            _ => id,
        })
    }

    fn carrier(&mut self, carrier: usize) -> Result<&mut Carrier<'d>, ReferError> {
        self.index
            .carriers
            .get_mut(carrier)
            .ok_or(ReferError::Internal("a carrier the walk did not make"))
    }

    /// A scalar: a reference, or an exactly compared value of the carrier.
    /// The leaf's role is the trail's role one `step` further down: made only when
    /// the leaf is kept, as most leaves are neither references nor exactly compared.
    fn leaf(
        &mut self,
        value: &'d Json,
        id: NodeId,
        carrier: usize,
        step: Option<Slot<'d>>,
    ) -> Result<(), ReferError> {
        if matches!(value, Json::Null) {
            return Ok(());
        }
        let plan = self.schema.plan();
        let mut node = plan.node(id)?;
        if node.inferred || node.ty == NodeType::Any {
            node = plan.node(self.concrete(id, value)?)?;
        }
        if node.id_scope.is_some() {
            return Ok(());
        }
        let kept = if let Some(scope) = node.reference {
            Some(Some(scope))
        } else if node.comparator == Some(Comparator::Exact)
            || node.ty == NodeType::Boolean
            || node.enumerated
        {
            // a converted leaf is a string, a number or a boolean
            Some(None)
        } else {
            None
        };
        let Some(reference) = kept else {
            return Ok(());
        };
        let role = self.trail.role_below(step);
        let carrier = self.carrier(carrier)?;
        match reference {
            Some(scope) => carrier.refs.push(Reference { scope, role, value }),
            None => carrier.scalars.push((role, Cow::Borrowed(value))),
        }
        Ok(())
    }

    /// The trail's place is the pointer with the indices of order-agnostic lists
    /// written `*`.
    fn walk(
        &mut self,
        value: &'d Json,
        id: NodeId,
        carrier: usize,
        depth: usize,
    ) -> Result<(), ReferError> {
        if !(value.is_object() || value.is_array()) {
            return self.leaf(value, id, carrier, None);
        }
        if depth > self.max_depth {
            return Err(ReferError::TooDeep {
                max_depth: self.max_depth,
            });
        }
        let plan = self.schema.plan();
        let mut id = id;
        if plan.node(id)?.inferred || plan.node(id)?.ty == NodeType::Any {
            id = self.concrete(id, value)?;
        }
        let node = plan.node(id)?;
        if node.id_scope.is_some() {
            return Ok(());
        }
        if let Some(scope) = node.reference {
            let role = Cow::Owned(self.trail.role.clone());
            self.carrier(carrier)?
                .refs
                .push(Reference { scope, role, value });
            return Ok(());
        }
        match value {
            Json::Object(entries) if matches!(node.ty, NodeType::Object | NodeType::Any) => {
                let declared = self.schema.properties(id)?;
                let mut met = 0;
                for (key, child_id) in declared.clone() {
                    if let Some((key, child)) = entry_of(entries, key) {
                        met += 1;
                        self.entry(key, child, child_id, carrier, depth)?;
                    }
                }
                if met != entries.len() {
                    // the undeclared keys, sorted (the entries are); a declared key
                    // that is present was met above
                    for (key, child) in entries {
                        if !declared.clone().any(|(name, _)| name == key) {
                            let child_id = node.property(key, plan.any());
                            self.entry(key, child, child_id, carrier, depth)?;
                        }
                    }
                }
            }
            Json::Array(items) if matches!(node.ty, NodeType::Array | NodeType::Any) => {
                let scope = self.schema.scope_of_records(id);
                // in a fixed-order list (a scope's records excepted) positions are
                // scored, so the item's position labels its edges
                let positional = scope.is_none() && node.array.order == Order::Fixed;
                // each object item is a carrier (and a record of `scope`, whose path
                // is kept): the lists grow once here rather than push by push
                let objects = items.iter().filter(|item| item.is_object()).count();
                if scope.is_some_and(|scope| self.schema.is_nested(scope)) {
                    let occurrence = Occurrence {
                        place: self.trail.place.clone(),
                        loose: items.len().saturating_sub(objects),
                    };
                    self.index
                        .occurrences
                        .insert(self.trail.pointer.clone(), occurrence);
                }
                self.index.carriers.reserve(objects);
                if let Some(records) = scope.and_then(|s| self.index.records.get_mut(s.index())) {
                    records.reserve(objects);
                    self.index
                        .steps
                        .reserve(objects * (self.trail.path.len() + 1));
                }
                for (i, item) in items.iter().enumerate() {
                    let item_id = node.item(i, plan.any());
                    if !(item.is_object() || item.is_array()) {
                        // a leaf: no pointer or place
                        let slot = Slot::Item {
                            position: i,
                            positional,
                        };
                        self.leaf(item, item_id, carrier, Some(slot))?;
                        continue;
                    }
                    let mark = self.trail.mark();
                    self.trail.down_item(i, positional, self.places);
                    let result = if item.is_object() {
                        self.record(item, item_id, scope, positional.then_some(i), depth)
                    } else {
                        self.walk(item, item_id, carrier, depth + 1)
                    };
                    self.trail.cut(mark);
                    result?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// An object's entry `key`, of node `id`.
    fn entry(
        &mut self,
        key: &'d str,
        child: &'d Json,
        id: NodeId,
        carrier: usize,
        depth: usize,
    ) -> Result<(), ReferError> {
        if !(child.is_object() || child.is_array()) {
            return self.leaf(child, id, carrier, Some(Slot::Key(key)));
        }
        let mark = self.trail.mark();
        self.trail.down_key(key, self.places);
        let result = self.walk(child, id, carrier, depth + 1);
        self.trail.cut(mark);
        result
    }

    /// An object item of a list: a carrier of its own, and a record of `scope`; the
    /// trail is at the item, its role (the carrier's) starts afresh below it.
    fn record(
        &mut self,
        item: &'d Json,
        id: NodeId,
        scope: Option<ScopeId>,
        position: Option<usize>,
        depth: usize,
    ) -> Result<(), ReferError> {
        let carrier = self.index.carriers.len();
        // a record's carrier reads its pointer from the record (one string, not two)
        let mut inner = Carrier::new(String::new());
        if scope.is_none() {
            inner.pointer.clone_from(&self.trail.pointer);
        }
        if let Some(position) = position {
            let position = i64::try_from(position).unwrap_or(i64::MAX);
            inner.scalars.push((
                Cow::Borrowed(POSITION),
                Cow::Owned(Json::Leaf(Value::Number(Number::Int(Integer::from(
                    position,
                ))))),
            ));
        }
        if let Some(scope) = scope {
            let field = self.schema.id_field(scope)?;
            let key = match item {
                Json::Object(entries) => entry_of(entries, field).and_then(|(_, id)| id_key(id)),
                _ => None,
            };
            let start = self.index.steps.len();
            self.index.steps.extend_from_slice(&self.trail.path);
            let records = self
                .index
                .records
                .get_mut(scope.index())
                .ok_or(ReferError::Internal("a scope the plan does not hold"))?;
            inner.record = Some((scope, records.len()));
            records.push(Record {
                pointer: self.trail.pointer.clone(),
                path: start..start + self.trail.path.len(),
                value: item,
                key,
                carrier,
            });
        }
        self.index.carriers.push(inner);
        // the roles of the item's own carrier start from nothing
        let outer = std::mem::take(&mut self.trail.role);
        let result = self.walk(item, id, carrier, depth + 1);
        self.trail.role = outer;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::refer::fixture::schema;

    fn text(value: &str) -> Json {
        Json::Leaf(Value::from(value))
    }

    fn list(items: &[&str]) -> Json {
        Json::Array(items.iter().map(|v| text(v)).collect())
    }

    #[test]
    fn carriers_collect_roles_positions_and_references_in_schema_order() {
        let person = Json::object(vec![
            ("id".into(), Json::int(1)),
            ("tag".into(), text("t")),
            ("steps".into(), list(&["a", "b"])),
            ("aliases".into(), list(&["c"])),
            ("zz".into(), text("undeclared: not exact")),
        ]);
        let link = Json::object(vec![("a".into(), text("x")), ("b".into(), text("y"))]);
        let doc = Json::object(vec![
            (
                "people".into(),
                Json::Array(vec![person, Json::object(vec![])]),
            ),
            ("chain".into(), Json::Array(vec![link.clone(), link])),
        ]);
        let index = index_document(&doc, &schema(), 64).unwrap();
        let pointers: Vec<&str> = index
            .carriers()
            .iter()
            .map(|c| index.carrier_pointer(c))
            .collect();
        assert_eq!(
            pointers,
            ["", "/people/0", "/people/1", "/chain/0", "/chain/1"]
        );
        let person = index.carriers().get(1).unwrap();
        let scalars: Vec<(&str, &Json)> = person
            .scalars
            .iter()
            .map(|(r, v)| (&**r, v.as_ref()))
            .collect();
        let (a, b, c, t) = (text("a"), text("b"), text("c"), text("t"));
        assert_eq!(
            scalars,
            [
                ("tag", &t),
                ("steps/0", &a),
                ("steps/1", &b),
                ("aliases/*", &c)
            ]
        );
        let link = index.carriers().get(4).unwrap();
        assert_eq!(
            link.scalars,
            [(Cow::Borrowed(POSITION), Cow::Owned(Json::int(1)))]
        );
        let roles: Vec<&str> = link.refs.iter().map(|r| &*r.role).collect();
        assert_eq!(roles, ["b", "a"]);
        let records = index.records.first().unwrap();
        assert_eq!(
            records.iter().map(|r| r.key.clone()).collect::<Vec<_>>(),
            [id_key(&Json::int(1)), None]
        );
        assert_eq!(
            index.path(records.get(1).unwrap()),
            [Step::Key("people".into()), Step::Index(1)]
        );
    }

    #[test]
    fn only_an_object_document_is_a_carrier() {
        let empty = Json::Array(vec![]);
        let index = index_document(&empty, &schema(), 64).unwrap();
        assert!(index.carriers().is_empty());
        let deep = (0..10).fold(Json::Null, |inner, _| Json::Array(vec![inner]));
        let deep = Json::object(vec![("zz".into(), deep)]);
        let found = index_document(&deep, &schema(), 4);
        assert_eq!(found, Err(ReferError::TooDeep { max_depth: 4 }));
    }

    #[test]
    fn named_records_are_those_a_reference_reaches_by_python_equality() {
        let person = |id: Json, boss: Option<Json>| {
            let mut fields = vec![("id".into(), id)];
            fields.extend(boss.map(|b| ("boss".into(), b)));
            Json::object(fields)
        };
        // 2.0 names the record of id 2; "1" names no record of id 1; a reference to
        // an id no record holds names nothing
        let people = vec![
            person(Json::int(1), Some(Json::float(2.0))),
            person(Json::int(2), Some(text("1"))),
            person(Json::int(3), Some(Json::int(9))),
        ];
        let doc = Json::object(vec![("people".into(), Json::Array(people))]);
        let schema = schema();
        let index = index_document(&doc, &schema, 64).unwrap();
        let scope = |name| schema.plan().scope_id(name).unwrap();
        assert_eq!(index.named_records(scope("person")), [1]);
        assert!(index.named_records(scope("team")).is_empty());
    }

    #[test]
    fn record_keys_put_lists_in_canonical_order() {
        let value = Json::object(vec![("l".into(), list(&["b", "a"]))]);
        let (free, text) = value_key(&value);
        let shown = |t: Vec<u32>| t.into_iter().filter_map(char::from_u32).collect::<String>();
        assert_eq!(
            (shown(free), shown(text)),
            (r#"{"l":["a","b"]}"#.into(), r#"{"l":["b","a"]}"#.into())
        );
    }
}
