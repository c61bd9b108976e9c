//! Python bindings of `oa_engine::compare`.

use pyo3::prelude::*;

/// `exact` on two strings.
#[pyfunction]
fn exact_str(gold: &str, candidate: &str) -> f64 {
    oa_engine::compare::exact(gold, candidate)
}

pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(exact_str, module)?)?;
    Ok(())
}
