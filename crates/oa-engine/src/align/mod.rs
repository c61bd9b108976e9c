//! Alignment: assignment of list items, the monotone DP of fixed-order lists, and
//! Weisfeiler-Leman refinement for referential alignment.
//!
//! Each rule is one module; their outputs are pinned pair for pair and bit for bit
//! by tests/test_rust_alignment.py (WL rounds equal `oa_core/wl.py`'s):
//!
//! * `lsa`: the rectangular assignment solver, with SciPy's ties;
//! * `assignment`: `max_weight_matching` (genuine pairs, the bonus for more of
//!   them), `canonical_matching` (its cost built in one buffer), `tie_epsilon`;
//! * `coded`: a big scope's assignment cost as a small code per cell;
//! * `distinct`: a score matrix's distinct values and each cell's rank among them;
//! * `monotone`: the order-sensitive DP with gaps;
//! * `wl`: joint 1-WL refinement, every round kept;
//! * `colours`, `twins`, `repair`: the canonical order, twin groups and the twin
//!   repair of the tie policy;
//! * `policy`: the tie policy's ordered rules, the one place their order lives;
//! * `structure`, `pairing`, `settle`: one scope's agreements (b and a read from
//!   the colour histories, never held as n x m matrices in the pairing), its pairing
//!   by the tie policy (C, then b, then a, then the content rule), and label ties
//!   settled by the documents' score;
//! * `strategy`: the one entry point pairing an unordered list, densely, from its
//!   positive cells (`sparse`, solved by `lapjvsp`) or block by block (`blocks`);
//! * `refer`: referential alignment's document index, WL graphs and resolution order;
//! * `fsum`, `matrix`, `error`: exact sums, checked matrices, the error type.

mod assignment;
mod blocks;
mod coded;
mod colours;
mod distinct;
mod error;
mod fsum;
#[cfg(test)]
mod hostile;
mod lapjvsp;
mod lsa;
mod matrix;
mod monotone;
pub(crate) mod pages;
mod pairing;
mod policy;
pub mod refer;
mod repair;
mod scale;
mod settle;
mod sparse;
mod strategy;
mod structure;
#[cfg(test)]
mod ties_hostile;
mod twins;
mod wl;

pub use assignment::{canonical_matching, max_weight_matching, tie_epsilon, Pairs, BONUS_TRIES};
pub use blocks::{blocks, part, Block, Part};
pub use colours::{bipartite_colours, CellLabels};
pub use error::AlignError;
pub use fsum::fsum;
pub use lsa::linear_sum_assignment;
pub use matrix::Matrix;
pub use monotone::monotone_matching;
pub use pairing::{pair_scope, twin_pairs, RecordKey, RecordKeys, ScopePairing, WlMode};
pub use policy::{TieRule, BY_LABELS, TIE_RULES};
pub use repair::{repair_twins, CellLevel, DynamicLevel, Level, Repaired};
pub use scale::power_of_two_scale;
pub use settle::{
    settle_by_score, Budget, Canonical, DocumentScore, Levels, ENUMERATED, SCORED_RECORDS,
    SCORED_TRIALS,
};
pub use sparse::{
    equal_pairs, equal_pairs_within, max_weight_matching_sparse, sparse_tie_epsilon, union_pairs,
};
pub use strategy::{
    pair_unordered, Cells, MatrixScores, PairScores, Paired, Strategy, SPARSE_FROM_CELLS,
};
pub use structure::{Incident, References, Structure};
pub use twins::{twin_groups, Axis};
pub use wl::{refine, relabel, sorted_distinct, Edge as WlEdge};
