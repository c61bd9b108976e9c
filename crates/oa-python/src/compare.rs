//! Python bindings of `oa_engine::compare`: convert values and errors, then call the
//! dispatcher (`Comparator::scalar` / `Comparator::matrix`).

use oa_engine::compare::{Comparator, CompareError, Integer, Number, Value};
use pyo3::exceptions::{PyKeyError, PyMemoryError, PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyBool, PyByteArray, PyFloat, PyInt, PyString};

fn comparator(name: &str) -> PyResult<Comparator> {
    Comparator::from_name(name)
        .ok_or_else(|| PyKeyError::new_err(format!("{name:?} is no built-in comparator")))
}

fn error(error: CompareError) -> PyErr {
    match error {
        CompareError::Kind { .. } => PyTypeError::new_err(error.to_string()),
        CompareError::IntegerTooLarge => PyOverflowError::new_err(error.to_string()),
        CompareError::MatrixTooLarge { .. } => PyMemoryError::new_err(error.to_string()),
    }
}

/// A Python `str` as code points. `to_str` refuses a lone surrogate (JSON may carry
/// one); UTF-32 with `surrogatepass` keeps it as the code point Python indexes.
pub(crate) fn text(string: &Bound<'_, PyString>) -> PyResult<Vec<u32>> {
    if let Ok(utf8) = string.to_str() {
        // sized once: collecting from `chars` would grow the vector from a quarter
        let mut code_points = Vec::with_capacity(utf8.len());
        code_points.extend(utf8.chars().map(u32::from));
        return Ok(code_points);
    }
    let encoded = string.call_method1("encode", ("utf-32-le", "surrogatepass"))?;
    let bytes: &[u8] = encoded.extract()?;
    Ok(bytes
        .chunks_exact(4)
        .filter_map(|unit| unit.try_into().ok())
        .map(u32::from_le_bytes)
        .collect())
}

/// A Python `int` of any size, through its two's complement bytes when beyond `i64`.
pub(crate) fn integer(value: &Bound<'_, PyAny>) -> PyResult<Integer> {
    if let Ok(small) = value.extract::<i64>() {
        return Ok(Integer::from(small));
    }
    let bits: usize = value.call_method0("bit_length")?.extract()?;
    let signed = [("signed", true)].into_py_dict(value.py())?;
    let bytes = value.call_method("to_bytes", (bits / 8 + 1, "little"), Some(&signed))?;
    Ok(Integer::from_le_bytes_signed(bytes.extract()?))
}

/// A primitive Python value; `bool` before `int`, since it is one.
fn value(object: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(flag) = object.cast::<PyBool>() {
        Ok(Value::Boolean(flag.is_true()))
    } else if object.is_instance_of::<PyInt>() {
        Ok(Value::Number(Number::Int(integer(object)?)))
    } else if let Ok(float) = object.cast::<PyFloat>() {
        Ok(Value::Number(Number::Float(float.value())))
    } else if let Ok(string) = object.cast::<PyString>() {
        Ok(Value::Text(text(string)?))
    } else {
        Err(PyTypeError::new_err(format!(
            "comparators compare strings, numbers and booleans, not {}",
            object.get_type().name()?
        )))
    }
}

fn values(sequence: &Bound<'_, PyAny>) -> PyResult<Vec<Value>> {
    sequence.try_iter()?.map(|item| value(&item?)).collect()
}

/// The similarity of one pair under the built-in comparator `name`.
#[pyfunction]
fn compare_scalar(
    name: &str,
    gold: &Bound<'_, PyAny>,
    candidate: &Bound<'_, PyAny>,
) -> PyResult<f64> {
    comparator(name)?
        .scalar(&value(gold)?, &value(candidate)?)
        .map_err(error)
}

/// The similarities of every gold-candidate pair under `name`: a bytearray of
/// `len(golds) * len(candidates)` native-endian float64, row-major (writable, for
/// `numpy.frombuffer`).
#[pyfunction]
fn compare_matrix<'py>(
    py: Python<'py>,
    name: &str,
    golds: &Bound<'py, PyAny>,
    candidates: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyByteArray>> {
    let comparator = comparator(name)?;
    let (golds, candidates) = (values(golds)?, values(candidates)?);
    let matrix = py
        .detach(|| comparator.matrix(&golds, &candidates))
        .map_err(error)?;
    PyByteArray::new_with(py, matrix.len() * 8, |buffer| {
        for (slot, similarity) in buffer.chunks_exact_mut(8).zip(&matrix) {
            slot.copy_from_slice(&similarity.to_ne_bytes());
        }
        Ok(())
    })
}

/// The names of the built-in comparators, in `BUILTIN_COMPARATORS` order.
#[pyfunction]
fn comparator_names() -> Vec<&'static str> {
    Comparator::ALL
        .iter()
        .map(|comparator| comparator.name())
        .collect()
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(compare_scalar, module)?)?;
    module.add_function(wrap_pyfunction!(compare_matrix, module)?)?;
    module.add_function(wrap_pyfunction!(comparator_names, module)?)?;
    Ok(())
}
