//! A scope whose records array has `blockBy`, paired block by block: records of
//! different blocks never pair, so each block is a small scope of its own.
//!
//! The blocks are `align::blocks`'; each is paired as a scope of its own by the tie
//! policy (`pair_scope`: its C, its rows and columns of b and a, the content rule
//! among its records). For `align()`, and for a scope of at most `SCORED_RECORDS`
//! gold records within `max_matrix_cells`, the levels are kept whole, zero across
//! blocks (its label ties may be settled by the documents' score); otherwise at its
//! pairs' cells only, all that adopting its pairs reads ([`keeps_whole`], the rule
//! of every scope's levels). The canonical order of the scope
//! is each block's, after the blocks before it.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::histories::Histories;
use super::index::Record;
use super::resolve::{Keys, Mode, ResolveError, ScopeScores};
use super::state::{Levels, PairCells, Paired, Referential};
use crate::align::error::at;
use crate::align::lapjvsp::filled;
use crate::align::{pair_scope, AlignError, Block, Matrix, RecordKey, RecordKeys, SCORED_RECORDS};
use crate::plan::ScopeId;
use crate::value::Json;

/// A blocked scope: its records and their blocks.
pub struct BlockedScope<'a> {
    pub scope: ScopeId,
    pub gold: &'a [Record<'a>],
    pub candidate: &'a [Record<'a>],
    pub blocks: &'a [Block],
}

/// What a block is scored and refined under.
pub struct Context<'a> {
    pub refs: &'a Referential,
    pub unresolved: &'a BTreeSet<ScopeId>,
    pub histories: Option<&'a Histories>,
    pub mode: Mode,
}

/// The sort keys of a block's records: the scope's, through the block's positions.
struct BlockKeys<'k> {
    keys: Keys<'k>,
    rows: &'k [usize],
    cols: &'k [usize],
}

impl RecordKeys for BlockKeys<'_> {
    fn keys(&mut self, gold: bool, records: &[usize]) -> Result<Vec<RecordKey>, AlignError> {
        let positions = if gold { self.rows } else { self.cols };
        let scoped = records
            .iter()
            .map(|&k| at(positions, k, "block record"))
            .collect::<Result<Vec<_>, _>>()?;
        self.keys.keys(gold, &scoped)
    }
}

/// The levels being filled: whole (C, and b and a with WL), or at the pairs.
enum Filling {
    Whole {
        matrix: Vec<f64>,
        structure: Option<(Vec<f64>, Vec<i64>)>,
    },
    AtPairs(PairCells),
}

/// The pairing of a blocked scope (label ties not settled yet).
pub fn pair_blocks(
    blocked: &BlockedScope<'_>,
    context: &Context<'_>,
    scores: &mut dyn ScopeScores,
    provisional: bool,
) -> Result<Paired, ResolveError> {
    let (gold, candidate) = (blocked.gold, blocked.candidate);
    let (n, m) = (gold.len(), candidate.len());
    let histories = context.histories.filter(|_| n > 0 && m > 0);
    let whole = keeps_whole(n, m, context.mode);
    let mut filling = match n.checked_mul(m).filter(|_| whole) {
        Some(cells) => Filling::Whole {
            matrix: filled(cells, 0.0)?,
            structure: match histories {
                Some(_) => Some((filled(cells, 0.0)?, filled(cells, 0)?)),
                None => None,
            },
        },
        None => Filling::AtPairs(PairCells::new()),
    };
    let mut pairs = Vec::new();
    let mut label_ties = Vec::new();
    let mut rules = BTreeMap::new();
    let mut sides = [Ranks::new(n), Ranks::new(m)];
    for block in blocked.blocks {
        let (rows, cols) = (block.gold.as_slice(), block.candidate.as_slice());
        if rows.is_empty() || cols.is_empty() {
            // unpaired records: one rank for the block
            for (side, members) in sides.iter_mut().zip([rows, cols]) {
                for &k in members {
                    side.set(k, side.next)?;
                }
                side.next += 1;
            }
            continue;
        }
        let sub = scores.matrix(
            blocked.scope,
            &values(gold, rows)?,
            &values(candidate, cols)?,
            context.refs,
            context.unresolved,
        )?;
        let structure = histories
            .map(|h| h.structure(Some((rows, cols))))
            .transpose()?;
        if let Filling::Whole {
            matrix,
            structure: whole,
        } = &mut filling
        {
            spread(matrix, &sub, rows, cols, m)?;
            if let (Some((same, depth)), Some(found)) = (whole.as_mut(), &structure) {
                spread(same, &found.same_matrix()?, rows, cols, m)?;
                spread(depth, &found.depth_matrix()?, rows, cols, m)?;
            }
        }
        let paired = pair_scope(
            &sub,
            context.mode.wl,
            context.mode.wl_lambda,
            structure,
            &mut BlockKeys {
                keys: Keys { gold, candidate },
                rows,
                cols,
            },
        )?;
        for (&(a, b), &rule) in paired.pairs.iter().zip(&paired.rules) {
            let pair = (at(rows, a, "block row")?, at(cols, b, "block column")?);
            pairs.push(pair);
            rules.insert(pair, rule);
            if let Filling::AtPairs(kept) = &mut filling {
                kept.insert(pair, cell_levels(sub.get(a, b)?, histories, pair)?);
            }
        }
        for &(a, b) in &paired.label_ties {
            label_ties.push((at(rows, a, "block row")?, at(cols, b, "block column")?));
        }
        // the block's canonical order, after the blocks before it (ties kept)
        for (side, (members, local)) in sides
            .iter_mut()
            .zip([(rows, &paired.rows), (cols, &paired.cols)])
        {
            let dense: BTreeMap<i64, i64> = local
                .iter()
                .copied()
                .collect::<BTreeSet<i64>>()
                .into_iter()
                .zip(0..)
                .collect();
            if members.len() != local.len() {
                return Err(AlignError::Internal("a block's canonical order").into());
            }
            for (&k, value) in members.iter().zip(local) {
                let rank = dense.get(value).copied().unwrap_or(0);
                side.set(k, side.next + rank)?;
            }
            side.next += i64::try_from(dense.len()).map_err(|_| AlignError::Overflow)?;
        }
    }
    pairs.sort_unstable();
    label_ties.sort_unstable();
    let levels = match filling {
        Filling::Whole { matrix, structure } => Levels {
            matrix: Matrix::new(n, m, matrix)?,
            structure: match structure {
                Some((same, depth)) => Some((Matrix::new(n, m, same)?, Matrix::new(n, m, depth)?)),
                None => None,
            },
            at_pairs: None,
        },
        Filling::AtPairs(kept) => Levels {
            matrix: Matrix::new(0, 0, Vec::new())?,
            structure: None,
            at_pairs: Some(kept),
        },
    };
    let [rows, cols] = sides.map(|side| side.ranks);
    Ok(Paired {
        scope: blocked.scope,
        levels: Rc::new(levels),
        rules,
        pairs,
        label_ties,
        rows: Rc::new(rows),
        cols: Rc::new(cols),
        provisional,
    })
}

/// Whether a scope of `gold x candidate` records keeps its levels whole: for
/// `align()` (`mode.describe`), or where its label ties may be settled by the
/// documents' score (at most `SCORED_RECORDS` gold records, within
/// `max_matrix_cells`); else only its pairs' cells are kept.
pub fn keeps_whole(gold: usize, candidate: usize, mode: Mode) -> bool {
    mode.describe
        || (gold <= SCORED_RECORDS
            && gold
                .checked_mul(candidate)
                .is_some_and(|cells| cells <= mode.max_matrix_cells))
}

/// The levels of the scope's cell `pair` (C given): (C, b, a) with WL, else (C).
pub fn cell_levels(
    c: f64,
    histories: Option<&Histories>,
    pair: (usize, usize),
) -> Result<Vec<f64>, AlignError> {
    let mut levels = vec![c];
    if let Some(histories) = histories {
        let (same, depth) = histories.agreement(pair.0, pair.1)?;
        // a count of rounds: exact as a float (Python's float(int))
        #[allow(clippy::cast_precision_loss)]
        levels.extend([same, depth as f64]);
    }
    Ok(levels)
}

/// The values of the records at `positions`.
fn values<'r>(records: &'r [Record<'r>], positions: &[usize]) -> Result<Vec<&'r Json>, AlignError> {
    positions
        .iter()
        .map(|&k| {
            records
                .get(k)
                .map(|record| record.value)
                .ok_or(AlignError::Internal("block record"))
        })
        .collect()
}

/// One side's canonical ranks, and the rank the next block starts from.
struct Ranks {
    ranks: Vec<i64>,
    next: i64,
}

impl Ranks {
    fn new(count: usize) -> Self {
        Ranks {
            ranks: vec![0; count],
            next: 0,
        }
    }

    fn set(&mut self, k: usize, rank: i64) -> Result<(), AlignError> {
        let slot = self
            .ranks
            .get_mut(k)
            .ok_or(AlignError::Internal("a block record outside its scope"))?;
        *slot = rank;
        Ok(())
    }
}

/// A block's matrix written into the scope's (`width` columns) at its rows and columns.
fn spread<T: Copy>(
    whole: &mut [T],
    part: &Matrix<T>,
    rows: &[usize],
    cols: &[usize],
    width: usize,
) -> Result<(), AlignError> {
    for (a, &i) in rows.iter().enumerate() {
        for (&j, &value) in cols.iter().zip(part.row(a)?) {
            let cell = i
                .checked_mul(width)
                .and_then(|start| start.checked_add(j))
                .and_then(|k| whole.get_mut(k))
                .ok_or(AlignError::Internal("a block cell outside its scope"))?;
            *cell = value;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::WlMode;

    #[test]
    fn levels_are_kept_whole_for_align_or_where_ties_may_be_settled() {
        let mode = |describe| Mode {
            wl: WlMode::TieBreak,
            wl_lambda: 0.5,
            max_matrix_cells: 1000,
            describe,
        };
        assert!(keeps_whole(10, 100, mode(false)));
        assert!(!keeps_whole(10, 101, mode(false))); // over the limit: blocks only
        assert!(!keeps_whole(SCORED_RECORDS + 1, 1, mode(false)));
        assert!(keeps_whole(SCORED_RECORDS + 1, 1, mode(true)));
        assert!(!keeps_whole(usize::MAX, 2, mode(false)));
    }
}
