//! The twin repair of referential alignment's tie policy: twins (identical rows, or
//! identical columns, of the score matrix) can swap partners without changing any
//! total, so within each twin group the pairing is solved again, maximizing the tie
//! levels (the colour bonus b, the agreement depth a, then the reference agreement
//! through the pairing) lexicographically.
//!
//! Groups whose levels depend on the pairing are paired greedily, the best cell
//! first (the most constrained, as in individualization-refinement), the levels
//! recomputed after each pair; the first pass counts another group's pairs only once
//! that group is re-paired. Among equally good cells each is tried by completing
//! the group greedily from it (a rollout), and the one whose pairs then agree most
//! with each other is taken; ties go to the canonical (colour) order. Each pair
//! gets a verdict: the first level that tells its group's pairings apart, or the
//! number of levels when none does, when the pair was one of several equally good
//! choices, or when a dynamic level chose it by reading such pairs.

use std::collections::{BTreeMap, BTreeSet};

use super::assignment::Pairs;
use super::error::{at, check_len, AlignError};
use super::fsum::fsum;
use super::lsa::linear_sum_assignment;
use super::matrix::Matrix;
use super::twins::twin_groups_both;

/// Groups of at most this many full pairings have their spread found by looking
/// through them (two solver calls cost more).
const SPREAD_PAIRINGS: usize = 120;
/// Integers up to this size summed over a few hundred cells stay exact in float64.
const EXACT_CELL: f64 = 1_099_511_627_776.0; // 2**40
/// Groups up to this many cells are re-paired greedily with the dynamic levels
/// recomputed after each pair; larger ones in one assignment (a documented limit).
const GREEDY_CELLS: usize = 250_000;
/// Rollouts per twin repair (all groups and passes together): each completes one
/// group greedily once more, so the budget bounds the repair's extra work.
const ROLLOUTS: usize = 64;
/// Groups up to this many cells look their ties ahead by rollout.
const ROLLOUT_CELLS: usize = 256;

/// A level whose values depend on the pairing made so far (e.g. how many of a
/// gold record's references agree through it).
pub trait DynamicLevel {
    /// The values of `rows x cols` given the pairing `partner` (row -> column).
    fn values(
        &mut self,
        partner: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<Matrix<f64>, AlignError>;

    /// What `partner`'s pairs alone tell of `rows x cols`: the values with nothing
    /// from outside the pairing (another scope's provisional pairing, say). A look
    /// ahead compares completions by it. The default: [`Self::values`].
    fn among(
        &mut self,
        partner: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<Matrix<f64>, AlignError> {
        self.values(partner, rows, cols)
    }
}

/// A level of fixed values per cell read only where a group needs them (a big
/// scope's n x m matrix of them need not exist).
pub trait CellLevel {
    /// The (rows, columns) of the whole level.
    fn shape(&self) -> (usize, usize);
    /// The values of `rows x cols`.
    fn cells(&self, rows: &[usize], cols: &[usize]) -> Result<Matrix<f64>, AlignError>;
}

/// One tie level: fixed values per cell (held, or read from a [`CellLevel`]), or
/// values computed from the pairing.
pub enum Level<'a> {
    Static(Matrix<f64>),
    Cells(&'a dyn CellLevel),
    Dynamic(&'a mut dyn DynamicLevel),
}

/// The repaired pairs (sorted) and, for pairs inside a twin group, their verdicts.
pub type Repaired = (Pairs, BTreeMap<(usize, usize), usize>);

/// Re-pair the twins of `matrix` among `pairs` (an optimal matching of it) by
/// `levels`, in the canonical order of `row_colours` and `col_colours`, over at most
/// `passes` passes (one when no level is dynamic).
pub fn repair_twins(
    pairs: &[(usize, usize)],
    matrix: &Matrix<f64>,
    levels: &mut [Level<'_>],
    row_colours: &[i64],
    col_colours: &[i64],
    passes: usize,
) -> Result<Repaired, AlignError> {
    check_len("row colours", matrix.rows(), row_colours.len())?;
    check_len("column colours", matrix.cols(), col_colours.len())?;
    for level in levels.iter() {
        match level {
            Level::Static(values) => matrix.check_same_shape(values, "static level")?,
            Level::Cells(values) if values.shape() != (matrix.rows(), matrix.cols()) => {
                return Err(AlignError::Mismatch {
                    what: "static level",
                    expected: (matrix.rows(), matrix.cols()),
                    got: values.shape(),
                })
            }
            _ => {}
        }
    }
    let [row_twins, column_twins] = twin_groups_both(matrix)?;
    let groups = [
        by_smallest_colour(row_twins, row_colours)?,
        by_smallest_colour(column_twins, col_colours)?,
    ];
    let dynamic_count = levels
        .iter()
        .filter(|l| matches!(l, Level::Dynamic(_)))
        .count();
    let pass_count = if dynamic_count > 0 { passes } else { 1 };
    let statics = levels.len() - dynamic_count;
    let mut rollouts = ROLLOUTS;
    let mut pairing = Pairing::new(pairs, &groups);
    let mut decided = BTreeMap::new();
    for _ in 0..pass_count {
        let start = pairing.partner.clone();
        // A pass that left some pairs out of the evidence chose without them: the same
        // pairing again is no fixed point of the repair with every pair counted.
        let mut left_out = false;
        // Within a pass a pair keeps the least decisive verdict of the groups that
        // chose it: a column group cannot undo that its row group chose arbitrarily.
        decided = BTreeMap::new();
        pairing.index_columns();
        // A group of the rows and columns the group before re-paired starts from the
        // pairing that group started from, so it would repeat it: it is skipped.
        let mut last: Option<(Vec<usize>, Vec<usize>)> = None;
        for (axis, members) in groups
            .iter()
            .enumerate()
            .flat_map(|(axis, list)| list.iter().map(move |m| (axis, m)))
        {
            let key = pairing.group(axis, members, row_colours, col_colours)?;
            if key.0.is_empty() || key.1.is_empty() || last.as_ref() == Some(&key) {
                continue;
            }
            let (rows, cols) = last.insert(key).clone();
            pairing.release(&rows);
            left_out |= pairing.evidence.len() < pairing.partner.len();
            let reads_choices = pairing.reads_choices();
            let ((chosen, arbitrary), deciding) = repair_group(
                &rows,
                &cols,
                levels,
                dynamic_count,
                &mut pairing.evidence,
                &mut rollouts,
            )?;
            let follows_choices = reads_choices && deciding >= statics;
            let leans = |pair| follows_choices || arbitrary.contains(&pair);
            for pair in pairing.settle(&rows, chosen, leans) {
                let verdict = if leans(pair) { levels.len() } else { deciding };
                let kept = decided.get(&pair).copied().unwrap_or(verdict);
                decided.insert(pair, verdict.max(kept));
            }
        }
        if pairing.partner == start && !left_out {
            break;
        }
    }
    let result: Pairs = pairing.partner.into_iter().collect();
    let verdicts = result
        .iter()
        .filter_map(|p| decided.get(p).map(|&v| (*p, v)))
        .collect();
    Ok((result, verdicts))
}

/// The pairing a twin repair works on, with what its levels may read of it.
struct Pairing {
    /// Row -> column, every pair.
    partner: BTreeMap<usize, usize>,
    /// Column -> row, made at the start of each pass and kept along (a column
    /// group's rows are its columns' partners).
    taken: BTreeMap<usize, usize>,
    /// The pairs the levels read, kept along with `partner` (a copy per group would
    /// cost a big scope's thousands of groups dearly). It leaves out the rows still
    /// paired as the solver first paired the twins, which is one of equally good
    /// pairings: until its group is re-paired, a twin's pair is no evidence for
    /// another group (two groups each following the other's arbitrary pairs would
    /// settle on it).
    evidence: BTreeMap<usize, usize>,
    /// Rows whose pair rests on a choice among equally good ones: their own, or a
    /// dynamic level's reading of such pairs. A pair that follows them is one of
    /// equally good ones too (a label tie), so that the documents' score settles the
    /// choice and what follows from it together.
    leaning: BTreeSet<usize>,
}

impl Pairing {
    /// The solver's `pairs`, no row of a twin group (or paired with a twin column)
    /// in the evidence.
    fn new(pairs: &[(usize, usize)], groups: &[Vec<Vec<usize>>; 2]) -> Self {
        let partner: BTreeMap<usize, usize> = pairs.iter().copied().collect();
        let [row_twins, column_twins] = groups;
        let column_twins: BTreeSet<usize> = column_twins.iter().flatten().copied().collect();
        let mut unsettled: BTreeSet<usize> = row_twins.iter().flatten().copied().collect();
        unsettled.extend(
            partner
                .iter()
                .filter(|(_, j)| column_twins.contains(j))
                .map(|(&i, _)| i),
        );
        let evidence = partner
            .iter()
            .filter(|(i, _)| !unsettled.contains(i))
            .map(|(&i, &j)| (i, j))
            .collect();
        Pairing {
            partner,
            taken: BTreeMap::new(),
            evidence,
            leaning: BTreeSet::new(),
        }
    }

    /// Index the pairs by column, as a pass starts.
    fn index_columns(&mut self) {
        self.taken = self.partner.iter().map(|(&i, &j)| (j, i)).collect();
    }

    /// The rows and columns of the twin group `members` (rows when `axis` is 0,
    /// else columns) and of their partners, in canonical (colour) order.
    fn group(
        &self,
        axis: usize,
        members: &[usize],
        row_colours: &[i64],
        col_colours: &[i64],
    ) -> Result<(Vec<usize>, Vec<usize>), AlignError> {
        if axis == 0 {
            let partners = members.iter().filter_map(|i| self.partner.get(i).copied());
            Ok((
                sorted_by_colour(members.to_vec(), row_colours)?,
                sorted_by_colour(partners.collect(), col_colours)?,
            ))
        } else {
            let partners = members.iter().filter_map(|j| self.taken.get(j).copied());
            Ok((
                sorted_by_colour(partners.collect(), row_colours)?,
                sorted_by_colour(members.to_vec(), col_colours)?,
            ))
        }
    }

    /// Take `rows` out of the pairing, as their group is re-paired.
    fn release(&mut self, rows: &[usize]) {
        for i in rows {
            self.evidence.remove(i);
            if let Some(old) = self.partner.remove(i) {
                if self.taken.get(&old) == Some(i) {
                    self.taken.remove(&old);
                }
            }
        }
    }

    /// Whether the evidence holds a pair that rests on a choice among equals.
    fn reads_choices(&self) -> bool {
        if self.leaning.len() <= self.evidence.len() {
            self.leaning.iter().any(|i| self.evidence.contains_key(i))
        } else {
            self.evidence.keys().any(|i| self.leaning.contains(i))
        }
    }

    /// Put the re-paired group of `rows` back with its pairs `chosen`, those that
    /// `leans` marking as resting on a choice among equals; returns the pairs.
    fn settle(
        &mut self,
        rows: &[usize],
        chosen: Pairs,
        leans: impl Fn((usize, usize)) -> bool,
    ) -> Pairs {
        for i in rows {
            self.leaning.remove(i);
        }
        for &(i, j) in &chosen {
            self.partner.insert(i, j);
            self.evidence.insert(i, j);
            if leans((i, j)) {
                self.leaning.insert(i);
            }
        }
        for i in rows {
            if let Some(&j) = self.partner.get(i) {
                self.taken.insert(j, *i);
            }
        }
        chosen
    }
}

/// A group's new pairs, and those chosen among equally good ones.
type Choice = (Pairs, BTreeSet<(usize, usize)>);

/// One group's [`Choice`] and its deciding level.
fn repair_group(
    rows: &[usize],
    cols: &[usize],
    levels: &mut [Level<'_>],
    dynamic_count: usize,
    partner: &mut BTreeMap<usize, usize>,
    rollouts: &mut usize,
) -> Result<(Choice, usize), AlignError> {
    let mut subs = Vec::with_capacity(levels.len());
    for level in levels.iter_mut() {
        subs.push(match level {
            Level::Static(values) => values.permuted(rows, cols)?,
            Level::Cells(values) => values.cells(rows, cols)?,
            Level::Dynamic(level) => shaped(level.values(partner, rows, cols)?, rows, cols)?,
        });
    }
    let mut deciding = subs.len();
    for (k, sub) in subs.iter().enumerate() {
        if tells_apart(sub)? {
            deciding = k;
            break;
        }
    }
    let statics = subs.len().saturating_sub(dynamic_count);
    let cells = rows.len() * cols.len();
    if dynamic_count > 0 && cells <= GREEDY_CELLS {
        let base = lexicographic(subs.get(..statics).unwrap_or(&[]), rows.len(), cols.len())?;
        let group = Group {
            rows,
            cols,
            base: &base,
        };
        let (chosen, arbitrary) = greedy(&group, levels, partner, rollouts)?;
        return Ok(((chosen, arbitrary), deciding));
    }
    let objective = lexicographic(&subs, rows.len(), cols.len())?;
    let chosen = linear_sum_assignment(&objective, true)?
        .into_iter()
        .map(|(a, b)| Ok((at(rows, a, "group row")?, at(cols, b, "group column")?)))
        .collect::<Result<Pairs, AlignError>>()?;
    Ok(((chosen, BTreeSet::new()), deciding))
}

/// Each dynamic level's values of `rows x cols` given `partner`, in level order.
fn dynamic_values(
    levels: &mut [Level<'_>],
    partner: &BTreeMap<usize, usize>,
    rows: &[usize],
    cols: &[usize],
) -> Result<Vec<Matrix<f64>>, AlignError> {
    let mut all = Vec::new();
    for level in levels.iter_mut() {
        if let Level::Dynamic(dynamic) = level {
            all.push(shaped(dynamic.values(partner, rows, cols)?, rows, cols)?);
        }
    }
    Ok(all)
}

/// A dynamic level's values, checked to be `rows x cols`.
fn shaped(values: Matrix<f64>, rows: &[usize], cols: &[usize]) -> Result<Matrix<f64>, AlignError> {
    check_len("dynamic level rows", rows.len(), values.rows())?;
    check_len("dynamic level columns", cols.len(), values.cols())?;
    Ok(values)
}

/// `float(np.max(cells, initial=0))`: NaN if a cell is NaN (the first met), else the
/// largest cell and 0.0.
fn max0(cells: &[f64]) -> f64 {
    let mut top = 0.0;
    for &value in cells {
        if value.is_nan() {
            return value;
        }
        if value > top {
            top = value;
        }
    }
    top
}

/// One objective ordering pairings by `subs` lexicographically (exact integers):
/// `objective * (max * min(rows, cols) + 1) + sub`, level after level.
fn lexicographic(
    subs: &[Matrix<f64>],
    rows: usize,
    cols: usize,
) -> Result<Matrix<f64>, AlignError> {
    let mut objective = vec![0.0; rows * cols];
    let short = rows.min(cols) as f64;
    for sub in subs {
        let factor = max0(sub.data()) * short + 1.0;
        check_len("level cells", objective.len(), sub.data().len())?;
        for (o, v) in objective.iter_mut().zip(sub.data()) {
            *o = *o * factor + v;
        }
    }
    Matrix::new(rows, cols, objective)
}

/// Whether the full pairings of `values` do not all sum the same. Where the cells
/// are integers (exact sums) and the pairings few, this is read from the cells alone
/// (`same_sums`), as looking through every pairing would find it; else from the
/// solver's best and worst pairings, summed exactly.
fn tells_apart(values: &Matrix<f64>) -> Result<bool, AlignError> {
    let (height, width) = (values.rows(), values.cols());
    let integral = values
        .data()
        .iter()
        .all(|v| v.fract() == 0.0 && v.abs() <= EXACT_CELL);
    if integral && pairings_at_most(height.max(width), height.min(width), SPREAD_PAIRINGS) {
        let same = if height <= width {
            same_sums(values)?
        } else {
            same_sums(&values.transposed())?
        };
        return Ok(!same);
    }
    let total = |pairs: Pairs| -> Result<f64, AlignError> {
        let cells = pairs
            .iter()
            .map(|&(i, j)| values.get(i, j))
            .collect::<Result<Vec<f64>, AlignError>>()?;
        fsum(&cells)
    };
    let best = total(linear_sum_assignment(values, true)?)?;
    let worst = total(linear_sum_assignment(values, false)?)?;
    Ok(best - worst > 0.0)
}

/// Whether every injective pairing of the lines of `lines` (rows <= columns, exact
/// integer cells: every sum and difference below is exact) sums the same. With a
/// column to spare, a line's partner can move to any free column, so each line must
/// be constant; a square one's pairings are all reached by swapping two partners,
/// so every 2 x 2 swap must keep the sum: `v[i][j] + v[0][0] == v[i][0] + v[0][j]`
/// (cells of the form `a[i] + b[j]`).
fn same_sums(lines: &Matrix<f64>) -> Result<bool, AlignError> {
    let (rows, cols) = (lines.rows(), lines.cols());
    if rows == 0 {
        return Ok(true); // the one empty pairing
    }
    let first = lines.row(0)?;
    let corner = at(first, 0, "first cell")?;
    for i in 0..rows {
        let line = lines.row(i)?;
        let lead = at(line, 0, "line's first cell")?;
        for (&value, &top) in line.iter().zip(first) {
            let same = if rows < cols {
                value == lead
            } else {
                value + corner == lead + top
            };
            if !same {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Whether `n! / (n - k)!` (the pairings of k lines into n) is at most `limit`.
fn pairings_at_most(n: usize, k: usize, limit: usize) -> bool {
    let mut count: usize = 1;
    for factor in (n.saturating_sub(k) + 1)..=n {
        count = count.saturating_mul(factor);
        if count > limit {
            return false;
        }
    }
    true
}

/// A group being paired greedily: its rows and columns, and the static levels'
/// objective of its cells.
struct Group<'a> {
    rows: &'a [usize],
    cols: &'a [usize],
    base: &'a Matrix<f64>,
}

impl Group<'_> {
    /// The objective of the free cells: `base` then each dynamic level given every
    /// pair made so far, lexicographically.
    fn objective(
        &self,
        levels: &mut [Level<'_>],
        partner: &BTreeMap<usize, usize>,
        free_rows: &[usize],
        free_cols: &[usize],
    ) -> Result<Matrix<f64>, AlignError> {
        let sub_rows = picked(self.rows, free_rows)?;
        let sub_cols = picked(self.cols, free_cols)?;
        let mut objective = self.base.permuted(free_rows, free_cols)?;
        for cells in dynamic_values(levels, partner, &sub_rows, &sub_cols)? {
            let factor = max0(cells.data()) + 1.0;
            let combined = objective
                .data()
                .iter()
                .zip(cells.data())
                .map(|(o, v)| o * factor + v)
                .collect();
            objective = Matrix::new(sub_rows.len(), sub_cols.len(), combined)?;
        }
        Ok(objective)
    }

    /// The group's positions (row, column) at free positions `(a, b)`, taken out of
    /// the free ones.
    fn take(
        free_rows: &mut Vec<usize>,
        free_cols: &mut Vec<usize>,
        (a, b): (usize, usize),
    ) -> Result<(usize, usize), AlignError> {
        if a >= free_rows.len() || b >= free_cols.len() {
            return Err(AlignError::Internal("greedy cell"));
        }
        Ok((free_rows.remove(a), free_cols.remove(b)))
    }

    /// The records at the group's positions `(p, q)`.
    fn records(&self, (p, q): (usize, usize)) -> Result<(usize, usize), AlignError> {
        Ok((
            at(self.rows, p, "group row")?,
            at(self.cols, q, "group column")?,
        ))
    }

    /// How well the group's pairs at positions `cells` agree with each other: the
    /// static levels' sum, then each dynamic level's [`DynamicLevel::among`] those
    /// pairs alone (exact sums). What lies outside the group (records paired before
    /// it, other scopes reached through their pairing, itself perhaps a provisional
    /// choice) counts in each step's cells already; summed over a completion it would
    /// let one arbitrary choice steer another (fuzz seed 15409: a scope's twins
    /// followed the arbitrary pairing of the look-alikes another scope's links reach).
    fn agreement(
        &self,
        levels: &mut [Level<'_>],
        cells: &[(usize, usize)],
    ) -> Result<Values, AlignError> {
        let own = cells
            .iter()
            .map(|&cell| self.records(cell))
            .collect::<Result<BTreeMap<usize, usize>, AlignError>>()?;
        let sum = |values: &Matrix<f64>| -> Result<f64, AlignError> {
            let picked = cells
                .iter()
                .map(|&(a, b)| values.get(a, b))
                .collect::<Result<Vec<f64>, AlignError>>()?;
            fsum(&picked)
        };
        let mut totals = vec![sum(self.base)?];
        for level in levels.iter_mut() {
            if let Level::Dynamic(dynamic) = level {
                let values = shaped(
                    dynamic.among(&own, self.rows, self.cols)?,
                    self.rows,
                    self.cols,
                )?;
                totals.push(sum(&values)?);
            }
        }
        Ok(totals)
    }

    /// The agreement of the group completed greedily (the first best cell at every
    /// step) after the pairs at positions `placed` and the pair at free positions
    /// `first`; `partner` is left as it was.
    fn rollout(
        &self,
        levels: &mut [Level<'_>],
        partner: &mut BTreeMap<usize, usize>,
        placed: &[(usize, usize)],
        (free_rows, free_cols): (&[usize], &[usize]),
        first: (usize, usize),
    ) -> Result<Values, AlignError> {
        let (mut free_rows, mut free_cols) = (free_rows.to_vec(), free_cols.to_vec());
        let mut made = placed.to_vec();
        let mut added = Vec::new();
        let mut cell = first;
        let outcome = loop {
            let pair = Self::take(&mut free_rows, &mut free_cols, cell)
                .and_then(|at| Ok((at, self.records(at)?)));
            let (at, (i, j)) = match pair {
                Ok(pair) => pair,
                Err(err) => break Err(err),
            };
            partner.insert(i, j);
            added.push(i);
            made.push(at);
            if free_rows.is_empty() || free_cols.is_empty() {
                break self.agreement(levels, &made);
            }
            cell = match self
                .objective(levels, partner, &free_rows, &free_cols)
                .and_then(|objective| best_cell(&objective))
            {
                Ok((a, b, _)) => (a, b),
                Err(err) => break Err(err),
            };
        };
        // the group's rows were unpaired when the rollout began
        for i in added {
            partner.remove(&i);
        }
        outcome
    }
}

/// Pair a group one pair at a time: the best remaining cell by `base` (the static
/// levels) then the dynamic levels given every pair made so far. Among equally good
/// cells (the first best cell's row and column), while the `rollouts` last and the
/// group is small, each is tried by [`Group::rollout`] and the first whose
/// completion agrees best is taken: a choice the pairs made so far do not settle is
/// made by where it leads. Twins in reference cycles of different lengths are told
/// apart so, where 1-WL gives them one colour: which cycle the first pair joins
/// decides how every later pair agrees. Otherwise ties go to the first row, then
/// column. Returns the pairs and those chosen among equally good cells (with the
/// pairs such a choice forced); a looked-ahead choice is still one of those, for the
/// documents' score to settle.
fn greedy(
    group: &Group<'_>,
    levels: &mut [Level<'_>],
    partner: &mut BTreeMap<usize, usize>,
    rollouts: &mut usize,
) -> Result<Choice, AlignError> {
    let (rows, cols, base) = (group.rows, group.cols, group.base);
    let mut free_rows: Vec<usize> = (0..rows.len()).collect();
    let mut free_cols: Vec<usize> = (0..cols.len()).collect();
    let small = rows.len().saturating_mul(cols.len()) <= ROLLOUT_CELLS;
    let mut chosen = Vec::new();
    let mut placed = Vec::new(); // the chosen pairs' positions in the group
    let mut arbitrary = BTreeSet::new();
    while !free_rows.is_empty() && !free_cols.is_empty() {
        let (a, b, tied) = if free_rows.len() == 1 && free_cols.len() == 1 {
            (0, 0, false) // the last cell: forced, and tied with no other
        } else {
            let objective = group.objective(levels, partner, &free_rows, &free_cols)?;
            let (mut a, mut b, tied) = best_cell(&objective)?;
            let options = if tied && small {
                equally_good(&objective, (a, b))?
            } else {
                Vec::new()
            };
            if options.len() > 1 && options.len() <= *rollouts {
                *rollouts -= options.len();
                let free = (free_rows.as_slice(), free_cols.as_slice());
                (a, b) = best_rollout(group, levels, partner, &placed, free, &options)?;
            }
            (a, b, tied)
        };
        let at = Group::take(&mut free_rows, &mut free_cols, (a, b))?;
        let (i, j) = group.records(at)?;
        placed.push(at);
        partner.insert(i, j);
        chosen.push((i, j));
        if tied {
            arbitrary.insert((i, j));
        }
    }
    let arbitrary = forced_by(&chosen, arbitrary, rows, cols, base, levels, partner)?;
    Ok((chosen, arbitrary))
}

/// The cells as good as `(a, b)` (the first best cell) in its row and its column:
/// `(a, b)` first, then its row's by column, then its column's by row.
fn equally_good(
    objective: &Matrix<f64>,
    (a, b): (usize, usize),
) -> Result<Vec<(usize, usize)>, AlignError> {
    let best = objective.get(a, b)?;
    let mut cells = vec![(a, b)];
    for (col, &value) in objective.row(a)?.iter().enumerate() {
        if col != b && value == best {
            cells.push((a, col));
        }
    }
    for row in 0..objective.rows() {
        if row != a && objective.get(row, b)? == best {
            cells.push((row, b));
        }
    }
    Ok(cells)
}

/// The first of `options` whose [`Group::rollout`] (after the pairs at `placed`) agrees best.
fn best_rollout(
    group: &Group<'_>,
    levels: &mut [Level<'_>],
    partner: &mut BTreeMap<usize, usize>,
    placed: &[(usize, usize)],
    free: (&[usize], &[usize]),
    options: &[(usize, usize)],
) -> Result<(usize, usize), AlignError> {
    let mut best: Option<((usize, usize), Values)> = None;
    for &option in options {
        let totals = group.rollout(levels, partner, placed, free, option)?;
        let better = match &best {
            None => true,
            Some((_, top)) => tuple_less(top, &totals),
        };
        if better {
            best = Some((option, totals));
        }
    }
    best.map(|(cell, _)| cell)
        .ok_or(AlignError::Internal("rollout"))
}

fn picked(values: &[usize], positions: &[usize]) -> Result<Vec<usize>, AlignError> {
    positions.iter().map(|&k| at(values, k, "picked")).collect()
}

/// `np.argmax` of `objective` (the first NaN, else the first largest cell, row-major)
/// and whether another cell of its row or column is equal to it.
fn best_cell(objective: &Matrix<f64>) -> Result<(usize, usize, bool), AlignError> {
    let width = objective.cols().max(1);
    let data = objective.data();
    let mut best_at = 0;
    let mut best = at(data, 0, "objective")?;
    if !best.is_nan() {
        for (k, &value) in data.iter().enumerate() {
            if value.is_nan() {
                (best_at, best) = (k, value);
                break;
            }
            if value > best {
                (best_at, best) = (k, value);
            }
        }
    }
    let (a, b) = (best_at / width, best_at % width);
    let in_row = objective.row(a)?.iter().filter(|&&v| v == best).count();
    let in_col = (0..objective.rows())
        .map(|r| objective.get(r, b))
        .collect::<Result<Vec<f64>, AlignError>>()?
        .into_iter()
        .filter(|&v| v == best)
        .count();
    Ok((a, b, in_row > 1 || in_col > 1))
}

/// A cell's values, base first then each dynamic level, as a tuple.
type Values = Vec<f64>;

/// Python's `<` on tuples of floats: the first position where they differ (`!=`,
/// so a NaN differs) decides.
fn tuple_less(x: &Values, y: &Values) -> bool {
    match x.iter().zip(y).find(|(a, b)| a != b) {
        Some((a, b)) => a < b,
        None => x.len() < y.len(),
    }
}

/// `sorted([x, y])` with Python's tuple order.
fn sorted_pair(x: Values, y: Values) -> [Values; 2] {
    if tuple_less(&y, &x) {
        [y, x]
    } else {
        [x, y]
    }
}

/// `arbitrary` grown by the pairs an arbitrary choice forced: a pair that can swap
/// partners with an arbitrary one, every level's values staying the same multiset,
/// was as good a choice.
fn forced_by(
    chosen: &[(usize, usize)],
    mut arbitrary: BTreeSet<(usize, usize)>,
    rows: &[usize],
    cols: &[usize],
    base: &Matrix<f64>,
    levels: &mut [Level<'_>],
    partner: &BTreeMap<usize, usize>,
) -> Result<BTreeSet<(usize, usize)>, AlignError> {
    let row_at: BTreeMap<usize, usize> = rows.iter().enumerate().map(|(a, &i)| (i, a)).collect();
    let col_at: BTreeMap<usize, usize> = cols.iter().enumerate().map(|(b, &j)| (j, b)).collect();
    let position = |map: &BTreeMap<usize, usize>, key: usize| {
        map.get(&key)
            .copied()
            .ok_or(AlignError::Internal("group member"))
    };
    let mut grown = true;
    while grown {
        grown = false;
        for &(i, j) in chosen {
            if arbitrary.contains(&(i, j)) {
                continue;
            }
            let mut found = false;
            for &(k, other) in arbitrary.iter() {
                let fixed: BTreeMap<usize, usize> = partner
                    .iter()
                    .filter(|(a, _)| **a != i && **a != k)
                    .map(|(&a, &b)| (a, b))
                    .collect();
                let cells = dynamic_values(levels, &fixed, &[i, k], &[j, other])?;
                let value =
                    |a: usize, r: usize, b: usize, c: usize| -> Result<Values, AlignError> {
                        let mut tuple =
                            vec![base.get(position(&row_at, r)?, position(&col_at, c)?)?];
                        for cell in &cells {
                            tuple.push(cell.get(a, b)?);
                        }
                        Ok(tuple)
                    };
                let before = sorted_pair(value(0, i, 0, j)?, value(1, k, 1, other)?);
                let after = sorted_pair(value(0, i, 1, other)?, value(1, k, 0, j)?);
                if after == before {
                    found = true;
                    break;
                }
            }
            if found {
                arbitrary.insert((i, j));
                grown = true;
                break;
            }
        }
    }
    Ok(arbitrary)
}

/// `sorted(groups, key=min colour of a member)` (stable).
fn by_smallest_colour(
    mut groups: Vec<Vec<usize>>,
    colours: &[i64],
) -> Result<Vec<Vec<usize>>, AlignError> {
    let mut keys = Vec::with_capacity(groups.len());
    for group in &groups {
        let mut smallest = None;
        for &k in group {
            let colour = at(colours, k, "colour")?;
            smallest = Some(smallest.map_or(colour, |s: i64| s.min(colour)));
        }
        keys.push(smallest.unwrap_or(i64::MIN));
    }
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&g| keys.get(g).copied());
    let mut sorted = Vec::with_capacity(groups.len());
    for g in order {
        sorted.push(std::mem::take(
            groups.get_mut(g).ok_or(AlignError::Internal("group"))?,
        ));
    }
    Ok(sorted)
}

/// `sorted(items, key=colour)` (stable).
fn sorted_by_colour(mut items: Vec<usize>, colours: &[i64]) -> Result<Vec<usize>, AlignError> {
    for &k in &items {
        at(colours, k, "colour")?;
    }
    items.sort_by_key(|&k| colours.get(k).copied());
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dynamic level: 1 where the cell's column is `row + shift` given the pairing
    /// of row 0 (0 when row 0 is unpaired), else 0.
    struct Shifted;

    impl DynamicLevel for Shifted {
        fn values(
            &mut self,
            partner: &BTreeMap<usize, usize>,
            rows: &[usize],
            cols: &[usize],
        ) -> Result<Matrix<f64>, AlignError> {
            let shift = partner.get(&0).copied().unwrap_or(0);
            let cells = rows
                .iter()
                .flat_map(|&i| {
                    cols.iter()
                        .map(move |&j| f64::from(u8::from(j == (i + shift) % 3)))
                })
                .collect();
            Matrix::new(rows.len(), cols.len(), cells)
        }
    }

    struct Misshapen;

    impl DynamicLevel for Misshapen {
        fn values(
            &mut self,
            _: &BTreeMap<usize, usize>,
            _: &[usize],
            _: &[usize],
        ) -> Result<Matrix<f64>, AlignError> {
            Matrix::new(1, 1, vec![0.0])
        }
    }

    fn ones(n: usize, m: usize) -> Matrix<f64> {
        Matrix::new(n, m, vec![1.0; n * m]).expect("shape")
    }

    #[test]
    fn without_twins_nothing_changes() -> Result<(), AlignError> {
        let matrix = Matrix::new(2, 2, vec![1.0, 0.0, 0.0, 1.0])?;
        let bonus = Matrix::new(2, 2, vec![0.0, 1.0, 1.0, 0.0])?;
        let mut levels = [Level::Static(bonus)];
        let (pairs, verdicts) =
            repair_twins(&[(0, 0), (1, 1)], &matrix, &mut levels, &[0, 1], &[0, 1], 2)?;
        assert_eq!((pairs, verdicts.len()), (vec![(0, 0), (1, 1)], 0));
        Ok(())
    }

    #[test]
    fn a_static_level_re_pairs_twins() -> Result<(), AlignError> {
        let bonus = Matrix::new(2, 2, vec![0.0, 1.0, 1.0, 0.0])?;
        let mut levels = [Level::Static(bonus)];
        let (pairs, verdicts) = repair_twins(
            &[(0, 0), (1, 1)],
            &ones(2, 2),
            &mut levels,
            &[0, 0],
            &[0, 0],
            2,
        )?;
        assert_eq!(pairs, vec![(0, 1), (1, 0)]);
        assert_eq!(verdicts.values().copied().collect::<Vec<_>>(), vec![0, 0]);
        Ok(())
    }

    #[test]
    fn a_dynamic_level_sees_the_pairs_made_before() -> Result<(), AlignError> {
        let mut level = Shifted;
        let mut levels = [Level::Dynamic(&mut level)];
        let (pairs, verdicts) = repair_twins(
            &[(0, 0), (1, 1), (2, 2)],
            &ones(3, 3),
            &mut levels,
            &[0, 0, 0],
            &[0, 0, 0],
            2,
        )?;
        assert_eq!(pairs.len(), 3);
        assert!(verdicts.values().all(|&v| v <= 1));
        Ok(())
    }

    /// Each record references one other (a successor): 1 where gold i's successor
    /// is paired with candidate j's successor.
    struct Successors {
        gold: Vec<usize>,
        candidate: Vec<usize>,
    }

    impl DynamicLevel for Successors {
        fn values(
            &mut self,
            partner: &BTreeMap<usize, usize>,
            rows: &[usize],
            cols: &[usize],
        ) -> Result<Matrix<f64>, AlignError> {
            let mut cells = Vec::with_capacity(rows.len() * cols.len());
            for &i in rows {
                let target = partner.get(&at(&self.gold, i, "gold successor")?);
                for &j in cols {
                    let agrees = target == Some(&at(&self.candidate, j, "successor")?);
                    cells.push(f64::from(u8::from(agrees)));
                }
            }
            Matrix::new(rows.len(), cols.len(), cells)
        }
    }

    #[test]
    fn a_rollout_pairs_twins_in_cycles_of_different_lengths() -> Result<(), AlignError> {
        // gold: a 2-cycle (0, 1) and a 4-cycle (2..6); candidate: a 4-cycle (0..4)
        // and a 2-cycle (4, 5). Nothing tells the six twins apart until one is paired,
        // and the canonical first choice (0 with 0) joins cycles of different lengths.
        let mut level = Successors {
            gold: vec![1, 0, 3, 4, 5, 2],
            candidate: vec![1, 2, 3, 0, 5, 4],
        };
        let pairs: Vec<(usize, usize)> = (0..6).map(|k| (k, k)).collect();
        let (pairs, verdicts) = {
            let mut levels = [Level::Dynamic(&mut level)];
            repair_twins(&pairs, &ones(6, 6), &mut levels, &[0; 6], &[0; 6], 2)?
        };
        let partner: BTreeMap<usize, usize> = pairs.iter().copied().collect();
        for (&i, &j) in &partner {
            let gold_next = at(&level.gold, i, "gold")?;
            let candidate_next = at(&level.candidate, j, "candidate")?;
            assert_eq!(partner.get(&gold_next), Some(&candidate_next), "{pairs:?}");
        }
        assert_eq!(
            partner.get(&0),
            Some(&4),
            "the first of the equally good completions"
        );
        // the first pair was one of several equally good cells: still a label tie
        assert_eq!(verdicts.get(&(0, 4)), Some(&1));
        Ok(())
    }

    /// Records in groups (a nested scope's occurrences): how many other records of
    /// gold i's group are paired into candidate j's group.
    struct Shared {
        gold: Vec<usize>,
        candidate: Vec<usize>,
    }

    impl DynamicLevel for Shared {
        fn values(
            &mut self,
            partner: &BTreeMap<usize, usize>,
            rows: &[usize],
            cols: &[usize],
        ) -> Result<Matrix<f64>, AlignError> {
            let mut cells = Vec::with_capacity(rows.len() * cols.len());
            for &i in rows {
                let group = at(&self.gold, i, "gold group")?;
                for &j in cols {
                    let target = at(&self.candidate, j, "candidate group")?;
                    let mut shared = 0.0;
                    for (&k, &t) in partner {
                        if k != i
                            && at(&self.gold, k, "gold group")? == group
                            && at(&self.candidate, t, "candidate group")? == target
                        {
                            shared += 1.0;
                        }
                    }
                    cells.push(shared);
                }
            }
            Matrix::new(rows.len(), cols.len(), cells)
        }
    }

    /// Records `0..n` in groups by parity on both sides (a [`Shared`] level), and a
    /// score matrix of 1 where `class` puts a row and a column together, else 0.
    fn parity_groups(
        n: usize,
        class: impl Fn(usize) -> usize,
    ) -> Result<(Shared, Matrix<f64>), AlignError> {
        let level = Shared {
            gold: (0..n).map(|k| k % 2).collect(),
            candidate: (0..n).map(|k| k % 2).collect(),
        };
        let class = &class;
        let cells = (0..n)
            .flat_map(|i| (0..n).map(move |j| f64::from(u8::from(class(i) == class(j)))))
            .collect();
        Ok((level, Matrix::new(n, n, cells)?))
    }

    #[test]
    fn twins_follow_settled_pairs_not_the_solvers_arbitrary_ones() -> Result<(), AlignError> {
        // Two twin groups (records 0-1 and 2-5) and a record 6 only its partner
        // matches, in gold groups X (even) and Y (odd), candidate groups P (even) and
        // Q (odd). The solver paired every twin across (X with Q); record 6 says X
        // goes with P. Counting the second group's arbitrary pairs, the first group
        // followed them (two against one) and the pairing stayed crossed.
        let (mut level, matrix) = parity_groups(7, |k| match k {
            0..=1 => 0,
            2..=5 => 1,
            _ => k,
        })?;
        let crossed = [(0, 1), (1, 0), (2, 3), (3, 2), (4, 5), (5, 4), (6, 6)];
        let mut levels = [Level::Dynamic(&mut level)];
        let (pairs, _) = repair_twins(&crossed, &matrix, &mut levels, &[0; 7], &[0; 7], 2)?;
        assert!(pairs.iter().all(|&(i, j)| i % 2 == j % 2), "{pairs:?}");
        Ok(())
    }

    #[test]
    fn pairs_that_follow_a_choice_among_equals_are_label_ties() -> Result<(), AlignError> {
        // Two twin groups (0-1 and 2-3) in groups X (even) and Y (odd), and nothing
        // else: the first group's pairing is a choice among equally good ones, and the
        // second group's follows it, so both are label ties (verdict 1, the number of
        // levels) for the documents' score to settle together.
        let (mut level, matrix) = parity_groups(4, |k| k / 2)?;
        let mut levels = [Level::Dynamic(&mut level)];
        let pairs = [(0, 0), (1, 1), (2, 2), (3, 3)];
        let (pairs, verdicts) = repair_twins(&pairs, &matrix, &mut levels, &[0; 4], &[0; 4], 2)?;
        assert!(pairs.iter().all(|&(i, j)| i % 2 == j % 2), "{pairs:?}");
        assert_eq!(verdicts.len(), 4);
        assert!(
            verdicts.values().all(|&verdict| verdict == 1),
            "{verdicts:?}"
        );
        Ok(())
    }

    #[test]
    fn bad_levels_and_colours_are_errors() {
        let mut level = Misshapen;
        let mut levels = [Level::Dynamic(&mut level)];
        let pairs = [(0, 0), (1, 1)];
        assert!(repair_twins(&pairs, &ones(2, 2), &mut levels, &[0, 0], &[0, 0], 2).is_err());
        assert!(repair_twins(&pairs, &ones(2, 2), &mut [], &[0], &[0, 0], 2).is_err());
        let mut levels = [Level::Static(ones(1, 2))];
        assert!(repair_twins(&pairs, &ones(2, 2), &mut levels, &[0, 0], &[0, 0], 2).is_err());
    }

    #[test]
    fn pairings_are_told_apart_from_the_cells_and_by_the_solver() -> Result<(), AlignError> {
        assert!(tells_apart(&Matrix::new(2, 2, vec![1.0, 0.0, 0.0, 1.0])?)?);
        assert!(!tells_apart(&ones(7, 8))?);
        let mut diagonal = vec![0.0; 49];
        diagonal.iter_mut().step_by(8).for_each(|v| *v = 0.5);
        assert!(tells_apart(&Matrix::new(7, 7, diagonal)?)?);
        // a_i + b_j: every pairing of a square sums the same, not of a wide one
        let additive = Matrix::new(2, 3, vec![1.0, 2.0, 5.0, 3.0, 4.0, 7.0])?;
        assert!(tells_apart(&additive)?);
        let square = Matrix::new(3, 3, vec![1.0, 2.0, 5.0, 3.0, 4.0, 7.0, 0.0, 1.0, 4.0])?;
        assert!(!tells_apart(&square)? && !tells_apart(&square.transposed())?);
        assert!(pairings_at_most(5, 3, 60) && !pairings_at_most(5, 3, 59));
        Ok(())
    }

    /// The sum of every injective pairing of the lines of `lines` (rows <= columns).
    fn enumerated_sums(lines: &Matrix<f64>, chosen: &mut Vec<usize>, sums: &mut Vec<f64>) {
        if chosen.len() == lines.rows() {
            let cells = chosen.iter().enumerate().map(|(i, &j)| lines.get(i, j));
            sums.push(cells.map(|v| v.expect("cell")).sum());
            return;
        }
        for col in 0..lines.cols() {
            if !chosen.contains(&col) {
                chosen.push(col);
                enumerated_sums(lines, chosen, sums);
                chosen.pop();
            }
        }
    }

    #[test]
    fn same_sums_is_what_looking_through_every_pairing_finds() -> Result<(), AlignError> {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut draw = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let (mut same, mut apart) = (0, 0);
        for _ in 0..4000 {
            let rows = usize::try_from(draw(4)).unwrap_or(0);
            let cols = rows + usize::try_from(draw(3)).unwrap_or(0);
            // half of the draws a_i + b_j (+ noise at one cell now and then)
            let (a, b): (Vec<f64>, Vec<f64>) = (
                (0..rows).map(|_| draw(3) as f64 - 1.0).collect(),
                (0..cols).map(|_| draw(3) as f64).collect(),
            );
            let mut cells = Vec::new();
            for i in 0..rows {
                for j in 0..cols {
                    let additive =
                        a.get(i).copied().unwrap_or(0.0) + b.get(j).copied().unwrap_or(0.0);
                    cells.push(match draw(8) {
                        0 => draw(3) as f64,
                        1 => -0.0,
                        _ if draw(2) == 0 => additive,
                        _ => a.get(i).copied().unwrap_or(0.0),
                    });
                }
            }
            let lines = Matrix::new(rows, cols, cells)?;
            let mut sums = Vec::new();
            enumerated_sums(&lines, &mut Vec::new(), &mut sums);
            let top = sums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let bottom = sums.iter().copied().fold(f64::INFINITY, f64::min);
            let expected = top - bottom > 0.0;
            assert_eq!(same_sums(&lines)?, !expected, "{lines:?}");
            assert_eq!(tells_apart(&lines)?, expected);
            assert_eq!(tells_apart(&lines.transposed())?, expected);
            if expected {
                apart += 1;
            } else {
                same += 1;
            }
        }
        assert!(
            same > 500 && apart > 500,
            "both answers drawn: {same} {apart}"
        );
        Ok(())
    }
}
