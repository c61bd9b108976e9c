//! Lists and tuples (`Scorer._score_sequence`, `_score_tail`, `_solve`): prefixItems
//! positions averaged by weight, the tail's items paired by the list's order
//! (assignment in the canonical order for `align`, the monotone DP for `fixed`), a
//! pair matched when its score is positive, the rest missing or excess.

use super::canonical::canonical_text;
use super::json::Json;
use super::scale::power_of_two_scale;
use super::{Scorer, Unsupported, SPARSE_FROM_CELLS};
use crate::align::{fsum, max_weight_matching, monotone_matching, Matrix, Pairs};
use crate::plan::{NodeId, Order};

impl Scorer<'_> {
    pub(super) fn sequence(
        &mut self,
        gold: &[Json],
        candidate: &[Json],
        id: NodeId,
        depth: usize,
    ) -> Result<f64, Unsupported> {
        if gold.is_empty() && candidate.is_empty() {
            return Ok(1.0);
        }
        let node = self.plan.node(id)?;
        let arity = node.array.prefix.len();
        let has_tail = arity > 0 && node.array.items.is_some();
        if arity == 0 {
            return self.tail(gold, candidate, id, depth);
        }
        let positions = if has_tail {
            arity
        } else {
            gold.len().max(candidate.len())
        };
        let (prefix_importance, rest_importance) =
            (node.array.prefix_importance, node.array.rest_importance);
        let any = self.plan.any();
        let mut scores = Vec::with_capacity(positions);
        let mut weights = Vec::with_capacity(positions);
        for k in 0..positions {
            let (g, c) = (gold.get(k), candidate.get(k));
            if g.is_none() && c.is_none() {
                continue;
            }
            let node = self.plan.node(id)?;
            let sub = node.item(k, any);
            weights.push(node.array.prefix.get(k).map_or(1.0, |(_, weight)| *weight));
            scores.push(match (g, c) {
                (Some(g), Some(c)) => self.value(g, c, sub, depth + 1)?,
                // a position on one side only scores its schema's nullScore
                _ => self.plan.node(sub)?.null_score,
            });
        }
        let scaled = power_of_two_scale(&weights).ok_or(Unsupported::Weights)?;
        let total = fsum(&scaled)?;
        let s_pre = if total > 0.0 {
            let products: Vec<f64> = scores.iter().zip(&scaled).map(|(c, w)| w * c).collect();
            fsum(&products)? / total
        } else {
            1.0
        };
        if !has_tail {
            return Ok(s_pre);
        }
        let importances = power_of_two_scale(&[prefix_importance, rest_importance])
            .ok_or(Unsupported::Weights)?;
        let [prefix_importance, rest_importance] = importances[..] else {
            return Err(Unsupported::Weights);
        };
        let s_rest = self.tail(
            gold.get(arity..).unwrap_or_default(),
            candidate.get(arity..).unwrap_or_default(),
            id,
            depth,
        )?;
        Ok((prefix_importance * s_pre + rest_importance * s_rest)
            / (prefix_importance + rest_importance))
    }

    fn tail(
        &mut self,
        gold: &[Json],
        candidate: &[Json],
        id: NodeId,
        depth: usize,
    ) -> Result<f64, Unsupported> {
        let node = self.plan.node(id)?;
        let item = node.array.items.unwrap_or(self.plan.any());
        let (order, ignore_missing, ignore_excess) = (
            node.array.order,
            node.array.ignore_missing,
            node.array.ignore_excess,
        );
        if order == Order::Align && !node.array.block_by.is_empty() {
            return Err(Unsupported::BlockBy);
        }
        let (pairs, matrix) = self.solve(gold, candidate, item, order, depth)?;
        let mut matched = Vec::with_capacity(pairs.len());
        for (i, j) in pairs {
            let (Some(g), Some(c)) = (gold.get(i), candidate.get(j)) else {
                return Err(Unsupported::Align(crate::align::AlignError::Internal(
                    "a pair outside the lists",
                )));
            };
            let score = match (g, c) {
                // the cell is this pair's score (a null's cell is the matrix's rule)
                (Json::Null, _) | (_, Json::Null) => self.value(g, c, item, depth + 1)?,
                _ => matrix.get(i, j).map_err(Unsupported::Align)?,
            };
            if score > 0.0 {
                matched.push(score);
            }
        }
        let found = matched.len();
        let slots = found
            + if ignore_missing {
                0
            } else {
                gold.len().saturating_sub(found)
            }
            + if ignore_excess {
                0
            } else {
                candidate.len().saturating_sub(found)
            };
        Ok(if slots > 0 {
            fsum(&matched)? / slots as f64
        } else {
            1.0
        })
    }

    /// The pairs of two lists (`_solve_whole`) and their score matrix.
    fn solve(
        &mut self,
        gold: &[Json],
        candidate: &[Json],
        item: NodeId,
        order: Order,
        depth: usize,
    ) -> Result<(Pairs, Matrix<f64>), Unsupported> {
        let cells = gold
            .len()
            .checked_mul(candidate.len())
            .ok_or(Unsupported::MatrixCells)?;
        if order == Order::Align && cells > SPARSE_FROM_CELLS {
            return Err(Unsupported::Sparse);
        }
        if cells > self.limits.max_matrix_cells {
            return Err(Unsupported::MatrixCells);
        }
        let matrix = self.matrix(gold, candidate, item, depth, cells)?;
        if order == Order::Fixed {
            return Ok((monotone_matching(&matrix)?, matrix));
        }
        let gold_order = canonical_order(gold)?;
        let cand_order = canonical_order(candidate)?;
        let permuted = matrix.permuted(&gold_order, &cand_order)?;
        let mut pairs = Vec::new();
        for (i, j) in max_weight_matching(&permuted, None)? {
            match (gold_order.get(i), cand_order.get(j)) {
                (Some(&g), Some(&c)) => pairs.push((g, c)),
                _ => {
                    return Err(Unsupported::Align(crate::align::AlignError::Internal(
                        "a pair outside the permuted lists",
                    )))
                }
            }
        }
        pairs.sort_unstable();
        Ok((pairs, matrix))
    }

    /// `Scorer.matrix`: every pair's score; two nulls 1, one null the item's nullScore.
    fn matrix(
        &mut self,
        gold: &[Json],
        candidate: &[Json],
        item: NodeId,
        depth: usize,
        cells: usize,
    ) -> Result<Matrix<f64>, Unsupported> {
        let null_score = self.plan.node(item)?.null_score;
        let mut data = Vec::new();
        data.try_reserve_exact(cells)
            .map_err(|_| Unsupported::MatrixCells)?;
        for g in gold {
            for c in candidate {
                data.push(match (g, c) {
                    (Json::Null, Json::Null) => 1.0,
                    (Json::Null, _) | (_, Json::Null) => null_score,
                    _ => self.value(g, c, item, depth + 1)?,
                });
            }
        }
        Ok(Matrix::new(gold.len(), candidate.len(), data)?)
    }
}

/// The indices of `values` sorted (stably) by their canonical text.
fn canonical_order(values: &[Json]) -> Result<Vec<usize>, Unsupported> {
    let texts = values
        .iter()
        .map(canonical_text)
        .collect::<Result<Vec<_>, _>>()?;
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| texts.get(a).cmp(&texts.get(b)));
    Ok(order)
}
