//! `resolve_score`: a scoped document pair resolved and scored in one call
//! (`oa_engine::align::refer::resolve_and_score` under the scorer of `ScorePlan`);
//! `None` wherever Python must do it (it then raises what is the user's to fix).

use std::collections::BTreeMap;

use oa_engine::align::refer::{
    index_document, resolve_and_score, DocumentIndex, Mode, OwnedIndex, ResolveError, ScopeSchema,
    TooBig,
};
use oa_engine::align::WlMode;
use oa_engine::plan::ScopeId;
use oa_engine::score::{ScopedDocuments, Unsupported};
use oa_engine::value::NonFiniteNumber;
use pyo3::prelude::*;
use pyo3::types::IntoPyDict;

use crate::errors::declined;
use crate::refer::ReferPlan;
use crate::score::{documents, read_limits, ScorePlan};
use crate::value::{convert, recycle, MAX_NESTING};

/// A gold converted and indexed once under a `ReferPlan` and limits
/// (`oa_core.PreparedGold` keeps it), so that each score converts and indexes only
/// the candidate.
#[pyclass(frozen, module = "oa_core._engine")]
pub struct NativeGold {
    gold: OwnedIndex,
}

#[pymethods]
impl NativeGold {
    /// Never changed once made: copies share it (a `PreparedGold` holding one stays
    /// deep-copyable).
    fn __copy__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    fn __deepcopy__<'py>(slf: Bound<'py, Self>, _memo: &Bound<'py, PyAny>) -> Bound<'py, Self> {
        slf
    }
}

/// The gold converted and indexed under `refer` and `limits`; None where Python must
/// do it (a document Rust does not take).
#[pyfunction]
fn prepare_resolved_gold(
    refer: &ReferPlan,
    gold: &Bound<'_, PyAny>,
    limits: &Bound<'_, PyAny>,
) -> PyResult<Option<NativeGold>> {
    let (bounds, limits) = read_limits(limits)?;
    let gold = convert(gold, bounds, "gold")?;
    Ok(OwnedIndex::new(gold, &refer.schema, limits.max_depth)
        .ok()
        .map(|gold| NativeGold { gold }))
}

/// The inputs of a resolution as Python gives them: the scope schema and the
/// scorer's plan, the documents (the gold possibly a `NativeGold`), the limits, the
/// resolution groups, each scope's record node by pointer, the WL mode and lambda.
pub(crate) struct Request<'a, 'py> {
    pub refer: &'a ReferPlan,
    pub plan: &'a ScorePlan,
    pub gold: &'a Bound<'py, PyAny>,
    pub candidate: &'a Bound<'py, PyAny>,
    pub limits: &'a Bound<'py, PyAny>,
    pub groups: Vec<Vec<String>>,
    pub records: BTreeMap<String, String>,
    pub mode: &'a str,
    pub wl_lambda: f64,
    /// Whether what `align()` shows is wanted (`Mode::describe`).
    pub describe: bool,
}

/// What a resolution reads: the schema, both indexes, the groups, the mode and the
/// scorer (with the documents it scores, for a last pass over them).
pub(crate) type Resolve<'r, T> = dyn FnOnce(
        &ScopeSchema,
        &DocumentIndex,
        &DocumentIndex,
        &[Vec<ScopeId>],
        Mode,
        &mut ScopedDocuments<'_>,
    ) -> Result<T, ResolveError>
    + Send
    + 'r;

/// `run` on the converted and indexed documents under the scorer of `plan`; None
/// where Python must resolve them (a construct or document Rust leaves to it), an
/// error a custom comparator raised raised as it was.
pub(crate) fn resolving<T: Send>(
    py: Python<'_>,
    request: Request<'_, '_>,
    run: Box<Resolve<'_, T>>,
) -> PyResult<Option<T>> {
    let Request {
        refer,
        plan,
        gold,
        candidate,
        limits,
        groups,
        records,
        mode,
        wl_lambda,
        describe,
    } = request;
    let Some(wl) = WlMode::parse(mode) else {
        return Ok(None);
    };
    let prepared = gold.cast::<NativeGold>().ok().map(Bound::get);
    let (own_gold, candidate, limits) = if prepared.is_some() {
        let (bounds, limits) = read_limits(limits)?;
        (None, convert(candidate, bounds, "candidate")?, limits)
    } else {
        let (gold, candidate, limits) = documents(gold, candidate, limits)?;
        // a gold that violates the schema is Python's to name (a prepared one was
        // checked when it was prepared)
        if plan
            .shape
            .as_ref()
            .is_some_and(|shape| !shape.accepts(&gold))
        {
            return Ok(None);
        }
        (Some(gold), candidate, limits)
    };
    let schema = &refer.schema;
    let mut ids = Vec::with_capacity(groups.len());
    for group in &groups {
        let mut members = Vec::with_capacity(group.len());
        for name in group {
            let Some(scope) = schema.plan().scope_id(name) else {
                return Ok(None);
            };
            members.push(scope);
        }
        ids.push(members);
    }
    let mut nodes = BTreeMap::new();
    for (name, pointer) in &records {
        let (Some(scope), Some(&node)) = (plan.plan.scope_id(name), plan.pointers.get(pointer))
        else {
            return Ok(None);
        };
        nodes.insert(scope, node);
    }
    let resolved = py.detach(|| {
        let own_index;
        let (gold, gold_index) = match (prepared, &own_gold) {
            (Some(prepared), _) => (prepared.gold.document(), prepared.gold.index()),
            (None, Some(gold)) => {
                let Ok(index) = index_document(gold, schema, limits.max_depth) else {
                    return Ok(None);
                };
                own_index = index;
                (gold, &own_index)
            }
            (None, None) => return Ok(None),
        };
        let Ok(candidate_index) = index_document(&candidate, schema, limits.max_depth) else {
            return Ok(None);
        };
        let mut cache = plan.lock()?;
        let mut scores = ScopedDocuments {
            plan: &plan.plan,
            limits,
            cache: &mut cache,
            gold,
            candidate: &candidate,
            records: &nodes,
        };
        let mode = Mode {
            wl,
            wl_lambda,
            max_matrix_cells: limits.max_matrix_cells,
            describe,
        };
        match run(
            schema,
            gold_index,
            &candidate_index,
            &ids,
            mode,
            &mut scores,
        ) {
            Ok(found) => Ok(Some(found)),
            Err(ResolveError::Limit(error)) => Python::attach(|py| Err(too_big(py, &error))),
            // the scorer's own refusal: an interruption a custom comparator raised is
            // raised here, any other refusal leaves the documents to Python
            Err(ResolveError::Score(error)) => {
                // blocking a scope (below the scorer) refuses a NaN with the value
                // model's own error: the scorer's refusal of it, as Python reports it
                let refusal = error.downcast_ref::<Unsupported>().cloned().or_else(|| {
                    error
                        .downcast_ref::<NonFiniteNumber>()
                        .map(|&error| Unsupported::from(error))
                });
                match refusal {
                    Some(refusal) => declined::<T>(Err(refusal)),
                    None => Ok(None),
                }
            }
            Err(_) => Ok(None),
        }
    });
    // the documents' buffers serve the next conversions on this thread
    recycle(candidate);
    if let Some(gold) = own_gold {
        recycle(gold);
    }
    resolved
}

/// The score of `candidate` against `gold` with every scope resolved group by group (C,
/// then the WL bonus b, the agreement depth a, the content rule): `groups`, the scopes
/// in resolution order; `records`, each scope's record node by its pointer; `mode`, a
/// `WLMode` value. None where Python must resolve or score them. `gold` may be a
/// `NativeGold` made under the same `refer` and `limits`: it is then neither converted
/// nor indexed again. A score says both documents pass `oa_core.validation.check_json`
/// under `limits` and, when `plan` validates, that the gold satisfies the schema.
#[pyfunction]
#[pyo3(signature = (refer, plan, gold, candidate, limits, groups, records, mode, wl_lambda))]
#[allow(clippy::too_many_arguments)] // the resolution's inputs, one by one
fn resolve_score(
    py: Python<'_>,
    refer: &ReferPlan,
    plan: &ScorePlan,
    gold: &Bound<'_, PyAny>,
    candidate: &Bound<'_, PyAny>,
    limits: &Bound<'_, PyAny>,
    groups: Vec<Vec<String>>,
    records: BTreeMap<String, String>,
    mode: &str,
    wl_lambda: f64,
) -> PyResult<Option<f64>> {
    let request = Request {
        refer,
        plan,
        gold,
        candidate,
        limits,
        groups,
        records,
        mode,
        wl_lambda,
        describe: false,
    };
    resolving(
        py,
        request,
        Box::new(|schema, gold, candidate, groups, mode, scores| {
            resolve_and_score(schema, gold, candidate, groups, mode, scores)
        }),
    )
}

/// A `TooBig` refusal as `oa_core.errors.InputError`: a scope whose C matrix is over
/// `max_matrix_cells`, the user's to fix.
fn too_big(py: Python<'_>, error: &TooBig) -> PyErr {
    let raised = || -> PyResult<PyErr> {
        let class = py.import("oa_core.errors")?.getattr("InputError")?;
        let fix = [("fix", TooBig::FIX)].into_py_dict(py)?;
        let made = class.call((error.pointer.as_str(), error.to_string()), Some(&fix))?;
        Ok(PyErr::from_value(made))
    };
    raised().unwrap_or_else(|failed| failed)
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    // a resolution's conversion refuses a document nested deeper (under a higher
    // max_depth) where check_json accepts it: Python checks such documents first
    module.add("MAX_NESTING", MAX_NESTING)?;
    module.add_class::<NativeGold>()?;
    module.add_function(wrap_pyfunction!(prepare_resolved_gold, module)?)?;
    module.add_function(wrap_pyfunction!(resolve_score, module)?)?;
    Ok(())
}
