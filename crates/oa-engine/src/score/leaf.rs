//! A leaf's score (`Scorer._score_leaf`): its comparator's similarity, 0 below the
//! threshold; 0 when the kinds differ or no comparator compares the gold's kind.

use super::json::Json;
use super::Unsupported;
use crate::compare::Externals;
use crate::plan::Node;

/// `externals`: the plan's, for a node naming an external comparator.
pub(super) fn score(
    externals: &Externals,
    node: &Node,
    gold: &Json,
    candidate: &Json,
) -> Result<f64, Unsupported> {
    // an object or an array under a leaf schema has no comparator: a type mismatch
    let (Json::Leaf(gold), Json::Leaf(candidate)) = (gold, candidate) else {
        return Ok(0.0);
    };
    let Some(comparator) = node.comparator_for(gold.kind()) else {
        return Ok(0.0);
    };
    if gold.kind() != candidate.kind() {
        return Ok(0.0);
    }
    let similarity = comparator.scalar(externals, gold, candidate)?;
    Ok(if similarity >= node.threshold {
        similarity
    } else {
        0.0
    })
}
