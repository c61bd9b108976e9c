"""Schema tuning: one widget per scoring knob of the parsed schema tree.

A :class:`Knob` names a keyword of the raw schema by its JSON Pointer; a widget
change stores ``pointer -> value`` in the session's schema edits, which
:func:`app.session.apply_edits` writes into a copy of the schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

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


def _on_change(knob: Knob, defaults: list[float] | None) -> None:
    edits = session.schema_edits()
    value = st.session_state[knob.widget_key]
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


def render_knob(knob: Knob, node: SchemaNode) -> None:
    """Draw the widget of one knob (its value comes from the session's edits)."""
    edits = session.schema_edits()
    value = current_value(knob, edits)
    st.session_state[knob.widget_key] = value
    defaults = list(node.prefix_weights) if knob.index is not None else None
    changed = value != knob.default
    label = md_inline(knob.label) + (" •" if changed else "")  # labels read Markdown
    help_text = f"{md_inline(knob.pointer)} (original: {md_inline(str(knob.default))})"
    common: dict[str, Any] = {"key": knob.widget_key, "help": help_text,
                              "on_change": _on_change, "args": (knob, defaults)}
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


def moved_nodes(before: MatchNode, after: MatchNode) -> list[dict[str, Any]]:
    """Nodes whose score or contribution changed between two trees.

    Nodes are matched by their (gold pointer, candidate pointer); a node in one
    tree only counts as moved from/to nothing.
    """
    def index(tree: MatchNode) -> dict[tuple[str | None, str | None], MatchNode]:
        return {(n.gold_path, n.candidate_path): n for n in tree.iter_nodes()}

    old, new = index(before), index(after)
    rows = []
    for key in list(old) + [k for k in new if k not in old]:
        a, b = old.get(key), new.get(key)
        score_a = a.score if a else None
        score_b = b.score if b else None
        contrib_a = a.contribution if a else 0.0
        contrib_b = b.contribution if b else 0.0
        if a and b and abs(score_a - score_b) < 1e-9 and abs(contrib_a - contrib_b) < 1e-9 and (
                abs(a.effective_weight - b.effective_weight) < 1e-9):
            continue
        node = b or a
        assert node is not None
        rows.append({"path": node.path or "/", "kind": node.kind,
                     "score before": score_a, "score after": score_b,
                     "weight before": a.effective_weight if a else None,
                     "weight after": b.effective_weight if b else None,
                     "contribution Δ": contrib_b - contrib_a})
    rows.sort(key=lambda r: -abs(r["contribution Δ"]))
    return rows
