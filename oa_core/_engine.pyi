# Types of the Rust extension built from crates/oa-python (see oa_core/build.py).

def engine_version() -> str: ...

# --- comparators (crates/oa-python/src/compare.rs)
def exact_str(gold: str, candidate: str) -> float: ...

# --- alignment (crates/oa-python/src/align.rs)
