//! Lists and tuples: prefixItems
//! positions averaged by weight, the tail's items paired by the list's order
//! (assignment in the canonical order for `align`, the monotone DP for `fixed`), a
//! pair matched when its score is positive, the rest missing or excess.

use super::sink::{ScoreOnly, Sink, Status, Step};
use super::{OverLimit, Scorer, Unsupported};
use crate::align::power_of_two_scale;
use crate::align::{
    blocks, fsum, monotone_matching, pair_unordered, Cells, Matrix, PairScores, Pairs, Strategy,
};
use crate::plan::{NodeId, Order};
use crate::value::{Json, Texts};

impl Scorer<'_> {
    pub(super) fn sequence<S: Sink>(
        &mut self,
        sink: &mut S,
        row: S::Row,
        gold: &[Json],
        candidate: &[Json],
        id: NodeId,
        depth: usize,
    ) -> Result<f64, Unsupported> {
        let node = self.plan.node(id)?;
        sink.order(row, node.array.order);
        if gold.is_empty() && candidate.is_empty() {
            return Ok(1.0);
        }
        let arity = node.array.prefix.len();
        let has_tail = arity > 0 && node.array.items.is_some();
        if arity == 0 {
            return self.tail(sink, row, gold, candidate, id, (0, 1.0), depth);
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
        let mut rows = Vec::with_capacity(positions);
        for k in 0..positions {
            let (g, c) = (gold.get(k), candidate.get(k));
            let step = Step::Index {
                gold: g.map(|_| k),
                candidate: c.map(|_| k),
            };
            let node = self.plan.node(id)?;
            let sub = node.item(k, any);
            let weight = node.array.prefix.get(k).map_or(1.0, |(_, weight)| *weight);
            let (score, child) = match (g, c) {
                (Some(g), Some(c)) => self.value(sink, Some(row), step, g, c, sub, depth + 1)?,
                // a position on one side only scores its schema's nullScore
                (Some(value), None) | (None, Some(value)) => {
                    let status = if g.is_some() {
                        Status::Missing
                    } else {
                        Status::Excess
                    };
                    let score = self.plan.node(sub)?.null_score;
                    let child = self.unmatched(sink, row, step, value, sub, status, score)?;
                    (score, child)
                }
                (None, None) => continue,
            };
            weights.push(weight);
            scores.push(score);
            rows.push(child);
        }
        let scaled = power_of_two_scale(&weights).ok_or(Unsupported::Weights)?;
        let total = fsum(&scaled)?;
        let s_pre = if total > 0.0 {
            let products: Vec<f64> = scores.iter().zip(&scaled).map(|(c, w)| w * c).collect();
            fsum(&products)? / total
        } else {
            1.0
        };
        let importances = if has_tail {
            let scaled = power_of_two_scale(&[prefix_importance, rest_importance])
                .ok_or(Unsupported::Weights)?;
            let [prefix_importance, rest_importance] = scaled[..] else {
                return Err(Unsupported::Weights);
            };
            Some((prefix_importance, rest_importance))
        } else {
            None
        };
        let share = importances.map_or(1.0, |(p, r)| p / (p + r));
        if S::RECORDS {
            for (child, weight) in rows.iter().zip(&scaled) {
                let weight = share * if total > 0.0 { weight / total } else { 0.0 };
                sink.share(*child, weight, 0.0, None);
            }
        }
        let Some((prefix_importance, rest_importance)) = importances else {
            return Ok(s_pre);
        };
        let s_rest = self.tail(
            sink,
            row,
            gold.get(arity..).unwrap_or_default(),
            candidate.get(arity..).unwrap_or_default(),
            id,
            (arity, 1.0 - share),
            depth,
        )?;
        Ok((prefix_importance * s_pre + rest_importance * s_rest)
            / (prefix_importance + rest_importance))
    }

    /// The items from `offset` on, paired as the list's order says
    /// (or by record pointers, for a scope's records array in the main pass),
    /// sharing `share` of the list's score.
    #[allow(clippy::too_many_arguments)] // the recursion's state, passed down as is
    fn tail<S: Sink>(
        &mut self,
        sink: &mut S,
        row: S::Row,
        gold: &[Json],
        candidate: &[Json],
        id: NodeId,
        (offset, share): (usize, f64),
        depth: usize,
    ) -> Result<f64, Unsupported> {
        let node = self.plan.node(id)?;
        let item = node.array.items.unwrap_or(self.plan.any());
        let (order, ignore_missing, ignore_excess, block_by) = (
            node.array.order,
            node.array.ignore_missing,
            node.array.ignore_excess,
            node.array.block_by.as_slice(),
        );
        let at = |i: usize, j: usize| Step::Index {
            gold: Some(offset + i),
            candidate: Some(offset + j),
        };
        // each pair's indices and score
        let mut scored = Vec::new();
        if let Some((scope, pairs)) = self.paired_records(gold, candidate, id, offset, depth)? {
            sink.records(row, scope);
            for (i, j) in pairs {
                let (Some(g), Some(c)) = (gold.get(i), candidate.get(j)) else {
                    return Err(outside());
                };
                let score = self.value(&mut ScoreOnly, None, at(i, j), g, c, item, depth + 1)?;
                scored.push((i, j, score.0));
            }
        } else {
            // a scope's records not paired yet are unordered like any scope's
            let order = if self.record_items(item)? {
                Order::Align
            } else {
                order
            };
            let (pairs, matrix) =
                self.solve(gold, candidate, item, order, block_by, depth, offset)?;
            for (i, j) in pairs {
                let (Some(g), Some(c)) = (gold.get(i), candidate.get(j)) else {
                    return Err(outside());
                };
                let score = match (g, c, &matrix) {
                    // the cell is this pair's score (a null's cell is the matrix's rule)
                    (Json::Null, _, _) | (_, Json::Null, _) | (_, _, None) => {
                        self.value(&mut ScoreOnly, None, at(i, j), g, c, item, depth + 1)?
                            .0
                    }
                    (_, _, Some(matrix)) => matrix.get(i, j).map_err(Unsupported::Align)?,
                };
                scored.push((i, j, score));
            }
            if let Some(matrix) = matrix {
                sink.matrix(row, matrix);
            }
        }
        let mut scores = Vec::with_capacity(scored.len());
        // the matched pairs, kept for the tree only
        let mut matched = Vec::new();
        let mut used = vec![false; candidate.len()];
        for (i, j, score) in scored {
            if score > 0.0 {
                scores.push(score);
                if let Some(flag) = used.get_mut(j) {
                    *flag = true;
                }
                if S::RECORDS {
                    matched.push((i, j));
                }
            }
        }
        let found = scores.len();
        let slots = found
            + if ignore_missing {
                0
            } else {
                gold.len().saturating_sub(found)
            }
            + if ignore_excess {
                0
            } else {
                candidate
                    .len()
                    .saturating_sub(used.iter().filter(|used| **used).count())
            };
        if S::RECORDS {
            let pairs: Vec<(usize, usize)> = matched
                .iter()
                .map(|&(i, j)| (offset + i, offset + j))
                .collect();
            sink.pairs(row, &pairs);
            let shares = Shares {
                share,
                slots,
                ignore_missing,
                ignore_excess,
            };
            self.tail_rows(
                sink,
                row,
                (gold, candidate),
                &matched,
                item,
                offset,
                shares,
                depth,
            )?;
        }
        Ok(if slots > 0 {
            fsum(&scores)? / slots as f64
        } else {
            1.0
        })
    }

    /// The tail's children, in the match tree's order: matched and missing items
    /// by gold index, then the excess ones.
    #[allow(clippy::too_many_arguments)] // the recursion's state, passed down as is
    fn tail_rows<S: Sink>(
        &mut self,
        sink: &mut S,
        row: S::Row,
        (gold, candidate): (&[Json], &[Json]),
        matched: &[(usize, usize)],
        item: NodeId,
        offset: usize,
        shares: Shares,
        depth: usize,
    ) -> Result<(), Unsupported> {
        let mut partner = vec![None; gold.len()];
        let mut used = vec![false; candidate.len()];
        for &(i, j) in matched {
            *partner.get_mut(i).ok_or_else(outside)? = Some(j);
            *used.get_mut(j).ok_or_else(outside)? = true;
        }
        for ((i, g), j) in gold.iter().enumerate().zip(partner) {
            let step = Step::Index {
                gold: Some(offset + i),
                candidate: j.map(|j| offset + j),
            };
            if let Some(j) = j {
                let c = candidate.get(j).ok_or_else(outside)?;
                let (_, child) = self.value(sink, Some(row), step, g, c, item, depth + 1)?;
                sink.share(child, shares.of(false), 0.0, None);
            } else {
                let child = self.unmatched(sink, row, step, g, item, Status::Missing, 0.0)?;
                sink.share(child, shares.of(shares.ignore_missing), 0.0, None);
            }
        }
        for ((j, c), used) in candidate.iter().enumerate().zip(used) {
            if used {
                continue;
            }
            let step = Step::Index {
                gold: None,
                candidate: Some(offset + j),
            };
            let child = self.unmatched(sink, row, step, c, item, Status::Excess, 0.0)?;
            sink.share(child, shares.of(shares.ignore_excess), 0.0, None);
        }
        Ok(())
    }

    /// The pairs of two lists and their score matrix, `None` where Python
    /// keeps none (a long list paired from its positive cells, or paired block by
    /// block and long); `offset`: the index of their first items in their lists;
    /// `block_by`: the list's `blockBy` properties.
    #[allow(clippy::too_many_arguments)] // the recursion's state, passed down as is
    pub(super) fn solve(
        &mut self,
        gold: &[Json],
        candidate: &[Json],
        item: NodeId,
        order: Order,
        block_by: &[String],
        depth: usize,
        offset: usize,
    ) -> Result<(Pairs, Option<Matrix<f64>>), Unsupported> {
        let mut scores = ListScores {
            scorer: self,
            lists: (gold, candidate),
            item,
            depth,
            offset,
        };
        if order == Order::Fixed {
            let everything = |count: usize| (0..count).collect::<Vec<_>>();
            let matrix = scores.matrix(&everything(gold.len()), &everything(candidate.len()))?;
            return Ok((monotone_matching(&matrix)?, Some(matrix)));
        }
        let strategy = if block_by.is_empty() {
            Strategy::by_size(gold.len(), candidate.len())
        } else {
            Strategy::Blocked(blocks(gold, candidate, block_by)?)
        };
        let (gold_texts, cand_texts) = (Texts::of(gold)?, Texts::of(candidate)?);
        let (gold_texts, cand_texts) = (gold_texts.each(), cand_texts.each());
        let paired = pair_unordered(&strategy, &gold_texts, &cand_texts, &mut scores)?;
        Ok((paired.pairs, paired.matrix))
    }

    /// The score matrix: every pair's score of the items at `rows` and `cols` of
    /// `lists` (see [`Scorer::cell`]).
    #[allow(clippy::too_many_arguments)] // the recursion's state, passed down as is
    fn matrix(
        &mut self,
        (gold, candidate): (&[&Json], &[&Json]),
        (rows, cols): (&[usize], &[usize]),
        item: NodeId,
        depth: usize,
        cells: usize,
        offset: usize,
    ) -> Result<Matrix<f64>, Unsupported> {
        if self.blockwise(item) || self.leaf_block(item) {
            let mark = self.aside();
            let data = self.block(gold, candidate, item, depth + 1);
            self.leave(mark);
            return Ok(Matrix::new(gold.len(), candidate.len(), data?)?);
        }
        let mut data = Vec::new();
        data.try_reserve_exact(cells)
            .map_err(|_| Unsupported::MatrixCells)?;
        for (g, &i) in gold.iter().zip(rows) {
            for (c, &j) in candidate.iter().zip(cols) {
                let at = Step::Index {
                    gold: Some(offset + i),
                    candidate: Some(offset + j),
                };
                data.push(self.cell(g, c, item, depth + 1, at)?);
            }
        }
        Ok(Matrix::new(gold.len(), candidate.len(), data)?)
    }
}

/// The scores of a list's pairs for [`pair_unordered`]: its items under `item`, the
/// first at `offset` in their lists.
struct ListScores<'s, 'p, 'v> {
    scorer: &'s mut Scorer<'p>,
    lists: (&'v [Json], &'v [Json]),
    item: NodeId,
    depth: usize,
    offset: usize,
}

impl<'v> ListScores<'_, '_, 'v> {
    /// The gold items at `rows` and the candidate items at `cols`.
    fn items(
        &self,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<(Vec<&'v Json>, Vec<&'v Json>), Unsupported> {
        let pick = |values: &'v [Json], at: &[usize]| {
            at.iter()
                .map(|&k| values.get(k).ok_or_else(outside))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok((pick(self.lists.0, rows)?, pick(self.lists.1, cols)?))
    }
}

impl PairScores for ListScores<'_, '_, '_> {
    type Error = Unsupported;

    /// The whole score matrix: refused over `max_matrix_cells`.
    fn matrix(&mut self, rows: &[usize], cols: &[usize]) -> Result<Matrix<f64>, Unsupported> {
        let cells = rows
            .len()
            .checked_mul(cols.len())
            .filter(|&cells| cells <= self.scorer.limits.max_matrix_cells)
            .ok_or_else(|| {
                let cells = rows.len().saturating_mul(cols.len());
                let limit = self.scorer.limits.max_matrix_cells;
                OverLimit::refusal((rows.len(), cols.len()), cells, false, limit)
            })?;
        let (gold, candidate) = self.items(rows, cols)?;
        self.scorer.matrix(
            (&gold, &candidate),
            (rows, cols),
            self.item,
            self.depth,
            cells,
            self.offset,
        )
    }

    /// The cells of [`Scorer::equal_cells`] scored as the
    /// matrix scores them, the positive ones kept.
    fn positive_cells(
        &mut self,
        rows: &[usize],
        cols: &[usize],
    ) -> Result<Option<Cells>, Unsupported> {
        let (gold, candidate) = self.items(rows, cols)?;
        let depth = self.depth + 1;
        let Some(found) = self
            .scorer
            .equal_cells(&gold, &candidate, self.item, depth)?
        else {
            return Ok(None);
        };
        let mut cells = Cells::default();
        for (a, b) in found {
            let (Some(g), Some(c), Some(&i), Some(&j)) =
                (gold.get(a), candidate.get(b), rows.get(a), cols.get(b))
            else {
                return Err(outside());
            };
            let at = Step::Index {
                gold: Some(self.offset + i),
                candidate: Some(self.offset + j),
            };
            let value = self.scorer.cell(g, c, self.item, depth, at)?;
            if value > 0.0 {
                cells.rows.push(a);
                cells.cols.push(b);
                cells.values.push(value);
            }
        }
        let limit = self.scorer.limits.max_matrix_cells;
        if cells.values.len() > limit {
            let sizes = (gold.len(), candidate.len());
            return Err(OverLimit::refusal(sizes, cells.values.len(), true, limit));
        }
        Ok(Some(cells))
    }
}

/// What a tail's children share: `share / slots` each, 0 for the ignored sides.
#[derive(Clone, Copy)]
struct Shares {
    share: f64,
    slots: usize,
    ignore_missing: bool,
    ignore_excess: bool,
}

impl Shares {
    fn of(self, ignored: bool) -> f64 {
        if ignored {
            0.0
        } else {
            self.share / self.slots as f64
        }
    }
}

fn outside() -> Unsupported {
    Unsupported::Align(crate::align::AlignError::Internal(
        "a pair outside the lists",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{Comparator, Integer, Number, StringMeasure, Value};
    use crate::plan::{Node, NodeType, PlanBuilder};
    use crate::score::{Limits, MapCache};

    #[test]
    fn a_matrix_of_leaves_made_at_once_equals_its_cells_one_by_one() {
        // a list of strings under jaro with a threshold and a null score, its items
        // of every kind (a type mismatch, nulls, a list under a leaf node)
        let mut builder = PlanBuilder::default();
        let [root, text, any, any_object, any_array] = [(); 5].map(|()| builder.reserve());
        let mut list = Node::new(NodeType::Array);
        list.array.items = Some(text);
        let mut string = Node::new(NodeType::String);
        string.comparator = Some(Comparator::String(StringMeasure::Jaro));
        string.threshold = 0.5;
        string.null_score = 0.25;
        for (id, node) in [
            (root, list),
            (text, string),
            (any, Node::new(NodeType::Any)),
            (any_object, Node::new(NodeType::Object)),
            (any_array, Node::new(NodeType::Array)),
        ] {
            builder.set(id, node).unwrap();
        }
        let plan = builder.finish(root, any, any_object, any_array).unwrap();
        let word = |s: &str| Json::Leaf(Value::from(s));
        let int = |n| Json::Leaf(Value::Number(Number::Int(Integer::Small(n))));
        let gold = [
            word("martha"),
            word("dixon"),
            Json::Null,
            int(3),
            word(""),
            Json::Array(vec![]),
        ];
        let candidate = [
            word("marhta"),
            Json::Null,
            int(3),
            word("dicksonx"),
            word("m"),
        ];
        let limits = Limits {
            max_depth: 10,
            max_matrix_cells: 1000,
        };
        let mut cache = MapCache::default();
        let mut scorer = Scorer::new(&plan, limits, &mut cache);
        assert!(scorer.leaf_block(text));
        let (g, c): (Vec<&Json>, Vec<&Json>) = (gold.iter().collect(), candidate.iter().collect());
        let (rows, cols): (Vec<usize>, Vec<usize>) =
            ((0..gold.len()).collect(), (0..candidate.len()).collect());
        let cells = rows.len() * cols.len();
        let matrix = scorer
            .matrix((&g, &c), (&rows, &cols), text, 0, cells, 0)
            .unwrap();
        for (i, g) in gold.iter().enumerate() {
            for (j, c) in candidate.iter().enumerate() {
                let one = scorer.cell(g, c, text, 1, Step::Root).unwrap();
                assert_eq!(
                    matrix.get(i, j).unwrap().to_bits(),
                    one.to_bits(),
                    "{i} {j}"
                );
            }
        }
    }
}
