//! Python bindings of `oa_engine::align`: matrices in (2-D buffers such as numpy
//! arrays, or lists of equal-length lists), pairs and colours out, every
//! `AlignError` a `ValueError` (SciPy's type for the same bad matrices).

use std::collections::BTreeMap;

use oa_engine::align::{self, AlignError, Axis, DynamicLevel, Level, Matrix, Repaired, WlEdge};
use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub(crate) fn value_error(error: AlignError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// A matrix from a 2-D buffer of `T` (numpy's float64 or int64 arrays), or from a
/// list of equal-length lists.
pub(crate) fn matrix<'py, T>(py: Python<'py>, object: &Bound<'py, PyAny>) -> PyResult<Matrix<T>>
where
    T: Element + Copy + for<'a> FromPyObjectOwned<'a>,
{
    if let Ok(buffer) = PyBuffer::<T>::get(object) {
        let (rows, cols) = match buffer.shape() {
            [rows, cols] => (*rows, *cols),
            shape => {
                return Err(PyValueError::new_err(format!(
                    "expected a 2-D matrix, got {} dimensions",
                    shape.len()
                )))
            }
        };
        return Matrix::new(rows, cols, buffer.to_vec(py)?).map_err(value_error);
    }
    let lines: Vec<Vec<T>> = object.extract()?;
    let cols = lines.first().map_or(0, Vec::len);
    let rows = lines.len();
    if lines.iter().any(|line| line.len() != cols) {
        return Err(PyValueError::new_err("the matrix's lines differ in length"));
    }
    Matrix::new(rows, cols, lines.concat()).map_err(value_error)
}

/// A float matrix; an int64 buffer is converted as numpy's `astype(float64)` does
/// (to the nearest float).
pub(crate) fn float_matrix<'py>(
    py: Python<'py>,
    object: &Bound<'py, PyAny>,
) -> PyResult<Matrix<f64>> {
    if PyBuffer::<f64>::get(object).is_err() {
        if let Ok(buffer) = PyBuffer::<i64>::get(object) {
            if buffer.dimensions() == 2 {
                return Ok(matrix::<i64>(py, object)?.map(|v| v as f64));
            }
        }
    }
    matrix::<f64>(py, object)
}

fn optional_matrix<'py>(
    py: Python<'py>,
    object: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Matrix<f64>>> {
    object.map(|m| float_matrix(py, m)).transpose()
}

/// SciPy's `linear_sum_assignment(matrix, maximize)` as (row, column) pairs.
#[pyfunction]
#[pyo3(signature = (matrix, maximize = false))]
fn linear_sum_assignment(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    maximize: bool,
) -> PyResult<Vec<(usize, usize)>> {
    let cells = float_matrix(py, matrix)?;
    py.detach(|| align::linear_sum_assignment(&cells, maximize))
        .map_err(value_error)
}

/// `align::max_weight_matching`: the largest total, then the most genuine pairs.
#[pyfunction]
#[pyo3(signature = (matrix, bonus = None))]
fn max_weight_matching(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    bonus: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<(usize, usize)>> {
    let cells = float_matrix(py, matrix)?;
    let bonus = optional_matrix(py, bonus)?;
    py.detach(|| align::max_weight_matching(&cells, bonus.as_ref()))
        .map_err(value_error)
}

/// `align::canonical_matching`: the assignment in the colours' canonical order.
#[pyfunction]
#[pyo3(signature = (matrix, bonus, row_colours, col_colours, *, bonus_scale = 1.0))]
fn canonical_matching(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    bonus: Option<&Bound<'_, PyAny>>,
    row_colours: Vec<i64>,
    col_colours: Vec<i64>,
    bonus_scale: f64,
) -> PyResult<Vec<(usize, usize)>> {
    let cells = float_matrix(py, matrix)?;
    let bonus = optional_matrix(py, bonus)?;
    py.detach(|| {
        align::canonical_matching(
            &cells,
            bonus.as_ref(),
            bonus_scale,
            &row_colours,
            &col_colours,
        )
    })
    .map_err(value_error)
}

/// `align::monotone_matching`: the monotone DP of fixed-order lists.
#[pyfunction]
fn monotone_matching(py: Python<'_>, matrix: &Bound<'_, PyAny>) -> PyResult<Vec<(usize, usize)>> {
    let cells = float_matrix(py, matrix)?;
    py.detach(|| align::monotone_matching(&cells))
        .map_err(value_error)
}

/// `align::tie_epsilon` of a float matrix.
#[pyfunction]
fn tie_epsilon(py: Python<'_>, matrix: &Bound<'_, PyAny>) -> PyResult<f64> {
    Ok(align::tie_epsilon(&float_matrix(py, matrix)?))
}

/// `align::bipartite_colours` of an int64 label matrix.
#[pyfunction]
fn bipartite_colours(
    py: Python<'_>,
    cells: &Bound<'_, PyAny>,
    row_seed: Vec<i64>,
    col_seed: Vec<i64>,
) -> PyResult<(Vec<usize>, Vec<usize>)> {
    let labels = matrix::<i64>(py, cells)?;
    py.detach(|| align::bipartite_colours(&labels, &row_seed, &col_seed))
        .map_err(value_error)
}

/// `align::twin_groups` (`axis` 0: rows, 1: columns).
#[pyfunction]
fn twin_groups(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    axis: usize,
) -> PyResult<Vec<Vec<usize>>> {
    let axis = match axis {
        0 => Axis::Rows,
        1 => Axis::Columns,
        _ => return Err(PyValueError::new_err("axis must be 0 or 1")),
    };
    let cells = float_matrix(py, matrix)?;
    py.detach(|| align::twin_groups(&cells, axis))
        .map_err(value_error)
}

/// The rounds of `oa_core.wl.refine` over `vertices` vertices, edges given as
/// `(source, target, relation, label)` and one string seed per vertex.
#[pyfunction]
fn wl_refine(
    py: Python<'_>,
    vertices: usize,
    edges: Vec<(usize, usize, String, String)>,
    initial: Vec<String>,
) -> PyResult<Vec<Vec<usize>>> {
    let edges: Vec<WlEdge> = edges
        .into_iter()
        .map(|(source, target, relation, label)| WlEdge {
            source,
            target,
            relation,
            label,
        })
        .collect();
    py.detach(|| align::refine(vertices, &edges, &initial))
        .map_err(value_error)
}

/// A Python callable `level(partner, rows, cols)` as a dynamic tie level; its error
/// is kept to be raised as it is.
struct PyLevel<'py> {
    callable: Bound<'py, PyAny>,
    error: Option<PyErr>,
}

impl DynamicLevel for PyLevel<'_> {
    fn values(
        &mut self,
        partner: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<Matrix<f64>, AlignError> {
        let py = self.callable.py();
        let called = || -> PyResult<Matrix<f64>> {
            let pairing = PyDict::new(py);
            for (i, j) in partner {
                pairing.set_item(i, j)?;
            }
            let values = self
                .callable
                .call1((pairing, rows.to_vec(), cols.to_vec()))?;
            float_matrix(py, &values)
        };
        called().map_err(|error| {
            self.error = Some(error);
            AlignError::Level
        })
    }
}

/// `align::repair_twins`: levels are matrices or callables
/// `level(partner, rows, cols)`; returns the pairs and the verdicts.
#[pyfunction]
#[pyo3(signature = (pairs, matrix, levels, row_colours, col_colours, *, passes = 2))]
fn repair_twins(
    py: Python<'_>,
    pairs: Vec<(usize, usize)>,
    matrix: &Bound<'_, PyAny>,
    levels: Vec<Bound<'_, PyAny>>,
    row_colours: Vec<i64>,
    col_colours: Vec<i64>,
    passes: usize,
) -> PyResult<Repaired> {
    let cells = float_matrix(py, matrix)?;
    let mut statics = Vec::new();
    let mut dynamics = Vec::new();
    for level in &levels {
        if level.is_callable() {
            dynamics.push(PyLevel {
                callable: level.clone(),
                error: None,
            });
        } else {
            statics.push(float_matrix(py, level)?);
        }
    }
    let (mut statics, mut dynamic_slots) = (statics.into_iter(), dynamics.iter_mut());
    let mut built = Vec::with_capacity(levels.len());
    for level in &levels {
        let next = if level.is_callable() {
            dynamic_slots
                .next()
                .map(|d| Level::Dynamic(d as &mut dyn DynamicLevel))
        } else {
            statics.next().map(Level::Static)
        };
        built.push(next.ok_or_else(|| PyValueError::new_err("levels changed while read"))?);
    }
    let result = align::repair_twins(
        &pairs,
        &cells,
        &mut built,
        &row_colours,
        &col_colours,
        passes,
    );
    drop(built);
    // a level's own exception is raised as it is (a KeyError stays a KeyError)
    result.map_err(|error| match error {
        AlignError::Level => dynamics
            .iter_mut()
            .find_map(|d| d.error.take())
            .unwrap_or_else(|| value_error(error)),
        other => value_error(other),
    })
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(linear_sum_assignment, module)?)?;
    module.add_function(wrap_pyfunction!(max_weight_matching, module)?)?;
    module.add_function(wrap_pyfunction!(canonical_matching, module)?)?;
    module.add_function(wrap_pyfunction!(monotone_matching, module)?)?;
    module.add_function(wrap_pyfunction!(tie_epsilon, module)?)?;
    module.add_function(wrap_pyfunction!(bipartite_colours, module)?)?;
    module.add_function(wrap_pyfunction!(twin_groups, module)?)?;
    module.add_function(wrap_pyfunction!(wl_refine, module)?)?;
    module.add_function(wrap_pyfunction!(repair_twins, module)?)?;
    Ok(())
}
