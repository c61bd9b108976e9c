"""Interactive views for teaching, with ipywidgets (the ``[notebook]`` extra): step
through the WL rounds of a scope, edit a weight and see which nodes moved, apply
repair operations and rescore.

Without ipywidgets each function returns a :class:`Static` view instead: the message
naming the ``pip install`` to run, above the static view of the same object, so a
notebook still runs and still shows the result. With it, the widget also carries that
static view as its ``text/html``: what a page without a widget manager shows (a
notebook exported to HTML, a notebook viewer) in place of an empty output.

Examples
--------
>>> import json, oa_core
>>> load = lambda f: json.load(open(f"sample_data/running_example/{f}.json"))
>>> alignment = oa_core.align(load("gold"), load("candidate"), load("schema"))
>>> stepper = wl_stepper(alignment)
>>> type(stepper).__name__ in ("Interactive", "Static")
True
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from ..aligner import Alignment, align
from ..extras import MissingExtra, install_command, require
from ..feedback import repair_ops
from .alignment import alignment_html, mismatches
from .html import esc, fmt, view
from .runs import frame_html
from .scopes import round_html
from .whatif import moved_nodes, moved_pairs, rescore, weight_paths, with_weight

__all__ = ["INSTALL", "Static", "fix_and_rescore", "have_widgets", "weight_editor",
           "wl_stepper"]

INSTALL = install_command("notebook")
"""The command that installs what the interactive views need."""


class Static:
    """A static stand-in for an interactive view: a note and an HTML view.

    >>> "pip install" in Static("<p>x</p>")._repr_html_()
    True
    """

    def __init__(self, html: str) -> None:
        self.html = html

    def _repr_html_(self) -> str:
        note = (f'<p class="warn">The interactive view needs ipywidgets: '
                f"<code>{esc(INSTALL)}</code>. The static view follows.</p>")
        return view(note, label="ipywidgets missing") + self.html

    def __repr__(self) -> str:
        return f"interactive view unavailable: ipywidgets is not installed ({INSTALL})"


def have_widgets() -> bool:
    """Whether ipywidgets can be imported."""
    try:
        require("notebook", "ipywidgets")
    except MissingExtra:
        return False
    return True


def _html(widgets: Any, body: str) -> Any:
    return widgets.HTML(value=view(body, label="interactive view"))


@functools.cache
def _box_class() -> type:
    """A VBox whose display also carries a static HTML view (made once, when
    ipywidgets is there)."""
    import ipywidgets as widgets

    class Interactive(widgets.VBox):
        """A VBox with a static ``text/html`` beside its widget view."""

        static_html = ""

        def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
            bundle = dict(super()._repr_mimebundle_(**kwargs) or {})
            bundle["text/html"] = self.static_html
            return bundle

    return Interactive


def _box(children: list[Any], static_html: str) -> Any:
    """The widgets in a column, with ``static_html`` for pages that cannot run them."""
    box = _box_class()(children)
    box.static_html = static_html
    return box


def wl_stepper(alignment: Alignment, scope: str | None = None) -> Any:
    """A slider over the WL rounds of one scope (the first with a trace by default):
    each round shows the classes it split and the graph coloured by it."""
    traces = alignment.wl
    if not traces:
        return Static(view("<p>No WL trace: this alignment has no scope refined by WL "
                           "(a schema without idScope, or wl_mode 'none').</p>",
                           label="WL rounds"))
    trace = traces[scope if scope is not None else next(iter(traces))]
    static = view("".join(round_html(trace, k) for k in range(len(trace.rounds))),
                  label="WL rounds")
    if not have_widgets():
        return Static(static)
    import ipywidgets as widgets

    slider = widgets.IntSlider(value=0, min=0, max=len(trace.rounds) - 1,
                               description="WL round", continuous_update=False)
    shown = _html(widgets, round_html(trace, 0))

    def update(change: Mapping[str, Any]) -> None:
        shown.value = view(round_html(trace, int(change["new"])), label="WL round")

    slider.observe(update, names="value")
    return _box([slider, shown], static)


def _weight_report(before: Alignment, after: Alignment, pointer: str, value: float) -> str:
    pairs = moved_pairs(before, after)
    moved = moved_nodes(before, after)
    paired = ("".join(f"<li>{esc(s)}: gold {esc(g)} was paired with {esc(a)}, now "
                      f"{esc(b)}</li>" for s, g, a, b in pairs)
              or "<li>no record changed partner</li>")
    return (f"<p><code>{esc(pointer)}</code> = {fmt(value, 3)}: score {fmt(before.score)} → "
            f"<b>{fmt(after.score)}</b> ({after.score - before.score:+.4f})</p>"
            f"<ul>{paired}</ul><p>{len(moved)} node(s) moved, biggest first:</p>"
            + frame_html(moved, first=12, noun="nodes"))


def weight_editor(gold: Any, candidate: Any, schema: Mapping[str, Any],
                  **options: Any) -> Any:
    """Pick a weight of the schema, change it, and see the score and the nodes whose
    contribution moved (and the records paired differently)."""
    before = align(gold, candidate, schema, **options)
    choices = weight_paths(schema)
    if not choices:
        return Static(view("<p>This schema declares no weight.</p>", label="weights"))
    pointer, value = choices[0]
    doubled = align(gold, candidate, with_weight(schema, pointer, 2 * value or 1.0),
                    **options)
    static = view(_weight_report(before, doubled, pointer, 2 * value or 1.0),
                  label="weights")
    if not have_widgets():
        return Static(static)
    import ipywidgets as widgets

    layout = widgets.Layout(width="38em")
    which = widgets.Dropdown(options=[(p, k) for k, (p, _) in enumerate(choices)], value=0,
                             description="weight", layout=layout)
    amount = widgets.FloatSlider(value=value, min=0.0, max=max(4.0, 4 * value), step=0.25,
                                 description="value", continuous_update=False)
    shown = _html(widgets, "<p>Move the slider to rescore.</p>")

    def pick(change: Mapping[str, Any]) -> None:
        amount.value = choices[int(change["new"])][1]

    def rescored(_: Any = None) -> None:
        where = choices[int(which.value)][0]
        after = align(gold, candidate, with_weight(schema, where, float(amount.value)),
                      **options)
        shown.value = view(_weight_report(before, after, where, float(amount.value)),
                           label="weights")

    which.observe(pick, names="value")
    amount.observe(rescored, names="value")
    return _box([which, amount, shown], static)


def _fix_report(before: Alignment, after: Alignment, gain: float) -> str:
    left = len(mismatches(after.tree))
    return (f"<p>score {fmt(before.score)} → <b>{fmt(after.score)}</b> (the chosen "
            f"operations promised +{fmt(gain)}); {left} mismatch(es) left.</p>"
            + alignment_html(after))


def fix_and_rescore(gold: Any, candidate: Any, schema: Mapping[str, Any],
                    **options: Any) -> Any:
    """Tick repair operations, apply them to the candidate and rescore."""
    before = align(gold, candidate, schema, **options)
    ops = [op for op in repair_ops(before) if op.delta > 0]
    static = view(_fix_report(before, rescore(before, ops), sum(op.delta for op in ops)),
                  label="fixes")
    if not have_widgets():
        return Static(static)
    import ipywidgets as widgets

    boxes = [widgets.Checkbox(value=False, description=f"+{op.delta:.4f} {op.kind} "
                              f"{op.path or '(root)'}", indent=False,
                              layout=widgets.Layout(width="48em")) for op in ops]
    button = widgets.Button(description="apply and rescore", button_style="primary")
    shown = _html(widgets, f"<p>score {fmt(before.score)}: tick operations, then apply.</p>")

    def apply(_: Any = None) -> None:
        chosen = [op for op, box in zip(ops, boxes, strict=True) if box.value]
        after = rescore(before, chosen)
        shown.value = view(_fix_report(before, after, sum(op.delta for op in chosen)),
                           label="fixes")

    button.on_click(apply)
    return _box([*boxes, button, shown], static)
