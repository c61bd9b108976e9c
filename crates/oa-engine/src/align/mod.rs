//! Alignment: assignment of list items, the monotone DP of fixed-order lists, and
//! Weisfeiler-Leman refinement for referential alignment.
//!
//! Each rule is one module; their outputs equal `oa_core/assignment.py` and
//! `oa_core/wl.py` pair for pair and bit for bit (tests/test_rust_alignment.py).

mod assignment;
mod colours;
mod error;
mod fsum;
mod lsa;
mod matrix;
mod monotone;
mod twins;
mod wl;

pub use assignment::{canonical_matching, max_weight_matching, tie_epsilon, Pairs, BONUS_TRIES};
pub use colours::bipartite_colours;
pub use error::AlignError;
pub use fsum::fsum;
pub use lsa::linear_sum_assignment;
pub use matrix::Matrix;
pub use monotone::monotone_matching;
pub use twins::{twin_groups, Axis};
pub use wl::{refine, relabel, Edge as WlEdge};
