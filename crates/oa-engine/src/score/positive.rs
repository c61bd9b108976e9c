//! The pairs of two long lists that can score above 0, found by equality without
//! scoring every pair (`positive_scores`).
//!
//! Only nodes whose scores come from equalities are taken, since only for them does
//! equality find every positive pair: references, primitives compared `exact` (booleans
//! by default), and objects of one key set per side, with no key term, whose values are
//! such (or nested such objects). Anything else (a string compared by Jaro, an
//! identifier worth 1 everywhere, a null that scores `nullScore` > 0, objects of
//! several key sets) gives `None`, and the list is paired densely.
//!
//! The pairs found hold every positive cell and may hold cells of 0 (an object
//! whose one slot agrees, the others not); the caller scores them as the dense
//! matrix does and keeps the positive ones, so the values are the matrix's to the
//! bit and the cells are Python's.

use std::collections::BTreeMap;

use super::matrix::{entries_at, key_groups, Entries};
use super::{OverLimit, Scorer, Unsupported};
use crate::align::{equal_pairs_within, part, AlignError, Part};
use crate::compare::{Comparator, Kind};
use crate::plan::{Node, NodeId, NodeType, ScopeId};
use crate::value::{IdKey, Json};

/// What a value must equal to score above 0 against the other side's values.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    /// Two nulls agree (1.0).
    Null,
    /// A reference to no known id, which agrees with any other such.
    Dangling,
    /// A reference's id (gold: the id its image must have).
    Id(IdKey),
    /// A leaf compared `exact`.
    Value(Part),
}

/// Gold keys and candidate keys (`None`: equal to nothing).
type Keys = (Vec<Option<Key>>, Vec<Option<Key>>);

impl Scorer<'_> {
    /// Every `(i, j)` whose cell under `node` can be positive, sorted, or `None`
    /// where equalities cannot give them (the dense way then).
    pub(super) fn equal_cells(
        &mut self,
        golds: &[&Json],
        candidates: &[&Json],
        node: NodeId,
        depth: usize,
    ) -> Result<Option<Vec<(usize, usize)>>, Unsupported> {
        if golds.is_empty() || candidates.is_empty() {
            return Ok(Some(Vec::new()));
        }
        if depth > self.limits.max_depth {
            return Err(Unsupported::Depth);
        }
        let plan = self.plan;
        let rule = plan.node(node)?;
        if rule.id_scope.is_some()
            || rule
                .reference
                .is_some_and(|scope| self.refs.state.unresolved(scope))
        {
            return Ok(None); // 1.0 everywhere
        }
        let values = || golds.iter().chain(candidates);
        let nulls = values().any(|value| matches!(value, Json::Null));
        if nulls && rule.null_score > 0.0 {
            return Ok(None); // a null against a value: positive everywhere
        }
        if let Some(scope) = rule.reference {
            let keys = self.reference_keys(scope, golds, candidates)?;
            return self.join(keys).map(Some);
        }
        if rule.ty == NodeType::Object && !rule.inferred {
            if nulls || !values().all(|value| value.is_object()) {
                return Ok(None);
            }
            return self.object_cells(golds, candidates, node, depth);
        }
        let primitive = matches!(
            rule.ty,
            NodeType::String | NodeType::Number | NodeType::Integer | NodeType::Boolean
        );
        if primitive && values().all(|value| matches!(value, Json::Null | Json::Leaf(_))) {
            return match leaf_keys(rule, golds, candidates)? {
                Some(keys) => self.join(keys).map(Some),
                None => Ok(None),
            };
        }
        Ok(None)
    }

    /// The codes of reference cells: a gold reference keyed by the candidate id it
    /// expects (dangling where it has no image, equal to nothing where its image is no
    /// candidate id), a candidate one by its id (dangling where no record has it).
    fn reference_keys(
        &self,
        scope: ScopeId,
        golds: &[&Json],
        candidates: &[&Json],
    ) -> Result<Keys, Unsupported> {
        let state = self.refs.state.scope(scope);
        let exists = |key: &IdKey| state.is_some_and(|state| state.candidate_ids.contains(key));
        let mut gold_keys = Vec::with_capacity(golds.len());
        for gold in golds {
            if matches!(gold, Json::Null) {
                gold_keys.push(Some(Key::Null));
                continue;
            }
            let image =
                IdKey::of(gold)?.and_then(|key| state.and_then(|state| state.bijection.get(&key)));
            gold_keys.push(match image {
                None => Some(Key::Dangling),
                Some(Some(target)) if exists(target) => Some(Key::Id(target.clone())),
                Some(_) => None,
            });
        }
        let mut cand_keys = Vec::with_capacity(candidates.len());
        for candidate in candidates {
            cand_keys.push(Some(match candidate {
                Json::Null => Key::Null,
                _ => match IdKey::of(candidate)? {
                    Some(key) if exists(&key) => Key::Id(key),
                    _ => Key::Dangling,
                },
            }));
        }
        Ok((gold_keys, cand_keys))
    }

    /// One key set per side, no slot and no key term that makes
    /// every pair positive; the union of the slots' cells (a slot weighing 0, or
    /// of a key on one side only, adds exactly 0).
    fn object_cells(
        &mut self,
        golds: &[&Json],
        candidates: &[&Json],
        node: NodeId,
        depth: usize,
    ) -> Result<Option<Vec<(usize, usize)>>, Unsupported> {
        let (Some(gold_entries), Some(cand_entries)) =
            (one_key_set(golds), one_key_set(candidates))
        else {
            return Ok(None); // several key sets: several blocks of slots (the dense way)
        };
        let Some(map) = self.map_plan(gold_entries, cand_entries, node)? else {
            return Ok(None); // no slot: 1.0 everywhere
        };
        let weights: Vec<f64> = map.weights().collect();
        let key_importance = self.plan.node(node)?.object.key_importance;
        // Python's `sum` of the scaled weights, left to right
        if weights.iter().fold(0.0, |sum, w| sum + w) <= 0.0
            || (key_importance > 0.0 && map.key_scores().any(|score| score > 0.0))
        {
            return Ok(None);
        }
        let mut union = Vec::new();
        for ((gold, candidate, sub), weight) in map.slots().zip(weights) {
            let (Some(g), Some(c)) = (gold, candidate) else {
                continue;
            };
            if weight == 0.0 {
                continue;
            }
            let every = |values: &[&Json]| (0..values.len()).collect::<Vec<_>>();
            let gv = entries_at(golds, &every(golds), g)?;
            let cv = entries_at(candidates, &every(candidates), c)?;
            match self.equal_cells(&gv, &cv, sub, depth + 1)? {
                Some(cells) => union.extend(cells),
                None => return Ok(None),
            }
        }
        union.sort_unstable();
        union.dedup();
        let limit = self.limits.max_matrix_cells;
        if union.len() > limit {
            // every cell of the union is positive (a slot weighing more than 0 is equal)
            let sizes = (golds.len(), candidates.len());
            return Err(OverLimit::refusal(sizes, union.len(), true, limit));
        }
        Ok(Some(union))
    }

    /// The pairs of equal keys, sorted; more than `max_matrix_cells` go to Python.
    fn join(&self, (gold, candidate): Keys) -> Result<Vec<(usize, usize)>, Unsupported> {
        let mut codes: BTreeMap<Key, i64> = BTreeMap::new();
        let mut code = |key: Option<Key>| match key {
            None => -1,
            Some(key) => {
                let next = codes.len() as i64;
                *codes.entry(key).or_insert(next)
            }
        };
        let gold: Vec<i64> = gold.into_iter().map(&mut code).collect();
        let candidate: Vec<i64> = candidate.into_iter().map(&mut code).collect();
        let limit = self.limits.max_matrix_cells;
        let (rows, cols) = match equal_pairs_within(&gold, &candidate, limit) {
            Ok(found) => found,
            // more equal (so positive) pairs than the limit: counted, not made
            Err(AlignError::Memory(_)) => {
                let sizes = (gold.len(), candidate.len());
                let pairs = equal_pair_count(&gold, &candidate);
                return Err(OverLimit::refusal(sizes, pairs, true, limit));
            }
            Err(error) => return Err(error.into()),
        };
        Ok(rows.into_iter().zip(cols).collect())
    }
}

/// The pairs of equal codes (a negative code equals nothing), saturating.
fn equal_pair_count(gold: &[i64], candidate: &[i64]) -> usize {
    let mut counts: BTreeMap<i64, usize> = BTreeMap::new();
    for &code in candidate.iter().filter(|&&code| code >= 0) {
        *counts.entry(code).or_insert(0) += 1;
    }
    gold.iter()
        .filter_map(|code| counts.get(code))
        .fold(0usize, |sum, &count| sum.saturating_add(count))
}

/// The codes of leaf cells, or `None` where a kind on both sides is compared by a
/// comparator other than `exact`: nulls alike, a leaf by its value where its kind
/// is compared `exact`, else equal to nothing (a type mismatch scores 0).
fn leaf_keys(
    rule: &Node,
    golds: &[&Json],
    candidates: &[&Json],
) -> Result<Option<Keys>, Unsupported> {
    let kinds = |values: &[&Json]| -> Vec<Kind> {
        [Kind::String, Kind::Number, Kind::Boolean]
            .into_iter()
            .filter(|kind| {
                values
                    .iter()
                    .any(|value| matches!(value, Json::Leaf(leaf) if leaf.kind() == *kind))
            })
            .collect()
    };
    let gold_kinds = kinds(golds);
    for kind in kinds(candidates) {
        let compared = rule.comparator_for(kind);
        if gold_kinds.contains(&kind) && compared.is_some_and(|c| c != Comparator::Exact) {
            return Ok(None);
        }
    }
    let key = |value: &&Json| -> Result<Option<Key>, Unsupported> {
        Ok(match value {
            Json::Null => Some(Key::Null),
            Json::Leaf(leaf) if rule.comparator_for(leaf.kind()) == Some(Comparator::Exact) => {
                Some(Key::Value(part(Some(value))?))
            }
            _ => None,
        })
    };
    let gold = golds.iter().map(key).collect::<Result<_, _>>()?;
    let candidate = candidates.iter().map(key).collect::<Result<_, _>>()?;
    Ok(Some((gold, candidate)))
}

/// The entries of the first object when every object has its key set.
fn one_key_set<'v>(values: &[&'v Json]) -> Option<Entries<'v>> {
    match key_groups(values).as_slice() {
        [(entries, _)] => Some(*entries),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::compare::{Comparator, StringMeasure, Value};
    use crate::plan::{Node, NodeType, Order, Plan, PlanBuilder};
    use crate::score::{Limits, MapCache, OverLimit, Scorer, Unsupported};
    use crate::value::Json;

    /// A root list (`order: align`, `blockBy` as given) of leaves under `leaf`.
    fn list_of(leaf: Node, block_by: &[&str]) -> Plan {
        let mut builder = PlanBuilder::default();
        let [root, item, any, any_object, any_array] = [(); 5].map(|()| builder.reserve());
        let mut list = Node::new(NodeType::Array);
        list.array.order = Order::Align;
        list.array.items = Some(item);
        list.array.block_by = block_by.iter().map(|name| name.to_string()).collect();
        for (id, node) in [
            (root, list),
            (item, leaf),
            (any, Node::new(NodeType::Any)),
            (any_object, Node::new(NodeType::Object)),
            (any_array, Node::new(NodeType::Array)),
        ] {
            builder.set(id, node).unwrap();
        }
        builder.finish(root, any, any_object, any_array).unwrap()
    }

    fn leaf(ty: NodeType, comparator: Comparator) -> Node {
        let mut node = Node::new(ty);
        node.comparator = Some(comparator);
        node
    }

    /// 1,001 x 1,000 items: past `SPARSE_FROM_CELLS`, and past a matrix limit of
    /// 10,000 cells, so only the way from the positive cells scores them.
    fn long(value: impl Fn(i64) -> Json) -> (Json, Json) {
        (
            Json::Array((0..1001).map(|k| value(k % 700)).collect()),
            Json::Array((0..1000).map(|k| value((k * 7) % 900)).collect()),
        )
    }

    fn score(plan: &Plan, (gold, candidate): &(Json, Json)) -> Result<f64, Unsupported> {
        let limits = Limits {
            max_depth: 10,
            max_matrix_cells: 10_000,
        };
        Scorer::new(plan, limits, &mut MapCache::default()).score(gold, candidate)
    }

    #[test]
    fn equal_leaves_are_paired_from_their_cells() {
        let plan = list_of(leaf(NodeType::Integer, Comparator::Exact), &[]);
        let lists = long(Json::int);
        // each value pairs min(gold count, candidate count) items, each scoring 1
        let count = |side: &Json, v: &Json| match side {
            Json::Array(items) => items.iter().filter(|item| *item == v).count(),
            _ => 0,
        };
        let found: usize = (0..900)
            .map(|v| count(&lists.0, &Json::int(v)).min(count(&lists.1, &Json::int(v))))
            .sum();
        let expected = found as f64 / (1001 + 1000 - found) as f64;
        assert_eq!(score(&plan, &lists), Ok(expected));
        // more equal pairs than the matrix limit: refused (Python names it)
        let limits = Limits {
            max_depth: 10,
            max_matrix_cells: 100,
        };
        let refused = Scorer::new(&plan, limits, &mut MapCache::default())
            .score(&lists.0, &lists.1)
            .unwrap_err();
        assert!(
            matches!(&refused, Unsupported::OverLimit(over)
                if over.positive && over.cells > 100 && (over.gold, over.candidate) == (1001, 1000)),
            "{refused:?}"
        );
    }

    #[test]
    fn similar_strings_are_no_equality_and_go_the_dense_way() {
        let jaro = leaf(NodeType::String, Comparator::String(StringMeasure::Jaro));
        let plan = list_of(jaro, &[]);
        let lists = long(|k| Json::Leaf(Value::from(format!("w{k}").as_str())));
        assert_eq!(
            score(&plan, &lists),
            Err(OverLimit::refusal((1001, 1000), 1_001_000, false, 10_000))
        );
    }

    /// A root list of records `{role, v}` (both `exact`), blocked by `block_by`.
    fn records(block_by: &[&str]) -> Plan {
        let mut builder = PlanBuilder::default();
        let [root, item, role, v, any, any_object, any_array] = [(); 7].map(|()| builder.reserve());
        let mut list = Node::new(NodeType::Array);
        list.array.order = Order::Align;
        list.array.items = Some(item);
        list.array.block_by = block_by.iter().map(|name| name.to_string()).collect();
        let mut record = Node::new(NodeType::Object);
        record.object.properties = vec![("role".into(), role), ("v".into(), v)];
        record.object.key_importance = 0.0;
        for (id, node) in [
            (root, list),
            (item, record),
            (role, leaf(NodeType::String, Comparator::Exact)),
            (v, leaf(NodeType::Integer, Comparator::Exact)),
            (any, Node::new(NodeType::Any)),
            (any_object, Node::new(NodeType::Object)),
            (any_array, Node::new(NodeType::Array)),
        ] {
            builder.set(id, node).unwrap();
        }
        builder.finish(root, any, any_object, any_array).unwrap()
    }

    #[test]
    fn block_by_pairs_only_within_blocks() {
        let record = |r: &str, n: i64| {
            Json::object(vec![
                ("role".into(), Json::Leaf(Value::from(r))),
                ("v".into(), Json::int(n)),
            ])
        };
        // the roles differ, the values agree: half a score unblocked, none blocked
        let lists = (
            Json::Array(vec![record("a", 1)]),
            Json::Array(vec![record("b", 1)]),
        );
        assert_eq!(score(&records(&[]), &lists), Ok(0.5));
        assert_eq!(score(&records(&["role"]), &lists), Ok(0.0));
    }
}
