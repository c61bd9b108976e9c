//! Python bindings of `oa_engine::align::refer`: a scoped schema's [`ScopeSchema`],
//! a document's referential index kept in Rust ([`NativeIndex`]), the WL graph of a
//! group of scopes built from it, and the scopes' resolution groups.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use oa_engine::align::refer::{
    build_graph, id_key, resolution_groups as groups_of, DocumentIndex, Graph, OwnedIndex,
    Resolution, ScopeSchema, Side, Step, VertexKind,
};
use oa_engine::compare::{Number, Value};
use oa_engine::plan::ScopeId;
use oa_engine::value::{IdKey, Json};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyInt, PyString, PyTuple};

use crate::compare::{integer, text};
use crate::score::ScorePlan;
use crate::value::{json, Bounds};

fn error(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// Code points as a Python `str` (a lone surrogate kept, as Python holds it).
pub(crate) fn py_text<'py>(py: Python<'py>, text: &[u32]) -> PyResult<Bound<'py, PyAny>> {
    if let Some(valid) = text
        .iter()
        .map(|&c| char::from_u32(c))
        .collect::<Option<String>>()
    {
        return Ok(PyString::new(py, &valid).into_any());
    }
    let bytes: Vec<u8> = text.iter().flat_map(|c| c.to_le_bytes()).collect();
    PyBytes::new(py, &bytes).call_method1(intern!(py, "decode"), ("utf-32-le", "surrogatepass"))
}

/// Records as (pointer, path): the path's steps are keys (`str`) and indices
/// (`int`) from the root.
pub(crate) fn record_paths<'py, 'r>(
    py: Python<'py>,
    records: impl IntoIterator<Item = (&'r str, &'r [Step])>,
) -> PyResult<Vec<(String, Bound<'py, PyTuple>)>> {
    records
        .into_iter()
        .map(|(pointer, path)| {
            let steps: Vec<Bound<'py, PyAny>> = path
                .iter()
                .map(|step| match step {
                    Step::Key(key) => Ok(PyString::new(py, key).into_any()),
                    Step::Index(i) => Ok(i.into_pyobject(py)?.into_any()),
                })
                .collect::<PyResult<_>>()?;
            Ok((pointer.to_owned(), PyTuple::new(py, steps)?))
        })
        .collect()
}

/// A scoped schema as referential indexing reads it.
#[pyclass(module = "oa_core._engine", frozen)]
pub struct ReferPlan {
    pub(crate) schema: Arc<ScopeSchema>,
}

#[pymethods]
impl ReferPlan {
    /// From a compiled `ScorePlan` of the schema (with its scopes), each object
    /// node's property names in schema order by node pointer, and each scope's id
    /// field by name.
    #[new]
    fn new(
        plan: &Bound<'_, ScorePlan>,
        order: BTreeMap<String, Vec<String>>,
        id_fields: BTreeMap<String, String>,
    ) -> PyResult<Self> {
        let schema =
            ScopeSchema::new(plan.get().plan.clone(), &order, &id_fields).map_err(error)?;
        Ok(ReferPlan {
            schema: Arc::new(schema),
        })
    }

    /// The scopes whose record array sits below another array's items, sorted.
    #[getter]
    fn nested(&self) -> Vec<String> {
        self.schema
            .plan()
            .scopes()
            .iter()
            .filter(|scope| {
                self.schema
                    .plan()
                    .scope_id(&scope.name)
                    .is_some_and(|id| self.schema.is_nested(id))
            })
            .map(|scope| scope.name.clone())
            .collect()
    }

    /// The document's index, or `None` for a document the conversion does not take
    /// under `limits` (an `oa_core.options.Limits`): Python indexes it.
    fn index(
        &self,
        py: Python<'_>,
        document: &Bound<'_, PyAny>,
        limits: &Bound<'_, PyAny>,
    ) -> PyResult<Option<NativeIndex>> {
        let bounds = Bounds::of(limits)?;
        let Some(document) = json(document, bounds)? else {
            return Ok(None);
        };
        let schema = Arc::clone(&self.schema);
        let index = py
            .detach(|| OwnedIndex::new(document, &schema, bounds.depth))
            .map_err(error)?;
        Ok(Some(NativeIndex { index, schema }))
    }
}

/// A document's referential index (`oa_engine::align::refer::DocumentIndex`).
#[pyclass(module = "oa_core._engine", frozen)]
pub struct NativeIndex {
    index: OwnedIndex,
    schema: Arc<ScopeSchema>,
}

impl NativeIndex {
    fn scope(&self, name: &str) -> PyResult<ScopeId> {
        self.schema
            .plan()
            .scope_id(name)
            .ok_or_else(|| PyKeyError::new_err(name.to_owned()))
    }
}

/// A Python id key `(kind, value)` as the engine's key and value. Its value is a
/// string or a number of a document that passed `check_json` (either side may have
/// been indexed by Python: an integer of any size is taken).
fn id_value(key: &Bound<'_, PyAny>) -> PyResult<(IdKey, Json)> {
    let value = key.cast::<PyTuple>()?.get_item(1)?;
    let leaf = if let Ok(string) = value.cast_exact::<PyString>() {
        Value::Text(text(string)?)
    } else if value.is_exact_instance_of::<PyInt>() {
        Value::Number(Number::Int(integer(&value)?))
    } else if let Ok(float) = value.cast_exact::<PyFloat>() {
        Value::Number(Number::Float(float.value()))
    } else {
        return Err(PyTypeError::new_err(format!("{value:?} is no identifier")));
    };
    let value = Json::Leaf(leaf);
    let key = id_key(&value).ok_or_else(|| PyTypeError::new_err("no identifier"))?;
    Ok((key, value))
}

#[pymethods]
impl NativeIndex {
    /// The index itself: it never changes, so copies share it (a `PreparedGold`
    /// holding one stays deep-copyable).
    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }

    /// A scope's records as (pointer, path): the path's steps are keys (`str`) and
    /// indices (`int`) from the root.
    fn records<'py>(
        &self,
        py: Python<'py>,
        scope: &str,
    ) -> PyResult<Vec<(String, Bound<'py, PyTuple>)>> {
        let scope = self.scope(scope)?;
        let index = self.index.index();
        let paths: Vec<_> = index
            .scope_records(scope)
            .iter()
            .map(|r| (r.pointer.as_str(), index.path(r)))
            .collect();
        record_paths(py, paths.iter().map(|(p, path)| (*p, path.as_slice())))
    }

    /// The indices of a scope's records whose id some reference of the document names.
    fn named_records(&self, scope: &str) -> PyResult<Vec<usize>> {
        Ok(self.index.index().named_records(self.scope(scope)?))
    }

    /// The keys of a scope's records: (canonical JSON with lists in order,
    /// canonical JSON).
    fn record_keys<'py>(
        &self,
        py: Python<'py>,
        scope: &str,
    ) -> PyResult<Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>> {
        let scope = self.scope(scope)?;
        self.index
            .index()
            .scope_records(scope)
            .iter()
            .map(|record| {
                let (free, text) = DocumentIndex::record_key(record);
                Ok((py_text(py, &free)?, py_text(py, &text)?))
            })
            .collect()
    }

    /// One side's graph of `group` (scope names): vertices as (kind, pointer, record
    /// index or None, scope, hub label), edges as (source, target, relation, label),
    /// numbered from `offset`, and seeds. `bijections`: each resolved scope's
    /// `{gold id key: candidate id key or None}` (read on the gold side; its keys
    /// alone say which scopes are resolved).
    #[allow(clippy::type_complexity)]
    #[pyo3(signature = (side, group, bijections, blend, offset))]
    fn graph<'py>(
        &self,
        py: Python<'py>,
        side: &str,
        group: Vec<String>,
        bijections: &Bound<'py, PyDict>,
        blend: bool,
        offset: usize,
    ) -> PyResult<(
        Vec<(&'static str, String, Option<usize>, String, String)>,
        Vec<(usize, usize, String, Bound<'py, PyAny>)>,
        Vec<Bound<'py, PyAny>>,
    )> {
        let side = match side {
            "gold" => Side::Gold,
            "candidate" => Side::Candidate,
            _ => return Err(PyValueError::new_err(format!("no side {side:?}"))),
        };
        let group: BTreeSet<ScopeId> = group
            .iter()
            .map(|name| self.scope(name))
            .collect::<PyResult<_>>()?;
        let mut resolution = Resolution::default();
        for (name, mapping) in bijections.iter() {
            let scope = self.scope(&name.extract::<String>()?)?;
            let mut bijection = BTreeMap::new();
            if side == Side::Gold {
                for (gold, candidate) in mapping.cast::<PyDict>()?.iter() {
                    let (key, _) = id_value(&gold)?;
                    let image = if candidate.is_none() {
                        None
                    } else {
                        Some(id_value(&candidate)?.1)
                    };
                    bijection.insert(key, image);
                }
            }
            resolution.bijections.insert(scope, bijection);
        }
        let mut graph = Graph::default();
        py.detach(|| {
            build_graph(
                self.index.index(),
                &self.schema,
                side,
                &group,
                &resolution,
                blend,
                &mut graph,
            )
        })
        .map_err(error)?;
        let mut vertices = Vec::with_capacity(graph.vertices.len());
        for vertex in graph.vertices {
            vertices.push(match vertex.kind {
                VertexKind::Record { scope, index } => (
                    "record",
                    vertex.pointer,
                    Some(index),
                    self.schema.name(scope).map_err(error)?.to_owned(),
                    vertex.label,
                ),
                VertexKind::Hub => ("hub", vertex.pointer, None, String::new(), vertex.label),
            });
        }
        let edges = graph
            .edges
            .into_iter()
            .map(|edge| {
                Ok((
                    edge.source + offset,
                    edge.target + offset,
                    edge.relation.to_string(),
                    py_text(py, &edge.label)?,
                ))
            })
            .collect::<PyResult<_>>()?;
        let seeds = graph
            .seeds
            .iter()
            .map(|seed| py_text(py, seed))
            .collect::<PyResult<_>>()?;
        Ok((vertices, edges, seeds))
    }
}

/// The resolution groups, the cyclic scopes and the
/// `reference-cycle` warnings (code, pointer, message) of scopes with these
/// dependencies (name -> names) and id-node pointers (name -> pointer).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn resolution_groups(
    dependencies: BTreeMap<String, BTreeSet<String>>,
    id_pointers: BTreeMap<String, String>,
) -> PyResult<(
    Vec<Vec<String>>,
    BTreeSet<String>,
    Vec<(&'static str, String, String)>,
)> {
    let found = groups_of(&dependencies, &id_pointers).map_err(error)?;
    let warnings = found
        .warnings
        .into_iter()
        .map(|w| (w.code, w.pointer, w.message))
        .collect();
    Ok((found.groups, found.cyclic, warnings))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<ReferPlan>()?;
    module.add_class::<NativeIndex>()?;
    module.add_function(wrap_pyfunction!(resolution_groups, module)?)?;
    Ok(())
}
