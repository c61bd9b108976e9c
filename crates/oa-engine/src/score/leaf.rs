//! A leaf's score: its comparator's similarity, 0 below the
//! threshold; 0 when the kinds differ or no comparator compares the gold's kind.

use super::sink::{Sink, Status};
use super::Unsupported;
use crate::compare::Externals;
use crate::plan::Node;
use crate::value::Json;

/// `externals`: the plan's, for a node naming an external comparator.
pub(super) fn score<S: Sink>(
    sink: &mut S,
    row: S::Row,
    externals: &Externals,
    node: &Node,
    gold: &Json,
    candidate: &Json,
) -> Result<f64, Unsupported> {
    // an object or an array has no comparator: a type mismatch
    let comparator = match gold {
        Json::Leaf(value) => node.comparator_for(value.kind()),
        _ => None,
    };
    let compared = match (comparator, gold, candidate) {
        (Some(comparator), Json::Leaf(g), Json::Leaf(c)) if g.kind() == c.kind() => {
            Some((comparator, g, c))
        }
        _ => None,
    };
    // the comparator shown is the schema's own when none applies
    let name = comparator.or(node.comparator);
    let Some((comparator, gold, candidate)) = compared else {
        sink.leaf(row, name, node.threshold, None);
        sink.status(row, Status::TypeMismatch);
        return Ok(0.0);
    };
    let similarity = comparator
        .scalar(externals, gold, candidate)
        .map_err(|error| Unsupported::comparator_at(&node.pointer, "score", error))?;
    sink.leaf(row, name, node.threshold, Some(similarity));
    Ok(thresholded(node, similarity))
}

/// A leaf's score from its comparator's `similarity`: 0 below `node`'s threshold.
/// The one place of the threshold rule, for a pair and for a block of pairs.
pub(super) fn thresholded(node: &Node, similarity: f64) -> f64 {
    if similarity >= node.threshold {
        similarity
    } else {
        0.0
    }
}
