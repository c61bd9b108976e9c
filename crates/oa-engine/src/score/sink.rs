//! Where the recursion's findings go. One recursion computes the score and, when
//! asked, the match tree: it reports each compared pair to a [`Sink`]. The
//! [`ScoreOnly`] sink keeps nothing (its hooks are empty and inlined away, and work
//! done only for the tree is skipped on `Sink::RECORDS`); the node table of
//! [`super::tree`] keeps a row per node.

use crate::align::Matrix;
use crate::compare::Comparator;
use crate::plan::{NodeId, Order, ScopeId};
use crate::value::Json;

/// What a match-tree node compares (`oa_core.kinds.NodeKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Map,
    Sequence,
    Leaf,
    Id,
    Ref,
    Null,
}

impl NodeKind {
    /// The kind of a node that is neither an id nor a reference, by its JSON type.
    pub fn of(value: &Json) -> NodeKind {
        match value {
            Json::Object(_) => NodeKind::Map,
            Json::Array(_) => NodeKind::Sequence,
            Json::Null => NodeKind::Null,
            Json::Leaf(_) => NodeKind::Leaf,
        }
    }

    /// The name `oa_core.kinds.NodeKind` gives it.
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Map => "map",
            NodeKind::Sequence => "sequence",
            NodeKind::Leaf => "leaf",
            NodeKind::Id => "id",
            NodeKind::Ref => "ref",
            NodeKind::Null => "null",
        }
    }
}

/// How a node's two sides relate (`oa_core.kinds.Status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Matched,
    Missing,
    Excess,
    TypeMismatch,
    NullMismatch,
}

impl Status {
    /// The name `oa_core.kinds.Status` gives it.
    pub fn name(self) -> &'static str {
        match self {
            Status::Matched => "matched",
            Status::Missing => "missing",
            Status::Excess => "excess",
            Status::TypeMismatch => "type-mismatch",
            Status::NullMismatch => "null-mismatch",
        }
    }
}

/// Where a node sits under its parent: the key or the index of each side (None on
/// the side it is absent from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'v> {
    Root,
    Key {
        gold: Option<&'v str>,
        candidate: Option<&'v str>,
    },
    Index {
        gold: Option<usize>,
        candidate: Option<usize>,
    },
}

/// The hooks the recursion calls, in preorder: a node is opened before its
/// children, and its children's shares are given once all of them are scored.
pub trait Sink {
    /// A node's handle.
    type Row: Copy;
    /// Whether anything is kept: work done only for the tree is skipped when not.
    const RECORDS: bool;

    /// A node under `parent` (None: the root) compared under plan node `node`.
    fn open(
        &mut self,
        parent: Option<Self::Row>,
        step: Step<'_>,
        node: NodeId,
        kind: NodeKind,
        status: Status,
    ) -> Self::Row;
    fn kind(&mut self, row: Self::Row, kind: NodeKind);
    fn status(&mut self, row: Self::Row, status: Status);
    fn score(&mut self, row: Self::Row, score: f64);
    /// A leaf's comparator name, threshold and (when compared) similarity.
    fn leaf(
        &mut self,
        row: Self::Row,
        comparator: Option<Comparator>,
        threshold: f64,
        similarity: Option<f64>,
    );
    /// An identifier or a reference of `scope`; `expected`: a reference whose gold
    /// id maps to a candidate id under the scope's bijection.
    fn scope(&mut self, row: Self::Row, scope: ScopeId, expected: bool);
    /// An identifier whose candidate value is its gold value's image under the
    /// scope's bijection.
    fn image(&mut self, row: Self::Row);
    fn order(&mut self, row: Self::Row, order: Order);
    /// A scope's records array, paired by its records' pointers (order `scope`).
    fn records(&mut self, row: Self::Row, scope: ScopeId);
    /// The score matrix a list was paired with (handed over: a long list's is
    /// large), and its matched pairs.
    fn matrix(&mut self, row: Self::Row, matrix: Matrix<f64>);
    fn pairs(&mut self, row: Self::Row, pairs: &[(usize, usize)]);
    /// A child's share of its parent's score: of its value, and (map slots) of the
    /// key term with its key similarity.
    fn share(&mut self, row: Self::Row, weight: f64, key_weight: f64, key_score: Option<f64>);
}

/// The sink of a score alone: keeps nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScoreOnly;

impl Sink for ScoreOnly {
    type Row = ();
    const RECORDS: bool = false;

    #[inline(always)]
    fn open(&mut self, _: Option<()>, _: Step<'_>, _: NodeId, _: NodeKind, _: Status) {}
    #[inline(always)]
    fn kind(&mut self, _: (), _: NodeKind) {}
    #[inline(always)]
    fn status(&mut self, _: (), _: Status) {}
    #[inline(always)]
    fn score(&mut self, _: (), _: f64) {}
    #[inline(always)]
    fn leaf(&mut self, _: (), _: Option<Comparator>, _: f64, _: Option<f64>) {}
    #[inline(always)]
    fn scope(&mut self, _: (), _: ScopeId, _: bool) {}
    #[inline(always)]
    fn image(&mut self, _: ()) {}
    #[inline(always)]
    fn order(&mut self, _: (), _: Order) {}
    #[inline(always)]
    fn records(&mut self, _: (), _: ScopeId) {}
    #[inline(always)]
    fn matrix(&mut self, _: (), _: Matrix<f64>) {}
    #[inline(always)]
    fn pairs(&mut self, _: (), _: &[(usize, usize)]) {}
    #[inline(always)]
    fn share(&mut self, _: (), _: f64, _: f64, _: Option<f64>) {}
}
