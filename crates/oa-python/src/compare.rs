//! Python bindings of `oa_engine::compare`: convert values and errors, then call the
//! dispatcher (`Comparator::scalar` / `Comparator::matrix`); and a registry's custom
//! comparator ([`PyComparator`]) called back from the engine.

use std::sync::Arc;

use oa_engine::compare::{
    Comparator, CompareError, External, ExternalError, Externals, Integer, Kind, Kinds, Number,
    Value,
};
use pyo3::exceptions::{PyKeyError, PyMemoryError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{
    IntoPyDict, PyBool, PyByteArray, PyBytes, PyFloat, PyInt, PyList, PyString, PyTuple,
};

fn comparator(name: &str) -> PyResult<Comparator> {
    Comparator::from_name(name)
        .ok_or_else(|| PyKeyError::new_err(format!("{name:?} is no built-in comparator")))
}

fn error(error: CompareError) -> PyErr {
    match error {
        CompareError::Kind { .. } => PyTypeError::new_err(error.to_string()),
        CompareError::IntegerTooLarge => PyOverflowError::new_err(error.to_string()),
        CompareError::MatrixTooLarge { .. } => PyMemoryError::new_err(error.to_string()),
        // the built-ins this module calls have no external comparator
        CompareError::External(_) => PyValueError::new_err(error.to_string()),
    }
}

/// A Python `str` as code points. `to_str` refuses a lone surrogate (JSON may carry
/// one); UTF-32 with `surrogatepass` keeps it as the code point Python indexes.
pub(crate) fn text(string: &Bound<'_, PyString>) -> PyResult<Vec<u32>> {
    if let Ok(utf8) = string.to_str() {
        return Ok(utf8_points(utf8));
    }
    let encoded = string.call_method1("encode", ("utf-32-le", "surrogatepass"))?;
    let bytes: &[u8] = encoded.extract()?;
    Ok(bytes
        .chunks_exact(4)
        .filter_map(|unit| unit.try_into().ok())
        .map(u32::from_le_bytes)
        .collect())
}

/// The code points of a string with a UTF-8 form.
pub(crate) fn utf8_points(utf8: &str) -> Vec<u32> {
    let mut code_points = Vec::new();
    push_utf8_points(&mut code_points, utf8);
    code_points
}

/// [`utf8_points`] appended to `code_points` (a buffer used again).
pub(crate) fn push_utf8_points(code_points: &mut Vec<u32>, utf8: &str) {
    // sized once: collecting from `chars` would grow the vector from a quarter
    code_points.reserve(utf8.len());
    if utf8.is_ascii() {
        // a byte per code point: copied without decoding
        code_points.extend(utf8.bytes().map(u32::from));
    } else {
        code_points.extend(utf8.chars().map(u32::from));
    }
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
        .scalar(&Externals::NONE, &value(gold)?, &value(candidate)?)
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
        .detach(|| comparator.matrix(&Externals::NONE, &golds, &candidates))
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
        .filter_map(|comparator| comparator.name())
        .collect()
}

/// A value as Python holds it: the engine's code points, integers and floats give
/// back an equal object of the exact JSON type.
fn object<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Boolean(flag) => PyBool::new(py, *flag).to_owned().into_any(),
        Value::Number(Number::Float(number)) => PyFloat::new(py, *number).into_any(),
        Value::Number(Number::Int(Integer::Small(number))) => number.into_pyobject(py)?.into_any(),
        Value::Number(Number::Int(Integer::Wide {
            negative,
            magnitude,
        })) => {
            let bytes: Vec<u8> = magnitude
                .iter()
                .flat_map(|limb| limb.to_le_bytes())
                .collect();
            let int = py.get_type::<PyInt>().call_method1(
                intern!(py, "from_bytes"),
                (PyBytes::new(py, &bytes), "little"),
            )?;
            if *negative {
                int.neg()?
            } else {
                int
            }
        }
        Value::Text(code_points) => match code_points
            .iter()
            .map(|&point| char::from_u32(point))
            .collect::<Option<String>>()
        {
            Some(text) => PyString::new(py, &text).into_any(),
            // a lone surrogate (a JSON string may hold one): back through UTF-32
            None => {
                let bytes: Vec<u8> = code_points.iter().flat_map(|p| p.to_le_bytes()).collect();
                PyBytes::new(py, &bytes)
                    .call_method1(intern!(py, "decode"), ("utf-32-le", "surrogatepass"))?
            }
        },
    })
}

/// A registry's comparator (`oa_core.comparators.Comparator`) the engine calls: its
/// `scalar` (a custom one's checks the user's function and raises
/// `ComparatorError`) and its `matrix`, on values converted back to Python.
#[derive(Debug)]
pub(crate) struct PyComparator {
    name: String,
    kinds: Kinds,
    comparator: Py<PyAny>,
}

impl PyComparator {
    /// Wraps `comparator`, reading its `name` and `kinds`.
    pub(crate) fn new(comparator: &Bound<'_, PyAny>) -> PyResult<PyComparator> {
        let name: String = comparator.getattr("name")?.extract()?;
        let mut kinds = Vec::new();
        for kind in comparator.getattr("kinds")?.try_iter()? {
            kinds.push(match kind?.extract::<String>()?.as_str() {
                "string" => Kind::String,
                "number" => Kind::Number,
                "boolean" => Kind::Boolean,
                other => {
                    return Err(PyValueError::new_err(format!(
                        "comparator {name:?} compares {other:?} values"
                    )))
                }
            });
        }
        Ok(PyComparator {
            name,
            kinds: kinds.into_iter().collect(),
            comparator: comparator.clone().unbind(),
        })
    }

    fn error(&self, error: PyErr) -> ExternalError {
        let message = format!("raised {error}");
        ExternalError {
            cause: Some(Arc::new(error)),
            ..ExternalError::new(&self.name, message)
        }
    }
}

/// A similarity Python returned: a float (the built-in and checked forms return
/// one; anything else is left to Python's path).
fn similarity(result: &Bound<'_, PyAny>) -> PyResult<f64> {
    Ok(result.cast::<PyFloat>()?.value())
}

impl External for PyComparator {
    fn name(&self) -> &str {
        &self.name
    }

    fn kinds(&self) -> Kinds {
        self.kinds
    }

    fn scalar(&self, gold: &Value, candidate: &Value) -> Result<f64, ExternalError> {
        Python::attach(|py| {
            let pair = (object(py, gold)?, object(py, candidate)?);
            similarity(
                &self
                    .comparator
                    .bind(py)
                    .call_method1(intern!(py, "scalar"), pair)?,
            )
        })
        .map_err(|error| self.error(error))
    }

    /// `Comparator.matrix` (the user's matrix form, or the scalar one on every pair):
    /// an ndarray of `len(golds)` rows of `len(candidates)` floats.
    fn matrix(&self, golds: &[Value], candidates: &[Value]) -> Result<Vec<f64>, ExternalError> {
        Python::attach(|py| {
            let list = |values: &[Value]| -> PyResult<Bound<'_, PyList>> {
                PyList::new(
                    py,
                    values
                        .iter()
                        .map(|v| object(py, v))
                        .collect::<PyResult<Vec<_>>>()?,
                )
            };
            let matrix = self
                .comparator
                .bind(py)
                .call_method1(intern!(py, "matrix"), (list(golds)?, list(candidates)?))?;
            let shape = matrix.getattr(intern!(py, "shape"))?;
            let dtype = matrix.getattr(intern!(py, "dtype"))?;
            let expected = PyTuple::new(py, [golds.len(), candidates.len()])?;
            if !shape.eq(expected)? || dtype.getattr(intern!(py, "char"))?.ne("d")? {
                return Err(PyTypeError::new_err(format!(
                    "matrix of {shape} {dtype}, not {} x {} float64",
                    golds.len(),
                    candidates.len()
                )));
            }
            let rows = matrix.call_method0(intern!(py, "tolist"))?;
            let mut out = Vec::with_capacity(golds.len().saturating_mul(candidates.len()));
            for row in rows.try_iter()? {
                for cell in row?.try_iter()? {
                    out.push(similarity(&cell?)?);
                }
            }
            Ok(out)
        })
        .map_err(|error| self.error(error))
    }
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(compare_scalar, module)?)?;
    module.add_function(wrap_pyfunction!(compare_matrix, module)?)?;
    module.add_function(wrap_pyfunction!(comparator_names, module)?)?;
    Ok(())
}
