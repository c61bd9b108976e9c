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
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::compare::{integer, text};

/// Nesting followed by the native engine whatever the limits say: each level costs a
/// few stack frames, far below a thread's stack at this depth.
pub(crate) const MAX_NESTING: usize = 512;

/// The limits a document must keep to be converted (`oa_core.options.Limits`').
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    /// The deepest level a value may sit at, the root at level 0 (`Limits.max_depth`).
    pub depth: usize,
    pub items: usize,
    pub string_length: usize,
}

impl Bounds {
    /// Only the nesting bound: for a value already checked, or a schema's.
    pub(crate) const NESTING: Bounds = Bounds {
        depth: MAX_NESTING,
        items: usize::MAX,
        string_length: usize::MAX,
    };

    /// The bounds of an `oa_core.options.Limits` (its depth at most [`MAX_NESTING`]).
    pub(crate) fn of(limits: &Bound<'_, PyAny>) -> PyResult<Bounds> {
        let py = limits.py();
        let read =
            |name: &Bound<'_, PyString>| -> PyResult<usize> { limits.getattr(name)?.extract() };
        Ok(Bounds {
            depth: read(intern!(py, "max_depth"))?.min(MAX_NESTING),
            items: read(intern!(py, "max_items"))?,
            string_length: read(intern!(py, "max_string_length"))?,
        })
    }
}

/// Whether `value` is plain JSON within `limits` (an `oa_core.options.Limits`): a yes
/// says `oa_core.validation.check_json` accepts it; a no that this conversion does not
/// take it (see the module), and Python looks for the problem.
#[pyfunction]
pub(crate) fn is_plain_json(value: &Bound<'_, PyAny>, limits: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(json(value, Bounds::of(limits)?)?.is_some())
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
    // a container at the deepest level is one only while empty (its items would lie
    // below the limit)
    let room = |size: usize| size <= bounds.items && (bounds.depth > 0 || size == 0);
    let below = Bounds {
        depth: bounds.depth.saturating_sub(1),
        ..bounds
    };
    if let Ok(list) = object.cast_exact::<PyList>() {
        if !room(list.len()) {
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
        if !room(dict.len()) {
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
