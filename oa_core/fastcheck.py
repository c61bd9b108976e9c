"""Fast yes/no checks of documents, explained by the slow checks when the answer is no.

Scoring a small pair used to spend about a quarter of its time proving that the
gold and the candidate are valid: ``jsonschema`` walks each document through a
chain of generators and evolved validators, and :func:`~oa_core.validation.check_json`
builds a JSON Pointer for every value it visits. Almost every document passes, so
this module answers the question "is there any problem?" quickly and exactly, and
leaves the description of a problem (its pointer and message) to the slow checks:

* :func:`compile_schema` turns an OA schema's standard JSON Schema keywords into a
  tree of closures that answers ``jsonschema``'s ``is_valid`` exactly (same type
  rules, same equality for ``enum``/``const``, same regex search for ``pattern``);
  a schema using a keyword it does not implement (``$id``, ``$anchor``,
  ``$dynamicRef``, ``unevaluated*``, ``patternProperties``, a remote ``$ref``)
  compiles to ``None`` and every document then goes through ``jsonschema``;
* :func:`is_plain_json` answers "would :func:`~oa_core.validation.check_json`
  raise?" without building a pointer.

Both are exact rather than merely conservative: ``not`` and ``oneOf`` turn a false
"valid" of a branch into a false "invalid" of the whole, so every keyword here
agrees with ``jsonschema`` on every JSON value (``tests/test_throughput_paths.py``
checks both on every sample schema and on random documents and schemas).

Examples
--------
>>> check = compile_schema({"type": "object", "required": ["a"],
...                         "properties": {"a": {"type": "integer", "minimum": 0}}})
>>> check({"a": 3}), check({"a": -1}), check({"a": 2.0}), check({"b": 1})
(True, False, True, False)
>>> compile_schema({"patternProperties": {"^x": {}}}) is None
True
>>> is_plain_json({"a": [1, 2.5, None]}), is_plain_json({"a": float("nan")})
(True, False)
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any
from urllib.parse import unquote

from jsonschema import Draft202012Validator

from .errors import LARGEST_FLOAT_INTEGER
from .options import Limits
from .pointer import resolve

try:  # jsonschema's own equality and uniqueness, so enum/const/uniqueItems agree
    from jsonschema._utils import equal as _equal
    from jsonschema._utils import uniq as _uniq
except ImportError:  # pragma: no cover - a jsonschema without them: no fast path
    _equal = _uniq = None

__all__ = ["Check", "compile_schema", "is_plain_json"]

Check = Callable[[Any], bool]

# Keywords jsonschema's Draft 2020-12 validator acts on; every other keyword is an
# annotation it ignores (OA's own keywords among them), and so is ignored here.
_ACTIVE = frozenset(Draft202012Validator.VALIDATORS)
# Keywords that change how $ref resolves, or that this module does not implement.
_UNSUPPORTED = frozenset({"$id", "$anchor", "$dynamicRef", "$dynamicAnchor",
                          "$vocabulary", "unevaluatedItems", "unevaluatedProperties",
                          "patternProperties"})
_SUPPORTED = frozenset({
    "$ref", "type", "properties", "required", "additionalProperties", "items",
    "prefixItems", "enum", "const", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems",
    "minProperties", "maxProperties", "uniqueItems", "pattern", "format", "allOf",
    "anyOf", "oneOf", "not", "if", "dependentRequired", "dependentSchemas",
    "propertyNames", "contains"})


class _Unsupported(Exception):
    """The schema uses something this module does not implement exactly."""


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def _type_test(name: str) -> Check:
    # jsonschema's Draft 2020-12 type checker, type by type.
    if name == "object":
        return lambda v: isinstance(v, dict)
    if name == "array":
        return lambda v: isinstance(v, list)
    if name == "string":
        return lambda v: isinstance(v, str)
    if name == "boolean":
        return lambda v: isinstance(v, bool)
    if name == "null":
        return lambda v: v is None
    if name == "number":
        return _is_number
    if name == "integer":
        return lambda v: not isinstance(v, bool) and (
            isinstance(v, int) or (isinstance(v, float) and v.is_integer()))
    raise _Unsupported(f"type {name!r}")


def _multiple_of(step: Any) -> Check:
    # jsonschema's multipleOf, literally (float steps divide, integer steps take %).
    def check(value: Any) -> bool:
        if not _is_number(value):
            return True
        if isinstance(step, float):
            quotient = value / step
            try:
                failed = int(quotient) != quotient
            except OverflowError:
                failed = (Fraction(value) / Fraction(step)).denominator != 1
        else:
            failed = bool(value % step)
        return not failed
    return check


class _Compiler:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.by_ref: dict[str, Check] = {}

    def ref(self, target: Any) -> Check:
        if not isinstance(target, str) or not target.startswith("#"):
            raise _Unsupported(f"$ref {target!r}")
        fragment = unquote(target[1:])
        if fragment and not fragment.startswith("/"):
            raise _Unsupported(f"$ref {target!r}")  # an anchor
        found = self.by_ref.get(fragment)
        if found is not None:
            return found
        # A slot filled once the target is compiled, so recursive schemas terminate.
        slot: list[Check] = []
        self.by_ref[fragment] = lambda v: slot[0](v)
        try:
            schema = resolve(self.root, fragment)
        except KeyError:
            raise _Unsupported(f"$ref {target!r} names nothing") from None
        slot.append(self.compile(schema))
        return self.by_ref[fragment]

    def compile(self, schema: Any) -> Check:
        if schema is True:
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict):
            raise _Unsupported("a schema that is not an object or boolean")
        active = [k for k in schema if k in _ACTIVE or k in _UNSUPPORTED]
        if any(k in _UNSUPPORTED or k not in _SUPPORTED for k in active):
            raise _Unsupported(", ".join(k for k in active if k not in _SUPPORTED))
        checks = [c for k in active if (c := self.keyword(k, schema[k], schema)) is not None]
        if not checks:
            return lambda v: True
        if len(checks) == 1:
            return checks[0]
        return lambda v: all(check(v) for check in checks)

    def keyword(self, key: str, value: Any, schema: dict[str, Any]) -> Check | None:
        method = getattr(self, "kw_" + key.lstrip("$"), None)
        if method is None:
            raise _Unsupported(key)
        result: Check | None = method(value, schema)
        return result

    # -- one method per keyword, each the image of jsonschema's ----------------------
    def kw_ref(self, value: Any, schema: dict[str, Any]) -> Check:
        return self.ref(value)

    def kw_format(self, value: Any, schema: dict[str, Any]) -> None:
        return None  # an annotation: OA's validator has no format checker

    def kw_type(self, value: Any, schema: dict[str, Any]) -> Check:
        tests = [_type_test(name) for name in (value if isinstance(value, list) else [value])]
        if len(tests) == 1:
            return tests[0]
        return lambda v: any(test(v) for test in tests)

    def kw_properties(self, value: dict[str, Any], schema: dict[str, Any]) -> Check:
        subs = [(name, self.compile(sub)) for name, sub in value.items()]

        def check(v: Any) -> bool:
            return not isinstance(v, dict) or all(
                name not in v or sub(v[name]) for name, sub in subs)
        return check

    def kw_required(self, value: list[str], schema: dict[str, Any]) -> Check:
        names = list(value)
        return lambda v: not isinstance(v, dict) or all(name in v for name in names)

    def kw_additionalProperties(self, value: Any, schema: dict[str, Any]) -> Check:
        known = frozenset(schema.get("properties", {}))
        if isinstance(value, dict):
            sub = self.compile(value)
            return lambda v: not isinstance(v, dict) or all(
                sub(item) for key, item in v.items() if key not in known)
        if not value:  # false (jsonschema tests truthiness)
            return lambda v: not isinstance(v, dict) or all(key in known for key in v)
        return lambda v: True

    def kw_items(self, value: Any, schema: dict[str, Any]) -> Check:
        prefix = len(schema.get("prefixItems", []))
        if value is False:
            return lambda v: not isinstance(v, list) or len(v) <= prefix
        sub = self.compile(value)
        return lambda v: not isinstance(v, list) or all(sub(item) for item in v[prefix:])

    def kw_prefixItems(self, value: list[Any], schema: dict[str, Any]) -> Check:
        subs = [self.compile(sub) for sub in value]
        return lambda v: not isinstance(v, list) or all(
            sub(item) for item, sub in zip(v, subs, strict=False))

    def kw_enum(self, value: list[Any], schema: dict[str, Any]) -> Check:
        options = list(value)
        return lambda v: any(_equal(each, v) for each in options)

    def kw_const(self, value: Any, schema: dict[str, Any]) -> Check:
        return lambda v: bool(_equal(v, value))

    def kw_minimum(self, value: Any, schema: dict[str, Any]) -> Check:
        return lambda v: not _is_number(v) or not v < value

    def kw_maximum(self, value: Any, schema: dict[str, Any]) -> Check:
        return lambda v: not _is_number(v) or not v > value

    def kw_exclusiveMinimum(self, value: Any, schema: dict[str, Any]) -> Check:
        return lambda v: not _is_number(v) or not v <= value

    def kw_exclusiveMaximum(self, value: Any, schema: dict[str, Any]) -> Check:
        return lambda v: not _is_number(v) or not v >= value

    def kw_multipleOf(self, value: Any, schema: dict[str, Any]) -> Check:
        return _multiple_of(value)

    def kw_minLength(self, value: int, schema: dict[str, Any]) -> Check:
        return lambda v: not isinstance(v, str) or not len(v) < value

    def kw_maxLength(self, value: int, schema: dict[str, Any]) -> Check:
        return lambda v: not isinstance(v, str) or not len(v) > value

    def kw_minItems(self, value: int, schema: dict[str, Any]) -> Check:
        return lambda v: not isinstance(v, list) or not len(v) < value

    def kw_maxItems(self, value: int, schema: dict[str, Any]) -> Check:
        return lambda v: not isinstance(v, list) or not len(v) > value

    def kw_minProperties(self, value: int, schema: dict[str, Any]) -> Check:
        return lambda v: not isinstance(v, dict) or not len(v) < value

    def kw_maxProperties(self, value: int, schema: dict[str, Any]) -> Check:
        return lambda v: not isinstance(v, dict) or not len(v) > value

    def kw_uniqueItems(self, value: Any, schema: dict[str, Any]) -> Check:
        if not value:
            return lambda v: True
        return lambda v: not isinstance(v, list) or bool(_uniq(v))

    def kw_pattern(self, value: str, schema: dict[str, Any]) -> Check:
        return lambda v: not isinstance(v, str) or re.search(value, v) is not None

    def kw_allOf(self, value: list[Any], schema: dict[str, Any]) -> Check:
        subs = [self.compile(sub) for sub in value]
        return lambda v: all(sub(v) for sub in subs)

    def kw_anyOf(self, value: list[Any], schema: dict[str, Any]) -> Check:
        subs = [self.compile(sub) for sub in value]
        return lambda v: any(sub(v) for sub in subs)

    def kw_oneOf(self, value: list[Any], schema: dict[str, Any]) -> Check:
        subs = [self.compile(sub) for sub in value]
        return lambda v: sum(1 for sub in subs if sub(v)) == 1

    def kw_not(self, value: Any, schema: dict[str, Any]) -> Check:
        sub = self.compile(value)
        return lambda v: not sub(v)

    def kw_if(self, value: Any, schema: dict[str, Any]) -> Check:
        test = self.compile(value)
        then = self.compile(schema["then"]) if "then" in schema else None
        other = self.compile(schema["else"]) if "else" in schema else None

        def check(v: Any) -> bool:
            if test(v):
                return then is None or then(v)
            return other is None or other(v)
        return check

    def kw_dependentRequired(self, value: dict[str, list[str]],
                             schema: dict[str, Any]) -> Check:
        rules = [(name, list(needed)) for name, needed in value.items()]
        return lambda v: not isinstance(v, dict) or all(
            name not in v or all(each in v for each in needed) for name, needed in rules)

    def kw_dependentSchemas(self, value: dict[str, Any], schema: dict[str, Any]) -> Check:
        rules = [(name, self.compile(sub)) for name, sub in value.items()]
        return lambda v: not isinstance(v, dict) or all(
            name not in v or sub(v) for name, sub in rules)

    def kw_propertyNames(self, value: Any, schema: dict[str, Any]) -> Check:
        sub = self.compile(value)
        return lambda v: not isinstance(v, dict) or all(sub(key) for key in v)

    def kw_contains(self, value: Any, schema: dict[str, Any]) -> Check:
        sub = self.compile(value)
        low = schema.get("minContains", 1)
        high = schema.get("maxContains")

        def check(v: Any) -> bool:
            if not isinstance(v, list):
                return True
            matches = sum(1 for item in v if sub(item))
            return matches >= low and (high is None or matches <= high)
        return check


def compile_schema(raw: Any) -> Check | None:
    """An exact ``is_valid`` for the standard keywords of ``raw``, or None.

    Parameters
    ----------
    raw : dict or bool
        An OA schema as JSON data, already checked against the Draft 2020-12
        meta-schema (:meth:`~oa_core.schema.Schema.parse` does).

    Returns
    -------
    callable or None
        ``check(document) -> bool``, equal to
        ``Draft202012Validator(raw).is_valid(document)`` on every JSON value; None
        when ``raw`` uses a keyword this module does not implement.
    """
    if _equal is None or _uniq is None:
        return None
    try:
        return _Compiler(raw if isinstance(raw, dict) else {}).compile(raw)
    except (_Unsupported, RecursionError):
        return None


def is_plain_json(value: Any, limits: Limits | None = None) -> bool:
    """Whether :func:`~oa_core.validation.check_json` accepts ``value`` (no pointer is
    built: the caller asks ``check_json`` where the problem is when this says no)."""
    limits = limits or Limits()
    max_depth, max_items = limits.max_depth, limits.max_items
    max_length, largest = limits.max_string_length, LARGEST_FLOAT_INTEGER
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return False
        if isinstance(node, dict):
            if len(node) > max_items:
                return False
            for key in node:
                if not isinstance(key, str):
                    return False
            children: Any = node.values()
        elif isinstance(node, list):
            if len(node) > max_items:
                return False
            children = node
        else:
            children = (node,)
            depth -= 1  # the value itself, checked below at its own depth
        deep = depth + 1 > max_depth  # whether a scalar child is too deep
        for child in children:
            kind = type(child)
            # the exact JSON types first (the common case: the same verdicts as the
            # chain below, which they would reach), then the subclasses check_json admits
            if kind is str:
                if deep or len(child) > max_length:
                    return False
                continue
            if kind is dict or kind is list:
                stack.append((child, depth + 1))
                continue
            if kind is int:
                if deep or abs(child) > largest:
                    return False
                continue
            if kind is float:
                if deep or not math.isfinite(child):
                    return False
                continue
            if child is None or kind is bool:
                if deep:
                    return False
                continue
            if kind is not bool and isinstance(child, str):
                if len(child) > max_length or depth + 1 > max_depth:
                    return False
            elif kind is dict or kind is list or isinstance(child, dict | list):
                stack.append((child, depth + 1))
            elif child is None or kind is bool or isinstance(child, bool):
                if depth + 1 > max_depth:
                    return False
            elif isinstance(child, int):
                if abs(child) > largest or depth + 1 > max_depth:
                    return False
            elif isinstance(child, float):
                if not math.isfinite(child) or depth + 1 > max_depth:
                    return False
            else:
                return False
    return True
