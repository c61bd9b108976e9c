# Types of the Rust extension built from crates/oa-python (see oa_core/build.py).
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from numpy.typing import ArrayLike

from .options import Limits

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
# Matrices: 2-D float64 buffers (numpy arrays) or lists of equal-length lists; pairs
# (row, column) sorted by row; every bad input a ValueError.
def linear_sum_assignment(matrix: ArrayLike, maximize: bool = False) -> list[tuple[int, int]]: ...
def max_weight_matching(matrix: ArrayLike, bonus: ArrayLike | None = None
                        ) -> list[tuple[int, int]]: ...
def canonical_matching(matrix: ArrayLike, bonus: ArrayLike | None,
                       row_colours: Sequence[int], col_colours: Sequence[int], *,
                       bonus_scale: float = 1.0) -> list[tuple[int, int]]: ...
def monotone_matching(matrix: ArrayLike) -> list[tuple[int, int]]: ...
def tie_epsilon(matrix: ArrayLike) -> float: ...
def bipartite_colours(cells: ArrayLike, row_seed: Sequence[int], col_seed: Sequence[int]
                      ) -> tuple[list[int], list[int]]: ...
def twin_groups(matrix: ArrayLike, axis: int) -> list[list[int]]: ...
def wl_refine(vertices: int, edges: Sequence[tuple[int, int, str, str]],
              initial: Sequence[str]) -> list[list[int]]: ...
def repair_twins(pairs: Sequence[tuple[int, int]], matrix: ArrayLike,
                 levels: Sequence[ArrayLike | Callable[[dict[int, int], list[int], list[int]],
                                                       ArrayLike]],
                 row_colours: Sequence[int], col_colours: Sequence[int], *, passes: int = 2
                 ) -> tuple[list[tuple[int, int]], dict[tuple[int, int], int]]: ...

# --- scoring (crates/oa-python/src/score.rs)
# A schema without scopes compiled once (its root and schema.ANY, ANY_OBJECT,
# ANY_ARRAY); ValueError names a construct it does not plan. score() is None where
# Python must score the documents (oa_core.native).
class ScorePlan:
    def __init__(self, root: Any, any: Any, any_object: Any, any_array: Any, raw: Any,
                 active: Collection[str]) -> None: ...
    @property
    def comparator_names(self) -> list[str]: ...
    @property
    def validates(self) -> bool: ...
    def __len__(self) -> int: ...
    def score(self, gold: Any, candidate: Any, limits: Limits,
              strict: bool) -> float | None: ...

# --- validation (crates/oa-python/src/shape.rs, value.rs)
# is_plain_json: True says oa_core.validation.check_json accepts the value under limits;
# False that the Rust conversion declines it (Python then looks for the problem).
def is_plain_json(value: Any, limits: Limits) -> bool: ...
# A schema's JSON Schema assertions checked natively; schema_shape is None when the
# schema asserts anything the shape does not check. verdict is jsonschema's is_valid,
# or None where Python must answer.
class SchemaShape:
    def verdict(self, document: Any) -> bool | None: ...
def schema_shape(raw: Any, active: Collection[str]) -> SchemaShape | None: ...

# --- pairing strategies (crates/oa-python/src/strategy.rs)
# Index arrays: 1-D int64 buffers (numpy arrays) or sequences of ints; index arrays
# returned as bytearrays of native int64 (np.frombuffer). Every bad input (a cell
# outside the matrix or given twice, a NaN or infinite value, a negative index) is a
# ValueError.
def equal_pairs(gold_codes: ArrayLike, candidate_codes: ArrayLike
                ) -> tuple[bytearray, bytearray]: ...
def union_pairs(parts: Sequence[tuple[ArrayLike, ArrayLike]], shape: tuple[int, int]
                ) -> tuple[bytearray, bytearray]: ...
def sparse_tie_epsilon(values: ArrayLike, shape: tuple[int, int]) -> float: ...
def max_weight_matching_sparse(rows: ArrayLike, cols: ArrayLike, values: ArrayLike,
                               shape: tuple[int, int]) -> list[tuple[int, int]]: ...
# (gold positions, candidate positions) per block in blocking.py's order; None where
# a value is one only Python keys (NaN, a subclass of a JSON type, nested too deep).
def blocks(golds: Iterable[Any], candidates: Iterable[Any], properties: Sequence[str]
           ) -> list[tuple[list[int], list[int]]] | None: ...
# strategy: "dense", "sparse" or "blocked" (with blocks); the pairs and the whole
# score matrix the strategy made (None when it made none).
def pair_unordered(matrix: Sequence[Sequence[float]], gold_texts: Sequence[str],
                   candidate_texts: Sequence[str], strategy: str,
                   blocks: Sequence[tuple[Sequence[int], Sequence[int]]] | None = None,
                   offer_cells: bool = True
                   ) -> tuple[list[tuple[int, int]], list[list[float]] | None]: ...
