"""A :class:`~oa_core.feedback.Feedback` in a notebook: the score, the synthesis and
every repair operation ranked by the score it recovers, with its share of the deficit.

The operations the text shows (``top_k``) are marked; the rest follow, paged.

Examples
--------
>>> import json, oa_core
>>> load = lambda f: json.load(open(f"sample_data/running_example/{f}.json"))
>>> page = feedback_html(oa_core.feedback(load("gold"), load("candidate"), load("schema")))
>>> "missing-list-item" in page and "+0.0" in page
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.palette import score_color

from .html import esc, fmt, table, value_text, view

if TYPE_CHECKING:
    from ..feedback import Feedback

__all__ = ["feedback_html"]


def feedback_html(result: Feedback) -> str:
    """The ranked operations of a feedback, with their deltas (see the module notes)."""
    deficit = result.deficit
    shown = {id(op) for op in result.shown}
    rows = []
    for rank, op in enumerate(result.ops, 1):
        share = op.delta / deficit if deficit > 0 else 0.0
        bar = (f'<span class="bar" style="width:{max(1.0, 80 * share):.0f}px"></span>'
               f"{100 * share:.0f}%")
        rows.append([f"{rank}{' ★' if id(op) in shown else ''}", esc(op.kind),
                     f"<code>{esc(op.path or '(root)')}</code>",
                     esc(value_text(op.gold) if op.gold_path is not None else "(absent)"),
                     esc(value_text(op.candidate) if op.candidate_path is not None
                         else "(absent)"),
                     f"+{fmt(op.delta)}", bar])
    head = (f'<div class="head"><span class="big" style="background:'
            f'{score_color(result.score)}">'
            f"{fmt(result.score)}</span><span>score · deficit {fmt(deficit)} · "
            f"{len(result.ops)} repair operation{'s' * (len(result.ops) != 1)} "
            f"(★ the {len(result.shown)} the text shows)</span></div>")
    synthesis = f"<p>{esc(result.synthesis)}</p>" if result.synthesis else ""
    if not rows:
        body = head + "<p>Nothing to fix: the candidate matches the gold.</p>"
    else:
        body = (head + synthesis + table(
            ["#", "kind", "path", "gold", "candidate", "recovers", "of the deficit"], rows,
            numeric=(5,), noun="operations")
            + f"<details><summary>the text an optimizer reads</summary><pre>"
              f"{esc(result.text)}</pre></details>")
    return view(body, label="Object Aligner feedback")
