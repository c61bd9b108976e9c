//! Python bindings of the pairing strategies of `oa_engine::align`: the sparse solver
//! and its equality cells, `blockBy` blocks, and `pair_unordered` over a given score
//! matrix.
//!
//! Integer arrays come in as int64 buffers (numpy arrays) or sequences of ints and
//! go out as bytearrays of native int64 (wrapped by numpy without a copy); every
//! `AlignError` is a `ValueError`.

use oa_engine::align::{self, AlignError, Block, Matrix, MatrixScores, Strategy};
use oa_engine::value::Json;
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyString};

use crate::value::{json, Bounds};

fn value_error(error: AlignError) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// A 1-D int64 buffer, or a sequence of ints.
fn integers(py: Python<'_>, object: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    match PyBuffer::<i64>::get(object) {
        Ok(buffer) if buffer.dimensions() == 1 => buffer.to_vec(py),
        _ => object.extract(),
    }
}

/// Indices (no negative one).
fn indices(py: Python<'_>, object: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    integers(py, object)?
        .into_iter()
        .map(|k| {
            usize::try_from(k).map_err(|_| PyValueError::new_err(format!("index {k} is negative")))
        })
        .collect()
}

/// A 1-D float64 buffer, or a sequence of floats.
fn floats(py: Python<'_>, object: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    match PyBuffer::<f64>::get(object) {
        Ok(buffer) if buffer.dimensions() == 1 => buffer.to_vec(py),
        _ => object.extract(),
    }
}

/// Indices as a bytearray of native int64 (`np.frombuffer(..., np.int64)`).
fn int64_bytes<'py>(py: Python<'py>, values: &[usize]) -> PyResult<Bound<'py, PyByteArray>> {
    let mut bytes = Vec::with_capacity(values.len() * 8);
    for &v in values {
        let v = i64::try_from(v).map_err(|_| PyValueError::new_err("an index beyond int64"))?;
        bytes.extend_from_slice(&v.to_ne_bytes());
    }
    Ok(PyByteArray::new(py, &bytes))
}

/// The gold and candidate positions of one block.
type Positions = (Vec<usize>, Vec<usize>);

/// The pairs a strategy chose, and the whole score matrix it made.
type PairedLists = (Vec<(usize, usize)>, Option<Vec<Vec<f64>>>);

type IndexBytes<'py> = (Bound<'py, PyByteArray>, Bound<'py, PyByteArray>);

/// `align::equal_pairs`: rows and columns as int64 bytearrays.
#[pyfunction]
fn equal_pairs<'py>(
    py: Python<'py>,
    gold_codes: &Bound<'py, PyAny>,
    candidate_codes: &Bound<'py, PyAny>,
) -> PyResult<IndexBytes<'py>> {
    let gold = integers(py, gold_codes)?;
    let candidate = integers(py, candidate_codes)?;
    let (rows, cols) = py
        .detach(|| align::equal_pairs(&gold, &candidate))
        .map_err(value_error)?;
    Ok((int64_bytes(py, &rows)?, int64_bytes(py, &cols)?))
}

/// `align::union_pairs` of `(rows, cols)` parts: int64 bytearrays.
#[pyfunction]
fn union_pairs<'py>(
    py: Python<'py>,
    parts: Vec<(Bound<'py, PyAny>, Bound<'py, PyAny>)>,
    shape: (usize, usize),
) -> PyResult<IndexBytes<'py>> {
    let parts = parts
        .iter()
        .map(|(rows, cols)| Ok((indices(py, rows)?, indices(py, cols)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let views: Vec<(&[usize], &[usize])> = parts
        .iter()
        .map(|(rows, cols)| (rows.as_slice(), cols.as_slice()))
        .collect();
    let (rows, cols) = py
        .detach(|| align::union_pairs(&views, shape))
        .map_err(value_error)?;
    Ok((int64_bytes(py, &rows)?, int64_bytes(py, &cols)?))
}

/// `align::sparse_tie_epsilon` of the given cells.
#[pyfunction]
fn sparse_tie_epsilon(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    shape: (usize, usize),
) -> PyResult<f64> {
    Ok(align::sparse_tie_epsilon(&floats(py, values)?, shape))
}

/// `align::max_weight_matching_sparse`: the dense optimum from the positive cells only.
#[pyfunction]
fn max_weight_matching_sparse(
    py: Python<'_>,
    rows: &Bound<'_, PyAny>,
    cols: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
    shape: (usize, usize),
) -> PyResult<Vec<(usize, usize)>> {
    let (rows, cols, values) = (indices(py, rows)?, indices(py, cols)?, floats(py, values)?);
    py.detach(|| align::max_weight_matching_sparse(&rows, &cols, &values, shape))
        .map_err(value_error)
}

/// The values `blocks` reads, nested no deeper than the default `Limits.max_depth`
/// (deeper values, and values Python alone can key, leave the call to Python).
const BLOCK_VALUE_BOUNDS: Bounds = Bounds {
    depth: 100,
    items: usize::MAX,
    string_length: usize::MAX,
};

/// An item reduced to its `properties` (a non-object item to null, which has none),
/// or `None` when a value is not one the engine takes.
fn keyed_item(item: &Bound<'_, PyAny>, properties: &[String]) -> PyResult<Option<Json>> {
    let Ok(dict) = item.cast::<PyDict>() else {
        return Ok(Some(Json::Null));
    };
    if !item.is_exact_instance_of::<PyDict>() {
        return Ok(None);
    }
    let mut entries = Vec::with_capacity(properties.len());
    for name in properties {
        if let Some(value) = dict.get_item(name)? {
            match json(&value, BLOCK_VALUE_BOUNDS)? {
                Some(value) => entries.push((name.clone(), value)),
                None => return Ok(None),
            }
        }
    }
    Ok(Some(Json::object(entries)))
}

fn keyed_items(items: &Bound<'_, PyAny>, properties: &[String]) -> PyResult<Option<Vec<Json>>> {
    let mut keyed = Vec::new();
    for item in items.try_iter()? {
        match keyed_item(&item?, properties)? {
            Some(value) => keyed.push(value),
            None => return Ok(None),
        }
    }
    Ok(Some(keyed))
}

/// `align::blocks`' `blockBy` blocks as `(gold positions, candidate positions)` per block,
/// or `None` where a value is one only Python keys (a NaN, a subclass, a value
/// nested deeper than the bounds, a property name with a lone surrogate).
#[pyfunction]
fn blocks(
    golds: &Bound<'_, PyAny>,
    candidates: &Bound<'_, PyAny>,
    properties: Vec<Bound<'_, PyString>>,
) -> PyResult<Option<Vec<Positions>>> {
    let mut names = Vec::with_capacity(properties.len());
    for name in &properties {
        match name.to_str() {
            Ok(text) => names.push(text.to_owned()),
            Err(_) => return Ok(None),
        }
    }
    let (Some(golds), Some(candidates)) = (
        keyed_items(golds, &names)?,
        keyed_items(candidates, &names)?,
    ) else {
        return Ok(None);
    };
    Ok(align::blocks(&golds, &candidates, &names)
        .ok()
        .map(|found| {
            found
                .into_iter()
                .map(|block| (block.gold, block.candidate))
                .collect()
        }))
}

/// `pair_unordered` of a list whose every pair's score is `matrix` (a list of
/// lists), `strategy` one of `"dense"`, `"sparse"` (the positive cells offered
/// unless `offer_cells` is false) or `"blocked"` (by `blocks`); the pairs, and the
/// whole matrix the strategy made (None when it made none).
#[pyfunction]
#[pyo3(signature = (matrix, gold_texts, candidate_texts, strategy, blocks = None, offer_cells = true))]
fn pair_unordered(
    py: Python<'_>,
    matrix: Vec<Vec<f64>>,
    gold_texts: Vec<Bound<'_, PyString>>,
    candidate_texts: Vec<Bound<'_, PyString>>,
    strategy: &str,
    blocks: Option<Vec<Positions>>,
    offer_cells: bool,
) -> PyResult<PairedLists> {
    let code_points = |texts: &[Bound<'_, PyString>]| {
        texts
            .iter()
            .map(crate::compare::text)
            .collect::<PyResult<Vec<_>>>()
    };
    let (golds, candidates) = (code_points(&gold_texts)?, code_points(&candidate_texts)?);
    let (n, m) = (golds.len(), candidates.len());
    if matrix.len() != n || matrix.iter().any(|line| line.len() != m) {
        return Err(PyValueError::new_err(format!(
            "expected a {n} x {m} matrix, one line per gold text"
        )));
    }
    let strategy = match (strategy, blocks) {
        ("dense", None) => Strategy::Dense,
        ("sparse", None) => Strategy::Sparse,
        ("blocked", Some(blocks)) => Strategy::Blocked(
            blocks
                .into_iter()
                .map(|(gold, candidate)| Block { gold, candidate })
                .collect(),
        ),
        _ => {
            return Err(PyValueError::new_err(
                "strategy is 'dense', 'sparse' or 'blocked' (the last with its blocks)",
            ))
        }
    };
    let matrix = Matrix::new(n, m, matrix.concat()).map_err(value_error)?;
    let mut scores = MatrixScores {
        matrix,
        offer_cells,
    };
    let paired = py
        .detach(|| align::pair_unordered(&strategy, &golds, &candidates, &mut scores))
        .map_err(value_error)?;
    let whole = paired
        .matrix
        .map(|made| made.data().chunks(m.max(1)).map(<[f64]>::to_vec).collect());
    Ok((paired.pairs, whole))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(equal_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(union_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(sparse_tie_epsilon, module)?)?;
    module.add_function(wrap_pyfunction!(max_weight_matching_sparse, module)?)?;
    module.add_function(wrap_pyfunction!(blocks, module)?)?;
    module.add_function(wrap_pyfunction!(pair_unordered, module)?)?;
    Ok(())
}
