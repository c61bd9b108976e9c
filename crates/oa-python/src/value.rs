//! Python JSON values (dict, list, str, int, float, bool, None) as the engine's
//! [`Json`] tree, converted once per document, with `oa_core.validation.check_json`'s
//! checks done on the way.
//!
//! Only the exact JSON types within the limits are taken: a subclass, another type, a
//! key that is not a `str`, a string with a lone surrogate as a key, NaN or an
//! infinity, an integer of 1,024 bits or more, a string or a container over its limit,
//! or nesting deeper than the limit gives `None`, and Python checks and scores (or
//! refuses) the document on its own path, with its own typed errors. A `Some` is
//! therefore a document `check_json` accepts.

use oa_engine::compare::{Integer, Number, Value};
use oa_engine::score::Json;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::compare::{integer, text};

/// The limits a document must keep to be converted (`oa_core.options.Limits`').
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    /// Containers nested below the root (a leaf may sit one level further down).
    pub depth: usize,
    pub items: usize,
    pub string_length: usize,
}

/// Bits from which an integer may exceed `int(sys.float_info.max)` (1,024 bits):
/// Python tells those apart, at no cost to the common case.
const INTEGER_BITS: u64 = 1024;

fn plain_integer(object: &Bound<'_, PyAny>) -> PyResult<Option<Json>> {
    let value = match object.extract::<i64>() {
        Ok(small) => Integer::from(small),
        Err(_) => {
            let bits: u64 = object.call_method0("bit_length")?.extract()?;
            if bits >= INTEGER_BITS {
                return Ok(None);
            }
            integer(object)?
        }
    };
    Ok(Some(Json::Leaf(Value::Number(Number::Int(value)))))
}

/// `object` as a [`Json`], or `None` where Python must take the document; nesting
/// is followed at most `bounds.depth` levels down (no recursion past it).
pub(crate) fn json(object: &Bound<'_, PyAny>, bounds: Bounds) -> PyResult<Option<Json>> {
    if object.is_none() {
        return Ok(Some(Json::Null));
    }
    if object.is_exact_instance_of::<PyBool>() {
        return Ok(Some(Json::Leaf(Value::Boolean(object.is_truthy()?))));
    }
    if object.is_exact_instance_of::<PyInt>() {
        return plain_integer(object);
    }
    if let Ok(float) = object.cast_exact::<PyFloat>() {
        let value = float.value();
        return Ok(value
            .is_finite()
            .then_some(Json::Leaf(Value::Number(Number::Float(value)))));
    }
    if let Ok(string) = object.cast_exact::<PyString>() {
        let code_points = text(string)?;
        return Ok((code_points.len() <= bounds.string_length)
            .then_some(Json::Leaf(Value::Text(code_points))));
    }
    let Some(depth) = bounds.depth.checked_sub(1) else {
        return Ok(None);
    };
    let below = Bounds { depth, ..bounds };
    if let Ok(list) = object.cast_exact::<PyList>() {
        if list.len() > bounds.items {
            return Ok(None);
        }
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
        if dict.len() > bounds.items {
            return Ok(None);
        }
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
