//! `align_scopes`: a scoped document pair resolved in one call with everything
//! `oa_core.align` shows of the resolution (`oa_engine::align::refer::align_scopes`
//! under the scorer of `ScorePlan`), as plain Python data `oa_core.scopes_native`
//! builds its objects from, and the match tree scored under that resolution (the
//! documents converted once for both); `None` wherever Python must resolve them.

use std::collections::BTreeMap;

use oa_engine::align::refer::{
    align_scopes as aligned_scopes, Aligned, DocumentIndex, IdWarning, ReferError, ScopeReport,
    Step, Trace, VertexKind,
};
use oa_engine::align::{Matrix, Pairs};
use oa_engine::plan::ScopeId;
use oa_engine::score::Table;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use crate::refer::{py_text, ReferPlan};
use crate::resolve::{resolving, Request};
use crate::score::ScorePlan;
use crate::tree::NodeTable;

/// A record's pointer and path.
type Located = (String, Vec<Step>);

/// Each scope's gold and candidate records, by report.
type Sides = Vec<(Vec<Located>, Vec<Located>)>;

/// The resolution, its records by report, and the match tree scored under it.
type Found = (Aligned, Sides, Option<Table>);

fn located(index: &DocumentIndex<'_>, scope: ScopeId) -> Vec<Located> {
    index
        .scope_records(scope)
        .iter()
        .map(|r| (r.pointer.clone(), index.path(r)))
        .collect()
}

/// A record read from its document: (pointer, record, id).
type Read<'py, 'r> = (&'r str, Bound<'py, PyAny>, Bound<'py, PyAny>);

/// A scope's records as (pointer, record, id): each record read from `document`, the
/// Python value the index was made from, along its path, and its id as
/// `record.get(id_field)` reads it (the objects themselves, not copies).
fn records<'py, 'r>(
    document: &Bound<'py, PyAny>,
    records: &'r [Located],
    id_field: &str,
) -> PyResult<Vec<Read<'py, 'r>>> {
    let py = document.py();
    records
        .iter()
        .map(|(pointer, path)| {
            let mut record = document.clone();
            for step in path {
                record = match step {
                    Step::Key(key) => record.get_item(key)?,
                    Step::Index(index) => record.get_item(index)?,
                };
            }
            let id = match record.cast::<PyDict>() {
                Ok(object) => object.get_item(id_field)?,
                Err(_) => Some(record.call_method1(intern!(py, "get"), (id_field,))?),
            };
            Ok((
                pointer.as_str(),
                record,
                id.unwrap_or_else(|| py.None().into_bound(py)),
            ))
        })
        .collect()
}

fn bytes_of<'py, T: Copy>(
    py: Python<'py>,
    matrix: &Matrix<T>,
    bits: impl Fn(T) -> [u8; 8],
) -> Bound<'py, PyBytes> {
    let data: Vec<u8> = matrix.data().iter().flat_map(|&v| bits(v)).collect();
    PyBytes::new(py, &data)
}

fn pairs<'py>(py: Python<'py>, pairs: &Pairs) -> PyResult<Bound<'py, PyList>> {
    PyList::new(py, pairs.iter().copied())
}

fn warning(warning: &IdWarning) -> (&'static str, &'static str, usize, Option<(usize, usize)>) {
    let side = |gold: bool| if gold { "gold" } else { "candidate" };
    match *warning {
        IdWarning::Missing { gold, record } => ("missing-id", side(gold), record, None),
        IdWarning::Duplicate {
            gold,
            record,
            first,
            target,
        } => ("duplicate-id", side(gold), record, Some((first, target))),
    }
}

fn scope_tuple<'py>(
    refer: &ReferPlan,
    report: &ScopeReport,
    documents: (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
    (gold, candidate): &(Vec<Located>, Vec<Located>),
) -> PyResult<Bound<'py, PyTuple>> {
    let py = documents.0.py();
    let refused = |e: ReferError| pyo3::exceptions::PyValueError::new_err(e.to_string());
    let name = refer.schema.name(report.scope).map_err(refused)?;
    let id_field = refer.schema.id_field(report.scope).map_err(refused)?;
    let (same, depth, rounds) = match &report.agreement {
        Some(found) => (
            Some(bytes_of(py, &found.same, f64::to_ne_bytes)),
            Some(bytes_of(py, &found.depth, i64::to_ne_bytes)),
            found.rounds,
        ),
        None => (None, None, 0),
    };
    let rules: Vec<(usize, usize, &str)> = report
        .rules
        .iter()
        .map(|(&(i, j), rule)| (i, j, rule.name()))
        .collect();
    let warnings: Vec<_> = report.warnings.iter().map(warning).collect();
    let items: Vec<Bound<'py, PyAny>> = vec![
        name.into_pyobject(py)?.into_any(),
        (report.matrix.rows(), report.matrix.cols())
            .into_pyobject(py)?
            .into_any(),
        bytes_of(py, &report.matrix, f64::to_ne_bytes).into_any(),
        same.into_pyobject(py)?.into_any(),
        depth.into_pyobject(py)?.into_any(),
        rounds.into_pyobject(py)?.into_any(),
        pairs(py, &report.pairs)?.into_any(),
        pairs(py, &report.structural_pairs)?.into_any(),
        rules.into_pyobject(py)?.into_any(),
        pairs(py, &report.label_ties)?.into_any(),
        (&report.gold_designations, &report.candidate_designations)
            .into_pyobject(py)?
            .into_any(),
        report.bijection.clone().into_pyobject(py)?.into_any(),
        report.trace.into_pyobject(py)?.into_any(),
        warnings.into_pyobject(py)?.into_any(),
        (
            records(documents.0, gold, id_field)?,
            records(documents.1, candidate, id_field)?,
        )
            .into_pyobject(py)?
            .into_any(),
    ];
    PyTuple::new(py, items)
}

fn trace_tuple<'py>(
    py: Python<'py>,
    refer: &ReferPlan,
    trace: &Trace,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut vertices = Vec::with_capacity(trace.graph.vertices.len());
    for vertex in &trace.graph.vertices {
        vertices.push(match vertex.kind {
            VertexKind::Record { scope, index } => (
                "record",
                vertex.pointer.clone(),
                Some(index),
                refer
                    .schema
                    .name(scope)
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?
                    .to_owned(),
                vertex.label.clone(),
            ),
            VertexKind::Hub => (
                "hub",
                vertex.pointer.clone(),
                None,
                String::new(),
                vertex.label.clone(),
            ),
        });
    }
    let edges = trace
        .graph
        .edges
        .iter()
        .map(|edge| {
            Ok((
                edge.source,
                edge.target,
                edge.relation.to_string(),
                py_text(py, &edge.label)?,
            ))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let items: Vec<Bound<'py, PyAny>> = vec![
        (trace.gold_vertices, trace.gold_edges)
            .into_pyobject(py)?
            .into_any(),
        vertices.into_pyobject(py)?.into_any(),
        edges.into_pyobject(py)?.into_any(),
        trace.rounds.clone().into_pyobject(py)?.into_any(),
    ];
    PyTuple::new(py, items)
}

/// Every scope resolved as `resolve_score` resolves them (arguments as its own), with
/// what `oa_core.align` shows: a list of scopes in resolution order, each `(name,
/// (rows, cols), C, b or None, rounds of agreement or None, rounds, pairs, twin pairs,
/// [(i, j, rule)], label ties, (gold designations, candidate designations), [(gold
/// record, candidate record or None)] one per gold id, trace index or None, [(code,
/// document, record, (first, target) or None)], (gold records, candidate records) as
/// (pointer, record, id): the objects of `gold` and `candidate`)` (the matrices as
/// native-endian float64 / int64 bytes), the refined graphs `((gold vertices, gold
/// edges), vertices, edges, rounds)` (none without `traces`), and with `tree` the
/// `NodeTable` of the documents scored under the resolution (`match_table`'s, from
/// the documents converted once), else None.
/// None where Python must resolve them.
#[pyfunction]
#[pyo3(signature = (refer, plan, gold, candidate, limits, groups, records, mode, wl_lambda,
                    *, traces=true, tree=false))]
#[allow(clippy::too_many_arguments)] // the resolution's inputs, one by one
fn align_scopes<'py>(
    py: Python<'py>,
    refer: &ReferPlan,
    plan: &Bound<'py, ScorePlan>,
    gold: &Bound<'py, PyAny>,
    candidate: &Bound<'py, PyAny>,
    limits: &Bound<'py, PyAny>,
    groups: Vec<Vec<String>>,
    records: BTreeMap<String, String>,
    mode: &str,
    wl_lambda: f64,
    traces: bool,
    tree: bool,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let request = Request {
        refer,
        plan: plan.get(),
        gold,
        candidate,
        limits,
        groups,
        records,
        mode,
        wl_lambda,
        describe: true,
    };
    let found: Option<Found> = resolving(
        py,
        request,
        Box::new(|schema, gold, candidate, groups, mode, scores| {
            let aligned = aligned_scopes(schema, gold, candidate, groups, mode, scores)?;
            let sides = aligned
                .scopes
                .iter()
                .map(|report| {
                    (
                        located(gold, report.scope),
                        located(candidate, report.scope),
                    )
                })
                .collect();
            let table = if tree {
                Some(scores.table(&aligned.refs)?)
            } else {
                None
            };
            Ok((aligned, sides, table))
        }),
    )?;
    let Some((aligned, sides, table)) = found else {
        return Ok(None);
    };
    let scopes = aligned
        .scopes
        .iter()
        .zip(&sides)
        .map(|(report, side)| scope_tuple(refer, report, (gold, candidate), side))
        .collect::<PyResult<Vec<_>>>()?;
    let shown = if traces {
        aligned.traces.as_slice()
    } else {
        &[]
    };
    let shown = shown
        .iter()
        .map(|trace| trace_tuple(py, refer, trace))
        .collect::<PyResult<Vec<_>>>()?;
    let table = match table {
        Some(table) => {
            Some(Bound::new(py, NodeTable::new(plan.clone().unbind(), table))?.into_any())
        }
        None => None,
    };
    let items: Vec<Bound<'py, PyAny>> = vec![
        PyList::new(py, scopes)?.into_any(),
        PyList::new(py, shown)?.into_any(),
        table.into_pyobject(py)?.into_any(),
    ];
    Ok(Some(PyTuple::new(py, items)?))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(align_scopes, module)?)?;
    Ok(())
}
