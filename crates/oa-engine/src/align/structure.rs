//! What WL found for one scope, or one block of it: the WL bonus b and the
//! agreement depth a of any gold x candidate cell, read from the records' colour
//! histories and final colours, and the reference agreement through a pairing (the
//! content rule's first step), made from their incident edges.

use std::collections::BTreeMap;

use super::error::{at, check_len, AlignError};
use super::matrix::Matrix;
use super::repair::{CellLevel, DynamicLevel};

/// One edge incident to a record: `kind` names its (direction, role, label) (equal
/// kinds for equal triples, on both sides), `other` its other end in the scope's
/// numbering; a self-loop has `other` -1 on the candidate side and the record itself
/// on the gold side, so that a gold loop looks for a candidate loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Incident {
    pub kind: usize,
    pub other: i64,
}

/// The structure of gold records x candidate records: b and a of any cell, read
/// from the records' colour histories (rounds x records, small) rather than kept as
/// two n x m matrices, which a big scope cannot afford beside its C.
#[derive(Debug, Clone)]
pub struct Structure {
    /// The colour histories, round 0 first.
    gold: Matrix<i64>,
    candidate: Matrix<i64>,
    /// The last round's colours of the gold and candidate records.
    pub gold_colours: Vec<i64>,
    pub candidate_colours: Vec<i64>,
    /// The records' incident edges.
    pub references: References,
}

/// The incident edges of a scope's (or block's) records, what the reference
/// agreement through a pairing is counted from.
#[derive(Debug, Clone)]
pub struct References {
    gold_edges: Vec<Vec<Incident>>,
    candidate_edges: Vec<Vec<Incident>>,
    /// Each record's occurrence (the hub of its array's occurrence in a nested
    /// scope, -1 elsewhere), numbered as the records are.
    gold_occurrences: Vec<i64>,
    candidate_occurrences: Vec<i64>,
    /// Whether records of both sides lie in occurrences: without, no record shares
    /// an occurrence with a partner's, and the occurrence agreement is all 0 (not
    /// counted through the whole pairing for every group the twin repair asks about).
    nested: bool,
    /// A block's candidate records in the scope (None: the whole scope), and its gold
    /// records' rows in the block by their row in the scope.
    candidate_records: Option<Vec<usize>>,
    local_rows: Option<BTreeMap<usize, usize>>,
}

impl Structure {
    /// The structure of the records whose colour histories (rounds x records, round 0
    /// first) and references are given.
    ///
    /// ```
    /// use oa_engine::align::{Matrix, References, Structure};
    /// let gold = Matrix::new(2, 2, vec![0, 0, 1, 2]).unwrap();
    /// let candidate = Matrix::new(2, 1, vec![0, 2]).unwrap();
    /// let none = References::new(vec![vec![]; 2], vec![vec![]], vec![-1; 2], vec![-1],
    ///                            None, None).unwrap();
    /// let s = Structure::new(&gold, &candidate, none).unwrap();
    /// assert_eq!(s.same_matrix().unwrap().data(), &[0.0, 1.0]);
    /// assert_eq!(s.depth_matrix().unwrap().data(), &[1, 2]);
    /// assert_eq!((s.same(1, 0).unwrap(), s.depth(0, 0).unwrap()), (1.0, 1));
    /// ```
    pub fn new(
        gold: &Matrix<i64>,
        candidate: &Matrix<i64>,
        references: References,
    ) -> Result<Self, AlignError> {
        check_len("colour rounds", gold.rows(), candidate.rows())?;
        let (n, m) = (gold.cols(), candidate.cols());
        check_len("gold edges", n, references.gold_edges.len())?;
        check_len("candidate edges", m, references.candidate_edges.len())?;
        n.checked_mul(m).ok_or(AlignError::Shape {
            rows: n,
            cols: m,
            len: 0,
        })?;
        let last = |history: &Matrix<i64>, count: usize| match history.rows().checked_sub(1) {
            Some(r) => history.row(r).map(<[i64]>::to_vec),
            None => filled(count, 0), // no round: nothing told apart
        };
        let (gold_colours, candidate_colours) = (last(gold, n)?, last(candidate, m)?);
        Ok(Self {
            gold: gold.clone(),
            candidate: candidate.clone(),
            gold_colours,
            candidate_colours,
            references,
        })
    }

    /// The number of gold records (rows) and candidate records (columns).
    pub fn shape(&self) -> (usize, usize) {
        (self.gold.cols(), self.candidate.cols())
    }

    /// b of gold record i and candidate record j: 1.0 where their last colours are
    /// equal (0.0 without rounds).
    pub fn same(&self, i: usize, j: usize) -> Result<f64, AlignError> {
        let equal = at(&self.gold_colours, i, "gold colour")?
            == at(&self.candidate_colours, j, "candidate colour")?;
        Ok(if self.gold.rows() > 0 && equal {
            1.0
        } else {
            0.0
        })
    }

    /// a of gold record i and candidate record j: the number of rounds in which
    /// their colours are equal.
    pub fn depth(&self, i: usize, j: usize) -> Result<i64, AlignError> {
        let mut depth = 0;
        for r in 0..self.gold.rows() {
            depth += i64::from(self.gold.get(r, i)? == self.candidate.get(r, j)?);
        }
        Ok(depth)
    }

    /// a of gold record i and every candidate record, into `out` (zeros first).
    pub fn depth_row(&self, i: usize, out: &mut [i64]) -> Result<(), AlignError> {
        check_len("depth row", self.candidate.cols(), out.len())?;
        out.fill(0);
        for r in 0..self.gold.rows() {
            let colour = self.gold.get(r, i)?;
            for (cell, other) in out.iter_mut().zip(self.candidate.row(r)?) {
                *cell += i64::from(colour == *other);
            }
        }
        Ok(())
    }

    /// The largest a of any cell (0 without cells): the rounds in which some gold
    /// and some candidate record share a colour, at most.
    pub fn deepest(&self) -> Result<i64, AlignError> {
        let (n, m) = self.shape();
        if n == 0 || m == 0 {
            return Ok(0);
        }
        let mut row = filled(m, 0i64)?;
        let mut deepest = 0;
        let most = i64::try_from(self.gold.rows()).map_err(|_| AlignError::Internal("rounds"))?;
        for i in 0..n {
            self.depth_row(i, &mut row)?;
            deepest = row.iter().copied().fold(deepest, i64::max);
            if deepest == most {
                break; // no cell agrees in more rounds than there are
            }
        }
        Ok(deepest)
    }

    /// b of every cell (n x m).
    pub fn same_matrix(&self) -> Result<Matrix<f64>, AlignError> {
        let (n, m) = self.shape();
        let mut cells = filled(0, 0.0)?;
        cells
            .try_reserve_exact(n * m)
            .map_err(|_| AlignError::Internal("memory"))?;
        for &g in &self.gold_colours {
            for &c in &self.candidate_colours {
                cells.push(if self.gold.rows() > 0 && g == c {
                    1.0
                } else {
                    0.0
                });
            }
        }
        Matrix::new(n, m, cells)
    }

    /// a of every cell (n x m).
    pub fn depth_matrix(&self) -> Result<Matrix<i64>, AlignError> {
        let (n, m) = self.shape();
        let mut cells = filled(n * m, 0i64)?;
        for (i, row) in cells.chunks_mut(m.max(1)).enumerate().take(n) {
            self.depth_row(i, row)?;
        }
        Matrix::new(n, m, cells)
    }
}

/// b (`Depth(false)`) or a (`Depth(true)`) of a structure as a tie level of the
/// twin repair, read at its groups' cells only.
pub(crate) struct StructureLevel<'a> {
    pub structure: &'a Structure,
    pub depth: bool,
}

impl CellLevel for StructureLevel<'_> {
    fn shape(&self) -> (usize, usize) {
        self.structure.shape()
    }

    fn cells(&self, rows: &[usize], cols: &[usize]) -> Result<Matrix<f64>, AlignError> {
        let mut values = Vec::with_capacity(rows.len() * cols.len());
        for &i in rows {
            for &j in cols {
                values.push(if self.depth {
                    self.structure.depth(i, j)? as f64
                } else {
                    self.structure.same(i, j)?
                });
            }
        }
        Matrix::new(rows.len(), cols.len(), values)
    }
}

impl References {
    /// The references of gold and candidate records: their incident edges and
    /// occurrences (one per record, -1 outside nested scopes) and, when they are a
    /// block of the scope, `gold_records` and `candidate_records`, their numbers in it.
    pub fn new(
        gold_edges: Vec<Vec<Incident>>,
        candidate_edges: Vec<Vec<Incident>>,
        gold_occurrences: Vec<i64>,
        candidate_occurrences: Vec<i64>,
        gold_records: Option<Vec<usize>>,
        candidate_records: Option<Vec<usize>>,
    ) -> Result<Self, AlignError> {
        let (n, m) = (gold_edges.len(), candidate_edges.len());
        check_len("gold occurrences", n, gold_occurrences.len())?;
        check_len("candidate occurrences", m, candidate_occurrences.len())?;
        if let Some(records) = &gold_records {
            check_len("gold records", n, records.len())?;
        }
        if let Some(records) = &candidate_records {
            check_len("candidate records", m, records.len())?;
        }
        let local_rows = gold_records
            .as_ref()
            .map(|records| records.iter().enumerate().map(|(a, &g)| (g, a)).collect());
        let nested = gold_occurrences.iter().any(|&g| g >= 0)
            && candidate_occurrences.iter().any(|&c| c >= 0);
        Ok(Self {
            gold_edges,
            candidate_edges,
            gold_occurrences,
            candidate_occurrences,
            nested,
            candidate_records,
            local_rows,
        })
    }

    /// How many of gold record i's edges record j also has through `partner` (row
    /// -> column), for i in `rows` and j in `cols`.
    ///
    /// An edge to another record agrees when the candidate record has an edge of the
    /// same kind to that record's partner; a loop when it has a loop of the same kind.
    /// Records outside a block have no partner in it. In a nested scope the records
    /// sharing i's occurrence count too: each one paired into j's occurrence agrees
    /// (the scoring pass compares an occurrence with its partner's only).
    pub fn reference_agreement(
        &self,
        partner: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<Matrix<i64>, AlignError> {
        self.agreement_of(partner, rows, cols, true)
    }

    /// [`Self::reference_agreement`], or without the loops (`loops` false): only
    /// edges between two records, so only what `partner` itself tells. A loop's kind
    /// carries what its edge reached outside the scope (another scope's records,
    /// through their pairing), which `partner` does not hold.
    fn agreement_of(
        &self,
        partner: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
        loops: bool,
    ) -> Result<Matrix<i64>, AlignError> {
        let width = cols.len();
        let cells = rows
            .len()
            .checked_mul(width)
            .ok_or(AlignError::Internal("agreement shape"))?;
        let mut agreement = filled(cells, 0i64)?;
        self.occurrence_agreement(&mut agreement, partner, rows, cols)?;
        let mut holders: BTreeMap<Incident, Vec<usize>> = BTreeMap::new();
        for (b, &j) in cols.iter().enumerate() {
            let edges = self
                .candidate_edges
                .get(j)
                .ok_or(AlignError::Internal("candidate record"))?;
            for edge in edges {
                holders.entry(*edge).or_default().push(b);
            }
        }
        for (a, &i) in rows.iter().enumerate() {
            let edges = self
                .gold_edges
                .get(i)
                .ok_or(AlignError::Internal("gold record"))?;
            for edge in edges {
                let k = match &self.local_rows {
                    None => edge.other,
                    Some(local) => usize::try_from(edge.other)
                        .ok()
                        .and_then(|other| local.get(&other))
                        .and_then(|&k| i64::try_from(k).ok())
                        .unwrap_or(-1),
                };
                let other = if usize::try_from(k).ok() == Some(i) {
                    if !loops {
                        continue;
                    }
                    -1
                } else {
                    let Some(&target) = usize::try_from(k).ok().and_then(|k| partner.get(&k))
                    else {
                        continue;
                    };
                    let target = match &self.candidate_records {
                        None => target,
                        Some(records) => at(records, target, "block column")?,
                    };
                    i64::try_from(target).map_err(|_| AlignError::Internal("column"))?
                };
                let key = Incident {
                    kind: edge.kind,
                    other,
                };
                for &b in holders.get(&key).map_or(&[][..], Vec::as_slice) {
                    let cell = agreement
                        .get_mut(a * width + b)
                        .ok_or(AlignError::Internal("agreement cell"))?;
                    *cell += 1;
                }
            }
        }
        Matrix::new(rows.len(), width, agreement)
    }
}

impl References {
    /// Add, for gold record i and candidate record j, how many other records of i's
    /// occurrence are paired into j's (nested scopes only).
    fn occurrence_agreement(
        &self,
        agreement: &mut [i64],
        partner: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<(), AlignError> {
        if !self.nested {
            return Ok(());
        }
        let (gold, candidate) = (&self.gold_occurrences, &self.candidate_occurrences);
        let mut shared: BTreeMap<(i64, i64), i64> = BTreeMap::new();
        for (&k, &t) in partner {
            let (g, c) = (
                at(gold, k, "gold occurrence")?,
                at(candidate, t, "occurrence")?,
            );
            if g >= 0 && c >= 0 {
                *shared.entry((g, c)).or_default() += 1;
            }
        }
        if shared.is_empty() {
            return Ok(());
        }
        let mut col_occurrences = Vec::with_capacity(cols.len());
        for &j in cols {
            col_occurrences.push(at(candidate, j, "candidate occurrence")?);
        }
        let width = cols.len().max(1);
        for (&i, line) in rows.iter().zip(agreement.chunks_mut(width)) {
            let g = at(gold, i, "gold occurrence")?;
            // i's own pair is no other record of its occurrence
            let own = match partner.get(&i) {
                Some(&t) => Some(at(candidate, t, "occurrence")?).filter(|&c| g >= 0 && c >= 0),
                None => None,
            };
            for (cell, &c) in line.iter_mut().zip(&col_occurrences) {
                *cell += shared.get(&(g, c)).copied().unwrap_or(0);
                if own == Some(c) {
                    *cell -= 1;
                }
            }
        }
        Ok(())
    }
}

/// `count` copies of `value`, or an error where the memory cannot be had (a shape
/// read from input never aborts the process).
pub(crate) fn filled<T: Clone>(count: usize, value: T) -> Result<Vec<T>, AlignError> {
    let mut cells = Vec::new();
    cells
        .try_reserve_exact(count)
        .map_err(|_| AlignError::Internal("memory"))?;
    cells.resize(count, value);
    Ok(cells)
}

/// The reference agreement as the twin repair's dynamic level.
pub(crate) struct ReferenceAgreement<'a>(pub &'a References);

impl ReferenceAgreement<'_> {
    fn floats(
        &self,
        partner: &BTreeMap<usize, usize>,
        (rows, cols): (&[usize], &[usize]),
        loops: bool,
    ) -> Result<Matrix<f64>, AlignError> {
        let counts = self.0.agreement_of(partner, rows, cols, loops)?;
        Ok(counts.map(|v| v as f64))
    }
}

impl DynamicLevel for ReferenceAgreement<'_> {
    fn values(
        &mut self,
        partner: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<Matrix<f64>, AlignError> {
        self.floats(partner, (rows, cols), true)
    }

    /// The edges between records only: the loops' kinds carry other scopes' pairing.
    fn among(
        &mut self,
        partner: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<Matrix<f64>, AlignError> {
        self.floats(partner, (rows, cols), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(kind: usize, other: i64) -> Incident {
        Incident { kind, other }
    }

    /// References with no occurrences (a scope not nested).
    fn plain(
        gold: Vec<Vec<Incident>>,
        candidate: Vec<Vec<Incident>>,
        records: Option<(Vec<usize>, Vec<usize>)>,
    ) -> Result<References, AlignError> {
        let (n, m) = (gold.len(), candidate.len());
        let (g, c) = records.map_or((None, None), |(g, c)| (Some(g), Some(c)));
        References::new(gold, candidate, vec![-1; n], vec![-1; m], g, c)
    }

    #[test]
    fn agreement_follows_the_partner() -> Result<(), AlignError> {
        let history = Matrix::new(1, 2, vec![0, 0])?;
        // gold 0 -> gold 1 (kind 7); candidate 1 -> candidate 0; loops of kind 3
        let gold_edges = vec![vec![edge(7, 1)], vec![edge(3, 1)]];
        let candidate_edges = vec![vec![edge(3, -1)], vec![edge(7, 0)]];
        let s = Structure::new(
            &history,
            &history,
            plain(gold_edges, candidate_edges, None)?,
        )?;
        let partner: BTreeMap<usize, usize> = [(1, 0)].into_iter().collect();
        let refs = &s.references;
        assert_eq!(
            refs.reference_agreement(&partner, &[0, 1], &[0, 1])?.data(),
            &[0, 1, 1, 0]
        );
        let none = refs.reference_agreement(&BTreeMap::new(), &[0], &[0, 1])?;
        assert_eq!(none.data(), &[0, 0]);
        assert!(refs.reference_agreement(&partner, &[2], &[0]).is_err());
        // the pairing's own agreement leaves the loop out (gold 1 with candidate 0)
        assert_eq!(
            refs.agreement_of(&partner, &[0, 1], &[0, 1], false)?.data(),
            &[0, 1, 0, 0]
        );
        Ok(())
    }

    #[test]
    fn a_block_maps_its_records() -> Result<(), AlignError> {
        let history = Matrix::new(1, 1, vec![0])?;
        // the block holds scope gold 5 and scope candidate 8; gold 5 loops
        let refs = plain(
            vec![vec![edge(1, 5), edge(2, 9)]],
            vec![vec![edge(1, -1), edge(2, 8)]],
            Some((vec![5], vec![8])),
        )?;
        let s = Structure::new(&history, &history, refs)?;
        let partner: BTreeMap<usize, usize> = [(0, 0)].into_iter().collect();
        let found = s.references.reference_agreement(&partner, &[0], &[0])?;
        assert_eq!(found.data(), &[1]);
        Ok(())
    }

    #[test]
    fn records_of_an_occurrence_paired_into_another_agree() -> Result<(), AlignError> {
        // gold 0, 1, 2 in occurrence 10 (2 outside any); candidate 0, 1 in 20, 2 in 21
        let refs = References::new(
            vec![vec![]; 3],
            vec![vec![]; 3],
            vec![10, 10, -1],
            vec![20, 20, 21],
            None,
            None,
        )?;
        let partner: BTreeMap<usize, usize> = [(1, 0), (0, 2)].into_iter().collect();
        // gold 1 -> occurrence 20, gold 0 -> 21; gold 0's own pair is taken out
        let found = refs.reference_agreement(&partner, &[0, 2], &[0, 1, 2])?;
        assert_eq!(found.data(), &[1, 1, 0, 0, 0, 0]);
        let bad = References::new(vec![vec![]], vec![], vec![], vec![], None, None);
        assert!(bad.is_err());
        Ok(())
    }

    #[test]
    fn shapes_are_checked() -> Result<(), AlignError> {
        let history = Matrix::new(1, 2, vec![0, 0])?;
        let other = Matrix::new(2, 2, vec![0; 4])?;
        let refs = || plain(vec![vec![]; 2], vec![vec![]; 2], None);
        assert!(Structure::new(&history, &other, refs()?).is_err());
        let one = plain(vec![], vec![vec![]; 2], None)?;
        assert!(Structure::new(&history, &history, one).is_err());
        let empty = Matrix::new(0, 2, Vec::new())?;
        let s = Structure::new(&empty, &empty, refs()?)?;
        assert_eq!(s.same_matrix()?.data(), &[0.0; 4]);
        assert_eq!(s.depth_matrix()?.data(), &[0; 4]);
        assert_eq!(s.deepest()?, 0);
        Ok(())
    }
}
