//! Order-agnostic matching of two collections: the maximum-weight assignment with
//! its tie rules (paper, section "Sequences").
//!
//! Only genuine matches are returned: a chosen pair of similarity 0 is dropped.
//! Among optimal matchings of equal total, the one with more genuine matches is
//! preferred (a bonus per genuine pair, checked with exact sums); the remaining
//! ties are the solver's (see [`super::lsa`]), so the result is a pure function
//! of the matrix.

use std::borrow::Cow;

use super::error::{at, check_len, AlignError};
use super::fsum::fsum;
use super::lsa::linear_sum_assignment;
use super::matrix::Matrix;

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
    let cells = matrix.rows() * matrix.cols() + 1;
    gap_over(&distinct_values(matrix), cells as f64)
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

/// The distinct values of `matrix`, sorted (`np.unique`: -0.0 and 0.0 are one value,
/// whose gaps to the others are equal).
pub(crate) fn distinct_values(matrix: &Matrix<f64>) -> Vec<f64> {
    let mut values = matrix.data().to_vec();
    // unstable: equal values are interchangeable, and a few distinct scores among
    // many cells sort in near-linear time
    values.sort_unstable_by(f64::total_cmp);
    values.dedup_by(|a, b| a == b);
    values
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
    let (n, m) = (matrix.rows(), matrix.cols());
    check_len("row colours", n, row_colours.len())?;
    check_len("column colours", m, col_colours.len())?;
    if n == 0 || m == 0 {
        return Ok(Vec::new());
    }
    let row_order = stable_order(row_colours);
    let col_order = stable_order(col_colours);
    let permuted = matrix.permuted(&row_order, &col_order)?;
    let scaled = match bonus {
        None => None,
        Some(extra) => {
            matrix.check_same_shape(extra, "bonus")?;
            Some(
                extra
                    .permuted(&row_order, &col_order)?
                    .map(|b| bonus_scale * b),
            )
        }
    };
    let mut pairs = max_weight_matching(&permuted, scaled.as_ref())?
        .into_iter()
        .map(|(i, j)| {
            Ok((
                at(&row_order, i, "row order")?,
                at(&col_order, j, "column order")?,
            ))
        })
        .collect::<Result<Pairs, AlignError>>()?;
    pairs.sort_unstable();
    Ok(pairs)
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
