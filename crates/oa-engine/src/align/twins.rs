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
    let hashes = line_hashes(matrix, axis == Axis::Rows, axis == Axis::Columns)?;
    let hashes = match axis {
        Axis::Rows => hashes.0,
        Axis::Columns => hashes.1,
    };
    groups_of(matrix, axis, hashes)
}

/// [`twin_groups`] of the rows and of the columns, the matrix read once for both.
pub(crate) fn twin_groups_both(matrix: &Matrix<f64>) -> Result<[Vec<Vec<usize>>; 2], AlignError> {
    let (rows, columns) = line_hashes(matrix, true, true)?;
    Ok([
        groups_of(matrix, Axis::Rows, rows)?,
        groups_of(matrix, Axis::Columns, columns)?,
    ])
}

/// Independent hashes a row's cells are spread over (one multiply chain would
/// wait on each cell), combined at the row's end.
const LANES: usize = 4;

/// The hash of each row (when `rows`) and of each column (when `columns`; empty
/// otherwise), the rows read in order once.
fn line_hashes(
    matrix: &Matrix<f64>,
    rows: bool,
    columns: bool,
) -> Result<(Vec<u64>, Vec<u64>), AlignError> {
    let mut row_hashes = vec![0u64; if rows { matrix.rows() } else { 0 }];
    let mut column_hashes = vec![0u64; if columns { matrix.cols() } else { 0 }];
    for i in 0..matrix.rows() {
        let line = matrix.row(i)?;
        if columns {
            for (hash, v) in column_hashes.iter_mut().zip(line) {
                *hash = mix(*hash, v.to_bits());
            }
        }
        if let Some(hash) = row_hashes.get_mut(i) {
            let mut lanes = [0u64; LANES];
            let mut cells = line.chunks_exact(LANES);
            for chunk in &mut cells {
                for (lane, v) in lanes.iter_mut().zip(chunk) {
                    *lane = mix(*lane, v.to_bits());
                }
            }
            let tail = cells.remainder().iter().fold(0, |h, v| mix(h, v.to_bits()));
            *hash = lanes.iter().fold(tail, |h, &lane| mix(h, lane));
        }
    }
    Ok((row_hashes, column_hashes))
}

/// The twin groups along `axis` from the lines' `hashes`, checked bit for bit.
fn groups_of(
    matrix: &Matrix<f64>,
    axis: Axis,
    hashes: Vec<u64>,
) -> Result<Vec<Vec<usize>>, AlignError> {
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

/// From this many cells a column check gathers each row's compared columns first:
/// a row out of the cache is read in order, where pair by pair its cache lines
/// would be waited for at random; below, the gathering costs more than it saves.
const GATHERED_FROM_CELLS: usize = 1 << 16;

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
        Axis::Columns if matrix.data().len() < GATHERED_FROM_CELLS => {
            for i in 0..matrix.rows() {
                let line = matrix.row(i)?;
                for &(a, b) in &pairs {
                    if at(line, a, "column")?.to_bits() != at(line, b, "column")?.to_bits() {
                        return Ok(false);
                    }
                }
            }
        }
        Axis::Columns => {
            // the columns compared, read from each row in increasing order (its cache
            // lines met in order, as the prefetcher follows, not at random), and each
            // pair as two places among them
            let mut read: Vec<usize> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            read.sort_unstable();
            read.dedup();
            let place = |k: usize| {
                read.binary_search(&k)
                    .map_err(|_| AlignError::Internal("compared column"))
            };
            let places = pairs
                .iter()
                .map(|&(a, b)| Ok((place(a)?, place(b)?)))
                .collect::<Result<Vec<_>, AlignError>>()?;
            let mut bits = vec![0u64; read.len()];
            for i in 0..matrix.rows() {
                let line = matrix.row(i)?;
                for (cell, &k) in bits.iter_mut().zip(&read) {
                    *cell = at(line, k, "column")?.to_bits();
                }
                for &(p, q) in &places {
                    if at(&bits, p, "column bits")? != at(&bits, q, "column bits")? {
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
    fn both_axes_in_one_pass() -> Result<(), AlignError> {
        // rows longer than the lanes, with a tail, and twins along both axes
        let mut cells = Vec::new();
        for i in 0..7u32 {
            for j in 0..11u32 {
                cells.push(f64::from((i % 3) * 100 + (j % 5)));
            }
        }
        let m = Matrix::new(7, 11, cells)?;
        let [rows, columns] = twin_groups_both(&m)?;
        assert_eq!(rows, vec![vec![0, 3, 6], vec![1, 4], vec![2, 5]]);
        assert_eq!(columns, sorted_groups(&m, Axis::Columns)?);
        assert_eq!(rows, twin_groups(&m, Axis::Rows)?);
        assert_eq!(columns, twin_groups(&m, Axis::Columns)?);
        Ok(())
    }

    #[test]
    fn a_big_matrix_checks_its_columns_gathered() -> Result<(), AlignError> {
        // columns 3k and 3k + 1 equal; beyond the gathering threshold
        let (n, m) = (300, 300);
        let mut cells: Vec<f64> = (0..n * m)
            .map(|k| f64::from(u32::try_from((k / m) * 7 + (k % m) / 3 * 3).unwrap_or(0)))
            .collect();
        assert!(cells.len() >= GATHERED_FROM_CELLS);
        let twins: Vec<Vec<usize>> = (0..m / 3).map(|k| vec![3 * k, 3 * k + 1]).collect();
        let matrix = Matrix::new(n, m, cells.clone())?;
        assert!(all_equal(&matrix, Axis::Columns, &twins)?);
        if let Some(cell) = cells.get_mut((n - 1) * m + 3 * 50 + 1) {
            *cell = -1.0; // the last row tells 150 and 151 apart
        }
        let matrix = Matrix::new(n, m, cells)?;
        assert!(!all_equal(&matrix, Axis::Columns, &twins)?);
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
