//! Colour refinement of a complete bipartite graph with labelled cells: the
//! canonical order of a scope's rows and columns, so that permuting a list permutes
//! the pairing with it.
//!
//! A row's colour becomes (its colour, the sorted multiset of `label * (m + 1) +
//! column colour`), a column's likewise, until the number of colours stops growing.
//! Colours depend only on the labels and seeds, never on positions. The products
//! wrap as numpy's int64 products do, so huge labels give numpy's colours.

use super::error::{at, check_len, AlignError};
use super::matrix::Matrix;
use super::wl::{colour_count, relabel};

/// The labels of a complete bipartite graph's cells, read a line at a time (only
/// lines sharing a colour are read: most are told apart by their seeds).
pub trait CellLabels {
    /// The (rows, columns).
    fn shape(&self) -> (usize, usize);
    /// The labels of row `i` into `out` (one per column).
    fn row(&self, i: usize, out: &mut [i64]) -> Result<(), AlignError>;
    /// The labels of column `j` into `out` (one per row).
    fn column(&self, j: usize, out: &mut [i64]) -> Result<(), AlignError>;
}

impl CellLabels for Matrix<i64> {
    fn shape(&self) -> (usize, usize) {
        (self.rows(), self.cols())
    }

    fn row(&self, i: usize, out: &mut [i64]) -> Result<(), AlignError> {
        let line = Matrix::row(self, i)?;
        check_len("label row", line.len(), out.len())?;
        out.copy_from_slice(line);
        Ok(())
    }

    fn column(&self, j: usize, out: &mut [i64]) -> Result<(), AlignError> {
        check_len("label column", self.rows(), out.len())?;
        for (i, cell) in out.iter_mut().enumerate() {
            *cell = self.get(i, j)?;
        }
        Ok(())
    }
}

/// The row and column colours of `cells` refined from `row_seed` and `col_seed`.
///
/// ```
/// use oa_engine::align::{bipartite_colours, Matrix};
/// let cells = Matrix::new(2, 2, vec![1, 0, 0, 0]).unwrap();
/// assert_eq!(bipartite_colours(&cells, &[0, 0], &[0, 0]).unwrap(),
///            (vec![1, 0], vec![1, 0]));
/// ```
pub fn bipartite_colours(
    cells: &dyn CellLabels,
    row_seed: &[i64],
    col_seed: &[i64],
) -> Result<(Vec<usize>, Vec<usize>), AlignError> {
    let (n, m) = cells.shape();
    check_len("row seeds", n, row_seed.len())?;
    check_len("column seeds", m, col_seed.len())?;
    let mut rows = relabel(row_seed);
    let mut cols = relabel(col_seed);
    if n == 0 || m == 0 {
        return Ok((rows, cols));
    }
    let mut counts = (colour_count(&rows), colour_count(&cols));
    for _ in 0..n + m {
        let new_rows = refined(cells, true, &cols, &rows)?;
        let new_cols = refined(cells, false, &rows, &cols)?;
        let new_counts = (colour_count(&new_rows), colour_count(&new_cols));
        (rows, cols) = (new_rows, new_cols);
        if new_counts == counts {
            break;
        }
        counts = new_counts;
    }
    Ok((rows, cols))
}

/// One step for the rows (`by_rows`) or the columns of `cells`: the rank of (own
/// colour, sorted `cell * (other lines + 1) + other colour`). A line alone in its
/// colour is told apart by the colour, so only lines that share one build a
/// signature.
fn refined(
    cells: &dyn CellLabels,
    by_rows: bool,
    other: &[usize],
    own: &[usize],
) -> Result<Vec<usize>, AlignError> {
    let mut members = vec![0usize; colour_count(own)];
    for &colour in own {
        if let Some(count) = members.get_mut(colour) {
            *count += 1;
        }
    }
    let others = other.len();
    let base = i64::try_from(others + 1).map_err(|_| AlignError::Internal("base"))?;
    let mut line = vec![0i64; others];
    let mut keys: Vec<(usize, Vec<i64>)> = Vec::with_capacity(own.len());
    for (k, &colour) in own.iter().enumerate() {
        let signature = if at(&members, colour, "colour size")? > 1 {
            if by_rows {
                cells.row(k, &mut line)?;
            } else {
                cells.column(k, &mut line)?;
            }
            let mut signature = line
                .iter()
                .zip(other)
                .map(|(&cell, &o)| {
                    let o = i64::try_from(o).map_err(|_| AlignError::Internal("colour"))?;
                    Ok(cell.wrapping_mul(base).wrapping_add(o))
                })
                .collect::<Result<Vec<i64>, AlignError>>()?;
            signature.sort_unstable();
            signature
        } else {
            Vec::new()
        };
        keys.push((colour, signature));
    }
    Ok(relabel(&keys))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_seeds_refine() -> Result<(), AlignError> {
        let cells = Matrix::new(2, 2, vec![1, 0, 0, 0])?;
        assert_eq!(
            bipartite_colours(&cells, &[0, 0], &[0, 0])?,
            (vec![1, 0], vec![1, 0])
        );
        assert_eq!(
            bipartite_colours(&cells, &[5, 3], &[0, 0])?,
            (vec![1, 0], vec![1, 0])
        );
        let empty = Matrix::new(2, 0, Vec::new())?;
        assert_eq!(
            bipartite_colours(&empty, &[7, 3], &[])?,
            (vec![1, 0], vec![])
        );
        Ok(())
    }

    #[test]
    fn huge_labels_wrap_as_int64() -> Result<(), AlignError> {
        let cells = Matrix::new(2, 2, vec![i64::MAX, i64::MIN, 0, 1])?;
        let (rows, cols) = bipartite_colours(&cells, &[0, 0], &[0, 0])?;
        assert_eq!((rows.len(), cols.len()), (2, 2));
        assert!(bipartite_colours(&cells, &[0], &[0, 0]).is_err());
        Ok(())
    }
}
