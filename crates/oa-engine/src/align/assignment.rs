//! Order-agnostic matching of two collections: the maximum-weight assignment with
//! its tie rules (paper, section "Sequences").
//!
//! Only genuine matches are returned: a chosen pair of similarity 0 is dropped.
//! Among optimal matchings of equal total, the one with more genuine matches is
//! preferred (a bonus per genuine pair, checked with exact sums); the remaining
//! ties are the solver's (see [`super::lsa`]), so the result is a pure function
//! of the matrix.

use std::borrow::Cow;

use super::coded::{coded_cost, CODED_FROM_CELLS};
use super::distinct::Distinct;
use super::error::{at, check_len, AlignError};
use super::fsum::fsum;
use super::lsa::{linear_sum_assignment, solve_cost, solve_finite};
use super::matrix::Matrix;
use super::pages::advise_huge_pages;

/// Bonuses tried for more genuine pairs before the first optimum is kept: each try
/// shrinks the bonus below the total the last one gave up, which rules that matching out.
pub const BONUS_TRIES: usize = 4;

/// Pairs `(gold index, candidate index)`.
pub type Pairs = Vec<(usize, usize)>;

/// A bonus small enough to break only exact ties of `matrix`'s entries: the smallest
/// positive gap between its distinct values over `rows * cols + 1` (`1 / (rows * cols + 1)`
/// when all values are equal), so that bonuses summed over any matching stay below one gap.
///
/// ```
/// use oa_engine::align::{tie_epsilon, Matrix};
/// let m = Matrix::new(2, 2, vec![0.0, 0.5, 0.5, 1.0]).unwrap();
/// assert_eq!(tie_epsilon(&m), 0.1);
/// ```
pub fn tie_epsilon(matrix: &Matrix<f64>) -> f64 {
    epsilon_of(&Distinct::of(matrix.data()), matrix)
}

/// [`tie_epsilon`] of `matrix`, whose distinct values are `distinct`.
pub(crate) fn epsilon_of(distinct: &Distinct, matrix: &Matrix<f64>) -> f64 {
    let cells = matrix.rows() * matrix.cols() + 1;
    gap_over(distinct.values(), cells as f64)
}

/// The smallest gap between sorted distinct values (1 when there is none) over
/// `cells + 1` (the count as Python's int, rounded once to a float): the epsilon of
/// [`tie_epsilon`] and of the sparse solver's.
pub(super) fn gap_over(distinct: &[f64], cells_and_one: f64) -> f64 {
    let gap = distinct
        .windows(2)
        .filter_map(|w| match w {
            [a, b] => Some(b - a),
            _ => None,
        })
        .reduce(f64::min)
        .unwrap_or(1.0);
    gap / cells_and_one
}

/// The maximum-weight assignment of `matrix` (plus `bonus`, for the solver only), its
/// zero pairs dropped, preferring more genuine pairs among equal totals.
///
/// Returns pairs sorted by row; errors on a non-finite cell (of `matrix` or of the
/// sum), a `bonus` of another shape, or an exact sum that overflows.
///
/// ```
/// use oa_engine::align::{max_weight_matching, Matrix};
/// let m = Matrix::new(2, 2, vec![0.2, 0.9, 0.8, 0.1]).unwrap();
/// assert_eq!(max_weight_matching(&m, None).unwrap(), vec![(0, 1), (1, 0)]);
/// ```
pub fn max_weight_matching(
    matrix: &Matrix<f64>,
    bonus: Option<&Matrix<f64>>,
) -> Result<Pairs, AlignError> {
    let (n, m) = (matrix.rows(), matrix.cols());
    if n == 0 || m == 0 {
        return Ok(Vec::new());
    }
    matrix.check_finite()?;
    let objective = match bonus {
        None => Cow::Borrowed(matrix),
        Some(extra) => {
            matrix.check_same_shape(extra, "bonus")?;
            let sums = matrix.data().iter().zip(extra.data()).map(|(a, b)| a + b);
            Cow::Owned(Matrix::new(n, m, sums.collect())?)
        }
    };
    objective.check_finite()?;
    let first = linear_sum_assignment(&objective, true)?;
    let mut pairs = genuine(matrix, &first)?;
    let nonzero = matrix.data().iter().filter(|v| **v != 0.0).count();
    if pairs.len() < n.min(m) && nonzero > pairs.len() {
        // A zero pair was chosen: a bonus per genuine pair prefers more of them. A
        // bonus below every gap between entries can still exceed a gap between totals
        // ([[0.25, 0], [1, 0.7]]: 1.0 + eps vs 0.95 + 2 eps), so the total is checked
        // exactly and the bonus shrunk below what it cost.
        let best = total(&objective, &first)?;
        let mut eps = tie_epsilon(&objective);
        for _ in 0..BONUS_TRIES {
            let favoured = objective.data().iter().zip(matrix.data()).map(|(o, v)| {
                let positive = if *v > 0.0 { 1.0 } else { 0.0 };
                o + eps * positive
            });
            let favoured = Matrix::new(n, m, favoured.collect())?;
            let more = linear_sum_assignment(&favoured, true)?;
            let lost = best - total(&objective, &more)?;
            if lost <= 0.0 {
                pairs = genuine(matrix, &more)?;
                break;
            }
            eps = lost / ((n.min(m) + 1) as f64);
        }
    }
    pairs.sort_unstable();
    Ok(pairs)
}

/// [`max_weight_matching`] of `matrix` (plus `bonus_scale * bonus`) with rows and
/// columns sorted (stably) by colour, mapped back to the original indices: whatever
/// order the records came in, the solver sees the same matrix.
///
/// ```
/// use oa_engine::align::{canonical_matching, Matrix};
/// let m = Matrix::new(2, 2, vec![1.0, 1.0, 1.0, 1.0]).unwrap();
/// assert_eq!(canonical_matching(&m, None, 1.0, &[1, 0], &[0, 1]).unwrap(),
///            vec![(0, 1), (1, 0)]);
/// ```
pub fn canonical_matching(
    matrix: &Matrix<f64>,
    bonus: Option<&Matrix<f64>>,
    bonus_scale: f64,
    row_colours: &[i64],
    col_colours: &[i64],
) -> Result<Pairs, AlignError> {
    let Some(extra) = bonus else {
        return canonical_matching_by(
            matrix,
            None::<fn(usize, usize) -> _>,
            row_colours,
            col_colours,
        );
    };
    matrix.check_same_shape(extra, "bonus")?;
    let width = extra.cols();
    let scaled = |i: usize, j: usize| {
        let cell = i.checked_mul(width).and_then(|k| k.checked_add(j));
        Ok(bonus_scale
            * at(
                extra.data(),
                cell.ok_or(AlignError::Internal("bonus"))?,
                "bonus",
            )?)
    };
    canonical_matching_by(matrix, Some(scaled), row_colours, col_colours)
}

/// [`canonical_matching`] with the (scaled) bonus of cell `(i, j)` of `matrix` read
/// from `bonus(i, j)`, so that no bonus matrix need exist.
///
/// The solver's cost (the permuted, signed objective, transposed when there are more
/// rows than columns) is built in one buffer, the only copy of the matrix made; a
/// matrix that needs more than that (a non-finite cell, or a zero pair chosen, whose
/// bonus for genuine pairs needs the objective again) is solved by
/// [`max_weight_matching`] of the permuted matrices, which gives the same first
/// assignment.
pub(crate) fn canonical_matching_by<B>(
    matrix: &Matrix<f64>,
    bonus: Option<B>,
    row_colours: &[i64],
    col_colours: &[i64],
) -> Result<Pairs, AlignError>
where
    B: Fn(usize, usize) -> Result<f64, AlignError>,
{
    let first = |row_order: &[usize], col_order: &[usize]| {
        first_of_whole(matrix, bonus.as_ref(), (row_order, col_order))
    };
    canonical_by(matrix, bonus.as_ref(), (row_colours, col_colours), first)
}

/// [`canonical_matching_by`] with the bonus `eps * same(i, j)` (`same`: 0.0 or 1.0)
/// of `matrix`, whose distinct values are `distinct`: a big matrix's cost is made of
/// codes ([`coded_cost`]), the same costs in a quarter of the memory, where it can be.
pub(crate) fn canonical_matching_coded<S>(
    matrix: &Matrix<f64>,
    distinct: &Distinct,
    eps: f64,
    same: S,
    row_colours: &[i64],
    col_colours: &[i64],
) -> Result<Pairs, AlignError>
where
    S: Fn(usize, usize) -> Result<f64, AlignError>,
{
    let bonus = |i: usize, j: usize| Ok(eps * same(i, j)?);
    let first = |row_order: &[usize], col_order: &[usize]| {
        let orders = (row_order, col_order);
        if matrix.rows() * matrix.cols() >= CODED_FROM_CELLS {
            if let Some(cost) = coded_cost(matrix, distinct, eps, &same, orders)? {
                return solve_cost(&cost, matrix.rows() > matrix.cols()).map(Some);
            }
        }
        first_of_whole(matrix, Some(&bonus), orders)
    };
    canonical_by(matrix, Some(&bonus), (row_colours, col_colours), first)
}

/// The solver's first assignment of the permuted objective from its cost built
/// whole ([`oriented_cost`]), as pairs of ranks; `None` when a cell is not finite.
fn first_of_whole<B>(
    matrix: &Matrix<f64>,
    bonus: Option<&B>,
    (row_order, col_order): (&[usize], &[usize]),
) -> Result<Option<Pairs>, AlignError>
where
    B: Fn(usize, usize) -> Result<f64, AlignError>,
{
    let Some(cost) = oriented_cost(matrix, bonus, row_order, col_order)? else {
        return Ok(None);
    };
    // oriented_cost gives a cost only when every cell is finite
    solve_finite(&cost, matrix.rows() > matrix.cols()).map(Some)
}

/// [`canonical_matching_by`] with the first assignment found by `first` (from the
/// rows' and columns' canonical orders, as pairs of ranks, `None` where it found
/// none); a first assignment that is not the whole answer (a zero pair chosen) is
/// solved again by [`max_weight_matching`] of the permuted matrices.
fn canonical_by<B, F>(
    matrix: &Matrix<f64>,
    bonus: Option<&B>,
    (row_colours, col_colours): (&[i64], &[i64]),
    first: F,
) -> Result<Pairs, AlignError>
where
    B: Fn(usize, usize) -> Result<f64, AlignError>,
    F: FnOnce(&[usize], &[usize]) -> Result<Option<Pairs>, AlignError>,
{
    let (n, m) = (matrix.rows(), matrix.cols());
    check_len("row colours", n, row_colours.len())?;
    check_len("column colours", m, col_colours.len())?;
    if n == 0 || m == 0 {
        return Ok(Vec::new());
    }
    let row_order = stable_order(row_colours);
    let col_order = stable_order(col_colours);
    let back = |pairs: Pairs| -> Result<Pairs, AlignError> {
        let mut pairs = pairs
            .into_iter()
            .map(|(a, b)| {
                Ok((
                    at(&row_order, a, "row order")?,
                    at(&col_order, b, "column order")?,
                ))
            })
            .collect::<Result<Pairs, AlignError>>()?;
        pairs.sort_unstable();
        Ok(pairs)
    };
    if let Some(first) = first(&row_order, &col_order)? {
        let mut pairs = Vec::with_capacity(first.len());
        for &(a, b) in &first {
            let (i, j) = (
                at(&row_order, a, "row order")?,
                at(&col_order, b, "column order")?,
            );
            if matrix.get(i, j)? > 0.0 {
                pairs.push((a, b));
            }
        }
        // the nonzero cells are counted (a pass over the matrix) only when a zero
        // pair was chosen
        if pairs.len() >= n.min(m)
            || matrix.data().iter().filter(|v| **v != 0.0).count() <= pairs.len()
        {
            return back(pairs);
        }
    }
    let permuted = matrix.permuted(&row_order, &col_order)?;
    let scaled = match bonus {
        None => None,
        Some(bonus) => {
            let mut cells = Vec::with_capacity(n * m);
            for &i in &row_order {
                for &j in &col_order {
                    cells.push(bonus(i, j)?);
                }
            }
            Some(Matrix::new(n, m, cells)?)
        }
    };
    back(max_weight_matching(&permuted, scaled.as_ref())?)
}

/// Rows of the matrix gathered (permuted, signed) before a transposed cost takes
/// them: a band's cells of one column are one cache line of the cost (8 floats), and
/// the band (8 lines of the matrix) stays in the cache while every column is written.
const BAND: usize = 16;

/// The cost [`max_weight_matching`]'s solver minimizes for the permuted matrix plus
/// the bonus: `-(c + bonus)` (`-c` without a bonus), transposed when there are more
/// rows than columns; `None` when a cell or a sum is not finite.
fn oriented_cost<B>(
    matrix: &Matrix<f64>,
    bonus: Option<&B>,
    row_order: &[usize],
    col_order: &[usize],
) -> Result<Option<Matrix<f64>>, AlignError>
where
    B: Fn(usize, usize) -> Result<f64, AlignError>,
{
    let (n, m) = (row_order.len(), col_order.len());
    let cells = n.checked_mul(m).ok_or(AlignError::Internal("cost shape"))?;
    let mut data = Vec::new();
    data.try_reserve_exact(cells)
        .map_err(|_| AlignError::Memory("the assignment's cost matrix"))?;
    advise_huge_pages(&mut data);
    let transpose = n > m;
    let mut finite = true;
    // Row i of the permuted objective, negated, appended to `out`. The row is
    // copied first: read in order it streams in, where the permuted reads would
    // wait for its cache lines one by one.
    let mut line = Vec::with_capacity(matrix.cols());
    let mut signed_line = |i: usize, out: &mut Vec<f64>| -> Result<(), AlignError> {
        line.clear();
        line.extend_from_slice(matrix.row(i)?);
        for &j in col_order {
            let c = at(&line, j, "permuted column")?;
            let objective = match bonus {
                None => c,
                Some(bonus) => c + bonus(i, j)?,
            };
            finite &= c.is_finite() && objective.is_finite();
            out.push(-objective);
        }
        Ok(())
    };
    if transpose {
        data.resize(cells, 0.0);
        let mut band = Vec::with_capacity(BAND * m);
        for (a0, rows) in (0..n).step_by(BAND).zip(row_order.chunks(BAND)) {
            band.clear();
            for &i in rows {
                signed_line(i, &mut band)?;
            }
            for (b, line) in data.chunks_exact_mut(n.max(1)).enumerate() {
                let cells = line
                    .get_mut(a0..a0 + rows.len())
                    .ok_or(AlignError::Internal("cost cell"))?;
                for (r, cell) in cells.iter_mut().enumerate() {
                    *cell = at(&band, r * m + b, "cost band")?;
                }
            }
        }
    } else {
        for &i in row_order {
            signed_line(i, &mut data)?;
        }
    }
    if !finite {
        return Ok(None);
    }
    let (rows, cols) = if transpose { (m, n) } else { (n, m) };
    Ok(Some(Matrix::new(rows, cols, data)?))
}

/// The indices of `keys` sorted by key, equal keys in index order (`argsort(kind="stable")`).
pub(crate) fn stable_order(keys: &[i64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&k| keys.get(k).copied());
    order
}

/// The pairs whose similarity in `matrix` is positive.
fn genuine(matrix: &Matrix<f64>, pairs: &[(usize, usize)]) -> Result<Pairs, AlignError> {
    let mut kept = Vec::with_capacity(pairs.len());
    for &(i, j) in pairs {
        if matrix.get(i, j)? > 0.0 {
            kept.push((i, j));
        }
    }
    Ok(kept)
}

/// The exact total of `matrix` over `pairs` (`math.fsum`).
fn total(matrix: &Matrix<f64>, pairs: &[(usize, usize)]) -> Result<f64, AlignError> {
    let cells = pairs
        .iter()
        .map(|&(i, j)| matrix.get(i, j))
        .collect::<Result<Vec<f64>, AlignError>>()?;
    fsum(&cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: usize, cols: usize, data: &[f64]) -> Matrix<f64> {
        Matrix::new(rows, cols, data.to_vec()).expect("shape")
    }

    #[test]
    fn zero_pairs_are_dropped() {
        let m = matrix(2, 2, &[1.0, 0.0, 0.0, 0.0]);
        assert_eq!(max_weight_matching(&m, None), Ok(vec![(0, 0)]));
    }

    #[test]
    fn more_genuine_pairs_win_among_equal_totals() {
        // 1.0 alone, or 0.5 + 0.5: the same total, two genuine pairs preferred
        let m = matrix(2, 2, &[0.5, 1.0, 0.0, 0.5]);
        assert_eq!(max_weight_matching(&m, None), Ok(vec![(0, 0), (1, 1)]));
        // a bonus that would cost total similarity is shrunk, never taken
        let m = matrix(2, 2, &[0.25, 0.0, 1.0, 0.7]);
        assert_eq!(max_weight_matching(&m, None), Ok(vec![(1, 0)]));
    }

    #[test]
    fn tie_epsilon_of_constant_and_mixed() {
        assert_eq!(tie_epsilon(&matrix(1, 2, &[0.5, 0.5])), 1.0 / 3.0);
        assert_eq!(tie_epsilon(&matrix(1, 3, &[-0.0, 0.0, 1.0])), 0.25);
    }

    #[test]
    fn bonus_and_colours_are_checked() {
        let m = matrix(2, 2, &[1.0; 4]);
        let wrong = matrix(1, 2, &[0.0; 2]);
        assert!(max_weight_matching(&m, Some(&wrong)).is_err());
        assert!(canonical_matching(&m, None, 1.0, &[0], &[0, 1]).is_err());
        let nan = matrix(1, 1, &[f64::NAN]);
        assert!(max_weight_matching(&nan, None).is_err());
    }

    #[test]
    fn canonical_order_decides_ties() {
        let m = matrix(2, 2, &[1.0; 4]);
        assert_eq!(
            canonical_matching(&m, None, 1.0, &[1, 0], &[0, 1]),
            Ok(vec![(0, 1), (1, 0)])
        );
        let bonus = matrix(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        assert_eq!(
            canonical_matching(&m, Some(&bonus), 0.1, &[0, 0], &[0, 0]),
            Ok(vec![(0, 1), (1, 0)])
        );
    }
}
