//! A dense row-major matrix whose shape is checked once, at construction.

use super::error::{at, AlignError};

/// `rows x cols` cells in row-major order.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix<T> {
    rows: usize,
    cols: usize,
    data: Vec<T>,
}

impl<T: Copy> Matrix<T> {
    /// A matrix over `data`, which must hold exactly `rows * cols` cells.
    ///
    /// ```
    /// use oa_engine::align::Matrix;
    /// assert!(Matrix::new(2, 2, vec![0.0; 4]).is_ok());
    /// assert!(Matrix::new(2, 3, vec![0.0; 4]).is_err());
    /// ```
    pub fn new(rows: usize, cols: usize, data: Vec<T>) -> Result<Self, AlignError> {
        let shape = AlignError::Shape {
            rows,
            cols,
            len: data.len(),
        };
        match rows.checked_mul(cols) {
            Some(cells) if cells == data.len() => Ok(Self { rows, cols, data }),
            _ => Err(shape),
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The cells, row after row.
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// Row `i` (an internal error when out of range).
    pub fn row(&self, i: usize) -> Result<&[T], AlignError> {
        i.checked_mul(self.cols)
            .and_then(|start| self.data.get(start..start.checked_add(self.cols)?))
            .ok_or(AlignError::Internal("row"))
    }

    /// Cell `(i, j)` (an internal error when out of range).
    pub fn get(&self, i: usize, j: usize) -> Result<T, AlignError> {
        if j >= self.cols {
            return Err(AlignError::Internal("column"));
        }
        let cell = i
            .checked_mul(self.cols)
            .and_then(|start| start.checked_add(j));
        at(
            &self.data,
            cell.ok_or(AlignError::Internal("cell"))?,
            "cell",
        )
    }

    /// The transpose (a copy).
    pub fn transposed(&self) -> Self {
        let mut data = Vec::with_capacity(self.data.len());
        for j in 0..self.cols {
            data.extend(self.data.iter().skip(j).step_by(self.cols).copied());
        }
        Self {
            rows: self.cols,
            cols: self.rows,
            data,
        }
    }

    /// The matrix of `f` applied to every cell.
    pub fn map<U: Copy>(&self, f: impl FnMut(T) -> U) -> Matrix<U> {
        Matrix {
            rows: self.rows,
            cols: self.cols,
            data: self.data.iter().copied().map(f).collect(),
        }
    }

    /// The matrix with `f` applied to every cell, in place.
    pub fn map_in_place(mut self, f: impl Fn(T) -> T) -> Self {
        for cell in &mut self.data {
            *cell = f(*cell);
        }
        self
    }

    /// An error naming `what` unless `other` has this matrix's shape.
    pub fn check_same_shape<U: Copy>(
        &self,
        other: &Matrix<U>,
        what: &'static str,
    ) -> Result<(), AlignError> {
        if (self.rows, self.cols) == (other.rows, other.cols) {
            Ok(())
        } else {
            Err(AlignError::Mismatch {
                what,
                expected: (self.rows, self.cols),
                got: (other.rows, other.cols),
            })
        }
    }

    /// The rows `row_order` and columns `col_order` of the matrix, in those orders.
    pub fn permuted(&self, row_order: &[usize], col_order: &[usize]) -> Result<Self, AlignError> {
        let mut data = Vec::with_capacity(row_order.len() * col_order.len());
        for &i in row_order {
            let line = self.row(i)?;
            for &j in col_order {
                data.push(at(line, j, "permuted column")?);
            }
        }
        Self::new(row_order.len(), col_order.len(), data)
    }
}

impl Matrix<f64> {
    /// An error naming the first cell (row-major) that is NaN or infinite.
    pub fn check_finite(&self) -> Result<(), AlignError> {
        match self.data.iter().position(|v| !v.is_finite()) {
            None => Ok(()),
            Some(k) => Err(AlignError::NotFinite {
                row: k / self.cols.max(1),
                col: k % self.cols.max(1),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_is_checked() {
        assert!(Matrix::new(0, 5, Vec::<f64>::new()).is_ok());
        assert!(Matrix::new(usize::MAX, 2, vec![0.0]).is_err());
        assert!(Matrix::new(1, 2, vec![0.0]).is_err());
    }

    #[test]
    fn transpose_and_permute() -> Result<(), AlignError> {
        let m = Matrix::new(2, 3, vec![1, 2, 3, 4, 5, 6])?;
        assert_eq!(m.transposed().data(), &[1, 4, 2, 5, 3, 6]);
        assert_eq!(m.clone().map_in_place(|v| -v).get(1, 0)?, -4);
        assert_eq!(m.permuted(&[1, 0], &[2, 0])?.data(), &[6, 4, 3, 1]);
        assert!(m.permuted(&[2], &[0]).is_err());
        assert_eq!(m.get(1, 2)?, 6);
        assert!(m.get(0, 3).is_err());
        assert!(m.get(usize::MAX, 1).is_err());
        assert!(m.row(usize::MAX / 3).is_err());
        Ok(())
    }

    #[test]
    fn finite_check_names_the_cell() -> Result<(), AlignError> {
        let m = Matrix::new(2, 2, vec![0.0, 1.0, f64::NAN, 0.5])?;
        assert_eq!(
            m.check_finite(),
            Err(AlignError::NotFinite { row: 1, col: 0 })
        );
        Ok(())
    }
}
