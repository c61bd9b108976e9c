//! Identifiers as referential alignment and the reference rule key them.

use std::cmp::Ordering;

use super::error::NonFiniteNumber;
use super::json::Json;
use crate::compare::{Integer, Number, Value};

/// An identifier as Python's `id_key` keeps it: strings and numbers identify (1 and
/// 1.0 are one key, 1 and "1" two); other values identify nothing.
///
/// A number is held exactly: an integral float as the integer it equals, so that
/// equality is Python's `==` between ints and floats whatever their size.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum IdKey {
    Number(NumberKey),
    Text(Vec<u32>),
}

/// A finite number, exactly: an integer, or a float with a fraction.
#[derive(Clone, Debug, PartialEq)]
pub enum NumberKey {
    Integer(Integer),
    Fraction(f64),
}

impl Eq for NumberKey {}

impl Ord for NumberKey {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (NumberKey::Integer(a), NumberKey::Integer(b)) => a.cmp(b),
            (NumberKey::Fraction(a), NumberKey::Fraction(b)) => a.total_cmp(b),
            // any total order consistent with equality serves an ordered map
            (NumberKey::Integer(_), NumberKey::Fraction(_)) => Ordering::Less,
            (NumberKey::Fraction(_), NumberKey::Integer(_)) => Ordering::Greater,
        }
    }
}

impl PartialOrd for NumberKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl IdKey {
    /// The key of a leaf value (`id_key`), `Ok(None)` for a value that identifies
    /// nothing; a NaN or an infinity is refused (no JSON document holds one).
    ///
    /// ```
    /// use oa_engine::compare::{Integer, Number, Value};
    /// use oa_engine::value::IdKey;
    /// let one = IdKey::of_value(&Value::Number(Number::Int(Integer::Small(1)))).unwrap();
    /// let float = IdKey::of_value(&Value::Number(Number::Float(1.0))).unwrap();
    /// assert_eq!(one, float);
    /// assert_ne!(one, IdKey::of_value(&Value::from("1")).unwrap());
    /// assert_eq!(IdKey::of_value(&Value::Boolean(true)).unwrap(), None);
    /// ```
    pub fn of_value(value: &Value) -> Result<Option<IdKey>, NonFiniteNumber> {
        Ok(match value {
            Value::Text(text) => Some(IdKey::Text(text.clone())),
            Value::Number(Number::Int(integer)) => {
                Some(IdKey::Number(NumberKey::Integer(integer.clone())))
            }
            Value::Number(Number::Float(float)) => {
                if !float.is_finite() {
                    return Err(NonFiniteNumber);
                }
                Some(IdKey::Number(if float.fract() == 0.0 {
                    NumberKey::Integer(Integer::from_whole_f64(*float))
                } else {
                    NumberKey::Fraction(*float)
                }))
            }
            Value::Boolean(_) => None,
        })
    }

    /// The key of a document value (null, objects and arrays identify nothing).
    pub fn of(value: &Json) -> Result<Option<IdKey>, NonFiniteNumber> {
        match value {
            Json::Leaf(leaf) => IdKey::of_value(leaf),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn key(value: &Json) -> IdKey {
        IdKey::of(value).unwrap().unwrap()
    }

    #[test]
    fn ints_and_integral_floats_are_one_key_at_any_size() {
        assert_eq!(key(&Json::int(3)), key(&Json::float(3.0)));
        assert_eq!(key(&Json::int(0)), key(&Json::float(-0.0)));
        assert_ne!(key(&Json::int(3)), key(&Json::float(3.5)));
        // 2**64 as a float and as a wide integer
        let wide = Integer::from_le_bytes_signed(&[0, 0, 0, 0, 0, 0, 0, 0, 1]);
        let wide = Json::Leaf(Value::Number(Number::Int(wide)));
        assert_eq!(key(&wide), key(&Json::float(18_446_744_073_709_551_616.0)));
        assert_ne!(key(&wide), key(&Json::float(18_446_744_073_709_555_712.0)));
        assert_eq!(IdKey::of(&Json::Null), Ok(None));
        assert_eq!(IdKey::of(&Json::float(f64::NAN)), Err(NonFiniteNumber));
    }

    #[test]
    fn keys_are_totally_ordered_consistently_with_equality() {
        let mut keys = [
            Json::float(2.5),
            Json::int(2),
            Json::float(2.0),
            Json::int(-7),
            Json::float(-0.5),
        ]
        .iter()
        .map(key)
        .collect::<Vec<_>>();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), 4);
        let set: BTreeSet<IdKey> = keys.iter().cloned().collect();
        assert!(set.contains(&key(&Json::float(-7.0))));
    }
}
