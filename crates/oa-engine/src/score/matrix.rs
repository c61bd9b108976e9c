//! The matrix face (`Scorer.matrix`): the scores of every gold-candidate pair of two
//! collections under one node, equal bit for bit to the pairs' node scores, as the
//! cost matrix of list and scope alignment (a scope's C matrix).
//!
//! A cell follows `Scorer.matrix`'s rules: an identifier's cells are 1, and so are
//! those of a reference to a scope still being resolved; a null meets the null
//! rule of the node as given (before `concrete`); any other pair is scored as a
//! node.

use super::json::Json;
use super::sink::{ScoreOnly, Step};
use super::{Scorer, Unsupported};
use crate::align::Matrix;
use crate::plan::NodeId;

/// The pointers of a matrix's gold values and of its candidate values.
pub type Paths<'p> = (&'p [String], &'p [String]);

impl Scorer<'_> {
    /// One cell of a matrix under `node`; `step`: where the two values are below the
    /// current pointers (a list's items), `Step::Root` for values at the top.
    pub(super) fn cell(
        &mut self,
        gold: &Json,
        candidate: &Json,
        node: NodeId,
        depth: usize,
        step: Step<'_>,
    ) -> Result<f64, Unsupported> {
        let rule = self.plan.node(node)?;
        if rule.id_scope.is_some()
            || rule
                .reference
                .is_some_and(|scope| self.refs.state.unresolved(scope))
        {
            return Ok(1.0);
        }
        match (gold, candidate) {
            (Json::Null, Json::Null) => Ok(1.0),
            (Json::Null, _) | (_, Json::Null) => Ok(rule.null_score),
            _ => Ok(self
                .value(&mut ScoreOnly, None, step, gold, candidate, node, depth)?
                .0),
        }
    }

    /// `Scorer.matrix(golds, candidates, node, paths)` under the scorer's state:
    /// row-major scores. `paths` are the values' pointers; without them, a records
    /// array paired by pointer below `node` is refused ([`Unsupported::Untracked`]).
    ///
    /// ```
    /// use oa_engine::compare::{Number, Value};
    /// use oa_engine::plan::{Node, NodeType, PlanBuilder};
    /// use oa_engine::score::{Json, Limits, MapCache, Scorer};
    /// let mut builder = PlanBuilder::default();
    /// let ids: Vec<_> = (0..4).map(|_| builder.reserve()).collect();
    /// for (id, ty) in ids.iter().zip([NodeType::Number, NodeType::Any, NodeType::Object,
    ///                                 NodeType::Array]) {
    ///     builder.set(*id, Node::new(ty)).unwrap();
    /// }
    /// let plan = builder.finish(ids[0], ids[1], ids[2], ids[3]).unwrap();
    /// let number = |x| Json::Leaf(Value::Number(Number::Float(x)));
    /// let limits = Limits { max_depth: 100, max_matrix_cells: 1000 };
    /// let mut cache = MapCache::default();
    /// let mut scorer = Scorer::new(&plan, limits, &mut cache);
    /// let matrix = scorer
    ///     .score_matrix(&[number(1.0), Json::Null], &[number(1.0), number(3.0)], plan.root(), None)
    ///     .unwrap();
    /// assert_eq!(matrix.get(0, 0), Ok(1.0));
    /// assert_eq!(matrix.get(1, 1), Ok(0.0)); // a null: the node's nullScore
    /// ```
    pub fn score_matrix(
        &mut self,
        golds: &[Json],
        candidates: &[Json],
        node: NodeId,
        paths: Option<Paths<'_>>,
    ) -> Result<Matrix<f64>, Unsupported> {
        let cells = golds
            .len()
            .checked_mul(candidates.len())
            .ok_or(Unsupported::MatrixCells)?;
        let mut data = Vec::new();
        data.try_reserve_exact(cells)
            .map_err(|_| Unsupported::MatrixCells)?;
        for (i, g) in golds.iter().enumerate() {
            for (j, c) in candidates.iter().enumerate() {
                let place = paths.and_then(|(gold_paths, cand_paths)| {
                    Some((gold_paths.get(i)?.as_str(), cand_paths.get(j)?.as_str()))
                });
                if paths.is_some() && place.is_none() {
                    return Err(Unsupported::Untracked); // fewer pointers than values
                }
                self.place(place);
                data.push(self.cell(g, c, node, 0, Step::Root)?);
            }
        }
        self.place(None);
        Ok(Matrix::new(golds.len(), candidates.len(), data)?)
    }
}
