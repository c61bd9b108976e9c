# Types of the Rust extension built from crates/oa-python (see oa_core/build.py).

from collections.abc import Iterable

def engine_version() -> str: ...

# --- comparators (crates/oa-python/src/compare.rs)
# Values are str, int (any size), float or bool. Raises KeyError for a name that is no
# built-in, TypeError for a value kind the comparator does not compare, and
# OverflowError for an int beyond the float range reaching invdiff or relative;
# compare_matrix raises MemoryError for a matrix that cannot be allocated.
def compare_scalar(name: str, gold: str | int | float | bool,
                   candidate: str | int | float | bool) -> float: ...
# len(golds) * len(candidates) native-endian float64, row-major.
def compare_matrix(name: str, golds: Iterable[str | int | float | bool],
                   candidates: Iterable[str | int | float | bool]) -> bytearray: ...
def comparator_names() -> list[str]: ...

# --- alignment (crates/oa-python/src/align.rs)
