//! The pairing of an unordered list, one entry point over its three strategies, so
//! that the scorer and the match tree choose between them the same way.
//!
//! * [`Strategy::Dense`]: every pair scored, the assignment of the whole matrix;
//! * [`Strategy::Sparse`]: a long list paired from its positive cells only, when
//!   the scores can give them without scoring every pair (the dense way otherwise);
//! * [`Strategy::Blocked`]: `blockBy` blocks, each paired on its own by the dense or
//!   sparse way as its size says, never a pair across blocks.
//!
//! Each way pairs the items in the canonical order (sorted by their canonical text),
//! so that permuting a list changes nothing but the indices; the rules themselves are
//! [`max_weight_matching`] and [`max_weight_matching_sparse`], not copies of them.

use super::assignment::{max_weight_matching, Pairs};
use super::blocks::Block;
use super::error::{at, AlignError};
use super::matrix::Matrix;
use super::sparse::max_weight_matching_sparse;

/// Unordered lists with more gold x candidate pairs than this are paired from
/// their positive cells when equalities give them: below it a full matrix is cheap
/// enough (see [`Strategy`]).
pub const SPARSE_FROM_CELLS: usize = 1_000_000;

/// The positive cells of a score matrix: parallel rows, columns and values (> 0),
/// sorted by row then column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cells {
    pub rows: Vec<usize>,
    pub cols: Vec<usize>,
    pub values: Vec<f64>,
}

/// Where the scores of a list's pairs come from. Items are named by their positions
/// in the gold and candidate lists.
pub trait PairScores {
    type Error: From<AlignError>;

    /// Every pair's score of the gold items `golds` against the candidate items
    /// `candidates`, a `golds.len() x candidates.len()` matrix.
    fn matrix(&mut self, golds: &[usize], candidates: &[usize])
        -> Result<Matrix<f64>, Self::Error>;

    /// The positive cells of the same matrix (rows and columns index `golds` and
    /// `candidates`), or `None` when they cannot be found without scoring every pair.
    fn positive_cells(
        &mut self,
        golds: &[usize],
        candidates: &[usize],
    ) -> Result<Option<Cells>, Self::Error>;
}

/// Scores read from a matrix of every pair's score, known beforehand; its positive
/// cells are offered to the sparse way when `offer_cells`.
#[derive(Debug, Clone)]
pub struct MatrixScores {
    pub matrix: Matrix<f64>,
    pub offer_cells: bool,
}

impl PairScores for MatrixScores {
    type Error = AlignError;

    fn matrix(&mut self, golds: &[usize], candidates: &[usize]) -> Result<Matrix<f64>, AlignError> {
        let mut data = Vec::with_capacity(golds.len() * candidates.len());
        for &i in golds {
            for &j in candidates {
                data.push(self.matrix.get(i, j)?);
            }
        }
        Matrix::new(golds.len(), candidates.len(), data)
    }

    fn positive_cells(
        &mut self,
        golds: &[usize],
        candidates: &[usize],
    ) -> Result<Option<Cells>, AlignError> {
        if !self.offer_cells {
            return Ok(None);
        }
        let mut cells = Cells::default();
        for (a, &i) in golds.iter().enumerate() {
            for (b, &j) in candidates.iter().enumerate() {
                let value = self.matrix.get(i, j)?;
                if value > 0.0 {
                    cells.rows.push(a);
                    cells.cols.push(b);
                    cells.values.push(value);
                }
            }
        }
        Ok(Some(cells))
    }
}

/// How an unordered list is paired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Strategy {
    Dense,
    Sparse,
    Blocked(Vec<Block>),
}

impl Strategy {
    /// The way of a list (or block) of `golds x candidates` pairs: from its
    /// positive cells beyond [`SPARSE_FROM_CELLS`] pairs, densely below.
    ///
    /// ```
    /// use oa_engine::align::Strategy;
    /// assert_eq!(Strategy::by_size(1000, 1000), Strategy::Dense);
    /// assert_eq!(Strategy::by_size(1000, 1001), Strategy::Sparse);
    /// ```
    pub fn by_size(golds: usize, candidates: usize) -> Strategy {
        match golds.checked_mul(candidates) {
            Some(cells) if cells <= SPARSE_FROM_CELLS => Strategy::Dense,
            _ => Strategy::Sparse,
        }
    }
}

/// The pairs of a list, and its score matrix when it was made whole (dense, or
/// blocked with every block dense and the list within [`SPARSE_FROM_CELLS`] pairs;
/// 0 between blocks).
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    pub pairs: Pairs,
    pub matrix: Option<Matrix<f64>>,
}

/// Pair the gold and candidate items of an unordered list by `strategy`, in the
/// canonical order given by their canonical texts (`gold_texts`, `candidate_texts`:
/// one per item, any owner of a code point slice); pairs sorted by gold position.
///
/// ```
/// use oa_engine::align::{pair_unordered, Matrix, MatrixScores, Strategy};
/// let texts = [vec![0x61], vec![0x61]];
/// let matrix = Matrix::new(2, 2, vec![1.0; 4]).unwrap();
/// let mut scores = MatrixScores { matrix, offer_cells: false };
/// let paired = pair_unordered(&Strategy::Dense, &texts, &texts, &mut scores).unwrap();
/// assert_eq!(paired.pairs, vec![(0, 0), (1, 1)]);
/// ```
pub fn pair_unordered<S: PairScores, T: AsRef<[u32]>>(
    strategy: &Strategy,
    gold_texts: &[T],
    candidate_texts: &[T],
    scores: &mut S,
) -> Result<Paired, S::Error> {
    let (n, m) = (gold_texts.len(), candidate_texts.len());
    let texts = (gold_texts, candidate_texts);
    let everything = |count: usize| (0..count).collect::<Vec<_>>();
    match strategy {
        Strategy::Dense | Strategy::Sparse => whole(
            strategy == &Strategy::Sparse,
            (&everything(n), &everything(m)),
            texts,
            scores,
        ),
        Strategy::Blocked(blocks) => blocked(blocks, texts, scores),
    }
}

/// Pairs of the items `items` (gold, candidate positions), by their scores.
fn whole<S: PairScores, T: AsRef<[u32]>>(
    sparse: bool,
    items: (&[usize], &[usize]),
    texts: (&[T], &[T]),
    scores: &mut S,
) -> Result<Paired, S::Error> {
    let (golds, candidates) = items;
    let gold_order = canonical_order(golds, texts.0)?;
    let cand_order = canonical_order(candidates, texts.1)?;
    let shape = (golds.len(), candidates.len());
    if sparse {
        if let Some(cells) = scores.positive_cells(golds, candidates)? {
            let gold_rank = ranks(&gold_order);
            let cand_rank = ranks(&cand_order);
            let rows = ranked(&cells.rows, &gold_rank)?;
            let cols = ranked(&cells.cols, &cand_rank)?;
            let pairs = max_weight_matching_sparse(&rows, &cols, &cells.values, shape)?;
            let pairs = back_to_items(pairs, (&gold_order, &cand_order), items)?;
            return Ok(Paired {
                pairs,
                matrix: None,
            });
        }
    }
    let matrix = scores.matrix(golds, candidates)?;
    if (matrix.rows(), matrix.cols()) != shape {
        return Err(AlignError::Mismatch {
            what: "score matrix",
            expected: shape,
            got: (matrix.rows(), matrix.cols()),
        }
        .into());
    }
    let permuted = matrix.permuted(&gold_order, &cand_order)?;
    let pairs = max_weight_matching(&permuted, None)?;
    let pairs = back_to_items(pairs, (&gold_order, &cand_order), items)?;
    Ok(Paired {
        pairs,
        matrix: Some(matrix),
    })
}

/// Block by block; the whole matrix kept while every block gave its own.
fn blocked<S: PairScores, T: AsRef<[u32]>>(
    blocks: &[Block],
    texts: (&[T], &[T]),
    scores: &mut S,
) -> Result<Paired, S::Error> {
    let (n, m) = (texts.0.len(), texts.1.len());
    for block in blocks {
        if block.gold.iter().any(|&i| i >= n) || block.candidate.iter().any(|&j| j >= m) {
            return Err(AlignError::Internal("a block item outside its list").into());
        }
    }
    let mut whole_matrix = (Strategy::by_size(n, m) == Strategy::Dense).then(|| vec![0.0; n * m]);
    let mut pairs = Vec::new();
    for block in blocks {
        if block.gold.is_empty() || block.candidate.is_empty() {
            continue;
        }
        let sparse = Strategy::by_size(block.gold.len(), block.candidate.len()) == Strategy::Sparse;
        let found = whole(sparse, (&block.gold, &block.candidate), texts, scores)?;
        pairs.extend(found.pairs);
        match (whole_matrix.as_mut(), found.matrix) {
            (Some(data), Some(part)) => {
                for (a, &i) in block.gold.iter().enumerate() {
                    let line = part.row(a)?;
                    for (&j, &value) in block.candidate.iter().zip(line) {
                        if let Some(cell) = data.get_mut(i * m + j) {
                            *cell = value;
                        }
                    }
                }
            }
            (_, None) => whole_matrix = None,
            (None, Some(_)) => {}
        }
    }
    pairs.sort_unstable();
    let matrix = whole_matrix
        .map(|data| Matrix::new(n, m, data))
        .transpose()?;
    Ok(Paired { pairs, matrix })
}

/// The positions `0..items.len()` sorted (stably) by their items' texts.
fn canonical_order<T: AsRef<[u32]>>(
    items: &[usize],
    texts: &[T],
) -> Result<Vec<usize>, AlignError> {
    let keys = items
        .iter()
        .map(|&k| {
            texts
                .get(k)
                .map(AsRef::as_ref)
                .ok_or(AlignError::Internal("an item without its text"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| keys.get(a).cmp(&keys.get(b)));
    Ok(order)
}

/// The rank of each position in `order` (its inverse permutation).
fn ranks(order: &[usize]) -> Vec<usize> {
    let mut rank = vec![0; order.len()];
    for (r, &k) in order.iter().enumerate() {
        if let Some(slot) = rank.get_mut(k) {
            *slot = r;
        }
    }
    rank
}

fn ranked(positions: &[usize], rank: &[usize]) -> Result<Vec<usize>, AlignError> {
    positions
        .iter()
        .map(|&k| {
            rank.get(k).copied().ok_or(AlignError::Cell {
                row: k,
                col: 0,
                shape: (rank.len(), 0),
                repeated: false,
            })
        })
        .collect()
}

/// Pairs of canonical ranks as pairs of the items' positions in their lists, sorted.
fn back_to_items(
    pairs: Pairs,
    orders: (&[usize], &[usize]),
    items: (&[usize], &[usize]),
) -> Result<Pairs, AlignError> {
    let mut mapped = pairs
        .into_iter()
        .map(|(a, b)| {
            let i = at(items.0, at(orders.0, a, "gold order")?, "gold item")?;
            let j = at(
                items.1,
                at(orders.1, b, "candidate order")?,
                "candidate item",
            )?;
            Ok((i, j))
        })
        .collect::<Result<Pairs, AlignError>>()?;
    mapped.sort_unstable();
    Ok(mapped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(words: &[&str]) -> Vec<Vec<u32>> {
        words
            .iter()
            .map(|w| w.chars().map(u32::from).collect())
            .collect()
    }

    #[test]
    fn the_canonical_order_decides_ties() {
        // all equal: the items are paired in the order of their texts
        let mut scores = MatrixScores {
            matrix: Matrix::new(2, 2, vec![1.0; 4]).unwrap(),
            offer_cells: true,
        };
        let (g, c) = (texts(&["b", "a"]), texts(&["a", "b"]));
        for strategy in [Strategy::Dense, Strategy::Sparse] {
            let paired = pair_unordered(&strategy, &g, &c, &mut scores).unwrap();
            assert_eq!(paired.pairs, vec![(0, 1), (1, 0)]);
        }
    }

    #[test]
    fn blocks_never_pair_across() {
        let mut scores = MatrixScores {
            matrix: Matrix::new(2, 2, vec![0.5, 1.0, 1.0, 0.5]).unwrap(),
            offer_cells: false,
        };
        let blocks = vec![
            Block {
                gold: vec![0],
                candidate: vec![0],
            },
            Block {
                gold: vec![1],
                candidate: vec![1],
            },
        ];
        let t = texts(&["x", "y"]);
        let paired = pair_unordered(&Strategy::Blocked(blocks), &t, &t, &mut scores).unwrap();
        assert_eq!(paired.pairs, vec![(0, 0), (1, 1)]);
        let matrix = paired.matrix.unwrap();
        assert_eq!(matrix.data(), &[0.5, 0.0, 0.0, 0.5]);
        let outside = Strategy::Blocked(vec![Block {
            gold: vec![2],
            candidate: vec![],
        }]);
        assert!(pair_unordered(&outside, &t, &t, &mut scores).is_err());
    }
}
