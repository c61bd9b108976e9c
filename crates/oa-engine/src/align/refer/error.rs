//! The error of referential indexing: a plan that does not hold what the schema
//! said, or a document nested deeper than the limit (reported, never a panic).

use std::fmt;

use crate::plan::PlanError;

/// Why a document could not be indexed or a schema's scopes ordered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReferError {
    /// The plan misses a node or scope it names (a broken plan, not bad input).
    Plan(PlanError),
    /// A scope name the plan does not declare.
    UnknownScope(String),
    /// The document nests deeper than `max_depth` containers.
    TooDeep { max_depth: usize },
    /// An invariant of the walk did not hold (a bug, reported instead of a panic).
    Internal(&'static str),
}

impl fmt::Display for ReferError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReferError::Plan(error) => error.fmt(f),
            ReferError::UnknownScope(name) => write!(f, "no scope is named {name:?}"),
            ReferError::TooDeep { max_depth } => {
                write!(f, "the document nests deeper than {max_depth} containers")
            }
            ReferError::Internal(what) => write!(f, "referential index: {what}"),
        }
    }
}

impl std::error::Error for ReferError {}

impl From<PlanError> for ReferError {
    fn from(error: PlanError) -> Self {
        ReferError::Plan(error)
    }
}
