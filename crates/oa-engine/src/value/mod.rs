//! JSON documents as every layer from alignment up reads them: the value tree
//! ([`Json`]), its canonical text (`canonical_json` of `oa_core/comparators.py`),
//! and the identifier key of a leaf ([`IdKey`], Python's `id_key`).
//!
//! It sits on the comparators (a leaf is a comparator [`Value`](crate::compare::Value))
//! and below alignment: blocking, referential alignment and the scorer all read one
//! value model, so none of them may own it.

mod canonical;
mod error;
mod id_key;
mod json;

pub(crate) use canonical::Texts;
pub use canonical::{
    canonical_text, write as write_canonical, write_str as write_json_str,
    write_string as write_json_string,
};
pub use error::NonFiniteNumber;
pub use id_key::{IdKey, NumberKey};
pub use json::Json;
