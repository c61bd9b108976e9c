//! What WL found for one scope, or one block of it (`_Structure` in
//! `oa_core/referential.py`): the agreement matrices b and a made from the
//! records' colour histories, their final colours, and the reference agreement
//! through a pairing (the content rule's first step) made from their incident edges.

use std::collections::BTreeMap;

use super::error::{at, check_len, AlignError};
use super::matrix::Matrix;
use super::repair::DynamicLevel;

/// One edge incident to a record: `kind` names its (direction, role, label) (equal
/// kinds for equal triples, on both sides), `other` its other end in the scope's
/// numbering; a self-loop has `other` -1 on the candidate side and the record itself
/// on the gold side, so that a gold loop looks for a candidate loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Incident {
    pub kind: usize,
    pub other: i64,
}

/// The structure of gold records x candidate records.
#[derive(Debug, Clone)]
pub struct Structure {
    /// b: 1.0 where the last round's colours are equal.
    pub same: Matrix<f64>,
    /// The number of rounds in which the two records share a colour.
    pub depth: Matrix<i64>,
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
    /// A block's candidate records in the scope (None: the whole scope), and its gold
    /// records' rows in the block by their row in the scope.
    candidate_records: Option<Vec<usize>>,
    local_rows: Option<BTreeMap<usize, usize>>,
}

impl Structure {
    /// The structure of the records whose colour histories (rounds x records, round 0
    /// first) and incident edges are given; `gold_records` and `candidate_records`
    /// number them in the scope when they are a block of it.
    ///
    /// ```
    /// use oa_engine::align::{Matrix, Structure};
    /// let gold = Matrix::new(2, 2, vec![0, 0, 1, 2]).unwrap();
    /// let candidate = Matrix::new(2, 1, vec![0, 2]).unwrap();
    /// let s = Structure::new(&gold, &candidate, vec![vec![]; 2], vec![vec![]], None, None)
    ///     .unwrap();
    /// assert_eq!(s.same.data(), &[0.0, 1.0]);
    /// assert_eq!(s.depth.data(), &[1, 2]);
    /// ```
    pub fn new(
        gold: &Matrix<i64>,
        candidate: &Matrix<i64>,
        gold_edges: Vec<Vec<Incident>>,
        candidate_edges: Vec<Vec<Incident>>,
        gold_records: Option<Vec<usize>>,
        candidate_records: Option<Vec<usize>>,
    ) -> Result<Self, AlignError> {
        check_len("colour rounds", gold.rows(), candidate.rows())?;
        let (n, m) = (gold.cols(), candidate.cols());
        check_len("gold edges", n, gold_edges.len())?;
        check_len("candidate edges", m, candidate_edges.len())?;
        if let Some(records) = &gold_records {
            check_len("gold records", n, records.len())?;
        }
        if let Some(records) = &candidate_records {
            check_len("candidate records", m, records.len())?;
        }
        let cells = n.checked_mul(m).ok_or(AlignError::Shape {
            rows: n,
            cols: m,
            len: 0,
        })?;
        let mut depth = filled(cells, 0i64)?;
        for r in 0..gold.rows() {
            let (g, c) = (gold.row(r)?, candidate.row(r)?);
            for (cells, colour) in depth.chunks_mut(m.max(1)).zip(g) {
                for (cell, other) in cells.iter_mut().zip(c) {
                    *cell += i64::from(colour == other);
                }
            }
        }
        let last = |history: &Matrix<i64>, count: usize| match history.rows().checked_sub(1) {
            Some(r) => history.row(r).map(<[i64]>::to_vec),
            None => Ok(vec![0; count]), // no round: nothing told apart
        };
        let (gold_colours, candidate_colours) = (last(gold, n)?, last(candidate, m)?);
        let mut same = filled(0, 0.0)?;
        same.try_reserve_exact(cells)
            .map_err(|_| AlignError::Internal("memory"))?;
        for &g in &gold_colours {
            for &c in &candidate_colours {
                same.push(if gold.rows() > 0 && g == c { 1.0 } else { 0.0 });
            }
        }
        let local_rows = gold_records
            .as_ref()
            .map(|records| records.iter().enumerate().map(|(a, &g)| (g, a)).collect());
        Ok(Self {
            same: Matrix::new(n, m, same)?,
            depth: Matrix::new(n, m, depth)?,
            gold_colours,
            candidate_colours,
            references: References {
                gold_edges,
                candidate_edges,
                candidate_records,
                local_rows,
            },
        })
    }
}

impl References {
    /// How many of gold record i's edges record j also has through `partner` (row
    /// -> column), for i in `rows` and j in `cols`.
    ///
    /// An edge to another record agrees when the candidate record has an edge of the
    /// same kind to that record's partner; a loop when it has a loop of the same kind.
    /// Records outside a block have no partner in it.
    pub fn reference_agreement(
        &self,
        partner: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<Matrix<i64>, AlignError> {
        let width = cols.len();
        let cells = rows
            .len()
            .checked_mul(width)
            .ok_or(AlignError::Internal("agreement shape"))?;
        let mut agreement = filled(cells, 0i64)?;
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

impl DynamicLevel for ReferenceAgreement<'_> {
    fn values(
        &mut self,
        partner: &BTreeMap<usize, usize>,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<Matrix<f64>, AlignError> {
        Ok(self
            .0
            .reference_agreement(partner, rows, cols)?
            .map(|v| v as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(kind: usize, other: i64) -> Incident {
        Incident { kind, other }
    }

    #[test]
    fn agreement_follows_the_partner() -> Result<(), AlignError> {
        let history = Matrix::new(1, 2, vec![0, 0])?;
        // gold 0 -> gold 1 (kind 7); candidate 1 -> candidate 0; loops of kind 3
        let gold_edges = vec![vec![edge(7, 1)], vec![edge(3, 1)]];
        let candidate_edges = vec![vec![edge(3, -1)], vec![edge(7, 0)]];
        let s = Structure::new(&history, &history, gold_edges, candidate_edges, None, None)?;
        let partner: BTreeMap<usize, usize> = [(1, 0)].into_iter().collect();
        let a = s
            .references
            .reference_agreement(&partner, &[0, 1], &[0, 1])?;
        assert_eq!(a.data(), &[0, 1, 1, 0]);
        let none = s
            .references
            .reference_agreement(&BTreeMap::new(), &[0], &[0, 1])?;
        assert_eq!(none.data(), &[0, 0]);
        assert!(s
            .references
            .reference_agreement(&partner, &[2], &[0])
            .is_err());
        Ok(())
    }

    #[test]
    fn a_block_maps_its_records() -> Result<(), AlignError> {
        let history = Matrix::new(1, 1, vec![0])?;
        // the block holds scope gold 5 and scope candidate 8; gold 5 loops
        let s = Structure::new(
            &history,
            &history,
            vec![vec![edge(1, 5), edge(2, 9)]],
            vec![vec![edge(1, -1), edge(2, 8)]],
            Some(vec![5]),
            Some(vec![8]),
        )?;
        let partner: BTreeMap<usize, usize> = [(0, 0)].into_iter().collect();
        assert_eq!(
            s.references
                .reference_agreement(&partner, &[0], &[0])?
                .data(),
            &[1]
        );
        Ok(())
    }

    #[test]
    fn shapes_are_checked() -> Result<(), AlignError> {
        let history = Matrix::new(1, 2, vec![0, 0])?;
        let other = Matrix::new(2, 2, vec![0; 4])?;
        assert!(Structure::new(
            &history,
            &other,
            vec![vec![]; 2],
            vec![vec![]; 2],
            None,
            None
        )
        .is_err());
        assert!(Structure::new(&history, &history, vec![], vec![vec![]; 2], None, None).is_err());
        let empty = Matrix::new(0, 2, Vec::new())?;
        let s = Structure::new(&empty, &empty, vec![vec![]; 2], vec![vec![]; 2], None, None)?;
        assert_eq!(s.same.data(), &[0.0; 4]);
        Ok(())
    }
}
