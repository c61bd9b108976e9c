"""Leaf comparators: similarity functions on primitive values.

Each comparator maps a gold and a candidate primitive to a similarity in [0, 1]
and comes in two forms that give the same bits: a scalar form (one pair) and a
matrix form (every pair of two lists).

Built-ins
---------
strings: ``exact``, ``jaro`` (default), ``jaro_winkler``, ``levenshtein``,
``damerau_levenshtein``, ``osa``, ``indel``, ``lcsseq`` (normalized similarities,
as rapidfuzz defines them); numbers: ``exact``, ``invdiff`` (default) =
1/(1+|g-p|), ``relative`` = 1 - min(1, |g-p|/max(|g|,|p|)) (1 when both are 0);
booleans: ``exact``. The Rust engine computes them (``crates/oa-engine/src/compare/``;
from Python through ``oa_core._engine.compare_scalar`` and ``compare_matrix``); this
module keeps the registry a schema names them in, the custom comparators (which the
engine calls back) and the JSON kinds.

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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeGuard

from . import _engine
from .errors import ComparatorError, preview_json

if TYPE_CHECKING:  # numpy is imported when a matrix is made: the CLI starts without it
    import numpy as np

__all__ = [
    "BUILTIN_COMPARATORS",
    "Comparator",
    "ComparatorRegistry",
    "Registration",
    "id_key",
    "is_number",
    "register_comparator",
    "value_kind",
]

ScalarFn = Callable[[Any, Any], float]
# A user's comparator: what it returns is checked (_checked), not trusted, so its
# type says ``object``, not ``float``.
UserScalarFn = Callable[[Any, Any], object]
MatrixFn = Callable[[Sequence[Any], Sequence[Any]], "np.ndarray"]


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


def id_key(value: Any) -> tuple[str, Any] | None:
    """A hashable key for an identifier, or None for a value that cannot be one.

    Strings and numbers identify: 1 and 1.0 agree, 1 and "1" differ. Null, booleans,
    objects and arrays identify nothing (a record with such an id cannot be a
    reference's target, and such a reference reaches no record).

    >>> id_key(1) == id_key(1.0), id_key(1) == id_key("1"), id_key({"a": 1})
    (True, False, None)
    """
    # an exact type's kind without the call (every record's id and reference asks)
    kind = _KIND_OF_TYPE.get(type(value)) or value_kind(value)
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
        import numpy as np

        out = np.empty((len(golds), len(candidates)), dtype=np.float64)
        for i, g in enumerate(golds):
            for j, p in enumerate(candidates):
                out[i, j] = self.scalar(g, p)
        return out


# The value kinds each built-in compares (the measures themselves are Rust's,
# crates/oa-engine/src/compare/: the scalar and the matrix form give the same bits).
_BUILTIN_KINDS: dict[str, frozenset[str]] = {
    "exact": frozenset({"string", "number", "boolean"}),
    **{name: frozenset({"string"}) for name in (
        "jaro", "jaro_winkler", "levenshtein", "damerau_levenshtein", "osa", "indel",
        "lcsseq")},
    "invdiff": frozenset({"number"}),
    "relative": frozenset({"number"}),
}


def _builtin(name: str) -> Comparator:
    # One call into Rust per pair, or per matrix (a writable float64 buffer, reshaped
    # in place).
    def matrix(golds: Sequence[Any], cands: Sequence[Any]) -> np.ndarray:
        import numpy as np

        flat = np.frombuffer(_engine.compare_matrix(name, golds, cands), dtype=np.float64)
        return flat.reshape(len(golds), len(cands))

    return Comparator(name, _BUILTIN_KINDS[name], partial(_engine.compare_scalar, name), matrix)


BUILTIN_COMPARATORS: dict[str, Comparator] = {
    name: _builtin(name) for name in _engine.comparator_names()}


DEFAULT_FOR_KIND = {"string": "jaro", "number": "invdiff", "boolean": "exact"}

_GLOBAL_CUSTOM: dict[str, Comparator] = {}

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
        self._table: dict[str, Comparator] = {**BUILTIN_COMPARATORS, **_GLOBAL_CUSTOM}
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
