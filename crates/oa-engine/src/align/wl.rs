//! Joint 1-dimensional Weisfeiler-Leman colour refinement on a disjoint union
//! (the paper's referential alignment; `oa_core/wl.py`).
//!
//! The gold and candidate reference graphs of one scope are refined together: one
//! intern table per round (the paper's "Relabel") maps sorted signatures to
//! integer colours, so equal colours are comparable across the sides. A vertex's
//! signature is (own colour, sorted multiset of (direction, relation, label,
//! neighbour colour)) over its incident edges; a self-loop is one "loop" entry.
//! Refinement stops when the number of colours stops growing; every round is kept.

use std::collections::BTreeMap;

use super::error::{at, AlignError};

/// A directed edge `source -> target` (vertex indices).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub source: usize,
    pub target: usize,
    /// E.g. `"mentor->mentee"`; a hub edge carries the endpoint's role.
    pub relation: String,
    /// Canonical JSON of the carrier's exact scalars (`""` if none).
    pub label: String,
}

/// How an edge meets a vertex, ordered as Python orders the strings
/// `"in" < "loop" < "out"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Direction {
    In,
    Loop,
    Out,
}

/// Intern `signatures`: the k-th smallest distinct signature gets `k`.
///
/// ```
/// use oa_engine::align::relabel;
/// assert_eq!(relabel(&["b", "a", "b"]), vec![1, 0, 1]);
/// ```
pub fn relabel<T: Ord>(signatures: &[T]) -> Vec<usize> {
    let mut order: Vec<(&T, usize)> = signatures.iter().zip(0..).collect();
    order.sort_unstable();
    let mut colours = vec![0; signatures.len()];
    let mut rank = 0;
    let mut previous: Option<&T> = None;
    for (signature, index) in order {
        if previous.is_some_and(|p| p != signature) {
            rank += 1;
        }
        previous = Some(signature);
        if let Some(slot) = colours.get_mut(index) {
            *slot = rank;
        }
    }
    colours
}

/// The number of distinct colours of a relabelled colouring (its largest plus one).
pub(crate) fn colour_count(colours: &[usize]) -> usize {
    colours.iter().max().map_or(0, |c| c + 1)
}

/// Every refinement round of `vertices` vertices joined by `edges`, from one
/// sortable seed per vertex: round 0 first, the last one stable.
///
/// ```
/// use oa_engine::align::{refine, WlEdge};
/// let edge = |source, target| WlEdge { source, target, relation: "mentor->mentee".into(),
///                                      label: String::new() };
/// let rounds = refine(4, &[edge(0, 1), edge(3, 2)], &["record"; 4]).unwrap();
/// assert_eq!(rounds, vec![vec![0, 0, 0, 0], vec![1, 0, 0, 1]]);
/// ```
pub fn refine<S: Ord>(
    vertices: usize,
    edges: &[Edge],
    initial: &[S],
) -> Result<Vec<Vec<usize>>, AlignError> {
    if initial.len() != vertices {
        return Err(AlignError::Length {
            what: "initial colours",
            expected: vertices,
            got: initial.len(),
        });
    }
    let incident = incidence(vertices, edges)?;
    let mut colours = relabel(initial);
    let mut count = colour_count(&colours);
    let mut rounds = vec![colours.clone()];
    for _ in 0..vertices {
        let signatures = incident
            .iter()
            .zip(&colours)
            .map(|(ends, &own)| {
                let mut around = ends
                    .iter()
                    .map(|&(kind, u)| Ok((kind, at(&colours, u, "neighbour colour")?)))
                    .collect::<Result<Vec<_>, AlignError>>()?;
                around.sort_unstable();
                Ok((own, around))
            })
            .collect::<Result<Vec<_>, AlignError>>()?;
        let refined = relabel(&signatures);
        let refined_count = colour_count(&refined);
        if refined_count <= count {
            break;
        }
        (colours, count) = (refined, refined_count);
        rounds.push(colours.clone());
    }
    Ok(rounds)
}

/// Each vertex's incident edge ends as (rank of (direction, relation, label),
/// neighbour): the ranks sort as the triples do, so signatures compare the same
/// for a fraction of the work.
fn incidence(vertices: usize, edges: &[Edge]) -> Result<Vec<Vec<(usize, usize)>>, AlignError> {
    let mut ends: Vec<(usize, (Direction, &str, &str), usize)> = Vec::new();
    for (index, edge) in edges.iter().enumerate() {
        for vertex in [edge.source, edge.target] {
            if vertex >= vertices {
                return Err(AlignError::Vertex {
                    edge: index,
                    vertex,
                });
            }
        }
        let (relation, label) = (edge.relation.as_str(), edge.label.as_str());
        if edge.source == edge.target {
            ends.push((edge.source, (Direction::Loop, relation, label), edge.source));
        } else {
            ends.push((edge.source, (Direction::Out, relation, label), edge.target));
            ends.push((edge.target, (Direction::In, relation, label), edge.source));
        }
    }
    let mut rank: BTreeMap<(Direction, &str, &str), usize> =
        ends.iter().map(|&(_, kind, _)| (kind, 0)).collect();
    for (k, slot) in rank.values_mut().enumerate() {
        *slot = k;
    }
    let mut incident = vec![Vec::new(); vertices];
    for (v, kind, u) in ends {
        let k = rank
            .get(&kind)
            .copied()
            .ok_or(AlignError::Internal("edge kind"))?;
        incident
            .get_mut(v)
            .ok_or(AlignError::Internal("incident"))?
            .push((k, u));
    }
    Ok(incident)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(source: usize, target: usize, relation: &str) -> Edge {
        Edge {
            source,
            target,
            relation: relation.to_owned(),
            label: String::new(),
        }
    }

    #[test]
    fn mentors_are_told_from_mentees_across_sides() -> Result<(), AlignError> {
        let rounds = refine(4, &[edge(0, 1, "m"), edge(3, 2, "m")], &["r"; 4])?;
        assert_eq!(rounds, vec![vec![0, 0, 0, 0], vec![1, 0, 0, 1]]);
        Ok(())
    }

    #[test]
    fn a_path_takes_rounds_until_stable() -> Result<(), AlignError> {
        // 0 -> 1 -> 2 -> 3: ends first, then their neighbours
        let edges = [edge(0, 1, "n"), edge(1, 2, "n"), edge(2, 3, "n")];
        let rounds = refine(4, &edges, &[0; 4])?;
        assert_eq!(rounds.len(), 3);
        assert_eq!(rounds.last().map(|r| colour_count(r)), Some(4));
        Ok(())
    }

    #[test]
    fn loops_labels_and_seeds_count() -> Result<(), AlignError> {
        let mut labelled = edge(1, 1, "self");
        labelled.label = "\"x\"".into();
        let rounds = refine(3, &[edge(0, 0, "self"), labelled], &["a", "a", "b"])?;
        assert_eq!(rounds, vec![vec![0, 0, 1], vec![0, 1, 2]]);
        assert_eq!(refine::<u8>(0, &[], &[])?, vec![Vec::<usize>::new()]);
        Ok(())
    }

    #[test]
    fn bad_edges_and_seeds_are_errors() {
        assert_eq!(
            refine(2, &[edge(0, 2, "m")], &[0, 0]),
            Err(AlignError::Vertex { edge: 0, vertex: 2 })
        );
        assert!(refine(2, &[], &[0]).is_err());
    }
}
