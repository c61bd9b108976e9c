//! The match tree of two documents as a node table (`oa_engine::score::Table`),
//! handed to Python column by column; `oa_core.nodetable` builds `MatchNode`s from it.

use oa_engine::plan::NodeId;
use oa_engine::score::{RefState, Row, Scorer, Table};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList, PyString};

use crate::errors::declined;
use crate::score::{documents, ScorePlan};
use crate::state::ref_state;

/// The rows of a match tree in preorder, one list per field (row `i` of each list
/// is node `i`); `parent` is None for the root, and a parent comes before its
/// children, which follow in their order. `schema` holds the `SchemaNode` each node
/// was compared under; `gold_key`/`candidate_key` (map slots) or
/// `gold_index`/`candidate_index` (list items) the step from the parent's values.
/// `scope` names the scope of identifiers, references and records arrays paired by
/// pointer; `expected` marks the references whose gold id maps to a candidate id.
/// `matrix` is `(rows, cols, float64 buffer in native byte order)` or None.
#[pyclass(module = "oa_core._engine", frozen)]
pub struct NodeTable {
    #[pyo3(get)]
    parent: Py<PyList>,
    #[pyo3(get)]
    kind: Py<PyList>,
    #[pyo3(get)]
    status: Py<PyList>,
    #[pyo3(get)]
    label: Py<PyList>,
    #[pyo3(get)]
    gold_path: Py<PyList>,
    #[pyo3(get)]
    candidate_path: Py<PyList>,
    #[pyo3(get)]
    schema: Py<PyList>,
    #[pyo3(get)]
    gold_key: Py<PyList>,
    #[pyo3(get)]
    candidate_key: Py<PyList>,
    #[pyo3(get)]
    gold_index: Py<PyList>,
    #[pyo3(get)]
    candidate_index: Py<PyList>,
    #[pyo3(get)]
    score: Py<PyList>,
    #[pyo3(get)]
    weight: Py<PyList>,
    #[pyo3(get)]
    key_weight: Py<PyList>,
    #[pyo3(get)]
    key_score: Py<PyList>,
    #[pyo3(get)]
    comparator: Py<PyList>,
    #[pyo3(get)]
    similarity: Py<PyList>,
    #[pyo3(get)]
    threshold: Py<PyList>,
    #[pyo3(get)]
    scope: Py<PyList>,
    #[pyo3(get)]
    expected: Py<PyList>,
    #[pyo3(get)]
    order: Py<PyList>,
    #[pyo3(get)]
    pairs: Py<PyList>,
    #[pyo3(get)]
    matrix: Py<PyList>,
    len: usize,
}

#[pymethods]
impl NodeTable {
    fn __len__(&self) -> usize {
        self.len
    }
}

/// One column: `field` of every row.
fn column<'py, 'r, T, F>(py: Python<'py>, rows: &'r [Row], field: F) -> PyResult<Py<PyList>>
where
    T: IntoPyObject<'py>,
    F: Fn(&'r Row) -> T,
{
    Ok(PyList::new(py, rows.iter().map(field))?.unbind())
}

/// A column of names from a small set (kinds, statuses, orders, comparators): one
/// Python string per distinct name, shared by its rows, rather than one per row.
fn names<'py, 'r, F>(py: Python<'py>, rows: &'r [Row], field: F) -> PyResult<Py<PyList>>
where
    F: Fn(&'r Row) -> Option<&'r str>,
{
    let mut made: Vec<(&'r str, Bound<'py, PyString>)> = Vec::new();
    let mut items = Vec::with_capacity(rows.len());
    for row in rows {
        items.push(
            field(row).map(|name| match made.iter().find(|(seen, _)| *seen == name) {
                Some((_, text)) => text.clone(),
                None => {
                    let text = PyString::new(py, name);
                    made.push((name, text.clone()));
                    text
                }
            }),
        );
    }
    Ok(PyList::new(py, items)?.unbind())
}

fn schema_node(plan: &ScorePlan, py: Python<'_>, id: NodeId) -> PyResult<Py<PyAny>> {
    let found = plan
        .schema_nodes
        .binary_search_by_key(&id, |(node, _)| *node)
        .ok()
        .and_then(|index| plan.schema_nodes.get(index));
    found
        .map(|(_, node)| node.clone_ref(py))
        .ok_or_else(|| PyRuntimeError::new_err("a row names a node outside its plan"))
}

pub(crate) fn columns(py: Python<'_>, plan: &ScorePlan, table: &Table) -> PyResult<NodeTable> {
    let rows = table.rows();
    let schema = rows
        .iter()
        .map(|row| schema_node(plan, py, row.node))
        .collect::<PyResult<Vec<_>>>()?;
    let scopes = plan.plan.scopes();
    let scope = rows
        .iter()
        .map(|row| match row.scope {
            Some(id) => scopes
                .get(id.index())
                .map(|scope| Some(scope.name.as_str()))
                .ok_or_else(|| PyRuntimeError::new_err("a row names a scope outside its plan")),
            None => Ok(None),
        })
        .collect::<PyResult<Vec<_>>>()?;
    let mut matrices = Vec::with_capacity(rows.len());
    for row in rows {
        matrices.push(match &row.matrix {
            Some(matrix) => {
                let data = matrix.data();
                let buffer = PyByteArray::new_with(py, data.len() * 8, |buffer| {
                    for (slot, cell) in buffer.chunks_exact_mut(8).zip(data) {
                        slot.copy_from_slice(&cell.to_ne_bytes());
                    }
                    Ok(())
                })?;
                Some((matrix.rows(), matrix.cols(), buffer))
            }
            None => None,
        });
    }
    Ok(NodeTable {
        parent: column(py, rows, |row| row.parent)?,
        kind: names(py, rows, |row| Some(row.kind.name()))?,
        status: names(py, rows, |row| Some(row.status.name()))?,
        label: column(py, rows, |row| row.label.as_str())?,
        gold_path: column(py, rows, |row| row.gold_pointer.as_deref())?,
        candidate_path: column(py, rows, |row| row.candidate_pointer.as_deref())?,
        schema: PyList::new(py, schema)?.unbind(),
        gold_key: column(py, rows, |row| row.gold_key.as_deref())?,
        candidate_key: column(py, rows, |row| row.candidate_key.as_deref())?,
        gold_index: column(py, rows, |row| row.gold_index)?,
        candidate_index: column(py, rows, |row| row.candidate_index)?,
        score: column(py, rows, |row| row.score)?,
        weight: column(py, rows, |row| row.weight)?,
        key_weight: column(py, rows, |row| row.key_weight)?,
        key_score: column(py, rows, |row| row.key_score)?,
        comparator: names(py, rows, |row| {
            row.comparator
                .and_then(|comparator| comparator.name_in(plan.plan.externals()))
        })?,
        similarity: column(py, rows, |row| row.similarity)?,
        threshold: column(py, rows, |row| row.threshold)?,
        scope: PyList::new(py, scope)?.unbind(),
        expected: column(py, rows, |row| row.expected)?,
        order: names(py, rows, |row| row.order)?,
        pairs: column(py, rows, |row| row.pairs.clone())?,
        matrix: PyList::new(py, matrices)?.unbind(),
        len: rows.len(),
    })
}

/// The match tree of `candidate` against `gold` under `plan` and `limits` (an
/// `oa_core.options.Limits`), and under a referential state when `bijections` is
/// given (the forms `ScorePlan.score_scoped` takes), or None where Python must build
/// it (a value or a construct this engine does not take, a limit reached, a
/// comparator error: Python names it). The documents are taken as checked already.
#[pyfunction]
#[pyo3(signature = (plan, gold, candidate, limits, bijections=None, candidate_ids=None,
                    unresolved=None, record_pairs=None))]
#[allow(clippy::too_many_arguments)] // Scorer's arguments, one by one
fn match_table(
    py: Python<'_>,
    plan: &Bound<'_, ScorePlan>,
    gold: &Bound<'_, PyAny>,
    candidate: &Bound<'_, PyAny>,
    limits: &Bound<'_, PyAny>,
    bijections: Option<&Bound<'_, PyDict>>,
    candidate_ids: Option<&Bound<'_, PyDict>>,
    unresolved: Option<&Bound<'_, PyAny>>,
    record_pairs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Option<NodeTable>> {
    let plan = plan.get();
    let (gold, candidate, limits) = documents(gold, candidate, limits)?;
    let state = match (bijections, candidate_ids, unresolved) {
        (Some(bijections), Some(candidate_ids), Some(unresolved)) => {
            let pointers = &plan.pointers;
            let found = ref_state(
                &plan.plan,
                pointers,
                bijections,
                candidate_ids,
                unresolved,
                record_pairs.map(|pairs| pairs.as_any()),
            )?;
            let Some(state) = found else {
                return Ok(None);
            };
            state
        }
        _ => RefState::new(),
    };
    let table = py.detach(|| -> PyResult<Option<Table>> {
        let mut cache = plan.lock()?;
        let mut scorer = Scorer::new(&plan.plan, limits, &mut cache).with_state(&state);
        declined(scorer.table(&gold, &candidate))
    })?;
    table.map(|table| columns(py, plan, &table)).transpose()
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<NodeTable>()?;
    module.add_function(wrap_pyfunction!(match_table, module)?)?;
    Ok(())
}
