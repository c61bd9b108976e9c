//! `oa_core._engine`: the Python face of `oa-engine`. Keep it thin: convert values and
//! errors here, and put every rule in `oa-engine`.

use pyo3::prelude::*;

mod align;
mod align_scopes;
mod compare;
mod errors;
mod jsontext;
mod jsonwrite;
mod refer;
mod resolve;
mod score;
mod shape;
mod state;
mod strategy;
mod ties;
mod tree;
mod value;

/// glibc's malloc and free took about a third of an engine call (callgrind); jemalloc's
/// thread caches make the engine's many short-lived allocations cheap. Python dlopen()s
/// the extension after its threads exist (Streamlit's script threads), so jemalloc is
/// built without the initial-exec TLS model that only suits libraries loaded at start
/// (`disable_initial_exec_tls`), keeps its prefixed symbols (glibc stays the process's
/// malloc) and runs no background purge thread (no default features). Linux only: the
/// wheels of other platforms keep the system allocator.
#[cfg(all(target_os = "linux", not(target_env = "musl")))]
#[global_allocator]
static ENGINE_ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

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
    jsonwrite::register(module)?;
    Ok(())
}
