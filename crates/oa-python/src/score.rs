//! Python bindings of `oa_engine::plan` and `oa_engine::score`: a parsed schema's
//! nodes compiled into a [`Plan`] once, then documents scored under it.

use std::collections::HashMap;
use std::sync::Mutex;

use oa_engine::compare::Comparator;
use oa_engine::plan::{Node, NodeId, NodeType, Order, Plan, PlanBuilder};
use oa_engine::score::{Limits, MapCache, Scorer, Shape};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::shape::shape;
use crate::value::{json, Bounds};

/// A schema construct this slice does not plan (Python scores such schemas).
fn unsupported(what: String) -> PyErr {
    PyValueError::new_err(what)
}

fn builtin(name: &str, names: &mut Vec<String>) -> PyResult<Comparator> {
    if !names.iter().any(|known| known == name) {
        names.push(name.to_owned());
    }
    Comparator::from_name(name).ok_or_else(|| unsupported(format!("custom comparator {name:?}")))
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
    names: Vec<String>,
}

impl<'py> Compiler<'py> {
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
        if optional(schema, "id_scope")?.is_some() || optional(schema, "ref")?.is_some() {
            return Err(at("a scope"));
        }
        if !schema.getattr("block_by")?.cast::<PyTuple>()?.is_empty() {
            return Err(at("blockBy"));
        }
        let ty: String = schema.getattr("type")?.extract()?;
        let mut node = Node::new(NodeType::from_name(&ty).ok_or_else(|| at("an unknown type"))?);
        node.inferred = schema.getattr("inferred")?.extract()?;
        node.null_score = schema.getattr("null_score")?.extract()?;
        node.threshold = schema.getattr("threshold")?.extract()?;
        if let Some(name) = optional(schema, "comparator")? {
            node.comparator = Some(builtin(&name.extract::<String>()?, &mut self.names)?);
        }
        let key_score: String = schema.getattr("key_score")?.extract()?;
        node.object.key_score = builtin(&key_score, &mut self.names)?;
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
        Ok(node)
    }
}

/// A schema without scopes compiled once; `score` scores documents under it.
///
/// Made from the schema's root and the three implicit nodes of `oa_core.schema`
/// (`ANY`, `ANY_OBJECT`, `ANY_ARRAY`); raises `ValueError` naming a construct it
/// does not plan (a scope, `blockBy`, a custom comparator name).
#[pyclass(module = "oa_core._engine", frozen)]
pub struct ScorePlan {
    plan: Plan,
    shape: Option<Shape>,
    names: Vec<String>,
    cache: Mutex<MapCache>,
}

#[pymethods]
impl ScorePlan {
    #[new]
    fn new(
        root: &Bound<'_, PyAny>,
        any: &Bound<'_, PyAny>,
        any_object: &Bound<'_, PyAny>,
        any_array: &Bound<'_, PyAny>,
        raw: &Bound<'_, PyAny>,
        active: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let mut compiler = Compiler {
            builder: PlanBuilder::default(),
            ids: HashMap::new(),
            pending: Vec::new(),
            names: Vec::new(),
        };
        let ids = [root, any, any_object, any_array].map(|node| compiler.id(node));
        while let Some((schema, id)) = compiler.pending.pop() {
            let node = compiler.node(&schema)?;
            compiler
                .builder
                .set(id, node)
                .map_err(|error| PyRuntimeError::new_err(error.to_string()))?;
        }
        let [root, any, any_object, any_array] = ids;
        let plan = compiler
            .builder
            .finish(root, any, any_object, any_array)
            .map_err(|error| PyRuntimeError::new_err(error.to_string()))?;
        let mut names = compiler.names;
        names.sort();
        Ok(ScorePlan {
            plan,
            shape: shape(raw, active)?,
            names,
            cache: Mutex::new(MapCache::default()),
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
    /// `oa_core.options.Limits`), or `None` where Python must check
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
        limits: &Bound<'_, PyAny>,
        strict: bool,
    ) -> PyResult<Option<f64>> {
        // a document nested beyond bounds.depth is not converted (no recursion past it)
        let bounds = Bounds::of(limits)?;
        let max_matrix_cells = limits.getattr(intern!(py, "max_matrix_cells"))?.extract()?;
        let (Some(gold), Some(candidate)) = (json(gold, bounds)?, json(candidate, bounds)?) else {
            return Ok(None);
        };
        let limits = Limits {
            max_depth: bounds.depth,
            max_matrix_cells,
        };
        py.detach(|| {
            if self
                .shape
                .as_ref()
                .is_some_and(|shape| !shape.accepts(&gold))
            {
                return Ok(None); // Python raises the gold's violation
            }
            let mut cache = self
                .cache
                .lock()
                .map_err(|_| PyRuntimeError::new_err("a scorer panicked holding the cache"))?;
            let Ok(value) = Scorer::new(&self.plan, limits, &mut cache).score(&gold, &candidate)
            else {
                return Ok(None);
            };
            // as in Python, a violating candidate scores 0 in strict mode once it
            // has been scored (a limit reached while scoring it is named first)
            let verdict = match self.shape.as_ref() {
                Some(shape) if strict => shape.verdict(&candidate),
                _ => Some(true),
            };
            Ok(verdict.map(|valid| if valid { value } else { 0.0 }))
        })
    }
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<ScorePlan>()?;
    Ok(())
}
