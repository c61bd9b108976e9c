//! The one error type of the alignment solvers, and checked slice access.
//!
//! Every index the solvers use is derived from the input's shape, so a failed
//! look-up is a broken invariant, never a reason to panic: it becomes
//! [`AlignError::Internal`] and reaches Python as a `ValueError`.

use std::fmt;

/// Why an alignment could not be computed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlignError {
    /// A buffer's length is not `rows * cols` (or that product overflows).
    Shape {
        rows: usize,
        cols: usize,
        len: usize,
    },
    /// A matrix cell is NaN or infinite (the solvers' inputs are finite similarities).
    NotFinite { row: usize, col: usize },
    /// No assignment of finite cost exists (reduced costs overflowed to infinity).
    Infeasible,
    /// An exact sum overflowed (`math.fsum`'s "intermediate overflow").
    Overflow,
    /// A vector of per-row or per-column values has the wrong length.
    Length {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// A matrix that must have another's shape does not.
    Mismatch {
        what: &'static str,
        expected: (usize, usize),
        got: (usize, usize),
    },
    /// An edge names a vertex that does not exist.
    Vertex { edge: usize, vertex: usize },
    /// A sparse cell outside its matrix, or given twice.
    Cell {
        row: usize,
        col: usize,
        shape: (usize, usize),
        repeated: bool,
    },
    /// A solver's working arrays do not fit in memory.
    Memory(&'static str),
    /// A caller's dynamic tie level failed (the caller holds its error).
    Level,
    /// A solver invariant did not hold (a bug, reported instead of a panic).
    Internal(&'static str),
}

impl fmt::Display for AlignError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Shape { rows, cols, len } => write!(
                f,
                "a {rows} x {cols} matrix needs {rows} * {cols} cells, got {len}"
            ),
            Self::NotFinite { row, col } => write!(
                f,
                "matrix contains invalid numeric entries (NaN or infinity at row {row}, column {col})"
            ),
            Self::Infeasible => write!(f, "cost matrix is infeasible"),
            Self::Overflow => write!(f, "intermediate overflow in an exact sum"),
            Self::Length {
                what,
                expected,
                got,
            } => write!(f, "{what}: expected {expected} values, got {got}"),
            Self::Mismatch {
                what,
                expected,
                got,
            } => write!(
                f,
                "{what}: expected a {} x {} matrix, got {} x {}",
                expected.0, expected.1, got.0, got.1
            ),
            Self::Vertex { edge, vertex } => {
                write!(f, "edge {edge} names vertex {vertex}, which does not exist")
            }
            Self::Cell {
                row,
                col,
                shape,
                repeated,
            } => {
                if *repeated {
                    write!(f, "cell ({row}, {col}) is given twice")
                } else {
                    write!(
                        f,
                        "cell ({row}, {col}) is outside the {} x {} matrix",
                        shape.0, shape.1
                    )
                }
            }
            Self::Memory(what) => write!(f, "{what} do not fit in memory"),
            Self::Level => write!(f, "a dynamic tie level failed"),
            Self::Internal(what) => write!(f, "internal solver error: {what}"),
        }
    }
}

impl std::error::Error for AlignError {}

/// An error unless `got` values were given where `expected` are needed.
pub(crate) fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), AlignError> {
    if expected == got {
        Ok(())
    } else {
        Err(AlignError::Length {
            what,
            expected,
            got,
        })
    }
}

/// `slice[index]`, or an internal error naming `what` (see the module comment).
pub(crate) fn at<T: Copy>(slice: &[T], index: usize, what: &'static str) -> Result<T, AlignError> {
    slice.get(index).copied().ok_or(AlignError::Internal(what))
}

/// `&mut slice[index]`, or an internal error naming `what`.
pub(crate) fn at_mut<'a, T>(
    slice: &'a mut [T],
    index: usize,
    what: &'static str,
) -> Result<&'a mut T, AlignError> {
    slice.get_mut(index).ok_or(AlignError::Internal(what))
}
