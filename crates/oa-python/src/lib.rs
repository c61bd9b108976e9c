//! `oa_core._engine`: the Python face of `oa-engine`. Keep it thin: convert values and
//! errors here, and put every rule in `oa-engine`.

use pyo3::prelude::*;

mod align;
mod align_scopes;
mod compare;
mod errors;
mod jsontext;
mod refer;
mod resolve;
mod score;
mod shape;
mod state;
mod strategy;
mod ties;
mod tree;
mod value;

/// The version of the Rust engine, for `oa --version` and benchmark headers.
#[pyfunction]
fn engine_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _engine(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(engine_version, module)?)?;
    compare::register(module)?;
    align::register(module)?;
    score::register(module)?;
    shape::register(module)?;
    tree::register(module)?;
    strategy::register(module)?;
    refer::register(module)?;
    ties::register(module)?;
    resolve::register(module)?;
    align_scopes::register(module)?;
    jsontext::register(module)?;
    Ok(())
}
