//! The scorer as the scope resolution asks it (`align::refer::ScopeScores`): a
//! scope's C matrix and the documents' score under a resolution in progress, each
//! under the [`RefState`] made of it (`record_matrix` and `document_score` of
//! `oa_core/aligner.py`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::refs::{IdKey, RecordPairs, RefState};
use super::{Json, Limits, MapCache, Scorer, Unsupported};
use crate::align::refer::{Bijection, Referential, ResolveError, ScopeScores};
use crate::align::Matrix;
use crate::plan::{NodeId, Plan, ScopeId};

/// Two documents scored under a plan with scopes; `records`: each scope's record
/// node (the items of its records array), what C is scored under.
pub struct ScopedDocuments<'a> {
    pub plan: &'a Plan,
    pub limits: Limits,
    pub cache: &'a mut MapCache,
    pub gold: &'a Json,
    pub candidate: &'a Json,
    pub records: &'a BTreeMap<ScopeId, NodeId>,
    /// The states of the calls so far (the default to begin with).
    pub states: States,
}

pub(super) fn declined(error: Unsupported) -> ResolveError {
    ResolveError::Score(Arc::new(error))
}

fn key(value: &Json) -> Result<IdKey, ResolveError> {
    IdKey::of(value)
        .map_err(declined)?
        .ok_or(ResolveError::Declined("an identifier that is no key"))
}

/// The states the last matrix and document calls read, kept to be patched: a
/// resolution changes a scope or two between calls.
#[derive(Debug, Default)]
pub struct States {
    matrix: Made,
    document: Made,
}

/// A state and what each scope's part of it was made of (the resolution's
/// bijection, candidate ids and record pairs of the scope, as read).
#[derive(Debug, Default)]
struct Made {
    state: RefState,
    sources: BTreeMap<ScopeId, Source>,
}

#[derive(Debug, Default, PartialEq)]
struct Source {
    bijection: Option<Bijection>,
    candidate_ids: Option<BTreeSet<IdKey>>,
    pairs: Option<Vec<(String, String)>>,
    /// Whether the state has an entry for the scope.
    entry: bool,
}

impl Made {
    /// The state `Scorer(bijections, candidate_ids, unresolved, record_pairs)`
    /// reads, made of `refs` again only where a scope's part differs from what
    /// the kept state was made of. A part the state must no longer have (it has
    /// no removal) starts the state over; so does an error, the state then being
    /// half made.
    fn patch(
        &mut self,
        plan: &Plan,
        refs: &Referential,
        unresolved: &BTreeSet<ScopeId>,
        with_pairs: bool,
    ) -> Result<&RefState, ResolveError> {
        let pairs = with_pairs.then_some(&refs.record_pairs);
        let entry = |scope: &ScopeId| {
            refs.bijections.contains_key(scope)
                || refs.candidate_ids.contains_key(scope)
                || unresolved.contains(scope)
        };
        let paired = |scope: &ScopeId| pairs.is_some_and(|pairs| pairs.contains_key(scope));
        let stale = self.sources.iter().any(|(scope, source)| {
            (source.entry && !entry(scope)) || (source.pairs.is_some() && !paired(scope))
        });
        if stale {
            *self = Made::default();
        }
        let scopes: BTreeSet<ScopeId> = refs
            .bijections
            .keys()
            .chain(refs.candidate_ids.keys())
            .chain(unresolved)
            .chain(pairs.into_iter().flat_map(BTreeMap::keys))
            .copied()
            .collect();
        for scope in scopes {
            if let Err(error) = self.scope(plan, refs, unresolved, pairs, scope) {
                *self = Made::default();
                return Err(error);
            }
        }
        Ok(&self.state)
    }

    /// One scope's part made again where its sources changed.
    fn scope(
        &mut self,
        plan: &Plan,
        refs: &Referential,
        unresolved: &BTreeSet<ScopeId>,
        pairs: Option<&BTreeMap<ScopeId, Vec<(String, String)>>>,
        scope: ScopeId,
    ) -> Result<(), ResolveError> {
        let bijection = refs.bijections.get(&scope);
        let candidate_ids = refs.candidate_ids.get(&scope);
        let pairs = pairs.and_then(|pairs| pairs.get(&scope));
        let entry = bijection.is_some() || candidate_ids.is_some() || unresolved.contains(&scope);
        let source = self.sources.entry(scope).or_default();
        let same_entry = source.entry == entry
            && source.bijection.as_ref() == bijection
            && source.candidate_ids.as_ref() == candidate_ids;
        if entry && !same_entry {
            let part = self.state.scope_mut(scope);
            part.bijection.clear();
            for (gold, image) in bijection.into_iter().flatten() {
                let image = image.as_ref().map(key).transpose()?;
                part.bijection.insert(gold.clone(), image);
            }
            part.candidate_ids = candidate_ids.cloned().unwrap_or_default();
            source.bijection = bijection.cloned();
            source.candidate_ids = candidate_ids.cloned();
            source.entry = true;
        }
        if entry {
            self.state.scope_mut(scope).unresolved = unresolved.contains(&scope);
        }
        if let Some(found) = pairs.filter(|&found| source.pairs.as_ref() != Some(found)) {
            let records = plan.scope(scope).map_err(|e| declined(e.into()))?.records;
            let pairs = found.iter().cloned().collect();
            self.state
                .pair_records(records, RecordPairs { scope, pairs });
            source.pairs = Some(found.clone());
        }
        Ok(())
    }
}

impl ScopedDocuments<'_> {
    /// The state `Scorer(bijections, candidate_ids, unresolved, record_pairs)` reads,
    /// made afresh.
    pub(super) fn state(
        &self,
        refs: &Referential,
        unresolved: &BTreeSet<ScopeId>,
        with_pairs: bool,
    ) -> Result<RefState, ResolveError> {
        let mut made = Made::default();
        made.patch(self.plan, refs, unresolved, with_pairs)?;
        Ok(made.state)
    }
}

impl ScopeScores for ScopedDocuments<'_> {
    fn matrix(
        &mut self,
        scope: ScopeId,
        golds: &[&Json],
        candidates: &[&Json],
        refs: &Referential,
        unresolved: &BTreeSet<ScopeId>,
    ) -> Result<Matrix<f64>, ResolveError> {
        let node = *self
            .records
            .get(&scope)
            .ok_or(ResolveError::Declined("a scope without its record node"))?;
        let state = self
            .states
            .matrix
            .patch(self.plan, refs, unresolved, false)?;
        Scorer::new(self.plan, self.limits, self.cache)
            .with_state(state)
            .score_matrix(golds, candidates, node, None)
            .map_err(declined)
    }

    fn document(
        &mut self,
        refs: &Referential,
        unresolved: &BTreeSet<ScopeId>,
    ) -> Result<f64, ResolveError> {
        let state = self
            .states
            .document
            .patch(self.plan, refs, unresolved, true)?;
        Scorer::new(self.plan, self.limits, self.cache)
            .with_state(state)
            .score(self.gold, self.candidate)
            .map_err(declined)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::align::refer::fixture::schema;
    use crate::compare::Value;

    fn text(value: &str) -> Json {
        Json::Leaf(Value::from(value))
    }

    fn id(value: &str) -> IdKey {
        IdKey::of(&text(value)).unwrap().unwrap()
    }

    #[test]
    fn a_patched_state_is_the_state_made_afresh() {
        let schema = schema();
        let plan = schema.plan();
        let (person, team) = (
            plan.scope_id("person").unwrap(),
            plan.scope_id("team").unwrap(),
        );
        let bijection = |pairs: &[(&str, Option<&str>)]| -> Bijection {
            pairs
                .iter()
                .map(|&(gold, image)| (id(gold), image.map(text)))
                .collect()
        };
        let pointers = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|&(g, c)| (g.to_owned(), c.to_owned()))
                .collect()
        };
        let mut refs = Referential::default();
        let mut steps: Vec<(Referential, BTreeSet<ScopeId>)> = Vec::new();
        steps.push((refs.clone(), BTreeSet::from([person, team])));
        refs.candidate_ids
            .insert(team, BTreeSet::from([id("red"), id("blue")]));
        steps.push((refs.clone(), BTreeSet::from([person, team])));
        refs.bijections
            .insert(team, bijection(&[("red", Some("blue")), ("rot", None)]));
        refs.record_pairs
            .insert(team, pointers(&[("/teams/0", "/teams/1")]));
        steps.push((refs.clone(), BTreeSet::from([person])));
        // a trial: one scope's pairing replaced, then the one before again
        let mut trial = refs.clone();
        trial
            .bijections
            .insert(team, bijection(&[("red", None), ("rot", Some("red"))]));
        trial
            .record_pairs
            .insert(team, pointers(&[("/teams/1", "/teams/0")]));
        steps.push((trial, BTreeSet::from([person])));
        steps.push((refs.clone(), BTreeSet::from([person])));
        refs.candidate_ids.insert(person, BTreeSet::from([id("x")]));
        refs.bijections
            .insert(person, bijection(&[("x", Some("x"))]));
        refs.record_pairs
            .insert(person, pointers(&[("/people/0", "/people/0")]));
        steps.push((refs.clone(), BTreeSet::new()));
        // parts the state must lose: it starts over
        steps.push((Referential::default(), BTreeSet::from([team])));
        steps.push((refs.clone(), BTreeSet::new()));
        for with_pairs in [false, true] {
            let mut made = Made::default();
            for (k, (refs, unresolved)) in steps.iter().enumerate() {
                let mut fresh = Made::default();
                let expected = fresh.patch(plan, refs, unresolved, with_pairs).unwrap();
                let patched = made.patch(plan, refs, unresolved, with_pairs).unwrap();
                assert_eq!(patched, expected, "step {k}, pairs {with_pairs}");
            }
        }
        // what a fresh state holds, read through its own accessors
        let mut made = Made::default();
        let state = made
            .patch(plan, &refs, &BTreeSet::from([team]), true)
            .unwrap();
        assert!(state.unresolved(team) && !state.unresolved(person));
        let records = plan.scope(person).unwrap().records;
        assert_eq!(state.record_pairs(records).map(|p| p.pairs.len()), Some(1));
        assert_eq!(
            state.scope(team).unwrap().bijection.get(&id("red")),
            Some(&Some(id("blue")))
        );
    }
}
