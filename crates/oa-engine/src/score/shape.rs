//! The part of a schema's JSON Schema assertions checked natively: `type`,
//! `properties`, `required`, `prefixItems` and `items` (Draft 2020-12, as
//! `jsonschema` reads them). A schema asserting anything else has no [`Shape`], and
//! Python validates its documents.
//!
//! Only a yes or no: Python describes a violation (its pointer and message).

use super::Json;
use crate::compare::{Number, Value};

/// A set of JSON Schema type names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Types(u8);

impl Types {
    pub const NONE: Types = Types(0);
    pub const ANY: Types = Types(0x7f);

    /// The type of a `type` keyword's name (`None` for a name JSON Schema lacks).
    ///
    /// ```
    /// use oa_engine::score::Types;
    /// assert!(Types::from_name("integer").is_some() && Types::from_name("int").is_none());
    /// ```
    pub fn from_name(name: &str) -> Option<Types> {
        let bit = match name {
            "null" => 0,
            "boolean" => 1,
            "integer" => 2,
            "number" => 3,
            "string" => 4,
            "array" => 5,
            "object" => 6,
            _ => return None,
        };
        Some(Types(1 << bit))
    }

    #[must_use]
    pub fn union(self, other: Types) -> Types {
        Types(self.0 | other.0)
    }

    fn has(self, name: &str) -> bool {
        Types::from_name(name).is_some_and(|bit| self.0 & bit.0 != 0)
    }

    /// `jsonschema`'s type checker: a float with no fraction is an integer, a
    /// boolean is no number.
    fn admit(self, value: &Json) -> bool {
        match value {
            Json::Null => self.has("null"),
            Json::Leaf(Value::Boolean(_)) => self.has("boolean"),
            Json::Leaf(Value::Number(Number::Int(_))) => self.has("integer") || self.has("number"),
            Json::Leaf(Value::Number(Number::Float(x))) => {
                self.has("number") || (self.has("integer") && x.fract() == 0.0)
            }
            Json::Leaf(Value::Text(_)) => self.has("string"),
            Json::Array(_) => self.has("array"),
            Json::Object(_) => self.has("object"),
        }
    }
}

/// One (sub)schema's assertions; children are indices into the [`Shape`].
#[derive(Clone, Debug)]
pub struct ShapeNode {
    pub types: Types,
    pub required: Vec<String>,
    pub properties: Vec<(String, usize)>,
    pub prefix: Vec<usize>,
    pub items: Option<usize>,
}

impl Default for ShapeNode {
    fn default() -> Self {
        ShapeNode {
            types: Types::ANY,
            required: Vec::new(),
            properties: Vec::new(),
            prefix: Vec::new(),
            items: None,
        }
    }
}

/// A schema's checked assertions, its root first.
#[derive(Clone, Debug)]
pub struct Shape {
    nodes: Vec<ShapeNode>,
}

fn entry<'a>(entries: &'a [(String, Json)], key: &str) -> Option<&'a Json> {
    entries
        .binary_search_by(|(name, _)| name.as_str().cmp(key))
        .ok()
        .and_then(|at| entries.get(at))
        .map(|(_, value)| value)
}

impl Shape {
    /// The shape of `nodes` (the root first); `None` when a child index points
    /// nowhere or there is no root.
    pub fn new(nodes: Vec<ShapeNode>) -> Option<Shape> {
        let count = nodes.len();
        let valid = |id: &usize| *id < count;
        let sound = count > 0
            && nodes.iter().all(|node| {
                node.properties.iter().all(|(_, id)| valid(id))
                    && node.prefix.iter().all(valid)
                    && node.items.as_ref().map_or(true, valid)
            });
        sound.then_some(Shape { nodes })
    }

    /// Whether `document` satisfies every assertion (no recursion: any depth).
    ///
    /// ```
    /// use oa_engine::score::{Json, Shape, ShapeNode, Types};
    /// let root = ShapeNode { types: Types::from_name("array").unwrap(), items: Some(1),
    ///                        ..ShapeNode::default() };
    /// let item = ShapeNode { types: Types::from_name("null").unwrap(), ..ShapeNode::default() };
    /// let shape = Shape::new(vec![root, item]).unwrap();
    /// assert!(shape.accepts(&Json::Array(vec![Json::Null])));
    /// assert!(!shape.accepts(&Json::Array(vec![Json::Array(vec![])])));
    /// ```
    pub fn accepts(&self, document: &Json) -> bool {
        let mut pending = vec![(document, 0usize)];
        while let Some((value, id)) = pending.pop() {
            let Some(node) = self.nodes.get(id) else {
                return false;
            };
            if !node.types.admit(value) {
                return false;
            }
            match value {
                Json::Object(entries) => {
                    if !node
                        .required
                        .iter()
                        .all(|key| entry(entries, key).is_some())
                    {
                        return false;
                    }
                    for (key, child) in &node.properties {
                        if let Some(found) = entry(entries, key) {
                            pending.push((found, *child));
                        }
                    }
                }
                Json::Array(items) => {
                    for (k, item) in items.iter().enumerate() {
                        match node.prefix.get(k).copied().or(node.items) {
                            Some(child) => pending.push((item, child)),
                            None => break,
                        }
                    }
                }
                _ => {}
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Integer;

    fn typed(name: &str) -> ShapeNode {
        ShapeNode {
            types: Types::from_name(name).unwrap_or(Types::NONE),
            ..ShapeNode::default()
        }
    }

    #[test]
    fn integers_admit_whole_floats_and_numbers_no_booleans() {
        let integer = Shape::new(vec![typed("integer")]).unwrap();
        let number = Shape::new(vec![typed("number")]).unwrap();
        let float = |x: f64| Json::Leaf(Value::Number(Number::Float(x)));
        assert!(integer.accepts(&float(2.0)) && !integer.accepts(&float(2.5)));
        assert!(integer.accepts(&Json::Leaf(Value::Number(Number::Int(Integer::from(3))))));
        assert!(number.accepts(&float(2.5)));
        assert!(!number.accepts(&Json::Leaf(Value::Boolean(true))));
    }

    #[test]
    fn properties_required_prefix_and_items() {
        let root = ShapeNode {
            types: Types::from_name("object").unwrap(),
            required: vec!["a".into()],
            properties: vec![("a".into(), 1)],
            ..ShapeNode::default()
        };
        let list = ShapeNode {
            prefix: vec![2],
            items: Some(3),
            ..typed("array")
        };
        let shape = Shape::new(vec![root, list, typed("null"), typed("string")]).unwrap();
        let text = Json::Leaf(Value::Text(vec![120]));
        let doc = |items: Vec<Json>| Json::object(vec![("a".into(), Json::Array(items))]);
        assert!(shape.accepts(&doc(vec![Json::Null, text.clone()])));
        assert!(!shape.accepts(&doc(vec![text.clone()])));
        assert!(!shape.accepts(&doc(vec![Json::Null, Json::Null])));
        assert!(!shape.accepts(&Json::object(vec![("b".into(), Json::Null)])));
        assert!(Shape::new(vec![ShapeNode {
            items: Some(5),
            ..ShapeNode::default()
        }])
        .is_none());
    }
}
