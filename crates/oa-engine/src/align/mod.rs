//! Alignment: assignment of list items, the monotone DP of fixed-order lists, and
//! Weisfeiler-Leman refinement for referential alignment.
//!
//! Each rule is one module; their outputs equal `oa_core/assignment.py` and
//! `oa_core/wl.py` pair for pair and bit for bit (tests/test_rust_alignment.py):
//!
//! * `lsa`: the rectangular assignment solver, with SciPy's ties;
//! * `assignment`: `max_weight_matching` (genuine pairs, the bonus for more of
//!   them), `canonical_matching`, `tie_epsilon`;
//! * `monotone`: the order-sensitive DP with gaps;
//! * `wl`: joint 1-WL refinement, every round kept;
//! * `colours`, `twins`, `repair`: the canonical order, twin groups and the twin
//!   repair of the tie policy;
//! * `fsum`, `matrix`, `error`: exact sums, checked matrices, the error type;
//! * `strategy`: the one entry point pairing an unordered list, densely, from its
//!   positive cells (`sparse`, solved by `lapjvsp`) or block by block (`blocks`).

mod assignment;
mod blocks;
mod colours;
mod error;
mod fsum;
#[cfg(test)]
mod hostile;
mod lapjvsp;
mod lsa;
mod matrix;
mod monotone;
pub mod refer;
mod repair;
mod sparse;
mod strategy;
mod twins;
mod wl;

pub use assignment::{canonical_matching, max_weight_matching, tie_epsilon, Pairs, BONUS_TRIES};
pub use blocks::{blocks, Block};
pub use colours::bipartite_colours;
pub use error::AlignError;
pub use fsum::fsum;
pub use lsa::linear_sum_assignment;
pub use matrix::Matrix;
pub use monotone::monotone_matching;
pub use repair::{repair_twins, DynamicLevel, Level, Repaired};
pub use sparse::{equal_pairs, max_weight_matching_sparse, sparse_tie_epsilon, union_pairs};
pub use strategy::{pair_unordered, Cells, MatrixScores, PairScores, Paired, Strategy};
pub use twins::{twin_groups, Axis};
pub use wl::{refine, relabel, Edge as WlEdge};
