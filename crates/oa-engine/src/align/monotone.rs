//! Order-sensitive matching: the best monotone matching with gaps (the sequence
//! alignment dynamic program of the paper's fixed-order lists).
//!
//! It maximizes (total similarity, number of matches) lexicographically over
//! matchings whose pairs increase in both indices; only positive cells may match.
//! The way back prefers a match, then skipping the gold element (a missing one),
//! then skipping the candidate's. The totals are float additions in one fixed
//! order, so the same matrix always gives the same bits.

use super::assignment::Pairs;
use super::error::{at, AlignError};
use super::matrix::Matrix;

/// The best (similarity, matches) of every pair of prefixes: `(n + 1) x (m + 1)` cells.
struct Tables {
    cells: Vec<(f64, usize)>,
    width: usize,
}

impl Tables {
    fn cell(&self, i: usize, j: usize) -> Result<(f64, usize), AlignError> {
        at(&self.cells, i * self.width + j, "table cell")
    }
}

/// The best monotone matching of `matrix`'s rows (gold) to its columns (candidate).
///
/// Returns pairs increasing in both indices; errors on a NaN or infinite cell.
///
/// ```
/// use oa_engine::align::{monotone_matching, Matrix};
/// let m = Matrix::new(3, 3, vec![0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.95]).unwrap();
/// assert_eq!(monotone_matching(&m).unwrap(), vec![(0, 1), (2, 2)]);
/// ```
pub fn monotone_matching(matrix: &Matrix<f64>) -> Result<Pairs, AlignError> {
    if matrix.rows() == 0 || matrix.cols() == 0 {
        return Ok(Vec::new());
    }
    matrix.check_finite()?;
    let tables = fill(matrix)?;
    backtrack(matrix, &tables)
}

/// A cell is the best of the cell above and the diagonal plus a match, then the
/// running lexicographic maximum from the left.
fn fill(matrix: &Matrix<f64>) -> Result<Tables, AlignError> {
    let width = matrix.cols() + 1;
    let mut cells = vec![(0.0, 0usize); (matrix.rows() + 1) * width];
    let mut lines = cells.chunks_exact_mut(width);
    let mut above = lines.next().ok_or(AlignError::Internal("table"))?;
    for (i, line) in lines.enumerate() {
        let sims = matrix.row(i)?;
        let mut run = (0.0, 0usize);
        // each cell from the two above it (diagonal, up) and the running maximum
        for ((&sim, pair), slot) in sims
            .iter()
            .zip(above.windows(2))
            .zip(line.iter_mut().skip(1))
        {
            let [(diag_t, diag_c), up] = *pair else {
                return Err(AlignError::Internal("window"));
            };
            let (mut best_t, mut best_c) = up;
            let (match_t, match_c) = (diag_t + sim, diag_c + 1);
            if sim > 0.0 && (match_t > best_t || (match_t == best_t && match_c > best_c)) {
                (best_t, best_c) = (match_t, match_c);
            }
            if best_t > run.0 || (best_t == run.0 && best_c > run.1) {
                run = (best_t, best_c);
            }
            *slot = run;
        }
        above = line;
    }
    Ok(Tables { cells, width })
}

fn backtrack(matrix: &Matrix<f64>, tables: &Tables) -> Result<Pairs, AlignError> {
    let mut pairs = Vec::new();
    let (mut i, mut j) = (matrix.rows(), matrix.cols());
    while i > 0 && j > 0 {
        let sim = matrix.get(i - 1, j - 1)?;
        let (here_t, here_c) = tables.cell(i, j)?;
        let (diag_t, diag_c) = tables.cell(i - 1, j - 1)?;
        let (up_t, up_c) = tables.cell(i - 1, j)?;
        if sim > 0.0 && here_t == diag_t + sim && here_c == diag_c + 1 {
            pairs.push((i - 1, j - 1));
            (i, j) = (i - 1, j - 1);
        } else if here_t == up_t && here_c == up_c {
            i -= 1;
        } else {
            j -= 1;
        }
    }
    pairs.reverse();
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(rows: usize, cols: usize, data: &[f64]) -> Result<Pairs, AlignError> {
        monotone_matching(&Matrix::new(rows, cols, data.to_vec())?)
    }

    #[test]
    fn order_is_kept() {
        assert_eq!(
            solve(3, 3, &[0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.95]),
            Ok(vec![(0, 1), (2, 2)])
        );
        assert_eq!(solve(2, 2, &[0.0, 1.0, 1.0, 0.0]), Ok(vec![(0, 1)]));
    }

    #[test]
    fn equal_totals_prefer_more_matches_then_the_last_match() {
        // 1.0 alone or 0.5 + 0.5: two matches
        assert_eq!(solve(2, 2, &[0.5, 1.0, 0.0, 0.5]), Ok(vec![(0, 0), (1, 1)]));
        // equal choices: the way back takes the match it meets first (the last cells)
        assert_eq!(solve(2, 1, &[1.0, 1.0]), Ok(vec![(1, 0)]));
        assert_eq!(solve(1, 2, &[1.0, 1.0]), Ok(vec![(0, 1)]));
    }

    #[test]
    fn zeros_empty_and_bad_cells() {
        assert_eq!(solve(2, 2, &[0.0; 4]), Ok(Vec::new()));
        assert_eq!(solve(0, 3, &[]), Ok(Vec::new()));
        assert!(solve(1, 1, &[f64::NAN]).is_err());
        assert!(solve(1, 1, &[f64::INFINITY]).is_err());
    }
}
