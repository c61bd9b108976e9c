//! A raw schema (`Schema.raw`) read into the engine's [`Shape`], when every assertion
//! it makes is one the shape checks.

use oa_engine::score::{Shape, ShapeNode, Types};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString};

/// Keywords that assert nothing and do not change what `$ref` finds.
const INERT: [&str; 3] = ["$comment", "$defs", "$schema"];

/// Subschemas read at most (a schema is far smaller; a cycle is not).
const MAX_NODES: usize = 100_000;

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
        return Ok(flag.is_true().then(ShapeNode::default));
    }
    let Ok(schema) = schema.cast_exact::<PyDict>() else {
        return Ok(None);
    };
    let mut shape = ShapeNode::default();
    for (key, value) in schema.iter() {
        let Ok(key) = key.cast_exact::<PyString>() else {
            return Ok(None);
        };
        let key = key.to_str()?;
        match key {
            "type" => {
                let names: Vec<Bound<'py, PyAny>> = match value.cast_exact::<PyList>() {
                    Ok(list) => list.iter().collect(),
                    Err(_) => vec![value],
                };
                let mut types = Types::NONE;
                for name in names {
                    let Ok(name) = name.cast_exact::<PyString>() else {
                        return Ok(None);
                    };
                    let Some(one) = Types::from_name(name.to_str()?) else {
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
                for name in list.iter() {
                    let Ok(name) = name.cast_exact::<PyString>() else {
                        return Ok(None);
                    };
                    shape.required.push(name.to_str()?.to_owned());
                }
            }
            "properties" => {
                let Ok(properties) = value.cast_exact::<PyDict>() else {
                    return Ok(None);
                };
                for (name, sub) in properties.iter() {
                    let Ok(name) = name.cast_exact::<PyString>() else {
                        return Ok(None);
                    };
                    let name = name.to_str()?.to_owned();
                    shape.properties.push((name, child(sub)));
                }
            }
            "prefixItems" => {
                let Ok(list) = value.cast_exact::<PyList>() else {
                    return Ok(None);
                };
                for sub in list.iter() {
                    shape.prefix.push(child(sub));
                }
            }
            "items" => shape.items = Some(child(value)),
            _ if INERT.contains(&key) => {}
            // an assertion or a reference this shape does not follow
            _ if key.starts_with('$') || active.contains(key)? => return Ok(None),
            _ => {}
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
