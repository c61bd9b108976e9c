//! Joint 1-dimensional Weisfeiler-Leman colour refinement on a disjoint union
//! (the paper's referential alignment; `oa_core/wl.py`).
//!
//! The gold and candidate reference graphs of one scope are refined together: one
//! intern table per round (the paper's "Relabel") maps sorted signatures to
//! integer colours, so equal colours are comparable across the sides. A vertex's
//! signature is (own colour, sorted multiset of (direction, relation, label,
//! neighbour colour)) over its incident edges; a self-loop is one "loop" entry.
//! Refinement stops when the number of colours stops growing; every round is kept.

use super::error::{at, at_mut, AlignError};

/// A directed edge `source -> target` (vertex indices). Relations and labels are
/// anything ordered: the texts themselves, or their ranks among the distinct texts
/// (the resolution's, which orders them as the texts without a text per edge).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge<R = String, L = String> {
    pub source: usize,
    pub target: usize,
    /// E.g. `"mentor->mentee"`; a hub edge carries the endpoint's role.
    pub relation: R,
    /// Canonical JSON of the carrier's exact scalars (`""` if none).
    pub label: L,
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

/// The distinct values of `keys`, in order: a value's rank among them is its index
/// (`binary_search`), as a `BTreeMap` of them would number them, for one sort of a
/// flat list instead of a tree's nodes.
///
/// ```
/// use oa_engine::align::sorted_distinct;
/// assert_eq!(sorted_distinct(vec!["b", "a", "b"]), vec!["a", "b"]);
/// ```
pub fn sorted_distinct<T: Ord>(mut keys: Vec<T>) -> Vec<T> {
    keys.sort_unstable();
    keys.dedup();
    keys
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
/// let edge = |source, target| WlEdge { source, target, relation: "mentor->mentee",
///                                      label: "" };
/// let rounds = refine(4, &[edge(0, 1), edge(3, 2)], &["record"; 4]).unwrap();
/// assert_eq!(rounds, vec![vec![0, 0, 0, 0], vec![1, 0, 0, 1]]);
/// ```
pub fn refine<S: Ord, R: Ord, L: Ord>(
    vertices: usize,
    edges: &[Edge<R, L>],
    initial: &[S],
) -> Result<Vec<Vec<usize>>, AlignError> {
    if initial.len() != vertices {
        return Err(AlignError::Length {
            what: "initial colours",
            expected: vertices,
            got: initial.len(),
        });
    }
    let (starts, ends) = incidence(vertices, edges)?;
    let mut colours = relabel(initial);
    let mut count = colour_count(&colours);
    let mut rounds = vec![colours.clone()];
    // every vertex's (kind, neighbour colour) ends, side by side: one buffer for all
    // rounds instead of a list per vertex per round
    let mut around = vec![(0, 0); ends.len()];
    for _ in 0..vertices {
        for (slot, &(kind, u)) in around.iter_mut().zip(&ends) {
            *slot = (kind, at(&colours, u, "neighbour colour")?);
        }
        let mut signatures = Vec::with_capacity(vertices);
        let mut rest = around.as_mut_slice();
        for (bounds, &own) in starts.windows(2).zip(&colours) {
            let length = match *bounds {
                [start, end] => end.saturating_sub(start).min(rest.len()),
                _ => 0,
            };
            let (own_ends, after) = std::mem::take(&mut rest).split_at_mut(length);
            own_ends.sort_unstable();
            signatures.push((own, &*own_ends));
            rest = after;
        }
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

/// Where each vertex's ends start, and every (kind, neighbour) end.
type Incidence = (Vec<usize>, Vec<(usize, usize)>);

/// Each vertex's incident edge ends as (rank of (direction, relation, label),
/// neighbour): the ranks sort as the triples do, so signatures compare the same
/// for a fraction of the work. Vertex `v`'s ends are `ends[starts[v]..starts[v + 1]]`
/// (`starts` has one more entry than there are vertices).
fn incidence<R: Ord, L: Ord>(
    vertices: usize,
    edges: &[Edge<R, L>],
) -> Result<Incidence, AlignError> {
    let mut found: Vec<(usize, (Direction, &R, &L), usize)> = Vec::with_capacity(2 * edges.len());
    for (index, edge) in edges.iter().enumerate() {
        for vertex in [edge.source, edge.target] {
            if vertex >= vertices {
                return Err(AlignError::Vertex {
                    edge: index,
                    vertex,
                });
            }
        }
        let (relation, label) = (&edge.relation, &edge.label);
        if edge.source == edge.target {
            found.push((edge.source, (Direction::Loop, relation, label), edge.source));
        } else {
            found.push((edge.source, (Direction::Out, relation, label), edge.target));
            found.push((edge.target, (Direction::In, relation, label), edge.source));
        }
    }
    let kinds = sorted_distinct(found.iter().map(|&(_, kind, _)| kind).collect());
    // counting sort by vertex: each vertex's ends in the order met
    let mut starts = vec![0; vertices + 1];
    for &(v, _, _) in &found {
        *at_mut(&mut starts, v + 1, "incident count")? += 1;
    }
    for v in 0..vertices {
        let before = at(&starts, v, "incident start")?;
        *at_mut(&mut starts, v + 1, "incident start")? += before;
    }
    let mut next = starts.clone();
    let mut ends = vec![(0, 0); found.len()];
    for (v, kind, u) in found {
        let k = kinds
            .binary_search(&kind)
            .map_err(|_| AlignError::Internal("edge kind"))?;
        let slot = at_mut(&mut next, v, "incident slot")?;
        *at_mut(&mut ends, *slot, "incident")? = (k, u);
        *slot += 1;
    }
    Ok((starts, ends))
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
        assert_eq!(
            refine::<u8, String, String>(0, &[], &[])?,
            vec![Vec::<usize>::new()]
        );
        Ok(())
    }

    #[test]
    fn bad_edges_and_seeds_are_errors() {
        assert_eq!(
            refine(2, &[edge(0, 2, "m")], &[0, 0]),
            Err(AlignError::Vertex { edge: 0, vertex: 2 })
        );
        assert!(refine::<u8, String, String>(2, &[], &[0]).is_err());
    }
}
