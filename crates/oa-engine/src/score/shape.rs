//! The part of a schema's JSON Schema assertions checked natively: `type`,
//! `properties`, `required`, `additionalProperties`, `prefixItems`, `items`, `enum`,
//! `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `minLength`,
//! `maxLength`, `minItems`, `maxItems`, `minProperties`, `maxProperties` and
//! `uniqueItems` (Draft 2020-12, as `jsonschema` reads them, its JSON equality
//! included: 1 equals 1.0, `true` equals no number). A schema asserting anything else
//! has no [`Shape`], and Python validates its documents.
//!
//! Only a yes or no: Python describes a violation (its pointer and message).

use std::cmp::Ordering;

use super::Json;
use crate::compare::{Integer, Number, Value};

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

/// Which side of a limit a value must keep to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// At least the limit (`minimum`, `minLength`, ...).
    Min,
    /// At most the limit (`maximum`, `maxLength`, ...).
    Max,
    /// Above the limit (`exclusiveMinimum`).
    Above,
    /// Below the limit (`exclusiveMaximum`).
    Below,
}

impl Bound {
    /// Whether a value in `order` to the limit keeps it; no order (a NaN) keeps every
    /// bound, as Python's comparisons with NaN are all false.
    fn kept(self, order: Option<Ordering>) -> bool {
        match (self, order) {
            (_, None) => true,
            (Bound::Min, Some(order)) => order != Ordering::Less,
            (Bound::Max, Some(order)) => order != Ordering::Greater,
            (Bound::Above, Some(order)) => order == Ordering::Greater,
            (Bound::Below, Some(order)) => order == Ordering::Less,
        }
    }
}

/// What a size limit counts: a string's code points (Python's `len`), an array's
/// items or an object's keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counted {
    Text,
    Items,
    Keys,
}

/// One assertion on a value itself (its children are the [`ShapeNode`]'s).
#[derive(Clone, Debug, PartialEq)]
pub enum Assertion {
    /// `enum`: equal to one of these.
    OneOf(Vec<Json>),
    /// `const`: equal to this.
    Equal(Json),
    /// `minimum`, `maximum`, `exclusiveMinimum` or `exclusiveMaximum`: numbers only.
    Number(Bound, Number),
    /// `minLength`/`maxLength`, `minItems`/`maxItems`, `minProperties`/`maxProperties`
    /// (the limit as the schema gives it: `2.0` is an integer there).
    Size(Counted, Bound, Number),
    /// `uniqueItems: true`: arrays only.
    Unique,
}

impl Assertion {
    /// Whether `value` satisfies the assertion; `None` where `jsonschema`'s answer is
    /// not JSON's (see [`unique`]).
    fn verdict(&self, value: &Json) -> Option<bool> {
        match (self, value) {
            (Assertion::OneOf(options), _) => Some(
                options
                    .iter()
                    .any(|option| json_order(option, value) == Ordering::Equal),
            ),
            (Assertion::Equal(constant), _) => Some(json_order(constant, value) == Ordering::Equal),
            (Assertion::Number(bound, limit), Json::Leaf(Value::Number(number))) => {
                Some(bound.kept(number.order(limit)))
            }
            (Assertion::Size(counted, bound, limit), _) => {
                let size = match (counted, value) {
                    (Counted::Text, Json::Leaf(Value::Text(text))) => text.len(),
                    (Counted::Items, Json::Array(items)) => items.len(),
                    (Counted::Keys, Json::Object(entries)) => entries.len(),
                    _ => return Some(true),
                };
                // a size beyond i64 cannot be held in memory: no limit is exceeded
                let size = i64::try_from(size).ok()?;
                Some(bound.kept(Number::Int(Integer::from(size)).order(limit)))
            }
            (Assertion::Unique, Json::Array(items)) => unique(items),
            _ => Some(true),
        }
    }
}

/// The rank of a value's kind in [`json_order`].
fn rank(value: &Json) -> u8 {
    match value {
        Json::Null => 0,
        Json::Leaf(Value::Boolean(_)) => 1,
        Json::Leaf(Value::Number(_)) => 2,
        Json::Leaf(Value::Text(_)) => 3,
        Json::Array(_) => 4,
        Json::Object(_) => 5,
    }
}

/// A total order of JSON values whose `Equal` is `jsonschema`'s equality (numbers
/// by value across `int` and `float`, booleans apart from numbers, objects by their
/// keys and values). Iterative, so any depth is compared without recursion. The
/// conversion from Python admits no NaN; were one compared, it would sort after every
/// number and equal only a NaN (a total order, unlike Python's).
fn json_order(a: &Json, b: &Json) -> Ordering {
    let mut pending = vec![(a, b)];
    while let Some((a, b)) = pending.pop() {
        let order = match (a, b) {
            (Json::Leaf(Value::Boolean(x)), Json::Leaf(Value::Boolean(y))) => x.cmp(y),
            (Json::Leaf(Value::Number(x)), Json::Leaf(Value::Number(y))) => {
                x.order(y).unwrap_or_else(|| nan(x).cmp(&nan(y)))
            }
            (Json::Leaf(Value::Text(x)), Json::Leaf(Value::Text(y))) => x.cmp(y),
            (Json::Array(x), Json::Array(y)) => {
                let order = x.len().cmp(&y.len());
                if order == Ordering::Equal {
                    pending.extend(x.iter().zip(y).rev());
                }
                order
            }
            (Json::Object(x), Json::Object(y)) => {
                let order = x
                    .len()
                    .cmp(&y.len())
                    .then_with(|| x.iter().map(|(k, _)| k).cmp(y.iter().map(|(k, _)| k)));
                if order == Ordering::Equal {
                    pending.extend(x.iter().zip(y).map(|((_, u), (_, v))| (u, v)).rev());
                }
                order
            }
            _ => rank(a).cmp(&rank(b)),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

fn nan(number: &Number) -> bool {
    matches!(number, Number::Float(x) if x.is_nan())
}

/// Whether the items are pairwise unequal, as `jsonschema`'s `uniq` finds: it sorts
/// the items when Python can order them and compares neighbours, else compares every
/// pair. Both find JSON's answer, except where Python sorts arrays holding booleans
/// (it orders `true` as 1, so equal arrays may not end side by side): `None` for
/// items that are all arrays, or numbers mixed with strings (which Python may sort
/// or not), and Python answers.
fn unique(items: &[Json]) -> Option<bool> {
    // Python cannot order null, a boolean (`uniq` swaps each for a sentinel object)
    // or an object: with one among two items or more, every pair is compared.
    let pairwise = items.iter().any(|item| {
        matches!(
            item,
            Json::Null | Json::Leaf(Value::Boolean(_)) | Json::Object(_)
        )
    });
    let sorted = items
        .iter()
        .all(|item| matches!(item, Json::Leaf(Value::Number(_))))
        || items
            .iter()
            .all(|item| matches!(item, Json::Leaf(Value::Text(_))));
    if !(pairwise || sorted || items.len() < 2) {
        return None;
    }
    let mut order: Vec<&Json> = items.iter().collect();
    order.sort_by(|a, b| json_order(a, b));
    Some(
        order
            .windows(2)
            .all(|pair| !matches!(pair, [a, b] if json_order(a, b) == Ordering::Equal)),
    )
}

/// One (sub)schema's assertions; children are indices into the [`Shape`].
#[derive(Clone, Debug)]
pub struct ShapeNode {
    pub types: Types,
    pub required: Vec<String>,
    pub properties: Vec<(String, usize)>,
    /// `additionalProperties`: the subschema of the keys `properties` does not name.
    pub additional: Option<usize>,
    pub prefix: Vec<usize>,
    pub items: Option<usize>,
    pub assertions: Vec<Assertion>,
}

impl ShapeNode {
    /// The `false` schema: no value satisfies it.
    pub fn nothing() -> ShapeNode {
        ShapeNode {
            types: Types::NONE,
            ..ShapeNode::default()
        }
    }
}

impl Default for ShapeNode {
    /// The `true` schema: every value satisfies it.
    fn default() -> Self {
        ShapeNode {
            types: Types::ANY,
            required: Vec::new(),
            properties: Vec::new(),
            additional: None,
            prefix: Vec::new(),
            items: None,
            assertions: Vec::new(),
        }
    }
}

/// A schema's checked assertions, its root first.
#[derive(Clone, Debug)]
pub struct Shape {
    nodes: Vec<ShapeNode>,
}

impl Shape {
    /// The shape of `nodes` (the root first); `None` when a child index points
    /// nowhere or there is no root.
    pub fn new(mut nodes: Vec<ShapeNode>) -> Option<Shape> {
        let count = nodes.len();
        let valid = |id: &usize| *id < count;
        let sound = count > 0
            && nodes.iter().all(|node| {
                node.properties.iter().all(|(_, id)| valid(id))
                    && node.prefix.iter().all(valid)
                    && node.items.as_ref().map_or(true, valid)
                    && node.additional.as_ref().map_or(true, valid)
            });
        // sorted (and the required keys once each), as an object's entries are: one
        // merge pass pairs them
        for node in &mut nodes {
            node.properties.sort_by(|a, b| a.0.cmp(&b.0));
            node.required.sort();
            node.required.dedup();
        }
        sound.then_some(Shape { nodes })
    }

    /// Whether `document` satisfies every assertion: `Some(true)` or `Some(false)`,
    /// or `None` when it violates none but `jsonschema` may judge one differently
    /// from JSON (`uniqueItems` on some arrays: see [`unique`]). No recursion: any
    /// depth.
    ///
    /// ```
    /// use oa_engine::score::{Assertion, Shape, ShapeNode, Types};
    /// use oa_engine::value::Json;
    /// let root = ShapeNode { types: Types::from_name("array").unwrap(), items: Some(1),
    ///                        assertions: vec![Assertion::Unique], ..ShapeNode::default() };
    /// let item = ShapeNode { types: Types::from_name("null").unwrap(), ..ShapeNode::default() };
    /// let shape = Shape::new(vec![root, item]).unwrap();
    /// assert_eq!(shape.verdict(&Json::Array(vec![Json::Null])), Some(true));
    /// assert_eq!(shape.verdict(&Json::Array(vec![Json::Null, Json::Null])), Some(false));
    /// assert_eq!(shape.verdict(&Json::Array(vec![Json::Array(vec![])])), Some(false));
    /// ```
    pub fn verdict<'d>(&self, document: &'d Json) -> Option<bool> {
        let mut unsure = false;
        // the containers left to visit (a leaf is judged where it is met, and the
        // next container without a push: no allocation for a flat document)
        let mut pending = Vec::new();
        let mut next = Some((document, 0usize));
        while let Some((value, id)) = next.take().or_else(|| pending.pop()) {
            let Some(node) = self.own(value, id, &mut unsure) else {
                return Some(false);
            };
            let mut visit = |child: &'d Json, id: usize| -> bool {
                if matches!(child, Json::Object(_) | Json::Array(_)) {
                    match next {
                        None => next = Some((child, id)),
                        Some(_) => pending.push((child, id)),
                    }
                    return true;
                }
                self.own(child, id, &mut unsure).is_some()
            };
            match value {
                Json::Object(entries) => {
                    // the entries, the properties and the required keys are all
                    // sorted: one merge pass pairs them
                    let mut properties = node.properties.iter().peekable();
                    let mut required = node.required.iter().peekable();
                    for (key, child) in entries {
                        while properties.next_if(|(name, _)| name < key).is_some() {}
                        let schema = match properties.peek() {
                            Some((name, id)) if name == key => Some(id),
                            _ => node.additional.as_ref(),
                        };
                        if let Some(name) = required.next_if(|name| *name <= key) {
                            if name != key {
                                return Some(false); // a required key before it is absent
                            }
                        }
                        if schema.is_some_and(|id| !visit(child, *id)) {
                            return Some(false);
                        }
                    }
                    if required.next().is_some() {
                        return Some(false);
                    }
                }
                Json::Array(items) => {
                    for (k, item) in items.iter().enumerate() {
                        match node.prefix.get(k).copied().or(node.items) {
                            Some(child) if !visit(item, child) => return Some(false),
                            Some(_) => {}
                            None => break,
                        }
                    }
                }
                _ => {}
            }
        }
        (!unsure).then_some(true)
    }

    /// The subschema `id` when `value` itself satisfies its assertions (not looking
    /// below it), else None; `unsure` set where `jsonschema` may judge one otherwise.
    fn own(&self, value: &Json, id: usize, unsure: &mut bool) -> Option<&ShapeNode> {
        let node = self.nodes.get(id)?;
        if !node.types.admit(value) {
            return None;
        }
        for assertion in &node.assertions {
            match assertion.verdict(value) {
                Some(true) => {}
                Some(false) => return None,
                None => *unsure = true,
            }
        }
        Some(node)
    }

    /// Whether `document` surely satisfies every assertion ([`Shape::verdict`] is
    /// `Some(true)`).
    pub fn accepts(&self, document: &Json) -> bool {
        self.verdict(document) == Some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(name: &str) -> ShapeNode {
        ShapeNode {
            types: Types::from_name(name).unwrap_or(Types::NONE),
            ..ShapeNode::default()
        }
    }

    fn asserting(assertions: Vec<Assertion>) -> Shape {
        Shape::new(vec![ShapeNode {
            assertions,
            ..ShapeNode::default()
        }])
        .unwrap()
    }

    fn int(value: i64) -> Json {
        Json::Leaf(Value::Number(Number::Int(Integer::from(value))))
    }

    fn float(value: f64) -> Json {
        Json::Leaf(Value::Number(Number::Float(value)))
    }

    fn text(value: &str) -> Json {
        Json::Leaf(Value::from(value))
    }

    fn flag(value: bool) -> Json {
        Json::Leaf(Value::Boolean(value))
    }

    #[test]
    fn integers_admit_whole_floats_and_numbers_no_booleans() {
        let integer = Shape::new(vec![typed("integer")]).unwrap();
        let number = Shape::new(vec![typed("number")]).unwrap();
        assert!(integer.accepts(&float(2.0)) && !integer.accepts(&float(2.5)));
        assert!(integer.accepts(&int(3)));
        assert!(number.accepts(&float(2.5)));
        assert!(!number.accepts(&flag(true)));
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
        let doc = |items: Vec<Json>| Json::object(vec![("a".into(), Json::Array(items))]);
        assert!(shape.accepts(&doc(vec![Json::Null, text("x")])));
        assert!(!shape.accepts(&doc(vec![text("x")])));
        assert!(!shape.accepts(&doc(vec![Json::Null, Json::Null])));
        assert!(!shape.accepts(&Json::object(vec![("b".into(), Json::Null)])));
        assert!(Shape::new(vec![ShapeNode {
            items: Some(5),
            ..ShapeNode::default()
        }])
        .is_none());
    }

    #[test]
    fn additional_properties_see_only_unnamed_keys() {
        let root = ShapeNode {
            properties: vec![("b".into(), 1), ("a".into(), 1)],
            additional: Some(2),
            ..ShapeNode::default()
        };
        let shape = Shape::new(vec![root, typed("string"), ShapeNode::nothing()]).unwrap();
        let doc = |key: &str| Json::object(vec![(key.into(), text("x"))]);
        assert!(shape.accepts(&doc("a")) && shape.accepts(&doc("b")));
        assert!(!shape.accepts(&doc("c")));
        assert!(shape.accepts(&int(1)));
    }

    #[test]
    fn enum_and_const_use_json_equality() {
        let shape = asserting(vec![Assertion::OneOf(vec![
            int(1),
            flag(false),
            Json::Array(vec![int(2)]),
        ])]);
        assert!(shape.accepts(&float(1.0)) && shape.accepts(&flag(false)));
        assert!(!shape.accepts(&flag(true)) && !shape.accepts(&int(0)));
        assert!(shape.accepts(&Json::Array(vec![float(2.0)])));
        assert!(!shape.accepts(&Json::Array(vec![flag(true)])));
        let object = |value: Json| Json::object(vec![("k".into(), value)]);
        let constant = asserting(vec![Assertion::Equal(object(int(0)))]);
        assert!(constant.accepts(&object(float(-0.0))));
        assert!(!constant.accepts(&object(flag(false))));
        assert!(!constant.accepts(&Json::object(vec![])));
    }

    #[test]
    fn number_bounds_are_exact_and_skip_other_types() {
        let beyond = Number::Int(Integer::Wide {
            negative: false,
            magnitude: Box::new([1, 1]),
        });
        let shape = asserting(vec![
            Assertion::Number(Bound::Min, Number::Float(2f64.powi(64))),
            Assertion::Number(Bound::Below, beyond),
        ]);
        let wide = |low: u64| {
            Json::Leaf(Value::Number(Number::Int(Integer::Wide {
                negative: false,
                magnitude: Box::new([low, 1]),
            })))
        };
        assert!(shape.accepts(&wide(0)) && !shape.accepts(&wide(1)));
        assert!(!shape.accepts(&int(i64::MAX)) && shape.accepts(&text("x")));
        let open = asserting(vec![Assertion::Number(Bound::Above, Number::Float(0.5))]);
        assert!(open.accepts(&int(1)) && !open.accepts(&float(0.5)) && open.accepts(&flag(false)));
        let closed = asserting(vec![Assertion::Number(
            Bound::Max,
            Number::Int(Integer::from(1)),
        )]);
        assert!(closed.accepts(&float(1.0)) && !closed.accepts(&float(1.5)));
    }

    #[test]
    fn sizes_count_code_points_items_and_keys() {
        let two = || Number::Float(2.0);
        let strings = asserting(vec![Assertion::Size(Counted::Text, Bound::Max, two())]);
        assert!(strings.accepts(&Json::Leaf(Value::Text(vec![0x1F600, 0x1F600]))));
        assert!(!strings.accepts(&text("abc")) && strings.accepts(&Json::Array(vec![int(1); 3])));
        let arrays = asserting(vec![Assertion::Size(Counted::Items, Bound::Min, two())]);
        assert!(!arrays.accepts(&Json::Array(vec![int(1)])) && arrays.accepts(&text("a")));
        let objects = asserting(vec![Assertion::Size(
            Counted::Keys,
            Bound::Max,
            Number::Int(Integer::from(0)),
        )]);
        assert!(objects.accepts(&Json::object(vec![])));
        assert!(!objects.accepts(&Json::object(vec![("a".into(), Json::Null)])));
    }

    #[test]
    fn unique_items_answers_where_jsonschema_finds_json_equality() {
        let shape = asserting(vec![Assertion::Unique]);
        let verdict = |items: Vec<Json>| shape.verdict(&Json::Array(items));
        assert_eq!(verdict(vec![int(1), float(1.0)]), Some(false));
        assert_eq!(verdict(vec![int(1), flag(true)]), Some(true));
        assert_eq!(verdict(vec![text("b"), text("a")]), Some(true));
        let object = |value: Json| Json::object(vec![("k".into(), value)]);
        assert_eq!(
            verdict(vec![object(int(1)), object(float(1.0))]),
            Some(false)
        );
        assert_eq!(verdict(vec![Json::Null, Json::Array(vec![])]), Some(true));
        // Python sorts these arrays itself (true as 1): its answer, not JSON's
        let array = |value: Json| Json::Array(vec![value]);
        assert_eq!(verdict(vec![array(int(1)), array(flag(true))]), None);
        assert_eq!(verdict(vec![int(1), text("1")]), None);
        assert_eq!(verdict(vec![array(int(1))]), Some(true));
        // a violation elsewhere is certain
        let root = ShapeNode {
            assertions: vec![Assertion::Unique],
            items: Some(1),
            ..ShapeNode::default()
        };
        let strict = Shape::new(vec![root, typed("array")]).unwrap();
        assert_eq!(
            strict.verdict(&Json::Array(vec![array(int(1)), int(2)])),
            Some(false)
        );
    }

    #[test]
    fn false_schema_admits_nothing() {
        let shape = Shape::new(vec![ShapeNode::nothing()]).unwrap();
        assert!(!shape.accepts(&Json::Null) && !shape.accepts(&Json::object(vec![])));
    }
}
