//! The minimum-weight perfect matching of a square sparse bipartite graph by
//! shortest augmenting paths (LAPJVsp).
//!
//! Written from R. Jonker and A. Volgenant, "A shortest augmenting path algorithm
//! for dense and sparse linear assignment problems", Computing 38 (1987): column
//! reduction, reduction transfer, two rounds of augmenting row reduction, then one
//! augmentation per row left free. The sparse solver (`super::sparse`) returns the
//! pairs SciPy's `min_weight_full_bipartite_matching` returns, the same method; where
//! the paper leaves a choice open it is made as SciPy makes it (checked against SciPy
//! on tie-heavy graphs by tests/test_rust_strategy.py):
//!
//! * each row's edges are read by increasing column (CSR order);
//! * a column's reduction goes to the first row of lowest cost, and columns are then
//!   handed out from the last to the first (a row keeps the last column it won);
//! * the two rows of lowest reduced cost are tracked by strict comparisons, so the
//!   first of equal edges is the lowest;
//! * the list of columns at the search's current distance is carried from one
//!   augmentation to the next (it matters only to infinite reduced costs);
//! * arithmetic is `(cost - v) - h` in that order, infinities included.

use super::error::{at, at_mut, AlignError};

/// No row, or no column.
const NONE: usize = usize::MAX;

/// Immediate re-reductions a round of augmenting row reduction allows, a row on
/// average, before displaced rows wait for the augmentation: far above what a
/// terminating round makes, a bound on rounds that would not end.
const REDUCTIONS_PER_ROW: usize = 64;

/// `len` copies of `value`, or [`AlignError::Memory`] where they do not fit (a
/// list's length comes from the input: no abort on a failed allocation).
pub(crate) fn filled<T: Clone>(len: usize, value: T) -> Result<Vec<T>, AlignError> {
    let mut out = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| AlignError::Memory("the solver's arrays"))?;
    out.resize(len, value);
    Ok(out)
}

/// A square biadjacency matrix in compressed rows: row `i`'s edges are
/// `indptr[i]..indptr[i + 1]`, by increasing column, each with a cost and a label
/// the caller reads back.
#[derive(Debug, Clone)]
pub(crate) struct Graph {
    indptr: Vec<usize>,
    cols: Vec<usize>,
    costs: Vec<f64>,
    labels: Vec<usize>,
}

/// One edge: row, column, cost, and the caller's label.
pub(crate) type Edge = (usize, usize, f64, usize);

impl Graph {
    /// The graph on `n + n` vertices of `edges` (no cell twice), those of cost 0
    /// left out as SciPy leaves out explicit zeros.
    pub(crate) fn new(n: usize, mut edges: Vec<Edge>) -> Result<Self, AlignError> {
        edges.retain(|edge| edge.2 != 0.0);
        edges.sort_unstable_by_key(|&(i, j, _, _)| (i, j));
        let mut indptr = filled(n.checked_add(1).ok_or(AlignError::Memory("rows"))?, 0)?;
        for &(i, j, _, _) in &edges {
            if i >= n || j >= n {
                return Err(AlignError::Internal("an edge outside the graph"));
            }
            *at_mut(&mut indptr, i + 1, "row pointer")? += 1;
        }
        for i in 0..n {
            let previous = at(&indptr, i, "row pointer")?;
            *at_mut(&mut indptr, i + 1, "row pointer")? += previous;
        }
        Ok(Self {
            indptr,
            cols: edges.iter().map(|edge| edge.1).collect(),
            costs: edges.iter().map(|edge| edge.2).collect(),
            labels: edges.iter().map(|edge| edge.3).collect(),
        })
    }

    fn size(&self) -> usize {
        self.indptr.len().saturating_sub(1)
    }

    /// Row `i`'s columns and costs.
    fn row(&self, i: usize) -> Result<(&[usize], &[f64]), AlignError> {
        let start = at(&self.indptr, i, "row pointer")?;
        let stop = at(&self.indptr, i + 1, "row pointer")?;
        match (self.cols.get(start..stop), self.costs.get(start..stop)) {
            (Some(cols), Some(costs)) => Ok((cols, costs)),
            _ => Err(AlignError::Internal("row range")),
        }
    }

    /// The position of edge `(i, j)` in the arrays.
    fn position(&self, i: usize, j: usize) -> Result<usize, AlignError> {
        let start = at(&self.indptr, i, "row pointer")?;
        let (cols, _) = self.row(i)?;
        cols.binary_search(&j)
            .map(|k| start + k)
            .map_err(|_| AlignError::Internal("a matched pair without its edge"))
    }

    /// The cost of edge `(i, j)`.
    fn cost(&self, i: usize, j: usize) -> Result<f64, AlignError> {
        at(&self.costs, self.position(i, j)?, "cost")
    }

    /// The caller's label of edge `(i, j)`.
    pub(crate) fn label(&self, i: usize, j: usize) -> Result<usize, AlignError> {
        at(&self.labels, self.position(i, j)?, "label")
    }
}

/// The working arrays of one solve.
struct Solver<'a> {
    graph: &'a Graph,
    n: usize,
    /// Column duals.
    v: Vec<f64>,
    /// The column of each row, the row of each column ([`NONE`] when free).
    x: Vec<usize>,
    y: Vec<usize>,
    /// Rows left free, in the order they are augmented.
    free: Vec<usize>,
    /// Columns at the current distance (from the front) and settled (from the back).
    todo: Vec<usize>,
    /// Distances of this search, and whether a column is settled or queued.
    d: Vec<f64>,
    ok: Vec<bool>,
    /// The columns whose `d` or `ok` this search wrote (marked in `touched`): the
    /// next search resets those, not every column.
    written: Vec<usize>,
    touched: Vec<bool>,
    /// The row each column was reached from.
    lab: Vec<usize>,
    /// The cost of each column's edge to its row, kept from the augmentations on
    /// (each search reads it for every column it settles; a look-up in the row's
    /// edges each time was the searches' largest cost).
    matched: Vec<f64>,
}

/// The column of each row in a perfect matching of minimum total cost.
///
/// Errors with [`AlignError::Infeasible`] where the graph has no perfect matching
/// (a column without edges, a search that runs out of columns).
pub(crate) fn min_weight_perfect_matching(graph: &Graph) -> Result<Vec<usize>, AlignError> {
    let n = graph.size();
    let mut solver = Solver {
        graph,
        n,
        v: filled(n, f64::INFINITY)?,
        x: filled(n, NONE)?,
        y: filled(n, NONE)?,
        free: filled(n, NONE)?,
        todo: filled(n, NONE)?,
        d: filled(n, f64::INFINITY)?,
        ok: filled(n, false)?,
        written: Vec::new(),
        touched: filled(n, false)?,
        lab: filled(n, 0)?,
        matched: filled(n, f64::NAN)?,
    };
    let mut free = solver.reduce_columns()?;
    for _ in 0..2 {
        free = solver.augmenting_row_reduction(free)?;
    }
    solver.price_matches()?;
    let mut carried = 0;
    for l in 0..free {
        let row = at(&solver.free, l, "free row")?;
        carried = solver.augment(row, carried)?;
    }
    if solver.x.contains(&NONE) {
        return Err(AlignError::Internal("a row left unassigned"));
    }
    Ok(solver.x)
}

impl Solver<'_> {
    /// The cost of each assigned column's edge to its row, before the augmentations
    /// (which keep it as they flip paths).
    fn price_matches(&mut self) -> Result<(), AlignError> {
        for j in 0..self.n {
            let i = at(&self.y, j, "y")?;
            if i != NONE {
                *at_mut(&mut self.matched, j, "matched cost")? = self.graph.cost(i, j)?;
            }
        }
        Ok(())
    }

    /// Column reduction and reduction transfer; the number of free rows (listed
    /// first in `free`).
    fn reduce_columns(&mut self) -> Result<usize, AlignError> {
        for i in 0..self.n {
            let (cols, costs) = self.graph.row(i)?;
            for (&j, &c) in cols.iter().zip(costs) {
                let vj = at_mut(&mut self.v, j, "v")?;
                if c < *vj {
                    *vj = c;
                    *at_mut(&mut self.y, j, "y")? = i;
                }
            }
        }
        let mut shared = filled(self.n, false)?;
        for j in (0..self.n).rev() {
            let i = at(&self.y, j, "y")?;
            if i == NONE {
                return Err(AlignError::Infeasible);
            }
            let xi = at_mut(&mut self.x, i, "x")?;
            if *xi == NONE {
                *xi = j;
            } else {
                *at_mut(&mut self.y, j, "y")? = NONE;
                *at_mut(&mut shared, i, "shared")? = true;
            }
        }
        let mut count = 0;
        for i in 0..self.n {
            if at(&shared, i, "shared")? {
                continue;
            }
            let j1 = at(&self.x, i, "x")?;
            if j1 == NONE {
                *at_mut(&mut self.free, count, "free")? = i;
                count += 1;
                continue;
            }
            let (cols, costs) = self.graph.row(i)?;
            let mut lowest = f64::INFINITY;
            for (&j, &c) in cols.iter().zip(costs) {
                if j != j1 {
                    let reduced = c - at(&self.v, j, "v")?;
                    if reduced < lowest {
                        lowest = reduced;
                    }
                }
            }
            let own = self.graph.cost(i, j1)?;
            *at_mut(&mut self.v, j1, "v")? = own - lowest;
        }
        Ok(count)
    }

    /// One round of augmenting row reduction over the first `count` free rows; the
    /// number of rows free after it.
    ///
    /// A row that takes a column by lowering its dual sends the row it displaced
    /// back to be reduced at once. When the lowering is lost to rounding (a gap of
    /// the dummy weight next to a dual near 1) and the displaced row takes the column
    /// back the same way, the state repeats exactly and the two rows would trade the
    /// column forever (SciPy's loop does, and hangs there); such a
    /// row, and any row past [`REDUCTIONS_PER_ROW`] immediate reductions a row on
    /// average, waits for the augmentation instead, which ends.
    fn augmenting_row_reduction(&mut self, count: usize) -> Result<usize, AlignError> {
        let mut h = 0;
        let mut left = 0;
        let mut again = 0usize;
        let budget = REDUCTIONS_PER_ROW.saturating_mul(self.n + 1);
        // (row, column, displaced row) of the last lowering that left the dual as it was
        let mut unchanged: Option<(usize, usize, usize)> = None;
        while h < count {
            let i = at(&self.free, h, "free")?;
            h += 1;
            let (mut j0, mut j1) = (NONE, NONE);
            let (mut v0, mut vj) = (f64::INFINITY, f64::INFINITY);
            let (cols, costs) = self.graph.row(i)?;
            for (&j, &c) in cols.iter().zip(costs) {
                let dj = c - at(&self.v, j, "v")?;
                if dj < vj {
                    if dj >= v0 {
                        vj = dj;
                        j1 = j;
                    } else {
                        vj = v0;
                        v0 = dj;
                        j1 = j0;
                        j0 = j;
                    }
                }
            }
            if j0 == NONE {
                return Err(AlignError::Infeasible);
            }
            let mut i0 = at(&self.y, j0, "y")?;
            let lowered = v0 < vj;
            let mut kept = false;
            if lowered {
                let dual = at_mut(&mut self.v, j0, "v")?;
                let before = *dual;
                *dual += v0 - vj;
                kept = *dual == before;
            } else if i0 != NONE {
                j0 = j1;
                i0 = at(&self.y, j0, "second column")?;
            }
            *at_mut(&mut self.x, i, "x")? = j0;
            *at_mut(&mut self.y, j0, "y")? = i;
            let trading = kept && unchanged == Some((i0, j0, i));
            unchanged = (kept && i0 != NONE).then_some((i, j0, i0));
            if i0 != NONE {
                if lowered && !trading && again < budget {
                    // the displaced row is reduced again at once
                    again += 1;
                    h -= 1;
                    *at_mut(&mut self.free, h, "free")? = i0;
                } else {
                    *at_mut(&mut self.free, left, "free")? = i0;
                    left += 1;
                }
            }
        }
        Ok(left)
    }

    /// The shortest augmenting path from free row `i0` (Dijkstra on reduced costs),
    /// the duals updated and the path flipped. `carried` is the length of the
    /// current-distance list the last search left; returns this search's.
    fn augment(&mut self, i0: usize, carried: usize) -> Result<usize, AlignError> {
        let n = self.n;
        for k in 0..self.written.len() {
            let j = at(&self.written, k, "written")?;
            *at_mut(&mut self.d, j, "d")? = f64::INFINITY;
            *at_mut(&mut self.ok, j, "ok")? = false;
            *at_mut(&mut self.touched, j, "touched")? = false;
        }
        self.written.clear();
        let mut lowest = f64::INFINITY;
        let mut front = carried;
        let (cols, costs) = self.graph.row(i0)?;
        for (&j, &c) in cols.iter().zip(costs) {
            let dj = c - at(&self.v, j, "v")?;
            self.touch(j)?;
            *at_mut(&mut self.d, j, "d")? = dj;
            *at_mut(&mut self.lab, j, "lab")? = i0;
            if dj <= lowest {
                if dj < lowest {
                    front = 0;
                    lowest = dj;
                }
                *at_mut(&mut self.todo, front, "todo")? = j;
                front += 1;
            }
        }
        if let Some(j) = self.settle(front)? {
            self.flip(j, i0)?;
            return Ok(front);
        }
        let mut back = n;
        let mut last = n;
        loop {
            if front == 0 {
                return Err(AlignError::Infeasible);
            }
            front -= 1;
            let j0 = at(&self.todo, front, "todo")?;
            let i = at(&self.y, j0, "y")?;
            back = back
                .checked_sub(1)
                .ok_or(AlignError::Internal("settled columns"))?;
            *at_mut(&mut self.todo, back, "todo")? = j0;
            if i == NONE {
                return Err(AlignError::Internal("row pointer"));
            }
            let h = (at(&self.matched, j0, "matched cost")? - at(&self.v, j0, "v")?) - lowest;
            let (cols, costs) = self.graph.row(i)?;
            for (&j, &c) in cols.iter().zip(costs) {
                if at(&self.ok, j, "ok")? {
                    continue;
                }
                let vj = (c - at(&self.v, j, "v")?) - h;
                if vj < at(&self.d, j, "d")? {
                    self.touch(j)?;
                    *at_mut(&mut self.d, j, "d")? = vj;
                    *at_mut(&mut self.lab, j, "lab")? = i;
                    if vj == lowest {
                        if at(&self.y, j, "y")? == NONE {
                            self.update_duals(last, lowest)?;
                            self.flip(j, i0)?;
                            return Ok(front);
                        }
                        *at_mut(&mut self.todo, front, "todo")? = j;
                        front += 1;
                        *at_mut(&mut self.ok, j, "ok")? = true;
                    }
                }
            }
            if front == 0 {
                lowest = f64::INFINITY;
                last = back;
                for j in 0..n {
                    let dj = at(&self.d, j, "d")?;
                    if dj != f64::INFINITY && dj <= lowest && !at(&self.ok, j, "ok")? {
                        if dj < lowest {
                            front = 0;
                            lowest = dj;
                        }
                        *at_mut(&mut self.todo, front, "todo")? = j;
                        front += 1;
                    }
                }
                if let Some(j) = self.settle(front)? {
                    self.update_duals(last, lowest)?;
                    self.flip(j, i0)?;
                    return Ok(front);
                }
            }
        }
    }

    /// The first free column among the `front` queued ones, the others marked.
    fn settle(&mut self, front: usize) -> Result<Option<usize>, AlignError> {
        for k in 0..front {
            let j = at(&self.todo, k, "todo")?;
            if at(&self.y, j, "y")? == NONE {
                return Ok(Some(j));
            }
            self.touch(j)?;
            *at_mut(&mut self.ok, j, "ok")? = true;
        }
        Ok(None)
    }

    /// Column `j`'s `d` or `ok` is about to be written: listed for the reset.
    fn touch(&mut self, j: usize) -> Result<(), AlignError> {
        let mark = at_mut(&mut self.touched, j, "touched")?;
        if !*mark {
            *mark = true;
            self.written.push(j);
        }
        Ok(())
    }

    /// The settled columns' duals moved by their distance beyond `lowest`.
    fn update_duals(&mut self, last: usize, lowest: f64) -> Result<(), AlignError> {
        for k in last..self.n {
            let j = at(&self.todo, k, "todo")?;
            let dj = at(&self.d, j, "d")?;
            *at_mut(&mut self.v, j, "v")? += dj - lowest;
        }
        Ok(())
    }

    /// The path to free column `j` flipped, back to row `i0`.
    fn flip(&mut self, mut j: usize, i0: usize) -> Result<(), AlignError> {
        // each step moves one row along: at most n steps on a sound path
        for _ in 0..=self.n {
            let i = at(&self.lab, j, "lab")?;
            *at_mut(&mut self.y, j, "y")? = i;
            *at_mut(&mut self.matched, j, "matched cost")? = self.graph.cost(i, j)?;
            let next = at(&self.x, i, "x")?;
            *at_mut(&mut self.x, i, "x")? = j;
            if i == i0 {
                return Ok(());
            }
            j = next;
        }
        Err(AlignError::Internal("an augmenting path that does not end"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solve(n: usize, edges: &[(usize, usize, f64)]) -> Result<Vec<usize>, AlignError> {
        let edges = edges.iter().map(|&(i, j, c)| (i, j, c, 0)).collect();
        min_weight_perfect_matching(&Graph::new(n, edges)?)
    }

    #[test]
    fn lowest_total_on_scipy_example() {
        // SciPy's documented example: [[3, 3, 6], [4, 3, 5], [10, 1, 8]] -> [0, 2, 1]
        let cells = [3.0, 3.0, 6.0, 4.0, 3.0, 5.0, 10.0, 1.0, 8.0];
        let edges: Vec<_> = cells
            .iter()
            .enumerate()
            .map(|(k, &c)| (k / 3, k % 3, c))
            .collect();
        assert_eq!(solve(3, &edges), Ok(vec![0, 2, 1]));
    }

    #[test]
    fn missing_edges_are_absent_not_zero() {
        // [[1, 1, 1], [1, _, _], [_, 1, _]] -> [2, 0, 1]
        let edges = [
            (0, 0, 1.0),
            (0, 1, 1.0),
            (0, 2, 1.0),
            (1, 0, 1.0),
            (2, 1, 1.0),
        ];
        assert_eq!(solve(3, &edges), Ok(vec![2, 0, 1]));
    }

    #[test]
    fn no_perfect_matching_is_an_error() {
        assert_eq!(
            solve(2, &[(0, 0, 1.0), (1, 0, 1.0)]),
            Err(AlignError::Infeasible)
        );
        assert!(solve(1, &[(0, 3, 1.0)]).is_err());
    }
}
