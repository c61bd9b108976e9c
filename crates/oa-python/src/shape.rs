//! A raw schema (`Schema.raw`) read into the engine's [`Shape`], when every assertion
//! it makes is one the shape checks; [`SchemaShape`] checks documents with it.

use oa_engine::compare::Number;
use oa_engine::score::{Assertion, Bound as Side, Counted, Shape, ShapeNode, Types};
use oa_engine::value::Json;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};

use crate::value::{json, Bounds};

/// Keywords that assert nothing and do not change what `$ref` finds (`format` asserts
/// only under a format checker, and OA's validator has none).
const INERT: [&str; 4] = ["$comment", "$defs", "$schema", "format"];

/// Subschemas read at most (a schema is far smaller; a cycle is not).
const MAX_NODES: usize = 100_000;

/// A keyword's value as JSON (`None` where the conversion does not take it).
fn value(value: &Bound<'_, PyAny>) -> PyResult<Option<Json>> {
    json(value, Bounds::NESTING)
}

/// A number limit (`None` for anything else, a boolean included).
fn number(value: &Bound<'_, PyAny>) -> PyResult<Option<Number>> {
    Ok(match self::value(value)? {
        Some(Json::Leaf(oa_engine::compare::Value::Number(number))) => Some(number),
        _ => None,
    })
}

/// A `str` as UTF-8 (`None` for another type, or a lone surrogate: no document key
/// the conversion takes can hold one, so a schema naming one is Python's).
fn name<'a>(value: &'a Bound<'_, PyAny>) -> Option<&'a str> {
    value.cast_exact::<PyString>().ok()?.to_str().ok()
}

/// The side and counted thing of a limit keyword.
fn limit(key: &str) -> Option<(Option<Counted>, Side)> {
    Some(match key {
        "minimum" => (None, Side::Min),
        "maximum" => (None, Side::Max),
        "exclusiveMinimum" => (None, Side::Above),
        "exclusiveMaximum" => (None, Side::Below),
        "minLength" => (Some(Counted::Text), Side::Min),
        "maxLength" => (Some(Counted::Text), Side::Max),
        "minItems" => (Some(Counted::Items), Side::Min),
        "maxItems" => (Some(Counted::Items), Side::Max),
        "minProperties" => (Some(Counted::Keys), Side::Min),
        "maxProperties" => (Some(Counted::Keys), Side::Max),
        _ => return None,
    })
}

/// The node of one subschema, its subschemas queued with the indices they get;
/// `None` when it asserts anything the shape does not check.
fn node<'py>(
    schema: &Bound<'py, PyAny>,
    active: &Bound<'py, PyAny>,
    queue: &mut Vec<Bound<'py, PyAny>>,
) -> PyResult<Option<ShapeNode>> {
    let mut child = |value: Bound<'py, PyAny>| {
        queue.push(value);
        queue.len() - 1
    };
    if let Ok(flag) = schema.cast_exact::<PyBool>() {
        return Ok(Some(if flag.is_true() {
            ShapeNode::default()
        } else {
            ShapeNode::nothing()
        }));
    }
    let Ok(schema) = schema.cast_exact::<PyDict>() else {
        return Ok(None);
    };
    let mut shape = ShapeNode::default();
    for (key, value) in schema.iter() {
        let Some(key) = name(&key) else {
            return Ok(None);
        };
        match key {
            "type" => {
                let names: Vec<Bound<'py, PyAny>> = match value.cast_exact::<PyList>() {
                    Ok(list) => list.iter().collect(),
                    Err(_) => vec![value],
                };
                let mut types = Types::NONE;
                for one in names {
                    let Some(one) = name(&one).and_then(Types::from_name) else {
                        return Ok(None);
                    };
                    types = types.union(one);
                }
                if types == Types::NONE {
                    return Ok(None);
                }
                shape.types = types;
            }
            "required" => {
                let Ok(list) = value.cast_exact::<PyList>() else {
                    return Ok(None);
                };
                for key in list.iter() {
                    let Some(key) = name(&key) else {
                        return Ok(None);
                    };
                    shape.required.push(key.to_owned());
                }
            }
            "properties" => {
                let Ok(properties) = value.cast_exact::<PyDict>() else {
                    return Ok(None);
                };
                for (key, sub) in properties.iter() {
                    let Some(key) = name(&key) else {
                        return Ok(None);
                    };
                    let key = key.to_owned();
                    shape.properties.push((key, child(sub)));
                }
            }
            "additionalProperties" => shape.additional = Some(child(value)),
            "prefixItems" => {
                let Ok(list) = value.cast_exact::<PyList>() else {
                    return Ok(None);
                };
                for sub in list.iter() {
                    shape.prefix.push(child(sub));
                }
            }
            "items" => shape.items = Some(child(value)),
            "enum" => {
                let Ok(list) = value.cast_exact::<PyList>() else {
                    return Ok(None);
                };
                let mut options = Vec::with_capacity(list.len());
                for option in list.iter() {
                    let Some(option) = self::value(&option)? else {
                        return Ok(None);
                    };
                    options.push(option);
                }
                shape.assertions.push(Assertion::OneOf(options));
            }
            "const" => {
                let Some(constant) = self::value(&value)? else {
                    return Ok(None);
                };
                shape.assertions.push(Assertion::Equal(constant));
            }
            "uniqueItems" => {
                let Ok(flag) = value.cast_exact::<PyBool>() else {
                    return Ok(None);
                };
                if flag.is_true() {
                    shape.assertions.push(Assertion::Unique);
                }
            }
            _ if INERT.contains(&key) => {}
            _ => match limit(key) {
                Some((counted, side)) => {
                    let Some(bound) = number(&value)? else {
                        return Ok(None);
                    };
                    shape.assertions.push(match counted {
                        Some(counted) => Assertion::Size(counted, side, bound),
                        None => Assertion::Number(side, bound),
                    });
                }
                // an assertion or a reference this shape does not follow
                None if key.starts_with('$') || active.contains(key)? => return Ok(None),
                None => {}
            },
        }
    }
    Ok(Some(shape))
}

/// The shape of `raw` (`jsonschema`'s active keywords given as `active`, a
/// container of names), or `None` when it asserts more than a shape checks.
pub(crate) fn shape(raw: &Bound<'_, PyAny>, active: &Bound<'_, PyAny>) -> PyResult<Option<Shape>> {
    let mut queue = vec![raw.clone()];
    let mut nodes = Vec::new();
    // breadth first: the k-th subschema queued is the k-th node
    while let Some(schema) = queue.get(nodes.len()).cloned() {
        if nodes.len() >= MAX_NODES {
            return Ok(None); // a dict holding itself never ends: Python's to refuse
        }
        match node(&schema, active, &mut queue)? {
            Some(found) => nodes.push(found),
            None => return Ok(None),
        }
    }
    Ok(Shape::new(nodes))
}

/// A schema's JSON Schema assertions, checked natively (`oa_core.validation`).
#[pyclass(module = "oa_core._engine", frozen)]
pub struct SchemaShape {
    shape: Shape,
}

#[pymethods]
impl SchemaShape {
    /// Whether `document` satisfies the schema (`jsonschema`'s `is_valid`), or `None`
    /// where Python must answer: a value the conversion does not take (see `value`;
    /// no limit applies but the nesting), or an answer of `jsonschema` that is not
    /// JSON's (`uniqueItems` on some arrays).
    fn verdict(&self, document: &Bound<'_, PyAny>) -> PyResult<Option<bool>> {
        Ok(json(document, Bounds::NESTING)?.and_then(|document| self.shape.verdict(&document)))
    }
}

/// The [`SchemaShape`] of `raw` (`jsonschema`'s active keywords given as `active`), or
/// `None` when the schema asserts anything the shape does not check.
#[pyfunction]
fn schema_shape(
    raw: &Bound<'_, PyAny>,
    active: &Bound<'_, PyAny>,
) -> PyResult<Option<SchemaShape>> {
    Ok(shape(raw, active)?.map(|shape| SchemaShape { shape }))
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<SchemaShape>()?;
    module.add_function(wrap_pyfunction!(schema_shape, module)?)?;
    module.add_function(wrap_pyfunction!(crate::value::is_plain_json, module)?)?;
    Ok(())
}
