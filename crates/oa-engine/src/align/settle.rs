//! The content rule's settling of label ties by the documents' score.
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
/// Classes of pairings of a block looked through before any is scored (7!: every
/// pairing of 7 tied pairs whose records all differ).
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
    /// One class per block pairing in `trials`, so that pairings known to score alike
    /// are scored once: pairings of one class give the documents the same score. A
    /// pairing's class is that of the multiset of its pairs' (gold record, candidate
    /// record) classes: the records' classes are read off one-pair pairings.
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
/// given pairing first) is kept and the block stays tied. Records that no level and
/// no [`DocumentScore::alike`] class tell apart are one class, and the pairings are
/// looked through by class: those that only exchange records of one class keep every
/// level's values and the `alike` class, and the first of them (in the order of
/// every pairing: rows by `itertools.combinations`, then columns by
/// `itertools.permutations`) stands for them. A block with more classes of pairings
/// than [`ENUMERATED`] to look through, or more to score than the budget has left, is
/// left as it is; a block whose deepest pairings are all of one `alike` class takes
/// the first without scoring. Pairings of one [`DocumentScore::alike`] class are
/// scored once (the first) and counted once in the budget.
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
        let (row_class, col_class) = record_classes(&rows, &cols, levels, score)?;
        let row_sizes = class_sizes(&row_class);
        let col_sizes = class_sizes(&col_class);
        let Some(tables) = class_tables(&row_sizes, &col_sizes, block.len(), ENUMERATED) else {
            remaining.extend(&block);
            continue;
        };
        let row_at: BTreeMap<usize, usize> =
            rows.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        let col_at: BTreeMap<usize, usize> =
            cols.iter().enumerate().map(|(k, &j)| (j, k)).collect();
        let mut counts: BTreeMap<(usize, usize), usize> = BTreeMap::new();
        for &(i, j) in &block {
            let a = row_at.get(&i).and_then(|&k| row_class.get(k));
            let b = col_at.get(&j).and_then(|&k| col_class.get(k));
            let (Some(&a), Some(&b)) = (a, b) else {
                return Err(AlignError::Internal("a block record without its class"));
            };
            *counts.entry((a, b)).or_default() += 1;
        }
        let own: Table = counts.into_iter().map(|((a, b), n)| (a, b, n)).collect();
        // the block's class first, with the block itself, then the other classes by
        // their first pairing
        let mut others = Vec::with_capacity(tables.len());
        for table in tables.into_iter().filter(|table| *table != own) {
            others.push((first_pairing(&table, &row_class, &col_class)?, table));
        }
        others.sort();
        let mut trials: Vec<(Pairs, Table)> = vec![(block.clone(), own)];
        for ((chosen, arranged), table) in others {
            let mut trial = Vec::with_capacity(chosen.len());
            for (k, m) in chosen.into_iter().zip(arranged) {
                trial.push((at(&rows, k, "row")?, at(&cols, m, "column")?));
            }
            trials.push((trial, table));
        }
        // whether other pairings of the class exist (exchanging two of its records)
        let many: Vec<bool> = trials
            .iter()
            .map(|(_, table)| {
                table.iter().any(|&(a, b, _)| {
                    row_sizes.get(a).is_some_and(|&n| n > 1)
                        || col_sizes.get(b).is_some_and(|&n| n > 1)
                })
            })
            .collect();
        let wanted = sorted_values(&block, levels.kept)?;
        let mut good = Vec::with_capacity(trials.len());
        for (k, (trial, _)) in trials.iter().enumerate() {
            if k == 0 || sorted_values(trial, levels.kept)? == wanted {
                good.push((k, depth_of(trial, levels.ranked)?));
            }
        }
        let deepest = good
            .iter()
            .map(|(_, depth)| depth)
            .max()
            .cloned()
            .unwrap_or_default();
        let good: Vec<usize> = good
            .into_iter()
            .filter(|(_, depth)| *depth == deepest)
            .map(|(k, _)| k)
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
        let good_trials: Vec<Pairs> = good
            .iter()
            .map(|&k| trials.get(k).map(|(trial, _)| trial.clone()))
            .collect::<Option<_>>()
            .ok_or(AlignError::Internal("pairing"))?;
        let classes = score.alike(&good_trials)?;
        check_len("pairing classes", good_trials.len(), classes.len())?;
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
        let several = |members: &[usize]| {
            members.len() > 1
                || members
                    .first()
                    .and_then(|&k| good.get(k))
                    .and_then(|&k| many.get(k))
                    .copied()
                    .unwrap_or(false)
        };
        if let [only] = distinct.as_slice() {
            // the agreement depth decided: no score tells them apart
            let trial = good_trials.first().ok_or(AlignError::Internal("pairing"))?;
            current = with_fixed(trial);
            if several(only) {
                remaining.extend(trial);
            }
            continue;
        }
        if distinct.len() > budget.trials {
            remaining.extend(&block);
            continue;
        }
        budget.trials -= distinct.len();
        let mut scored = Vec::with_capacity(distinct.len());
        for members in &distinct {
            let first = at(members, 0, "class member")?;
            let trial = good_trials
                .get(first)
                .ok_or(AlignError::Internal("pairing"))?;
            scored.push(score.score(&with_fixed(trial))?);
        }
        // Python's max: the first of the largest
        let best = scored
            .iter()
            .copied()
            .reduce(|best, v| if v > best { v } else { best });
        // classes come in the order of their first pairing: the first best class's
        // first pairing is the first winner
        let winners: Vec<usize> = distinct
            .iter()
            .zip(&scored)
            .filter(|(_, v)| Some(**v) == best)
            .flat_map(|(members, _)| members.iter().copied())
            .collect();
        let first = *winners
            .first()
            .ok_or(AlignError::Internal("no best pairing (a score is NaN)"))?;
        let winner = good_trials
            .get(first)
            .ok_or(AlignError::Internal("pairing"))?;
        current = with_fixed(winner);
        if several(&winners) {
            remaining.extend(winner);
        }
    }
    remaining.sort_unstable();
    Ok((current, remaining))
}

/// A class of pairings: its pairs per (row class, column class), those > 0 in
/// row-major order.
type Table = Vec<(usize, usize, usize)>;

/// The members of each class of `classes` (numbered from 0 as first met).
fn class_sizes(classes: &[usize]) -> Vec<usize> {
    let mut sizes = Vec::new();
    for &class in classes {
        if sizes.len() <= class {
            sizes.resize(class + 1, 0);
        }
        if let Some(size) = sizes.get_mut(class) {
            *size += 1;
        }
    }
    sizes
}

/// The class of each of a block's rows and columns (numbered as first met, in the
/// given order): records of one class have the same values on every level (against
/// the other side's records) and [`DocumentScore::alike`] keys them alike (asked of
/// one-pair pairings with the other side's first record). Exchanging two records of
/// one class in a pairing keeps the values of every level, its depth and its class.
fn record_classes(
    rows: &[usize],
    cols: &[usize],
    levels: &Levels<'_>,
    score: &mut dyn DocumentScore,
) -> Result<(Vec<usize>, Vec<usize>), AlignError> {
    let (Some(&row), Some(&col)) = (rows.first(), cols.first()) else {
        return Err(AlignError::Internal("a block without records"));
    };
    let mut probes: Vec<Pairs> = rows.iter().map(|&i| vec![(i, col)]).collect();
    probes.extend(cols.iter().map(|&j| vec![(row, j)]));
    let alike = score.alike(&probes)?;
    check_len("record classes", probes.len(), alike.len())?;
    let (row_alike, col_alike) = alike.split_at(rows.len());
    // a record's line of every level, floats by their bits
    let line = |cells: &mut dyn Iterator<Item = (usize, usize)>| -> Result<Vec<u64>, AlignError> {
        let cells: Vec<(usize, usize)> = cells.collect();
        let mut bits = Vec::new();
        for level in levels.kept {
            for &(i, j) in &cells {
                bits.push(level.get(i, j)?.to_bits());
            }
        }
        for level in levels.ranked {
            for &(i, j) in &cells {
                bits.push(u64::from_ne_bytes(level.get(i, j)?.to_ne_bytes()));
            }
        }
        Ok(bits)
    };
    let mut row_keys = Vec::with_capacity(rows.len());
    for (&i, &class) in rows.iter().zip(row_alike) {
        row_keys.push((class, line(&mut cols.iter().map(|&j| (i, j)))?));
    }
    let mut col_keys = Vec::with_capacity(cols.len());
    for (&j, &class) in cols.iter().zip(col_alike) {
        col_keys.push((class, line(&mut rows.iter().map(|&i| (i, j)))?));
    }
    Ok((numbered(row_keys), numbered(col_keys)))
}

/// Equal keys one number, numbered as first met.
fn numbered<K: Ord>(keys: Vec<K>) -> Vec<usize> {
    let mut seen: BTreeMap<K, usize> = BTreeMap::new();
    keys.into_iter()
        .map(|key| {
            let next = seen.len();
            *seen.entry(key).or_insert(next)
        })
        .collect()
}

/// A partial table: (row class, next column class, taken by the row, left, the row's
/// least, the row's most, cells, room left per column class, its sums from each
/// column class on).
type Partial = (
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    Table,
    Vec<usize>,
    Vec<usize>,
);

/// Every way to pair `size` records of row classes of `row_sizes` members with as
/// many of column classes of `col_sizes` members, as [`Table`]s; `None` when there
/// are more than `limit`. Each partial table kept can be completed (so the work
/// follows the tables found): a row class takes at least what the classes after it
/// cannot, and the columns always have room for what is left (as many as the rows).
fn class_tables(
    row_sizes: &[usize],
    col_sizes: &[usize],
    size: usize,
    limit: usize,
) -> Option<Vec<Table>> {
    // members of row classes a and after
    let mut rows_from = vec![0; row_sizes.len() + 1];
    for a in (0..row_sizes.len()).rev() {
        let here =
            row_sizes.get(a).copied().unwrap_or(0) + rows_from.get(a + 1).copied().unwrap_or(0);
        if let Some(slot) = rows_from.get_mut(a) {
            *slot = here;
        }
    }
    let from = |a: usize| rows_from.get(a).copied().unwrap_or(0);
    let start_rows =
        |stack: &mut Vec<Partial>, after: usize, left: usize, cells: &Table, room: &[usize]| {
            let mut suffix = vec![0; room.len() + 1];
            for b in (0..room.len()).rev() {
                let here =
                    room.get(b).copied().unwrap_or(0) + suffix.get(b + 1).copied().unwrap_or(0);
                if let Some(slot) = suffix.get_mut(b) {
                    *slot = here;
                }
            }
            for a in after..row_sizes.len() {
                if left > from(a) {
                    break; // classes a and after cannot take them all
                }
                let most = row_sizes.get(a).copied().unwrap_or(0).min(left);
                let least = left.saturating_sub(from(a + 1)).max(1);
                stack.push((
                    a,
                    0,
                    0,
                    left,
                    least,
                    most,
                    cells.clone(),
                    room.to_vec(),
                    suffix.clone(),
                ));
            }
        };
    let mut found = Vec::new();
    let mut stack: Vec<Partial> = Vec::new();
    start_rows(&mut stack, 0, size, &Vec::new(), col_sizes);
    while let Some((a, b, taken, left, least, most, cells, room, suffix)) = stack.pop() {
        if taken >= least {
            // the row class may take no more
            if left == 0 {
                found.push(cells.clone());
                if found.len() > limit {
                    return None;
                }
            } else {
                start_rows(&mut stack, a + 1, left, &cells, &room);
            }
        }
        for column in b..col_sizes.len() {
            let beyond = suffix.get(column + 1).copied().unwrap_or(0);
            if suffix.get(column).copied().unwrap_or(0) + taken < least {
                break;
            }
            let low = least.saturating_sub(taken + beyond).max(1);
            let high = room
                .get(column)
                .copied()
                .unwrap_or(0)
                .min(most - taken.min(most));
            for count in low..=high {
                let mut cells = cells.clone();
                cells.push((a, column, count));
                let mut room = room.clone();
                if let Some(slot) = room.get_mut(column) {
                    *slot -= count;
                }
                stack.push((
                    a,
                    column + 1,
                    taken + count,
                    left - count,
                    least,
                    most,
                    cells,
                    room,
                    suffix.clone(),
                ));
            }
        }
    }
    Some(found)
}

/// The first pairing (in the order of `itertools.combinations` of the rows, then
/// `itertools.permutations` of the columns) with the counts of `table`, as row and column
/// positions: each row class's first members, each paired with the first free
/// column of a column class it still needs.
fn first_pairing(
    table: &Table,
    row_class: &[usize],
    col_class: &[usize],
) -> Result<(Vec<usize>, Vec<usize>), AlignError> {
    let mut need: BTreeMap<usize, BTreeMap<usize, usize>> = BTreeMap::new();
    for &(a, b, count) in table {
        need.entry(a).or_default().insert(b, count);
    }
    let mut wanted: BTreeMap<usize, usize> = need
        .iter()
        .map(|(&a, by_col)| (a, by_col.values().sum()))
        .collect();
    let mut chosen = Vec::new();
    for (position, a) in row_class.iter().enumerate() {
        if let Some(left) = wanted.get_mut(a).filter(|left| **left > 0) {
            *left -= 1;
            chosen.push(position);
        }
    }
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (position, &b) in col_class.iter().enumerate() {
        members.entry(b).or_default().push(position);
    }
    let mut taken: BTreeMap<usize, usize> = BTreeMap::new();
    let mut arranged = Vec::with_capacity(chosen.len());
    for &position in &chosen {
        let a = at(row_class, position, "row class")?;
        let by_col = need.get_mut(&a).ok_or(AlignError::Internal("row class"))?;
        let mut next: Option<(usize, usize)> = None; // (column position, class)
        for (&b, _) in by_col.iter().filter(|(_, count)| **count > 0) {
            let used = taken.get(&b).copied().unwrap_or(0);
            let column = members
                .get(&b)
                .and_then(|found| found.get(used))
                .copied()
                .ok_or(AlignError::Internal("column class"))?;
            if next.map_or(true, |(best, _)| column < best) {
                next = Some((column, b));
            }
        }
        let (column, b) = next.ok_or(AlignError::Internal("column class"))?;
        if let Some(count) = by_col.get_mut(&b) {
            *count -= 1;
        }
        *taken.entry(b).or_default() += 1;
        arranged.push(column);
    }
    Ok((chosen, arranged))
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
    fn pairings_are_looked_through_by_class() -> Result<(), AlignError> {
        // records all distinct: the classes are the pairings, 7! of them at most
        assert_eq!(
            class_tables(&[1; 7], &[1; 7], 7, 5040).map(|t| t.len()),
            Some(5040)
        );
        assert_eq!(class_tables(&[1; 7], &[1; 7], 7, 5039), None);
        assert_eq!(
            class_tables(&[1; 3], &[1; 2], 2, 99).map(|t| t.len()),
            Some(6)
        );
        // 8 look-alike records in two arrays a side: 8! pairings, 5 classes (how many
        // of the first array's go to the first array)
        let tables = class_tables(&[4, 4], &[4, 4], 8, 5040).unwrap_or_default();
        assert_eq!(tables.len(), 5);
        assert!(tables.contains(&vec![(0, 0, 4), (1, 1, 4)]));
        let mut tables = class_tables(&[2, 1], &[3], 2, 9).unwrap_or_default();
        tables.sort();
        assert_eq!(tables, vec![vec![(0, 0, 1), (1, 0, 1)], vec![(0, 0, 2)]]);
        // each row class's first members, each with the first free column it needs
        let first = first_pairing(&vec![(0, 1, 1), (1, 0, 1)], &[0, 0, 1], &[0, 1, 1])?;
        assert_eq!(first, (vec![0, 2], vec![1, 0]));
        Ok(())
    }

    #[test]
    fn eight_look_alike_records_are_settled_by_score() -> Result<(), AlignError> {
        // seed 10001006 of the nested fuzz: rows 0..4 and columns 0..4 sit in one
        // array, rows and columns 4..8 in the other; every pairing keeps C, b and a,
        // and only the score prefers each array's records with the other's like array
        let c = Matrix::new(8, 8, vec![1.0; 64])?;
        let kept = [c];
        let levels = Levels {
            kept: &kept,
            ranked: &[],
        };
        let ranks: Vec<i64> = (0..8).collect();
        let order = Canonical {
            rows: &ranks,
            cols: &ranks,
        };
        struct ByArray(usize);
        impl DocumentScore for ByArray {
            fn score(&mut self, pairs: &[(usize, usize)]) -> Result<f64, AlignError> {
                self.0 += 1;
                let straight = pairs.iter().filter(|&&(i, j)| i / 4 == j / 4).count();
                Ok(straight as f64 / 8.0)
            }
            fn alike(&mut self, trials: &[Pairs]) -> Result<Vec<usize>, AlignError> {
                let mut seen = BTreeMap::new();
                Ok(trials
                    .iter()
                    .map(|trial| {
                        let mut key: Vec<(usize, usize)> =
                            trial.iter().map(|&(i, j)| (i / 4, j / 4)).collect();
                        key.sort_unstable();
                        let next = seen.len();
                        *seen.entry(key).or_insert(next)
                    })
                    .collect())
            }
        }
        let crossed: Pairs = (0..8).map(|i| (i, (i + 4) % 8)).collect();
        let mut score = ByArray(0);
        let mut budget = Budget::default();
        let (pairs, left) =
            settle_by_score(&crossed, &crossed, &levels, &mut score, &mut budget, &order)?;
        assert!(pairs.iter().all(|&(i, j)| i / 4 == j / 4), "{pairs:?}");
        // 5 classes scored once each; records of one array stay interchangeable
        assert_eq!(
            (score.0, budget.trials, left.len()),
            (5, SCORED_TRIALS - 5, 8)
        );
        Ok(())
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
