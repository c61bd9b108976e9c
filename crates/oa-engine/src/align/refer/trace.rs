//! `align_scopes`: the resolution `resolve_and_score` makes, with everything
//! `oa_core.align` shows of it: per scope what a `ScopeAlignment` holds (C, b, a, the
//! pairs, twins, the rule that decided each pair, label ties and designations), the
//! bijection by record, the refined graph of its group (a `WLTrace`), and the records
//! the `missing-id` and `duplicate-id` warnings name. The texts of the warnings and the
//! records' display labels are the caller's (they quote the documents' values as Python
//! writes them). The resolution itself comes with it: what the final scoring pass
//! (`align()`'s match tree) is scored under.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::index::DocumentIndex;
use super::resolve::{id_fields, resolved, Mode, ResolveError, ScopeScores, Trace};
use super::schema::ScopeSchema;
use super::state::{Documents, Paired, Referential};
use crate::align::{twin_pairs, AlignError, Matrix, Pairs, TieRule};
use crate::plan::ScopeId;
use crate::value::IdKey;

/// The WL agreements of a scope's records: b, the rounds of agreement, and the
/// number of rounds (a is their quotient).
#[derive(Debug)]
pub struct Agreement {
    pub same: Matrix<f64>,
    pub depth: Matrix<i64>,
    pub rounds: usize,
}

/// A record a `missing-id` or `duplicate-id` warning names, on one side (`gold`: true).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdWarning {
    /// The record has no identifier (no id, or one of a kind that identifies nothing).
    Missing { gold: bool, record: usize },
    /// The record's id repeats that of `first`; references to it reach `target`.
    Duplicate {
        gold: bool,
        record: usize,
        first: usize,
        target: usize,
    },
}

/// One scope's alignment (`ScopeAlignment`), its bijection by record and its trace.
#[derive(Debug)]
pub struct ScopeReport {
    pub scope: ScopeId,
    pub matrix: Matrix<f64>,
    pub agreement: Option<Agreement>,
    pub pairs: Pairs,
    pub structural_pairs: Pairs,
    pub rules: BTreeMap<(usize, usize), TieRule>,
    pub label_ties: Pairs,
    /// Gold records first, then candidate ones (`label_designations` by index).
    pub gold_designations: Vec<usize>,
    pub candidate_designations: Vec<usize>,
    /// Each gold id, as its first record, with the candidate record it maps to.
    pub bijection: Vec<(usize, Option<usize>)>,
    /// The refined graph of the scope's group, an index into [`Aligned::traces`]
    /// (the group's scopes share it).
    pub trace: Option<usize>,
    pub warnings: Vec<IdWarning>,
}

/// Every scope's report, in resolution order, the refined graphs they name, and the
/// resolution the documents are scored under.
#[derive(Debug)]
pub struct Aligned {
    pub scopes: Vec<ScopeReport>,
    pub traces: Vec<Trace>,
    pub refs: Referential,
}

/// The resolution of `groups` (resolution order, a cycle's scopes
/// together), scope by scope in that order.
pub fn align_scopes(
    schema: &ScopeSchema,
    gold: &DocumentIndex,
    candidate: &DocumentIndex,
    groups: &[Vec<ScopeId>],
    mode: Mode,
    scores: &mut dyn ScopeScores,
) -> Result<Aligned, ResolveError> {
    let (id_fields, block_by) = id_fields(schema)?;
    let mut state = resolved(
        schema, gold, candidate, groups, mode, scores, &id_fields, block_by,
    )?;
    let documents = Documents {
        gold,
        candidate,
        id_fields: &id_fields,
    };
    let mut scopes = Vec::new();
    let mut shared: Vec<Rc<Trace>> = Vec::new();
    for &scope in groups.iter().flatten() {
        let paired = state
            .paired
            .remove(&scope)
            .ok_or(AlignError::Internal("a scope left unpaired"))?;
        let trace = state.traces.remove(&scope);
        let rounds = trace.as_ref().map(|t| t.rounds.len());
        let at = trace.map(|trace| {
            shared
                .iter()
                .position(|known| Rc::ptr_eq(known, &trace))
                .unwrap_or_else(|| {
                    shared.push(trace);
                    shared.len() - 1
                })
        });
        let mut found = report(&documents, paired, rounds)?;
        found.trace = at;
        scopes.push(found);
    }
    let refs = std::mem::take(&mut state.refs);
    // the traces are then held by `shared` only (unwrapped, not copied)
    drop(state);
    let traces = shared
        .into_iter()
        .map(|trace| Rc::try_unwrap(trace).unwrap_or_else(|kept| (*kept).clone()))
        .collect();
    Ok(Aligned {
        scopes,
        traces,
        refs,
    })
}

fn report(
    documents: &Documents<'_>,
    paired: Paired,
    rounds: Option<usize>,
) -> Result<ScopeReport, ResolveError> {
    let scope = paired.scope;
    let found = documents.designations(scope, &paired.levels, &paired.pairs)?;
    let images = documents.images(scope, &found, &paired.pairs)?;
    let (gold, candidate) = documents.records(scope);
    let mut bijection = Vec::with_capacity(images.len());
    let mut seen: BTreeSet<&IdKey> = BTreeSet::new();
    for (i, record) in gold.iter().enumerate() {
        if let Some(key) = &record.key {
            if seen.insert(key) {
                bijection.push((i, images.get(key).copied().flatten()));
            }
        }
    }
    let mut warnings = id_warnings(gold, true, &found.gold);
    warnings.extend(id_warnings(candidate, false, &found.candidate));
    let levels = &paired.levels;
    let agreement = match (&levels.structure, rounds) {
        (Some((same, depth)), Some(rounds)) => Some(Agreement {
            same: same.clone(),
            depth: depth.clone(),
            rounds,
        }),
        _ => None,
    };
    Ok(ScopeReport {
        scope,
        structural_pairs: twin_pairs(&levels.matrix, &paired.pairs)?,
        matrix: levels.matrix.clone(),
        agreement,
        rules: paired.rules,
        pairs: paired.pairs,
        label_ties: paired.label_ties,
        gold_designations: found.gold_by_label,
        candidate_designations: found.candidate_by_label,
        bijection,
        trace: None,
        warnings,
    })
}

/// Each record without an identifier, and each record whose id
/// repeats an earlier record's (with that record and the id's designated one).
fn id_warnings(
    records: &[super::index::Record],
    gold: bool,
    targets: &BTreeMap<IdKey, usize>,
) -> Vec<IdWarning> {
    let mut first: BTreeMap<&IdKey, usize> = BTreeMap::new();
    let mut found = Vec::new();
    for (record, entry) in records.iter().enumerate() {
        let Some(key) = &entry.key else {
            found.push(IdWarning::Missing { gold, record });
            continue;
        };
        match first.get(key) {
            None => {
                first.insert(key, record);
            }
            Some(&earlier) => found.push(IdWarning::Duplicate {
                gold,
                record,
                first: earlier,
                target: targets.get(key).copied().unwrap_or(earlier),
            }),
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::{align_scopes, IdWarning};
    use crate::align::refer::fixture::schema;
    use crate::align::refer::{index_document, Mode, Referential, ResolveError, ScopeScores};
    use crate::align::{Matrix, TieRule, WlMode};
    use crate::compare::Value;
    use crate::plan::ScopeId;
    use crate::value::Json;

    /// C: 1 for records of the same tag, 0.5 otherwise; the documents score 0.
    struct Tags;

    fn tag(record: &Json) -> Option<&Json> {
        match record {
            Json::Object(entries) => entries.iter().find(|(k, _)| k == "tag").map(|(_, v)| v),
            _ => None,
        }
    }

    impl ScopeScores for Tags {
        fn matrix(
            &mut self,
            _scope: ScopeId,
            golds: &[&Json],
            candidates: &[&Json],
            _refs: &Referential,
            _unresolved: &BTreeSet<ScopeId>,
        ) -> Result<Matrix<f64>, ResolveError> {
            let data = golds
                .iter()
                .flat_map(|g| {
                    candidates
                        .iter()
                        .map(move |c| if tag(g) == tag(c) { 1.0 } else { 0.5 })
                })
                .collect();
            Ok(Matrix::new(golds.len(), candidates.len(), data)?)
        }

        fn document(
            &mut self,
            _refs: &Referential,
            _unresolved: &BTreeSet<ScopeId>,
        ) -> Result<f64, ResolveError> {
            Ok(0.0)
        }
    }

    fn person(id: Option<&str>, boss: Option<&str>, tag: &str) -> Json {
        let mut fields = Vec::new();
        if let Some(id) = id {
            fields.push(("id".into(), Json::Leaf(Value::from(id))));
        }
        if let Some(boss) = boss {
            fields.push(("boss".into(), Json::Leaf(Value::from(boss))));
        }
        fields.push(("tag".into(), Json::Leaf(Value::from(tag))));
        Json::object(fields)
    }

    fn document(people: Vec<Json>) -> Json {
        Json::object(vec![("people".into(), Json::Array(people))])
    }

    #[test]
    fn the_report_shows_pairs_bijection_trace_and_id_warnings() {
        let schema = schema();
        let gold = document(vec![
            person(Some("a"), None, "x"),
            person(Some("b"), Some("a"), "y"),
            person(Some("a"), None, "z"),
            person(None, None, "w"),
        ]);
        let candidate = document(vec![
            person(Some("q"), Some("p"), "y"),
            person(Some("p"), None, "x"),
        ]);
        let (gold, candidate) = (
            index_document(&gold, &schema, 64).unwrap(),
            index_document(&candidate, &schema, 64).unwrap(),
        );
        let (people, teams) = (
            schema.plan().scope_id("person").unwrap(),
            schema.plan().scope_id("team").unwrap(),
        );
        let mode = Mode {
            wl: WlMode::TieBreak,
            wl_lambda: 0.5,
            max_matrix_cells: 100,
            describe: true,
        };
        let groups = [vec![teams], vec![people]];
        let aligned = align_scopes(&schema, &gold, &candidate, &groups, mode, &mut Tags).unwrap();
        let [team, person] = aligned.scopes.as_slice() else {
            panic!("two scopes");
        };
        assert!(team.pairs.is_empty() && team.trace.is_none()); // no team records
        assert_eq!(person.pairs, vec![(0, 1), (1, 0)]);
        assert_eq!(person.rules.get(&(0, 1)), Some(&TieRule::Attributes));
        // gold "a" is its first record's (paired), "b" maps to "q"
        assert_eq!(person.bijection, vec![(0, Some(1)), (1, Some(0))]);
        assert_eq!(
            person.warnings,
            vec![
                IdWarning::Duplicate {
                    gold: true,
                    record: 2,
                    first: 0,
                    target: 0
                },
                IdWarning::Missing {
                    gold: true,
                    record: 3
                },
            ]
        );
        let trace = aligned.traces.get(person.trace.unwrap()).unwrap();
        assert_eq!(trace.gold_vertices, 4);
        let agreement = person.agreement.as_ref().unwrap();
        assert_eq!(agreement.rounds, trace.rounds.len());
        assert_eq!((agreement.same.rows(), agreement.same.cols()), (4, 2));
    }
}
