//! The pairing of one scope's records by the tie policy, lexicographically: C, then
//! the WL bonus b, then the agreement depth a, then the content
//! rule ([`super::policy`] lists them).
//!
//! Rows and columns are put in a canonical order first: the colour refinement of the
//! complete bipartite graph whose cells are labelled by (C, b, a), seeded by the
//! records' WL colours, then the records' canonical JSON among records still sharing a
//! colour. `C + eps * b` (or the blend) is assigned in that order; twins are re-paired
//! by (b, a, references through the pairing); pairs that an equally good other choice
//! left open are reported as label ties for the documents' score to settle
//! ([`super::settle`]).

use std::borrow::Cow;
use std::collections::BTreeSet;

use super::assignment::{
    canonical_matching, canonical_matching_coded, epsilon_of, max_weight_matching, Pairs,
};
use super::colours::{bipartite_colours, CellLabels};
use super::distinct::Distinct;
use super::error::{at, check_len, AlignError};
use super::matrix::Matrix;
use super::policy::{TieRule, BY_LABELS};
use super::repair::{repair_twins, Level};
use super::settle::SCORED_RECORDS;
use super::structure::{filled, ReferenceAgreement, Structure, StructureLevel};
use super::twins::{twin_groups, Axis};
use super::wl::{colour_count, relabel};

/// How reference structure enters a scope's alignment (`oa_core.kinds.WLMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WlMode {
    /// The paper's default: structure only breaks exact ties of C.
    TieBreak,
    /// `(1 - lambda) * C + lambda * b` is assigned.
    Blend,
    /// The paper's ablation: no structure, ties follow positions.
    None,
}

impl WlMode {
    /// The mode named as `WLMode`'s values name it.
    ///
    /// ```
    /// use oa_engine::align::WlMode;
    /// assert_eq!(WlMode::parse("blend"), Some(WlMode::Blend));
    /// assert_eq!(WlMode::parse("other"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "tie_break" => Some(Self::TieBreak),
            "blend" => Some(Self::Blend),
            "none" => Some(Self::None),
            _ => None,
        }
    }
}

/// A record's last, position-free sort key: its canonical JSON with lists in a
/// canonical order, then as written (UTF-8 bytes, whose order is the code points').
pub type RecordKey = (Vec<u8>, Vec<u8>);

/// The sort keys of records, asked for only where two records share a colour (a
/// key costs the record's canonical JSON).
pub trait RecordKeys {
    /// The keys of the gold (`gold`) or candidate records `records`, in that order.
    fn keys(&mut self, gold: bool, records: &[usize]) -> Result<Vec<RecordKey>, AlignError>;
}

/// One scope's pairing.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopePairing {
    /// The pairs (genuine: C > 0), sorted.
    pub pairs: Pairs,
    /// What decided each pair, in the order of `pairs`.
    pub rules: Vec<TieRule>,
    /// The pairs only the records' canonical JSON told apart, sorted.
    pub label_ties: Pairs,
    /// The canonical rank of each gold row and candidate column.
    pub rows: Vec<i64>,
    pub cols: Vec<i64>,
}

/// The pairs of `matrix` (C: gold x candidate records) by the tie policy.
///
/// Without `structure` (WL off, or nothing to compare) the assignment of C alone
/// decides, and twins follow positions. `keys` gives the records' sort keys.
///
/// ```
/// use oa_engine::align::{pair_scope, Matrix, RecordKey, RecordKeys, TieRule, WlMode,
///                        AlignError};
/// struct NoKeys;
/// impl RecordKeys for NoKeys {
///     fn keys(&mut self, _: bool, r: &[usize]) -> Result<Vec<RecordKey>, AlignError> {
///         Ok(r.iter().map(|k| (vec![*k as u8], vec![])).collect())
///     }
/// }
/// let c = Matrix::new(2, 2, vec![1.0, 1.0, 1.0, 1.0]).unwrap();
/// let paired = pair_scope(&c, WlMode::None, 0.5, None, &mut NoKeys).unwrap();
/// assert_eq!(paired.pairs, vec![(0, 0), (1, 1)]);
/// assert_eq!(paired.rules, vec![TieRule::Position; 2]);
/// ```
pub fn pair_scope(
    matrix: &Matrix<f64>,
    mode: WlMode,
    wl_lambda: f64,
    structure: Option<Structure>,
    keys: &mut dyn RecordKeys,
) -> Result<ScopePairing, AlignError> {
    let (n, m) = (matrix.rows(), matrix.cols());
    let Some(structure) = structure.filter(|_| n * m > 0) else {
        let pairs = max_weight_matching(matrix, None)?;
        let twins: BTreeSet<(usize, usize)> = twin_pairs(matrix, &pairs)?.into_iter().collect();
        let rules = pairs
            .iter()
            .map(|p| {
                if twins.contains(p) {
                    TieRule::Position
                } else {
                    TieRule::Attributes
                }
            })
            .collect();
        return Ok(ScopePairing {
            pairs,
            rules,
            label_ties: Vec::new(),
            rows: identity(n)?,
            cols: identity(m)?,
        });
    };
    if structure.shape() != (n, m) {
        return Err(AlignError::Mismatch {
            what: "colour agreement",
            expected: (n, m),
            got: structure.shape(),
        });
    }
    let same = |i: usize, j: usize| structure.same(i, j);
    // the distinct values of C, found once: the labels' ranks and the tie epsilon
    let distinct = Distinct::of(matrix.data());
    let (rows, cols) = {
        let labels = ScopeLabels {
            matrix,
            distinct: &distinct,
            structure: &structure,
            rounds: structure.deepest()?.max(0) + 1,
        };
        bipartite_colours(
            &labels,
            &structure.gold_colours,
            &structure.candidate_colours,
        )?
    };
    let rows = with_keys(&rows, true, keys)?;
    let cols = with_keys(&cols, false, keys)?;
    let blend = mode == WlMode::Blend;
    let objective = if blend {
        let mut cells = Vec::with_capacity(n * m);
        for i in 0..n {
            for (j, c) in matrix.row(i)?.iter().enumerate() {
                cells.push((1.0 - wl_lambda) * c + wl_lambda * same(i, j)?);
            }
        }
        Cow::Owned(Matrix::new(n, m, cells)?)
    } else {
        Cow::Borrowed(matrix)
    };
    let mut pairs = if blend {
        canonical_matching(&objective, None, 1.0, &rows, &cols)?
    } else {
        let eps = epsilon_of(&distinct, matrix);
        canonical_matching_coded(matrix, &distinct, eps, same, &rows, &cols)?
    };
    let mut genuine = Vec::with_capacity(pairs.len());
    for (i, j) in pairs {
        if matrix.get(i, j)? > 0.0 {
            genuine.push((i, j));
        }
    }
    let mut agreement = ReferenceAgreement(&structure.references);
    // b and a are read at the twin groups' cells only: no n x m matrix of them
    let (b, a) = (
        StructureLevel {
            structure: &structure,
            depth: false,
        },
        StructureLevel {
            structure: &structure,
            depth: true,
        },
    );
    let mut levels = [
        Level::Cells(&b),
        Level::Cells(&a),
        Level::Dynamic(&mut agreement),
    ];
    let decided;
    (pairs, decided) = repair_twins(&genuine, &objective, &mut levels, &rows, &cols, 2)?;
    let mut rules: Vec<TieRule> = pairs
        .iter()
        .map(|p| {
            decided
                .get(p)
                .map_or(TieRule::Attributes, |&v| TieRule::of_level(v))
        })
        .collect();
    let mut label_ties: BTreeSet<(usize, usize)> = pairs
        .iter()
        .filter(|p| decided.get(p) == Some(&BY_LABELS))
        .copied()
        .collect();
    if n <= SCORED_RECORDS {
        let open = open_choices(&pairs, matrix, same, &objective)?;
        for (pair, rule) in pairs.iter().zip(rules.iter_mut()) {
            if open.contains(pair) {
                *rule = TieRule::Content;
                label_ties.insert(*pair);
            }
        }
    }
    Ok(ScopePairing {
        pairs,
        rules,
        label_ties: label_ties.into_iter().collect(),
        rows,
        cols,
    })
}

fn identity(count: usize) -> Result<Vec<i64>, AlignError> {
    let mut ranks = filled(count, 0i64)?;
    for (k, rank) in ranks.iter_mut().enumerate() {
        *rank = i64::try_from(k).map_err(|_| AlignError::Internal("rank"))?;
    }
    Ok(ranks)
}

/// One label per cell, equal for cells equal in C, b and a: `(rank of C among its
/// distinct values * 2 + b) * rounds + a` (wrapping as numpy's int64 does), made a
/// line at a time as the colour refinement reads them.
struct ScopeLabels<'a> {
    matrix: &'a Matrix<f64>,
    distinct: &'a Distinct,
    structure: &'a Structure,
    /// The largest a plus one.
    rounds: i64,
}

impl ScopeLabels<'_> {
    fn label(&self, c: f64, b: f64, a: i64) -> Result<i64, AlignError> {
        // -0.0 and 0.0 are one value, as for np.searchsorted
        let rank =
            i64::try_from(self.distinct.rank(c)?).map_err(|_| AlignError::Internal("rank"))?;
        let bonus = i64::from(b != 0.0);
        Ok(rank
            .wrapping_mul(2)
            .wrapping_add(bonus)
            .wrapping_mul(self.rounds)
            .wrapping_add(a))
    }
}

impl CellLabels for ScopeLabels<'_> {
    fn shape(&self) -> (usize, usize) {
        (self.matrix.rows(), self.matrix.cols())
    }

    fn row(&self, i: usize, out: &mut [i64]) -> Result<(), AlignError> {
        self.structure.depth_row(i, out)?;
        for ((j, cell), &c) in out.iter_mut().enumerate().zip(self.matrix.row(i)?) {
            *cell = self.label(c, self.structure.same(i, j)?, *cell)?;
        }
        Ok(())
    }

    fn column(&self, j: usize, out: &mut [i64]) -> Result<(), AlignError> {
        check_len("label column", self.matrix.rows(), out.len())?;
        for (i, cell) in out.iter_mut().enumerate() {
            let c = self.matrix.get(i, j)?;
            *cell = self.label(c, self.structure.same(i, j)?, self.structure.depth(i, j)?)?;
        }
        Ok(())
    }
}

/// Ranks refining `colours` by the records' keys (asked only for records sharing a
/// colour; the others' keys are never compared), then by index.
fn with_keys(
    colours: &[usize],
    gold: bool,
    keys: &mut dyn RecordKeys,
) -> Result<Vec<i64>, AlignError> {
    let mut counts = vec![0usize; colour_count(colours)];
    for &colour in colours {
        *counts
            .get_mut(colour)
            .ok_or(AlignError::Internal("colour"))? += 1;
    }
    let mut shared = Vec::new();
    for (k, &colour) in colours.iter().enumerate() {
        if at(&counts, colour, "colour count")? > 1 {
            shared.push(k);
        }
    }
    let found = if shared.is_empty() {
        Vec::new()
    } else {
        keys.keys(gold, &shared)?
    };
    check_len("record keys", shared.len(), found.len())?;
    let mut key_of: Vec<RecordKey> = vec![(Vec::new(), Vec::new()); colours.len()];
    for (k, key) in shared.into_iter().zip(found) {
        *key_of.get_mut(k).ok_or(AlignError::Internal("record"))? = key;
    }
    let mut order: Vec<(usize, &RecordKey, usize)> = colours
        .iter()
        .zip(&key_of)
        .enumerate()
        .map(|(k, (&colour, key))| (colour, key, k))
        .collect();
    order.sort_unstable();
    let mut ranks = vec![0i64; colours.len()];
    for (rank, (_, _, k)) in order.into_iter().enumerate() {
        *ranks.get_mut(k).ok_or(AlignError::Internal("rank"))? =
            i64::try_from(rank).map_err(|_| AlignError::Internal("rank"))?;
    }
    Ok(ranks)
}

/// Pairs whose gold row ties exactly with another paired gold row (twins).
///
/// ```
/// use oa_engine::align::{twin_pairs, Matrix};
/// let c = Matrix::new(3, 2, vec![1.0, 0.5, 1.0, 0.5, 0.0, 1.0]).unwrap();
/// assert_eq!(twin_pairs(&c, &[(0, 0), (1, 1), (2, 1)]).unwrap(), vec![(0, 0), (1, 1)]);
/// ```
pub fn twin_pairs(matrix: &Matrix<f64>, pairs: &[(usize, usize)]) -> Result<Pairs, AlignError> {
    let paired: BTreeSet<usize> = pairs.iter().map(|&(i, _)| i).collect();
    let mut twins = BTreeSet::new();
    for group in twin_groups(matrix, Axis::Rows)? {
        let members: Vec<usize> = group.into_iter().filter(|i| paired.contains(i)).collect();
        if members.len() > 1 {
            twins.extend(members);
        }
    }
    Ok(pairs
        .iter()
        .filter(|(i, _)| twins.contains(i))
        .copied()
        .collect())
}

/// An id per row, or per column, equal for lines equal bit for bit.
fn line_ids(matrix: &Matrix<f64>, axis: Axis) -> Result<Vec<usize>, AlignError> {
    let bits = matrix.map(f64::to_bits);
    let lines = match axis {
        Axis::Rows => bits,
        Axis::Columns => bits.transposed(),
    };
    let all = (0..lines.rows())
        .map(|k| lines.row(k))
        .collect::<Result<Vec<&[u64]>, AlignError>>()?;
    Ok(relabel(&all))
}

/// The pairs the solver chose among equally good ones outside twin groups.
///
/// A pair is open when an unpaired column (or row) is as good a partner for its row
/// (column), or when it can exchange partners with another pair, with the values of
/// C and of the colour bonus b kept (as multisets). Twins (identical lines of
/// `twins_of`) are left to the twin repair, which re-paired them by structure.
fn open_choices(
    pairs: &[(usize, usize)],
    matrix: &Matrix<f64>,
    same: impl Fn(usize, usize) -> Result<f64, AlignError>,
    twins_of: &Matrix<f64>,
) -> Result<BTreeSet<(usize, usize)>, AlignError> {
    let mut found = BTreeSet::new();
    let (n, m) = (matrix.rows(), matrix.cols());
    let mut values = Vec::with_capacity(pairs.len());
    for &(i, j) in pairs {
        values.push(matrix.get(i, j)?);
    }
    // Every open choice repeats a pair's value elsewhere in its row or column (an
    // exchange does too): the common case, where none does, ends here.
    let mut repeated = false;
    for (&(i, j), &v) in pairs.iter().zip(&values) {
        let in_row = matrix.row(i)?.iter().filter(|&&x| x == v).count();
        let mut in_col = 0;
        for r in 0..n {
            in_col += usize::from(matrix.get(r, j)? == v);
        }
        repeated |= in_row != 1 || in_col != 1;
    }
    if !repeated {
        return Ok(found);
    }
    let row_key = line_ids(twins_of, Axis::Rows)?;
    let col_key = line_ids(twins_of, Axis::Columns)?;
    let paired_rows: BTreeSet<usize> = pairs.iter().map(|&(i, _)| i).collect();
    let paired_cols: BTreeSet<usize> = pairs.iter().map(|&(_, j)| j).collect();
    let free_rows: Vec<usize> = (0..n).filter(|r| !paired_rows.contains(r)).collect();
    let free_cols: Vec<usize> = (0..m).filter(|c| !paired_cols.contains(c)).collect();
    for (&(i, j), &v) in pairs.iter().zip(&values) {
        let b = same(i, j)?;
        let mut open = false;
        for &c in &free_cols {
            open |= matrix.get(i, c)? == v
                && same(i, c)? == b
                && at(&col_key, c, "column")? != at(&col_key, j, "column")?;
        }
        for &r in &free_rows {
            open |= matrix.get(r, j)? == v
                && same(r, j)? == b
                && at(&row_key, r, "row")? != at(&row_key, i, "row")?;
        }
        if open {
            found.insert((i, j));
        }
    }
    for (a, &(i, j)) in pairs.iter().enumerate() {
        for &(k, l) in pairs.get(a + 1..).unwrap_or(&[]) {
            if at(&row_key, i, "row")? == at(&row_key, k, "row")?
                || at(&col_key, j, "column")? == at(&col_key, l, "column")?
            {
                continue;
            }
            let mut kept = true;
            let score = |r: usize, c: usize| matrix.get(r, c);
            for level in [&score as &dyn Fn(usize, usize) -> _, &same] {
                let (il, kj) = (level(i, l)?, level(k, j)?);
                let (ij, kl) = (level(i, j)?, level(k, l)?);
                kept &= smaller(il, kj) == smaller(ij, kl) && larger(il, kj) == larger(ij, kl);
            }
            if kept {
                found.insert((i, j));
                found.insert((k, l));
            }
        }
    }
    Ok(found)
}

/// Python's `min(a, b)` (the first unless the second is smaller).
fn smaller(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// Python's `max(a, b)` (the first unless the second is larger).
fn larger(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::super::structure::References;
    use super::*;

    /// Keys that order records by their index reversed (so the keys, not positions,
    /// decide).
    struct Reversed;

    impl RecordKeys for Reversed {
        fn keys(&mut self, _: bool, records: &[usize]) -> Result<Vec<RecordKey>, AlignError> {
            Ok(records
                .iter()
                .map(|&k| (vec![u8::MAX - u8::try_from(k).unwrap_or(0)], Vec::new()))
                .collect())
        }
    }

    fn flat_structure(n: usize, m: usize) -> Result<Structure, AlignError> {
        let gold = Matrix::new(1, n, vec![0; n])?;
        let candidate = Matrix::new(1, m, vec![0; m])?;
        let none = References::new(
            vec![vec![]; n],
            vec![vec![]; m],
            vec![-1; n],
            vec![-1; m],
            None,
            None,
        )?;
        Structure::new(&gold, &candidate, none)
    }

    #[test]
    fn twins_without_structure_are_label_ties() -> Result<(), AlignError> {
        let c = Matrix::new(2, 2, vec![1.0; 4])?;
        let s = flat_structure(2, 2)?;
        let paired = pair_scope(&c, WlMode::TieBreak, 0.5, Some(s), &mut Reversed)?;
        // the keys reverse the records: the canonical order is 1, 0
        assert_eq!(paired.rows, vec![1, 0]);
        assert_eq!(paired.pairs, vec![(0, 0), (1, 1)]);
        assert_eq!(paired.rules, vec![TieRule::Content; 2]);
        assert_eq!(paired.label_ties, paired.pairs);
        Ok(())
    }

    #[test]
    fn colours_break_ties() -> Result<(), AlignError> {
        let c = Matrix::new(2, 2, vec![1.0; 4])?;
        let gold = Matrix::new(2, 2, vec![0, 0, 1, 2])?;
        let candidate = Matrix::new(2, 2, vec![0, 0, 2, 1])?;
        let none = References::new(
            vec![vec![]; 2],
            vec![vec![]; 2],
            vec![-1; 2],
            vec![-1; 2],
            None,
            None,
        )?;
        let s = Structure::new(&gold, &candidate, none)?;
        for mode in [WlMode::TieBreak, WlMode::Blend] {
            let paired = pair_scope(&c, mode, 0.5, Some(s.clone()), &mut Reversed)?;
            assert_eq!(paired.pairs, vec![(0, 1), (1, 0)]);
            assert!(paired.label_ties.is_empty());
        }
        Ok(())
    }

    #[test]
    fn an_unpaired_record_as_good_is_an_open_choice() -> Result<(), AlignError> {
        let c = Matrix::new(1, 2, vec![0.5, 0.5])?;
        let same = Matrix::new(1, 2, vec![0.0, 0.0])?;
        let twins_of = Matrix::new(1, 2, vec![0.5, 0.25])?;
        let open = open_choices(&[(0, 0)], &c, |i, j| same.get(i, j), &twins_of)?;
        assert_eq!(open.into_iter().collect::<Vec<_>>(), vec![(0, 0)]);
        let swap = Matrix::new(2, 2, vec![0.5, 0.25, 0.25, 0.5])?;
        let none = Matrix::new(2, 2, vec![0.0; 4])?;
        assert!(open_choices(&[(0, 0), (1, 1)], &swap, |i, j| none.get(i, j), &swap)?.is_empty());
        assert_eq!((smaller(-0.0, 0.0), larger(1.0, 2.0)), (-0.0, 2.0));
        Ok(())
    }

    #[test]
    fn bad_shapes_are_errors() -> Result<(), AlignError> {
        let c = Matrix::new(2, 2, vec![1.0; 4])?;
        let s = flat_structure(3, 2)?;
        assert!(pair_scope(&c, WlMode::TieBreak, 0.5, Some(s), &mut Reversed).is_err());
        let empty = Matrix::new(0, 2, Vec::new())?;
        let paired = pair_scope(
            &empty,
            WlMode::TieBreak,
            0.5,
            Some(flat_structure(3, 2)?),
            &mut Reversed,
        )?;
        assert_eq!((paired.rows.len(), paired.cols.len()), (0, 2));
        Ok(())
    }
}
