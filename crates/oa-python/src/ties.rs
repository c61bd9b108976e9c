//! Python bindings of the tie policy (`oa_engine::align::{policy, pairing, settle}`):
//! the ordered rules, one scope's pairing and the settling of its label ties. A
//! callback's own exception (record keys, the documents' score) is raised as it is;
//! every other `AlignError` is a `ValueError`.

use oa_engine::align::{
    self, AlignError, Budget, Canonical, DocumentScore, Incident, Levels, Matrix, RecordKey,
    RecordKeys, References, Structure, WlMode, ENUMERATED, SCORED_RECORDS, SCORED_TRIALS,
    TIE_RULES,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::align::{float_matrix, matrix, value_error};

/// The tie policy's rules in order, as (name, one-line description).
#[pyfunction]
fn tie_rules() -> Vec<(&'static str, &'static str)> {
    TIE_RULES
        .iter()
        .map(|rule| (rule.name(), rule.description()))
        .collect()
}

/// A callback's first error, kept to be raised as it is.
#[derive(Default)]
struct Held(Option<PyErr>);

impl Held {
    fn hold(&mut self, error: PyErr) -> AlignError {
        self.0.get_or_insert(error);
        AlignError::Level
    }

    /// The callback's error if it failed, else `error` as a `ValueError`.
    fn raise(&mut self, error: AlignError) -> PyErr {
        self.0.take().unwrap_or_else(|| value_error(error))
    }
}

/// `keys(gold, indices)` of Python, giving (bytes, bytes) per record.
struct PyKeys<'py> {
    callable: Bound<'py, PyAny>,
    held: Held,
}

impl RecordKeys for PyKeys<'_> {
    fn keys(&mut self, gold: bool, records: &[usize]) -> Result<Vec<RecordKey>, AlignError> {
        let called = self
            .callable
            .call1((gold, records.to_vec()))
            .and_then(|found| found.extract::<Vec<RecordKey>>());
        called.map_err(|error| self.held.hold(error))
    }
}

/// `score_of(pairs)` and `alike(trials)` of Python.
struct PyScore<'py> {
    callable: Bound<'py, PyAny>,
    alike: Bound<'py, PyAny>,
    held: Held,
}

impl DocumentScore for PyScore<'_> {
    fn score(&mut self, pairs: &[(usize, usize)]) -> Result<f64, AlignError> {
        let called = self
            .callable
            .call1((pairs.to_vec(),))
            .and_then(|value| value.extract::<f64>());
        called.map_err(|error| self.held.hold(error))
    }

    fn alike(&mut self, trials: &[Vec<(usize, usize)>]) -> Result<Vec<usize>, AlignError> {
        let called = self
            .alike
            .call1((trials.to_vec(),))
            .and_then(|classes| classes.extract::<Vec<usize>>());
        called.map_err(|error| self.held.hold(error))
    }
}

/// A scope's (or block's) structure given as its colour histories (rounds x records,
/// int64), incident edges per record as (kind, other end), each record's occurrence
/// (-1 outside nested scopes) and, for a block, its records in the scope.
type StructureArgs<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Vec<Vec<(usize, i64)>>,
    Vec<Vec<(usize, i64)>>,
    Vec<i64>,
    Vec<i64>,
    Option<Vec<usize>>,
    Option<Vec<usize>>,
);

fn incident(lines: Vec<Vec<(usize, i64)>>) -> Vec<Vec<Incident>> {
    lines
        .into_iter()
        .map(|line| {
            line.into_iter()
                .map(|(kind, other)| Incident { kind, other })
                .collect()
        })
        .collect()
}

/// The pairing and its canonical order: (pairs, rule names, label ties, rows, cols).
type Paired = (
    Vec<(usize, usize)>,
    Vec<&'static str>,
    Vec<(usize, usize)>,
    Vec<i64>,
    Vec<i64>,
);

/// One scope's pairing by the tie policy (`oa_engine::align`'s `pair_scope`): C, then
/// b, then a, then the content rule.
#[pyfunction]
fn pair_scope<'py>(
    py: Python<'py>,
    scores: &Bound<'py, PyAny>,
    mode: &str,
    wl_lambda: f64,
    structure: Option<StructureArgs<'py>>,
    keys: Bound<'py, PyAny>,
) -> PyResult<Paired> {
    let cells = float_matrix(py, scores)?;
    let mode = WlMode::parse(mode)
        .ok_or_else(|| PyValueError::new_err(format!("{mode:?} names no WL mode")))?;
    let structure = match structure {
        None => None,
        Some((
            gold,
            candidate,
            gold_edges,
            candidate_edges,
            gold_occ,
            candidate_occ,
            rows,
            cols,
        )) => {
            let gold: Matrix<i64> = matrix(py, &gold)?;
            let candidate: Matrix<i64> = matrix(py, &candidate)?;
            let references = References::new(
                incident(gold_edges),
                incident(candidate_edges),
                gold_occ,
                candidate_occ,
                rows,
                cols,
            );
            Some(
                references
                    .and_then(|references| Structure::new(&gold, &candidate, references))
                    .map_err(value_error)?,
            )
        }
    };
    let mut keys = PyKeys {
        callable: keys,
        held: Held::default(),
    };
    let paired = align::pair_scope(&cells, mode, wl_lambda, structure, &mut keys)
        .map_err(|error| keys.held.raise(error))?;
    Ok((
        paired.pairs,
        paired.rules.iter().map(|rule| rule.name()).collect(),
        paired.label_ties,
        paired.rows,
        paired.cols,
    ))
}

/// The settled pairs, the label ties that remain and the trials left of the budget.
type Settled = (Vec<(usize, usize)>, Vec<(usize, usize)>, usize);

/// The content rule's settling of one scope's label ties by the documents' score
/// (`oa_engine::align`'s `settle_by_score`), within the trials left of the budget.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // the settling's inputs, as Python passes them
fn settle_by_score<'py>(
    py: Python<'py>,
    pairs: Vec<(usize, usize)>,
    label_ties: Vec<(usize, usize)>,
    kept: Vec<Bound<'py, PyAny>>,
    ranked: Vec<Bound<'py, PyAny>>,
    score_of: Bound<'py, PyAny>,
    alike: Bound<'py, PyAny>,
    budget: usize,
    rows: Vec<i64>,
    cols: Vec<i64>,
) -> PyResult<Settled> {
    let kept = kept
        .iter()
        .map(|level| float_matrix(py, level))
        .collect::<PyResult<Vec<Matrix<f64>>>>()?;
    let ranked = ranked
        .iter()
        .map(|level| matrix::<i64>(py, level))
        .collect::<PyResult<Vec<Matrix<i64>>>>()?;
    let mut score = PyScore {
        callable: score_of,
        alike,
        held: Held::default(),
    };
    let mut budget = Budget { trials: budget };
    let levels = Levels {
        kept: &kept,
        ranked: &ranked,
    };
    let order = Canonical {
        rows: &rows,
        cols: &cols,
    };
    let (settled, remaining) = align::settle_by_score(
        &pairs,
        &label_ties,
        &levels,
        &mut score,
        &mut budget,
        &order,
    )
    .map_err(|error| score.held.raise(error))?;
    Ok((settled, remaining, budget.trials))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(tie_rules, module)?)?;
    module.add_function(wrap_pyfunction!(pair_scope, module)?)?;
    module.add_function(wrap_pyfunction!(settle_by_score, module)?)?;
    module.add("SCORED_TRIALS", SCORED_TRIALS)?;
    module.add("SCORED_RECORDS", SCORED_RECORDS)?;
    module.add("ENUMERATED", ENUMERATED)?;
    Ok(())
}
