//! Drawing schema-shaped plans and JSON documents for the fuzz targets (and their
//! crash inputs' regression tests): everything is built from the engine's own Rust
//! types (`PlanBuilder`, `Node`, `Json`), with the depth and widths bounded so that
//! a draw never recurses past [`MAX_DEPTH`].

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::{Result, Unstructured};
use oa_engine::align::refer::{
    index_document, resolution_groups, resolve_and_score, Mode, ScopeSchema,
};
use oa_engine::align::WlMode;
use oa_engine::compare::{Comparator, Integer, Number, NumberMeasure, Value};
use oa_engine::plan::{Node, NodeId, NodeType, Order, Plan, PlanBuilder, Scope, ScopeId};
use oa_engine::score::{Limits, MapCache, ScopedDocuments, Scorer};
use oa_engine::value::Json;

/// Schema nodes and documents nest at most this deep below the root.
pub const MAX_DEPTH: usize = 4;
/// Properties, items and records drawn at most per object or array.
const WIDTH: usize = 4;
/// Keys come from a small alphabet, so that schemas and documents share them.
const KEYS: [&str; 5] = ["a", "b", "c", "id", ""];
/// Texts likewise (look-alike records, equal ids, the empty string, a non-ASCII one).
const TEXTS: [&str; 5] = ["x", "y", "", "é", "x y"];
/// Weights and importances a schema may declare.
const WEIGHTS: [f64; 4] = [0.0, 0.5, 1.0, 2.0];

/// A drawn plan with what scoring it needs: the scopes' schema, each scope's record
/// node and the resolution groups (empty without scopes).
pub struct Drawn {
    pub schema: ScopeSchema,
    pub records: BTreeMap<ScopeId, NodeId>,
    pub groups: Vec<Vec<ScopeId>>,
}

impl Drawn {
    pub fn plan(&self) -> &Plan {
        self.schema.plan()
    }
}

struct Draw<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    builder: PlanBuilder,
    /// Each scope's name, id type and record node.
    scopes: Vec<(String, NodeType, NodeId)>,
    /// The scope whose records are being drawn, for the dependencies.
    within: Option<usize>,
    dependencies: BTreeMap<String, BTreeSet<String>>,
}

fn pick<T: Copy>(u: &mut Unstructured<'_>, items: &[T]) -> Result<T> {
    u.choose(items).copied()
}

impl Draw<'_, '_> {
    fn set(&mut self, id: NodeId, node: Node) -> Result<()> {
        self.builder
            .set(id, node)
            .map_err(|_| arbitrary::Error::IncorrectFormat)
    }

    /// A leaf of a scalar type, maybe with a comparator, a threshold, a null score
    /// or a reference into a scope (of that scope's id type).
    fn leaf(&mut self, pointer: &str) -> Result<Node> {
        let refers = !self.scopes.is_empty() && self.u.ratio(1, 4)?;
        let mut node = if refers {
            let target = self.u.choose_index(self.scopes.len())?;
            let (name, ty, _) = self
                .scopes
                .get(target)
                .cloned()
                .ok_or(arbitrary::Error::IncorrectFormat)?;
            if let Some((within, _, _)) = self.within.and_then(|k| self.scopes.get(k)) {
                self.dependencies
                    .entry(within.clone())
                    .or_default()
                    .insert(name.clone());
            }
            let mut node = Node::new(ty);
            node.reference = self.builder.scope_id(&name);
            node
        } else {
            let ty = pick(
                self.u,
                &[
                    NodeType::String,
                    NodeType::Number,
                    NodeType::Integer,
                    NodeType::Boolean,
                    NodeType::Null,
                    NodeType::Any,
                ],
            )?;
            Node::new(ty)
        };
        node.pointer = pointer.to_string();
        // only the comparators the schema layer lets compare the node's values
        let fitting: &[Comparator] = match node.ty {
            NodeType::String => Comparator::ALL.get(..8).unwrap_or_default(),
            NodeType::Number | NodeType::Integer => &[
                Comparator::Exact,
                Comparator::Number(NumberMeasure::InvDiff),
                Comparator::Number(NumberMeasure::Relative),
            ],
            NodeType::Boolean => &[Comparator::Exact],
            _ => &[],
        };
        if !fitting.is_empty() && self.u.ratio(1, 2)? {
            node.comparator = Some(pick(self.u, fitting)?);
        }
        node.threshold = f64::from(self.u.int_in_range(0u8..=4)?) / 4.0;
        node.null_score = pick(self.u, &[0.0, 0.5, 1.0])?;
        node.enumerated = self.u.arbitrary()?;
        Ok(node)
    }

    /// A node of any kind at `pointer`, `depth` levels below the root.
    fn node(&mut self, pointer: &str, depth: usize) -> Result<NodeId> {
        let id = self.builder.reserve();
        let kind = if depth >= MAX_DEPTH {
            0
        } else {
            self.u.int_in_range(0u8..=3)?
        };
        let node = match kind {
            0 => self.leaf(pointer)?,
            1 => self.object(pointer, depth, Vec::new())?,
            2 => {
                let items = if self.u.ratio(3, 4)? {
                    Some(self.node(&format!("{pointer}/items"), depth + 1)?)
                } else {
                    None
                };
                self.array(pointer, depth, items)?
            }
            _ => {
                let mut node = Node::new(NodeType::Any);
                node.pointer = pointer.to_string();
                node
            }
        };
        self.set(id, node)?;
        Ok(id)
    }

    /// An object node with `fixed` properties and a few drawn ones.
    fn object(
        &mut self,
        pointer: &str,
        depth: usize,
        fixed: Vec<(String, NodeId)>,
    ) -> Result<Node> {
        let mut node = Node::new(NodeType::Object);
        node.pointer = pointer.to_string();
        let mut properties: BTreeMap<String, NodeId> = fixed.into_iter().collect();
        for _ in 0..self.u.int_in_range(0..=WIDTH)? {
            let key = pick(self.u, &KEYS)?.to_string();
            if !properties.contains_key(&key) {
                let child = self.node(&format!("{pointer}/properties/{key}"), depth + 1)?;
                properties.insert(key, child);
            }
        }
        node.object.properties = properties.into_iter().collect();
        if self.u.ratio(1, 4)? {
            node.object.additional =
                Some(self.node(&format!("{pointer}/additionalProperties"), depth + 1)?);
        }
        for key in KEYS {
            if self.u.ratio(1, 8)? {
                node.object
                    .weights
                    .push((key.to_string(), pick(self.u, &WEIGHTS)?));
            }
        }
        // looked up by binary search
        node.object.weights.sort_by(|a, b| a.0.cmp(&b.0));
        // a string comparator
        node.object.key_score = pick(self.u, Comparator::ALL.get(..8).unwrap_or_default())?;
        node.object.key_threshold = pick(self.u, &[0.0, 0.5, 0.9])?;
        node.object.key_importance = pick(self.u, &WEIGHTS)?;
        node.object.value_importance = pick(self.u, &WEIGHTS[1..])?;
        Ok(node)
    }

    /// An array node of `items`, with a drawn prefix, order and ignore flags.
    fn array(&mut self, pointer: &str, depth: usize, items: Option<NodeId>) -> Result<Node> {
        let mut node = Node::new(NodeType::Array);
        node.pointer = pointer.to_string();
        node.array.items = items;
        if depth < MAX_DEPTH && self.u.ratio(1, 4)? {
            for k in 0..self.u.int_in_range(1..=2)? {
                let child = self.node(&format!("{pointer}/prefixItems/{k}"), depth + 1)?;
                node.array
                    .prefix
                    .push((child, pick(self.u, &WEIGHTS[1..])?));
            }
            node.array.prefix_importance = pick(self.u, &WEIGHTS[1..])?;
            node.array.rest_importance = pick(self.u, &WEIGHTS[1..])?;
        }
        node.array.order = if self.u.arbitrary()? {
            Order::Align
        } else {
            Order::Fixed
        };
        node.array.ignore_missing = self.u.ratio(1, 8)?;
        node.array.ignore_excess = self.u.ratio(1, 8)?;
        Ok(node)
    }

    /// The records array of scope `k` (its items: an id, maybe a reference, a few
    /// drawn properties), at `pointer`.
    fn records(&mut self, k: usize, array: NodeId, pointer: &str, depth: usize) -> Result<()> {
        let (name, ty, items) = self
            .scopes
            .get(k)
            .cloned()
            .ok_or(arbitrary::Error::IncorrectFormat)?;
        let id = self.builder.reserve();
        let mut id_node = Node::new(ty);
        id_node.pointer = format!("{pointer}/items/properties/id");
        id_node.id_scope = self.builder.scope_id(&name);
        self.set(id, id_node)?;
        let outer = self.within.replace(k);
        let record = self.object(
            &format!("{pointer}/items"),
            depth + 1,
            vec![("id".into(), id)],
        )?;
        self.within = outer;
        self.set(items, record)?;
        let mut node = self.array(pointer, depth, Some(items))?;
        node.array.prefix.clear();
        node.array.order = Order::Align;
        self.set(array, node)
    }
}

/// A plan of up to two scopes (`p` at the root, `q` at the root or nested in the
/// items of an array `g`, their ids strings or integers) and drawn properties.
pub fn plan(u: &mut Unstructured<'_>) -> Result<Drawn> {
    let mut builder = PlanBuilder::default();
    let [root, any, any_object, any_array] = [(); 4].map(|()| builder.reserve());
    let count = u.int_in_range(0..=2)?;
    let mut declared = Vec::new();
    let mut scopes = Vec::new();
    for name in ["p", "q"].into_iter().take(count) {
        let (array, items) = (builder.reserve(), builder.reserve());
        declared.push(Scope {
            name: name.into(),
            records: items,
        });
        let ty = if u.arbitrary()? {
            NodeType::String
        } else {
            NodeType::Integer
        };
        scopes.push((name.to_string(), ty, items, array));
    }
    builder
        .declare_scopes(declared)
        .map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let mut draw = Draw {
        u,
        builder,
        scopes: scopes
            .iter()
            .map(|(n, t, items, _)| (n.clone(), *t, *items))
            .collect(),
        within: None,
        dependencies: BTreeMap::new(),
    };
    let nested = draw.u.arbitrary::<bool>()?;
    let mut fixed = Vec::new();
    for (k, (name, _, _, array)) in scopes.iter().enumerate() {
        if name == "q" && nested {
            let (group, members) = (draw.builder.reserve(), draw.builder.reserve());
            draw.records(k, *array, "/properties/g/items/properties/m", 3)?;
            let member = draw.object("/properties/g/items", 2, vec![("m".into(), *array)])?;
            draw.set(members, member)?;
            let outer = draw.array("/properties/g", 1, Some(members))?;
            draw.set(group, outer)?;
            fixed.push(("g".to_string(), group));
        } else {
            draw.records(k, *array, &format!("/properties/{name}"), 1)?;
            fixed.push((name.clone(), *array));
        }
    }
    let root_node = draw.object("", 0, fixed)?;
    draw.set(root, root_node)?;
    draw.set(any, Node::new(NodeType::Any))?;
    draw.set(any_object, Node::new(NodeType::Object))?;
    draw.set(any_array, Node::new(NodeType::Array))?;
    let Draw {
        builder,
        dependencies,
        ..
    } = draw;
    let plan = builder
        .finish(root, any, any_object, any_array)
        .map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut id_fields = BTreeMap::new();
    let mut id_pointers = BTreeMap::new();
    for (name, _, _, _) in &scopes {
        deps.insert(
            name.clone(),
            dependencies.get(name).cloned().unwrap_or_default(),
        );
        id_fields.insert(name.clone(), "id".to_string());
        id_pointers.insert(name.clone(), format!("/{name}/id"));
    }
    let mut records = BTreeMap::new();
    for (name, _, items, _) in &scopes {
        if let Some(scope) = plan.scope_id(name) {
            records.insert(scope, *items);
        }
    }
    let groups =
        resolution_groups(&deps, &id_pointers).map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let schema = ScopeSchema::new(plan, &BTreeMap::new(), &id_fields)
        .map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let groups = groups
        .groups
        .iter()
        .map(|group| {
            group
                .iter()
                .filter_map(|name| schema.plan().scope_id(name))
                .collect()
        })
        .collect();
    Ok(Drawn {
        schema,
        records,
        groups,
    })
}

/// A scalar: null, a boolean, an integer (small, or of any size), a float (NaN and
/// infinities too) or a text of the alphabet (or any code point).
pub fn scalar(u: &mut Unstructured<'_>) -> Result<Json> {
    Ok(match u.int_in_range(0u8..=6)? {
        0 => Json::Null,
        1 => Json::Leaf(Value::Boolean(u.arbitrary()?)),
        2 => Json::Leaf(Value::Number(Number::Int(Integer::from(i64::from(
            u.int_in_range(-2i8..=3)?,
        ))))),
        3 => {
            let size = u.int_in_range(0..=20)?;
            let bytes = u.bytes(size)?;
            Json::Leaf(Value::Number(Number::Int(Integer::from_le_bytes_signed(
                bytes,
            ))))
        }
        4 => Json::Leaf(Value::Number(Number::Float(u.arbitrary()?))),
        5 => Json::Leaf(Value::Text(vec![u.int_in_range(0u32..=0x10_ffff)?])),
        _ => Json::Leaf(Value::from(pick(u, &TEXTS)?)),
    })
}

/// Any JSON value, at most `depth` levels deep.
pub fn json(u: &mut Unstructured<'_>, depth: usize) -> Result<Json> {
    if depth == 0 || u.ratio(1, 2)? {
        return scalar(u);
    }
    let mut values = Vec::new();
    for _ in 0..u.int_in_range(0..=WIDTH)? {
        values.push(json(u, depth - 1)?);
    }
    if u.arbitrary()? {
        return Ok(Json::Array(values));
    }
    let mut entries = Vec::new();
    for value in values {
        entries.push((pick(u, &KEYS)?.to_string(), value));
    }
    Ok(Json::object(entries))
}

/// `value` with each NaN or infinite number made null: the engine's documents hold
/// finite numbers only (its callers refuse the others, as `oa_core` and the PyO3
/// layer do; the scorer does not look for them everywhere).
fn finite(value: Json) -> Json {
    match value {
        Json::Leaf(Value::Number(Number::Float(x))) if !x.is_finite() => Json::Null,
        Json::Array(items) => Json::Array(items.into_iter().map(finite).collect()),
        Json::Object(entries) => {
            Json::Object(entries.into_iter().map(|(k, v)| (k, finite(v))).collect())
        }
        other => other,
    }
}

/// A document shaped like node `id` of `plan` (its properties, items and scalar
/// types; ids from a few values so that records look alike, numbers finite); when
/// `loose`, anything now and then (a value of another type, an undeclared key of any
/// value, a NaN).
pub fn document(
    u: &mut Unstructured<'_>,
    plan: &Plan,
    id: NodeId,
    depth: usize,
    loose: bool,
) -> Result<Json> {
    let drawn = shaped(u, plan, id, depth, loose)?;
    Ok(if loose { drawn } else { finite(drawn) })
}

fn shaped(
    u: &mut Unstructured<'_>,
    plan: &Plan,
    id: NodeId,
    depth: usize,
    loose: bool,
) -> Result<Json> {
    let node = plan
        .node(id)
        .map_err(|_| arbitrary::Error::IncorrectFormat)?;
    if depth > MAX_DEPTH + 2 || (loose && u.ratio(1, 16)?) {
        return if loose { json(u, 2) } else { Ok(Json::Null) };
    }
    let small = |u: &mut Unstructured<'_>| -> Result<Json> {
        let value = i64::from(u.int_in_range(0i8..=3)?);
        Ok(Json::Leaf(Value::Number(Number::Int(Integer::from(value)))))
    };
    Ok(match node.ty {
        NodeType::Object => {
            let mut entries = Vec::new();
            for (key, child) in &node.object.properties {
                if u.ratio(3, 4)? {
                    entries.push((key.clone(), shaped(u, plan, *child, depth + 1, loose)?));
                }
            }
            if u.ratio(1, 4)? {
                let key = pick(u, &KEYS)?.to_string();
                let declared = node
                    .object
                    .properties
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, child)| *child);
                let value = match (declared, node.object.additional) {
                    (Some(child), _) | (None, Some(child)) => {
                        shaped(u, plan, child, depth + 1, loose)?
                    }
                    (None, None) => json(u, 1)?,
                };
                entries.push((key, value));
            }
            Json::object(entries)
        }
        NodeType::Array => {
            let mut items = Vec::new();
            for (child, _) in &node.array.prefix {
                items.push(shaped(u, plan, *child, depth + 1, loose)?);
            }
            for _ in 0..u.int_in_range(0..=WIDTH)? {
                items.push(match node.array.items {
                    Some(child) => shaped(u, plan, child, depth + 1, loose)?,
                    None => json(u, 1)?,
                });
            }
            Json::Array(items)
        }
        NodeType::String => Json::Leaf(Value::from(pick(u, &TEXTS)?)),
        NodeType::Integer => small(u)?,
        NodeType::Number => {
            if u.arbitrary()? {
                small(u)?
            } else {
                let half = f64::from(u.int_in_range(-4i8..=4)?) / 2.0;
                Json::Leaf(Value::Number(Number::Float(half)))
            }
        }
        NodeType::Boolean => Json::Leaf(Value::Boolean(u.arbitrary()?)),
        NodeType::Null => Json::Null,
        NodeType::Any => json(u, 2)?,
    })
}

/// The limits the targets score under.
pub const LIMITS: Limits = Limits {
    max_depth: 64,
    max_matrix_cells: 10_000,
};

/// The documents' score under the drawn plan in `wl` mode: through the scope
/// resolution when the plan has scopes, the scorer alone otherwise (an engine
/// refusal as its message).
pub fn score(
    drawn: &Drawn,
    gold: &Json,
    candidate: &Json,
    wl: WlMode,
) -> std::result::Result<f64, String> {
    let mut cache = MapCache::default();
    if drawn.records.is_empty() {
        return Scorer::new(drawn.plan(), LIMITS, &mut cache)
            .score(gold, candidate)
            .map_err(|error| error.to_string());
    }
    let gold_index =
        index_document(gold, &drawn.schema, LIMITS.max_depth).map_err(|e| format!("{e:?}"))?;
    let candidate_index =
        index_document(candidate, &drawn.schema, LIMITS.max_depth).map_err(|e| format!("{e:?}"))?;
    let mut scores = ScopedDocuments {
        plan: drawn.plan(),
        limits: LIMITS,
        cache: &mut cache,
        gold,
        candidate,
        records: &drawn.records,
    };
    let mode = Mode {
        wl,
        wl_lambda: 0.5,
        max_matrix_cells: LIMITS.max_matrix_cells,
        describe: false, // a score's resolution, as `oa_core.score` asks for it
    };
    resolve_and_score(
        &drawn.schema,
        &gold_index,
        &candidate_index,
        &drawn.groups,
        mode,
        &mut scores,
    )
    .map_err(|error| format!("{error:?}"))
}
