//! The rectangular linear sum assignment by shortest augmenting paths.
//!
//! Written from D. F. Crouse, "On implementing 2D rectangular assignment
//! algorithms", IEEE Trans. Aerospace and Electronic Systems 52(4), 2016
//! (Algorithm 1 with the dual updates of its section on rectangular problems),
//! the method SciPy's `linear_sum_assignment` documents. Its ties are part of the
//! engine's output, so the choices the paper leaves free are made as SciPy makes
//! them (checked against SciPy on tie-heavy matrices by tests/test_rust_alignment.py):
//!
//! * a matrix with more rows than columns is solved transposed; a maximization is
//!   the minimization of the negated matrix;
//! * the unvisited columns are scanned from the last to the first, and the one
//!   taken out of the scan is replaced by the scan's last entry;
//! * among columns at the same shortest distance the first met wins, unless a
//!   later one is unassigned (a sink ends the search sooner);
//! * the reduced cost is `((distance + cost) - u[i]) - v[j]`, in that order.

use super::error::{at, at_mut, AlignError};
use super::matrix::Matrix;

/// No row (a free column).
const FREE: usize = usize::MAX;

/// What the scan of a row reads of each column, kept together (24 bytes): one
/// record per column instead of three arrays.
#[derive(Debug, Clone, Copy)]
struct Column {
    /// The column's dual variable.
    v: f64,
    /// Its shortest distance from the current row in this search.
    distance: f64,
    /// The row assigned to it, or [`FREE`].
    row: usize,
}

/// A cost matrix as the solver reads it, a row at a time (rows <= columns).
pub(crate) trait Cost {
    type Line<'l>: Line
    where
        Self: 'l;
    /// The (rows, columns).
    fn shape(&self) -> (usize, usize);
    /// Row `i`.
    fn line(&self, i: usize) -> Result<Self::Line<'_>, AlignError>;
}

/// One row of a [`Cost`].
pub(crate) trait Line: Copy {
    /// The cost of column `j` (`None` out of range).
    fn cost(self, j: usize) -> Option<f64>;
}

impl Cost for Matrix<f64> {
    type Line<'l> = &'l [f64];

    fn shape(&self) -> (usize, usize) {
        (self.rows(), self.cols())
    }

    fn line(&self, i: usize) -> Result<&[f64], AlignError> {
        self.row(i)
    }
}

impl Line for &[f64] {
    #[inline(always)]
    fn cost(self, j: usize) -> Option<f64> {
        self.get(j).copied()
    }
}

/// The working arrays of one solve, rows <= columns.
struct Solver<'a, C: Cost> {
    cost: &'a C,
    u: Vec<f64>,
    col4row: Vec<Option<usize>>,
    row_seen: Vec<bool>,
    columns: Vec<Column>,
    /// The row each column was reached from, and whether the search settled it.
    path: Vec<usize>,
    col_seen: Vec<bool>,
    /// The rows and columns the current search settled (the duals to update, and
    /// the marks to clear, without a walk over every row and column).
    rows_settled: Vec<usize>,
    cols_settled: Vec<usize>,
    remaining: Vec<usize>,
}

/// The optimal assignment of `matrix`'s rows to its columns (or columns to rows when
/// there are more rows), minimizing the total, or maximizing it with `maximize`.
///
/// Returns `min(rows, cols)` pairs `(i, j)` sorted by `i`, as SciPy's
/// `linear_sum_assignment(matrix, maximize)` returns them. Errors: a NaN cell, or a
/// cell that is minus infinity in the minimized matrix (SciPy's "invalid numeric
/// entries"); no assignment of finite total ("infeasible").
///
/// ```
/// use oa_engine::align::{linear_sum_assignment, Matrix};
/// let m = Matrix::new(2, 3, vec![4.0, 1.0, 3.0, 2.0, 0.0, 5.0]).unwrap();
/// assert_eq!(linear_sum_assignment(&m, false).unwrap(), vec![(0, 1), (1, 0)]);
/// ```
pub fn linear_sum_assignment(
    matrix: &Matrix<f64>,
    maximize: bool,
) -> Result<Vec<(usize, usize)>, AlignError> {
    if matrix.rows() == 0 || matrix.cols() == 0 {
        return Ok(Vec::new());
    }
    let transpose = matrix.rows() > matrix.cols();
    // one copy of the matrix, oriented and signed (a big copy costs its page faults)
    let sign = |c: f64| if maximize { -c } else { c };
    let cost = if transpose {
        matrix.transposed().map_in_place(sign)
    } else {
        matrix.map(sign)
    };
    solve_oriented(&cost, transpose)
}

/// [`linear_sum_assignment`] minimizing `cost`, the matrix already signed and, when
/// `transposed`, transposed (rows <= columns): the pairs `(row, column)` of the
/// matrix before it was transposed, sorted. A caller that builds the cost itself
/// (permuted, with a bonus) saves the solver's copy.
pub(crate) fn solve_oriented(
    cost: &Matrix<f64>,
    transpose: bool,
) -> Result<Vec<(usize, usize)>, AlignError> {
    solve(cost, transpose, true)
}

/// [`solve_oriented`] of a cost whose every cell the caller found finite: the
/// pass looking for a NaN or minus infinity is not made again.
pub(crate) fn solve_finite(
    cost: &Matrix<f64>,
    transpose: bool,
) -> Result<Vec<(usize, usize)>, AlignError> {
    solve(cost, transpose, false)
}

fn solve(
    cost: &Matrix<f64>,
    transpose: bool,
    check: bool,
) -> Result<Vec<(usize, usize)>, AlignError> {
    if cost.rows() == 0 || cost.cols() == 0 {
        return Ok(Vec::new());
    }
    if cost.rows() > cost.cols() {
        return Err(AlignError::Internal(
            "a cost matrix with more rows than columns",
        ));
    }
    let invalid = if check {
        first_invalid(cost.data())
    } else {
        None
    };
    if let Some(k) = invalid {
        let (i, j) = (k / cost.cols(), k % cost.cols());
        let (row, col) = if transpose { (j, i) } else { (i, j) };
        return Err(AlignError::NotFinite { row, col });
    }
    pairs_of(cost, transpose)
}

/// [`solve_finite`] of a cost held in another form than a matrix of floats.
pub(crate) fn solve_cost<C: Cost>(
    cost: &C,
    transpose: bool,
) -> Result<Vec<(usize, usize)>, AlignError> {
    let (rows, cols) = cost.shape();
    if rows == 0 || cols == 0 {
        return Ok(Vec::new());
    }
    if rows > cols {
        return Err(AlignError::Internal(
            "a cost matrix with more rows than columns",
        ));
    }
    pairs_of(cost, transpose)
}

/// The solver's pairs of a cost of rows <= columns, mapped back as [`solve`] says.
fn pairs_of<C: Cost>(cost: &C, transpose: bool) -> Result<Vec<(usize, usize)>, AlignError> {
    let col4row = Solver::new(cost).solve()?;
    let mut pairs = col4row
        .into_iter()
        .enumerate()
        .map(|(i, j)| if transpose { (j, i) } else { (i, j) })
        .collect::<Vec<_>>();
    pairs.sort_unstable();
    Ok(pairs)
}

/// Cells checked together for a NaN or minus infinity: a check without an early
/// exit inside a chunk runs on vectors.
const CHECKED_TOGETHER: usize = 1024;

/// The position of the first NaN or minus infinity of `cells`.
fn first_invalid(cells: &[f64]) -> Option<usize> {
    let invalid = |c: &f64| c.is_nan() || *c == f64::NEG_INFINITY;
    let chunk = cells
        .chunks(CHECKED_TOGETHER)
        .position(|chunk| chunk.iter().fold(false, |found, c| found | invalid(c)))?;
    let start = chunk * CHECKED_TOGETHER;
    Some(start + cells.get(start..)?.iter().position(invalid)?)
}

/// One step of Dijkstra from row `i`: relax the unvisited columns `scan` through it
/// (reduced costs `((shortest + cost) - ui) - v`) and find the nearest, a free one
/// among equals; returns its distance and its position in `scan`.
///
/// Kept out of line: the scan is the solver's whole cost, and one copy of it keeps
/// its speed the same whoever calls the solver.
#[inline(never)]
fn relax<L: Line>(
    scan: &[usize],
    line: L,
    shortest: f64,
    ui: f64,
    i: usize,
    columns: &mut [Column],
    path: &mut [usize],
) -> Result<(f64, Option<usize>), AlignError> {
    let mut lowest = f64::INFINITY;
    let mut chosen = None;
    for (k, &j) in scan.iter().enumerate() {
        let (Some(column), Some(cost)) = (columns.get_mut(j), line.cost(j)) else {
            return Err(AlignError::Internal("column"));
        };
        let reduced = shortest + cost - ui - column.v;
        if reduced < column.distance {
            column.distance = reduced;
            *at_mut(path, j, "path")? = i;
        }
        if column.distance < lowest || (column.distance == lowest && column.row == FREE) {
            lowest = column.distance;
            chosen = Some(k);
        }
    }
    Ok((lowest, chosen))
}

impl<'a, C: Cost> Solver<'a, C> {
    fn new(cost: &'a C) -> Self {
        let (nr, nc) = cost.shape();
        let column = Column {
            v: 0.0,
            distance: f64::INFINITY,
            row: FREE,
        };
        Self {
            cost,
            u: vec![0.0; nr],
            col4row: vec![None; nr],
            row_seen: vec![false; nr],
            columns: vec![column; nc],
            path: vec![0; nc],
            col_seen: vec![false; nc],
            rows_settled: Vec::new(),
            cols_settled: Vec::new(),
            remaining: vec![0; nc],
        }
    }

    /// The column of each row.
    fn solve(mut self) -> Result<Vec<usize>, AlignError> {
        for current in 0..self.cost.shape().0 {
            let (sink, shortest) = self.shortest_path(current)?;
            self.update_duals(current, shortest)?;
            self.augment(current, sink)?;
        }
        self.col4row
            .into_iter()
            .map(|j| j.ok_or(AlignError::Internal("unassigned row")))
            .collect()
    }

    fn column(&mut self, j: usize) -> Result<&mut Column, AlignError> {
        at_mut(&mut self.columns, j, "column")
    }

    /// Dijkstra on reduced costs from row `current` to the nearest unassigned column:
    /// that column and its distance.
    fn shortest_path(&mut self, current: usize) -> Result<(usize, f64), AlignError> {
        let nc = self.cost.shape().1;
        for (k, slot) in self.remaining.iter_mut().enumerate() {
            *slot = nc - k - 1;
        }
        let mut left = nc;
        for &i in &self.rows_settled {
            *at_mut(&mut self.row_seen, i, "row seen")? = false;
        }
        for &j in &self.cols_settled {
            *at_mut(&mut self.col_seen, j, "col seen")? = false;
        }
        self.rows_settled.clear();
        self.cols_settled.clear();
        for column in &mut self.columns {
            column.distance = f64::INFINITY;
        }
        let mut shortest = 0.0;
        let mut i = current;
        loop {
            *at_mut(&mut self.row_seen, i, "row seen")? = true;
            self.rows_settled.push(i);
            let line = self.cost.line(i)?;
            let ui = at(&self.u, i, "u")?;
            let scan = self
                .remaining
                .get(..left)
                .ok_or(AlignError::Internal("remaining"))?;
            let (lowest, chosen) = relax(
                scan,
                line,
                shortest,
                ui,
                i,
                &mut self.columns,
                &mut self.path,
            )?;
            shortest = lowest;
            if shortest == f64::INFINITY {
                return Err(AlignError::Infeasible);
            }
            let k = chosen.ok_or(AlignError::Internal("no column chosen"))?;
            let j = at(&self.remaining, k, "remaining")?;
            left -= 1;
            let last = at(&self.remaining, left, "remaining")?;
            *at_mut(&mut self.remaining, k, "remaining")? = last;
            *at_mut(&mut self.col_seen, j, "col seen")? = true;
            self.cols_settled.push(j);
            match self.column(j)?.row {
                FREE => return Ok((j, shortest)),
                row => i = row,
            }
        }
    }

    /// The dual update that keeps every reduced cost non-negative and the new path tight.
    fn update_duals(&mut self, current: usize, shortest: f64) -> Result<(), AlignError> {
        *at_mut(&mut self.u, current, "u")? += shortest;
        // each settled row and column once (the marks say which), in any order:
        // every update is to its own variable
        for k in 0..self.rows_settled.len() {
            let i = at(&self.rows_settled, k, "settled row")?;
            if i != current {
                let j = at(&self.col4row, i, "col4row")?
                    .ok_or(AlignError::Internal("seen row unassigned"))?;
                let distance = self.column(j)?.distance;
                *at_mut(&mut self.u, i, "u")? += shortest - distance;
            }
        }
        for k in 0..self.cols_settled.len() {
            let j = at(&self.cols_settled, k, "settled column")?;
            let column = self.column(j)?;
            column.v -= shortest - column.distance;
        }
        Ok(())
    }

    /// Flip the assignment along the path from `sink` back to row `current`.
    fn augment(&mut self, current: usize, sink: usize) -> Result<(), AlignError> {
        let mut j = sink;
        // A path visits each row at most once: more steps would be a broken invariant.
        for _ in 0..=self.cost.shape().0 {
            let i = at(&self.path, j, "path")?;
            self.column(j)?.row = i;
            let previous = at_mut(&mut self.col4row, i, "col4row")?.replace(j);
            if i == current {
                return Ok(());
            }
            j = previous.ok_or(AlignError::Internal("path through a free row"))?;
        }
        Err(AlignError::Internal("augmenting path does not end"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(rows: usize, cols: usize, data: &[f64], maximize: bool) -> Vec<(usize, usize)> {
        let matrix = Matrix::new(rows, cols, data.to_vec()).expect("shape");
        linear_sum_assignment(&matrix, maximize).expect("solvable")
    }

    #[test]
    fn constant_matrices_give_the_identity() {
        assert_eq!(solve(3, 3, &[1.0; 9], true), vec![(0, 0), (1, 1), (2, 2)]);
        assert_eq!(solve(2, 4, &[0.0; 8], false), vec![(0, 0), (1, 1)]);
        assert_eq!(solve(4, 2, &[0.0; 8], false), vec![(0, 0), (1, 1)]);
    }

    #[test]
    fn optimal_on_small_matrices() {
        assert_eq!(
            solve(3, 3, &[4.0, 1.0, 3.0, 2.0, 0.0, 5.0, 3.0, 2.0, 2.0], false),
            vec![(0, 1), (1, 0), (2, 2)]
        );
        assert_eq!(
            solve(2, 2, &[0.2, 0.9, 0.8, 0.1], true),
            vec![(0, 1), (1, 0)]
        );
        assert_eq!(solve(3, 1, &[0.1, 0.7, 0.3], true), vec![(1, 0)]);
    }

    #[test]
    fn the_first_invalid_cell_is_found_across_chunks() {
        let mut cells = vec![0.0; 3 * CHECKED_TOGETHER];
        assert_eq!(first_invalid(&cells), None);
        if let Some(cell) = cells.get_mut(2 * CHECKED_TOGETHER + 5) {
            *cell = f64::NEG_INFINITY;
        }
        if let Some(cell) = cells.get_mut(CHECKED_TOGETHER + 1) {
            *cell = f64::NAN;
        }
        assert_eq!(first_invalid(&cells), Some(CHECKED_TOGETHER + 1));
        assert_eq!(first_invalid(&[f64::INFINITY, f64::NAN]), Some(1));
    }

    #[test]
    fn bad_cells_are_errors() {
        let nan = Matrix::new(1, 2, vec![0.0, f64::NAN]).expect("shape");
        assert_eq!(
            linear_sum_assignment(&nan, true),
            Err(AlignError::NotFinite { row: 0, col: 1 })
        );
        let inf = Matrix::new(2, 1, vec![0.0, f64::INFINITY]).expect("shape");
        assert_eq!(
            linear_sum_assignment(&inf, true),
            Err(AlignError::NotFinite { row: 1, col: 0 })
        );
        let blocked = Matrix::new(1, 1, vec![f64::INFINITY]).expect("shape");
        assert_eq!(
            linear_sum_assignment(&blocked, false),
            Err(AlignError::Infeasible)
        );
        let empty = Matrix::new(0, 4, Vec::new()).expect("shape");
        assert_eq!(linear_sum_assignment(&empty, false), Ok(Vec::new()));
    }
}
