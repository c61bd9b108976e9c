//! Python JSON values as the engine's [`Json`] tree, converted once per document,
//! with `oa_core.validation.check_json`'s checks done on the way.
//!
//! What `check_json` accepts is taken, exactly: `dict`, `list`, `str`, `int`, `float`
//! (and their subclasses, as its `isinstance` tests take them), `bool` and `None`;
//! integers of any size up to the largest float (wider ones than `i64` exactly, as
//! [`Integer::Wide`]). The first problem in document order is refused with the
//! pointer and the words `check_json` gives it ([`Refusal`], raised by
//! [`convert`] as `oa_core.errors.InputError`): nesting deeper than the limit (found
//! before recursing further), a container or a string over its limit, an object key
//! that is not a `str` or holds a lone surrogate, a string holding a lone surrogate,
//! NaN or an infinity, an integer beyond the float range, or a value of no JSON type.

use std::cell::RefCell;

use oa_engine::compare::{Integer, Number, Value};
use oa_engine::value::Json;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};

use crate::compare::{integer, push_utf8_points, text};
use crate::errors::{input_error, Refusal, Trouble};

/// Nesting followed by the native engine whatever the limits say: each level costs a
/// few stack frames, far below a thread's stack at this depth. A document nested
/// deeper under a higher `Limits.max_depth` is refused ([`Trouble::EngineDepth`]).
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

    /// The characters of a string held as `utf8` when they are over the limit: counted
    /// only when its bytes are (no string has more characters than bytes).
    fn text_over(&self, utf8: &str) -> Option<usize> {
        if utf8.len() <= self.string_length {
            return None;
        }
        let length = utf8.chars().count();
        (length > self.string_length).then_some(length)
    }

    /// Whether a container of `count` items or entries is over the limit.
    fn items_over(&self, count: usize) -> bool {
        count > self.items
    }

    /// The bounds of an `oa_core.options.Limits`.
    pub(crate) fn of(limits: &Bound<'_, PyAny>) -> PyResult<Bounds> {
        let py = limits.py();
        let read =
            |name: &Bound<'_, PyString>| -> PyResult<usize> { limits.getattr(name)?.extract() };
        Ok(Bounds {
            depth: read(intern!(py, "max_depth"))?,
            items: read(intern!(py, "max_items"))?,
            string_length: read(intern!(py, "max_string_length"))?,
        })
    }
}

/// Whether `value` is plain JSON within `limits` (an `oa_core.options.Limits`): a yes
/// says `oa_core.validation.check_json` accepts it; a no that it refuses it (or that
/// it nests deeper than the engine follows: see [`MAX_NESTING`]).
#[pyfunction]
pub(crate) fn is_plain_json(value: &Bound<'_, PyAny>, limits: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(with_spares(|spares| walk(value, Bounds::of(limits)?, 0, spares))?.is_ok())
}

/// `object` as a [`Json`], or the `InputError` of its first problem in `document`
/// (`"gold"`, `"candidate"`), as `check_json` raises it.
pub(crate) fn convert(object: &Bound<'_, PyAny>, bounds: Bounds, document: &str) -> PyResult<Json> {
    match with_spares(|spares| walk(object, bounds, 0, spares))? {
        Ok(value) => Ok(value),
        Err(refusal) => Err(input_error(object.py(), &refusal, document, bounds)?),
    }
}

/// `object` as a [`Json`], or `None` where it is no plain JSON within `bounds`.
pub(crate) fn json(object: &Bound<'_, PyAny>, bounds: Bounds) -> PyResult<Option<Json>> {
    Ok(with_spares(|spares| walk(object, bounds, 0, spares))?.ok())
}

/// The buffers of documents done with, kept for the next conversions on their thread:
/// a flat record's keys and strings would otherwise cost an allocation and a free
/// each, a third of its score.
#[derive(Default)]
struct Spares {
    names: Vec<String>,
    texts: Vec<Vec<u32>>,
    entries: Vec<Vec<(String, Json)>>,
}

/// The most buffers of each kind kept: a few documents' worth.
const SPARE_BUFFERS: usize = 1024;
/// The largest buffer kept, in elements: a rare long string is not held on to.
const SPARE_CAPACITY: usize = 256;

thread_local! {
    static SPARES: RefCell<Spares> = const {
        RefCell::new(Spares { names: Vec::new(), texts: Vec::new(), entries: Vec::new() })
    };
}

/// `convert` with this thread's spare buffers, taken out for the conversion: a
/// conversion nested in it (a custom comparator's callback) finds none and
/// allocates, and the buffers it gives back are kept.
fn with_spares<T>(convert: impl FnOnce(&mut Spares) -> T) -> T {
    let mut spares = SPARES.with(|spares| std::mem::take(&mut *spares.borrow_mut()));
    let converted = convert(&mut spares);
    SPARES.with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.names.is_empty() && kept.texts.is_empty() && kept.entries.is_empty() {
            *kept = spares;
        }
    });
    converted
}

/// Gives `document`'s buffers back to this thread's spares, for the next conversions.
pub(crate) fn recycle(document: Json) {
    SPARES.with(|spares| spares.borrow_mut().keep(document));
}

impl Spares {
    fn keep(&mut self, document: Json) {
        match document {
            Json::Leaf(Value::Text(mut points)) => {
                if self.texts.len() < SPARE_BUFFERS && points.capacity() <= SPARE_CAPACITY {
                    points.clear();
                    self.texts.push(points);
                }
            }
            Json::Array(items) => items.into_iter().for_each(|item| self.keep(item)),
            Json::Object(mut entries) => {
                for (mut name, value) in entries.drain(..) {
                    if self.names.len() < SPARE_BUFFERS && name.capacity() <= SPARE_CAPACITY {
                        name.clear();
                        self.names.push(name);
                    }
                    self.keep(value);
                }
                if self.entries.len() < SPARE_BUFFERS && entries.capacity() <= SPARE_CAPACITY {
                    self.entries.push(entries);
                }
            }
            Json::Null | Json::Leaf(_) => {}
        }
    }

    fn name(&mut self, name: &str) -> String {
        match self.names.pop() {
            Some(mut spare) => {
                spare.push_str(name);
                spare
            }
            None => name.to_owned(),
        }
    }

    fn text(&mut self) -> Vec<u32> {
        self.texts.pop().unwrap_or_default()
    }

    fn entries(&mut self, length: usize) -> Vec<(String, Json)> {
        let mut entries = self.entries.pop().unwrap_or_default();
        entries.reserve_exact(length);
        entries
    }
}

/// Bits from which an integer may exceed `int(sys.float_info.max)` (1,024 bits):
/// told apart exactly there, at no cost to the common case.
const INTEGER_BITS: u64 = 1024;

fn plain_integer(object: &Bound<'_, PyAny>) -> PyResult<Result<Json, Trouble>> {
    let value = match object.extract::<i64>() {
        Ok(small) => Integer::from(small),
        Err(_) => {
            let bits: u64 = object.call_method0("bit_length")?.extract()?;
            if bits >= INTEGER_BITS {
                let py = object.py();
                let largest = py
                    .import(intern!(py, "oa_core.errors"))?
                    .getattr(intern!(py, "LARGEST_FLOAT_INTEGER"))?;
                if object.call_method0(intern!(py, "__abs__"))?.gt(largest)? {
                    return Ok(Err(Trouble::IntegerRange));
                }
            }
            integer(object)?
        }
    };
    Ok(Ok(Json::Leaf(Value::Number(Number::Int(value)))))
}

/// The code points of a `str` without a UTF-8 form (a string value, or an object
/// key), or the refusal of the first lone surrogate it holds (a `str` with a UTF-8
/// form holds none).
fn surrogate_points(
    string: &Bound<'_, PyString>,
    key: bool,
) -> PyResult<Result<Vec<u32>, Refusal>> {
    let points = text(string)?;
    match points
        .iter()
        .find(|&&point| (0xD800..=0xDFFF).contains(&point))
    {
        Some(&surrogate) => Ok(Err(Refusal::new(Trouble::Surrogate { surrogate, key }))),
        None => Ok(Ok(points)),
    }
}

/// The conversion of `object` at nesting `level` (the root at 0): the value, or the
/// first problem (its pointer gathered on the way back up).
fn walk(
    object: &Bound<'_, PyAny>,
    bounds: Bounds,
    level: usize,
    spares: &mut Spares,
) -> PyResult<Result<Json, Refusal>> {
    let refuse = |trouble: Trouble| Ok(Err(Refusal::new(trouble)));
    // checked before anything below is looked at: no recursion past the limit
    if level > bounds.depth {
        return refuse(Trouble::Depth);
    }
    if level > MAX_NESTING {
        return refuse(Trouble::EngineDepth);
    }
    if object.is_none() {
        return Ok(Ok(Json::Null));
    }
    if object.is_instance_of::<PyBool>() {
        return Ok(Ok(Json::Leaf(Value::Boolean(object.is_truthy()?))));
    }
    if let Ok(string) = object.cast::<PyString>() {
        if let Ok(utf8) = string.to_str() {
            if let Some(length) = bounds.text_over(utf8) {
                return refuse(Trouble::StringLength(length));
            }
            let mut points = spares.text();
            push_utf8_points(&mut points, utf8);
            return Ok(Ok(Json::Leaf(Value::Text(points))));
        }
        let length = string.len()?;
        if length > bounds.string_length {
            return refuse(Trouble::StringLength(length));
        }
        return Ok(surrogate_points(string, false)?.map(|points| Json::Leaf(Value::Text(points))));
    }
    if object.is_instance_of::<PyInt>() {
        return Ok(plain_integer(object)?.map_err(Refusal::new));
    }
    if let Ok(float) = object.cast::<PyFloat>() {
        let value = float.value();
        if !value.is_finite() {
            return refuse(Trouble::NonFinite(value));
        }
        return Ok(Ok(Json::Leaf(Value::Number(Number::Float(value)))));
    }
    if let Ok(list) = object.cast::<PyList>() {
        if bounds.items_over(list.len()) {
            return refuse(Trouble::Items(list.len()));
        }
        let mut items = Vec::with_capacity(list.len());
        for (index, item) in list.iter().enumerate() {
            match walk(&item, bounds, level + 1, spares)? {
                Ok(value) => items.push(value),
                Err(refusal) => return Ok(Err(refusal.below(index.to_string()))),
            }
        }
        return Ok(Ok(Json::Array(items)));
    }
    if let Ok(dict) = object.cast::<PyDict>() {
        if bounds.items_over(dict.len()) {
            return refuse(Trouble::Items(dict.len()));
        }
        return object_entries(dict, bounds, level, spares);
    }
    refuse(Trouble::NotJson(object.get_type().name()?.to_string()))
}

/// An object's conversion in one pass over its entries, each key checked before its
/// value is converted. `check_json` checks every key before any value: where a value
/// is refused, a later key's problem is named instead, if there is one.
fn object_entries(
    dict: &Bound<'_, PyDict>,
    bounds: Bounds,
    level: usize,
    spares: &mut Spares,
) -> PyResult<Result<Json, Refusal>> {
    let mut entries = spares.entries(dict.len());
    // a dict holds no two equal `str` keys, but may two equal keys of a subclass
    // hashed its own way
    let mut distinct = true;
    for (index, (key, item)) in dict.iter().enumerate() {
        let name = match key_name(&key, spares)? {
            Ok(name) => name,
            Err(refusal) => return Ok(Err(refusal)),
        };
        distinct &= key.is_exact_instance_of::<PyString>();
        match walk(&item, bounds, level + 1, spares)? {
            Ok(converted) => entries.push((name, converted)),
            Err(refusal) => {
                for (later, _) in dict.iter().skip(index + 1) {
                    if let Err(first) = key_name(&later, &mut Spares::default())? {
                        return Ok(Err(first));
                    }
                }
                return Ok(Err(refusal.below(name)));
            }
        }
    }
    Ok(Ok(if distinct {
        Json::object_of_distinct(entries)
    } else {
        Json::object(entries)
    }))
}

/// An object key's text, or its problem: not a `str`, or a lone surrogate in it.
fn key_name(key: &Bound<'_, PyAny>, spares: &mut Spares) -> PyResult<Result<String, Refusal>> {
    let Ok(name) = key.cast::<PyString>() else {
        return Ok(Err(Refusal::new(Trouble::Key(key.clone().unbind()))));
    };
    if let Ok(name) = name.to_str() {
        return Ok(Ok(spares.name(name)));
    }
    // a name, not reached: a `str` without a lone surrogate has a UTF-8 form
    Ok(surrogate_points(name, true)?
        .map(|points| points.into_iter().filter_map(char::from_u32).collect()))
}
