//! The engine's refusals raised as `oa_core.errors`' typed errors, with the class,
//! document, pointer, message and fix the Python checks give them: a document that
//! is no plain JSON within the limits ([`Refusal`], `check_json`'s `InputError`), a
//! list over `max_matrix_cells` (an `InputError`), a comparator that
//! failed (`ComparatorError.at` the schema keyword naming it). The engine says what
//! and where; this module only words it.

use oa_engine::align::refer::grouped;
use oa_engine::compare::CompareError;
use oa_engine::score::{OverLimit, Unsupported};
use pyo3::exceptions::{PyException, PyMemoryError, PyRuntimeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::value::{Bounds, MAX_NESTING};

/// What is wrong with a document value (see `oa_core.validation.check_json`).
#[derive(Debug)]
pub(crate) enum Trouble {
    /// Nested deeper than `Limits.max_depth`.
    Depth,
    /// Nested deeper than the engine follows ([`MAX_NESTING`]), within a higher limit.
    EngineDepth,
    /// An array or object of this many items, over `Limits.max_items`.
    Items(usize),
    /// A string of this many characters, over `Limits.max_string_length`.
    StringLength(usize),
    /// An object key that is not a `str`.
    Key(Py<PyAny>),
    /// A string (or, `key`, an object key) holding this lone surrogate.
    Surrogate { surrogate: u32, key: bool },
    /// An integer beyond the float range.
    IntegerRange,
    /// NaN or an infinity.
    NonFinite(f64),
    /// A value of this type, which is no JSON type.
    NotJson(String),
}

/// A document's first problem and where it is.
#[derive(Debug)]
pub(crate) struct Refusal {
    /// The pointer's reference tokens, innermost first (gathered on the way up).
    tokens: Vec<String>,
    trouble: Trouble,
}

impl Refusal {
    pub(crate) fn new(trouble: Trouble) -> Refusal {
        Refusal {
            tokens: Vec::new(),
            trouble,
        }
    }

    /// The refusal seen from the parent of the value at `token`.
    pub(crate) fn below(mut self, token: String) -> Refusal {
        self.tokens.push(token);
        self
    }
}

/// `oa_core.pointer.join` of reference tokens given innermost first.
fn pointer<'t>(tokens: impl DoubleEndedIterator<Item = &'t String>) -> String {
    oa_engine::pointer::of_tokens(tokens.rev().map(String::as_str))
}

fn errors_module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    py.import(intern!(py, "oa_core.errors"))
}

/// An instance of `oa_core.errors.<class>` made with `args` and keywords `kwargs`.
fn typed<'py>(
    py: Python<'py>,
    class: &str,
    args: Bound<'py, PyTuple>,
    kwargs: &Bound<'py, PyDict>,
) -> PyResult<PyErr> {
    let error = errors_module(py)?
        .getattr(class)?
        .call(args, Some(kwargs))?;
    Ok(PyErr::from_value(error))
}

/// The `InputError` `check_json` raises for `refusal` in `document`.
pub(crate) fn input_error(
    py: Python<'_>,
    refusal: &Refusal,
    document: &str,
    bounds: Bounds,
) -> PyResult<PyErr> {
    let at = pointer(refusal.tokens.iter());
    let kwargs = PyDict::new(py);
    kwargs.set_item("document", document)?;
    let (message, fix) = match &refusal.trouble {
        Trouble::Depth => (
            format!("nested deeper than {} levels", bounds.depth),
            "flatten the document, or raise Limits.max_depth",
        ),
        Trouble::EngineDepth => (
            format!("nested deeper than {MAX_NESTING} levels, the deepest the engine follows"),
            "flatten the document",
        ),
        Trouble::Items(count) => (
            format!(
                "{} items, over the limit of {}",
                grouped(*count as u128),
                grouped(bounds.items as u128)
            ),
            "split the document, or raise Limits.max_items",
        ),
        Trouble::StringLength(length) => (
            format!(
                "a string of {} characters, over the limit of {}",
                grouped(*length as u128),
                grouped(bounds.string_length as u128)
            ),
            "shorten it, or raise Limits.max_string_length (edit distances take time \
             quadratic in the length)",
        ),
        Trouble::Key(key) => {
            let shown: String = errors_module(py)?
                .getattr(intern!(py, "preview_json"))?
                .call1((key.bind(py),))?
                .extract()?;
            kwargs.set_item("values", (key.bind(py),))?;
            (
                format!("object key {shown} is not a string"),
                "use string keys",
            )
        }
        Trouble::Surrogate { surrogate, key } => (
            format!(
                "{} holds a lone surrogate (U+{surrogate:04X}), which is not Unicode text",
                if *key { "an object key" } else { "a string" }
            ),
            "decode the source as UTF-8, or replace the character",
        ),
        Trouble::IntegerRange => {
            let errors = errors_module(py)?;
            let range: String = errors.getattr("INTEGER_OUT_OF_RANGE")?.extract()?;
            let fix: String = errors.getattr("INTEGER_OUT_OF_RANGE_FIX")?.extract()?;
            kwargs.set_item("fix", fix)?;
            return typed(
                py,
                "InputError",
                (at, format!("integer {range}")).into_pyobject(py)?,
                &kwargs,
            );
        }
        Trouble::NonFinite(value) => (
            format!(
                "numbers must be finite, got {}",
                if value.is_nan() {
                    "NaN"
                } else if *value > 0.0 {
                    "Infinity"
                } else {
                    "-Infinity"
                }
            ),
            "replace it with a finite number or null",
        ),
        Trouble::NotJson(type_name) => (
            format!("{type_name} is not a JSON value"),
            "convert it to a JSON type (object, array, string, number, boolean, null)",
        ),
    };
    kwargs.set_item("fix", fix)?;
    typed(py, "InputError", (at, message).into_pyobject(py)?, &kwargs)
}

/// The `InputError` of a list whose dense matrix (or positive cells) is over the limit.
fn over_limit(py: Python<'_>, over: &OverLimit) -> PyResult<PyErr> {
    let needs = if over.positive {
        format!("{} positive scores", grouped(over.cells as u128))
    } else {
        format!("{} scores", grouped(over.cells as u128))
    };
    let message = format!(
        "comparing {} gold with {} candidate elements needs {needs}, over the limit of {}",
        over.gold,
        over.candidate,
        grouped(over.limit as u128)
    );
    let fix = if over.positive {
        "raise Limits.max_matrix_cells if the memory is there, or split the list"
    } else {
        "raise Limits.max_matrix_cells if the memory is there (8 bytes a score), or split \
         the list"
    };
    let kwargs = PyDict::new(py);
    kwargs.set_item("fix", fix)?;
    typed(
        py,
        "InputError",
        (over.pointer(), message).into_pyobject(py)?,
        &kwargs,
    )
}

/// The `ComparatorError` of a comparator that failed under the schema keyword at
/// `at`: a custom comparator's own (raised by `Comparator.scalar`) moved there by
/// `ComparatorError.at`, or one naming the failure; an exception that is no
/// `Exception` (a `KeyboardInterrupt`, a `SystemExit`) as it was raised.
fn comparator_error(py: Python<'_>, at: &str, error: &CompareError) -> PyResult<PyErr> {
    let kwargs = PyDict::new(py);
    let CompareError::External(external) = error else {
        kwargs.set_item("comparator", error_comparator(error))?;
        kwargs.set_item(
            "fix",
            "make the values comparable by this comparator, or choose another comparator",
        )?;
        return typed(
            py,
            "ComparatorError",
            (at, format!("comparator failed: {error}")).into_pyobject(py)?,
            &kwargs,
        );
    };
    let raised = external
        .cause
        .as_deref()
        .and_then(|cause| (cause as &(dyn std::error::Error + 'static)).downcast_ref::<PyErr>());
    let comparator_class = errors_module(py)?.getattr(intern!(py, "ComparatorError"))?;
    if let Some(raised) = raised {
        if !raised.is_instance_of::<PyException>(py) {
            return Ok(raised.clone_ref(py));
        }
        let value = raised.value(py);
        if value.is_instance(&comparator_class)? {
            // `raise exc.at(pointer) from exc.__cause__`
            let located = value.call_method1(intern!(py, "at"), (at,))?;
            return Ok(PyErr::from_value(located));
        }
    }
    // a failure the registry's checked form did not word (not a `Comparator` of
    // `oa_core.comparators`, or no similarity back): worded here, the cause chained
    kwargs.set_item("comparator", &external.comparator)?;
    kwargs.set_item(
        "fix",
        "fix the comparator so that it returns a number in [0, 1] for every pair",
    )?;
    let message = match raised {
        Some(raised) => format!(
            "custom comparator '{}' raised {}: {}",
            external.comparator,
            raised.get_type(py).name()?,
            raised.value(py)
        ),
        None => format!(
            "custom comparator '{}' {}",
            external.comparator, external.message
        ),
    };
    let error = comparator_class.call((at, message), Some(&kwargs))?;
    if let Some(raised) = raised {
        error.setattr(intern!(py, "__cause__"), raised.value(py))?;
    }
    Ok(PyErr::from_value(error))
}

/// The comparator a built-in's error names.
fn error_comparator(error: &CompareError) -> String {
    match error {
        CompareError::Kind { comparator, .. } => comparator.to_string(),
        _ => String::new(),
    }
}

/// A scorer's result for Python: the value; `None` only for a records array paired
/// by pointer reached without its pointers (the caller's to provide); else the
/// refusal raised as its typed `oa_core.errors` class (see the module),
/// and an engine fault as a `RuntimeError` (a `MemoryError` for a matrix that does
/// not fit).
pub(crate) fn declined<T>(result: Result<T, Unsupported>) -> PyResult<Option<T>> {
    let refusal = match result {
        Ok(value) => return Ok(Some(value)),
        Err(Unsupported::Untracked) => return Ok(None),
        Err(refusal) => refusal,
    };
    Python::attach(|py| {
        Err(match &refusal {
            Unsupported::ComparatorAt { pointer, error } => comparator_error(py, pointer, error)?,
            Unsupported::OverLimit(over) => over_limit(py, over)?,
            Unsupported::MatrixCells => {
                PyMemoryError::new_err("a score matrix does not fit in memory")
            }
            other => PyRuntimeError::new_err(format!("the engine failed (a bug): {other}")),
        })
    })
}
