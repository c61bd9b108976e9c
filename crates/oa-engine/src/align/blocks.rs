//! Blocking: the opt-in split of an unordered list into blocks paired on their own
//! (`blockBy`).
//!
//! An item may be paired only with an item of the other side whose values of the
//! `blockBy` properties are equal: strings equal as text, numbers equal as numbers
//! (1 and 1.0 share a block, `true` and 1 do not), booleans and null by themselves,
//! objects and arrays by their canonical JSON text. An item without a property, or
//! that is not an object, is in the block of items without it.
//!
//! The blocks come in the order of a text of their key, not of the items'
//! positions, so that permuting a list permutes only the positions inside blocks;
//! that text (`order_text`) is written from the value the block met first, and
//! sorted as Python's `sorted` sorts strings (by code point).

use std::borrow::Borrow;
use std::collections::BTreeMap;

use crate::compare::{Number, Value};
use crate::value::{canonical_text, Json, NonFiniteNumber};

/// One block: the positions of its gold and candidate items, in list order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Block {
    pub gold: Vec<usize>,
    pub candidate: Vec<usize>,
}

/// A value's equality key (one property's part of a block key): equal keys for
/// equal values, as the `exact` comparator finds them between two leaves.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    Missing,
    Null,
    Boolean(bool),
    Text(Vec<u32>),
    /// A number equal to a float: that float's bits (0.0 for -0.0, which equals it).
    Float(u64),
    /// An integer no float equals: its decimal text.
    Integer(Vec<u32>),
    Object(Vec<u32>),
    Array(Vec<u32>),
}

/// The blocks of two lists under the `properties`, in the order of their keys.
///
/// Errors only on a NaN or infinite number in a property (JSON has none).
///
/// ```
/// use oa_engine::align::blocks;
/// use oa_engine::compare::Value;
/// use oa_engine::value::Json;
/// let record = |role: &str| Json::object(vec![("role".into(), Json::Leaf(Value::from(role)))]);
/// let golds = [record("a"), record("b"), Json::Null];
/// let cands = [record("b"), record("a"), record("c")];
/// let found = blocks(&golds, &cands, &["role".to_string()]).unwrap();
/// let found: Vec<_> = found.into_iter().map(|b| (b.gold, b.candidate)).collect();
/// assert_eq!(found, vec![(vec![2], vec![]), (vec![0], vec![1]), (vec![1], vec![0]),
///                        (vec![], vec![2])]);
/// ```
pub fn blocks<G: Borrow<Json>>(
    golds: &[G],
    candidates: &[G],
    properties: &[String],
) -> Result<Vec<Block>, NonFiniteNumber> {
    // (key -> position in `found`), `found` in the order blocks were met
    let mut index: BTreeMap<Vec<Part>, usize> = BTreeMap::new();
    let mut found: Vec<(Vec<u32>, Block)> = Vec::new();
    for (side, items) in [golds, candidates].into_iter().enumerate() {
        for (k, item) in items.iter().enumerate() {
            let item = item.borrow();
            let key = properties
                .iter()
                .map(|name| part(field(item, name)))
                .collect::<Result<Vec<_>, _>>()?;
            let slot = match index.get(&key) {
                Some(&slot) => slot,
                None => {
                    index.insert(key, found.len());
                    found.push((order_text(item, properties)?, Block::default()));
                    found.len() - 1
                }
            };
            if let Some((_, block)) = found.get_mut(slot) {
                if side == 0 {
                    block.gold.push(k);
                } else {
                    block.candidate.push(k);
                }
            }
        }
    }
    // stable, as Python's sorted: equal texts keep the order they were met in
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found.into_iter().map(|(_, block)| block).collect())
}

/// The value of property `name` of `item`, or `None` when it has none.
fn field<'a>(item: &'a Json, name: &str) -> Option<&'a Json> {
    match item {
        Json::Object(entries) => entries
            .binary_search_by(|(key, _)| key.as_str().cmp(name))
            .ok()
            .and_then(|k| entries.get(k))
            .map(|(_, value)| value),
        _ => None,
    }
}

/// The number `value` as a float when one equals it exactly.
fn exact_float(value: &Number) -> Option<f64> {
    match value {
        Number::Float(x) => Some(*x),
        Number::Int(integer) => integer.to_f64().filter(|x| integer.equals_f64(*x)),
    }
}

/// The equality key of `value` (`None`: a missing property). Errors only on a NaN
/// or infinite number.
pub fn part(value: Option<&Json>) -> Result<Part, NonFiniteNumber> {
    Ok(match value {
        None => Part::Missing,
        Some(Json::Null) => Part::Null,
        Some(Json::Leaf(Value::Boolean(flag))) => Part::Boolean(*flag),
        Some(Json::Leaf(Value::Text(text))) => Part::Text(text.clone()),
        Some(Json::Leaf(Value::Number(number))) => match exact_float(number) {
            Some(x) if !x.is_finite() => return Err(NonFiniteNumber),
            // + 0.0 turns -0.0 into 0.0, which it equals
            Some(x) => Part::Float((x + 0.0).to_bits()),
            None => Part::Integer(canonical_text(value.unwrap_or(&Json::Null))?),
        },
        Some(object @ Json::Object(_)) => Part::Object(canonical_text(object)?),
        Some(array @ Json::Array(_)) => Part::Array(canonical_text(array)?),
    })
}

/// The sort text of `item`'s block key: the canonical text of the list of
/// `[kind, value]` per property, numbers as the text of their float when one equals
/// them (1 and 1.0 alike), objects and arrays as their canonical text.
fn order_text(item: &Json, properties: &[String]) -> Result<Vec<u32>, NonFiniteNumber> {
    let text = |kind: &str| Json::Leaf(Value::from(kind));
    let mut parts = Vec::with_capacity(properties.len());
    for name in properties {
        parts.push(Json::Array(match field(item, name) {
            None => vec![text("missing")],
            Some(Json::Null) => vec![text("null"), Json::Null],
            Some(leaf @ Json::Leaf(Value::Boolean(_))) => vec![text("boolean"), leaf.clone()],
            Some(leaf @ Json::Leaf(Value::Text(_))) => vec![text("string"), leaf.clone()],
            Some(leaf @ Json::Leaf(Value::Number(number))) => {
                let shown = match exact_float(number) {
                    Some(x) => Json::Leaf(Value::Number(Number::Float(x))),
                    None => leaf.clone(),
                };
                vec![
                    text("number"),
                    Json::Leaf(Value::Text(canonical_text(&shown)?)),
                ]
            }
            Some(object @ Json::Object(_)) => {
                vec![
                    text("object"),
                    Json::Leaf(Value::Text(canonical_text(object)?)),
                ]
            }
            Some(array @ Json::Array(_)) => {
                vec![
                    text("array"),
                    Json::Leaf(Value::Text(canonical_text(array)?)),
                ]
            }
        }));
    }
    canonical_text(&Json::Array(parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(x: f64) -> Json {
        Json::Leaf(Value::Number(Number::Float(x)))
    }

    fn with(value: Json) -> Json {
        Json::object(vec![("n".into(), value)])
    }

    fn pairs(found: Vec<Block>) -> Vec<(Vec<usize>, Vec<usize>)> {
        found.into_iter().map(|b| (b.gold, b.candidate)).collect()
    }

    #[test]
    fn equal_numbers_share_a_block_and_booleans_do_not() {
        let golds = [with(Json::int(1)), with(Json::Leaf(Value::Boolean(true)))];
        let cands = [with(number(1.0)), with(number(-0.0)), with(Json::int(0))];
        let found = pairs(blocks(&golds, &cands, &["n".into()]).unwrap());
        // order texts: [["boolean",true]], [["number","-0.0"]], [["number","1.0"]]
        assert_eq!(
            found,
            vec![(vec![1], vec![]), (vec![], vec![1, 2]), (vec![0], vec![0])]
        );
    }

    #[test]
    fn missing_null_and_non_objects() {
        let golds = [with(Json::Null), Json::Array(vec![]), Json::object(vec![])];
        let found = pairs(blocks(&golds, &[], &["n".into()]).unwrap());
        assert_eq!(found, vec![(vec![1, 2], vec![]), (vec![0], vec![])]);
    }

    #[test]
    fn nan_is_an_error() {
        assert!(blocks(&[with(number(f64::NAN))], &[], &["n".into()]).is_err());
    }
}
