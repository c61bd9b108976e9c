# Types of the Rust extension built from crates/oa-python (see oa_core/build.py).
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from numpy.typing import ArrayLike

from .options import Limits

_T = TypeVar("_T")

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
# A schema compiled once (its root and schema.ANY, ANY_OBJECT, ANY_ARRAY, its scopes);
# ValueError names a construct it does not plan. score() is None where the gold
# violates an assertion the plan checks (oa_core.native: the validator words it).
class ScorePlan:
    def __init__(self, root: Any, any: Any, any_object: Any, any_array: Any, raw: Any,
                 active: Collection[str], scopes: Mapping[str, Any] | None = None,
                 comparators: Any = None) -> None: ...
    @property
    def comparator_names(self) -> list[str]: ...
    @property
    def validates(self) -> bool: ...
    def __len__(self) -> int: ...
    def score(self, gold: Any, candidate: Any, limits: Limits | None,
              strict: bool) -> float | None: ...
    # -- documents with scopes, under a referential state (oa_core.native.ScopeState)
    def score_scoped(self, gold: Any, candidate: Any,
                     bijections: Mapping[str, Mapping[Any, Any]],
                     candidate_ids: Mapping[str, Collection[Any]],
                     unresolved: Collection[str],
                     record_pairs: Mapping[str, tuple[str, Mapping[str, str]]],
                     limits: Limits) -> float | None: ...
    def matrix(self, golds: Sequence[Any], candidates: Sequence[Any], pointer: str,
               bijections: Mapping[str, Mapping[Any, Any]],
               candidate_ids: Mapping[str, Collection[Any]],
               unresolved: Collection[str], limits: Limits,
               record_pairs: Mapping[str, tuple[str, Mapping[str, str]]] | None = None,
               paths: tuple[list[str], list[str]] | None = None) -> bytearray | None: ...

# --- JSON text (crates/oa-python/src/jsontext.rs)
# parse_plain_json: json.loads' value of plain JSON text that oa_core.jsonio.loads takes
# as it is; ``otherwise`` for anything else (JSONC, a problem to name, too deep).
def parse_plain_json(text: str, max_depth: int, otherwise: Any) -> Any: ...

# --- JSON text written (crates/oa-python/src/jsonwrite.rs)
# dump_plain_json: json.dumps(value, ensure_ascii=False) of a plain value (exact dict
# with str keys, list, tuple, str, 64-bit int, finite float, bool, None); ``otherwise``
# for anything else.
def dump_plain_json(value: Any, otherwise: _T) -> str | _T: ...

# --- validation (crates/oa-python/src/shape.rs, value.rs)
# is_plain_json: True says oa_core.validation.check_json accepts the value under limits;
# False that the Rust conversion refuses it (Python then names the problem).
def is_plain_json(value: Any, limits: Limits) -> bool: ...
# A schema's JSON Schema assertions checked natively; schema_shape is None when the
# schema asserts anything the shape does not check. verdict is jsonschema's is_valid,
# or None where Python must answer.
class SchemaShape:
    def verdict(self, document: Any) -> bool | None: ...
def schema_shape(raw: Any, active: Collection[str]) -> SchemaShape | None: ...

# --- match tree (crates/oa-python/src/tree.rs)
# The match tree as a node table, one list per field, rows in preorder (parent None for
# the root; a parent before its children); oa_core.nodetable builds MatchNodes from it.
# matrix: (rows, cols, float64 buffer in native byte order) or None.
class NodeTable:
    @property
    def parent(self) -> list[int | None]: ...
    @property
    def kind(self) -> list[str]: ...
    @property
    def status(self) -> list[str]: ...
    @property
    def label(self) -> list[str]: ...
    @property
    def gold_path(self) -> list[str | None]: ...
    @property
    def candidate_path(self) -> list[str | None]: ...
    @property
    def schema(self) -> list[Any]: ...
    @property
    def gold_key(self) -> list[str | None]: ...
    @property
    def candidate_key(self) -> list[str | None]: ...
    @property
    def gold_index(self) -> list[int | None]: ...
    @property
    def candidate_index(self) -> list[int | None]: ...
    @property
    def score(self) -> list[float]: ...
    @property
    def weight(self) -> list[float]: ...
    @property
    def key_weight(self) -> list[float]: ...
    @property
    def key_score(self) -> list[float | None]: ...
    @property
    def comparator(self) -> list[str | None]: ...
    @property
    def similarity(self) -> list[float | None]: ...
    @property
    def threshold(self) -> list[float | None]: ...
    @property
    def scope(self) -> list[str | None]: ...
    @property
    def expected(self) -> list[bool]: ...
    @property
    def order(self) -> list[str | None]: ...
    @property
    def pairs(self) -> list[list[tuple[int, int]]]: ...
    @property
    def matrix(self) -> list[tuple[int, int, bytearray] | None]: ...
    @property
    def childless(self) -> list[bool]: ...
    def __len__(self) -> int: ...
    def compact(self) -> NodeTable: ...

def match_table(plan: ScorePlan, gold: Any, candidate: Any, limits: Limits,
                bijections: Mapping[str, Mapping[Any, Any]] | None = None,
                candidate_ids: Mapping[str, Collection[Any]] | None = None,
                unresolved: Collection[str] | None = None,
                record_pairs: Mapping[str, tuple[str, Mapping[str, str]]] | None = None
                ) -> NodeTable | None: ...

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

# --- referential index, WL graphs, resolution order (crates/oa-python/src/refer.rs)
# A scoped schema's ScorePlan with each object node's properties in schema order (by
# pointer) and each scope's id field (oa_core.refer_native); index() is None for a
# document it does not index under the limits.
class ReferPlan:
    def __init__(self, plan: ScorePlan, order: Mapping[str, Sequence[str]],
                 id_fields: Mapping[str, str]) -> None: ...
    @property
    def nested(self) -> list[str]: ...
    def index(self, document: Any, limits: Limits) -> NativeIndex | None: ...

class NativeIndex:
    def records(self, scope: str) -> list[tuple[str, tuple[str | int, ...]]]: ...
    def record_keys(self, scope: str) -> list[tuple[str, str]]: ...
    def named_records(self, scope: str) -> list[int]: ...
    def graph(self, side: str, group: Sequence[str],
              bijections: Mapping[str, Mapping[Any, Any]], blend: bool, offset: int
              ) -> tuple[list[tuple[str, str, int | None, str, str]],
                         list[tuple[int, int, str, str]], list[str]]: ...

def resolution_groups(dependencies: Mapping[str, Collection[str]],
                      id_pointers: Mapping[str, str]
                      ) -> tuple[list[list[str]], set[str], list[tuple[str, str, str]]]: ...
# --- the tie policy's parts (crates/oa-python/src/ties.rs; for tests and benchmarks)
SCORED_TRIALS: int
SCORED_RECORDS: int
ENUMERATED: int
def tie_rules() -> list[tuple[str, str]]: ...
# structure: (gold colour rounds, candidate colour rounds: int64 rounds x records,
# incident edges per record as (kind, other end) on each side, each record's occurrence
# hub on each side (-1 outside nested scopes), a block's gold and candidate records in
# the scope or None); keys(gold, indices) -> (bytes, bytes) each.
def pair_scope(scores: ArrayLike, mode: str, wl_lambda: float,
               structure: tuple[ArrayLike, ArrayLike, list[list[tuple[int, int]]],
                                list[list[tuple[int, int]]], list[int], list[int],
                                list[int] | None, list[int] | None] | None,
               keys: Callable[[bool, list[int]], list[tuple[bytes, bytes]]]
               ) -> tuple[list[tuple[int, int]], list[str], list[tuple[int, int]], list[int],
                          list[int]]: ...
def settle_by_score(pairs: Sequence[tuple[int, int]], label_ties: Sequence[tuple[int, int]],
                    kept: Sequence[ArrayLike], ranked: Sequence[ArrayLike],
                    score_of: Callable[[list[tuple[int, int]]], float],
                    alike: Callable[[list[list[tuple[int, int]]]], list[int]], budget: int,
                    rows: Sequence[int], cols: Sequence[int]
                    ) -> tuple[list[tuple[int, int]], list[tuple[int, int]], int]: ...

# --- custom comparators (crates/oa-python/src/compare.rs)
# ScorePlan(..., comparators=): the schema's ComparatorRegistry; the custom comparators
# the schema names are called from Rust (their Comparator.scalar and .matrix, under
# the GIL). A custom comparator's error is raised as a ComparatorError with the pointer
# of its keyword; a BaseException that is no Exception (KeyboardInterrupt) is raised
# at once.

# --- the scope resolution end to end (crates/oa-python/src/resolve.rs; oa_core.native)
# groups: the scopes in resolution order; records: scope -> its record node's pointer;
# mode: a WLMode value. None where the gold violates an assertion the plan checks
# (oa_core.native raises any other None as an engine bug).
# gold may be a NativeGold made under the same refer and limits (not converted and
# indexed again).
class NativeGold: ...

# The deepest nesting a resolution's conversion follows: a document nested deeper (under
# a higher Limits.max_depth) is refused with its own InputError, which check_json does
# not raise.
MAX_NESTING: int

def prepare_resolved_gold(refer: ReferPlan, gold: Any, limits: Limits
                          ) -> NativeGold | None: ...
def resolve_score(refer: ReferPlan, plan: ScorePlan, gold: Any, candidate: Any,
                  limits: Limits, groups: Sequence[Sequence[str]],
                  records: Mapping[str, str], mode: str, wl_lambda: float
                  ) -> float | None: ...
# align_scopes: ([scope rows], [trace rows] (none without traces), the NodeTable of
# the documents under the resolution (with tree) or None) as
# crates/oa-python/src/align_scopes.rs writes them (oa_core.scopes_native reads
# them), or None
def align_scopes(refer: ReferPlan, plan: ScorePlan, gold: Any, candidate: Any,
                 limits: Limits, groups: Sequence[Sequence[str]],
                 records: Mapping[str, str], mode: str, wl_lambda: float, *,
                 traces: bool = True, tree: bool = False
                 ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]],
                            NodeTable | None] | None: ...
