//! A resolution in progress: each paired scope's pairs
//! and levels, what the scorer reads of them (bijections, candidate ids, record
//! pairs), and which pairings of a settling score alike.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::index::{value_key, DocumentIndex, Record};
use super::resolve::Trace;
use crate::align::{AlignError, Matrix, Pairs, TieRule};
use crate::plan::ScopeId;
use crate::value::{IdKey, Json};

/// One scope's bijection: gold id key -> the candidate id it maps to as its record
/// writes it (the graph labels read it as written), or `None`.
pub type Bijection = BTreeMap<IdKey, Option<Json>>;

/// What the scorer reads of a resolution: `Scorer`'s `bijections`, `candidate_ids`
/// and `record_pairs` (gold record pointer -> candidate record pointer, by scope).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Referential {
    pub bijections: BTreeMap<ScopeId, Bijection>,
    pub candidate_ids: BTreeMap<ScopeId, BTreeSet<IdKey>>,
    pub record_pairs: BTreeMap<ScopeId, Vec<(String, String)>>,
}

/// Levels kept at some cells only (`_PairCells`): (C, b, a) or (C) by cell.
pub type PairCells = BTreeMap<(usize, usize), Vec<f64>>;

/// A scope's levels: C, and with WL the colour bonus b and the agreement depth a;
/// of a scope too big to keep whole, only at its pairs' cells (`at_pairs`; the
/// matrices are then empty).
#[derive(Debug)]
pub struct Levels {
    pub matrix: Matrix<f64>,
    pub structure: Option<(Matrix<f64>, Matrix<i64>)>,
    pub at_pairs: Option<PairCells>,
}

impl Levels {
    /// The quality of one pair, compared lexicographically: (1, C, b, a).
    fn quality(&self, i: usize, j: usize) -> Result<Vec<f64>, AlignError> {
        if let Some(cells) = &self.at_pairs {
            let kept = cells
                .get(&(i, j))
                .ok_or(AlignError::Internal("a level read outside the pairs"))?;
            return Ok([1.0].into_iter().chain(kept.iter().copied()).collect());
        }
        let mut found = vec![1.0, self.matrix.get(i, j)?];
        if let Some((same, depth)) = &self.structure {
            // a count of rounds: exact as a float (Python's float(int))
            #[allow(clippy::cast_precision_loss)]
            found.extend([same.get(i, j)?, depth.get(i, j)? as f64]);
        }
        Ok(found)
    }
}

/// One scope's pairing while the scopes are resolved.
#[derive(Clone, Debug)]
pub struct Paired {
    pub scope: ScopeId,
    pub levels: Rc<Levels>,
    pub pairs: Pairs,
    /// What decided each pair (`_Paired.rules`).
    pub rules: BTreeMap<(usize, usize), TieRule>,
    pub label_ties: Pairs,
    /// The canonical rank of each gold row and candidate column.
    pub rows: Rc<Vec<i64>>,
    pub cols: Rc<Vec<i64>>,
    /// Label ties scored while some other scope was unresolved.
    pub provisional: bool,
}

/// A resolution in progress; copies share the paired scopes' levels.
#[derive(Clone, Debug, Default)]
pub struct State {
    pub refs: Referential,
    pub paired: BTreeMap<ScopeId, Paired>,
    pub resolved: BTreeSet<ScopeId>,
    /// The refined graph of each scope WL paired (`_State.traces`).
    pub traces: BTreeMap<ScopeId, Rc<Trace>>,
}

/// The designations: the record each shared id designates on each side,
/// and those only the records' canonical JSON chose (sorted record indices).
pub struct Designations {
    pub gold: BTreeMap<IdKey, usize>,
    pub candidate: BTreeMap<IdKey, usize>,
    pub gold_by_label: Vec<usize>,
    pub candidate_by_label: Vec<usize>,
}

/// The gold and candidate documents' indexes and their scopes' id fields.
pub struct Documents<'a> {
    pub gold: &'a DocumentIndex<'a>,
    pub candidate: &'a DocumentIndex<'a>,
    pub id_fields: &'a [String],
}

impl Documents<'_> {
    pub fn records(&self, scope: ScopeId) -> (&[Record<'_>], &[Record<'_>]) {
        (
            self.gold.scope_records(scope),
            self.candidate.scope_records(scope),
        )
    }

    /// A record's identifier as written (records without a key have none).
    pub fn id_of<'r>(&self, scope: ScopeId, record: &'r Record<'_>) -> Option<&'r Json> {
        let field = self.id_fields.get(scope.index())?;
        match record.value {
            Json::Object(entries) => entries
                .iter()
                .find(|(key, _)| key == field)
                .map(|(_, value)| value),
            _ => None,
        }
    }

    /// `_mapping(...)[0]`: the bijection of a scope's pairing.
    pub fn mapping(
        &self,
        scope: ScopeId,
        levels: &Levels,
        pairs: &Pairs,
    ) -> Result<Bijection, AlignError> {
        let (_, candidate) = self.records(scope);
        let found = self.designations(scope, levels, pairs)?;
        let mut mapping = Bijection::new();
        for (key, image) in self.images(scope, &found, pairs)? {
            let image = match image {
                Some(j) => candidate
                    .get(j)
                    .and_then(|partner| self.id_of(scope, partner))
                    .cloned(),
                None => None,
            };
            mapping.insert(key, image);
        }
        Ok(mapping)
    }

    /// The bijection of a pairing by record: each gold id's key -> the candidate
    /// record its designated record is paired with, when that record is its own
    /// id's designated one (else `None`).
    pub fn images(
        &self,
        scope: ScopeId,
        found: &Designations,
        pairs: &Pairs,
    ) -> Result<BTreeMap<IdKey, Option<usize>>, AlignError> {
        let (gold, candidate) = self.records(scope);
        let mut images = BTreeMap::new();
        for key in gold.iter().filter_map(|record| record.key.as_ref()) {
            images.insert(key.clone(), None);
        }
        for &(i, j) in pairs {
            let Some(g_key) = &gold.get(i).ok_or(AlignError::Internal("gold record"))?.key else {
                continue;
            };
            if found.gold.get(g_key) != Some(&i) {
                continue;
            }
            let partner = candidate
                .get(j)
                .ok_or(AlignError::Internal("candidate record"))?;
            let image = match &partner.key {
                Some(c_key) if found.candidate.get(c_key) == Some(&j) => Some(j),
                _ => None,
            };
            images.insert(g_key.clone(), image);
        }
        Ok(images)
    }

    /// The targets: gold ones first (by the pair's quality), then the
    /// candidate's (a shared candidate id goes to the partner of a designated gold
    /// record first).
    pub fn designations(
        &self,
        scope: ScopeId,
        levels: &Levels,
        pairs: &Pairs,
    ) -> Result<Designations, AlignError> {
        let (gold, candidate) = self.records(scope);
        // each record's partner: a priority is only read for a record whose id is
        // shared, so it is made there and nowhere else
        let (mut gold_partner, mut candidate_partner) =
            (vec![None; gold.len()], vec![None; candidate.len()]);
        for &(i, j) in pairs {
            if let Some(slot) = gold_partner.get_mut(i) {
                *slot = Some(j);
            }
            if let Some(slot) = candidate_partner.get_mut(j) {
                *slot = Some(i);
            }
        }
        let (gold_targets, gold_by_label) = targets(gold, |i| match gold_partner.get(i) {
            Some(&Some(j)) => levels.quality(i, j),
            _ => Ok(Vec::new()),
        })?;
        let chosen: BTreeSet<usize> = gold_targets.values().copied().collect();
        let (candidate_targets, candidate_by_label) =
            targets(candidate, |j| match candidate_partner.get(j) {
                Some(&Some(i)) => {
                    let mut quality = vec![if chosen.contains(&i) { 1.0 } else { 0.0 }];
                    quality.extend(levels.quality(i, j)?);
                    Ok(quality)
                }
                _ => Ok(Vec::new()),
            })?;
        Ok(Designations {
            gold: gold_targets,
            candidate: candidate_targets,
            gold_by_label,
            candidate_by_label,
        })
    }
}

impl Documents<'_> {
    /// One class per pairing of `trials` (numbered as first met), equal for
    /// pairings that pair the same records up to what nothing scored tells apart
    /// (each record as its array and its JSON up to list order, its id left out where
    /// no reference of its document names it), which give the documents one score.
    pub fn alike(&self, scope: ScopeId, trials: &[Pairs]) -> Result<Vec<usize>, AlignError> {
        let field = self
            .id_fields
            .get(scope.index())
            .ok_or(AlignError::Internal("id field"))?;
        let sides = [self.gold, self.candidate].map(|index| {
            let named: BTreeSet<usize> = index.named_records(scope).into_iter().collect();
            (index.scope_records(scope), named, BTreeMap::new())
        });
        let [mut gold, mut candidate] = sides;
        let mut classes: BTreeMap<Vec<(AlikeKey, AlikeKey)>, usize> = BTreeMap::new();
        let mut found = Vec::with_capacity(trials.len());
        for trial in trials {
            let mut key = Vec::with_capacity(trial.len());
            for &(i, j) in trial {
                key.push((
                    alike_key(&mut gold, i, field)?,
                    alike_key(&mut candidate, j, field)?,
                ));
            }
            key.sort();
            let next = classes.len();
            found.push(*classes.entry(key).or_insert(next));
        }
        Ok(found)
    }
}

/// A record as `Documents::alike` sees it: its array's pointer and its JSON up to
/// list order.
type AlikeKey = (String, Vec<u32>);

/// One side of a scope for `Documents::alike`: its records, those a reference names,
/// and the keys made so far.
type AlikeSide<'r> = (&'r [Record<'r>], BTreeSet<usize>, BTreeMap<usize, AlikeKey>);

fn alike_key(side: &mut AlikeSide<'_>, k: usize, field: &str) -> Result<AlikeKey, AlignError> {
    let (records, named, keys) = side;
    if let Some(found) = keys.get(&k) {
        return Ok(found.clone());
    }
    let record = records.get(k).ok_or(AlignError::Internal("alike record"))?;
    let array = record
        .pointer
        .rfind('/')
        .map_or("", |at| &record.pointer[..at]);
    let text = if named.contains(&k) {
        value_key(record.value).0
    } else {
        let value = match record.value {
            Json::Object(entries) => Json::Object(
                entries
                    .iter()
                    .filter(|(key, _)| key != field)
                    .cloned()
                    .collect(),
            ),
            other => other.clone(),
        };
        // value_key's first text is the canonical JSON up to list order
        value_key(&value).0
    };
    let key = (array.to_string(), text);
    keys.insert(k, key.clone());
    Ok(key)
}

/// Python's order of float tuples (no NaN reaches here: C is finite).
fn tuple_order(a: &[f64], b: &[f64]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match x.partial_cmp(y) {
            Some(Ordering::Equal) | None => {}
            Some(other) => return other,
        }
    }
    a.len().cmp(&b.len())
}

/// The record each id designates: among records sharing an id, the one
/// of the highest priority, then the smallest canonical JSON, then the first; and
/// the designated records only canonical JSON chose (others as good, with other
/// JSON), sorted.
fn targets(
    records: &[Record],
    priority: impl Fn(usize) -> Result<Vec<f64>, AlignError>,
) -> Result<(BTreeMap<IdKey, usize>, Vec<usize>), AlignError> {
    // the records by id, each id's in record order: one sorted list, not a map of lists
    let mut keyed: Vec<(&IdKey, usize)> = records
        .iter()
        .enumerate()
        .filter_map(|(index, record)| record.key.as_ref().map(|key| (key, index)))
        .collect();
    keyed.sort_unstable();
    let none: Vec<f64> = Vec::new();
    let mut chosen = Vec::new();
    let mut by_label = Vec::new();
    for group in keyed.chunk_by(|a, b| a.0.cmp(b.0) == Ordering::Equal) {
        let key = group.first().map(|&(key, _)| key.clone());
        let Some(key) = key else { continue };
        if let [(_, only)] = group {
            // an id of one record designates it, by no label (no canonical JSON made)
            chosen.push((key, *only));
            continue;
        }
        let ranked = group
            .iter()
            .map(|&(_, k)| Ok((k, priority(k)?)))
            .collect::<Result<Vec<_>, AlignError>>()?;
        let best = ranked
            .iter()
            .map(|(_, p)| p)
            .max_by(|a, b| tuple_order(a, b))
            .unwrap_or(&none);
        let top: Vec<_> = ranked
            .iter()
            .filter(|(_, p)| tuple_order(p, best) == Ordering::Equal)
            .filter_map(|&(k, _)| Some((DocumentIndex::record_key(records.get(k)?), k)))
            .collect();
        if let Some(&(_, winner)) = top.iter().min() {
            chosen.push((key, winner));
            let texts: BTreeSet<_> = top.iter().map(|(text, _)| text).collect();
            if texts.len() > 1 {
                by_label.push(winner);
            }
        }
    }
    by_label.sort_unstable();
    // in key order already: the map is built in bulk
    Ok((chosen.into_iter().collect(), by_label))
}

impl State {
    /// `_State.adopt`: make `scope`'s pairs its bijection and its record pairs.
    pub fn adopt(&mut self, documents: &Documents<'_>, scope: Paired) -> Result<(), AlignError> {
        let id = scope.scope;
        let mapping = documents.mapping(id, &scope.levels, &scope.pairs)?;
        let (gold, candidate) = documents.records(id);
        let mut pointers = Vec::with_capacity(scope.pairs.len());
        for &(i, j) in &scope.pairs {
            let (g, c) = (
                gold.get(i).ok_or(AlignError::Internal("gold record"))?,
                candidate
                    .get(j)
                    .ok_or(AlignError::Internal("candidate record"))?,
            );
            pointers.push((g.pointer.clone(), c.pointer.clone()));
        }
        self.refs.bijections.insert(id, mapping);
        self.refs.record_pairs.insert(id, pointers);
        self.resolved.insert(id);
        self.paired.insert(id, scope);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::cmp::Ordering;

    use super::tuple_order;

    #[test]
    fn priorities_compare_as_python_tuples() {
        assert_eq!(tuple_order(&[], &[1.0]), Ordering::Less); // no pair: below any
        assert_eq!(
            tuple_order(&[1.0, 0.5], &[1.0, 0.25, 9.0]),
            Ordering::Greater
        );
        assert_eq!(tuple_order(&[1.0, -0.0], &[1.0, 0.0]), Ordering::Equal);
        assert_eq!(tuple_order(&[1.0], &[1.0, 0.0]), Ordering::Less);
    }
}
