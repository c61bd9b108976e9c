//! A scope's colour histories and incident edges: what the structure of the whole
//! scope, or of any block of its records, is made from, without the scope's n x m
//! agreement matrices.

use crate::align::{AlignError, Incident, Matrix, References, Structure};

/// The colour histories (rounds x records, round 0 first) of a scope's gold and
/// candidate records, their incident edges (other ends numbered in the scope) and
/// their occurrences (-1 outside nested scopes).
#[derive(Debug, Clone)]
pub struct Histories {
    pub gold: Matrix<i64>,
    pub candidate: Matrix<i64>,
    pub gold_lines: Vec<Vec<Incident>>,
    pub candidate_lines: Vec<Vec<Incident>>,
    pub gold_hubs: Vec<i64>,
    pub candidate_hubs: Vec<i64>,
}

impl Histories {
    /// `_Histories.structure(rows, cols)`: the structure of the gold records `rows`
    /// and candidate records `cols` of a block (`None`: the whole scope).
    pub fn structure(&self, block: Option<(&[usize], &[usize])>) -> Result<Structure, AlignError> {
        let Some((rows, cols)) = block else {
            let references = References::new(
                self.gold_lines.clone(),
                self.candidate_lines.clone(),
                self.gold_hubs.clone(),
                self.candidate_hubs.clone(),
                None,
                None,
            )?;
            return Structure::new(&self.gold, &self.candidate, references);
        };
        let references = References::new(
            pick(&self.gold_lines, rows)?,
            pick(&self.candidate_lines, cols)?,
            pick(&self.gold_hubs, rows)?,
            pick(&self.candidate_hubs, cols)?,
            Some(rows.to_vec()),
            Some(cols.to_vec()),
        )?;
        Structure::new(
            &columns(&self.gold, rows)?,
            &columns(&self.candidate, cols)?,
            references,
        )
    }
}

impl Histories {
    /// (b, a) of gold record `i` and candidate record `j` of the scope: 1.0 where
    /// their last colours are equal (0.0 without rounds), and the number of rounds in
    /// which their colours are.
    pub fn agreement(&self, i: usize, j: usize) -> Result<(f64, i64), AlignError> {
        let mut depth = 0;
        let mut last = false;
        for r in 0..self.gold.rows() {
            last = self.gold.get(r, i)? == self.candidate.get(r, j)?;
            depth += i64::from(last);
        }
        Ok((if last { 1.0 } else { 0.0 }, depth))
    }
}

/// The items of `items` at `positions`, in that order.
fn pick<T: Clone>(items: &[T], positions: &[usize]) -> Result<Vec<T>, AlignError> {
    positions
        .iter()
        .map(|&k| {
            items
                .get(k)
                .cloned()
                .ok_or(AlignError::Internal("a block record outside its scope"))
        })
        .collect()
}

/// The columns `positions` of a history (every round kept).
fn columns(history: &Matrix<i64>, positions: &[usize]) -> Result<Matrix<i64>, AlignError> {
    let mut data = Vec::with_capacity(history.rows() * positions.len());
    for r in 0..history.rows() {
        data.extend(pick(history.row(r)?, positions)?);
    }
    Matrix::new(history.rows(), positions.len(), data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_the_whole_scope_s_rows_and_columns() {
        let histories = Histories {
            gold: Matrix::new(2, 3, vec![0, 0, 0, 1, 2, 3]).unwrap(),
            candidate: Matrix::new(2, 2, vec![0, 0, 3, 1]).unwrap(),
            gold_lines: vec![Vec::new(); 3],
            candidate_lines: vec![Vec::new(); 2],
            gold_hubs: vec![-1; 3],
            candidate_hubs: vec![-1; 2],
        };
        let whole = histories.structure(None).unwrap();
        let block = histories.structure(Some((&[2, 0], &[1]))).unwrap();
        assert_eq!(block.same_matrix().unwrap().data(), &[0.0, 1.0]);
        assert_eq!(block.depth_matrix().unwrap().data(), &[1, 2]);
        assert_eq!(whole.depth(2, 1).unwrap(), 1);
        assert_eq!(whole.depth(0, 1).unwrap(), 2);
        assert!(histories.structure(Some((&[3], &[0]))).is_err());
        for (i, j) in [(0, 0), (0, 1), (1, 1), (2, 1), (2, 0)] {
            let expected = (whole.same(i, j).unwrap(), whole.depth(i, j).unwrap());
            assert_eq!(histories.agreement(i, j).unwrap(), expected);
        }
    }
}
