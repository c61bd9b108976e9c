//! The score of two documents under a plan without scopes (paper III): objects by
//! key alignment (Eq. dict), lists by assignment or the monotone DP, tuples by
//! position, leaves by their comparators, and the null and type-mismatch rules.
//!
//! The arithmetic is fixed operand for operand and in order, with exact sums equal
//! to Python's `math.fsum`, so a score has the same bits on every run and equals
//! the frozen outcomes the tests compare with. Whatever this slice does not cover
//! returns [`Unsupported`], and Python takes its own path.

mod leaf;
mod list;
mod map;
mod matrix;
mod pairs;
mod positive;
mod refs;
mod scoping;
mod shape;
mod sink;
mod tree;

pub use map::MapCache;
pub use matrix::Paths;
pub use refs::{RecordPairs, RefOutcome, RefState, ScopeState};
pub use scoping::ScopedDocuments;
pub use shape::{Assertion, Bound, Counted, Shape, ShapeNode, Types};
pub use sink::{NodeKind, ScoreOnly, Sink, Status, Step};
pub use tree::{Row, Table, Text};

use std::fmt;

use crate::align::AlignError;
use crate::compare::CompareError;
use crate::plan::{NodeId, NodeType, Plan, PlanError};
use crate::value::{Json, NonFiniteNumber};

/// The limits the documents are scored under (`oa_core.options.Limits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Values nested deeper than this are not scored here (no recursion past it).
    pub max_depth: usize,
    /// A list pair needing more scores than this goes to Python, which names it.
    pub max_matrix_cells: usize,
}

/// Why the documents are not scored here: Python's path scores them (and reports
/// what it must, with its pointers).
#[derive(Clone, Debug, PartialEq)]
pub enum Unsupported {
    /// The plan is broken (a bug, not a reason to panic).
    Plan(PlanError),
    /// Values nested deeper than the limits.
    Depth,
    /// A list over `max_matrix_cells`.
    MatrixCells,
    /// A comparator refused its values (a huge integer), where no schema keyword
    /// names it (the built-in dispatch of a bare pair).
    Comparator(CompareError),
    /// A comparator failed on values under the schema keyword at `pointer` (a
    /// node's `.../score` or `.../keyScore`): Python's `ComparatorError.at` there.
    ComparatorAt {
        pointer: String,
        error: CompareError,
    },
    /// A list pair needing more scores than `max_matrix_cells` (an `InputError`
    /// in Python), with the candidate pointer of the list.
    OverLimit(Box<OverLimit>),
    /// A solver refused its matrix (a non-finite score).
    Align(AlignError),
    /// A NaN or infinite number.
    NonFiniteNumber,
    /// A weight that is NaN or infinite.
    Weights,
    /// A node whose type was inferred, of neither object nor array type.
    Inferred,
    /// A records array paired by pointer, reached where the pointers are not known.
    Untracked,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Plan(error) => write!(f, "{error}"),
            Unsupported::Depth => f.write_str("values nested deeper than the limits"),
            Unsupported::MatrixCells => f.write_str("a list over max_matrix_cells"),
            Unsupported::Comparator(error) => write!(f, "{error}"),
            Unsupported::ComparatorAt { pointer, error } => write!(f, "{pointer}: {error}"),
            Unsupported::OverLimit(over) => write!(
                f,
                "{}: {} x {} items need {} scores",
                over.pointer(),
                over.gold,
                over.candidate,
                over.cells
            ),
            Unsupported::Align(error) => write!(f, "{error:?}"),
            Unsupported::NonFiniteNumber => f.write_str("a NaN or infinite number"),
            Unsupported::Weights => f.write_str("a NaN or infinite weight"),
            Unsupported::Inferred => f.write_str("an inferred type other than object/array"),
            Unsupported::Untracked => f.write_str("a paired records array without its pointers"),
        }
    }
}

impl std::error::Error for Unsupported {}

/// A list pair over `max_matrix_cells`: its sizes, the scores it needs, and where
/// it is in the candidate, as Python's match tree knows it (see [`Unsupported::under`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverLimit {
    pub gold: usize,
    pub candidate: usize,
    /// The scores needed: every pair's, or the positive ones' (`positive`).
    pub cells: usize,
    /// Whether `cells` counts the positive scores of a long list paired sparsely.
    pub positive: bool,
    /// `max_matrix_cells`.
    pub limit: usize,
    /// The candidate pointer's tokens, innermost first (the error gathers them on
    /// its way up, so the success path builds no pointer).
    tokens: Vec<String>,
    /// Whether the list lies below a matrix cell: Python scores a cell from the
    /// pointer "", so the outer tokens are not its.
    sealed: bool,
}

impl OverLimit {
    /// The refusal of a list pair of these sizes needing `cells` scores over `limit`.
    pub fn refusal(
        (gold, candidate): (usize, usize),
        cells: usize,
        positive: bool,
        limit: usize,
    ) -> Unsupported {
        Unsupported::OverLimit(Box::new(OverLimit {
            gold,
            candidate,
            cells,
            positive,
            limit,
            tokens: Vec::new(),
            sealed: false,
        }))
    }

    /// The candidate pointer of the list (RFC 6901, `oa_core.pointer.join`'s escapes).
    ///
    /// ```
    /// use oa_engine::score::{OverLimit, Step, Unsupported};
    /// let error = OverLimit::refusal((2, 3), 6, false, 5)
    ///     .under(Step::Index { gold: Some(0), candidate: Some(4) })
    ///     .under(Step::Key { gold: Some("a/b"), candidate: Some("a/b") });
    /// let Unsupported::OverLimit(over) = error else { unreachable!() };
    /// assert_eq!(over.pointer(), "/a~1b/4");
    /// ```
    pub fn pointer(&self) -> String {
        crate::pointer::of_tokens(self.tokens.iter().rev().map(String::as_str))
    }
}

impl Unsupported {
    /// The error of a comparator on values under the schema keyword `keyword` of
    /// `node_pointer`.
    pub fn comparator_at(node_pointer: &str, keyword: &str, error: CompareError) -> Unsupported {
        Unsupported::ComparatorAt {
            pointer: format!("{node_pointer}/{keyword}"),
            error,
        }
    }

    /// The error met below a value reached by `step` from its parent: a list over the
    /// limit gains the candidate token of `step` (unless sealed).
    pub fn under(mut self, step: Step<'_>) -> Unsupported {
        if let Unsupported::OverLimit(over) = &mut self {
            if !over.sealed {
                match step {
                    Step::Key {
                        candidate: Some(key),
                        ..
                    } => over.tokens.push(key.to_owned()),
                    Step::Index {
                        candidate: Some(index),
                        ..
                    } => over.tokens.push(index.to_string()),
                    _ => {}
                }
            }
        }
        self
    }

    /// The error met scoring a matrix cell reached by `step`: Python scores the
    /// cell's values from the pointer "", so the tokens gathered
    /// below the cell are the list's whole pointer (the cell's own taken back).
    pub fn in_cell(mut self, step: Step<'_>) -> Unsupported {
        if let Unsupported::OverLimit(over) = &mut self {
            if !over.sealed {
                if matches!(
                    step,
                    Step::Key {
                        candidate: Some(_),
                        ..
                    } | Step::Index {
                        candidate: Some(_),
                        ..
                    }
                ) {
                    over.tokens.pop();
                }
                over.sealed = true;
            }
        }
        self
    }
}

impl From<PlanError> for Unsupported {
    fn from(error: PlanError) -> Self {
        Unsupported::Plan(error)
    }
}

impl From<CompareError> for Unsupported {
    fn from(error: CompareError) -> Self {
        Unsupported::Comparator(error)
    }
}

impl From<NonFiniteNumber> for Unsupported {
    fn from(_: NonFiniteNumber) -> Self {
        Unsupported::NonFiniteNumber
    }
}

impl From<AlignError> for Unsupported {
    fn from(error: AlignError) -> Self {
        Unsupported::Align(error)
    }
}

/// Scores values under one plan; `cache` keeps objects' key alignments across calls
/// (a metric compares the same key sets again and again).
pub struct Scorer<'a> {
    plan: &'a Plan,
    limits: Limits,
    cache: &'a mut MapCache,
    refs: pairs::Referential<'a>,
    /// Matrix cells being scored, one inside the other: Python scores a cell, and
    /// the values of an object's slot inside one, from the pointer "" (where an
    /// [`OverLimit`] is named).
    cells: usize,
}

impl<'a> Scorer<'a> {
    pub fn new(plan: &'a Plan, limits: Limits, cache: &'a mut MapCache) -> Self {
        Scorer {
            plan,
            limits,
            cache,
            refs: pairs::Referential::default(),
            cells: 0,
        }
    }

    /// The score of `candidate` against `gold` under the plan's root.
    ///
    /// ```
    /// use oa_engine::compare::{Number, Value};
    /// use oa_engine::plan::{Node, NodeType, PlanBuilder};
    /// use oa_engine::score::{Limits, MapCache, Scorer};
    /// use oa_engine::value::Json;
    /// let mut builder = PlanBuilder::default();
    /// let ids: Vec<_> = (0..4).map(|_| builder.reserve()).collect();
    /// for (id, ty) in ids.iter().zip([NodeType::Any, NodeType::Any, NodeType::Object,
    ///                                 NodeType::Array]) {
    ///     builder.set(*id, Node::new(ty)).unwrap();
    /// }
    /// let plan = builder.finish(ids[0], ids[1], ids[2], ids[3]).unwrap();
    /// let number = |x| Json::Leaf(Value::Number(Number::Float(x)));
    /// let gold = Json::object(vec![("a".into(), number(1.0)), ("b".into(), number(1.0))]);
    /// let candidate = Json::object(vec![("a".into(), number(1.0)), ("b".into(), number(2.0))]);
    /// let limits = Limits { max_depth: 100, max_matrix_cells: 1000 };
    /// let mut cache = MapCache::default();
    /// let score = Scorer::new(&plan, limits, &mut cache).score(&gold, &candidate).unwrap();
    /// assert_eq!(score, 0.75);
    /// ```
    pub fn score(&mut self, gold: &Json, candidate: &Json) -> Result<f64, Unsupported> {
        let root = self.plan.root();
        self.place(Some(("", "")));
        let (score, ()) = self.value(&mut ScoreOnly, None, Step::Root, gold, candidate, root, 0)?;
        Ok(score)
    }

    /// One node: the null rule, then objects, lists and leaves; the score and
    /// the node's row in `sink`.
    #[allow(clippy::too_many_arguments)] // the recursion's state, passed down as is
    fn value<S: Sink>(
        &mut self,
        sink: &mut S,
        parent: Option<S::Row>,
        step: Step<'_>,
        gold: &Json,
        candidate: &Json,
        id: NodeId,
        depth: usize,
    ) -> Result<(f64, S::Row), Unsupported> {
        if depth > self.limits.max_depth {
            return Err(Unsupported::Depth);
        }
        let sub = id;
        let id = self.concrete(id, gold, candidate)?;
        let node = self.plan.node(id)?;
        if let Some(found) = self.scoped(node, gold, candidate)? {
            let kind = if node.id_scope.is_some() {
                NodeKind::Id
            } else {
                NodeKind::Ref
            };
            let status = if found.null_mismatch {
                Status::NullMismatch
            } else {
                Status::Matched
            };
            let row = sink.open(parent, step, id, kind, status);
            if let Some(scope) = node.id_scope.or(node.reference) {
                sink.scope(row, scope, found.expected);
            }
            if let (true, Some(scope)) = (S::RECORDS, node.id_scope) {
                if self.is_image(scope, gold, candidate)? {
                    sink.image(row);
                }
            }
            sink.score(row, found.score);
            return Ok((found.score, row));
        }
        let shown = if matches!(gold, Json::Null) {
            candidate
        } else {
            gold
        };
        let row = sink.open(parent, step, id, NodeKind::of(shown), Status::Matched);
        // an error below abandons the whole score, pointers and all
        let mark = self.enter(sub, step);
        let score = match (gold, candidate) {
            (Json::Null, Json::Null) => 1.0,
            (Json::Null, _) | (_, Json::Null) => {
                sink.kind(row, NodeKind::Null);
                sink.status(row, Status::NullMismatch);
                node.null_score
            }
            _ => match (node.ty, gold, candidate) {
                (NodeType::Object, Json::Object(g), Json::Object(c)) => self
                    .map(sink, row, g, c, id, depth)
                    .map_err(|error| self.located(error, step))?,
                (NodeType::Array, Json::Array(g), Json::Array(c)) => self
                    .sequence(sink, row, g, c, id, depth)
                    .map_err(|error| self.located(error, step))?,
                (NodeType::Object | NodeType::Array, _, _) => {
                    sink.status(row, Status::TypeMismatch);
                    0.0
                }
                _ => leaf::score(sink, row, self.plan.externals(), node, gold, candidate)?,
            },
        };
        self.leave(mark);
        sink.score(row, score);
        Ok((score, row))
    }

    /// An error met below the value reached by `step`, seen from its parent: inside a
    /// matrix cell an object's slot value is scored from the pointer "" (the slot is
    /// scored as a matrix of its own).
    fn located(&self, error: Unsupported, step: Step<'_>) -> Unsupported {
        if self.cells > 0 && matches!(step, Step::Key { .. }) {
            error.in_cell(Step::Root)
        } else {
            error.under(step)
        }
    }

    /// A value on one side only, under its concrete node,
    /// scoring `score` (its row; nothing is looked up for a sink keeping nothing).
    #[allow(clippy::too_many_arguments)] // a row's fields, given at once
    fn unmatched<S: Sink>(
        &self,
        sink: &mut S,
        parent: S::Row,
        step: Step<'_>,
        value: &Json,
        id: NodeId,
        status: Status,
        score: f64,
    ) -> Result<S::Row, Unsupported> {
        if !S::RECORDS {
            // a sink keeping nothing needs no lookup: its rows are all alike
            return Ok(sink.open(Some(parent), step, id, NodeKind::of(value), status));
        }
        let id = self.concrete(id, value, value)?;
        let node = self.plan.node(id)?;
        // an identifier or a reference whatever its value
        let kind = if node.id_scope.is_some() {
            NodeKind::Id
        } else if node.reference.is_some() {
            NodeKind::Ref
        } else {
            NodeKind::of(value)
        };
        let row = sink.open(Some(parent), step, id, kind, status);
        sink.score(row, score);
        Ok(row)
    }

    /// `concrete` of `oa_core/schema.py`: an inferred container type applies only
    /// when a value is of it, and `any` compares two objects or two arrays by the
    /// default object or array rules.
    fn concrete(&self, id: NodeId, gold: &Json, candidate: &Json) -> Result<NodeId, Unsupported> {
        let node = self.plan.node(id)?;
        let mut id = id;
        if node.inferred {
            let applies = match node.ty {
                NodeType::Object => gold.is_object() || candidate.is_object(),
                NodeType::Array => gold.is_array() || candidate.is_array(),
                _ => return Err(Unsupported::Inferred),
            };
            if !applies {
                id = self.plan.any();
            }
        }
        if self.plan.node(id)?.ty != NodeType::Any {
            return Ok(id);
        }
        Ok(match (gold, candidate) {
            (Json::Object(_), Json::Object(_)) => self.plan.any_object(),
            (Json::Array(_), Json::Array(_)) => self.plan.any_array(),
            _ => id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Value;
    use crate::plan::{Node, Order, PlanBuilder};

    /// A plan of `nodes` (the first is the root), then `any`, `any_object`, `any_array`.
    fn plan(nodes: Vec<Node>) -> Plan {
        let mut builder = PlanBuilder::default();
        let ids: Vec<NodeId> = (0..nodes.len() + 3).map(|_| builder.reserve()).collect();
        let implicit = [NodeType::Any, NodeType::Object, NodeType::Array];
        for (id, node) in ids
            .iter()
            .zip(nodes.into_iter().chain(implicit.map(Node::new)))
        {
            builder.set(*id, node).unwrap();
        }
        let &[root, .., any, any_object, any_array] = ids.as_slice() else {
            unreachable!("at least the three implicit nodes")
        };
        builder.finish(root, any, any_object, any_array).unwrap()
    }

    fn score(plan: &Plan, gold: &Json, candidate: &Json) -> Result<f64, Unsupported> {
        let limits = Limits {
            max_depth: 100,
            max_matrix_cells: 1_000,
        };
        Scorer::new(plan, limits, &mut MapCache::default()).score(gold, candidate)
    }

    /// `score(plan, deep, deep)` on a main thread's 8 MiB stack, not the test
    /// harness's 2 MiB: an unoptimised build spends about 20 KB of stack a level, so
    /// the 100 levels the limits allow take about 2 MB, while the levels a missing
    /// depth check would walk still overflow.
    fn score_deep(plan: &Plan, deep: &Json) -> Result<f64, Unsupported> {
        std::thread::scope(|threads| {
            std::thread::Builder::new()
                .stack_size(8 << 20)
                .spawn_scoped(threads, || score(plan, deep, deep))
                .unwrap()
                .join()
                .unwrap()
        })
    }

    fn text(s: &str) -> Json {
        Json::Leaf(Value::from(s))
    }

    #[test]
    fn nulls_score_one_together_and_the_null_score_alone() {
        let mut leaf = Node::new(NodeType::String);
        leaf.null_score = 0.25;
        let plan = plan(vec![leaf]);
        assert_eq!(score(&plan, &Json::Null, &Json::Null), Ok(1.0));
        assert_eq!(score(&plan, &Json::Null, &text("a")), Ok(0.25));
    }

    #[test]
    fn a_type_mismatch_scores_zero() {
        let plan = plan(vec![Node::new(NodeType::Object)]);
        assert_eq!(
            score(&plan, &Json::Array(vec![]), &Json::object(vec![])),
            Ok(0.0)
        );
        let strings = super::tests::plan(vec![Node::new(NodeType::String)]);
        assert_eq!(score(&strings, &text("1"), &Json::int(1)), Ok(0.0));
    }

    #[test]
    fn unordered_lists_pair_by_assignment_and_fixed_ones_in_order() {
        let mut list = Node::new(NodeType::Array);
        list.array.order = Order::Align;
        let gold = Json::Array(vec![Json::int(1), Json::int(2), Json::int(3)]);
        let candidate = Json::Array(vec![Json::int(3), Json::int(1), Json::int(2)]);
        assert_eq!(score(&plan(vec![list.clone()]), &gold, &candidate), Ok(1.0));
        list.array.order = Order::Fixed;
        // 1 and 2 in order (3 unmatched each side): (1 + 1) / 4
        assert_eq!(score(&plan(vec![list]), &gold, &candidate), Ok(0.5));
    }

    #[test]
    fn ignored_missing_items_leave_the_denominator() {
        let mut list = Node::new(NodeType::Array);
        list.array.ignore_missing = true;
        let gold = Json::Array(vec![Json::int(1), Json::int(2)]);
        assert_eq!(
            score(&plan(vec![list]), &gold, &Json::Array(vec![Json::int(1)])),
            Ok(1.0)
        );
    }

    #[test]
    fn a_tuple_averages_its_positions_by_weight() {
        // a one-node plan's `any` has the same id in every one-node plan
        let any = plan(vec![Node::new(NodeType::Array)]).any();
        let mut tuple = Node::new(NodeType::Array);
        tuple.array.prefix = vec![(any, 3.0), (any, 1.0)];
        let tuples = plan(vec![tuple]);
        let gold = Json::Array(vec![Json::int(1), text("a")]);
        let candidate = Json::Array(vec![Json::int(1), text("zz")]);
        // the string position scores 0 (jaro of disjoint strings): 3/4
        assert_eq!(score(&tuples, &gold, &candidate), Ok(0.75));
    }

    #[test]
    fn nesting_past_the_limit_is_refused_before_recursing() {
        let mut deep = Json::int(1);
        for _ in 0..150 {
            deep = Json::Array(vec![deep]);
        }
        let plan = plan(vec![Node::new(NodeType::Any)]);
        assert_eq!(score_deep(&plan, &deep), Err(Unsupported::Depth));
    }

    #[test]
    fn a_document_nested_100_000_deep_is_refused_without_overflow() {
        let mut deep = Json::int(1);
        for _ in 0..100_000 {
            deep = Json::Array(vec![deep]);
        }
        let plan = plan(vec![Node::new(NodeType::Any)]);
        assert_eq!(score_deep(&plan, &deep), Err(Unsupported::Depth));
        // taken apart level by level: dropping it whole would recurse 100,000 deep
        while let Json::Array(mut items) = deep {
            deep = items.pop().unwrap_or(Json::Null);
        }
    }

    #[test]
    fn lists_over_the_limits_are_refused_with_their_sizes() {
        let mut list = Node::new(NodeType::Array);
        list.array.order = Order::Align;
        let long = Json::Array((0..40).map(Json::int).collect());
        assert_eq!(
            score(&plan(vec![list]), &long, &long),
            Err(OverLimit::refusal((40, 40), 1600, false, 1_000))
        );
    }
}
