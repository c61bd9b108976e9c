//! The assignment's cost of a big scope held as one small code per cell.
//!
//! A scope's objective `C + eps * b` takes few distinct values: C holds few (the
//! scores of a few hundred string lengths and match counts, see [`Distinct`]) and b
//! is 0 or 1. The solver's cost (permuted, signed, transposed when there are more
//! rows than columns) is then a code per cell, `2 * rank + b` (`rank`: the cell's C
//! among C's distinct values), and a table of each code's cost, made with the float
//! operations of the cost built whole: the same costs, bit for bit, in a quarter of
//! the memory. A 10,000-record scope's cost of floats was 800 MB of fresh pages,
//! whose zeroing by the kernel on first touch cost more than the codes' whole build.

use super::distinct::Distinct;
use super::error::{at, check_len, AlignError};
use super::lsa::{Cost, Line};
use super::matrix::Matrix;
use super::pages::advise_huge_pages;

/// A cell's code.
type Code = u16;

/// Below this many cells the cost is built whole (its pages cost little, and the
/// codes' table is not worth making).
pub(crate) const CODED_FROM_CELLS: usize = 1 << 16;

/// The bits of the two values of b that are coded.
const ZERO: u64 = 0;
const ONE: u64 = 0x3FF0_0000_0000_0000;

/// Rows of C coded (permuted) before a transposed cost takes them: a band's codes
/// of one column are one cache line of the cost (32 codes of 2 bytes).
const BAND: usize = 32;

/// The solver's cost as codes, rows <= columns.
#[derive(Debug)]
pub(crate) struct Coded {
    rows: usize,
    cols: usize,
    codes: Vec<Code>,
    /// The cost of each code.
    table: Vec<f64>,
}

/// One row of a [`Coded`] cost.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CodedLine<'c> {
    codes: &'c [Code],
    table: &'c [f64],
}

impl Cost for Coded {
    type Line<'l> = CodedLine<'l>;

    fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    fn line(&self, i: usize) -> Result<CodedLine<'_>, AlignError> {
        let start = i.checked_mul(self.cols);
        let codes = start
            .and_then(|start| self.codes.get(start..start.checked_add(self.cols)?))
            .ok_or(AlignError::Internal("cost row"))?;
        Ok(CodedLine {
            codes,
            table: &self.table,
        })
    }
}

impl Line for CodedLine<'_> {
    #[inline(always)]
    fn cost(self, j: usize) -> Option<f64> {
        let code = *self.codes.get(j)?;
        self.table.get(usize::from(code)).copied()
    }
}

/// The cost `-(c + eps * b)` of `matrix` (C, whose distinct values are `distinct`)
/// with b read from `same` (0.0 or 1.0), its rows in `row_order` and columns in
/// `col_order`, transposed when there are more rows than columns, as codes; `None`
/// (nothing made) where it cannot be coded: too many distinct values, a cost or a C
/// that is not finite, or a b other than 0.0 and 1.0.
pub(crate) fn coded_cost<S>(
    matrix: &Matrix<f64>,
    distinct: &Distinct,
    eps: f64,
    same: &S,
    (row_order, col_order): (&[usize], &[usize]),
) -> Result<Option<Coded>, AlignError>
where
    S: Fn(usize, usize) -> Result<f64, AlignError>,
{
    let Some(table) = table_of(distinct.values(), eps) else {
        return Ok(None);
    };
    let (n, m) = (row_order.len(), col_order.len());
    let cells = n.checked_mul(m).ok_or(AlignError::Internal("cost shape"))?;
    let mut codes: Vec<Code> = Vec::new();
    codes
        .try_reserve_exact(cells)
        .map_err(|_| AlignError::Memory("the assignment's cost matrix"))?;
    advise_huge_pages(&mut codes);
    codes.resize(cells, 0);
    let mut in_place: Vec<Code> = vec![0; matrix.cols()];
    if n > m {
        // the band's codes column by column, BAND to a column (one cache line of
        // the cost), each column then copied into its line of the cost at once
        let mut band: Vec<Code> = vec![0; BAND * m];
        for (a0, rows) in (0..n).step_by(BAND).zip(row_order.chunks(BAND)) {
            for (r, &i) in rows.iter().enumerate() {
                if !code_row(matrix, distinct, same, i, &mut in_place)? {
                    return Ok(None);
                }
                for (column, &j) in band.chunks_exact_mut(BAND).zip(col_order) {
                    *column.get_mut(r).ok_or(AlignError::Internal("band row"))? =
                        at(&in_place, j, "permuted column")?;
                }
            }
            let width = rows.len();
            for (line, column) in codes.chunks_exact_mut(n).zip(band.chunks_exact(BAND)) {
                let (Some(cells), Some(coded)) =
                    (line.get_mut(a0..a0 + width), column.get(..width))
                else {
                    return Err(AlignError::Internal("cost cell"));
                };
                cells.copy_from_slice(coded);
            }
        }
    } else {
        for (line, &i) in codes.chunks_exact_mut(m.max(1)).zip(row_order) {
            if !code_row(matrix, distinct, same, i, &mut in_place)? {
                return Ok(None);
            }
            for (cell, &j) in line.iter_mut().zip(col_order) {
                *cell = at(&in_place, j, "permuted column")?;
            }
        }
    }
    let (rows, cols) = if n > m { (m, n) } else { (n, m) };
    Ok(Some(Coded {
        rows,
        cols,
        codes,
        table,
    }))
}

/// Row i's codes into `out`, in C's order (C's row read in order, as it streams
/// in); `false` for a b that is not coded.
fn code_row<S>(
    matrix: &Matrix<f64>,
    distinct: &Distinct,
    same: &S,
    i: usize,
    out: &mut [Code],
) -> Result<bool, AlignError>
where
    S: Fn(usize, usize) -> Result<f64, AlignError>,
{
    let row = matrix.row(i)?;
    check_len("coded row", row.len(), out.len())?;
    for (j, (cell, &c)) in out.iter_mut().zip(row).enumerate() {
        let b = match same(i, j)?.to_bits() {
            ZERO => 0,
            ONE => 1,
            _ => return Ok(false),
        };
        *cell =
            Code::try_from(distinct.rank(c)? * 2 + b).map_err(|_| AlignError::Internal("code"))?;
    }
    Ok(true)
}

/// The cost of each code `2 * rank + b`: `-(value + eps * b)`, as the cost built
/// whole computes it (b a float, 0.0 or 1.0); `None` where a code would not fit, or
/// a value or a cost is not finite (the cost built whole then decides).
///
/// The cost of a cell whose C is 0.0 is made from -0.0 where C holds both (its
/// distinct values keep one zero): `-0.0 + eps * b` and `0.0 + eps * b` are equal
/// bit for bit, `eps` being positive or zero (a negative sign declines the codes).
fn table_of(values: &[f64], eps: f64) -> Option<Vec<f64>> {
    if values.len() * 2 > usize::from(Code::MAX) + 1 || eps.is_sign_negative() {
        return None;
    }
    let mut table = Vec::with_capacity(values.len() * 2);
    for &value in values {
        for b in [0.0, 1.0] {
            let objective = value + eps * b;
            if !(value.is_finite() && objective.is_finite()) {
                return None;
            }
            table.push(-objective);
        }
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::lsa::{solve_cost, solve_finite};

    /// The cost built whole: `-(c + eps * same)` permuted, transposed for more rows.
    fn whole(
        matrix: &Matrix<f64>,
        eps: f64,
        same: &dyn Fn(usize, usize) -> f64,
        (row_order, col_order): (&[usize], &[usize]),
    ) -> Matrix<f64> {
        let mut cells = Vec::new();
        for &i in row_order {
            for &j in col_order {
                let c = matrix.get(i, j).unwrap();
                cells.push(-(c + eps * same(i, j)));
            }
        }
        let permuted = Matrix::new(row_order.len(), col_order.len(), cells).unwrap();
        if row_order.len() > col_order.len() {
            permuted.transposed()
        } else {
            permuted
        }
    }

    fn check(n: usize, m: usize) {
        // few distinct values, both zeros among them
        let cells: Vec<f64> = (0..n * m)
            .map(|k| match k % 7 {
                0 => -0.0,
                1 => 0.0,
                r => (r as f64) / 9.0 + ((k / 7) % 5) as f64 / 64.0,
            })
            .collect();
        let matrix = Matrix::new(n, m, cells).unwrap();
        let distinct = Distinct::of(matrix.data());
        let same = |i: usize, j: usize| if (i * 3 + j) % 4 == 0 { 1.0 } else { 0.0 };
        let row_order: Vec<usize> = (0..n).map(|k| (k * 7 + 3) % n).collect();
        let col_order: Vec<usize> = (0..m).rev().collect();
        let orders = (&row_order[..], &col_order[..]);
        let eps = 1e-3;
        let coded = coded_cost(&matrix, &distinct, eps, &|i, j| Ok(same(i, j)), orders)
            .unwrap()
            .unwrap();
        let expected = whole(&matrix, eps, &same, orders);
        assert_eq!(coded.shape(), (expected.rows(), expected.cols()));
        for r in 0..expected.rows() {
            let line = coded.line(r).unwrap();
            for (k, cell) in expected.row(r).unwrap().iter().enumerate() {
                assert_eq!(line.cost(k).map(f64::to_bits), Some(cell.to_bits()));
            }
        }
        let transpose = n > m;
        assert_eq!(
            solve_cost(&coded, transpose).unwrap(),
            solve_finite(&expected, transpose).unwrap()
        );
    }

    #[test]
    fn codes_give_the_whole_cost_bit_for_bit() {
        check(70, 40); // transposed, over more than one band
        check(33, 33);
        check(20, 45);
    }

    #[test]
    fn the_coded_bits_are_zero_and_one() {
        assert_eq!((0.0f64.to_bits(), 1.0f64.to_bits()), (ZERO, ONE));
    }

    #[test]
    fn what_cannot_be_coded_is_declined() {
        let matrix = Matrix::new(1, 3, vec![0.5, f64::INFINITY, 0.0]).unwrap();
        let distinct = Distinct::of(matrix.data());
        let orders = (&[0][..], &[0, 1, 2][..]);
        let zero = |_: usize, _: usize| Ok(0.0);
        assert!(coded_cost(&matrix, &distinct, 0.1, &zero, orders)
            .unwrap()
            .is_none());
        let matrix = Matrix::new(1, 3, vec![0.5, 0.25, 0.0]).unwrap();
        let distinct = Distinct::of(matrix.data());
        let half = |_: usize, _: usize| Ok(0.5);
        assert!(coded_cost(&matrix, &distinct, 0.1, &half, orders)
            .unwrap()
            .is_none());
        let many: Vec<f64> = (0..70_000).map(f64::from).collect();
        assert!(table_of(&many, 0.1).is_none());
        assert!(table_of(&[0.5, 1.0], 0.1).is_some());
    }
}
