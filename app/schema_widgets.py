"""Schema tuning: one widget per scoring knob of the parsed schema tree.

A :class:`Knob` names a keyword of the raw schema by its JSON Pointer; a widget
change stores ``pointer -> value`` in the session's schema edits, which
:func:`app.session.apply_edits` writes into a copy of the schema.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

import oa_core
from oa_core.errors import OAError
from oa_core.matchtree import MatchNode
from oa_core.pointer import join, split
from oa_core.schema import Schema, SchemaNode

from . import session
from .text import md_inline

ORDERS = ("fixed", "align")


@dataclass(frozen=True)
class Knob:
    """One editable scoring setting.

    Parameters
    ----------
    pointer : str
        JSON Pointer of the keyword in the raw schema (where an edit is written).
    label : str
        Widget label (the keyword).
    kind : {"weight", "unit", "comparator", "order", "flag"}
        Widget type: non-negative number, number in [0, 1], comparator choice,
        order choice, true/false.
    default : Any
        The value under the original schema.
    options : tuple of str
        Choices for comparator knobs.
    index : int or None
        For one position of a list keyword (``prefixWeights``), its index;
        ``pointer`` is then the list's pointer.
    """

    pointer: str
    label: str
    kind: str
    default: Any
    options: tuple[str, ...] = ()
    index: int | None = None

    @property
    def key(self) -> str:
        """The edit's key (list positions share their list's)."""
        return self.pointer

    @property
    def widget_key(self) -> str:
        """Streamlit widget key of this knob."""
        return f"tune:{self.pointer}" + ("" if self.index is None else f"/{self.index}")


def readable(pointer: str) -> str:
    """A schema pointer as a document path: ``/properties/a/items/properties/b`` -> ``a[] › b``.

    Examples
    --------
    >>> readable("/properties/people/items/properties/name")
    'people[] › name'
    >>> readable("/properties/period/prefixItems/1")
    'period[1]'
    >>> readable("")
    '(root)'
    """
    parts: list[str] = []
    tokens = split(pointer)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if token in ("properties", "$defs", "definitions") and nxt is not None:
            parts.append(nxt)
            i += 2
        elif token == "items" and parts:
            parts[-1] += "[]"
            i += 1
        elif token == "prefixItems" and nxt is not None and parts:
            parts[-1] += f"[{nxt}]"
            i += 2
        else:
            parts.append(token)
            i += 1
    return " › ".join(parts) or "(root)"


def section_key(pointer: str) -> str:
    """The widget key of the (lazy) section of the schema node at ``pointer``: its
    state says whether the section is open."""
    return f"w.tune_open:{pointer}"


def knobs_of(node: SchemaNode, schema: Schema) -> list[Knob]:
    """The knobs of one schema node (its own settings and its properties' weights)."""
    p = node.pointer
    out: list[Knob] = []
    if node.type == "object":
        for name in node.properties:
            out.append(Knob(join(p, "properties", name, "valueWeight"),
                            f"valueWeight of {name}", "weight", node.weights.get(name, 1.0)))
        out += [
            Knob(join(p, "keyImportance"), "keyImportance", "weight", node.key_importance),
            Knob(join(p, "valueImportance"), "valueImportance", "weight", node.value_importance),
            Knob(join(p, "keyScore"), "keyScore", "comparator", node.key_score,
                 tuple(schema.comparators.names("string"))),
            Knob(join(p, "keyThreshold"), "keyThreshold", "unit", node.key_threshold),
        ]
    elif node.type == "array":
        out += [
            Knob(join(p, "order"), "order", "order", node.order, ORDERS),
            Knob(join(p, "ignoreMissing"), "ignoreMissing", "flag", node.ignore_missing),
            Knob(join(p, "ignoreExcess"), "ignoreExcess", "flag", node.ignore_excess),
        ]
        for k, weight in enumerate(node.prefix_weights):
            out.append(Knob(join(p, "prefixWeights"), f"prefixWeights[{k}]", "weight",
                            weight, index=k))
        if node.prefix_items and node.items is not None:
            out += [Knob(join(p, "prefixImportance"), "prefixImportance", "weight",
                         node.prefix_importance),
                    Knob(join(p, "restImportance"), "restImportance", "weight",
                         node.rest_importance)]
    elif node.is_primitive and node.id_scope is None and node.ref is None:
        kind = "number" if node.type == "integer" else node.type
        out += [
            Knob(join(p, "score"), "score (comparator)", "comparator", node.comparator,
                 tuple(schema.comparators.names(kind))),
            Knob(join(p, "threshold"), "threshold", "unit", node.threshold),
        ]
    if node.is_primitive or node.type in ("object", "array"):
        out.append(Knob(join(p, "nullScore"), "nullScore", "unit", node.null_score))
    return out


def grouped_knobs(schema: Schema) -> list[tuple[SchemaNode, list[Knob]]]:
    """Every schema node that has knobs, in schema order, with its knobs."""
    return [(node, knobs) for node in schema.root.walk() if (knobs := knobs_of(node, schema))]


def current_value(knob: Knob, edits: dict[str, Any]) -> Any:
    """The knob's value under the edits."""
    if knob.key not in edits:
        return knob.default
    value = edits[knob.key]
    return value[knob.index] if knob.index is not None else value


def set_knob(edits: dict[str, Any], knob: Knob, value: Any,
             defaults: list[float] | None) -> None:
    """Record ``value`` for ``knob`` in ``edits`` (keyword pointer -> value), or drop the
    edit when the knob is back at the schema's value; an item of a weight list edits
    the whole list (``defaults``: the schema's list)."""
    if knob.index is not None:
        weights = list(edits.get(knob.key, defaults or []))
        weights[knob.index] = float(value)
        value = weights
        unchanged = defaults is not None and weights == list(defaults)
    else:
        unchanged = value == knob.default
    if unchanged:
        edits.pop(knob.key, None)
    else:
        edits[knob.key] = value


def _on_change(knob: Knob, defaults: list[float] | None,
               after: Callable[[Knob, bool], None] | None = None) -> None:
    edits = session.schema_edits()
    was_edited = current_value(knob, edits) != knob.default
    set_knob(edits, knob, st.session_state[knob.widget_key], defaults)
    session.changed()  # the knobs may live in a fragment, which skips main.py's URL write
    if after is not None:
        after(knob, was_edited != (current_value(knob, edits) != knob.default))


def render_knob(knob: Knob, node: SchemaNode, *,
                after: Callable[[Knob, bool], None] | None = None) -> None:
    """Draw the widget of one knob (its value comes from the session's edits).

    ``after(knob, marked)``, when given, is called by the widget's callback once the
    edit is recorded; ``marked`` says whether the knob's "edited" mark (•) changed.
    """
    edits = session.schema_edits()
    value = current_value(knob, edits)
    st.session_state[knob.widget_key] = value
    defaults = list(node.prefix_weights) if knob.index is not None else None
    changed = value != knob.default
    label = md_inline(knob.label) + (" •" if changed else "")  # labels read Markdown
    help_text = f"{md_inline(knob.pointer)} (original: {md_inline(str(knob.default))})"
    common: dict[str, Any] = {"key": knob.widget_key, "help": help_text,
                              "on_change": _on_change, "args": (knob, defaults, after)}
    if knob.kind == "weight":
        st.number_input(label, min_value=0.0, step=0.25, format="%.3f", **common)
    elif knob.kind == "unit":
        st.slider(label, min_value=0.0, max_value=1.0, step=0.01, **common)
    elif knob.kind in ("comparator", "order"):
        options = list(knob.options)
        if value not in options:
            options.append(value)
        st.selectbox(label, options, **common)
    else:
        st.checkbox(label, **common)


def matches(node: SchemaNode, knob: Knob, query: str) -> bool:
    """Whether a search ``query`` (words, any order, case-insensitive) finds ``knob``.

    The words are looked up in the node's readable path, its JSON Pointer, its type,
    the knob's label and its kind.

    Examples
    --------
    >>> node = Schema.parse({"type": "object", "properties": {"agenda": {
    ...     "type": "array", "items": {"type": "string"}}}}).root.properties["agenda"]
    >>> knob = knobs_of(node, Schema.parse({}))[0]
    >>> matches(node, knob, "agenda ORDER"), matches(node, knob, "threshold")
    (True, False)
    """
    text = " ".join((readable(node.pointer), node.pointer, str(node.type), knob.label,
                     knob.kind, knob.pointer)).casefold()
    return all(word in text for word in query.casefold().split())


def search(groups: Iterable[tuple[SchemaNode, list[Knob]]], query: str
           ) -> list[tuple[SchemaNode, list[Knob]]]:
    """The groups with only the knobs ``query`` finds (all of them for an empty query)."""
    if not query.strip():
        return list(groups)
    found = []
    for node, knobs in groups:
        hits = [k for k in knobs if matches(node, k, query)]
        if hits:
            found.append((node, hits))
    return found


WEIGHT_STEP = 0.1  # the finite-difference step of a weight (weights are relative)


def _with_value(schema: Any, knob: Knob, value: float, defaults: list[float] | None) -> Any:
    if knob.index is None:
        return session.apply_edits(schema, {knob.pointer: value})
    weights = list(defaults or [])
    weights[knob.index] = value
    return session.apply_edits(schema, {knob.pointer: weights})


def sensitivity(gold: Any, candidate: Any, schema: Any,
                options: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """How much the score moves per unit change of each weight (finite differences).

    Every weight knob is moved by :data:`WEIGHT_STEP` both ways (forward only when it
    cannot go lower) and the documents rescored; the slope is the score change per
    +1 of the weight. Uncached (the page caches it on the documents' text).

    Parameters
    ----------
    gold, candidate, schema : JSON values
        The documents, and the schema with the current edits.
    options : mapping, optional
        ``oa_core.align`` options (``wl_mode``, ``wl_blend_lambda``).

    Returns
    -------
    list of dict
        One row per weight: ``setting``, ``pointer``, ``value``, ``score per +1``
        (None when a rescoring was refused), sorted by the slope's size, largest first.
    """
    options = dict(options or {})
    parsed = Schema.parse(schema)
    base = oa_core.score(gold, candidate, schema, **options)
    rows: list[dict[str, Any]] = []
    for node, knobs in grouped_knobs(parsed):
        defaults = list(node.prefix_weights) if node.type == "array" else None
        for knob in knobs:
            if knob.kind != "weight":
                continue
            value = float(knob.default)
            low = value - WEIGHT_STEP if value >= WEIGHT_STEP else value
            high = value + WEIGHT_STEP
            try:
                up = oa_core.score(gold, candidate, _with_value(schema, knob, high, defaults),
                                   **options)
                down = base if low == value else oa_core.score(
                    gold, candidate, _with_value(schema, knob, low, defaults), **options)
                slope: float | None = (up - down) / (high - low)
            except OAError:
                slope = None
            if slope is not None and abs(slope) < 1e-12:
                slope = 0.0
            rows.append({"setting": f"{readable(node.pointer)} · {knob.label}",
                         "pointer": knob.pointer + (f"/{knob.index}"
                                                    if knob.index is not None else ""),
                         "value": value, "score per +1": slope})
    rows.sort(key=lambda r: (-abs(r["score per +1"]) if r["score per +1"] is not None
                             else math.inf, r["setting"]))
    return rows


def _edited_nodes(edits: Mapping[str, Any]) -> set[str]:
    """Schema pointers of the nodes that own an edited keyword."""
    return {pointer.rsplit("/", 1)[0] for pointer in edits}


MOVE_COLUMNS = ("where", "paths", "weight before", "weight after", "score before",
                "score after", "cost before", "cost after", "score Δ")
# one level of a row's depth below the root: figure spaces, which HTML keeps and never
# breaks (a breaking space wrapped the name under its indent in a narrow column)
INDENT = "\u2007" * 3
_NO_MOVE = 1e-15  # a change of cost below this is float noise, not a move


def cost_moves(before: MatchNode, after: MatchNode,
               edits: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Where the score moved between two trees: each schema node's change of cost.

    A node's *cost* is its deficit, weight × (1 − similarity) with the weights
    normalised down from the root (plus its key term): what the node costs the root
    score. The costs of a node's children add up to its own, less what the node costs
    itself (its key term; all of it for a missing or extra item, which has no
    children), so the rows one level below the root add up exactly to the score's
    change. A sibling whose weight share shrank shows here: its cost fell although its
    score did not move.

    Parameters
    ----------
    before, after : MatchNode
        The roots of the two alignments (e.g. the original and the edited schema).
    edits : mapping, optional
        Keyword pointer -> value: a node whose own settings were edited is listed
        even when its cost did not move.

    Returns
    -------
    list of dict
        The columns of :data:`MOVE_COLUMNS`, one row per schema node whose cost moved
        (the nodes of one schema node, e.g. a list's items, summed; their paths listed
        once each), in schema order, the root first; ``where`` is indented by depth
        (:data:`INDENT`); ``score before``/``score after`` are the mean over the row's
        nodes (None where absent); ``score Δ`` is cost before − cost after (the root's
        is the score's change).

    Examples
    --------
    >>> import oa_core
    >>> schema = {"type": "object", "properties": {"a": {"type": "string"},
    ...           "b": {"type": "string", "valueWeight": 3}}}
    >>> gold, candidate = {"a": "x", "b": "y"}, {"a": "x", "b": "z"}
    >>> was = oa_core.align(gold, candidate, {"type": "object", "properties": {
    ...     "a": {"type": "string"}, "b": {"type": "string"}}}).tree
    >>> rows = cost_moves(was, oa_core.align(gold, candidate, schema).tree)
    >>> [(row["where"].strip(INDENT), round(row["score Δ"], 4)) for row in rows]
    [('(root)', -0.25), ('b', -0.25)]
    """
    def index(tree: MatchNode) -> dict[tuple[str | None, str | None, str], MatchNode]:
        return {(n.gold_path, n.candidate_path, n.schema_path): n for n in tree.iter_nodes()}

    def depths(tree: MatchNode) -> dict[str, int]:
        found: dict[str, int] = {}
        stack = [(tree, 0)]
        while stack:
            node, depth = stack.pop()
            found.setdefault(node.schema_path, depth)
            stack.extend((child, depth + 1) for child in node.children)
        return found

    edited = _edited_nodes(edits or {})
    old, new = index(before), index(after)
    depth_of = {**depths(before), **depths(after)}
    groups: dict[str, list[tuple[MatchNode | None, MatchNode | None]]] = {}
    for key in [*new, *(k for k in old if k not in new)]:
        a, b = old.get(key), new.get(key)
        node = b or a
        assert node is not None
        groups.setdefault(node.schema_path, []).append((a, b))
    rows = []
    for schema_path, members in groups.items():
        cost_before = math.fsum(a.deficit for a, _ in members if a is not None)
        cost_after = math.fsum(b.deficit for _, b in members if b is not None)
        moved = abs(cost_after - cost_before) >= _NO_MOVE or any(
            a is None or b is None or a.score != b.score for a, b in members)
        if not moved and schema_path not in edited:
            continue
        paths = list(dict.fromkeys((b or a).path or "/" for a, b in members  # type: ignore[union-attr]
                                   ))
        before_scores = [a.score for a, _ in members if a is not None]
        after_scores = [b.score for _, b in members if b is not None]
        rows.append({
            "where": INDENT * depth_of[schema_path] + readable(schema_path),
            "paths": ", ".join(paths[:6]) + (f", … ({len(paths) - 6} more)"
                                              if len(paths) > 6 else ""),
            "weight before": math.fsum(a.effective_weight for a, _ in members if a is not None),
            "weight after": math.fsum(b.effective_weight for _, b in members if b is not None),
            "score before": math.fsum(before_scores) / len(before_scores)
            if before_scores else None,
            "score after": math.fsum(after_scores) / len(after_scores)
            if after_scores else None,
            "cost before": cost_before,
            "cost after": cost_after,
            "score Δ": cost_before - cost_after,
        })
    return rows
