//! Python JSON values (dict, list, str, int, float, bool, None) as the engine's
//! [`Json`] tree, converted once per document.
//!
//! Only the exact JSON types are taken: a subclass, another type, a key that is not
//! a `str`, a string with a lone surrogate as a key, NaN or an infinity, or nesting
//! deeper than the limit gives `None`, and Python scores (or refuses) the document
//! on its own path, with its own typed errors.

use oa_engine::compare::{Number, Value};
use oa_engine::score::Json;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::compare::{integer, text};

/// `object` as a [`Json`], or `None` where Python must take the document; nesting
/// is followed at most `depth` levels down (no recursion past it).
pub(crate) fn json(object: &Bound<'_, PyAny>, depth: usize) -> PyResult<Option<Json>> {
    if object.is_none() {
        return Ok(Some(Json::Null));
    }
    if object.is_exact_instance_of::<PyBool>() {
        return Ok(Some(Json::Leaf(Value::Boolean(object.is_truthy()?))));
    }
    if object.is_exact_instance_of::<PyInt>() {
        return Ok(Some(Json::Leaf(Value::Number(Number::Int(integer(
            object,
        )?)))));
    }
    if let Ok(float) = object.cast_exact::<PyFloat>() {
        let value = float.value();
        return Ok(value
            .is_finite()
            .then_some(Json::Leaf(Value::Number(Number::Float(value)))));
    }
    if let Ok(string) = object.cast_exact::<PyString>() {
        return Ok(Some(Json::Leaf(Value::Text(text(string)?))));
    }
    let Some(below) = depth.checked_sub(1) else {
        return Ok(None);
    };
    if let Ok(list) = object.cast_exact::<PyList>() {
        let mut items = Vec::with_capacity(list.len());
        for item in list.iter() {
            match json(&item, below)? {
                Some(value) => items.push(value),
                None => return Ok(None),
            }
        }
        return Ok(Some(Json::Array(items)));
    }
    if let Ok(dict) = object.cast_exact::<PyDict>() {
        let mut entries = Vec::with_capacity(dict.len());
        for (key, item) in dict.iter() {
            let Ok(key) = key.cast_exact::<PyString>() else {
                return Ok(None);
            };
            // a lone surrogate has no UTF-8 form: Python keeps such a key
            let Ok(key) = key.to_str() else {
                return Ok(None);
            };
            match json(&item, below)? {
                Some(value) => entries.push((key.to_owned(), value)),
                None => return Ok(None),
            }
        }
        return Ok(Some(Json::object(entries)));
    }
    Ok(None)
}
