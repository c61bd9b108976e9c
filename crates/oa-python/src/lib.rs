//! `oa_core._engine`: the Python face of `oa-engine`. Keep it thin: convert values and
//! errors here, and put every rule in `oa-engine`.

use pyo3::prelude::*;

/// The version of the Rust engine, for `oa --version` and benchmark headers.
#[pyfunction]
fn engine_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// `exact` on two strings (a smoke test of the build; the real comparators follow).
#[pyfunction]
fn exact_str(gold: &str, candidate: &str) -> f64 {
    oa_engine::compare::exact(gold, candidate)
}

#[pymodule]
fn _engine(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(engine_version, module)?)?;
    module.add_function(wrap_pyfunction!(exact_str, module)?)?;
    Ok(())
}
