//! Twin groups: identical rows, or identical columns, of a matrix, bit for bit:
//! permuting twins among their partners
//! keeps every total, so the tie policy re-pairs them.

use super::error::{at, AlignError};
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
/// Lines are grouped by a hash of their bits, read row after row for both axes (a
/// column's hash is built as the rows stream by, so no transposed copy is made),
/// then every member is checked against its group's first bit for bit; a hash
/// collision between different lines (never seen in practice) sorts the lines
/// themselves instead.
///
/// ```
/// use oa_engine::align::{twin_groups, Axis, Matrix};
/// let m = Matrix::new(3, 2, vec![1.0, 0.0, 0.5, 0.5, 1.0, 0.0]).unwrap();
/// assert_eq!(twin_groups(&m, Axis::Rows).unwrap(), vec![vec![0, 2]]);
/// ```
pub fn twin_groups(matrix: &Matrix<f64>, axis: Axis) -> Result<Vec<Vec<usize>>, AlignError> {
    let count = match axis {
        Axis::Rows => matrix.rows(),
        Axis::Columns => matrix.cols(),
    };
    let mut hashes = vec![0u64; count];
    for i in 0..matrix.rows() {
        let line = matrix.row(i)?;
        match axis {
            Axis::Rows => {
                let hash = hashes.get_mut(i).ok_or(AlignError::Internal("row"))?;
                *hash = line.iter().fold(0, |h, v| mix(h, v.to_bits()));
            }
            Axis::Columns => {
                for (hash, v) in hashes.iter_mut().zip(line) {
                    *hash = mix(*hash, v.to_bits());
                }
            }
        }
    }
    let mut order: Vec<(u64, usize)> = hashes.into_iter().zip(0..).collect();
    order.sort_unstable();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for run in order.chunk_by(|a, b| a.0 == b.0) {
        if run.len() > 1 {
            groups.push(run.iter().map(|&(_, k)| k).collect());
        }
    }
    if !all_equal(matrix, axis, &groups)? {
        return sorted_groups(matrix, axis);
    }
    groups.sort_unstable();
    Ok(groups)
}

/// One step of the lines' hash (FxHash's: rotate, xor, multiply).
fn mix(hash: u64, bits: u64) -> u64 {
    (hash.rotate_left(5) ^ bits).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// Whether every member of each group has its group's first member's bits.
fn all_equal(matrix: &Matrix<f64>, axis: Axis, groups: &[Vec<usize>]) -> Result<bool, AlignError> {
    let pairs: Vec<(usize, usize)> = groups
        .iter()
        .flat_map(|g| {
            let first = g.first().copied().unwrap_or(0);
            g.iter().skip(1).map(move |&k| (first, k))
        })
        .collect();
    if pairs.is_empty() {
        return Ok(true);
    }
    match axis {
        Axis::Rows => {
            for &(a, b) in &pairs {
                let (x, y) = (matrix.row(a)?, matrix.row(b)?);
                if x.iter().zip(y).any(|(p, q)| p.to_bits() != q.to_bits()) {
                    return Ok(false);
                }
            }
        }
        Axis::Columns => {
            for i in 0..matrix.rows() {
                let line = matrix.row(i)?;
                for &(a, b) in &pairs {
                    if at(line, a, "column")?.to_bits() != at(line, b, "column")?.to_bits() {
                        return Ok(false);
                    }
                }
            }
        }
    }
    Ok(true)
}

/// [`twin_groups`] by sorting the lines themselves.
fn sorted_groups(matrix: &Matrix<f64>, axis: Axis) -> Result<Vec<Vec<usize>>, AlignError> {
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
    for run in order.chunk_by(|a, b| a.0 == b.0) {
        if run.len() > 1 {
            groups.push(run.iter().map(|&(_, k)| k).collect());
        }
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
        // the reference grouping agrees, and is what a collision falls back to
        for axis in [Axis::Rows, Axis::Columns] {
            for matrix in [&m, &same, &empty] {
                assert_eq!(twin_groups(matrix, axis)?, sorted_groups(matrix, axis)?);
            }
        }
        Ok(())
    }

    #[test]
    fn a_collision_is_caught() -> Result<(), AlignError> {
        let m = Matrix::new(2, 2, vec![0.0, 1.0, 1.0, 0.0])?;
        assert!(!all_equal(&m, Axis::Rows, &[vec![0, 1]])?);
        assert!(!all_equal(&m, Axis::Columns, &[vec![0, 1]])?);
        assert!(all_equal(&m, Axis::Columns, &[])?);
        Ok(())
    }
}
