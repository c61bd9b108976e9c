//! The matrix face ([`Scorer::score_matrix`]): the scores of every gold-candidate pair of two
//! collections under one node, equal bit for bit to the pairs' node scores, as the
//! cost matrix of list and scope alignment (a scope's C matrix).
//!
//! A cell follows the matrix rules: an identifier's cells are 1, and so are
//! those of a reference to a scope still being resolved; a null meets the null
//! rule of the node as given (before `concrete`); any other pair is scored as a
//! node.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::leaf::thresholded;
use super::map::MapPlan;
use super::sink::{ScoreOnly, Step};
use super::{Scorer, Unsupported};
use crate::align::pages::advise_huge_pages;
use crate::align::Matrix;
use crate::compare::batch::{below_distinct_form, TextRows};
use crate::compare::{Comparator, Externals, Kind, Value};
use crate::plan::{Node, NodeId, NodeType};
use crate::value::Json;

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
            _ => {
                self.cells += 1;
                let scored = self.value(&mut ScoreOnly, None, step, gold, candidate, node, depth);
                self.cells -= 1;
                Ok(scored.map_err(|error| error.in_cell(step))?.0)
            }
        }
    }

    /// The scores of `golds` x `candidates` under `node` and the scorer's state:
    /// row-major scores. `paths` are the values' pointers; without them, a records
    /// array paired by pointer below `node` is refused ([`Unsupported::Untracked`]).
    ///
    /// ```
    /// use oa_engine::compare::{Number, Value};
    /// use oa_engine::plan::{Node, NodeType, PlanBuilder};
    /// use oa_engine::score::{Limits, MapCache, Scorer};
    /// use oa_engine::value::Json;
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
    pub fn score_matrix<G: Borrow<Json>>(
        &mut self,
        golds: &[G],
        candidates: &[G],
        node: NodeId,
        paths: Option<Paths<'_>>,
    ) -> Result<Matrix<f64>, Unsupported> {
        let cells = golds
            .len()
            .checked_mul(candidates.len())
            .ok_or_else(out_of_matrix)?;
        if self.blockwise(node) {
            let (g, c): (Vec<&Json>, Vec<&Json>) = (
                golds.iter().map(Borrow::borrow).collect(),
                candidates.iter().map(Borrow::borrow).collect(),
            );
            self.place(None);
            return Ok(Matrix::new(
                golds.len(),
                candidates.len(),
                self.block(&g, &c, node, 0)?,
            )?);
        }
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
                data.push(self.cell(g.borrow(), c.borrow(), node, 0, Step::Root)?);
            }
        }
        self.place(None);
        Ok(Matrix::new(golds.len(), candidates.len(), data)?)
    }

    /// Whether a matrix under `node` may be scored block by block: no pointer is
    /// read below it (no records array paired by pointer there), and its cells are
    /// `value`'s (an object node, as Python's records are, whose null rule is its own).
    pub(super) fn blockwise(&self, node: NodeId) -> bool {
        !self.holds(node)
            && self.plan.node(node).is_ok_and(|rule| {
                rule.ty == NodeType::Object
                    && !rule.inferred
                    && rule.id_scope.is_none()
                    && rule.reference.is_none()
            })
    }

    /// Whether a list's matrix under `node` may be scored as [`Scorer::block`] of
    /// leaves (one comparator pass per kind, not a `value` per cell): a plain leaf
    /// node, whose cells are `value`'s, null rule and all, under built-in comparators
    /// only (an external one is called pair by pair, in the cells' order).
    pub(super) fn leaf_block(&self, node: NodeId) -> bool {
        !self.holds(node)
            && self.plan.node(node).is_ok_and(|rule| {
                is_leaf_type(rule.ty)
                    && !rule.inferred
                    && rule.id_scope.is_none()
                    && rule.reference.is_none()
                    && [Kind::String, Kind::Number, Kind::Boolean]
                        .into_iter()
                        .all(|kind| {
                            !matches!(rule.comparator_for(kind), Some(Comparator::External(_)))
                        })
            })
    }

    /// Row-major `value` of every pair under `node` at `depth`, computed in bulk:
    /// objects grouped by key set
    /// with their key slots planned once per pair of groups, a leaf slot's values
    /// compared in one comparator pass per kind, then `map_score` per cell, operand
    /// for operand as [`Scorer::map`]. The pointers are not followed (see
    /// [`Scorer::blockwise`]).
    pub(super) fn block(
        &mut self,
        golds: &[&Json],
        candidates: &[&Json],
        node: NodeId,
        depth: usize,
    ) -> Result<Vec<f64>, Unsupported> {
        let cells = golds
            .len()
            .checked_mul(candidates.len())
            .ok_or_else(out_of_matrix)?;
        let mut out = Vec::new();
        out.try_reserve_exact(cells)
            .map_err(|_| Unsupported::MatrixCells)?;
        advise_huge_pages(&mut out);
        if cells == 0 {
            return Ok(out);
        }
        if depth > self.limits.max_depth {
            return Err(Unsupported::Depth); // as `value` finds for every cell
        }
        let rule = self.plan.node(node)?;
        let plain = !rule.inferred && rule.reference.is_none();
        if rule.id_scope.is_some() {
            out.resize(cells, 1.0);
            return Ok(out);
        }
        if let Some(scope) = rule.reference {
            // `concrete` keeps a node neither inferred nor `any`: each cell is the
            // reference rule's, each value keyed once
            if !rule.inferred && rule.ty != NodeType::Any {
                let state = self.refs.state;
                state.ref_scores(scope, (golds, candidates), rule.null_score, &mut out)?;
                return Ok(out);
            }
        }
        let objects = |values: &[&Json]| values.iter().all(|value| value.is_object());
        match rule.ty {
            NodeType::Object if plain && objects(golds) && objects(candidates) => {
                out.resize(cells, 0.0);
                self.objects(golds, candidates, node, depth, &mut out)?;
                Ok(out)
            }
            ty if is_leaf_type(ty) && plain => {
                leaves(self.plan.externals(), rule, golds, candidates)
            }
            _ => {
                for g in golds {
                    for c in candidates {
                        // a matrix cell, scored from the pointer ""
                        let scored =
                            self.value(&mut ScoreOnly, None, Step::Root, g, c, node, depth);
                        out.push(scored.map_err(|error| error.in_cell(Step::Root))?.0);
                    }
                }
                Ok(out)
            }
        }
    }

    /// [`Scorer::block`] of objects, into `out` (zeros, row-major). Each slot's block
    /// is weighted and added into `out` row by row before the next is made (one
    /// slot matrix alive at a time; none for an identifier's slot, whose cells are
    /// all 1, or a slot of texts, added from its distinct texts' rows), then
    /// `map_score` is finished in place.
    fn objects(
        &mut self,
        golds: &[&Json],
        candidates: &[&Json],
        node: NodeId,
        depth: usize,
        out: &mut [f64],
    ) -> Result<(), Unsupported> {
        let width = candidates.len();
        let (gold_groups, cand_groups) = (key_groups(golds), key_groups(candidates));
        for (gold_entries, rows) in &gold_groups {
            for (cand_entries, cols) in &cand_groups {
                let mut totals = Totals::new(out, width, cols);
                let Some(plan) = self.map_plan(gold_entries, cand_entries, node)? else {
                    for &i in rows {
                        totals.update(i, |_, _| Some(1.0))?;
                    }
                    continue; // map_score of no slot
                };
                if self.rows_at_once(
                    &mut totals,
                    &plan,
                    (golds, candidates),
                    (rows, cols),
                    depth,
                )? {
                    continue;
                }
                // the totals start at 0.0 (out's zeros) and take `weight * value` slot by
                // slot, as `MapPlan::score` sums them (an unmatched slot's value is 0)
                for ((gold, candidate, sub), weight) in plan.slots().zip(plan.weights()) {
                    let (Some(g), Some(c)) = (gold, candidate) else {
                        let term = weight * 0.0;
                        for &i in rows {
                            totals.update(i, |total, _| Some(total + term))?;
                        }
                        continue;
                    };
                    if self.identifier_block(sub, depth + 1)? {
                        let term = weight * 1.0;
                        for &i in rows {
                            totals.update(i, |total, _| Some(total + term))?;
                        }
                        continue;
                    }
                    let gv = entries_at(golds, rows, g)?;
                    let cv = entries_at(candidates, cols, c)?;
                    if self.add_texts(&mut totals, rows, (&gv, &cv), sub, depth + 1, weight)? {
                        continue;
                    }
                    let block = self.block(&gv, &cv, sub, depth + 1)?;
                    if block.len() != rows.len() * cols.len() {
                        return Err(out_of_matrix());
                    }
                    for (&i, values) in rows.iter().zip(block.chunks_exact(cols.len().max(1))) {
                        totals.update(i, |total, b| Some(total + weight * values.get(b)?))?;
                    }
                }
                for &i in rows {
                    totals.update(i, |total, _| Some(plan.finish(total)))?;
                }
            }
        }
        Ok(())
    }

    /// Whether [`Scorer::block`] under `node` at `depth` is all 1 whatever the values:
    /// an identifier's within the depth limit (beyond it, `block` has the error).
    fn identifier_block(&self, node: NodeId, depth: usize) -> Result<bool, Unsupported> {
        let rule = self.plan.node(node)?;
        Ok(rule.id_scope.is_some() && depth <= self.limits.max_depth)
    }

    /// Adds `weight` times [`Scorer::block`] of texts under a leaf `node` into
    /// `totals` (the rows of `golds` at `rows`) from each distinct gold text's row of
    /// similarities, computed once, not spelled out per cell; `false` (nothing
    /// added) where the values are not all texts of a built-in comparator's matrix
    /// in its distinct form ([`TextRows`]).
    fn add_texts(
        &self,
        totals: &mut Totals<'_, '_>,
        rows: &[usize],
        (golds, candidates): (&[&Json], &[&Json]),
        node: NodeId,
        depth: usize,
        weight: f64,
    ) -> Result<bool, Unsupported> {
        let Some((comparator, gold_texts, cand_texts)) =
            self.text_values((golds, candidates), node, depth)?
        else {
            return Ok(false);
        };
        let rule = self.plan.node(node)?;
        let externals = self.plan.externals();
        let Some(mut distinct) = TextRows::new(comparator, externals, &gold_texts, &cand_texts)
        else {
            return Ok(false);
        };
        let slots = distinct.column_slots().to_vec();
        let (mut similarities, mut terms) = (Vec::new(), Vec::new());
        for group in distinct.gold_groups() {
            let Some(&lead) = group.first() else {
                continue;
            };
            distinct
                .row(lead, &mut similarities)
                .map_err(|error| Unsupported::comparator_at(&rule.pointer, "score", error))?;
            // the leaf's score, then the weight, once per distinct pair
            terms.clear();
            terms.extend(
                similarities
                    .iter()
                    .map(|&similarity| weight * thresholded(rule, similarity)),
            );
            for a in group {
                let i = *rows.get(a).ok_or_else(out_of_matrix)?;
                totals.update(i, |total, b| Some(total + terms.get(*slots.get(b)?)?))?;
            }
        }
        Ok(true)
    }
}

impl Scorer<'_> {
    /// The texts of `golds` and `candidates` and the comparator of a leaf `node`
    /// scoring them, when [`Scorer::add_texts`] may take them; `None` otherwise.
    fn text_values<'v>(
        &self,
        (golds, candidates): (&[&'v Json], &[&'v Json]),
        node: NodeId,
        depth: usize,
    ) -> Result<Option<TextValues<'v>>, Unsupported> {
        let rule = self.plan.node(node)?;
        let leaf = is_leaf_type(rule.ty);
        let plain = !rule.inferred && rule.reference.is_none() && rule.id_scope.is_none();
        let Some(comparator) = rule.comparator_for(Kind::String) else {
            return Ok(None);
        };
        if !(leaf && plain && depth <= self.limits.max_depth && comparator.compares(Kind::String)) {
            return Ok(None);
        }
        if below_distinct_form(golds.len(), candidates.len()) {
            return Ok(None); // the texts are not gathered for nothing
        }
        let texts = |values: &[&'v Json]| -> Option<Vec<&'v Value>> {
            // sized once: collecting through `Option` would grow the vector from nothing
            let mut out = Vec::with_capacity(values.len());
            for value in values {
                match value {
                    Json::Leaf(text @ Value::Text(_)) => out.push(text),
                    _ => return None,
                }
            }
            Some(out)
        };
        Ok(match (texts(golds), texts(candidates)) {
            (Some(gold_texts), Some(cand_texts)) => Some((comparator, gold_texts, cand_texts)),
            _ => None,
        })
    }

    /// The totals of one pair of key groups made a gold row at a time: every slot
    /// is added into the row (kept in the cache) and `map_score` finished before the
    /// next row, one pass over `out` where slot by slot makes one per slot, with
    /// the same operations on each cell in the same order. Taken when every slot is
    /// unmatched, an identifier's, or texts in their distinct form ([`TextRows`]),
    /// all but one of those with few enough distinct pairs to keep their terms (the
    /// rows are walked by the other's distinct gold texts); `false`, nothing
    /// written, otherwise.
    fn rows_at_once(
        &self,
        totals: &mut Totals<'_, '_>,
        plan: &MapPlan,
        (golds, candidates): (&[&Json], &[&Json]),
        (rows, cols): (&[usize], &[usize]),
        depth: usize,
    ) -> Result<bool, Unsupported> {
        let mut values = Vec::new();
        let mut sources = Vec::new();
        for ((gold, candidate, sub), weight) in plan.slots().zip(plan.weights()) {
            let (Some(g), Some(c)) = (gold, candidate) else {
                sources.push(Source::Constant(weight * 0.0));
                continue;
            };
            if self.identifier_block(sub, depth + 1)? {
                sources.push(Source::Constant(weight * 1.0));
                continue;
            }
            if below_distinct_form(rows.len(), cols.len()) {
                return Ok(false); // `text_values` would decline this slot
            }
            let gv = entries_at(golds, rows, g)?;
            let cv = entries_at(candidates, cols, c)?;
            let Some(found) = self.text_values((&gv, &cv), sub, depth + 1)? else {
                return Ok(false);
            };
            sources.push(Source::Texts(values.len()));
            values.push((found, sub, weight));
        }
        let externals = self.plan.externals();
        let mut texts = Vec::with_capacity(values.len());
        for ((comparator, gold_texts, cand_texts), sub, weight) in &values {
            let Some(distinct) = TextRows::new(*comparator, externals, gold_texts, cand_texts)
            else {
                return Ok(false);
            };
            texts.push(TextTerms::new(distinct, self.plan.node(*sub)?, *weight));
        }
        // the texts with the most distinct pairs walk the rows; the others keep terms
        let walker = (0..texts.len()).max_by_key(|&k| texts.get(k).map_or(0, TextTerms::pairs));
        let mut kept = 0usize;
        for (k, text) in texts.iter().enumerate() {
            if Some(k) != walker {
                kept = kept.saturating_add(text.pairs());
            }
        }
        if kept > KEPT_TERMS {
            return Ok(false);
        }
        for (k, text) in texts.iter_mut().enumerate() {
            if Some(k) != walker {
                text.keep_all()?;
            }
        }
        let walk = match walker.and_then(|k| texts.get(k)) {
            Some(text) => text.groups.clone(),
            None => vec![(0..rows.len()).collect()],
        };
        let mut walked: Vec<f64> = Vec::new();
        let mut row = vec![0.0; cols.len()];
        for (number, group) in walk.iter().enumerate() {
            if let Some(text) = walker.and_then(|k| texts.get_mut(k)) {
                text.terms_of(number, &mut walked)?;
            }
            for &a in group {
                row.fill(0.0);
                for source in &sources {
                    match *source {
                        Source::Constant(term) => row.iter_mut().for_each(|total| *total += term),
                        Source::Texts(k) => {
                            let text = texts.get(k).ok_or_else(out_of_matrix)?;
                            let terms = if Some(k) == walker {
                                &walked
                            } else {
                                text.kept_for(a)?
                            };
                            for (total, &slot) in row.iter_mut().zip(&text.slots) {
                                *total += *terms.get(slot).ok_or_else(out_of_matrix)?;
                            }
                        }
                    }
                }
                let i = *rows.get(a).ok_or_else(out_of_matrix)?;
                totals.update(i, |_, b| Some(plan.finish(*row.get(b)?)))?;
            }
        }
        Ok(true)
    }
}

/// A text slot's comparator and its gold and candidate texts.
type TextValues<'v> = (Comparator, Vec<&'v Value>, Vec<&'v Value>);

/// The most terms [`Scorer::rows_at_once`] keeps for texts that do not walk the
/// rows (8 MB).
const KEPT_TERMS: usize = 1 << 20;

/// Where one slot's values come from when a block's rows are made at once.
enum Source {
    /// The same term in every cell (an unmatched slot's, an identifier's).
    Constant(f64),
    /// The terms of the texts numbered so.
    Texts(usize),
}

/// One text slot's weighted, thresholded similarities, by distinct gold text.
struct TextTerms<'v> {
    distinct: TextRows<'v, &'v Value>,
    rule: &'v Node,
    weight: f64,
    /// The gold positions of each distinct gold text, and each position's text.
    groups: Vec<Vec<usize>>,
    group_of: Vec<usize>,
    /// Each candidate's distinct text.
    slots: Vec<usize>,
    /// Every distinct gold text's terms, when kept.
    kept: Vec<Vec<f64>>,
}

impl<'v> TextTerms<'v> {
    fn new(distinct: TextRows<'v, &'v Value>, rule: &'v Node, weight: f64) -> Self {
        let groups = distinct.gold_groups();
        let mut group_of = vec![0; groups.iter().map(Vec::len).sum()];
        for (number, group) in groups.iter().enumerate() {
            for &a in group {
                if let Some(slot) = group_of.get_mut(a) {
                    *slot = number;
                }
            }
        }
        let slots = distinct.column_slots().to_vec();
        Self {
            distinct,
            rule,
            weight,
            groups,
            group_of,
            slots,
            kept: Vec::new(),
        }
    }

    /// The distinct pairs (gold texts x candidate texts).
    fn pairs(&self) -> usize {
        let columns = self.slots.iter().max().map_or(0, |&most| most + 1);
        self.groups.len().saturating_mul(columns)
    }

    /// The terms of distinct gold text `number` over the distinct candidate texts,
    /// into `terms`: the leaf's score, then the weight, as [`Scorer::add_texts`].
    fn terms_of(&mut self, number: usize, terms: &mut Vec<f64>) -> Result<(), Unsupported> {
        let lead = self
            .groups
            .get(number)
            .and_then(|group| group.first())
            .copied()
            .ok_or_else(out_of_matrix)?;
        let mut similarities = Vec::new();
        self.distinct
            .row(lead, &mut similarities)
            .map_err(|error| Unsupported::comparator_at(&self.rule.pointer, "score", error))?;
        terms.clear();
        terms.extend(
            similarities
                .iter()
                .map(|&similarity| self.weight * thresholded(self.rule, similarity)),
        );
        Ok(())
    }

    fn keep_all(&mut self) -> Result<(), Unsupported> {
        let mut kept = Vec::with_capacity(self.groups.len());
        for number in 0..self.groups.len() {
            let mut terms = Vec::new();
            self.terms_of(number, &mut terms)?;
            kept.push(terms);
        }
        self.kept = kept;
        Ok(())
    }

    /// The kept terms of gold position `a`'s text.
    fn kept_for(&self, a: usize) -> Result<&Vec<f64>, Unsupported> {
        self.group_of
            .get(a)
            .and_then(|&number| self.kept.get(number))
            .ok_or_else(out_of_matrix)
    }
}

/// The running totals of one pair of key groups in a block's `out`: the cells of
/// the candidates `cols` in the golds' rows.
struct Totals<'o, 'c> {
    out: &'o mut [f64],
    width: usize,
    cols: &'c [usize],
    /// Whether `cols` are all the candidates, in order: a row's cells are then
    /// its slice, walked without looking columns up.
    all: bool,
}

impl<'o, 'c> Totals<'o, 'c> {
    fn new(out: &'o mut [f64], width: usize, cols: &'c [usize]) -> Self {
        let all = cols.len() == width && cols.iter().enumerate().all(|(b, &j)| b == j);
        Self {
            out,
            width,
            cols,
            all,
        }
    }

    /// Gold `i`'s total with the candidate at `cols[b]` becomes `update(total, b)`
    /// for each `b`; `update` gives `None` for a `b` out of its block.
    fn update(
        &mut self,
        i: usize,
        mut update: impl FnMut(f64, usize) -> Option<f64>,
    ) -> Result<(), Unsupported> {
        let row = self
            .out
            .get_mut(i * self.width..(i + 1) * self.width)
            .ok_or_else(out_of_matrix)?;
        if self.all {
            for (b, total) in row.iter_mut().enumerate() {
                *total = update(*total, b).ok_or_else(out_of_matrix)?;
            }
        } else {
            for (b, &j) in self.cols.iter().enumerate() {
                let total = row.get_mut(j).ok_or_else(out_of_matrix)?;
                *total = update(*total, b).ok_or_else(out_of_matrix)?;
            }
        }
        Ok(())
    }
}

/// An object's entries.
pub(super) type Entries<'v> = &'v [(String, Json)];

/// Objects sharing one key set: the entries of the first, and their indices.
pub(super) type Group<'v> = (Entries<'v>, Vec<usize>);

/// Objects' indices grouped by their key sets, the groups in the order of their
/// lists of keys.
pub(super) fn key_groups<'v>(values: &[&'v Json]) -> Vec<Group<'v>> {
    let mut groups: BTreeMap<KeySet<'v>, Group<'v>> = BTreeMap::new();
    for (index, value) in values.iter().enumerate() {
        if let Json::Object(entries) = value {
            groups
                .entry(KeySet(entries))
                .or_insert((entries, Vec::new()))
                .1
                .push(index);
        }
    }
    groups.into_values().collect()
}

/// An object's key set, read in place from its entries (no list of keys made per
/// object), ordered as the list of its keys is.
struct KeySet<'v>(Entries<'v>);

impl KeySet<'_> {
    fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(key, _)| key.as_str())
    }
}

impl Ord for KeySet<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.keys().cmp(other.keys())
    }
}

impl PartialOrd for KeySet<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for KeySet<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for KeySet<'_> {}

/// The values of entry `entry` of the objects at `indices`.
pub(super) fn entries_at<'v>(
    values: &[&'v Json],
    indices: &[usize],
    entry: usize,
) -> Result<Vec<&'v Json>, Unsupported> {
    // sized once: collecting through `Result` would grow the vector from nothing
    let mut out = Vec::with_capacity(indices.len());
    for &i in indices {
        out.push(match values.get(i) {
            Some(Json::Object(entries)) => entries
                .get(entry)
                .map(|(_, value)| value)
                .ok_or_else(out_of_matrix)?,
            _ => return Err(Unsupported::MatrixCells),
        });
    }
    Ok(out)
}

/// The error of a cell out of its matrix, built only when met (`ok_or` would build
/// and drop one for every cell found).
fn out_of_matrix() -> Unsupported {
    Unsupported::MatrixCells
}

fn cell_of(out: &mut [f64], i: usize, j: usize, width: usize) -> Result<&mut f64, Unsupported> {
    out.get_mut(i * width + j).ok_or_else(out_of_matrix)
}

/// Whether a node of type `ty` is a leaf, scored by its comparator.
fn is_leaf_type(ty: NodeType) -> bool {
    matches!(
        ty,
        NodeType::String
            | NodeType::Number
            | NodeType::Integer
            | NodeType::Boolean
            | NodeType::Null
    )
}

/// [`Scorer::block`] of a leaf node: `leaf::score` of each pair, with one comparator
/// pass over the values of each kind; nulls by the null rule.
fn leaves<'v>(
    externals: &Externals,
    rule: &Node,
    golds: &[&'v Json],
    candidates: &[&'v Json],
) -> Result<Vec<f64>, Unsupported> {
    let width = candidates.len();
    let threshold = |similarity: f64| thresholded(rule, similarity);
    let mut out: Option<Vec<f64>> = None;
    for kind in [Kind::String, Kind::Number, Kind::Boolean] {
        // a kind the node has no comparator for is a type mismatch: 0
        let Some(comparator) = rule.comparator_for(kind) else {
            continue;
        };
        // the values are borrowed, not copied: the comparator reads them in place
        let of_kind = |values: &[&'v Json]| -> (Vec<usize>, Vec<&'v Value>) {
            let of_this_kind =
                |value: &Json| matches!(value, Json::Leaf(leaf) if leaf.kind() == kind);
            // counted first: the lists are sized once (unzip would grow them)
            let count = values.iter().filter(|v| of_this_kind(v)).count();
            let (mut at, mut found) = (Vec::with_capacity(count), Vec::with_capacity(count));
            for (k, value) in values.iter().enumerate().filter(|(_, v)| of_this_kind(v)) {
                if let Json::Leaf(leaf) = value {
                    at.push(k);
                    found.push(leaf);
                }
            }
            (at, found)
        };
        let ((rows, gold_values), (cols, cand_values)) = (of_kind(golds), of_kind(candidates));
        if rows.is_empty() || cols.is_empty() {
            continue;
        }
        let mut similarities = comparator
            .matrix(externals, &gold_values, &cand_values)
            .map_err(|error| Unsupported::comparator_at(&rule.pointer, "score", error))?;
        if rows.len() == golds.len() && cols.len() == width {
            // one kind on both sides: its block is the matrix
            similarities
                .iter_mut()
                .for_each(|cell| *cell = threshold(*cell));
            return Ok(similarities);
        }
        let out = match &mut out {
            Some(out) => out,
            None => out.insert(zeros(golds.len(), width)?),
        };
        for (a, &i) in rows.iter().enumerate() {
            for (b, &j) in cols.iter().enumerate() {
                let similarity = *similarities
                    .get(a * cols.len() + b)
                    .ok_or_else(out_of_matrix)?;
                *cell_of(out, i, j, width)? = threshold(similarity);
            }
        }
    }
    let mut out = match out {
        Some(out) => out,
        None => zeros(golds.len(), width)?,
    };
    for (i, g) in golds.iter().enumerate() {
        for (j, c) in candidates.iter().enumerate() {
            match (g, c) {
                (Json::Null, Json::Null) => *cell_of(&mut out, i, j, width)? = 1.0,
                (Json::Null, _) | (_, Json::Null) => {
                    *cell_of(&mut out, i, j, width)? = rule.null_score;
                }
                _ => {}
            }
        }
    }
    Ok(out)
}

/// A zero matrix, or [`Unsupported::MatrixCells`] where the memory is not there.
fn zeros(rows: usize, cols: usize) -> Result<Vec<f64>, Unsupported> {
    let cells = rows.checked_mul(cols).ok_or_else(out_of_matrix)?;
    let mut out = Vec::new();
    out.try_reserve_exact(cells)
        .map_err(|_| Unsupported::MatrixCells)?;
    out.resize(cells, 0.0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::{Comparator, Integer, Number, StringMeasure};
    use crate::plan::{Plan, PlanBuilder};
    use crate::score::{Limits, MapCache};

    /// An object node (the root) with a string, a number and an undeclared property.
    fn plan() -> Plan {
        let mut builder = PlanBuilder::default();
        let [root, text, number, any, any_object, any_array] = [(); 6].map(|()| builder.reserve());
        let mut object = Node::new(NodeType::Object);
        object.object.properties = vec![("a".into(), text), ("b".into(), number)];
        object.object.key_importance = 0.5;
        let mut string = Node::new(NodeType::String);
        string.comparator = Some(Comparator::String(StringMeasure::Jaro));
        string.threshold = 0.5;
        string.null_score = 0.25;
        for (id, node) in [
            (root, object),
            (text, string),
            (number, Node::new(NodeType::Number)),
            (any, Node::new(NodeType::Any)),
            (any_object, Node::new(NodeType::Object)),
            (any_array, Node::new(NodeType::Array)),
        ] {
            builder.set(id, node).unwrap();
        }
        builder.finish(root, any, any_object, any_array).unwrap()
    }

    fn values() -> Vec<Json> {
        let text = |s: &str| Json::Leaf(Value::from(s));
        let int = |n| Json::Leaf(Value::Number(Number::Int(Integer::Small(n))));
        let object = |entries: Vec<(&str, Json)>| {
            Json::object(entries.into_iter().map(|(k, v)| (k.into(), v)).collect())
        };
        vec![
            object(vec![("a", text("martha")), ("b", int(3))]),
            object(vec![("a", text("marhta")), ("b", text("3"))]),
            object(vec![("a", Json::Null), ("c", int(1))]),
            object(vec![
                ("a", int(7)),
                ("b", Json::Null),
                ("c", Json::Array(vec![])),
            ]),
            object(vec![]),
            object(vec![("a", text("dixon")), ("ab", int(3))]),
        ]
    }

    #[test]
    fn rows_made_at_once_equal_pair_by_pair_scores() {
        // enough texts for their distinct form, with repeats; half the objects have
        // an undeclared key too (an unmatched slot against the others, a slot of
        // another kind between themselves)
        let plan = plan();
        let limits = Limits {
            max_depth: 10,
            max_matrix_cells: 100_000,
        };
        let words = ["martha", "marhta", "dixon", "dicksonx", "jones", "", "m"];
        let object = |k: usize, extra: bool| {
            let name = words.get(k * 7 % words.len()).copied().unwrap_or("");
            let mut entries = vec![(
                "a".to_string(),
                Json::Leaf(Value::from(format!("{name}{}", k % 13).as_str())),
            )];
            if extra {
                let one = Json::Leaf(Value::Number(Number::Int(Integer::Small(1))));
                entries.push(("c".to_string(), one));
            }
            Json::object(entries)
        };
        let golds: Vec<Json> = (0..140).map(|k| object(k, k % 2 == 0)).collect();
        let candidates: Vec<Json> = (0..130).map(|k| object(k * 3, k % 3 == 0)).collect();
        assert_matrix_is_pair_by_pair(&plan, limits, &golds, &candidates);
    }

    /// Every cell of the score matrix of `golds` x `candidates` has the bits of that
    /// pair scored alone.
    fn assert_matrix_is_pair_by_pair(
        plan: &Plan,
        limits: Limits,
        golds: &[Json],
        candidates: &[Json],
    ) {
        let mut cache = MapCache::default();
        let matrix = Scorer::new(plan, limits, &mut cache)
            .score_matrix(golds, candidates, plan.root(), None)
            .unwrap();
        for (i, g) in golds.iter().enumerate() {
            for (j, c) in candidates.iter().enumerate() {
                let pair = Scorer::new(plan, limits, &mut MapCache::default())
                    .score(g, c)
                    .unwrap();
                assert_eq!(
                    matrix.get(i, j).unwrap().to_bits(),
                    pair.to_bits(),
                    "{i} {j}"
                );
            }
        }
    }

    #[test]
    fn key_groups_come_in_the_order_of_their_key_lists() {
        let values = values();
        let mut more = values.clone();
        more.extend(values.iter().rev().cloned());
        let refs: Vec<&Json> = more.iter().collect();
        let groups = key_groups(&refs);
        let keys = |entries: Entries<'_>| -> Vec<String> {
            entries.iter().map(|(key, _)| key.clone()).collect()
        };
        let lists: Vec<Vec<String>> = groups.iter().map(|(entries, _)| keys(entries)).collect();
        let mut sorted = lists.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(lists, sorted); // each key set once, ordered as its list of keys
        for (entries, indices) in &groups {
            for &i in indices {
                let Some(Json::Object(found)) = more.get(i) else {
                    panic!("{i} is no object");
                };
                assert_eq!(keys(found), keys(entries));
            }
        }
        let grouped: usize = groups.iter().map(|(_, indices)| indices.len()).sum();
        assert_eq!(grouped, more.len());
    }

    #[test]
    fn blocks_of_objects_equal_pair_by_pair_scores() {
        let plan = plan();
        let limits = Limits {
            max_depth: 10,
            max_matrix_cells: 1000,
        };
        let mut cache = MapCache::default();
        assert!(Scorer::new(&plan, limits, &mut cache).blockwise(plan.root()));
        let values = values();
        assert_matrix_is_pair_by_pair(&plan, limits, &values, &values);
    }
}
