"""Leaf comparators: similarity functions on primitive values.

Each comparator maps a gold and a candidate primitive to a similarity in [0, 1]
and comes in two forms that give the same bits: a scalar form for the match tree
and a matrix form (``rapidfuzz.process.cdist`` for strings, numpy broadcasting
for numbers) for the score matrices that drive alignment.

Built-ins
---------
strings: ``exact``, ``jaro`` (default), ``jaro_winkler``, ``levenshtein``,
``damerau_levenshtein``, ``osa``, ``indel``, ``lcsseq`` (each rapidfuzz's
normalized similarity); numbers: ``exact``, ``invdiff`` (default) =
1/(1+|g-p|), ``relative`` = 1 - min(1, |g-p|/max(|g|,|p|)) (1 when both are 0);
booleans: ``exact``.

The Rust engine (``crates/oa-engine/src/compare/``) computes the same built-ins to
the bit; ``OA_ENGINE=rust`` (see :func:`oa_core.build.selected_engine`) makes every
registry created afterwards use them (:func:`builtin_comparators`).

Examples
--------
>>> registry = ComparatorRegistry()
>>> registry.get("invdiff").scalar(2025, 2026)
0.5
>>> registry.get("invdiff").scalar(2**60, 2**60 + 1)  # integers are subtracted exactly
0.5
>>> round(registry.get("jaro").scalar("closing", "closin"), 6)
0.952381
>>> registry.get("jaro").matrix(["intro"], ["intro", "outro"]).shape
(1, 2)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeGuard

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import (
    OSA,
    DamerauLevenshtein,
    Indel,
    Jaro,
    JaroWinkler,
    LCSseq,
    Levenshtein,
)

from . import _engine
from .build import selected_engine
from .errors import LARGEST_FLOAT_INTEGER, ComparatorError, preview_json

__all__ = [
    "BUILTIN_COMPARATORS",
    "MEMO_LIMIT",
    "RUST_COMPARATORS",
    "Comparator",
    "ComparatorRegistry",
    "Registration",
    "builtin_comparators",
    "canonical_json",
    "equal_matrix",
    "id_key",
    "is_number",
    "register_comparator",
    "value_kind",
]

ScalarFn = Callable[[Any, Any], float]
# A user's comparator: what it returns is checked (_checked), not trusted. ``object``,
# not ``float``: a compiled build (setup.py) would convert or refuse the returned
# value at the call itself, before the check could name the comparator.
UserScalarFn = Callable[[Any, Any], object]
MatrixFn = Callable[[Sequence[Any], Sequence[Any]], np.ndarray]


def is_number(value: Any) -> TypeGuard[int | float]:
    """True for JSON numbers (``bool`` is not a number here)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


# The kinds of the exact JSON types, looked up before the isinstance chain below
# (which also classifies their subclasses); the scorer asks this of every value.
_KIND_OF_TYPE: dict[type, str] = {str: "string", int: "number", float: "number",
                                  bool: "boolean", type(None): "null", dict: "object",
                                  list: "array"}


def value_kind(value: Any) -> str:
    """The JSON kind of a value: object, array, string, number, boolean or null."""
    kind = _KIND_OF_TYPE.get(type(value))
    if kind is not None:
        return kind
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    if is_number(value):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return type(value).__name__


# One encoder for every canonical text: json.dumps with options builds a JSONEncoder
# per call, which costs as much as encoding a small record (the same output).
_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def canonical_json(value: Any) -> str:
    """Key-sorted, compact JSON: equal values give equal text.

    >>> canonical_json({"b": [1, "é"], "a": None})
    '{"a":null,"b":[1,"é"]}'
    """
    return _CANONICAL.encode(value)


def id_key(value: Any) -> tuple[str, Any] | None:
    """A hashable key for an identifier, or None for a value that cannot be one.

    Strings and numbers identify: 1 and 1.0 agree, 1 and "1" differ. Null, booleans,
    objects and arrays identify nothing (a record with such an id cannot be a
    reference's target, and such a reference reaches no record).

    >>> id_key(1) == id_key(1.0), id_key(1) == id_key("1"), id_key({"a": 1})
    (True, False, None)
    """
    kind = value_kind(value)
    return (kind, value) if kind in ("string", "number") else None


@dataclass(frozen=True, slots=True)
class Comparator:
    """A named similarity on primitives of some kinds.

    Attributes
    ----------
    name : str
    kinds : frozenset of {"string", "number", "boolean"}
        The value kinds it compares; other kinds score 0 (a type mismatch).
    scalar : callable (gold, candidate) -> float
    matrix_fn : callable (golds, candidates) -> ndarray, optional
        Vectorized form; by default the scalar form is applied to every pair.
    """

    name: str
    kinds: frozenset[str]
    scalar: ScalarFn
    matrix_fn: MatrixFn | None = None

    def matrix(self, golds: Sequence[Any], candidates: Sequence[Any]) -> np.ndarray:
        """Similarities of every gold-candidate pair, as an (n, m) float array."""
        if self.matrix_fn is not None:
            return self.matrix_fn(golds, candidates)
        out = np.empty((len(golds), len(candidates)), dtype=np.float64)
        for i, g in enumerate(golds):
            for j, p in enumerate(candidates):
                out[i, j] = self.scalar(g, p)
        return out


def _string_comparator(name: str, scorer: Any, *, integral: bool = False) -> Comparator:
    # The two forms must agree to the bit. cdist's batched Jaro kernels round
    # differently from the single-pair function, so Jaro's scalar goes through cdist
    # too (3 us a call). The edit distances (``integral``) count whole edits and
    # divide once, the same division on both paths: their scalar calls the
    # single-pair function (0.3 us; tests/test_throughput_paths.py checks the bits).
    def matrix(golds: Sequence[str], cands: Sequence[str]) -> np.ndarray:
        if not golds or not cands:
            return np.zeros((len(golds), len(cands)), dtype=np.float64)
        return process.cdist(list(golds), list(cands), scorer=scorer.normalized_similarity,
                             dtype=np.float64, workers=1)

    single = scorer.normalized_similarity

    def scalar(g: str, p: str) -> float:
        if integral:
            return float(single(g, p))
        return float(matrix([g], [p])[0, 0])

    return Comparator(name, frozenset({"string"}), scalar, matrix)


def _codes(golds: Sequence[Any], cands: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    # Equal values get equal integer codes; the (kind, value) key keeps
    # True apart from 1 and "1" apart from 1.
    table: dict[tuple[str, Any], int] = {}
    def code(v: Any) -> int:
        return table.setdefault((value_kind(v), v), len(table))
    return (np.fromiter((code(g) for g in golds), dtype=np.int64, count=len(golds)),
            np.fromiter((code(p) for p in cands), dtype=np.int64, count=len(cands)))


def _exact_scalar(g: Any, p: Any) -> float:
    return 1.0 if value_kind(g) == value_kind(p) and g == p else 0.0


def _exact_matrix(golds: Sequence[Any], cands: Sequence[Any]) -> np.ndarray:
    g, p = _codes(golds, cands)
    return equal_matrix(g, p)


def equal_matrix(golds: np.ndarray, cands: np.ndarray) -> np.ndarray:
    """1.0 where ``golds[i] == cands[j]``, else 0.0, written straight into float64:
    ``(g == p).astype(float)`` makes a boolean matrix first and converts it ten times
    slower than the comparison (0.3 s for 4,000 x 4,000)."""
    out = np.empty((golds.size, cands.size), dtype=np.float64)
    np.equal(golds[:, None], cands[None, :], out=out)
    return out


# The numeric formulas are written once, on values that may be floats or numpy
# arrays, so the scalar and the matrix forms give the same bits. ``diff`` is
# |g - p| as float64, taken exactly when both are integers (see _difference).
def _invdiff(g: Any, p: Any, diff: Any) -> Any:
    return 1.0 / (1.0 + diff)


def _relative(g: Any, p: Any, diff: Any) -> Any:
    scale = np.maximum(abs(g), abs(p))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = np.where(scale == 0, 0.0, diff / np.where(scale == 0, 1.0, scale))
    return 1.0 - np.minimum(1.0, ratio)


# float64 holds every integer up to 2**53 only: beyond it, two different integers
# may round to one float and a float difference would call them equal.
_FLOAT_EXACT_INT = 2**53


def _is_wide_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and (
        abs(value) > _FLOAT_EXACT_INT)


def _difference(g: Any, p: Any) -> np.float64:
    """|g - p| as float64 (inf beyond the float range); the difference of two integers
    is exact before rounding."""
    if isinstance(g, int) and isinstance(p, int):
        exact = abs(g - p)
        return np.float64(exact) if exact <= LARGEST_FLOAT_INTEGER else np.float64(np.inf)
    with np.errstate(over="ignore"):
        return abs(np.float64(g) - np.float64(p))


def _numeric_comparator(name: str, formula: Callable[[Any, Any, Any], Any]) -> Comparator:
    # Any, not float: a JSON integer must reach _difference unrounded (a compiled
    # build, see setup.py, would turn an argument annotated float into a float).
    def scalar(g: Any, p: Any) -> float:
        return float(formula(np.float64(g), np.float64(p), _difference(g, p)))

    # Sequence[Any], not [float]: a compiled build would turn each element read as a
    # float into one, rounding the wide integers _difference must see exactly.
    def matrix(golds: Sequence[Any], cands: Sequence[Any]) -> np.ndarray:
        g = np.asarray(golds, dtype=np.float64)[:, None]
        p = np.asarray(cands, dtype=np.float64)[None, :]
        if any(map(_is_wide_int, golds)) or any(map(_is_wide_int, cands)):
            diff = np.array([[_difference(a, b) for b in cands] for a in golds],
                            dtype=np.float64).reshape(len(golds), len(cands))
        else:  # the same bits as _difference: both operands are exact in float64
            with np.errstate(over="ignore"):
                diff = np.abs(g - p)
        return np.asarray(formula(g, p, diff), dtype=np.float64).reshape(len(golds), len(cands))

    return Comparator(name, frozenset({"number"}), scalar, matrix)


BUILTIN_COMPARATORS: dict[str, Comparator] = {
    "exact": Comparator("exact", frozenset({"string", "number", "boolean"}), _exact_scalar,
                        _exact_matrix),
    "jaro": _string_comparator("jaro", Jaro),
    "jaro_winkler": _string_comparator("jaro_winkler", JaroWinkler),
    "levenshtein": _string_comparator("levenshtein", Levenshtein, integral=True),
    "damerau_levenshtein": _string_comparator("damerau_levenshtein", DamerauLevenshtein,
                                              integral=True),
    "osa": _string_comparator("osa", OSA, integral=True),
    "indel": _string_comparator("indel", Indel, integral=True),
    "lcsseq": _string_comparator("lcsseq", LCSseq, integral=True),
    "invdiff": _numeric_comparator("invdiff", _invdiff),
    "relative": _numeric_comparator("relative", _relative),
}



def _rust_twin(builtin: Comparator) -> Comparator:
    # The same name, kinds and bits (tests/test_rust_comparators.py); one call into
    # Rust per pair, or per matrix (a writable float64 buffer, reshaped in place).
    name = builtin.name

    def matrix(golds: Sequence[Any], cands: Sequence[Any]) -> np.ndarray:
        flat = np.frombuffer(_engine.compare_matrix(name, golds, cands), dtype=np.float64)
        return flat.reshape(len(golds), len(cands))

    return Comparator(name, builtin.kinds, partial(_engine.compare_scalar, name), matrix)


RUST_COMPARATORS: dict[str, Comparator] = {
    name: _rust_twin(builtin) for name, builtin in BUILTIN_COMPARATORS.items()}


def builtin_comparators(engine: str | None = None) -> dict[str, Comparator]:
    """The built-in comparators of an engine (by default the one ``OA_ENGINE`` selects).

    >>> builtin_comparators("rust")["jaro"].scalar("closing", "closin") == (
    ...     builtin_comparators("python")["jaro"].scalar("closing", "closin"))
    True
    """
    return RUST_COMPARATORS if (engine or selected_engine()) == "rust" else BUILTIN_COMPARATORS


DEFAULT_FOR_KIND = {"string": "jaro", "number": "invdiff", "boolean": "exact"}

_GLOBAL_CUSTOM: dict[str, Comparator] = {}

MEMO_LIMIT = 4096
"""Entries of :attr:`ComparatorRegistry.memo` before it is cleared."""


def _checked(name: str, fn: UserScalarFn) -> ScalarFn:
    # The scorer re-raises these with the pointer of the schema keyword (ComparatorError.at).
    def scalar(g: Any, p: Any) -> float:
        try:
            value = fn(g, p)
        except Exception as exc:
            error = ComparatorError("", f"custom comparator {name!r} raised "
                                    f"{type(exc).__name__}: {exc} on ({preview_json(g)}, "
                                    f"{preview_json(p)})", comparator=name, values=(g, p),
                                    fix="fix the comparator so that it returns a number "
                                    "in [0, 1] for every pair")
            error.__cause__ = exc  # as well as `from`, which a compiled build ignores
            raise error from exc
        # NaN and the infinities fail the range test; an int is compared exactly
        # (math.isfinite would overflow on a huge one)
        if not is_number(value) or not 0.0 <= value <= 1.0:
            raise ComparatorError("", f"custom comparator {name!r} returned "
                                  f"{preview_json(value)} for ({preview_json(g)}, "
                                  f"{preview_json(p)})", comparator=name, values=(g, p),
                                  fix="make the comparator return a number in [0, 1]")
        return float(value)
    return scalar


def _make_custom(name: str, fn: UserScalarFn, kinds: Sequence[str]) -> Comparator:
    if not isinstance(name, str) or not name:
        raise ValueError("a comparator name must be a non-empty string")
    if name in BUILTIN_COMPARATORS:
        raise ValueError(f"{name!r} is a built-in comparator; choose another name")
    if not callable(fn):
        raise TypeError(f"comparator {name!r} must be callable (gold, candidate) -> float")
    bad = set(kinds) - {"string", "number", "boolean"}
    if bad or not kinds:
        raise ValueError(f"comparator {name!r}: kinds must be among string, number, boolean")
    return Comparator(name, frozenset(kinds), _checked(name, fn))


class Registration:
    """A process-wide registration, undone by :meth:`remove` or at the end of a
    ``with`` block (see :func:`register_comparator`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def remove(self) -> None:
        """Unregister the comparator (schemas parsed before keep it)."""
        _GLOBAL_CUSTOM.pop(self.name, None)

    def __enter__(self) -> Registration:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def register_comparator(name: str, fn: UserScalarFn,
                        kinds: Sequence[str] = ("string",)) -> Registration:
    """Register a custom comparator for every schema parsed afterwards, in this process.

    Prefer per-schema comparators (``Schema.parse(schema, comparators={name: fn})``,
    or ``align(..., comparators=...)``): they cannot leak into other work. A
    registration is scoped by using the result as a context manager.

    Parameters
    ----------
    name : str
        The name schemas use in ``score`` or ``keyScore``; may not shadow a built-in.
    fn : callable (gold, candidate) -> float
        Must return a number in [0, 1]; determinism is up to you.
    kinds : sequence of {"string", "number", "boolean"}
        The value kinds it compares.

    Returns
    -------
    Registration

    >>> with register_comparator("same_initial", lambda g, p: float(g[:1] == p[:1])):
    ...     ComparatorRegistry().get("same_initial").scalar("Bob", "Bill")
    1.0
    >>> "same_initial" in ComparatorRegistry()
    False
    """
    _GLOBAL_CUSTOM[name] = _make_custom(name, fn, kinds)
    return Registration(name)


class ComparatorRegistry:
    """The comparators one schema may name: built-ins, registered ones and extras.

    Parameters
    ----------
    extra : mapping name -> callable or (callable, kinds), optional
        Comparators for this registry only (string kind unless given).
    """

    def __init__(self, extra: dict[str, Any] | None = None) -> None:
        self._table: dict[str, Comparator] = {**builtin_comparators(), **_GLOBAL_CUSTOM}
        # Results of built-in (pure) comparisons that scorers share across calls, keyed
        # by values (e.g. an object's key pairing by its two key sets); at most
        # MEMO_LIMIT entries, cleared when full.
        self.memo: dict[tuple[Any, ...], Any] = {}
        for name, spec in (extra or {}).items():
            fn, kinds = (spec if isinstance(spec, tuple) else (spec, ("string",)))
            self._table[name] = _make_custom(name, fn, kinds)

    def get(self, name: str) -> Comparator:
        return self._table[name]

    def __contains__(self, name: object) -> bool:
        return name in self._table

    def names(self, kind: str | None = None) -> list[str]:
        """Names of the comparators (for a value kind, if given), sorted."""
        return sorted(n for n, c in self._table.items() if kind is None or kind in c.kinds)
