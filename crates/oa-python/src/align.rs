//! Python bindings of `oa_engine::align`: matrices in (2-D buffers such as numpy
//! arrays, or lists of equal-length lists), pairs and colours out, every
//! `AlignError` a `ValueError` (SciPy's type for the same bad matrices).

use oa_engine::align::{self, AlignError, Axis, Matrix, WlEdge};
use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn value_error(error: AlignError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// A matrix from a 2-D buffer of `T` (numpy's float64 or int64 arrays), or from a
/// list of equal-length lists.
fn matrix<'py, T>(py: Python<'py>, object: &Bound<'py, PyAny>) -> PyResult<Matrix<T>>
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

fn optional_matrix<'py>(
    py: Python<'py>,
    object: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Matrix<f64>>> {
    object.map(|m| matrix::<f64>(py, m)).transpose()
}

/// SciPy's `linear_sum_assignment(matrix, maximize)` as (row, column) pairs.
#[pyfunction]
#[pyo3(signature = (matrix, maximize = false))]
fn linear_sum_assignment(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    maximize: bool,
) -> PyResult<Vec<(usize, usize)>> {
    let cells = self::matrix::<f64>(py, matrix)?;
    py.detach(|| align::linear_sum_assignment(&cells, maximize))
        .map_err(value_error)
}

/// `oa_core.assignment.max_weight_matching`.
#[pyfunction]
#[pyo3(signature = (matrix, bonus = None))]
fn max_weight_matching(
    py: Python<'_>,
    matrix: &Bound<'_, PyAny>,
    bonus: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<(usize, usize)>> {
    let cells = self::matrix::<f64>(py, matrix)?;
    let bonus = optional_matrix(py, bonus)?;
    py.detach(|| align::max_weight_matching(&cells, bonus.as_ref()))
        .map_err(value_error)
}

/// `oa_core.assignment.canonical_matching`.
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
    let cells = self::matrix::<f64>(py, matrix)?;
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

/// `oa_core.assignment.monotone_matching`.
#[pyfunction]
fn monotone_matching(py: Python<'_>, matrix: &Bound<'_, PyAny>) -> PyResult<Vec<(usize, usize)>> {
    let cells = self::matrix::<f64>(py, matrix)?;
    py.detach(|| align::monotone_matching(&cells))
        .map_err(value_error)
}

/// `oa_core.assignment.tie_epsilon`.
#[pyfunction]
fn tie_epsilon(py: Python<'_>, matrix: &Bound<'_, PyAny>) -> PyResult<f64> {
    Ok(align::tie_epsilon(&self::matrix::<f64>(py, matrix)?))
}

/// `oa_core.assignment.bipartite_colours` of an int64 label matrix.
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

/// `oa_core.assignment.twin_groups` (`axis` 0: rows, 1: columns).
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
    let cells = self::matrix::<f64>(py, matrix)?;
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

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(linear_sum_assignment, module)?)?;
    module.add_function(wrap_pyfunction!(max_weight_matching, module)?)?;
    module.add_function(wrap_pyfunction!(canonical_matching, module)?)?;
    module.add_function(wrap_pyfunction!(monotone_matching, module)?)?;
    module.add_function(wrap_pyfunction!(tie_epsilon, module)?)?;
    module.add_function(wrap_pyfunction!(bipartite_colours, module)?)?;
    module.add_function(wrap_pyfunction!(twin_groups, module)?)?;
    module.add_function(wrap_pyfunction!(wl_refine, module)?)?;
    Ok(())
}
