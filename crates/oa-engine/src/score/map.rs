//! Objects (paper Eq. dict): keys paired by the
//! key comparator alone (assignment), then the key term and the weighted values.
//!
//! What depends only on the two key sets (the slots, their scaled weights, the key
//! term) is planned once per (node, gold keys, candidate keys) and kept in a
//! [`MapCache`]: many objects of a list share their key sets.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::Arc;

use super::sink::{Sink, Status, Step};
use super::{Scorer, Unsupported};
use crate::align::power_of_two_scale;
use crate::align::{fsum, max_weight_matching, Matrix};
use crate::compare::Value;
use crate::plan::{Node, NodeId, Plan};
use crate::value::Json;

/// Entries kept before the cache is cleared (`MEMO_LIMIT`): a bound on memory.
const CACHE_LIMIT: usize = 4096;

/// One slot: the gold and candidate entry indices (None: unmatched), the node the
/// values are compared under and the slot's scaled weight.
#[derive(Clone, Debug)]
struct Slot {
    gold: Option<usize>,
    candidate: Option<usize>,
    node: NodeId,
    weight: f64,
    /// The key similarity (0 for an unmatched key).
    key_score: f64,
}

/// `map_score`'s value-independent part for one pair of key sets.
#[derive(Debug)]
pub(super) struct MapPlan {
    slots: Vec<Slot>,
    total_weight: f64,
    key_term: f64,
    key_importance: f64,
    value_importance: f64,
    importance: f64,
    /// `key_denominator`: the larger key count.
    keys: usize,
}

#[derive(Debug)]
struct Entry {
    node: NodeId,
    gold: Vec<String>,
    candidate: Vec<String>,
    /// None: no slot at all (two empty objects), whose score is 1.
    plan: Option<Arc<MapPlan>>,
}

/// FNV-1a: a few short keys are hashed on every object compared, where SipHash's
/// set-up costs more than the hashing; the cache is no hash-flooding target (its
/// keys are the schema's and the documents' own, and it is cleared at its bound).
#[derive(Debug)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// Objects' key alignments by node and key sets. Only looked up (never iterated),
/// so the hash order changes no result.
#[derive(Debug, Default)]
pub struct MapCache {
    entries: HashMap<u64, Vec<Entry>, BuildHasherDefault<Fnv>>,
    len: usize,
}

fn keys_hash(node: NodeId, gold: &[(String, Json)], candidate: &[(String, Json)]) -> u64 {
    let mut hasher = Fnv::default();
    node.hash(&mut hasher);
    gold.len().hash(&mut hasher);
    for (key, _) in gold.iter().chain(candidate) {
        key.hash(&mut hasher);
    }
    hasher.finish()
}

fn same_keys(keys: &[String], entries: &[(String, Json)]) -> bool {
    keys.len() == entries.len() && keys.iter().zip(entries).all(|(k, (e, _))| k == e)
}

impl MapCache {
    fn get(
        &self,
        hash: u64,
        node: NodeId,
        gold: &[(String, Json)],
        candidate: &[(String, Json)],
    ) -> Option<Option<Arc<MapPlan>>> {
        self.entries.get(&hash)?.iter().find_map(|entry| {
            (entry.node == node
                && same_keys(&entry.gold, gold)
                && same_keys(&entry.candidate, candidate))
            .then(|| entry.plan.clone())
        })
    }

    fn insert(&mut self, hash: u64, entry: Entry) {
        if self.len >= CACHE_LIMIT {
            self.entries.clear();
            self.len = 0;
        }
        self.entries.entry(hash).or_default().push(entry);
        self.len += 1;
    }
}

impl Scorer<'_> {
    pub(super) fn map<S: Sink>(
        &mut self,
        sink: &mut S,
        row: S::Row,
        gold: &[(String, Json)],
        candidate: &[(String, Json)],
        id: NodeId,
        depth: usize,
    ) -> Result<f64, Unsupported> {
        let Some(plan) = self.map_plan(gold, candidate, id)? else {
            return Ok(1.0); // map_score of no slot
        };
        // `map_score`: the sum from 0.0 of `weight * value` in slot order (an
        // unsupported value stops the whole)
        let mut total = 0.0;
        let mut rows = Vec::with_capacity(plan.slots.len());
        for slot in &plan.slots {
            let (g, c) = (
                slot.gold.and_then(|i| gold.get(i)),
                slot.candidate.and_then(|j| candidate.get(j)),
            );
            let step = Step::Key {
                gold: g.map(|(key, _)| key.as_str()),
                candidate: c.map(|(key, _)| key.as_str()),
            };
            let (value, child) = match (g, c) {
                (Some((_, g)), Some((_, c))) => {
                    self.value(sink, Some(row), step, g, c, slot.node, depth + 1)?
                }
                // an unmatched key scores 0, whatever it holds
                (Some((_, value)), None) => {
                    let status = Status::Missing;
                    let child = self.unmatched(sink, row, step, value, slot.node, status, 0.0)?;
                    (0.0, child)
                }
                (None, Some((_, value))) => {
                    let status = Status::Excess;
                    let child = self.unmatched(sink, row, step, value, slot.node, status, 0.0)?;
                    (0.0, child)
                }
                (None, None) => return Err(no_key()),
            };
            total += slot.weight * value;
            rows.push(child);
        }
        if S::RECORDS {
            shares(sink, &plan, &rows)?;
        }
        Ok(plan.finish(total))
    }

    /// The plan of two objects' key sets under `id` (None: no slot, the score is 1),
    /// from the cache when it was made before.
    pub(super) fn map_plan(
        &mut self,
        gold: &[(String, Json)],
        candidate: &[(String, Json)],
        id: NodeId,
    ) -> Result<Option<Arc<MapPlan>>, Unsupported> {
        let hash = keys_hash(id, gold, candidate);
        if let Some(plan) = self.cache.get(hash, id, gold, candidate) {
            return Ok(plan);
        }
        let plan = plan_map(self.plan, self.plan.node(id)?, gold, candidate)?.map(Arc::new);
        let entry = Entry {
            node: id,
            gold: gold.iter().map(|(k, _)| k.clone()).collect(),
            candidate: candidate.iter().map(|(k, _)| k.clone()).collect(),
            plan: plan.clone(),
        };
        self.cache.insert(hash, entry);
        Ok(plan)
    }
}

impl MapPlan {
    /// The slots: gold and candidate entry indices (None: unmatched) and the node
    /// their values are compared under.
    pub(super) fn slots(
        &self,
    ) -> impl Iterator<Item = (Option<usize>, Option<usize>, NodeId)> + '_ {
        self.slots
            .iter()
            .map(|slot| (slot.gold, slot.candidate, slot.node))
    }

    /// The slots' key similarities (0 for an unmatched key), in slot order.
    pub(super) fn key_scores(&self) -> impl Iterator<Item = f64> + '_ {
        self.slots.iter().map(|slot| slot.key_score)
    }

    /// The slots' scaled weights, in slot order.
    pub(super) fn weights(&self) -> impl Iterator<Item = f64> + '_ {
        self.slots.iter().map(|slot| slot.weight)
    }

    /// `map_score` from `total`, the sum from 0.0 of `weight * value` in slot order.
    pub(super) fn finish(&self, total: f64) -> f64 {
        // `not total_weight > 0` (NaN included): the values do not count
        if self.total_weight.partial_cmp(&0.0) != Some(Ordering::Greater) {
            return (self.key_term + self.value_importance * 1.0) / self.importance;
        }
        (self.key_term + self.value_importance * (total / self.total_weight)) / self.importance
    }
}

fn no_key() -> Unsupported {
    Unsupported::Align(crate::align::AlignError::Internal("a slot without a key"))
}

/// The shares of the slots: of the value term by weight (over their exact
/// sum), of the key term `1/d` per matched pair and what the `d - k` matched pairs
/// cannot reach shared by the unmatched keys.
fn shares<S: Sink>(sink: &mut S, plan: &MapPlan, rows: &[S::Row]) -> Result<(), Unsupported> {
    let weights: Vec<f64> = plan.slots.iter().map(|slot| slot.weight).collect();
    let total_weight = fsum(&weights)?;
    let matched = plan
        .slots
        .iter()
        .filter(|slot| slot.gold.is_some() && slot.candidate.is_some())
        .count();
    let unmatched = plan.slots.len() - matched;
    let d = plan.keys;
    for (slot, row) in plan.slots.iter().zip(rows) {
        let value_share = if total_weight > 0.0 {
            slot.weight / total_weight
        } else {
            0.0
        };
        let key_share = if slot.gold.is_some() && slot.candidate.is_some() {
            1.0 / d as f64
        } else {
            // Python divides the two integers: exact below 2**53, as these counts are
            d.saturating_sub(matched) as f64 / d.saturating_mul(unmatched) as f64
        };
        sink.share(
            *row,
            plan.value_importance / plan.importance * value_share,
            plan.key_importance / plan.importance * key_share,
            Some(slot.key_score),
        );
    }
    Ok(())
}

/// `key_slots`, then the plan: matched pairs by gold key, unmatched gold
/// keys, unmatched candidate keys; weights and importances scaled by powers of two.
fn plan_map(
    plan: &Plan,
    node: &Node,
    gold: &[(String, Json)],
    candidate: &[(String, Json)],
) -> Result<Option<MapPlan>, Unsupported> {
    let rule = &node.object;
    let texts = |entries: &[(String, Json)]| -> Vec<Value> {
        entries
            .iter()
            .map(|(k, _)| Value::from(k.as_str()))
            .collect()
    };
    let (n, m) = (gold.len(), candidate.len());
    let mut similarity = rule
        .key_score
        .matrix(plan.externals(), &texts(gold), &texts(candidate))
        .map_err(|error| Unsupported::comparator_at(&node.pointer, "keyScore", error))?;
    for cell in &mut similarity {
        if *cell < rule.key_threshold {
            *cell = 0.0;
        }
    }
    let matrix = Matrix::new(n, m, similarity)?;
    let pairs = max_weight_matching(&matrix, None)?;
    let mut matched_gold = vec![false; n];
    let mut matched_candidate = vec![false; m];
    let mut keyed: Vec<(Option<usize>, Option<usize>, f64)> = Vec::new();
    for &(i, j) in &pairs {
        keyed.push((Some(i), Some(j), matrix.get(i, j)?));
        if let Some(flag) = matched_gold.get_mut(i) {
            *flag = true;
        }
        if let Some(flag) = matched_candidate.get_mut(j) {
            *flag = true;
        }
    }
    keyed.extend(
        (0..n)
            .filter(|&i| !matched_gold.get(i).copied().unwrap_or(true))
            .map(|i| (Some(i), None, 0.0)),
    );
    keyed.extend(
        (0..m)
            .filter(|&j| !matched_candidate.get(j).copied().unwrap_or(true))
            .map(|j| (None, Some(j), 0.0)),
    );
    if keyed.is_empty() {
        return Ok(None);
    }
    let mut slots = Vec::with_capacity(keyed.len());
    let mut weights = Vec::with_capacity(keyed.len());
    let mut key_total = 0.0;
    for &(g, c, key_similarity) in &keyed {
        // a matched pair is scored under the gold key's schema
        let key = match (
            g.and_then(|i| gold.get(i)),
            c.and_then(|j| candidate.get(j)),
        ) {
            (Some((key, _)), _) | (None, Some((key, _))) => key.as_str(),
            (None, None) => return Err(no_key()),
        };
        slots.push(Slot {
            gold: g,
            candidate: c,
            node: node.property(key, plan.any()),
            weight: 0.0,
            key_score: key_similarity,
        });
        weights.push(node.weight(key));
        key_total += key_similarity;
    }
    let scaled = power_of_two_scale(&weights).ok_or(Unsupported::Weights)?;
    let importances = power_of_two_scale(&[rule.key_importance, rule.value_importance])
        .ok_or(Unsupported::Weights)?;
    let [key_importance, value_importance] = importances[..] else {
        return Err(Unsupported::Weights);
    };
    let s_key = key_total / n.max(m) as f64;
    let mut total_weight = 0.0;
    for (slot, weight) in slots.iter_mut().zip(&scaled) {
        total_weight += weight;
        slot.weight = *weight;
    }
    Ok(Some(MapPlan {
        slots,
        total_weight,
        key_term: key_importance * s_key,
        key_importance,
        value_importance,
        importance: key_importance + value_importance,
        keys: n.max(m),
    }))
}
