"""Parsing and validating an OA schema (JSON Schema plus OA keywords).

:meth:`Schema.parse` checks the schema once (standard JSON Schema validity, every
OA keyword's type and range, comparator names, scopes and references) and builds
a tree of :class:`SchemaNode` objects that the scorer walks. Parse once, score
many pairs.

Decisions where the paper is silent (see ``docs/schema.md``):

* local ``$ref`` (``#/$defs/...``) is followed, through chains of ``$ref``; keywords
  beside a ``$ref`` override the target's (the nearest one wins); recursive schemas
  are allowed, a cycle of ``$ref`` that never reaches a schema is an error.
* ``properties``/``items``/``prefixItems`` without ``type`` constrain only objects
  (arrays): values of other kinds are compared by their JSON kinds, as JSON Schema
  says (the node's ``inferred`` flag).
* ``anyOf``/``oneOf`` with one non-null branch (what pydantic emits for
  ``Optional[X]``) is that branch, nullable; other combinators are scored by the
  values' JSON kinds, with a warning.
* a list of types (``["string", "null"]``) is the non-null type, nullable; two or
  more non-null types score by the values' JSON kinds.

Examples
--------
>>> schema = Schema.parse({"type": "object", "properties": {
...     "name": {"type": "string", "score": "exact", "valueWeight": 2}}})
>>> schema.root.properties["name"].comparator
'exact'
>>> schema.root.weights["name"]
2.0
>>> Schema.parse('{"type": "array", "order": "align"} // JSONC is fine').root.order
'align'
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError as _JSONSchemaError

from .comparators import DEFAULT_FOR_KIND, ComparatorRegistry
from .errors import (
    LARGEST_FLOAT_INTEGER,
    Diagnostic,
    SchemaError,
    lone_surrogate,
    lone_surrogate_error,
)
from .jsonio import loads
from .metaschema import check_json_schema
from .pointer import join, resolve

if TYPE_CHECKING:
    from .native import PreparedPlan

__all__ = [
    "ANY",
    "OA_KEYWORDS",
    "STANDARD_KEYWORDS",
    "Schema",
    "SchemaNode",
    "ScopeDecl",
    "concrete",
]

OA_KEYWORDS = frozenset({
    "score", "threshold", "nullScore", "keyScore", "keyThreshold", "keyImportance",
    "valueImportance", "valueWeight", "order", "prefixWeights", "ignoreMissing",
    "ignoreExcess", "prefixImportance", "restImportance", "idScope", "ref", "blockBy",
})

STANDARD_KEYWORDS = frozenset({
    "$schema", "$id", "$ref", "$defs", "definitions", "$comment", "$anchor",
    "$dynamicRef", "$dynamicAnchor", "$vocabulary", "title", "description", "default",
    "examples", "deprecated", "readOnly", "writeOnly", "type", "enum", "const",
    "properties", "patternProperties", "additionalProperties", "unevaluatedProperties",
    "required", "propertyNames", "minProperties", "maxProperties", "dependentRequired",
    "dependentSchemas", "items", "prefixItems", "additionalItems", "contains",
    "minContains", "maxContains", "minItems", "maxItems", "uniqueItems",
    "unevaluatedItems", "minLength", "maxLength", "pattern", "format", "contentEncoding",
    "contentMediaType", "contentSchema", "minimum", "maximum", "exclusiveMinimum",
    "exclusiveMaximum", "multipleOf", "allOf", "anyOf", "oneOf", "not", "if", "then",
    "else", "nullable", "discriminator",
})

_KNOWN = sorted(OA_KEYWORDS | STANDARD_KEYWORDS)
_PRIMITIVES = frozenset({"string", "number", "integer", "boolean"})
_MAX_DEPTH = 200
# Keywords that never change how a node scores: a $ref beside them shares its node.
_ANNOTATIONS = frozenset({"title", "description", "$comment", "default", "examples",
                          "deprecated", "readOnly", "writeOnly", "valueWeight", "$id",
                          "$anchor", "$schema"})


def _optional_branch(spec: dict[str, Any]) -> tuple[str, int, Any, dict[str, Any]] | None:
    """``anyOf``/``oneOf`` with one non-null branch: (keyword, index, branch, the other
    keywords, with ``nullable`` when a null branch was there); else None."""
    for keyword in ("anyOf", "oneOf"):
        branches = spec.get(keyword)
        if not isinstance(branches, list):
            continue
        non_null = [(k, b) for k, b in enumerate(branches)
                    if not (isinstance(b, dict) and b.get("type") == "null")]
        if len(non_null) != 1 or not isinstance(non_null[0][1], dict):
            return None
        index, branch = non_null[0]
        extras = {k: v for k, v in spec.items() if k != keyword}
        if len(non_null) < len(branches):
            extras["nullable"] = True
        return keyword, index, branch, extras
    return None


def _kind_of_type(schema_type: str) -> str:
    """The comparator value kind of a schema type."""
    return "number" if schema_type == "integer" else schema_type


@dataclass(eq=False, slots=True)
class SchemaNode:
    """One node of a parsed OA schema.

    ``type`` is one of object, array, string, number, integer, boolean, null, or
    ``any`` (compare by the values' JSON kinds with default settings).
    """

    pointer: str
    type: str = "any"
    inferred: bool = False  # type read from properties/items, not declared by "type"
    nullable: bool = True
    null_score: float = 0.0
    enum: tuple[Any, ...] | None = None
    # primitive leaves
    comparator: str | None = None
    threshold: float = 0.0
    id_scope: str | None = None
    ref: str | None = None
    # objects
    properties: dict[str, SchemaNode] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)
    additional: SchemaNode | None = None
    key_score: str = "jaro"
    key_threshold: float = 0.0
    key_importance: float = 0.0
    value_importance: float = 1.0
    # arrays
    items: SchemaNode | None = None
    prefix_items: tuple[SchemaNode, ...] = ()
    prefix_weights: tuple[float, ...] = ()
    prefix_importance: float = 1.0
    rest_importance: float = 1.0
    order: str = "fixed"
    # properties whose equal values an unordered list's items must share to be
    # paired (opt-in blocking, see oa_core.blocking); empty: every pair is compared
    block_by: tuple[str, ...] = ()
    ignore_missing: bool = False
    ignore_excess: bool = False

    def __repr__(self) -> str:
        return f"SchemaNode({self.pointer or '/'!s}, type={self.type})"

    @property
    def is_primitive(self) -> bool:
        return self.type in _PRIMITIVES

    def property_schema(self, key: str) -> SchemaNode:
        """The schema of a property (declared, ``additionalProperties``, or any)."""
        node = self.properties.get(key)
        if node is not None:
            return node
        return self.additional if self.additional is not None else ANY

    def item_schema(self, index: int) -> SchemaNode:
        """The schema of the element at ``index``."""
        if index < len(self.prefix_items):
            return self.prefix_items[index]
        return self.items if self.items is not None else ANY

    def walk(self) -> Iterator[SchemaNode]:
        """Every node reachable from this one, each once, depth first.

        A node's ``pointer`` identifies it (a node reached through several ``$ref``
        is one node with one pointer).
        """
        seen: set[str] = set()
        stack = [self]
        while stack:
            node = stack.pop()
            if node.pointer in seen:
                continue
            seen.add(node.pointer)
            yield node
            children = [*node.properties.values(), *node.prefix_items]
            for extra in (node.additional, node.items):
                if extra is not None:
                    children.append(extra)
            stack.extend(reversed(children))


ANY = SchemaNode(pointer="")
ANY_OBJECT = SchemaNode(pointer="", type="object")
ANY_ARRAY = SchemaNode(pointer="", type="array")


_CONTAINER = {"object": dict, "array": list}


def concrete(node: SchemaNode, gold: Any, candidate: Any) -> SchemaNode:
    """The schema to compare two values with.

    ``node`` itself, unless it is ``any`` (two objects, or two arrays, then use the
    default object or array settings) or its type was only inferred from
    ``properties``/``items`` and neither value is of that type (JSON Schema keywords
    constrain only values of their type: such values are compared by their kinds).
    """
    if node.inferred and not (isinstance(gold, _CONTAINER[node.type])
                              or isinstance(candidate, _CONTAINER[node.type])):
        node = ANY
    if node.type != "any":
        return node
    if isinstance(gold, dict) and isinstance(candidate, dict):
        return ANY_OBJECT
    if isinstance(gold, list) and isinstance(candidate, list):
        return ANY_ARRAY
    return node


@dataclass(frozen=True, slots=True)
class ScopeDecl:
    """An identifier scope: ``idScope`` on field ``id_field`` of ``records``' items.

    The records array is identified by its schema pointer (``records.pointer``).
    """

    name: str
    id_field: str
    id_node: SchemaNode
    records: SchemaNode  # the array whose items are the records
    record: SchemaNode  # the records' object schema
    id_type: str


class Schema:
    """A parsed, validated OA schema. Build it with :meth:`parse`.

    Attributes
    ----------
    root : SchemaNode
    raw : dict
        The schema as given (used for JSON Schema validation of documents).
    scopes : dict[str, ScopeDecl]
    records_of : dict[str, ScopeDecl]
        The scope whose records an array node holds, by the array's schema pointer.
    dependencies : dict[str, frozenset[str]]
        Scope A depends on B when a ``ref`` to B lies inside A's records.
    warnings : list[Diagnostic]
    comparators : ComparatorRegistry
    """

    def __init__(self, root: SchemaNode, raw: Any, scopes: dict[str, ScopeDecl],
                 dependencies: dict[str, frozenset[str]], warnings: list[Diagnostic],
                 comparators: ComparatorRegistry) -> None:
        self.root = root
        self.raw = raw
        self.scopes = scopes
        self.dependencies = dependencies
        self.warnings = warnings
        self.comparators = comparators
        self.records_of = {decl.records.pointer: decl for decl in scopes.values()}
        self.validator = Draft202012Validator(raw)
        # the Rust engine's plan of this schema (oa_core.native.prepared_plan fills it
        # at the first score): read by every score after, one attribute for a metric
        self._plan: PreparedPlan | None = None

    @classmethod
    def parse(cls, schema: Any, *, comparators: Mapping[str, Any] | None = None) -> Schema:
        """Validate an OA schema and build its tree.

        Parameters
        ----------
        schema : dict, bool, str or bytes
            The schema, or its JSON/JSONC text.
        comparators : mapping name -> callable, optional
            Custom comparators for this schema (see
            :class:`~oa_core.comparators.ComparatorRegistry`).

        Raises
        ------
        SchemaError
            With the JSON Pointer of the offending keyword and what to do.
        """
        if isinstance(schema, Schema):
            return schema
        if isinstance(schema, str | bytes):
            schema = loads(schema, document="schema")
        if isinstance(schema, bool):
            schema = {}
        if not isinstance(schema, dict):
            raise SchemaError("", f"a schema must be a JSON object, got {type(schema).__name__}",
                              fix="wrap the schema in {...}")
        _check_text(schema)
        try:
            check_json_schema(schema)
        except _JSONSchemaError as exc:
            pointer = join("", *exc.path)
            raise SchemaError(pointer, f"not valid JSON Schema: {exc.message}",
                              fix="correct this keyword's value") from None
        try:
            registry = ComparatorRegistry(dict(comparators or {}))
        except (TypeError, ValueError) as exc:
            raise SchemaError("", str(exc), fix="rename or fix the custom comparator",
                              document="options") from None
        parser = _Parser(schema, registry)
        parser.check_refs()
        root = parser.parse(schema, "", depth=0)
        scopes, dependencies = parser.finish_scopes()
        parser.check_blocking()
        parsed = cls(root, schema, scopes, dependencies, parser.warnings, registry)
        try:  # a schema that refers to itself before reading any value never stops
            next(parsed.validator.iter_errors(None), None)
        except RecursionError:
            raise SchemaError("", "the schema refers to itself without reading any part of "
                              "the document (a $ref cycle through allOf/anyOf/oneOf/not/"
                              "if/then/else)", fix="break the cycle: let the $ref sit "
                              "below properties or items") from None
        return parsed


def _check_text(schema: dict[str, Any]) -> None:
    r"""Raise :class:`SchemaError` at the first string or key of ``schema`` (in
    document order) holding a lone surrogate: no Unicode text.

    >>> try:
    ...     _check_text({"properties": {"a\ud800": {}}})
    ... except SchemaError as err:
    ...     print(err.pointer, err.message)
    /properties an object key holds a lone surrogate (U+D800), which is not Unicode text
    """
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, str):
            point = lone_surrogate(node)
            if point is not None:
                message, fix = lone_surrogate_error(point, key=False)
                raise SchemaError(pointer, message, fix=fix)
        elif isinstance(node, dict):
            for key in node:
                point = lone_surrogate(key) if isinstance(key, str) else None
                if point is not None:
                    message, fix = lone_surrogate_error(point, key=True)
                    raise SchemaError(pointer, message, fix=fix)
            stack.extend((node[key], join(pointer, key)) for key in reversed(list(node)))
        elif isinstance(node, list):
            stack.extend((node[i], join(pointer, i)) for i in range(len(node) - 1, -1, -1))


# Where JSON Schema (2020-12, and the older `definitions`/`additionalItems`) holds
# subschemas: one, a list of them, or a map of names to them.
_SUBSCHEMA_KEYWORDS = frozenset({
    "additionalProperties", "propertyNames", "items", "contains", "not", "if", "then",
    "else", "unevaluatedItems", "unevaluatedProperties", "additionalItems"})
_SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions",
                             "dependentSchemas"})


class _Parser:
    def __init__(self, raw: dict[str, Any], registry: ComparatorRegistry) -> None:
        self.raw = raw
        self.registry = registry
        self.warnings: list[Diagnostic] = []
        self.memo: dict[str, SchemaNode] = {}
        # (scope name, id property name, id node, records array)
        self.scope_decls: list[tuple[str, str, SchemaNode, SchemaNode]] = []
        self.refs: list[SchemaNode] = []
        self.id_nodes: list[SchemaNode] = []
        self.blocked: list[SchemaNode] = []

    # -- helpers ---------------------------------------------------------------
    def warn(self, code: str, pointer: str, message: str) -> None:
        self.warnings.append(Diagnostic(code, "schema", pointer, message))

    def number(self, spec: dict[str, Any], key: str, pointer: str, default: float, *,
               unit: bool = False) -> float:
        if key not in spec:
            return default
        return self.check_number(spec[key], key, join(pointer, key), unit=unit)

    @staticmethod
    def check_number(value: Any, name: str, pointer: str, *, unit: bool = False) -> float:
        """``value`` as a float: a finite, non-negative number (in [0, 1] if ``unit``)."""
        if isinstance(value, bool) or not isinstance(value, int | float) or (
                isinstance(value, float) and not math.isfinite(value)):
            raise SchemaError(pointer, f"{name} must be a number, got {value!r}",
                              fix=f"set {name} to a number")
        if isinstance(value, int) and abs(value) > LARGEST_FLOAT_INTEGER:
            raise SchemaError(pointer, f"{name} is beyond the range of a number (about "
                              "1.8e308)", fix=f"use a smaller {name}: only ratios of weights "
                              "matter")
        if unit and not 0.0 <= value <= 1.0:
            raise SchemaError(pointer, f"{name} must be in [0, 1], got {value!r}",
                              fix=f"set {name} between 0 and 1")
        if value < 0:
            raise SchemaError(pointer, f"{name} must be >= 0, got {value!r}",
                              fix=f"use a non-negative {name}")
        return float(value)

    def boolean(self, spec: dict[str, Any], key: str, pointer: str) -> bool:
        value = spec.get(key, False)
        if not isinstance(value, bool):
            raise SchemaError(join(pointer, key), f"{key} must be true or false, got {value!r}",
                              fix=f"set {key} to true or false")
        return value

    def check_refs(self) -> None:
        """Check every ``$ref`` of the schema, scored part or not, as :meth:`resolve_ref`
        does: the validator follows the ones the score never reads too (a branch of a
        many-branch ``anyOf``, say), and a ``$ref`` it cannot resolve would stop it
        with its own exception on some document."""
        todo: list[tuple[Any, str]] = [(self.raw, "")]
        while todo:
            spec, pointer = todo.pop()
            if not isinstance(spec, dict):
                continue
            if "$ref" in spec:
                self.resolve_ref(spec["$ref"], pointer)
            for key, value in spec.items():
                if key in _SUBSCHEMA_KEYWORDS:
                    todo.append((value, join(pointer, key)))
                elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
                    todo += [(sub, join(pointer, key, str(k))) for k, sub in enumerate(value)]
                elif key in _SUBSCHEMA_MAPS and isinstance(value, dict):
                    todo += [(sub, join(pointer, key, name)) for name, sub in value.items()]

    def resolve_ref(self, ref: str, pointer: str) -> tuple[str, Any]:
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise SchemaError(join(pointer, "$ref"), f"only local $ref is supported, got {ref!r}",
                              fix="inline the referenced schema or move it under #/$defs")
        # the fragment of a URI: percent-decoded, as the JSON Schema validator reads it
        target_pointer = unquote(ref[1:])
        try:
            node = resolve(self.raw, target_pointer)
        except (KeyError, ValueError):
            raise SchemaError(join(pointer, "$ref"), f"$ref {ref!r} points at nothing",
                              fix="point $ref at an existing definition (an object under "
                              "#/$defs)") from None
        if not isinstance(node, dict | bool):
            raise SchemaError(join(pointer, "$ref"), f"$ref {ref!r} points at a "
                              f"{type(node).__name__}, not a schema",
                              fix="point $ref at a definition (an object under #/$defs)")
        return target_pointer, node

    def follow_refs(self, spec: dict[str, Any], pointer: str) -> tuple[str, Any, dict[str, Any]]:
        """Follow a chain of ``$ref`` (and of one-branch ``anyOf``/``oneOf``, what
        pydantic writes for ``Optional[X]``) to a schema that has neither.

        Returns the target's pointer, the target, and the keywords written beside the
        ``$ref``s on the way (the nearest to ``spec`` wins; a ``null`` branch adds
        ``nullable``).
        """
        siblings: dict[str, Any] = {}
        seen: list[str] = []
        current: Any = spec
        current_pointer = pointer
        while isinstance(current, dict):
            optional = _optional_branch(current)
            if optional is not None:
                keyword, index, branch, extras = optional
                siblings = {**extras, **siblings}
                current, current_pointer = branch, join(current_pointer, keyword, index)
                continue
            if "$ref" not in current:
                break
            own = {k: v for k, v in current.items() if k not in ("$ref", "$defs", "definitions")}
            siblings = {**own, **siblings}
            target_pointer, current = self.resolve_ref(current["$ref"], current_pointer)
            if target_pointer in seen or target_pointer == pointer:
                raise SchemaError(join(pointer, "$ref"), "$ref cycle that never reaches a "
                                  "schema: " + " -> ".join(["#" + p for p in [pointer, *seen,
                                                                             target_pointer]]),
                                  fix="let one of these $ref point at a real definition")
            seen.append(target_pointer)
            current_pointer = target_pointer
        return current_pointer, current, siblings

    def check_keywords(self, spec: dict[str, Any], pointer: str) -> None:
        for key in spec:
            if key in OA_KEYWORDS or key in STANDARD_KEYWORDS or key.startswith("x-"):
                continue
            lowered = {k.lower(): k for k in _KNOWN}
            guess = lowered.get(key.lower()) or next(
                iter(difflib.get_close_matches(key, _KNOWN, n=1, cutoff=0.75)), None)
            hint = f"; did you mean {guess!r}?" if guess else ""
            self.warn("unknown-keyword", join(pointer, key),
                      f"unknown keyword {key!r} is ignored{hint}")

    # -- parsing ---------------------------------------------------------------
    def parse(self, spec: Any, pointer: str, *, depth: int) -> SchemaNode:
        if depth > _MAX_DEPTH:
            raise SchemaError(pointer, f"schema nesting deeper than {_MAX_DEPTH}",
                              fix="flatten the schema")
        if isinstance(spec, bool) or spec == {}:
            return SchemaNode(pointer=pointer)  # any value; false is refused by validation
        if not isinstance(spec, dict):
            raise SchemaError(pointer, f"a subschema must be an object, got {spec!r}",
                              fix="use a JSON object here")
        if "$ref" in spec or _optional_branch(spec) is not None:
            return self.referenced(spec, pointer, depth)
        return self.build(spec, pointer, depth)

    def referenced(self, spec: dict[str, Any], pointer: str, depth: int,
                   extra: Mapping[str, Any] | None = None) -> SchemaNode:
        """The node of a ``$ref`` (with the keywords beside it and ``extra`` applied).

        Nodes are shared by the target's pointer and the keywords that change it, so
        that a recursive schema reuses the node that is still being filled.
        """
        target_pointer, target, siblings = self.follow_refs(spec, pointer)
        siblings = {**siblings, **(extra or {})}
        changing = {k: v for k, v in siblings.items() if k not in _ANNOTATIONS}
        if isinstance(target, bool):
            target = {}
        key = target_pointer + (("|" + json.dumps(changing, sort_keys=True, default=str))
                                if changing else "")
        node = self.memo.get(key)
        if node is None:
            node = SchemaNode(pointer=target_pointer if not changing else pointer)
            self.memo[key] = node  # before the children: a $ref back to it reuses it
            self.build({**target, **changing}, node.pointer, depth + 1, into=node)
        return node

    def build(self, spec: dict[str, Any], pointer: str, depth: int,
              into: SchemaNode | None = None) -> SchemaNode:
        self.check_keywords(spec, pointer)
        node = into if into is not None else SchemaNode(pointer=pointer)
        self.warn_combinators(spec, pointer)
        node.type, node.nullable = self.schema_type(spec, pointer)
        node.inferred = "type" not in spec and node.type in ("object", "array")
        node.null_score = self.number(spec, "nullScore", pointer, 0.0, unit=True)
        if "enum" in spec:
            node.enum = tuple(spec["enum"])
        if "const" in spec:
            node.enum = (spec["const"],)
        if node.type == "object":
            self.build_object(node, spec, pointer, depth)
        elif node.type == "array":
            self.build_array(node, spec, pointer, depth)
        elif node.type in _PRIMITIVES or node.type == "any":
            self.build_leaf(node, spec, pointer)
        self.reject_misplaced(node, spec, pointer)
        return node

    def warn_combinators(self, spec: dict[str, Any], pointer: str) -> None:
        for keyword in ("anyOf", "oneOf"):
            if isinstance(spec.get(keyword), list):
                self.warn("combinator-ignored", join(pointer, keyword),
                          f"{keyword} with several branches is not used for scoring; "
                          "values are compared by their JSON kinds")
        if "allOf" in spec:
            self.warn("combinator-ignored", join(pointer, "allOf"),
                      "allOf is not used for scoring; it is still checked on the candidate")

    def schema_type(self, spec: dict[str, Any], pointer: str) -> tuple[str, bool]:
        declared = spec.get("type")
        if declared is None:
            if "properties" in spec:
                return "object", bool(spec.get("nullable", False))
            if "items" in spec or "prefixItems" in spec:
                return "array", bool(spec.get("nullable", False))
            return "any", True
        types = [declared] if isinstance(declared, str) else list(declared)
        nullable = "null" in types or bool(spec.get("nullable", False))
        non_null = [t for t in types if t != "null"]
        if set(non_null) == {"number", "integer"}:
            non_null = ["number"]
        if not non_null:
            return "null", True
        if len(non_null) > 1:
            return "any", nullable
        return non_null[0], nullable

    def build_object(self, node: SchemaNode, spec: dict[str, Any], pointer: str,
                     depth: int) -> None:
        properties = spec.get("properties", {})
        for name, sub in properties.items():
            sub_pointer = join(pointer, "properties", name)
            node.properties[name] = self.parse(sub, sub_pointer, depth=depth + 1)
            weight_source = sub
            if isinstance(sub, dict) and "valueWeight" not in sub and (
                    "$ref" in sub or _optional_branch(sub) is not None):
                _, target, siblings = self.follow_refs(sub, sub_pointer)
                weight_source = {**target, **siblings} if isinstance(target, dict) else siblings
            if isinstance(weight_source, dict):
                node.weights[name] = self.number(weight_source, "valueWeight", sub_pointer, 1.0)
        additional = spec.get("additionalProperties")
        if isinstance(additional, dict):
            node.additional = self.parse(additional, join(pointer, "additionalProperties"),
                                         depth=depth + 1)
        key_score = spec.get("keyScore", "jaro")
        if not isinstance(key_score, str) or key_score not in self.registry or (
                "string" not in self.registry.get(key_score).kinds):
            raise SchemaError(join(pointer, "keyScore"),
                              f"unknown key comparator {key_score!r}",
                              fix=self.suggest(key_score, "string"))
        node.key_score = key_score
        node.key_threshold = self.number(spec, "keyThreshold", pointer, 0.0, unit=True)
        node.key_importance = self.number(spec, "keyImportance", pointer, 0.0)
        node.value_importance = self.number(spec, "valueImportance", pointer, 1.0)
        if node.key_importance + node.value_importance <= 0:
            raise SchemaError(join(pointer, "valueImportance"),
                              "keyImportance and valueImportance are both 0",
                              fix="give at least one of them a positive weight")

    def build_array(self, node: SchemaNode, spec: dict[str, Any], pointer: str,
                    depth: int) -> None:
        order = spec.get("order", "fixed")
        if order not in ("fixed", "align"):
            raise SchemaError(join(pointer, "order"), f"order must be 'fixed' or 'align', got "
                              f"{order!r}", fix="use 'align' for sets, 'fixed' for sequences")
        node.order = order
        if "blockBy" in spec:
            node.block_by = self.block_by(spec["blockBy"], order, pointer)
            self.blocked.append(node)
        node.ignore_missing = self.boolean(spec, "ignoreMissing", pointer)
        node.ignore_excess = self.boolean(spec, "ignoreExcess", pointer)
        prefix = spec.get("prefixItems", [])
        node.prefix_items = tuple(
            self.parse(sub, join(pointer, "prefixItems", k), depth=depth + 1)
            for k, sub in enumerate(prefix))
        items = spec.get("items")
        if isinstance(items, dict | bool) and items is not False:
            node.items = self.parse(items, join(pointer, "items"), depth=depth + 1)
            self.mark_records(node)
        weights = spec.get("prefixWeights")
        if weights is None:
            node.prefix_weights = (1.0,) * len(prefix)
        else:
            if not isinstance(weights, list) or len(weights) != len(prefix):
                raise SchemaError(join(pointer, "prefixWeights"),
                                  f"prefixWeights must be a list of {len(prefix)} numbers "
                                  "(one per prefixItems entry)",
                                  fix="give one weight per prefixItems entry")
            node.prefix_weights = tuple(
                self.check_number(w, f"prefixWeights[{k}]", join(pointer, "prefixWeights", k))
                for k, w in enumerate(weights))
            if prefix and sum(node.prefix_weights) <= 0:
                raise SchemaError(join(pointer, "prefixWeights"), "prefixWeights sum to 0",
                                  fix="give at least one position a positive weight")
        has_tail = node.items is not None and "items" in spec
        if prefix and has_tail:
            for key in ("prefixImportance", "restImportance"):
                if key not in spec:
                    raise SchemaError(pointer, f"an array with prefixItems and items needs {key}",
                                      fix="set prefixImportance and restImportance")
        node.prefix_importance = self.number(spec, "prefixImportance", pointer, 1.0)
        node.rest_importance = self.number(spec, "restImportance", pointer, 1.0)
        if prefix and has_tail and node.prefix_importance + node.rest_importance <= 0:
            raise SchemaError(join(pointer, "prefixImportance"),
                              "prefixImportance and restImportance are both 0",
                              fix="give at least one of them a positive weight")

    def block_by(self, value: Any, order: str, pointer: str) -> tuple[str, ...]:
        where = join(pointer, "blockBy")
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(
                isinstance(name, str) for name in names) or len(set(names)) != len(names):
            raise SchemaError(where, f"blockBy must be a property name or a list of distinct "
                              f"property names, got {value!r}",
                              fix='write e.g. "blockBy": "role" or "blockBy": ["role", "team"]')
        if order != "align":
            raise SchemaError(where, "blockBy applies only to unordered lists (order 'align'): "
                              "a fixed-order list pairs items by position",
                              fix='add "order": "align" or remove blockBy')
        return tuple(names)

    def check_blocking(self) -> None:
        """``blockBy`` names declared, plain properties of object items (run once the
        ``$ref`` targets are parsed)."""
        for array in self.blocked:
            where = join(array.pointer, "blockBy")
            item = array.items
            if item is None or item.type != "object":
                raise SchemaError(where, "blockBy needs items that are objects (records)",
                                  fix='declare "items": {"type": "object", "properties": ...}')
            for name in array.block_by:
                prop = item.properties.get(name)
                if prop is None:
                    guess = difflib.get_close_matches(name, list(item.properties), n=1)
                    raise SchemaError(where, f"blockBy names {name!r}, which is not a declared "
                                      "property of the items",
                                      fix=(f"did you mean {guess[0]!r}? " if guess else "")
                                      + "properties: " + ", ".join(item.properties))
                if prop.id_scope is not None or prop.ref is not None:
                    raise SchemaError(where, f"blockBy names {name!r}, an identifier or a "
                                      "reference: ids differ between the gold and the "
                                      "candidate, so equal values mean nothing",
                                      fix="block by an attribute compared by value, e.g. a "
                                      "category")

    def mark_records(self, array: SchemaNode) -> None:
        record = array.items
        if record is None or record.type != "object":
            return
        for name, prop in record.properties.items():
            if prop.id_scope is not None:
                self.scope_decls.append((prop.id_scope, name, prop, array))

    def build_leaf(self, node: SchemaNode, spec: dict[str, Any], pointer: str) -> None:
        node.threshold = self.number(spec, "threshold", pointer, 0.0, unit=True)
        comparator = spec.get("score")
        if comparator is not None:
            if not isinstance(comparator, str) or comparator not in self.registry:
                raise SchemaError(join(pointer, "score"), f"unknown comparator {comparator!r}",
                                  fix=self.suggest(comparator, None))
            kinds = self.registry.get(comparator).kinds
            if node.type != "any" and _kind_of_type(node.type) not in kinds:
                raise SchemaError(join(pointer, "score"),
                                  f"comparator {comparator!r} does not compare "
                                  f"{node.type} values",
                                  fix=self.suggest(comparator, _kind_of_type(node.type)))
            node.comparator = comparator
        elif node.type != "any":
            node.comparator = DEFAULT_FOR_KIND[_kind_of_type(node.type)]
        for keyword in ("idScope", "ref"):
            value = spec.get(keyword)
            if value is None:
                continue
            if not isinstance(value, str) or not value:
                raise SchemaError(join(pointer, keyword), f"{keyword} must be a scope name",
                                  fix=f"set {keyword} to a non-empty string")
            if node.type not in ("string", "integer", "number"):
                raise SchemaError(join(pointer, keyword),
                                  f"{keyword} needs a string or integer field, not "
                                  f"{node.type}", fix='declare "type": "integer" or "string"')
            if "idScope" in spec and "ref" in spec:
                raise SchemaError(pointer, "a field cannot be both idScope and ref",
                                  fix="keep one of them")
            if comparator is not None or "threshold" in spec:
                self.warn("comparator-ignored", join(pointer, "score"),
                          f"{keyword} fields are matched symbolically; their comparator "
                          "and threshold are ignored")
        node.id_scope = spec.get("idScope")
        node.ref = spec.get("ref")
        if node.id_scope is not None:
            self.id_nodes.append(node)
        if node.ref is not None:
            self.refs.append(node)

    def reject_misplaced(self, node: SchemaNode, spec: dict[str, Any], pointer: str) -> None:
        groups = {
            "object": ("keyScore", "keyThreshold", "keyImportance", "valueImportance"),
            "array": ("order", "prefixWeights", "ignoreMissing", "ignoreExcess",
                      "prefixImportance", "restImportance", "blockBy"),
            "leaf": ("score", "threshold", "idScope", "ref"),
        }
        kind = node.type if node.type in ("object", "array") else "leaf"
        if node.type == "any":
            return
        for owner, keywords in groups.items():
            if owner == kind:
                continue
            for keyword in keywords:
                if keyword in spec:
                    self.warn("misplaced-keyword", join(pointer, keyword),
                              f"{keyword} applies to {owner} schemas; ignored on a "
                              f"{node.type}")

    def suggest(self, name: Any, kind: str | None) -> str:
        names = self.registry.names(kind)
        guess = difflib.get_close_matches(str(name), names, n=1)
        return (f"did you mean {guess[0]!r}? " if guess else "") + "known: " + ", ".join(names)

    # -- scopes ----------------------------------------------------------------
    def finish_scopes(self) -> tuple[dict[str, ScopeDecl], dict[str, frozenset[str]]]:
        scopes: dict[str, ScopeDecl] = {}
        for name, id_field, id_node, array in self.scope_decls:
            if name in scopes and scopes[name].id_node.pointer != id_node.pointer:
                raise SchemaError(join(id_node.pointer, "idScope"),
                                  f"scope {name!r} is declared twice (also at "
                                  f"{scopes[name].id_node.pointer})",
                                  fix="give each scope its own name")
            if name in scopes and scopes[name].records.pointer != array.pointer:
                raise SchemaError(array.pointer, f"the records of scope {name!r} are items of "
                                  f"two arrays ({scopes[name].records.pointer or '/'} and "
                                  f"{array.pointer or '/'})", fix="keep a scope's records in "
                                  "one array, or declare a second scope for the other array")
            assert array.items is not None
            scopes[name] = ScopeDecl(name, id_field, id_node, array, array.items, id_node.type)
        registered = {d[2].pointer for d in self.scope_decls}
        for id_node in self.id_nodes:
            if id_node.pointer not in registered:
                raise SchemaError(join(id_node.pointer, "idScope"),
                                  "idScope must be on a property of the objects that are an "
                                  "array's items (the scope's records)",
                                  fix="move idScope onto the id property of the record objects")
        for ref_node in self.refs:
            if ref_node.ref not in scopes:
                guess = difflib.get_close_matches(ref_node.ref or "", list(scopes), n=1)
                raise SchemaError(join(ref_node.pointer, "ref"),
                                  f"ref names unknown scope {ref_node.ref!r}",
                                  fix=(f"did you mean {guess[0]!r}? " if guess else "")
                                  + "declare it with idScope on a record's id field; scopes: "
                                  + (", ".join(sorted(scopes)) or "none"))
            id_type = scopes[ref_node.ref].id_type
            if ref_node.type != id_type:
                raise SchemaError(join(ref_node.pointer, "type"),
                                  f"ref to scope {ref_node.ref!r} is {ref_node.type}, but its "
                                  f"ids are {id_type}", fix=f'declare "type": "{id_type}"')
        dependencies = {name: frozenset(
            n.ref for n in decl.record.walk() if n.ref is not None)
            for name, decl in scopes.items()}
        return scopes, dependencies
