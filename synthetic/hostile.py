"""Hostile schema/gold/candidate triples for fuzzing the engine, from one seed.

:func:`triple` draws an OA schema, a gold that satisfies it and a corrupted
candidate, using nothing but ``random.Random(seed)``: the same seed gives the same
triple on every platform and under every ``PYTHONHASHSEED`` (no set or hash order
is ever consulted).

The space covered on purpose:

* keys with ``/``, ``~``, ``" ~ "``, empty and non-ASCII keys (a lone surrogate
  included), and the same in ``$defs`` names, scope names and id fields;
* objects and arrays with and without ``type`` (``properties``/``items`` alone, whose
  values may then be of any kind), multi-type nodes (``["integer", "string"]``) with
  comparators of either kind, ``enum``, ``required``, ``additionalProperties``;
* ``$ref``-wrapped subschemas, ``$ref`` chains, OA keywords beside a ``$ref``,
  recursive definitions, a ``$ref`` at the root, ``$ref``-wrapped scope record
  arrays and record items;
* ``order: "align"`` and ``"fixed"`` lists, ``prefixItems`` with
  ``prefixWeights``/``prefixImportance``/``restImportance``,
  ``ignoreMissing``/``ignoreExcess``, ``minItems``/``maxItems``;
* scopes (``idScope`` on a record array's item property, ``ref`` fields, lists of
  refs, refs in nested carriers and in link arrays), self- and mutually referencing
  scopes, twins, duplicate and null ids, dangling references, and candidate ids of
  every JSON type (objects, arrays, booleans, integral and other floats, strings);
* with ``nested=True``, scopes whose record array sits inside another array (an
  array of record arrays, or ``groups[].members[]``), drawn from a second random
  stream so that a seed's triple without ``nested`` is the one it always was;
* nulls everywhere, extreme numbers (``1e308``, ``-1e308``, ``2**53 + 1``,
  ``10**300`` as an int, ``5e-324``), extreme weights (``valueWeight`` ``1e308``,
  ``5e-324``, ``0``, ``10**20``), ``keyImportance``/``valueImportance``, thresholds,
  ``nullScore``;
* every built-in comparator, and the custom comparators of :data:`COMPARATORS`:
  well-behaved ones and ones that raise ``ValueError``/``TypeError`` or return
  numbers out of [0, 1], ``NaN``, ``None`` or a boolean on some pairs (all of them
  return 1.0 on equal values, so a gold compared with itself never trips them);
* rarely (about 4%), a sabotaged schema (a ``$ref`` through a string or a boolean, a
  ``$ref`` cycle, ``keyScore`` of the wrong type, a weight of ``10**400``, ...) that
  the engine must refuse with a :class:`~oa_core.SchemaError`.

The candidate is the gold with edits, dropped, duplicated, inserted and permuted
list elements, renamed, dropped and added keys, values of the wrong type, nulls, and
ids relabelled consistently (``1 -> 731042`` everywhere in a scope), with rerouted,
null and wrongly typed ids and references here and there.

:func:`generate` returns a :class:`HostileTriple` that can also be materialised
with other permutations of its ``align`` lists and other consistent relabellings of
its ids, for the invariance checks of ``benchmarks/fuzz.py``.

Examples
--------
>>> import oa_core
>>> from synthetic import hostile
>>> schema, gold, candidate = hostile.triple(3)
>>> (schema, gold, candidate) == hostile.triple(3)
True
>>> try:
...     value = oa_core.score(gold, candidate, schema, comparators=hostile.COMPARATORS)
... except oa_core.OAError:  # a sabotaged schema, or a custom comparator that raised
...     value = None
>>> value is None or 0.0 <= value <= 1.0
True
>>> t = hostile.generate(3)
>>> t.materialize() == hostile.triple(3)
True
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "COMPARATORS",
    "DEFAULT_SIZE",
    "HostileTriple",
    "generate",
    "triple",
]

DEFAULT_SIZE = 4

# --------------------------------------------------------------------------------------
# Custom comparators (all deterministic; every one returns 1.0 on equal values)


def _prefix(g: Any, p: Any) -> float:
    if g == p:
        return 1.0
    return 0.5 if str(g)[:1] == str(p)[:1] else 0.0


def _raise_value(g: Any, p: Any) -> float:
    if g == p:
        return 1.0
    if (len(str(g)) + len(str(p))) % 3 == 0:
        raise ValueError(f"cannot compare {g!r} with {p!r}")
    return 0.25


def _raise_type(g: Any, p: Any) -> float:
    if g == p:
        return 1.0
    if (len(str(g)) + len(str(p))) % 2 == 0:
        return g + 1  # TypeError for strings, a number > 1 for numbers
    return 0.5


def _out_of_range(g: Any, p: Any) -> float:
    if g == p:
        return 1.0
    return 1.5 if len(str(g)) % 2 else -0.25


def _nan(g: Any, p: Any) -> float:
    return 1.0 if g == p else float("nan")


def _none(g: Any, p: Any) -> Any:
    return 1.0 if g == p else None


def _boolean_result(g: Any, p: Any) -> Any:
    return 1.0 if g == p else False  # a bool is not a number


def _square(g: Any, p: Any) -> float:
    if g == p:
        return 1.0
    try:
        return 1.0 / (1.0 + float(abs(g - p)) ** 2)
    except OverflowError:
        return 0.0


def _inf(g: Any, p: Any) -> float:
    return 1.0 if g == p else math.inf


COMPARATORS: dict[str, tuple[Callable[[Any, Any], Any], tuple[str, ...]]] = {
    "hx_prefix": (_prefix, ("string",)),
    "hx_raise_value": (_raise_value, ("string",)),
    "hx_raise_type": (_raise_type, ("string", "number")),
    "hx_out_of_range": (_out_of_range, ("string", "number", "boolean")),
    "hx_nan": (_nan, ("number",)),
    "hx_none": (_none, ("string",)),
    "hx_bool": (_boolean_result, ("string", "number", "boolean")),
    "hx_square": (_square, ("number",)),
    "hx_inf": (_inf, ("number",)),
}
"""Custom comparators for :meth:`oa_core.Schema.parse` (``comparators=``)."""

_CUSTOM_BY_KIND = {kind: [n for n, (_, kinds) in COMPARATORS.items() if kind in kinds]
                   for kind in ("string", "number", "boolean")}
_STRING_BUILTINS = ["exact", "jaro", "jaro_winkler", "levenshtein", "damerau_levenshtein",
                    "osa", "indel", "lcsseq"]
_NUMBER_BUILTINS = ["exact", "invdiff", "relative"]

# --------------------------------------------------------------------------------------
# Pools

_KEYS = ["a", "b", "ab", "name", "id", "x/y", "~", "~0", "~1", "a~1b", " ~ ", "a ~ b",
         "a ~ c", "", " ", "Ω", "ключ", "名前", "😀", "e\u0301", "/", "//", "$ref", "type",
         "items", "properties", "0", "-", 'q"', "\\", "\t", "\ud800"]
_STRINGS = ["", "a", "b", "alpha", "alpah", "Ωmega", "a ~ b", "x/y", "~1", "😀😀", " ",
            "closing", "closin", "0", "null", "e\u0301", "\ud800", "long " * 8]
_INTS = [0, 1, -1, 2, 7, 42, 2**53, 2**53 + 1, -(2**53) - 1, 10**300, -(10**300), 10**18]
_FLOATS = [0.5, -0.0, 1.5, 1e308, -1e308, 5e-324, -5e-324, 1e-300, 3.0, 2.5e15, 0.1]
_WEIGHTS = [0, 0.5, 1, 1, 2, 3, 1e308, 5e-324, 1e-300, 10**20, 1e-5, 1e154]
_DEF_NAMES = ["A", "B", "a/b", "t~x", " ~ ", "Ω", "", "~1", "x y"]
_SCOPE_NAMES = ["person", "org", "p/q", "~s", "a ~ b", "Ω", "0"]
_ID_FIELDS = ["id", "id", "id", "i/d", "~", "", "ключ", " ~ "]
_NAMES = ["Ann", "Bob", "Ann", "Eve", "Bob"]
_LABELS = ["mentor", "peer", "boss"]
_WRONG_IDS: list[Any] = [{}, [], [1], {"id": 1}, True, False, 1.5, 2.0, "1", "7", 1, -1,
                         10**300, 0.0, "", None]


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


# --------------------------------------------------------------------------------------
# Markers inside generated documents (never visible to callers)


@dataclass(slots=True)
class _Id:
    """A value in an id or ref slot of a scope (relabelled consistently)."""

    scope: str
    value: Any


@dataclass(slots=True)
class _Align:
    """An ``align`` list: the elements from ``start`` on may be permuted.

    ``frozen``: the list was made for the schema of another position (a corrupted
    array moved it across a ``prefixItems`` boundary), so the engine may not read it
    as an ``align`` list: it is never permuted (its shuffle is drawn and dropped, so
    the other lists get the same permutations as before).
    """

    items: list[Any]
    start: int = 0
    frozen: bool = False


def _frozen(tree: Any) -> Any:
    """``tree`` with every ``align`` list in it frozen (see :class:`_Align`)."""
    if isinstance(tree, _Align):
        return _Align([_frozen(item) for item in tree.items], tree.start, True)
    if isinstance(tree, dict):
        return {key: _frozen(value) for key, value in tree.items()}
    if isinstance(tree, list):
        return [_frozen(item) for item in tree]
    return tree


def _id_key(value: Any) -> tuple[str, Any] | None:
    """The relabelling class of an id value (None: left as it is)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return ("n", value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return ("n", int(value))
    if isinstance(value, str):
        return ("s", value)
    return None


def _collect_ids(tree: Any, out: dict[str, dict[tuple[str, Any], None]]) -> None:
    if isinstance(tree, _Id):
        key = _id_key(tree.value)
        if key is not None:
            out.setdefault(tree.scope, {})[key] = None
    elif isinstance(tree, _Align):
        for item in tree.items:
            _collect_ids(item, out)
    elif isinstance(tree, dict):
        for item in tree.values():
            _collect_ids(item, out)
    elif isinstance(tree, list):
        for item in tree:
            _collect_ids(item, out)


def _relabelling(tree: Any, seed: int) -> dict[str, dict[tuple[str, Any], Any]]:
    """An injective map per scope, independent of list order (keys are sorted)."""
    found: dict[str, dict[tuple[str, Any], None]] = {}
    _collect_ids(tree, found)
    rng = random.Random(seed)
    maps: dict[str, dict[tuple[str, Any], Any]] = {}
    for scope in sorted(found):
        keys = sorted(found[scope], key=lambda k: (k[0], k[1] if k[0] == "n" else 0,
                                                   k[1] if k[0] == "s" else ""))
        numbers = rng.sample(range(10**6, 10**7), sum(1 for k in keys if k[0] == "n"))
        strings = [s for s in ["", "~1", "a/b", " ~ ", "Ω"] if rng.random() < 0.3]
        used: set[str] = set(strings)
        table: dict[tuple[str, Any], Any] = {}
        for key in keys:
            if key[0] == "n":
                table[key] = numbers.pop()
            else:
                if strings:
                    table[key] = strings.pop()
                else:
                    name = f"r{rng.randrange(10**6)}"
                    while name in used:
                        name = f"r{rng.randrange(10**6)}"
                    used.add(name)
                    table[key] = name
        maps[scope] = table
    return maps


def _materialize(tree: Any, perm: random.Random | None,
                 relabel: dict[str, dict[tuple[str, Any], Any]] | None) -> Any:
    if isinstance(tree, _Id):
        key = _id_key(tree.value)
        if relabel is None or key is None:
            return copy.deepcopy(tree.value)
        new = relabel[tree.scope][key]
        return float(new) if isinstance(tree.value, float) else new
    if isinstance(tree, _Align):
        items = [_materialize(item, perm, relabel) for item in tree.items]
        if perm is not None and len(items) - tree.start > 1:
            tail = items[tree.start:]
            perm.shuffle(tail)
            if not tree.frozen:
                items = items[:tree.start] + tail
        return items
    if isinstance(tree, dict):
        return {k: _materialize(v, perm, relabel) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_materialize(v, perm, relabel) for v in tree]
    return tree


def _strip(tree: Any, found: list[str]) -> Any:
    """The tree without markers; ``found`` records what was removed."""
    if isinstance(tree, _Id):
        found.append("id")
        return copy.deepcopy(tree.value)
    if isinstance(tree, _Align):
        return [_strip(v, found) for v in tree.items]
    if isinstance(tree, dict):
        return {k: _strip(v, found) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_strip(v, found) for v in tree]
    return tree


def _has(tree: Any, kind: type) -> bool:
    if isinstance(tree, kind):
        return True
    if isinstance(tree, _Align):
        return any(_has(v, kind) for v in tree.items)
    if isinstance(tree, dict):
        return any(_has(v, kind) for v in tree.values())
    if isinstance(tree, list):
        return any(_has(v, kind) for v in tree)
    return False


# --------------------------------------------------------------------------------------
# The triple


@dataclass(slots=True)
class HostileTriple:
    """One generated triple, with the markers needed to vary it.

    Attributes
    ----------
    seed, size : int
    schema : dict
        The OA schema (JSON-ready; may name the custom :data:`COMPARATORS`).
    features : list of str
        What the generator put in (``"scopes"``, ``"self-ref"``, ``"$ref"``,
        ``"custom"``, ``"sabotage"``, ...), for reports.
    relabel_safe : bool
        False when a renamed key hides an id or ref slot of the candidate: then a
        relabelling of the candidate may not be consistent from the engine's view.
    """

    seed: int
    size: int
    schema: dict[str, Any]
    gold_tree: Any
    candidate_tree: Any
    features: list[str] = field(default_factory=list)
    relabel_safe: bool = True

    @property
    def has_align(self) -> bool:
        """Whether gold or candidate holds an ``align`` list to permute."""
        return _has(self.gold_tree, _Align) or _has(self.candidate_tree, _Align)

    @property
    def has_ids(self) -> bool:
        """Whether the candidate holds id or ref values to relabel."""
        return _has(self.candidate_tree, _Id)

    def materialize(self, *, permute: int | None = None, sides: str = "candidate",
                    relabel: int | None = None,
                    relabel_sides: str = "candidate") -> tuple[dict[str, Any], Any, Any]:
        """The triple as plain JSON, optionally varied.

        Parameters
        ----------
        permute : int, optional
            Seed of another permutation of the ``align`` lists of ``sides``
            (``"gold"``, ``"candidate"`` or ``"both"``); the prefix positions of an
            array with ``prefixItems`` stay in place.
        relabel : int, optional
            Seed of another consistent relabelling of the ids (and the refs to them)
            of ``relabel_sides``.

        Returns
        -------
        schema, gold, candidate
        """
        base_perm, base_relabel = _side_seeds(self.seed)
        gold_perm = gold_relabel = None
        cand_perm, cand_relabel = base_perm, base_relabel
        if permute is not None:
            if sides in ("gold", "both"):
                gold_perm = permute * 2 + 1
            if sides in ("candidate", "both"):
                cand_perm = permute * 2 + 2
        if relabel is not None:
            if relabel_sides in ("gold", "both"):
                gold_relabel = relabel * 2 + 1
            if relabel_sides in ("candidate", "both"):
                cand_relabel = relabel * 2 + 2
        gold = _materialize(
            self.gold_tree, None if gold_perm is None else random.Random(gold_perm),
            None if gold_relabel is None else _relabelling(self.gold_tree, gold_relabel))
        candidate = _materialize(self.candidate_tree, random.Random(cand_perm),
                                 _relabelling(self.candidate_tree, cand_relabel))
        return copy.deepcopy(self.schema), gold, candidate


def _side_seeds(seed: int) -> tuple[int, int]:
    rng = random.Random(f"hostile-base-{seed}")
    return rng.randrange(2**62), rng.randrange(2**62)


class _Generator:
    def __init__(self, seed: int, size: int, nested: bool = False) -> None:
        self.rng = random.Random(seed)
        # the nesting draws come from their own stream: without them the main one is
        # consumed exactly as before they existed (old seeds keep their triples)
        self.nest_rng = random.Random(f"hostile-nested-{seed}") if nested else None
        self.size = max(1, size)
        self.defs: dict[str, Any] = {}
        self.features: list[str] = []
        self.scopes: dict[str, dict[str, Any]] = {}  # name -> {"type", "ids", ...}
        self.pending_refs: list[tuple[_Id, bool]] = []
        self.relabel_safe = True
        self.intensity = 0.0

    # -- small helpers --------------------------------------------------------------
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def feature(self, name: str) -> None:
        if name not in self.features:
            self.features.append(name)

    def weight(self) -> Any:
        return self.rng.choice(_WEIGHTS) if self.chance(0.4) else self.rng.choice([1, 2, 0.5])

    def def_name(self) -> str:
        base = self.rng.choice(_DEF_NAMES)
        name = base
        k = 1
        while name in self.defs:
            name = f"{base}{k}"
            k += 1
        self.defs[name] = {}  # reserve
        return name

    def wrap(self, schema: dict[str, Any],
             siblings: dict[str, Any] | None = None) -> dict[str, Any]:
        """``schema`` moved under ``$defs`` and replaced by a ``$ref`` (maybe a chain)."""
        name = self.def_name()
        self.defs[name] = schema
        self.feature("$ref")
        target = name
        if self.chance(0.3):
            chained = self.def_name()
            self.defs[chained] = {"$ref": "#/$defs/" + _escape(target)}
            if self.chance(0.3):  # a keyword beside the inner $ref
                self.defs[chained].update(siblings or {})
            target = chained
            self.feature("$ref-chain")
        wrapper: dict[str, Any] = {"$ref": "#/$defs/" + _escape(target)}
        if siblings and self.chance(0.5):
            wrapper.update(siblings)
            self.feature("$ref-siblings")
        return wrapper

    def resolve(self, ref: Any) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
            return {}
        token = ref[len("#/$defs/"):]
        if "/" in token:
            return {}
        name = token.replace("~1", "/").replace("~0", "~")
        return self.defs.get(name, {})

    def effective(self, schema: Any) -> dict[str, Any]:
        """The schema a value must satisfy, ``$ref`` followed and siblings applied."""
        siblings: dict[str, Any] = {}
        for _ in range(30):
            if not isinstance(schema, dict) or "$ref" not in schema:
                break
            own = {k: v for k, v in schema.items() if k not in ("$ref", "$defs")}
            siblings = {**own, **siblings}
            schema = self.resolve(schema["$ref"])
        if not isinstance(schema, dict):
            schema = {}
        return {**schema, **siblings}

    # -- schemas --------------------------------------------------------------------
    def node(self, depth: int) -> dict[str, Any]:
        if depth >= 3 or self.chance(0.45):
            schema, siblings = self.leaf_schema()
        else:
            r = self.rng.random()
            if r < 0.45:
                schema, siblings = self.object_schema(depth), {"keyImportance": self.weight()}
            elif r < 0.9:
                schema = self.array_schema(depth)
                siblings = {"order": self.rng.choice(["align", "fixed"])}
            elif r < 0.95:
                return self.tree_schema()
            else:
                schema, siblings = {}, {}
        if self.chance(0.15):
            return self.wrap(schema, siblings)
        return schema

    def comparator(self, kind: str) -> str:
        if kind == "string":
            pool = _STRING_BUILTINS + _CUSTOM_BY_KIND["string"][:1] * 2
        elif kind == "number":
            pool = _NUMBER_BUILTINS * 2 + ["hx_square"]
        elif kind == "boolean":
            pool = ["exact"] * 4 + ["hx_bool"]
        else:  # a multi-type node: any comparator at all
            pool = _STRING_BUILTINS + _NUMBER_BUILTINS
        if self.chance(0.06):
            pool = _CUSTOM_BY_KIND.get(kind, list(COMPARATORS))
            self.feature("hostile-comparator")
        name = self.rng.choice(pool)
        if name.startswith("hx_"):
            self.feature("custom")
        return name

    def leaf_schema(self) -> tuple[dict[str, Any], dict[str, Any]]:
        kind = self.rng.choice(["string"] * 4 + ["integer"] * 2 + ["number"] * 2 + [
            "boolean", "null", "multi", "any", "nullable"])
        schema: dict[str, Any]
        if kind == "multi":
            schema = {"type": self.rng.choice([["integer", "string"], ["string", "number"],
                                               ["integer", "string", "null"],
                                               ["boolean", "integer"]])}
            self.feature("multi-type")
            comparator_kind = "multi"
        elif kind == "any":
            schema = {}
            comparator_kind = ""
        elif kind == "nullable":
            base = self.rng.choice(["string", "integer", "number"])
            schema = {"type": [base, "null"]}
            comparator_kind = "number" if base != "string" else "string"
        else:
            schema = {"type": kind}
            comparator_kind = {"integer": "number", "null": ""}.get(kind, kind)
        if comparator_kind and self.chance(0.6):
            schema["score"] = self.comparator(comparator_kind)
        if self.chance(0.2):
            schema["threshold"] = self.rng.choice([0, 0.3, 0.5, 0.99, 1, 5e-324])
        if self.chance(0.2):
            schema["nullScore"] = self.rng.choice([0, 0.5, 1])
        if kind in ("string", "integer") and self.chance(0.05):
            pool = _STRINGS if kind == "string" else _INTS
            schema["enum"] = self.rng.sample(pool, 3)
        siblings: dict[str, Any] = {}
        if comparator_kind and comparator_kind != "multi" and self.chance(0.5):
            siblings["score"] = self.comparator(comparator_kind)
        elif self.chance(0.3):
            siblings["threshold"] = self.rng.choice([0, 0.5])
        return schema, siblings

    def keys(self, count: int) -> list[str]:
        return self.rng.sample(_KEYS, min(count, len(_KEYS)))

    def object_schema(self, depth: int) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object"} if self.chance(0.75) else {}
        if "type" not in schema:
            self.feature("untyped")
        props: dict[str, Any] = {}
        for key in self.keys(self.rng.randint(0, self.size)):
            sub = self.node(depth + 1)
            if self.chance(0.3):
                sub = {**sub, "valueWeight": self.weight()}
            props[key] = sub
        schema["properties"] = props
        if self.chance(0.3):
            schema["keyScore"] = self.comparator("string")
        if self.chance(0.1):
            schema["keyThreshold"] = self.rng.choice([0.5, 0.9, 1])
        if self.chance(0.3):
            schema["keyImportance"] = self.weight()
        if self.chance(0.2):
            schema["valueImportance"] = self.weight()
            if schema.get("keyImportance", 0) == 0 and schema["valueImportance"] == 0:
                schema["valueImportance"] = 1
        if props and self.chance(0.2):
            schema["required"] = self.rng.sample(list(props), self.rng.randint(1, len(props)))
        r = self.rng.random()
        if r < 0.05:
            schema["additionalProperties"] = False
        elif r < 0.1:
            schema["additionalProperties"] = self.node(depth + 1)
        return schema

    def array_schema(self, depth: int) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "array"} if self.chance(0.8) else {}
        if "type" not in schema:
            self.feature("untyped")
        r = self.rng.random()
        if r < 0.55:
            schema["order"] = "align"
        elif r < 0.85:
            schema["order"] = "fixed"
        if self.chance(0.85):
            schema["items"] = self.node(depth + 1)
        elif self.chance(0.5):
            schema["items"] = True
        if self.chance(0.2):
            self.feature("prefixItems")
            prefix = [self.node(depth + 1) for _ in range(self.rng.randint(1, 3))]
            schema["prefixItems"] = prefix
            if self.chance(0.5):
                schema["prefixWeights"] = [self.weight() for _ in prefix]
                if all(w == 0 for w in schema["prefixWeights"]):
                    schema["prefixWeights"][0] = 1
            if "items" in schema:
                schema["prefixImportance"] = self.weight()
                schema["restImportance"] = self.weight()
                if schema["prefixImportance"] == schema["restImportance"] == 0:
                    schema["restImportance"] = 1
        if self.chance(0.2):
            schema["ignoreMissing"] = True
        if self.chance(0.2):
            schema["ignoreExcess"] = True
        if self.chance(0.05):
            schema["minItems"] = 1
        if self.chance(0.05):
            schema["maxItems"] = self.size
        return schema

    def tree_schema(self) -> dict[str, Any]:
        """A recursive definition: a node with a value and a list of child nodes."""
        self.feature("recursive")
        name = self.def_name()
        leaf, _ = self.leaf_schema()
        self.defs[name] = {"type": "object", "properties": {
            "v": leaf, "kids": {"type": "array", "order": self.rng.choice(["align", "fixed"]),
                                "items": {"$ref": "#/$defs/" + _escape(name)}}}}
        return {"$ref": "#/$defs/" + _escape(name)}

    def scope_schemas(self) -> dict[str, Any]:
        """Record arrays of 1-3 scopes (self- and mutual references) and link arrays."""
        self.feature("scopes")
        names = self.rng.sample(_SCOPE_NAMES, self.rng.randint(1, min(3, self.size)))
        for name in names:
            id_type = "integer" if self.chance(0.7) else "string"
            base: Any = self.rng.choice([1, 1, 0, -3, 2**53 - 1, 10**300]) \
                if id_type == "integer" else self.rng.choice(["p", "", "~", "a/b", " ~ "])
            self.scopes[name] = {"type": id_type, "ids": [], "next": 0, "base": base,
                                 "field": self.rng.choice(_ID_FIELDS),
                                 "nullable": self.chance(0.1)}
        out: dict[str, Any] = {}
        for k, name in enumerate(names):
            info = self.scopes[name]
            id_schema: dict[str, Any] = {"type": [info["type"], "null"] if info["nullable"]
                                         else info["type"], "idScope": name}
            name_schema: dict[str, Any] = {"type": "string",
                                           "score": self.rng.choice(["exact", "jaro"])}
            r = self.rng.random()
            if r < 0.35:  # twins everywhere: only the references tell records apart
                name_schema["enum"] = ["Ann"]
                self.feature("twins")
            elif r < 0.6:
                name_schema["enum"] = ["Ann", "Bob"]
            props: dict[str, Any] = {info["field"]: id_schema, "name": name_schema}
            if self.chance(0.3):
                props["kind"] = {"type": "string", "enum": _LABELS, "score": "exact"}
            for target in names:
                self_ref = target == name
                if not self.chance(0.45 if self_ref else 0.35):
                    continue
                self.feature("self-ref" if self_ref else "cross-ref")
                form = self.rng.random()
                ref = self.ref_schema(target)
                if form < 0.6:
                    props[self.rng.choice(["friend", "boss", "f/r", "~r", "ref"]) +
                          ("" if self_ref else "_" + str(names.index(target)))] = ref
                elif form < 0.85:
                    props["to" + str(names.index(target))] = {
                        "type": "array", "order": self.rng.choice(["align", "fixed"]),
                        "items": ref}
                else:
                    props["nest" + str(names.index(target))] = {
                        "type": "object", "properties": {"r": ref, "w": {"type": "integer"}}}
            record: dict[str, Any] = {"type": "object", "properties": props}
            r = self.rng.random()
            if r < 0.1:  # untyped records: the array may then hold non-objects
                del record["type"]
                self.feature("untyped-records")
            elif r < 0.15:
                record["type"] = ["object", "null"]
            if self.chance(0.2):
                record = self.wrap(record)
            records: dict[str, Any] = {"type": "array", "items": record,
                                       "order": "align" if self.chance(0.8) else "fixed"}
            if self.chance(0.1):
                records["ignoreExcess"] = True
            if self.chance(0.25):
                self.feature("$ref-scope")
                records = self.wrap(records)
            records = self.nest(records)
            out[self.rng.choice(["people", "p/l", "~recs", "", " ~ ", "Ω"]) + str(k)] = records
        # mutual references are frequent: make sure some scopes reference each other
        if len(names) > 1 and self.chance(0.4):
            self.feature("mutual")
        for k in range(self.rng.randint(0, 3)):
            a, b = self.rng.choice(names), self.rng.choice(names)
            link: dict[str, Any] = {"type": "object", "properties": {
                "src": self.ref_schema(a), "dst": self.ref_schema(b),
                "label": {"type": "string", "enum": _LABELS, "score": "exact"}}}
            if self.chance(0.3):
                link["properties"]["w"] = {"type": "number"}
            out["links" + str(k)] = {"type": "array", "order": self.rng.choice(
                ["align", "align", "fixed"]), "items": link}
        return out

    def nest(self, records: dict[str, Any]) -> dict[str, Any]:
        """``records`` as it is, or inside another array (half the time, with
        ``nested``): the items of an outer array, or the ``members`` of its items."""
        rng = self.nest_rng
        if rng is None or rng.random() < 0.5:
            return records
        self.feature("nested-scope")
        order = rng.choice(["align", "fixed"])
        if rng.random() < 0.5:
            return {"type": "array", "order": order, "items": records}
        group: dict[str, Any] = {"type": "object", "properties": {"members": records}}
        if rng.random() < 0.5:
            group["properties"]["tag"] = {"type": "string", "enum": _LABELS, "score": "exact"}
        return {"type": "array", "order": order, "items": group}

    def ref_schema(self, scope: str) -> dict[str, Any]:
        id_type = self.scopes[scope]["type"]
        nullable = self.chance(0.2)
        return {"type": [id_type, "null"] if nullable else id_type, "ref": scope}

    def make_schema(self) -> dict[str, Any]:
        r = self.rng.random()
        if r < 0.45:
            root = self.object_schema(0)
            root["type"] = "object"
            root.setdefault("properties", {})
            if root.get("additionalProperties") is False:
                del root["additionalProperties"]
            scopes = self.scope_schemas()
            for key in scopes:
                root["properties"].pop(key, None)
            if self.chance(0.5):
                root["properties"] = {**scopes, **root["properties"]}
            else:
                root["properties"] = {**root["properties"], **scopes}
            if self.chance(0.1):  # scope arrays one level down
                inner = {"type": "object", "properties": root["properties"]}
                if "required" in root:
                    inner["required"] = root.pop("required")
                root["properties"] = {"data": inner}
        elif r < 0.8:
            root = self.object_schema(0)
        else:
            root = self.node(0)
        if self.chance(0.05) and "$ref" not in root:
            root = self.wrap(root)
            self.feature("root-$ref")
        return root

    # -- gold values -----------------------------------------------------------------
    def scalar(self) -> Any:
        r = self.rng.random()
        if r < 0.15:
            return None
        if r < 0.3:
            return self.rng.choice([True, False])
        if r < 0.5:
            return self.rng.choice(_INTS)
        if r < 0.65:
            return self.rng.choice(_FLOATS)
        return self.rng.choice(_STRINGS)

    def any_value(self, depth: int) -> Any:
        if depth >= 3 or self.chance(0.6):
            return self.scalar()
        if self.chance(0.5):
            return [self.any_value(depth + 1) for _ in range(self.rng.randint(0, 3))]
        return {k: self.any_value(depth + 1) for k in self.keys(self.rng.randint(0, 3))}

    def leaf_value(self, kind: str) -> Any:
        if kind == "string":
            return self.rng.choice(_STRINGS)
        if kind == "integer":
            return self.rng.choice([*_INTS, 3.0]) if self.chance(0.3) else self.rng.randint(0, 6)
        if kind == "number":
            return self.rng.choice([*_FLOATS, *_INTS]) if self.chance(0.4) else \
                self.rng.choice([0, 1, 2.5, 3])
        if kind == "boolean":
            return self.rng.choice([True, False])
        return None

    def new_id(self, scope: str) -> Any:
        info = self.scopes[scope]
        info["next"] += 1
        k = info["next"]
        if info["type"] == "integer":
            return info["base"] + k
        return f"{info['base']}{k}"

    def value(self, schema: Any, depth: int) -> Any:
        eff = self.effective(schema)
        if "const" in eff:
            return copy.deepcopy(eff["const"])
        if "enum" in eff:
            return copy.deepcopy(self.rng.choice(eff["enum"]))
        declared = eff.get("type")
        types = [declared] if isinstance(declared, str) else list(declared or [])
        if not types:
            if "properties" in eff:
                types = ["object"] if self.chance(0.85) else ["any"]
            elif "items" in eff or "prefixItems" in eff:
                types = ["array"] if self.chance(0.85) else ["any"]
            else:
                types = ["any"]
        if "idScope" in eff and eff["idScope"] in self.scopes:
            return self.id_value(eff["idScope"], "null" in types)
        if "ref" in eff and eff["ref"] in self.scopes:
            slot = _Id(eff["ref"], None)
            self.pending_refs.append((slot, "null" in types))
            return slot
        if "null" in types and (len(types) == 1 or self.chance(0.15)):
            return None
        kind = self.rng.choice([t for t in types if t != "null"])
        if kind == "any":
            if "properties" in eff or "items" in eff or "prefixItems" in eff:
                return self.scalar()  # those keywords constrain only objects/arrays
            return self.any_value(depth)
        if kind == "object":
            return self.object_value(eff, depth)
        if kind == "array":
            return self.array_value(eff, depth)
        return self.leaf_value(kind)

    def id_value(self, scope: str, nullable: bool) -> _Id:
        info = self.scopes[scope]
        if nullable and self.chance(0.05):
            return _Id(scope, None)
        if info["ids"] and self.chance(0.03):
            self.feature("gold-duplicate-id")
            return _Id(scope, self.rng.choice(info["ids"]))
        value = self.new_id(scope)
        info["ids"].append(value)
        return _Id(scope, value)

    def object_value(self, eff: dict[str, Any], depth: int) -> dict[str, Any]:
        props = eff.get("properties", {}) if isinstance(eff.get("properties"), dict) else {}
        required = eff.get("required", []) or []
        out: dict[str, Any] = {}
        for key, sub in props.items():
            sub_eff = self.effective(sub)
            if key in required or "idScope" in sub_eff or (depth < 4 and self.chance(0.8)):
                out[key] = self.value(sub, depth + 1)
        additional = eff.get("additionalProperties", True)
        if additional is not False and depth < 3 and self.chance(0.1):
            key = self.rng.choice(_KEYS)
            if key not in props:
                out[key] = (self.any_value(depth + 1) if additional is True
                            else self.value(additional, depth + 1))
        return out

    def array_value(self, eff: dict[str, Any], depth: int) -> Any:
        prefix = eff.get("prefixItems", []) or []
        items = eff.get("items")
        low, high = int(eff.get("minItems", 0)), int(eff.get("maxItems", 10**9))
        is_records = self.record_scope(items) is not None
        n_tail = 0 if depth >= 4 else self.rng.randint(0, self.size + (2 if is_records else 0))
        out: list[Any] = []
        n_prefix = len(prefix) if (n_tail and items is not None) else self.rng.randint(
            0, len(prefix))
        for k in range(n_prefix):
            out.append(self.value(prefix[k], depth + 1))
        if n_prefix == len(prefix) and items is not False:
            for _ in range(n_tail):
                out.append(self.value(items, depth + 1) if items not in (None, True)
                           else self.any_value(depth + 1))
        while len(out) < low:
            out.append(self.value(prefix[len(out)], depth + 1) if len(out) < len(prefix)
                       else self.value(items if items is not None else {}, depth + 1))
        del out[high:]
        if eff.get("order") == "align" and not (prefix and items is None):
            # without items, positions past a prefix are compared one to one
            return _Align(out, len(prefix))
        return out

    def record_scope(self, items: Any) -> str | None:
        eff = self.effective(items)
        props = eff.get("properties")
        if not isinstance(props, dict):
            return None
        for sub in props.values():
            scope = self.effective(sub).get("idScope")
            if scope in self.scopes:
                return scope
        return None

    def resolve_refs(self) -> None:
        for slot, nullable in self.pending_refs:
            ids = self.scopes[slot.scope]["ids"]
            if nullable and self.chance(0.1):
                slot.value = None
            elif ids and self.chance(0.95):
                slot.value = self.rng.choice(ids)
            else:
                self.feature("dangling-ref")
                slot.value = 999_999 if self.scopes[slot.scope]["type"] == "integer" else "zz"

    # -- the candidate --------------------------------------------------------------
    def wrong_value(self) -> Any:
        return copy.deepcopy(self.rng.choice(
            [{}, [], {"a": 1}, [1, "x"], True, False, 0, 1.5, "x", "", 10**300, 1e308,
             -1e308, 5e-324, 2**53 + 1, [None], {"": None}]))

    def edit(self, value: Any) -> Any:
        if isinstance(value, bool):
            return not value
        if isinstance(value, str):
            if not value or self.chance(0.2):
                return self.rng.choice(_STRINGS)
            k = self.rng.randrange(len(value))
            return value[:k] + self.rng.choice(["", "x", "Ω", value[k] * 2]) + value[k + 1:]
        if isinstance(value, int):
            return self.rng.choice([value + 1, value - 1, -value, value * 3 + 1, *_INTS[:6]])
        if isinstance(value, float):
            return self.rng.choice([value / 2, -value, 0.0, 1e308, -1e308, 5e-324,
                                    value + 1.0 if abs(value) < 1e300 else 0.0])
        return self.wrong_value()

    def corrupt(self, gold: Any, schema: Any, depth: int) -> Any:
        eff = self.effective(schema)
        p = self.intensity
        r = self.rng.random()
        if isinstance(gold, _Id):
            return self.corrupt_id(gold)
        if r < p * 0.15:
            return None
        if r < p * 0.3:
            return self.wrong_value()
        if isinstance(gold, dict):
            return self.corrupt_object(gold, eff, depth)
        if isinstance(gold, _Align | list):
            return self.corrupt_array(gold, eff, depth)
        if self.chance(p):
            return self.edit(gold)
        return copy.deepcopy(gold)

    def corrupt_id(self, gold: _Id) -> _Id:
        r = self.rng.random()
        p = self.intensity
        if r < p * 0.1:
            return _Id(gold.scope, None)
        if r < p * 0.3:
            ids = self.scopes[gold.scope]["ids"]
            if ids:
                return _Id(gold.scope, self.rng.choice(ids))  # rerouted / duplicated
        elif r < p * 0.5:
            self.feature("wrong-type-id")
            return _Id(gold.scope, copy.deepcopy(self.rng.choice(_WRONG_IDS)))
        return _Id(gold.scope, gold.value)

    def corrupt_object(self, gold: dict[str, Any], eff: dict[str, Any],
                       depth: int) -> dict[str, Any]:
        props = eff.get("properties", {}) if isinstance(eff.get("properties"), dict) else {}
        additional = eff.get("additionalProperties", {})
        p = self.intensity
        out: dict[str, Any] = {}
        renamed = False
        for key, value in gold.items():
            sub = props.get(key, additional if isinstance(additional, dict) else {})
            r = self.rng.random()
            if r < p * 0.3:
                continue  # dropped
            new = self.corrupt(value, sub, depth + 1)
            if r < p * 0.45:
                renamed = True
                self.feature("renamed-key")
                key = self.rng.choice([key + "x", key[:-1], key.upper(), " " + key,
                                       self.rng.choice(_KEYS)])
            out[key] = new
        if self.chance(p * 0.4):
            if self.chance(0.5):
                renamed = True
                key = self.rng.choice(_KEYS)
            else:  # a key no comparator relates to any other (no pairing changes)
                key = "\u2603" + str(self.rng.randrange(100))
            if key not in out:
                out[key] = self.any_value(depth + 1)
        if renamed:  # the engine may pair keys differently: no invariance claims inside
            found: list[str] = []
            out = {k: _strip(v, found) for k, v in out.items()}
            if found:
                self.relabel_safe = False
        if self.chance(0.2):
            items = list(out.items())
            self.rng.shuffle(items)
            out = dict(items)
        return out

    def corrupt_array(self, gold: Any, eff: dict[str, Any], depth: int) -> Any:
        align = isinstance(gold, _Align)
        values = gold.items if align else gold
        prefix = eff.get("prefixItems", []) or []
        items = eff.get("items", {})
        p = self.intensity
        out: list[Any] = []
        made_for: list[int | None] = []  # the prefix position each was made for
        for k, value in enumerate(values):
            sub = prefix[k] if k < len(prefix) else (items if isinstance(items, dict) else {})
            r = self.rng.random()
            if r < p * 0.25:
                continue
            new = self.corrupt(value, sub, depth + 1)
            out.append(new)
            made_for.append(k if k < len(prefix) else None)
            if r < p * 0.4:
                self.feature("duplicated-item")
                out.append(copy.deepcopy(new))
                made_for.append(made_for[-1])
        if isinstance(items, dict) and self.chance(p * 0.4):
            for _ in range(self.rng.randint(1, 2)):
                extra = self.value(items, depth + 1)
                self.resolve_refs()
                self.pending_refs.clear()
                at = self.rng.randint(0, len(out))
                out.insert(at, extra)
                made_for.insert(at, None)
        if not align and len(out) > 1 and self.chance(p):
            k = self.rng.randrange(len(out) - 1)
            out[k], out[k + 1] = out[k + 1], out[k]
            made_for[k], made_for[k + 1] = made_for[k + 1], made_for[k]
        if prefix:  # an item now read with another position's schema: never permuted
            out = [value if made_for[k] == (k if k < len(prefix) else None)
                   else _frozen(value) for k, value in enumerate(out)]
        if align:
            return _Align(out, len(prefix))
        return out

    # -- sabotage --------------------------------------------------------------------
    def sabotage(self, schema: dict[str, Any]) -> dict[str, Any]:
        """One deliberate defect that the engine must refuse with a SchemaError."""
        self.feature("sabotage")
        targets: list[dict[str, Any]] = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                targets.append(node)
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        walk(schema)
        node = self.rng.choice(targets)
        kind = self.rng.randrange(10)
        defs = schema.setdefault("$defs", {})
        if kind == 0:
            node["keyScore"] = ["jaro"]
        elif kind == 1:
            defs["S"] = {"type": "string"}
            node["$ref"] = "#/$defs/S/type/x"
        elif kind == 2:
            defs["F"] = True
            node["$ref"] = "#/$defs/F/x"
        elif kind == 3:
            defs["C"] = {"$ref": "#/$defs/C"}
            node["$ref"] = "#/$defs/C"
        elif kind == 4:
            node["valueWeight"] = 10**400
        elif kind == 5:
            node["prefixItems"] = [{}]
            node["items"] = {}
            node["prefixWeights"] = [-1]
        elif kind == 6:
            node["score"] = ["exact"]
        elif kind == 7:
            node["keyImportance"] = 0
            node["valueImportance"] = 0
            node["type"] = "object"
        elif kind == 8:
            node["ref"] = "no such scope"
            node["type"] = "integer"
        else:
            node["type"] = ["integer", "string"]
            node["score"] = "invdiff"
        return schema

    def run(self) -> HostileTriple:
        schema = self.make_schema()
        gold_tree = self.value(schema, 0)
        self.resolve_refs()
        self.pending_refs.clear()
        self.intensity = self.rng.choice([0.0, 0.05, 0.15, 0.3, 0.5])
        candidate_tree = self.corrupt(gold_tree, schema, 0)
        if self.chance(0.03):
            candidate_tree = self.wrong_value()
        if self.defs:
            schema = dict(schema)
            schema["$defs"] = {**schema.get("$defs", {}), **self.defs}
        if self.chance(0.04):
            schema = self.sabotage(schema)
        return HostileTriple(seed=-1, size=self.size, schema=schema, gold_tree=gold_tree,
                             candidate_tree=candidate_tree, features=self.features,
                             relabel_safe=self.relabel_safe)


def generate(seed: int, *, size: int = DEFAULT_SIZE, nested: bool = False) -> HostileTriple:
    """The :class:`HostileTriple` of ``seed`` (see :func:`triple`)."""
    result = _Generator(seed, size, nested).run()
    result.seed = seed
    return result


def triple(seed: int, *, size: int = DEFAULT_SIZE,
           nested: bool = False) -> tuple[dict[str, Any], Any, Any]:
    """A hostile ``(schema, gold, candidate)`` drawn from ``random.Random(seed)``.

    Parameters
    ----------
    seed : int
        Any integer; the same seed gives the same triple everywhere.
    size : int
        Rough bound on properties per object and elements per list (documents stay
        small: a few dozen values).
    nested : bool
        Also put scope record arrays inside other arrays (see the module's list).

    Returns
    -------
    schema : dict
        An OA schema; pass ``comparators=COMPARATORS`` when scoring, as it may name
        the custom comparators of :data:`COMPARATORS`.
    gold : JSON value
        Satisfies ``schema`` (unless the schema is one of the few sabotaged ones).
    candidate : JSON value
        A corrupted variant of the gold.

    Examples
    --------
    >>> schema, gold, candidate = triple(11, size=2)
    >>> isinstance(schema, dict)
    True
    """
    return generate(seed, size=size, nested=nested).materialize()
