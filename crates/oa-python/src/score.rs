//! Python bindings of `oa_engine::plan` and `oa_engine::score`: a parsed schema's
//! nodes compiled into a [`Plan`] once, then documents scored under it.

use std::collections::{BTreeMap, HashMap};
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use oa_engine::compare::{Comparator, ExternalId};
use oa_engine::plan::{Node, NodeId, NodeType, Order, Plan, PlanBuilder, Scope};
use oa_engine::score::{Limits, MapCache, Scorer, Shape};
use oa_engine::value::Json;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyDict};

use crate::compare::PyComparator;
use crate::errors::declined;
use crate::shape::shape;
use crate::state::ref_state;
use crate::value::{convert, recycle, Bounds};

/// A schema construct this slice does not plan (Python scores such schemas).
fn unsupported(what: String) -> PyErr {
    PyValueError::new_err(what)
}

fn optional<'py>(node: &Bound<'py, PyAny>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let value = node.getattr(name)?;
    Ok((!value.is_none()).then_some(value))
}

/// Compiles `SchemaNode`s reachable from the given ones (each once, by identity).
struct Compiler<'py> {
    builder: PlanBuilder,
    ids: HashMap<usize, NodeId>,
    pending: Vec<(Bound<'py, PyAny>, NodeId)>,
    /// The built-in comparator names read.
    names: Vec<String>,
    /// The schema's `ComparatorRegistry`, where custom names are looked up.
    registry: Option<Bound<'py, PyAny>>,
    customs: BTreeMap<String, ExternalId>,
    /// Whether an object's keys are paired by a custom comparator.
    custom_keys: bool,
}

impl<'py> Compiler<'py> {
    /// The comparator a schema names: a built-in, or the registry's custom one
    /// wrapped into the plan's table (once per name).
    fn comparator(&mut self, name: &str) -> PyResult<Comparator> {
        if let Some(builtin) = Comparator::from_name(name) {
            if !self.names.iter().any(|known| known == name) {
                self.names.push(name.to_owned());
            }
            return Ok(builtin);
        }
        if let Some(id) = self.customs.get(name) {
            return Ok(Comparator::External(*id));
        }
        let registry = self.registry.as_ref().ok_or_else(|| {
            unsupported(format!("custom comparator {name:?} without its registry"))
        })?;
        // a registry that fails here (changed since its schema was parsed) leaves the
        // schema to Python
        let custom = registry
            .call_method1("get", (name,))
            .and_then(|comparator| PyComparator::new(&comparator))
            .map_err(|error| unsupported(format!("custom comparator {name:?}: {error}")))?;
        let id = self.builder.external(Arc::new(custom));
        self.customs.insert(name.to_owned(), id);
        Ok(Comparator::External(id))
    }

    fn id(&mut self, node: &Bound<'py, PyAny>) -> NodeId {
        // the schema holds its nodes alive while it compiles: an address is one node
        let address = node.as_ptr() as usize;
        if let Some(id) = self.ids.get(&address) {
            return *id;
        }
        let id = self.builder.reserve();
        self.ids.insert(address, id);
        self.pending.push((node.clone(), id));
        id
    }

    fn child(&mut self, node: &Bound<'py, PyAny>, name: &str) -> PyResult<Option<NodeId>> {
        Ok(optional(node, name)?.map(|child| self.id(&child)))
    }

    fn node(&mut self, schema: &Bound<'py, PyAny>) -> PyResult<Node> {
        let pointer: String = schema.getattr("pointer")?.extract()?;
        let at = |what: &str| unsupported(format!("{what} at {pointer:?}"));
        let scope = |name: Option<Bound<'py, PyAny>>| -> PyResult<_> {
            match name {
                None => Ok(None),
                Some(name) => {
                    let name: String = name.extract()?;
                    let found = self.builder.scope_id(&name);
                    found
                        .map(Some)
                        .ok_or_else(|| at(&format!("an undeclared scope {name:?}")))
                }
            }
        };
        let id_scope = scope(optional(schema, "id_scope")?)?;
        let reference = scope(optional(schema, "ref")?)?;
        let ty: String = schema.getattr("type")?.extract()?;
        let mut node = Node::new(NodeType::from_name(&ty).ok_or_else(|| at("an unknown type"))?);
        node.pointer = pointer.clone();
        node.id_scope = id_scope;
        node.reference = reference;
        node.enumerated = optional(schema, "enum")?.is_some();
        node.inferred = schema.getattr("inferred")?.extract()?;
        node.null_score = schema.getattr("null_score")?.extract()?;
        node.threshold = schema.getattr("threshold")?.extract()?;
        if let Some(name) = optional(schema, "comparator")? {
            node.comparator = Some(self.comparator(&name.extract::<String>()?)?);
        }
        let key_score: String = schema.getattr("key_score")?.extract()?;
        node.object.key_score = self.comparator(&key_score)?;
        self.custom_keys |= matches!(node.object.key_score, Comparator::External(_));
        node.object.key_threshold = schema.getattr("key_threshold")?.extract()?;
        node.object.key_importance = schema.getattr("key_importance")?.extract()?;
        node.object.value_importance = schema.getattr("value_importance")?.extract()?;
        let properties = schema.getattr("properties")?;
        for (key, child) in properties.cast::<PyDict>()?.iter() {
            let id = self.id(&child);
            node.object.properties.push((key.extract()?, id));
        }
        node.object.properties.sort_by(|a, b| a.0.cmp(&b.0));
        let weights = schema.getattr("weights")?;
        for (key, weight) in weights.cast::<PyDict>()?.iter() {
            node.object
                .weights
                .push((key.extract()?, weight.extract()?));
        }
        node.object.weights.sort_by(|a, b| a.0.cmp(&b.0));
        node.object.additional = self.child(schema, "additional")?;
        node.array.items = self.child(schema, "items")?;
        let prefix_weights: Vec<f64> = schema.getattr("prefix_weights")?.extract()?;
        let prefix = schema.getattr("prefix_items")?;
        for (k, child) in prefix.try_iter()?.enumerate() {
            let id = self.id(&child?);
            let weight = prefix_weights
                .get(k)
                .copied()
                .ok_or_else(|| at("a prefix item without its weight"))?;
            node.array.prefix.push((id, weight));
        }
        node.array.prefix_importance = schema.getattr("prefix_importance")?.extract()?;
        node.array.rest_importance = schema.getattr("rest_importance")?.extract()?;
        let order: String = schema.getattr("order")?.extract()?;
        node.array.order = match order.as_str() {
            "align" => Order::Align,
            "fixed" => Order::Fixed,
            _ => return Err(at("an unknown order")),
        };
        node.array.ignore_missing = schema.getattr("ignore_missing")?.extract()?;
        node.array.ignore_excess = schema.getattr("ignore_excess")?.extract()?;
        node.array.block_by = schema.getattr("block_by")?.extract()?;
        Ok(node)
    }
}

/// A schema compiled once; `score` scores documents under it.
///
/// Made from the schema's root, the three implicit nodes of `oa_core.schema`
/// (`ANY`, `ANY_OBJECT`, `ANY_ARRAY`) and its scopes (`Schema.scopes`, name ->
/// `ScopeDecl`); a custom comparator name is looked up in `comparators` (the
/// schema's `ComparatorRegistry`) and called back from the engine. Raises
/// `ValueError` naming a construct it does not plan (a custom comparator name
/// without `comparators`).
#[pyclass(module = "oa_core._engine", frozen)]
pub struct ScorePlan {
    pub(crate) plan: Plan,
    /// The schema's own nodes by pointer (not the implicit ones).
    pub(crate) pointers: BTreeMap<String, NodeId>,
    pub(crate) shape: Option<Shape>,
    names: Vec<String>,
    cache: Mutex<MapCache>,
    /// The `SchemaNode` of each plan node, sorted by id (the match tree's rows
    /// name plan nodes).
    pub(crate) schema_nodes: Vec<(NodeId, Py<PyAny>)>,
    /// Whether `cache` is used: not when a custom comparator pairs some object's
    /// keys, whose pairings Python keeps for one score only.
    memo_keys: bool,
}

#[pymethods]
impl ScorePlan {
    #[new]
    // Python's keywords, one per part of a parsed `Schema` the plan reads
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (root, any, any_object, any_array, raw, active, scopes=None,
                        comparators=None))]
    fn new(
        root: &Bound<'_, PyAny>,
        any: &Bound<'_, PyAny>,
        any_object: &Bound<'_, PyAny>,
        any_array: &Bound<'_, PyAny>,
        raw: &Bound<'_, PyAny>,
        active: &Bound<'_, PyAny>,
        scopes: Option<&Bound<'_, PyDict>>,
        comparators: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut compiler = Compiler {
            builder: PlanBuilder::default(),
            ids: HashMap::new(),
            pending: Vec::new(),
            names: Vec::new(),
            registry: comparators.cloned(),
            customs: BTreeMap::new(),
            custom_keys: false,
        };
        let ids = [root, any, any_object, any_array].map(|node| compiler.id(node));
        let [_, implicit @ ..] = ids;
        let mut pointers = BTreeMap::new();
        let mut declared = Vec::new();
        for (name, decl) in scopes.into_iter().flat_map(|scopes| scopes.iter()) {
            let records = compiler.id(&decl.getattr("records")?);
            declared.push(Scope {
                name: name.extract()?,
                records,
            });
        }
        compiler
            .builder
            .declare_scopes(declared)
            .map_err(|error| PyValueError::new_err(error.to_string()))?;
        let mut schema_nodes = Vec::new();
        while let Some((schema, id)) = compiler.pending.pop() {
            let node = compiler.node(&schema)?;
            if !implicit.contains(&id) {
                pointers.insert(node.pointer.clone(), id);
            }
            compiler
                .builder
                .set(id, node)
                .map_err(|error| PyRuntimeError::new_err(error.to_string()))?;
            schema_nodes.push((id, schema.unbind()));
        }
        schema_nodes.sort_by_key(|(id, _)| *id);
        let [root, any, any_object, any_array] = ids;
        let plan = compiler
            .builder
            .finish(root, any, any_object, any_array)
            .map_err(|error| PyRuntimeError::new_err(error.to_string()))?;
        let mut names = compiler.names;
        names.sort();
        Ok(ScorePlan {
            plan,
            pointers,
            shape: shape(raw, active)?,
            names,
            cache: Mutex::new(MapCache::default()),
            memo_keys: !compiler.custom_keys,
            schema_nodes,
        })
    }

    /// The comparator names the schema uses (each must be the built-in one).
    #[getter]
    fn comparator_names(&self) -> Vec<String> {
        self.names.clone()
    }

    /// Whether `score` checks the documents against the schema's JSON Schema
    /// assertions (all of them are ones the engine checks).
    #[getter]
    fn validates(&self) -> bool {
        self.shape.is_some()
    }

    /// The number of compiled nodes.
    fn __len__(&self) -> usize {
        self.plan.len()
    }

    /// The score of `candidate` against `gold` under `limits` (an
    /// `oa_core.options.Limits`; `None` for its defaults), or `None` where Python must check
    /// and score them (a value or a construct this engine does not take, a limit
    /// reached, a gold violating the schema). A score says both documents pass
    /// `oa_core.validation.check_json` under these limits (see `value`); when the plan
    /// `validates`, that the gold satisfies the schema too, and in `strict` mode it is
    /// 0 for a candidate that does not.
    fn score(
        &self,
        py: Python<'_>,
        gold: &Bound<'_, PyAny>,
        candidate: &Bound<'_, PyAny>,
        limits: Option<&Bound<'_, PyAny>>,
        strict: bool,
    ) -> PyResult<Option<f64>> {
        let (bounds, limits) = match limits {
            Some(limits) => read_limits(limits)?,
            None => default_limits(py)?,
        };
        let (gold, candidate) = converted(gold, candidate, bounds)?;
        let scored = py.detach(|| {
            if self
                .shape
                .as_ref()
                .is_some_and(|shape| !shape.accepts(&gold))
            {
                return Ok(None); // Python raises the gold's violation
            }
            let mut cache = self.lock()?;
            let scored = Scorer::new(&self.plan, limits, &mut cache).score(&gold, &candidate);
            let Some(value) = declined(scored)? else {
                return Ok(None);
            };
            // as in Python, a violating candidate scores 0 in strict mode once it
            // has been scored (a limit reached while scoring it is named first)
            let verdict = match self.shape.as_ref() {
                Some(shape) if strict => shape.verdict(&candidate),
                _ => Some(true),
            };
            Ok(verdict.map(|valid| if valid { value } else { 0.0 }))
        });
        recycle(gold);
        recycle(candidate);
        scored
    }

    /// `Scorer(..., state).node(gold, candidate, root).score`: the documents scored
    /// under a referential state (the dict and set forms of `Scorer`'s arguments,
    /// identifiers as `id_key` tuples), or `None` where Python must score them (as
    /// for `score`; the documents are taken as checked already).
    #[allow(clippy::too_many_arguments)] // Scorer's arguments, one by one
    fn score_scoped(
        &self,
        py: Python<'_>,
        gold: &Bound<'_, PyAny>,
        candidate: &Bound<'_, PyAny>,
        bijections: &Bound<'_, PyAny>,
        candidate_ids: &Bound<'_, PyAny>,
        unresolved: &Bound<'_, PyAny>,
        record_pairs: &Bound<'_, PyAny>,
        limits: &Bound<'_, PyAny>,
    ) -> PyResult<Option<f64>> {
        let Some(state) = ref_state(
            &self.plan,
            &self.pointers,
            bijections,
            candidate_ids,
            unresolved,
            Some(record_pairs),
        )?
        else {
            return Ok(None);
        };
        let (gold, candidate, limits) = documents(gold, candidate, limits)?;
        py.detach(|| {
            let mut cache = self.lock()?;
            let mut scorer = Scorer::new(&self.plan, limits, &mut cache).with_state(&state);
            declined(scorer.score(&gold, &candidate))
        })
    }

    /// `Scorer(..., state).matrix(golds, candidates, node, paths)`: the scores of every
    /// pair under the schema node at `pointer`, row-major float64 bytes, or `None`
    /// where Python must score them (as for `score_scoped`; record pairs without
    /// `paths`, a node the plan does not have).
    #[pyo3(signature = (golds, candidates, pointer, bijections, candidate_ids, unresolved,
                        limits, record_pairs=None, paths=None))]
    #[allow(clippy::too_many_arguments)] // Scorer's arguments, one by one
    fn matrix<'py>(
        &self,
        py: Python<'py>,
        golds: &Bound<'py, PyAny>,
        candidates: &Bound<'py, PyAny>,
        pointer: &str,
        bijections: &Bound<'py, PyAny>,
        candidate_ids: &Bound<'py, PyAny>,
        unresolved: &Bound<'py, PyAny>,
        limits: &Bound<'py, PyAny>,
        record_pairs: Option<&Bound<'py, PyAny>>,
        paths: Option<(Vec<String>, Vec<String>)>,
    ) -> PyResult<Option<Bound<'py, PyByteArray>>> {
        let Some(&node) = self.pointers.get(pointer) else {
            return Ok(None);
        };
        let (bounds, limits) = read_limits(limits)?;
        let Some(state) = ref_state(
            &self.plan,
            &self.pointers,
            bijections,
            candidate_ids,
            unresolved,
            record_pairs,
        )?
        else {
            return Ok(None);
        };
        let (golds, candidates) = (
            values(golds, bounds, "gold")?,
            values(candidates, bounds, "candidate")?,
        );
        let found = py.detach(|| -> PyResult<_> {
            let mut cache = self.lock()?;
            let mut scorer = Scorer::new(&self.plan, limits, &mut cache).with_state(&state);
            let paths = paths
                .as_ref()
                .map(|(gold, candidate)| (gold.as_slice(), candidate.as_slice()));
            declined(scorer.score_matrix(&golds, &candidates, node, paths))
        })?;
        Ok(found.map(|matrix| {
            let bytes: Vec<u8> = matrix
                .data()
                .iter()
                .flat_map(|cell| cell.to_ne_bytes())
                .collect();
            PyByteArray::new(py, &bytes)
        }))
    }
}

/// The objects' key alignments one call scores with: the plan's, or its own.
pub(crate) enum Cache<'a> {
    Shared(MutexGuard<'a, MapCache>),
    Own(MapCache),
}

impl Deref for Cache<'_> {
    type Target = MapCache;

    fn deref(&self) -> &MapCache {
        match self {
            Cache::Shared(cache) => cache,
            Cache::Own(cache) => cache,
        }
    }
}

impl DerefMut for Cache<'_> {
    fn deref_mut(&mut self) -> &mut MapCache {
        match self {
            Cache::Shared(cache) => cache,
            Cache::Own(cache) => cache,
        }
    }
}

impl ScorePlan {
    /// The key alignments for one call: the plan's own, or the call's when they are
    /// not kept across calls (see `memo_keys`) or another call holds them. Never
    /// waiting for them: a custom comparator may score under this plan from inside
    /// a score (waiting would deadlock), and the alignments only save time.
    pub(crate) fn lock(&self) -> PyResult<Cache<'_>> {
        if !self.memo_keys {
            return Ok(Cache::Own(MapCache::default()));
        }
        match self.cache.try_lock() {
            Ok(cache) => Ok(Cache::Shared(cache)),
            Err(TryLockError::WouldBlock) => Ok(Cache::Own(MapCache::default())),
            Err(TryLockError::Poisoned(_)) => Err(PyRuntimeError::new_err(
                "a scorer panicked holding the cache",
            )),
        }
    }
}

/// The conversion bounds and the scoring limits of an `oa_core.options.Limits`.
pub(crate) fn read_limits(limits: &Bound<'_, PyAny>) -> PyResult<(Bounds, Limits)> {
    // a document nested beyond bounds.depth is not converted (no recursion past it)
    let bounds = Bounds::of(limits)?;
    let max_matrix_cells = limits
        .getattr(intern!(limits.py(), "max_matrix_cells"))?
        .extract()?;
    let limits = Limits {
        max_depth: bounds.depth,
        max_matrix_cells,
    };
    Ok((bounds, limits))
}

/// A sequence of values of `document`, each converted (the first problem raised).
fn values(objects: &Bound<'_, PyAny>, bounds: Bounds, document: &str) -> PyResult<Vec<Json>> {
    objects
        .try_iter()?
        .map(|object| convert(&object?, bounds, document))
        .collect()
}

/// Both documents converted under `limits` (an `oa_core.options.Limits`) and the
/// scorer's limits; the first problem of the gold, else of the candidate, raised as
/// `oa_core.validation.check_json` raises it.
pub(crate) fn documents(
    gold: &Bound<'_, PyAny>,
    candidate: &Bound<'_, PyAny>,
    limits: &Bound<'_, PyAny>,
) -> PyResult<(Json, Json, Limits)> {
    let (bounds, limits) = read_limits(limits)?;
    let (gold, candidate) = converted(gold, candidate, bounds)?;
    Ok((gold, candidate, limits))
}

/// Both documents converted within `bounds`, the gold's first problem raised first.
fn converted(
    gold: &Bound<'_, PyAny>,
    candidate: &Bound<'_, PyAny>,
    bounds: Bounds,
) -> PyResult<(Json, Json)> {
    let gold = convert(gold, bounds, "gold")?;
    Ok((gold, convert(candidate, bounds, "candidate")?))
}

/// The bounds and limits of `oa_core.options.Limits()`, read from it once: a metric's
/// call gives no limits (reading a `Limits`' four fields costs a flat record's score
/// a thirtieth).
fn default_limits(py: Python<'_>) -> PyResult<(Bounds, Limits)> {
    static DEFAULTS: PyOnceLock<(Bounds, Limits)> = PyOnceLock::new();
    DEFAULTS
        .get_or_try_init(py, || {
            let options = py.import(intern!(py, "oa_core.options"))?;
            read_limits(&options.getattr(intern!(py, "Limits"))?.call0()?)
        })
        .copied()
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<ScorePlan>()?;
    Ok(())
}
