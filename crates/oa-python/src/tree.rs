//! The match tree of two documents as a node table (`oa_engine::score::Table`),
//! handed to Python column by column; `oa_core.nodetable` builds `MatchNode`s from it.

use oa_engine::plan::NodeId;
use oa_engine::score::{RefState, Row, Scorer, Table, Text};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
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
/// `childless` says whether no row names a row as its parent (in the whole table,
/// also once [`NodeTable::compact`] has left some out).
///
/// A column's list is made when it is first read, then kept (every read gives the
/// same list): repair operations read only some of them, `align()` all.
#[pyclass(module = "oa_core._engine", frozen)]
pub struct NodeTable {
    table: Table,
    /// The plan the rows were scored under: their `SchemaNode`s, scope and
    /// comparator names.
    plan: Py<ScorePlan>,
    made: [PyOnceLock<Py<PyList>>; COLUMNS],
}

/// `NodeTable`'s columns: an enum naming each, its getter, and `__len__`.
macro_rules! node_columns {
    ($($getter:ident => $column:ident),* $(,)?) => {
        #[derive(Clone, Copy)]
        enum Column {
            $($column),*
        }

        const COLUMNS: usize = [$(Column::$column),*].len();

        #[pymethods]
        impl NodeTable {
            fn __len__(&self) -> usize {
                self.table.rows().len()
            }

            /// This table without its subtrees that agree with the gold (every row
            /// in them matched, scoring 1 under the same key on both sides, each
            /// identifier and reference its gold's image): the root and every row
            /// at or above one that disagrees (`oa_engine::score::Table::compact`).
            fn compact(&self, py: Python<'_>) -> NodeTable {
                NodeTable::new(self.plan.clone_ref(py), self.table.compact())
            }

            $(
                #[getter]
                fn $getter(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
                    self.column(py, Column::$column)
                }
            )*
        }
    };
}

node_columns! {
    parent => Parent,
    kind => Kind,
    status => Status,
    label => Label,
    gold_path => GoldPath,
    candidate_path => CandidatePath,
    schema => Schema,
    gold_key => GoldKey,
    candidate_key => CandidateKey,
    gold_index => GoldIndex,
    candidate_index => CandidateIndex,
    score => Score,
    weight => Weight,
    key_weight => KeyWeight,
    key_score => KeyScore,
    comparator => Comparator,
    similarity => Similarity,
    threshold => Threshold,
    scope => Scope,
    expected => Expected,
    order => Order,
    pairs => Pairs,
    matrix => Matrix,
    childless => Childless,
}

impl NodeTable {
    /// The table's rows as a `NodeTable`, its columns made as they are read.
    pub(crate) fn new(plan: Py<ScorePlan>, table: Table) -> NodeTable {
        NodeTable {
            table,
            plan,
            made: std::array::from_fn(|_| PyOnceLock::new()),
        }
    }

    /// One column's list, made at its first read.
    fn column(&self, py: Python<'_>, column: Column) -> PyResult<Py<PyList>> {
        let cell = self
            .made
            .get(column as usize)
            .ok_or_else(|| PyRuntimeError::new_err("a column outside the table"))?;
        if let Some(list) = cell.get(py) {
            return Ok(list.clone_ref(py));
        }
        // made outside the cell, then set: `get_or_try_init` would detach from the
        // interpreter around every column's making (two thread-state switches each),
        // and a thread that set the column first keeps its list (nothing here lets
        // another run in between under the GIL)
        let made = self.make(py, column)?;
        let _ = cell.set(py, made);
        cell.get(py)
            .map(|list| list.clone_ref(py))
            .ok_or_else(|| PyRuntimeError::new_err("a column was not kept"))
    }

    fn make(&self, py: Python<'_>, column: Column) -> PyResult<Py<PyList>> {
        let plan = self.plan.get();
        let table = &self.table;
        let rows = table.rows();
        let text = |text: Option<Text>| text.map(|text| table.text(text));
        match column {
            Column::Parent => list(py, rows, |row| row.parent),
            Column::Kind => names(py, rows, |row| Some(row.kind.name())),
            Column::Status => names(py, rows, |row| Some(row.status.name())),
            // a slot's label is mostly its gold key, and its candidate key mostly the
            // same text: the gold key's string, not another of its own
            Column::Label => {
                self.sharing(py, Column::GoldKey, |row| (row.gold_key, Some(row.label)))
            }
            Column::GoldPath => list(py, rows, |row| text(row.gold_pointer)),
            Column::CandidatePath => list(py, rows, |row| text(row.candidate_pointer)),
            Column::Schema => {
                let schema = rows
                    .iter()
                    .map(|row| schema_node(plan, py, row.node))
                    .collect::<PyResult<Vec<_>>>()?;
                Ok(PyList::new(py, schema)?.unbind())
            }
            Column::GoldKey => list(py, rows, |row| text(row.gold_key)),
            Column::CandidateKey => {
                self.sharing(py, Column::GoldKey, |row| (row.gold_key, row.candidate_key))
            }
            Column::GoldIndex => list(py, rows, |row| row.gold_index),
            Column::CandidateIndex => list(py, rows, |row| row.candidate_index),
            Column::Score => list(py, rows, |row| row.score),
            Column::Weight => list(py, rows, |row| row.weight),
            Column::KeyWeight => list(py, rows, |row| row.key_weight),
            Column::KeyScore => list(py, rows, |row| row.key_score),
            Column::Comparator => names(py, rows, |row| {
                row.comparator
                    .and_then(|comparator| comparator.name_in(plan.plan.externals()))
            }),
            Column::Similarity => list(py, rows, |row| row.similarity),
            Column::Threshold => list(py, rows, |row| row.threshold),
            Column::Scope => scopes(py, plan, rows),
            Column::Expected => list(py, rows, |row| row.expected),
            Column::Order => names(py, rows, |row| row.order),
            Column::Pairs => list(py, rows, |row| row.pairs.as_slice()),
            Column::Matrix => matrices(py, rows),
            Column::Childless => list(py, rows, |row| !row.children),
        }
    }

    /// A column of texts, `field` of every row: `(text of the same row in column
    /// `from`, own text)`; the row shares `from`'s string where the two are one piece
    /// of the table's text.
    fn sharing<F>(&self, py: Python<'_>, from: Column, field: F) -> PyResult<Py<PyList>>
    where
        F: Fn(&Row) -> (Option<Text>, Option<Text>),
    {
        let from = self.column(py, from)?.into_bound(py);
        let rows = self.table.rows();
        let mut items = Vec::with_capacity(rows.len());
        for (index, row) in rows.iter().enumerate() {
            items.push(match field(row) {
                (Some(shared), Some(own)) if shared == own => from.get_item(index)?,
                (_, own) => own.map(|own| self.table.text(own)).into_pyobject(py)?,
            });
        }
        Ok(PyList::new(py, items)?.unbind())
    }
}

/// One column: `field` of every row.
fn list<'py, 'r, T, F>(py: Python<'py>, rows: &'r [Row], field: F) -> PyResult<Py<PyList>>
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

/// The scope names of the rows (None where a row has no scope).
fn scopes(py: Python<'_>, plan: &ScorePlan, rows: &[Row]) -> PyResult<Py<PyList>> {
    let scopes = plan.plan.scopes();
    let names = rows
        .iter()
        .map(|row| match row.scope {
            Some(id) => scopes
                .get(id.index())
                .map(|scope| Some(scope.name.as_str()))
                .ok_or_else(|| PyRuntimeError::new_err("a row names a scope outside its plan")),
            None => Ok(None),
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(PyList::new(py, names)?.unbind())
}

/// The lists' score matrices as `(rows, cols, buffer)` (None for other rows).
fn matrices(py: Python<'_>, rows: &[Row]) -> PyResult<Py<PyList>> {
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
    Ok(PyList::new(py, matrices)?.unbind())
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
    let scored_under = plan.clone().unbind();
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
    Ok(table.map(|table| NodeTable::new(scored_under, table)))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<NodeTable>()?;
    module.add_function(wrap_pyfunction!(match_table, module)?)?;
    Ok(())
}
