//! Alignment: assignment of list items, the monotone DP of fixed-order lists, and
//! Weisfeiler-Leman refinement for referential alignment.
