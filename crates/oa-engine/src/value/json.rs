//! JSON documents as the engine reads them: primitives as comparator values,
//! objects with their keys sorted (the order the key alignment sees them in).

use crate::compare::{Integer, Number, Value};

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
    /// An integer leaf.
    ///
    /// ```
    /// use oa_engine::value::Json;
    /// assert_ne!(Json::int(1), Json::float(1.0)); // the id key counts them one
    /// ```
    pub fn int(value: i64) -> Json {
        Json::Leaf(Value::Number(Number::Int(Integer::Small(value))))
    }

    /// A float leaf.
    pub fn float(value: f64) -> Json {
        Json::Leaf(Value::Number(Number::Float(value)))
    }

    /// An object from entries in any order (sorted here; a later duplicate key
    /// replaces an earlier one, as in a Python dict).
    ///
    /// ```
    /// use oa_engine::value::Json;
    /// let object = Json::object(vec![("b".into(), Json::Null), ("a".into(), Json::Null)]);
    /// assert_eq!(object, Json::Object(vec![("a".into(), Json::Null), ("b".into(), Json::Null)]));
    /// let twice = Json::object(vec![("a".into(), Json::Null), ("a".into(), Json::Array(vec![]))]);
    /// assert_eq!(twice, Json::Object(vec![("a".into(), Json::Array(vec![]))]));
    /// ```
    pub fn object(mut entries: Vec<(String, Json)>) -> Json {
        // stable: of equal keys the last one given comes last, and is kept (moved
        // into the first one's place, in place)
        entries.sort_by(key_order);
        entries.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                std::mem::swap(&mut later.1, &mut kept.1);
            }
            same
        });
        Json::Object(entries)
    }

    /// An object from entries with no key twice, in any order (sorted here).
    ///
    /// ```
    /// use oa_engine::value::Json;
    /// let object = Json::object_of_distinct(vec![("b".into(), Json::Null), ("a".into(), Json::Null)]);
    /// assert_eq!(object, Json::Object(vec![("a".into(), Json::Null), ("b".into(), Json::Null)]));
    /// ```
    pub fn object_of_distinct(mut entries: Vec<(String, Json)>) -> Json {
        // no two keys equal: any sort gives the one order
        entries.sort_unstable_by(key_order);
        Json::Object(entries)
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Json::Array(_))
    }
}

/// The order of object entries by key: `str`'s own (bytes, then length), compared
/// byte by byte inline, without a `memcmp` call per comparison of these short keys.
fn key_order(a: &(String, Json), b: &(String, Json)) -> std::cmp::Ordering {
    a.0.bytes().cmp(b.0.bytes())
}
