//! The referential state a document is scored under (the scopes' `bijections`,
//! `candidate_ids`, `unresolved` and `record_pairs`, as Python passes them) as the
//! engine's [`RefState`], converted once per call.
//!
//! Python's identifier keys are `id_key`'s `(kind, value)` tuples. Anything that is
//! not one of these forms gives `None` (Python then scores under its own state).

use std::collections::BTreeMap;

use oa_engine::plan::{NodeId, Plan};
use oa_engine::score::{RecordPairs, RefState};
use oa_engine::value::IdKey;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::value::{json, Bounds};

/// Identifier values are leaves: no nesting is followed.
const LEAF: Bounds = Bounds {
    depth: 0,
    items: 0,
    string_length: usize::MAX,
};

/// An `id_key` tuple as an [`IdKey`] (None: not one Python makes).
fn id_key(object: &Bound<'_, PyAny>) -> PyResult<Option<IdKey>> {
    let Ok(tuple) = object.cast_exact::<PyTuple>() else {
        return Ok(None);
    };
    let (Ok(kind), Ok(value)) = (tuple.get_item(0), tuple.get_item(1)) else {
        return Ok(None);
    };
    if tuple.len() != 2 {
        return Ok(None);
    }
    let Some(value) = json(&value, LEAF)? else {
        return Ok(None);
    };
    let Ok(Some(key)) = IdKey::of(&value) else {
        return Ok(None);
    };
    let kind: String = kind.extract()?;
    let agrees = matches!(
        (kind.as_str(), &key),
        ("string", IdKey::Text(_)) | ("number", IdKey::Number(_))
    );
    Ok(agrees.then_some(key))
}

/// The state, or None where it holds something the engine does not read the way
/// Python does (a key that is no `id_key`, record pairs of an unknown scope).
///
/// `pointers`: the plan's nodes by schema pointer (record pairs are keyed by the
/// pointer of their array node).
pub(crate) fn ref_state(
    plan: &Plan,
    pointers: &BTreeMap<String, NodeId>,
    bijections: &Bound<'_, PyAny>,
    candidate_ids: &Bound<'_, PyAny>,
    unresolved: &Bound<'_, PyAny>,
    record_pairs: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<RefState>> {
    let mut state = RefState::new();
    let Ok(bijections) = bijections.cast::<PyDict>() else {
        return Ok(None);
    };
    // a scope the plan does not declare is never read (no field refers to it)
    for (name, mapping) in bijections.iter() {
        let (Ok(name), Ok(mapping)) = (name.extract::<String>(), mapping.cast::<PyDict>()) else {
            return Ok(None);
        };
        let Some(scope) = plan.scope_id(&name) else {
            continue;
        };
        let bijection = &mut state.scope_mut(scope).bijection;
        for (gold, image) in mapping.iter() {
            let Some(gold) = id_key(&gold)? else {
                return Ok(None);
            };
            let image = if image.is_none() {
                None
            } else {
                match id_key(&image)? {
                    Some(key) => Some(key),
                    None => return Ok(None),
                }
            };
            bijection.insert(gold, image);
        }
    }
    let Ok(candidate_ids) = candidate_ids.cast::<PyDict>() else {
        return Ok(None);
    };
    for (name, ids) in candidate_ids.iter() {
        let (Ok(name), Ok(ids)) = (name.extract::<String>(), ids.try_iter()) else {
            return Ok(None);
        };
        let Some(scope) = plan.scope_id(&name) else {
            continue;
        };
        let existing = &mut state.scope_mut(scope).candidate_ids;
        for id in ids {
            match id_key(&id?)? {
                Some(key) => existing.insert(key),
                None => return Ok(None),
            };
        }
    }
    let Ok(unresolved) = unresolved.try_iter() else {
        return Ok(None);
    };
    for name in unresolved {
        let Ok(name) = name?.extract::<String>() else {
            return Ok(None);
        };
        if let Some(scope) = plan.scope_id(&name) {
            state.scope_mut(scope).unresolved = true;
        }
    }
    let record_pairs = match record_pairs.map(|pairs| pairs.cast::<PyDict>()) {
        None => None,
        Some(Ok(pairs)) => Some(pairs),
        Some(Err(_)) => return Ok(None),
    };
    for (pointer, entry) in record_pairs.into_iter().flat_map(|pairs| pairs.iter()) {
        let (Ok(pointer), Ok((name, pairs))) = (
            pointer.extract::<String>(),
            entry.extract::<(String, BTreeMap<String, String>)>(),
        ) else {
            return Ok(None);
        };
        // Python looks arrays up by pointer: one the plan has not is never met
        let Some(&records) = pointers.get(&pointer) else {
            continue;
        };
        let Some(scope) = plan.scope_id(&name) else {
            return Ok(None);
        };
        state.pair_records(records, RecordPairs { scope, pairs });
    }
    Ok(Some(state))
}
