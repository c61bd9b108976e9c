//! Object Aligner's scoring rules, written once.
//!
//! The layers follow the paper and import only downwards:
//! schema plan -> comparators -> values (JSON documents, their canonical text and
//! identifier keys) -> alignment (lists, maps, referential + WL + tie policy) ->
//! node table -> feedback. This crate has no Python in it; the PyO3 layer
//! (`oa-python`) only converts values and errors.

pub mod align;
pub mod compare;
pub mod plan;
pub mod pointer;
pub mod score;
pub mod value;
