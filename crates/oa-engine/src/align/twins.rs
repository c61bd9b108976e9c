//! Twin groups: identical rows, or identical columns, of a matrix, bit for bit:
//! permuting twins among their partners
//! keeps every total, so the tie policy re-pairs them.

use super::error::AlignError;
use super::matrix::Matrix;

/// Rows or columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    Rows,
    Columns,
}

/// The groups of two or more lines of `matrix` along `axis` with the same bits
/// (`-0.0` is not `0.0`; a NaN is its own bits), each increasing, ordered by their
/// first member.
///
/// ```
/// use oa_engine::align::{twin_groups, Axis, Matrix};
/// let m = Matrix::new(3, 2, vec![1.0, 0.0, 0.5, 0.5, 1.0, 0.0]).unwrap();
/// assert_eq!(twin_groups(&m, Axis::Rows).unwrap(), vec![vec![0, 2]]);
/// ```
pub fn twin_groups(matrix: &Matrix<f64>, axis: Axis) -> Result<Vec<Vec<usize>>, AlignError> {
    let bits = matrix.map(f64::to_bits);
    let lines = match axis {
        Axis::Rows => bits,
        Axis::Columns => bits.transposed(),
    };
    let mut order = (0..lines.rows())
        .map(|k| Ok((lines.row(k)?, k)))
        .collect::<Result<Vec<(&[u64], usize)>, AlignError>>()?;
    order.sort_unstable();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    let mut previous: Option<&[u64]> = None;
    for (line, k) in order {
        if previous != Some(line) {
            if run.len() > 1 {
                groups.push(std::mem::take(&mut run));
            }
            run.clear();
        }
        previous = Some(line);
        run.push(k);
    }
    if run.len() > 1 {
        groups.push(run);
    }
    groups.sort_unstable();
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_by_bits() -> Result<(), AlignError> {
        let m = Matrix::new(2, 4, vec![0.0, -0.0, 1.0, 0.0, 0.5, 0.5, 0.5, 0.5])?;
        assert_eq!(twin_groups(&m, Axis::Columns)?, vec![vec![0, 3]]);
        assert_eq!(twin_groups(&m, Axis::Rows)?, Vec::<Vec<usize>>::new());
        let same = Matrix::new(3, 1, vec![f64::NAN; 3])?;
        assert_eq!(twin_groups(&same, Axis::Rows)?, vec![vec![0, 1, 2]]);
        let empty = Matrix::new(0, 3, Vec::new())?;
        assert_eq!(twin_groups(&empty, Axis::Columns)?, vec![vec![0, 1, 2]]);
        Ok(())
    }
}
