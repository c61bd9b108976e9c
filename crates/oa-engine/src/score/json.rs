//! JSON documents as the scorer reads them: primitives as comparator values,
//! objects with their keys sorted (the order the key alignment sees them in).

use crate::compare::Value;

/// A JSON value. Object entries are sorted by key, code point by code point (the
/// order of Python's `sorted` on `str`), with no key twice.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Leaf(Value),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// An object from entries in any order (sorted here; a later duplicate key
    /// replaces an earlier one, as in a Python dict).
    ///
    /// ```
    /// use oa_engine::score::Json;
    /// let object = Json::object(vec![("b".into(), Json::Null), ("a".into(), Json::Null)]);
    /// assert_eq!(object, Json::Object(vec![("a".into(), Json::Null), ("b".into(), Json::Null)]));
    /// ```
    pub fn object(mut entries: Vec<(String, Json)>) -> Json {
        // stable: of equal keys the last one given comes last, and is kept
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut kept: Vec<(String, Json)> = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            match kept.last_mut() {
                Some(last) if last.0 == key => last.1 = value,
                _ => kept.push((key, value)),
            }
        }
        Json::Object(kept)
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Json::Array(_))
    }
}
