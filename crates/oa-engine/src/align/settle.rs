//! The content rule's settling of label ties by the documents' score
//! (`_settle_by_score` in `oa_core/referential.py`).
//!
//! Within each block of label-tied pairs (pairs that can exchange partners with the
//! values of C and b kept), among the pairings that keep the values of C and b (as
//! multisets), the one with the deepest agreement a in total wins, then the highest
//! document score (asked of a caller's [`DocumentScore`], as each pairing scored is
//! one scoring of the whole documents, under a [`Budget`]). Pairings the caller
//! knows to score alike (they exchange records nothing scored tells apart) are scored
//! once and counted once.

use std::collections::{BTreeMap, BTreeSet};

use super::assignment::Pairs;
use super::error::{at, check_len, AlignError};
use super::matrix::Matrix;

/// Pairings scored at most per alignment, all scopes and both passes together (a
/// block of 4 tied pairs has 24): each is one scoring of the whole documents.
pub const SCORED_TRIALS: usize = 24;
/// Label ties are settled by score in scopes of at most this many records.
pub const SCORED_RECORDS: usize = 500;
/// Pairings of a block looked through (7!) before any is scored.
pub const ENUMERATED: usize = 5040;

/// The pairings left to score in one alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub trials: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            trials: SCORED_TRIALS,
        }
    }
}

/// The documents' score of the scope's pairings.
pub trait DocumentScore {
    /// The documents' score with the scope's records paired by `pairs` (sorted).
    fn score(&mut self, pairs: &[(usize, usize)]) -> Result<f64, AlignError>;
    /// One class per block pairing in `trials` (`_alike` of `oa_core/referential.py`):
    /// pairings of one class give the documents the same score.
    fn alike(&mut self, trials: &[Pairs]) -> Result<Vec<usize>, AlignError>;
}

/// The levels a settling reads: those whose values every pairing keeps (C, then b),
/// and those that rank the pairings by their sum (a).
pub struct Levels<'a> {
    pub kept: &'a [Matrix<f64>],
    pub ranked: &'a [Matrix<i64>],
}

/// The canonical rank of each row and column (never their positions).
pub struct Canonical<'a> {
    pub rows: &'a [i64],
    pub cols: &'a [i64],
}

/// Settle `label_ties` among `pairs`: returns the pairs and the label ties that remain
/// (both sorted).
///
/// A block's pairings pair as many of its rows, and of the unpaired rows as good,
/// with as many of its columns and of the unpaired columns as good. A block whose best
/// pairing is unique is settled; when several share the best score the first (the
/// given pairing first) is kept and the block stays tied. A block with more pairings
/// than the budget has left (or more than [`ENUMERATED`] to look through) is left as
/// it is. Pairings of one [`DocumentScore::alike`] class are scored once (the first)
/// and counted once in the budget.
///
/// ```
/// use oa_engine::align::{settle_by_score, AlignError, Budget, Canonical, DocumentScore,
///                        Levels, Matrix};
/// struct Prefers11;
/// impl DocumentScore for Prefers11 {
///     fn score(&mut self, pairs: &[(usize, usize)]) -> Result<f64, AlignError> {
///         Ok(if pairs.contains(&(0, 1)) { 1.0 } else { 0.5 })
///     }
///     fn alike(&mut self, trials: &[Vec<(usize, usize)>]) -> Result<Vec<usize>, AlignError> {
///         Ok((0..trials.len()).collect())
///     }
/// }
/// let c = Matrix::new(2, 2, vec![1.0; 4]).unwrap();
/// let levels = Levels { kept: &[c], ranked: &[] };
/// let order = Canonical { rows: &[0, 1], cols: &[0, 1] };
/// let mut budget = Budget::default();
/// let (pairs, left) = settle_by_score(&[(0, 0), (1, 1)], &[(0, 0), (1, 1)], &levels,
///                                     &mut Prefers11, &mut budget, &order).unwrap();
/// assert_eq!((pairs, left, budget.trials), (vec![(0, 1), (1, 0)], vec![], 22));
/// ```
pub fn settle_by_score(
    pairs: &[(usize, usize)],
    label_ties: &[(usize, usize)],
    levels: &Levels<'_>,
    score: &mut dyn DocumentScore,
    budget: &mut Budget,
    order: &Canonical<'_>,
) -> Result<(Pairs, Pairs), AlignError> {
    let Some(first) = levels.kept.first() else {
        return Err(AlignError::Internal("no level to keep"));
    };
    for level in levels.kept {
        first.check_same_shape(level, "kept level")?;
    }
    for level in levels.ranked {
        first.check_same_shape(level, "ranked level")?;
    }
    check_len("row ranks", first.rows(), order.rows.len())?;
    check_len("column ranks", first.cols(), order.cols.len())?;
    let mut remaining: Pairs = Vec::new();
    let mut current: Pairs = pairs.to_vec();
    current.sort_unstable();
    let mut tied: Pairs = label_ties.to_vec();
    let mut ranks = Vec::with_capacity(tied.len());
    for &(i, j) in &tied {
        ranks.push((
            at(order.rows, i, "row rank")?,
            at(order.cols, j, "column rank")?,
        ));
    }
    let mut by_rank: Vec<usize> = (0..tied.len()).collect();
    by_rank.sort_by_key(|&k| ranks.get(k).copied()); // stable: equal ranks keep their order
    tied = by_rank
        .into_iter()
        .filter_map(|k| tied.get(k).copied())
        .collect();
    for block in tie_blocks(&tied, levels.kept)? {
        let (rows, cols) = alternatives(&block, &current, levels.kept, order)?;
        let size = block.len();
        if pairings(rows.len(), cols.len(), size) > ENUMERATED {
            remaining.extend(&block);
            continue;
        }
        let wanted = sorted_values(&block, levels.kept)?;
        let mut trials = vec![block.clone()];
        for chosen in combinations(&rows, size) {
            for arranged in permutations(&cols, size) {
                let trial: Pairs = chosen.iter().copied().zip(arranged).collect();
                if trial != block && sorted_values(&trial, levels.kept)? == wanted {
                    trials.push(trial);
                }
            }
        }
        let mut depths = Vec::with_capacity(trials.len());
        for trial in &trials {
            depths.push(depth_of(trial, levels.ranked)?);
        }
        let deepest = depths.iter().max().cloned().unwrap_or_default();
        let trials: Vec<Pairs> = trials
            .into_iter()
            .zip(&depths)
            .filter(|(_, depth)| **depth == deepest)
            .map(|(trial, _)| trial)
            .collect();
        let in_block: BTreeSet<(usize, usize)> = block.iter().copied().collect();
        let fixed: Pairs = current
            .iter()
            .filter(|p| !in_block.contains(p))
            .copied()
            .collect();
        let with_fixed = |trial: &Pairs| {
            let mut all = fixed.clone();
            all.extend(trial);
            all.sort_unstable();
            all
        };
        if let [only] = trials.as_slice() {
            current = with_fixed(only); // the agreement depth decided
            continue;
        }
        let classes = score.alike(&trials)?;
        check_len("pairing classes", trials.len(), classes.len())?;
        // each class's pairings, classes in the order of their first pairing
        let mut distinct: Vec<Vec<usize>> = Vec::new();
        let mut class_at: BTreeMap<usize, usize> = BTreeMap::new();
        for (k, class) in classes.into_iter().enumerate() {
            let at = *class_at.entry(class).or_insert(distinct.len());
            match distinct.get_mut(at) {
                Some(members) => members.push(k),
                None => distinct.push(vec![k]),
            }
        }
        if distinct.len() > budget.trials {
            remaining.extend(&block);
            continue;
        }
        budget.trials -= distinct.len();
        let mut scored = Vec::with_capacity(distinct.len());
        for members in &distinct {
            let first = at(members, 0, "class member")?;
            let trial = trials.get(first).ok_or(AlignError::Internal("pairing"))?;
            scored.push(score.score(&with_fixed(trial))?);
        }
        // Python's max: the first of the largest
        let best = scored
            .iter()
            .copied()
            .reduce(|best, v| if v > best { v } else { best });
        // classes come in the order of their first pairing: the first best class's
        // first pairing is the first winner
        let mut winners = distinct
            .iter()
            .zip(&scored)
            .filter(|(_, v)| Some(**v) == best)
            .flat_map(|(members, _)| members);
        let first = *winners
            .next()
            .ok_or(AlignError::Internal("no best pairing (a score is NaN)"))?;
        let winner = trials.get(first).ok_or(AlignError::Internal("pairing"))?;
        current = with_fixed(winner);
        if winners.next().is_some() {
            remaining.extend(winner);
        }
    }
    remaining.sort_unstable();
    Ok((current, remaining))
}

/// `comb(rows, size) * perm(cols, size)`, or `usize::MAX` when it is surely over
/// [`ENUMERATED`] (only compared with it).
fn pairings(rows: usize, cols: usize, size: usize) -> usize {
    if size > rows || size > cols {
        return 0;
    }
    // perm(cols, size) >= size!, and 8! > ENUMERATED
    if size >= 8 {
        return usize::MAX;
    }
    // Past u128 a factor is beyond 2**18 records, and then comb(rows, size) and
    // perm(cols, size) with size < 8 are either 1 or over ENUMERATED: both
    // overflows mean too many.
    let mut comb: u128 = 1;
    let mut perm: u128 = 1;
    for k in 0..size {
        let (r, c) = ((rows - k) as u128, (cols - k) as u128);
        comb = match comb.checked_mul(r) {
            Some(v) => v / (k as u128 + 1), // C(rows, k + 1), exact
            None => return usize::MAX,
        };
        perm = match perm.checked_mul(c) {
            Some(v) => v,
            None => return usize::MAX,
        };
    }
    comb.checked_mul(perm)
        .and_then(|v| usize::try_from(v).ok())
        .unwrap_or(usize::MAX)
}

/// The label ties (in canonical order) in blocks of pairs connected by swaps that
/// keep every kept level's values, each in that order, blocks by their first pair.
fn tie_blocks(tied: &[(usize, usize)], kept: &[Matrix<f64>]) -> Result<Vec<Pairs>, AlignError> {
    let mut block_of: Vec<usize> = (0..tied.len()).collect();
    for (a, &x) in tied.iter().enumerate() {
        for (b, &y) in tied.iter().enumerate().skip(a + 1) {
            if swappable(x, y, kept)? {
                let (from, to) = (at(&block_of, a, "block")?, at(&block_of, b, "block")?);
                for member in &mut block_of {
                    if *member == from {
                        *member = to;
                    }
                }
            }
        }
    }
    let mut blocks: Vec<(usize, Pairs)> = Vec::new();
    for (&pair, &id) in tied.iter().zip(&block_of) {
        match blocks.iter_mut().find(|(b, _)| *b == id) {
            Some((_, members)) => members.push(pair),
            None => blocks.push((id, vec![pair])),
        }
    }
    Ok(blocks.into_iter().map(|(_, members)| members).collect())
}

/// Whether two pairs can exchange partners with every level's values kept.
fn swappable(
    (i, j): (usize, usize),
    (k, m): (usize, usize),
    levels: &[Matrix<f64>],
) -> Result<bool, AlignError> {
    for level in levels {
        let mut crossed = [level.get(i, m)?, level.get(k, j)?];
        let mut own = [level.get(i, j)?, level.get(k, m)?];
        crossed.sort_by(f64::total_cmp);
        own.sort_by(f64::total_cmp);
        if crossed != own {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The rows and columns a block's pairs may take: its own, and the unpaired ones as
/// good as a block pair's on every kept level, in canonical order.
fn alternatives(
    block: &[(usize, usize)],
    current: &[(usize, usize)],
    kept: &[Matrix<f64>],
    order: &Canonical<'_>,
) -> Result<(Vec<usize>, Vec<usize>), AlignError> {
    let mut rows: BTreeSet<usize> = block.iter().map(|&(i, _)| i).collect();
    let mut cols: BTreeSet<usize> = block.iter().map(|&(_, j)| j).collect();
    let paired_rows: BTreeSet<usize> = current.iter().map(|&(i, _)| i).collect();
    let paired_cols: BTreeSet<usize> = current.iter().map(|&(_, j)| j).collect();
    let Some(first) = kept.first() else {
        return Err(AlignError::Internal("no level to keep"));
    };
    let equal = |a: (usize, usize), b: (usize, usize)| -> Result<bool, AlignError> {
        for level in kept {
            if level.get(a.0, a.1)? != level.get(b.0, b.1)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    for &(i, j) in block {
        for other in (0..first.cols()).filter(|c| !paired_cols.contains(c)) {
            if equal((i, other), (i, j))? {
                cols.insert(other);
            }
        }
        for other in (0..first.rows()).filter(|r| !paired_rows.contains(r)) {
            if equal((other, j), (i, j))? {
                rows.insert(other);
            }
        }
    }
    // ranks are distinct wherever a row can be an alternative; the index keeps the
    // order total anyway
    let ranked = |set: BTreeSet<usize>, ranks: &[i64]| -> Result<Vec<usize>, AlignError> {
        let mut keyed = Vec::with_capacity(set.len());
        for k in set {
            keyed.push((at(ranks, k, "rank")?, k));
        }
        keyed.sort_unstable();
        Ok(keyed.into_iter().map(|(_, k)| k).collect())
    };
    Ok((ranked(rows, order.rows)?, ranked(cols, order.cols)?))
}

/// Each kept level's values at `pairs`, sorted.
fn sorted_values(
    pairs: &[(usize, usize)],
    kept: &[Matrix<f64>],
) -> Result<Vec<Vec<f64>>, AlignError> {
    let mut all = Vec::with_capacity(kept.len());
    for level in kept {
        let mut values = Vec::with_capacity(pairs.len());
        for &(i, j) in pairs {
            values.push(level.get(i, j)?);
        }
        values.sort_by(f64::total_cmp);
        all.push(values);
    }
    Ok(all)
}

/// Each ranked level's sum over `pairs`.
fn depth_of(pairs: &[(usize, usize)], ranked: &[Matrix<i64>]) -> Result<Vec<i64>, AlignError> {
    let mut sums = Vec::with_capacity(ranked.len());
    for level in ranked {
        let mut sum: i64 = 0;
        for &(i, j) in pairs {
            sum = sum
                .checked_add(level.get(i, j)?)
                .ok_or(AlignError::Overflow)?;
        }
        sums.push(sum);
    }
    Ok(sums)
}

/// The `size`-combinations of `items` in itertools' order.
fn combinations(items: &[usize], size: usize) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut chosen = Vec::with_capacity(size);
    fn walk(items: &[usize], size: usize, chosen: &mut Vec<usize>, all: &mut Vec<Vec<usize>>) {
        if chosen.len() == size {
            all.push(chosen.clone());
            return;
        }
        for (k, &item) in items.iter().enumerate() {
            chosen.push(item);
            walk(items.get(k + 1..).unwrap_or(&[]), size, chosen, all);
            chosen.pop();
        }
    }
    walk(items, size, &mut chosen, &mut all);
    all
}

/// The `size`-permutations of `items` in itertools' order.
fn permutations(items: &[usize], size: usize) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut used = vec![false; items.len()];
    let mut chosen = Vec::with_capacity(size);
    fn walk(
        items: &[usize],
        size: usize,
        used: &mut [bool],
        chosen: &mut Vec<usize>,
        all: &mut Vec<Vec<usize>>,
    ) {
        if chosen.len() == size {
            all.push(chosen.clone());
            return;
        }
        for (k, &item) in items.iter().enumerate() {
            if let Some(false) = used.get(k).copied() {
                if let Some(slot) = used.get_mut(k) {
                    *slot = true;
                }
                chosen.push(item);
                walk(items, size, used, chosen, all);
                chosen.pop();
                if let Some(slot) = used.get_mut(k) {
                    *slot = false;
                }
            }
        }
    }
    walk(items, size, &mut used, &mut chosen, &mut all);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores by a table (0 elsewhere), counting the scorings; pairings alike when they
    /// hold the same rows (`alike_by_rows`), else each its own.
    struct Fixed(Vec<(Pairs, f64)>, usize, bool);

    impl DocumentScore for Fixed {
        fn score(&mut self, pairs: &[(usize, usize)]) -> Result<f64, AlignError> {
            self.1 += 1;
            Ok(self
                .0
                .iter()
                .find(|(p, _)| p.as_slice() == pairs)
                .map_or(0.0, |(_, v)| *v))
        }

        fn alike(&mut self, trials: &[Pairs]) -> Result<Vec<usize>, AlignError> {
            Ok(trials
                .iter()
                .enumerate()
                .map(|(k, trial)| {
                    if self.2 {
                        trial.iter().map(|&(i, _)| 1 << i).sum()
                    } else {
                        k
                    }
                })
                .collect())
        }
    }

    #[test]
    fn orders_follow_itertools() {
        assert_eq!(
            combinations(&[3, 1, 2], 2),
            vec![vec![3, 1], vec![3, 2], vec![1, 2]]
        );
        assert_eq!(permutations(&[5, 6, 7], 2).len(), 6);
        assert_eq!(permutations(&[5, 6, 7], 2).first(), Some(&vec![5, 6]));
        assert_eq!(permutations(&[5, 6, 7], 2).get(2), Some(&vec![6, 5]));
        assert_eq!((pairings(3, 3, 2), pairings(1, 2, 2)), (18, 0));
        assert_eq!(pairings(usize::MAX, usize::MAX, 4), usize::MAX);
        assert_eq!((pairings(9, 9, 9), pairings(7, 7, 7)), (usize::MAX, 5040));
    }

    #[test]
    fn depth_decides_before_the_score() -> Result<(), AlignError> {
        let c = Matrix::new(2, 2, vec![1.0; 4])?;
        let a = Matrix::new(2, 2, vec![0, 1, 1, 0])?;
        let kept = [c];
        let ranked = [a];
        let levels = Levels {
            kept: &kept,
            ranked: &ranked,
        };
        let order = Canonical {
            rows: &[0, 1],
            cols: &[0, 1],
        };
        let mut score = Fixed(Vec::new(), 0, false);
        let mut budget = Budget::default();
        let (pairs, left) = settle_by_score(
            &[(0, 0), (1, 1)],
            &[(0, 0), (1, 1)],
            &levels,
            &mut score,
            &mut budget,
            &order,
        )?;
        assert_eq!((pairs, left, score.1), (vec![(0, 1), (1, 0)], vec![], 0));
        Ok(())
    }

    #[test]
    fn equal_scores_keep_the_tie_and_the_budget_bounds() -> Result<(), AlignError> {
        let c = Matrix::new(2, 2, vec![1.0; 4])?;
        let kept = [c];
        let levels = Levels {
            kept: &kept,
            ranked: &[],
        };
        let order = Canonical {
            rows: &[1, 0],
            cols: &[0, 1],
        };
        let ties = [(0, 0), (1, 1)];
        let mut score = Fixed(Vec::new(), 0, false);
        let mut budget = Budget::default();
        let (pairs, left) =
            settle_by_score(&ties, &ties, &levels, &mut score, &mut budget, &order)?;
        assert_eq!((pairs, left.len(), score.1), (ties.to_vec(), 2, 2));
        let mut none = Budget { trials: 1 };
        let (_, left) = settle_by_score(&ties, &ties, &levels, &mut score, &mut none, &order)?;
        assert_eq!((left.len(), none.trials, score.1), (2, 1, 2));
        let bad = Canonical {
            rows: &[0],
            cols: &[0, 1],
        };
        assert!(settle_by_score(&ties, &ties, &levels, &mut score, &mut none, &bad).is_err());
        Ok(())
    }

    #[test]
    fn alike_pairings_are_scored_and_counted_once() -> Result<(), AlignError> {
        // 3 rows on 2 columns, all tied: 6 pairings, 3 classes by the rows they take
        let c = Matrix::new(3, 2, vec![1.0; 6])?;
        let kept = [c];
        let levels = Levels {
            kept: &kept,
            ranked: &[],
        };
        let order = Canonical {
            rows: &[0, 1, 2],
            cols: &[0, 1],
        };
        let ties = [(0, 0), (1, 1)];
        // the class of rows 1 and 2 wins: its first pairing, still tied with the other
        let won = vec![(1, 0), (2, 1)];
        let mut score = Fixed(vec![(won.clone(), 1.0)], 0, true);
        let mut budget = Budget { trials: 3 };
        let (pairs, left) =
            settle_by_score(&ties, &ties, &levels, &mut score, &mut budget, &order)?;
        assert_eq!((&pairs, &left, score.1, budget.trials), (&won, &won, 3, 0));
        // the given pairing's class best: the given pairing kept
        let mut score = Fixed(vec![(vec![(0, 0), (1, 1)], 1.0)], 0, true);
        let mut budget = Budget { trials: 3 };
        let (pairs, left) =
            settle_by_score(&ties, &ties, &levels, &mut score, &mut budget, &order)?;
        assert_eq!((pairs, left, score.1), (ties.to_vec(), ties.to_vec(), 3));
        // fewer trials than classes: the block left as it is, nothing scored
        let mut score = Fixed(Vec::new(), 0, true);
        let mut budget = Budget { trials: 2 };
        let (_, left) = settle_by_score(&ties, &ties, &levels, &mut score, &mut budget, &order)?;
        assert_eq!((left.len(), score.1, budget.trials), (2, 0, 2));
        Ok(())
    }
}
