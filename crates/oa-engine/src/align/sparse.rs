//! Exact assignment of long lists from their positive pairs only.
//!
//! A pair of similarity 0 is never matched, so the best pairing of two long lists
//! depends only on the pairs that score above 0. When those are few (references
//! that agree, equal values compared `exact`), the lists are paired from those
//! cells instead of an `n x m` matrix: memory and time grow with the cells.
//!
//! [`max_weight_matching_sparse`] finds the optimum of
//! [`max_weight_matching`](super::max_weight_matching) (the largest total, then the
//! most genuine pairs, by the same bonus rule), and among tied optima always the
//! same pairs: the complete blocks of one value are paired in order, the rest by
//! [LAPJVsp](super::lapjvsp) on the classic reduction that lets an element stay
//! unmatched. [`equal_pairs`] and [`union_pairs`] find the cells of equalities.

use super::assignment::{gap_over, Pairs, BONUS_TRIES};
use super::error::{at, at_mut, check_len, AlignError};
use super::fsum::fsum;
use super::lapjvsp::{filled, min_weight_perfect_matching, Edge, Graph};
use super::scale::power_of_two_scale;

/// The weight of "unmatched" in the reduction: the smallest positive float, which
/// vanishes next to any total of real pairs, so it never outweighs a genuine pair.
const DUMMY: f64 = 5e-324;

/// No cell (a dummy edge of the reduction).
const NO_CELL: usize = usize::MAX;

/// Every `(i, j)` with `gold_codes[i] == candidate_codes[j] >= 0`, sorted by `i` then
/// `j`, as parallel rows and columns. A negative code never matches. Errors only
/// where the pairs do not fit in memory.
///
/// ```
/// use oa_engine::align::equal_pairs;
/// assert_eq!(equal_pairs(&[7, 8, -1], &[8, 7, 7, -1]).unwrap(),
///            (vec![0, 0, 1], vec![1, 2, 0]));
/// ```
pub fn equal_pairs(
    gold_codes: &[i64],
    candidate_codes: &[i64],
) -> Result<(Vec<usize>, Vec<usize>), AlignError> {
    equal_pairs_within(gold_codes, candidate_codes, usize::MAX)
}

/// [`equal_pairs`], refused ([`AlignError::Memory`]) beyond `most` pairs: counted
/// before any is kept.
///
/// ```
/// use oa_engine::align::equal_pairs_within;
/// assert!(equal_pairs_within(&[1, 1], &[1, 1], 3).is_err());
/// assert_eq!(equal_pairs_within(&[1, 2], &[1, 1], 3).unwrap(), (vec![0, 0], vec![0, 1]));
/// ```
pub fn equal_pairs_within(
    gold_codes: &[i64],
    candidate_codes: &[i64],
    most: usize,
) -> Result<(Vec<usize>, Vec<usize>), AlignError> {
    let mut order: Vec<usize> = (0..candidate_codes.len()).collect();
    // stable: equal codes keep their columns ascending
    order.sort_by_key(|&j| candidate_codes.get(j).copied());
    let sorted: Vec<i64> = order
        .iter()
        .filter_map(|&j| candidate_codes.get(j).copied())
        .collect();
    let runs: Vec<(usize, usize)> = gold_codes
        .iter()
        .map(|&code| {
            if code < 0 {
                (0, 0)
            } else {
                (
                    sorted.partition_point(|&c| c < code),
                    sorted.partition_point(|&c| c <= code),
                )
            }
        })
        .collect();
    // counted first: equal codes can make n * m pairs, refused rather than aborting
    let count = runs
        .iter()
        .try_fold(0usize, |sum, (start, stop)| sum.checked_add(stop - start));
    let count = count
        .filter(|&count| count <= most)
        .ok_or(AlignError::Memory("the equal pairs"))?;
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    rows.try_reserve_exact(count)
        .and_then(|()| cols.try_reserve_exact(count))
        .map_err(|_| AlignError::Memory("the equal pairs"))?;
    for (i, &(start, stop)) in runs.iter().enumerate() {
        for &j in order.get(start..stop).unwrap_or_default() {
            rows.push(i);
            cols.push(j);
        }
    }
    Ok((rows, cols))
}

/// The union of several sets of cells of a `shape` matrix, sorted by row then
/// column, each cell once. Errors on rows and columns of unequal lengths or a cell
/// outside the matrix.
///
/// ```
/// use oa_engine::align::union_pairs;
/// let parts: [(&[usize], &[usize]); 2] = [(&[1, 0], &[0, 2]), (&[0], &[2])];
/// assert_eq!(union_pairs(&parts, (2, 3)).unwrap(), (vec![0, 1], vec![2, 0]));
/// ```
pub fn union_pairs(
    parts: &[(&[usize], &[usize])],
    shape: (usize, usize),
) -> Result<(Vec<usize>, Vec<usize>), AlignError> {
    let mut cells = Vec::new();
    for (rows, cols) in parts {
        check_len("columns of a part", rows.len(), cols.len())?;
        for (&i, &j) in rows.iter().zip(cols.iter()) {
            check_cell(i, j, shape)?;
            cells.push((i, j));
        }
    }
    cells.sort_unstable();
    cells.dedup();
    Ok(cells.into_iter().unzip())
}

/// [`tie_epsilon`](super::tie_epsilon) of the `shape` matrix that holds `values` at
/// some cells and 0 at the others: the smallest gap between its distinct entries
/// over `rows * cols + 1`.
///
/// ```
/// use oa_engine::align::sparse_tie_epsilon;
/// assert_eq!(sparse_tie_epsilon(&[0.5, 1.0], (1, 3)), 0.5 / 4.0);
/// ```
pub fn sparse_tie_epsilon(values: &[f64], shape: (usize, usize)) -> f64 {
    let cells = shape.0 as u128 * shape.1 as u128;
    let mut distinct = values.to_vec();
    if (values.len() as u128) < cells {
        distinct.push(0.0); // some cell holds 0
    }
    distinct.sort_by(f64::total_cmp);
    distinct.dedup_by(|a, b| a == b);
    gap_over(&distinct, (cells + 1) as f64)
}

/// The best pairing of a `shape` matrix given by its cells (0 elsewhere): pairs
/// sorted by row, of the largest total of `values`, and among those of the most
/// pairs, those SciPy's `min_weight_full_bipartite_matching` picks on the same
/// reduction (see `lapjvsp`).
///
/// Cells of value 0 or less are dropped (never matched). Errors on lengths that
/// differ, a cell outside the matrix or given twice, or a value that is NaN or
/// infinite.
///
/// ```
/// use oa_engine::align::max_weight_matching_sparse;
/// let pairs = max_weight_matching_sparse(&[0, 0, 1], &[1, 2, 0], &[1.0, 0.5, 1.0], (3, 4));
/// assert_eq!(pairs.unwrap(), vec![(0, 1), (1, 0)]);
/// ```
pub fn max_weight_matching_sparse(
    rows: &[usize],
    cols: &[usize],
    values: &[f64],
    shape: (usize, usize),
) -> Result<Pairs, AlignError> {
    check_len("columns", rows.len(), cols.len())?;
    check_len("values", rows.len(), values.len())?;
    check_cells(rows, cols, values, shape)?;
    let kept: Vec<usize> = (0..values.len())
        .filter(|&k| values.get(k).is_some_and(|v| *v > 0.0))
        .collect();
    let (n, m) = shape;
    if n == 0 || m == 0 || kept.is_empty() {
        return Ok(Vec::new());
    }
    let rows = gather(rows, &kept)?;
    let cols = gather(cols, &kept)?;
    // the largest in [1, 2): the dummy weight then vanishes next to every similarity
    // but subnormal ones (the values are finite, checked above)
    let values = power_of_two_scale(&gather(values, &kept)?).ok_or(AlignError::Overflow)?;
    let eps = sparse_tie_epsilon(&values, shape);
    let (mut pairs, rest) = uniform_blocks(&rows, &cols, &values, shape)?;
    let rows = gather(&rows, &rest)?;
    let cols = gather(&cols, &rest)?;
    let values = gather(&values, &rest)?;
    if !values.is_empty() {
        pairs.extend(most_pairs_of_the_largest_total(
            &rows, &cols, &values, eps, shape,
        )?);
    }
    pairs.sort_unstable();
    Ok(pairs)
}

fn check_cell(i: usize, j: usize, shape: (usize, usize)) -> Result<(), AlignError> {
    if i < shape.0 && j < shape.1 {
        Ok(())
    } else {
        Err(AlignError::Cell {
            row: i,
            col: j,
            shape,
            repeated: false,
        })
    }
}

/// Every cell inside the matrix, none twice, every value finite.
fn check_cells(
    rows: &[usize],
    cols: &[usize],
    values: &[f64],
    shape: (usize, usize),
) -> Result<(), AlignError> {
    let mut cells = Vec::with_capacity(rows.len());
    for ((&i, &j), value) in rows.iter().zip(cols).zip(values) {
        check_cell(i, j, shape)?;
        if !value.is_finite() {
            return Err(AlignError::NotFinite { row: i, col: j });
        }
        cells.push((i, j));
    }
    cells.sort_unstable();
    match cells.windows(2).find(|w| w.first() == w.get(1)) {
        Some([(row, col), _]) => Err(AlignError::Cell {
            row: *row,
            col: *col,
            shape,
            repeated: true,
        }),
        _ => Ok(()),
    }
}

fn gather<T: Copy>(values: &[T], at_: &[usize]) -> Result<Vec<T>, AlignError> {
    at_.iter().map(|&k| at(values, k, "cell")).collect()
}

/// The pairs of the independent blocks that are complete and of one value (equal
/// items compared by equality: every full pairing of such a block is optimal, so
/// its rows and columns are paired in order), and the indices of the other cells.
fn uniform_blocks(
    rows: &[usize],
    cols: &[usize],
    values: &[f64],
    (n, m): (usize, usize),
) -> Result<(Pairs, Vec<usize>), AlignError> {
    let vertices = n
        .checked_add(m)
        .ok_or(AlignError::Memory("the reduction"))?;
    let mut parent = filled(vertices, 0)?;
    for (k, slot) in parent.iter_mut().enumerate() {
        *slot = k;
    }
    for (&i, &j) in rows.iter().zip(cols) {
        let (a, b) = (root(&mut parent, i)?, root(&mut parent, n + j)?);
        if a != b {
            *at_mut(&mut parent, a.max(b), "parent")? = a.min(b);
        }
    }
    let mut members = Vec::with_capacity(rows.len());
    for (k, &i) in rows.iter().enumerate() {
        members.push((root(&mut parent, i)?, k));
    }
    members.sort_unstable();
    let mut pairs = Vec::new();
    let mut rest = Vec::new();
    for block in members.chunk_by(|a, b| a.0 == b.0) {
        let cells: Vec<usize> = block.iter().map(|&(_, k)| k).collect();
        let mut block_rows = gather(rows, &cells)?;
        let mut block_cols = gather(cols, &cells)?;
        block_rows.sort_unstable();
        block_rows.dedup();
        block_cols.sort_unstable();
        block_cols.dedup();
        let block_values = gather(values, &cells)?;
        let first = block_values.first().copied();
        let complete = cells.len() as u128 == block_rows.len() as u128 * block_cols.len() as u128;
        if complete && block_values.iter().all(|v| Some(*v) == first) {
            pairs.extend(block_rows.into_iter().zip(block_cols));
        } else {
            rest.extend(cells);
        }
    }
    rest.sort_unstable();
    Ok((pairs, rest))
}

/// The representative of `k`'s set (paths halved on the way).
fn root(parent: &mut [usize], mut k: usize) -> Result<usize, AlignError> {
    loop {
        let up = at(parent, k, "parent")?;
        if up == k {
            return Ok(k);
        }
        let grand = at(parent, up, "parent")?;
        *at_mut(parent, k, "parent")? = grand;
        k = grand;
    }
}

/// [`max_weight_matching`](super::max_weight_matching)'s rule on the cells: a
/// matching of the largest total; when it leaves elements unmatched that cells could
/// take, `value + eps` per pair prefers more pairs, kept only if its exact total is
/// as large, `eps` shrunk below what it gave up otherwise.
fn most_pairs_of_the_largest_total(
    rows: &[usize],
    cols: &[usize],
    values: &[f64],
    mut eps: f64,
    shape: (usize, usize),
) -> Result<Pairs, AlignError> {
    let total = |chosen: &[usize]| fsum(&gather(values, chosen)?);
    let pairs = |chosen: Vec<usize>| -> Result<Pairs, AlignError> {
        chosen
            .into_iter()
            .map(|k| Ok((at(rows, k, "row")?, at(cols, k, "column")?)))
            .collect()
    };
    let best = full_matching(rows, cols, values, shape)?;
    let fewer = shape.0.min(shape.1);
    if best.len() == fewer || best.len() == values.len() {
        return pairs(best);
    }
    let largest = total(&best)?;
    for _ in 0..BONUS_TRIES {
        let favoured: Vec<f64> = values.iter().map(|v| v + eps).collect();
        let more = full_matching(rows, cols, &favoured, shape)?;
        let lost = largest - total(&more)?;
        if lost <= 0.0 {
            return pairs(more);
        }
        eps = lost / ((fewer + 1) as f64);
    }
    pairs(best)
}

/// The cells of a maximum-`objective` matching where every pair is optional, by
/// row: gold row `i` may take its dummy column `d_i`, candidate column `j` its dummy
/// row `e_j`, and `(e_j, d_i)` pairs the two dummies of every cell `(i, j)`, so the
/// reduction is square (`n + m`) and always has a perfect matching.
fn full_matching(
    rows: &[usize],
    cols: &[usize],
    objective: &[f64],
    shape: (usize, usize),
) -> Result<Vec<usize>, AlignError> {
    let (n, m) = shape;
    let mut edges: Vec<Edge> = Vec::new();
    let size = rows
        .len()
        .checked_mul(2)
        .and_then(|cells| cells.checked_add(n)?.checked_add(m));
    edges
        .try_reserve_exact(size.ok_or(AlignError::Memory("the reduction"))?)
        .map_err(|_| AlignError::Memory("the reduction"))?;
    for (k, ((&i, &j), &w)) in rows.iter().zip(cols).zip(objective).enumerate() {
        edges.push((i, j, -w, k));
        edges.push((n + j, m + i, -DUMMY, NO_CELL));
    }
    edges.extend((0..n).map(|i| (i, m + i, -DUMMY, NO_CELL)));
    edges.extend((0..m).map(|j| (n + j, j, -DUMMY, NO_CELL)));
    let vertices = n
        .checked_add(m)
        .ok_or(AlignError::Memory("the reduction"))?;
    let graph = Graph::new(vertices, edges)?;
    let matched = min_weight_perfect_matching(&graph)?;
    let mut cells = Vec::new();
    for (i, &j) in matched.iter().enumerate().take(n) {
        if j < m {
            cells.push(graph.label(i, j)?);
        }
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_pairs_among_equal_totals_and_none_at_a_cost() {
        // 1.0 alone, or 0.5 + 0.5: two genuine pairs preferred
        let pairs = max_weight_matching_sparse(&[0, 0, 1], &[0, 1, 1], &[0.5, 1.0, 0.5], (2, 2));
        assert_eq!(pairs, Ok(vec![(0, 0), (1, 1)]));
        // [[0.25, 0], [1, 0.7]]: the bonus would cost total, so it is refused
        let pairs = max_weight_matching_sparse(&[0, 1, 1], &[0, 0, 1], &[0.25, 1.0, 0.7], (2, 2));
        assert_eq!(pairs, Ok(vec![(1, 0)]));
    }

    #[test]
    fn uniform_blocks_pair_in_order() {
        let pairs = max_weight_matching_sparse(&[0, 0, 1, 1], &[2, 3, 2, 3], &[1.0; 4], (2, 4));
        assert_eq!(pairs, Ok(vec![(0, 2), (1, 3)]));
    }

    #[test]
    fn bad_cells_are_errors() {
        let outside = max_weight_matching_sparse(&[2], &[0], &[1.0], (2, 2));
        assert!(matches!(
            outside,
            Err(AlignError::Cell {
                repeated: false,
                ..
            })
        ));
        let twice = max_weight_matching_sparse(&[0, 0], &[1, 1], &[1.0, 0.5], (2, 2));
        assert!(matches!(
            twice,
            Err(AlignError::Cell { repeated: true, .. })
        ));
        let nan = max_weight_matching_sparse(&[0], &[0], &[f64::NAN], (1, 1));
        assert_eq!(nan, Err(AlignError::NotFinite { row: 0, col: 0 }));
        assert!(max_weight_matching_sparse(&[0], &[], &[1.0], (1, 1)).is_err());
        assert!(union_pairs(&[(&[0], &[3])], (1, 3)).is_err());
        let huge = max_weight_matching_sparse(&[0], &[0], &[1.0], (usize::MAX / 2, 2));
        assert!(matches!(huge, Err(AlignError::Memory(_))));
    }

    #[test]
    fn tie_epsilon_counts_the_zero_cells() {
        assert_eq!(sparse_tie_epsilon(&[1.0, 1.0], (1, 2)), 1.0 / 3.0);
        assert_eq!(sparse_tie_epsilon(&[], (0, 0)), 1.0);
    }
}
