"""The explorer's views in Jupyter: every result object displays itself.

An :class:`~oa_core.aligner.Alignment`, a :class:`~oa_core.feedback.Feedback`, a
:class:`~oa_core.scopes.ScopeAlignment`, a :class:`~oa_core.wl.WLTrace`, a batch
summary, a dataset and a scored run each have a ``_repr_html_`` that calls this
package; :func:`show` wraps any of them (and a run comparison) for ``display``.
The views are plain HTML and CSS (no script, no network), escape all user text and
follow the notebook's light or dark theme. The interactive views
(:mod:`oa_core.notebook.widgets`) need ipywidgets: ``pip install
'object-aligner-explorer[notebook]'``.

Examples
--------
>>> import json, oa_core
>>> load = lambda f: json.load(open(f"sample_data/running_example/{f}.json"))
>>> alignment = oa_core.align(load("gold"), load("candidate"), load("schema"))
>>> alignment._repr_html_() == show(alignment)._repr_html_()
True
"""

from __future__ import annotations

from typing import Any

from .html import esc, view

__all__ = ["HTML", "show", "to_html"]


class HTML:
    """An HTML view that notebooks display (what :func:`show` returns)."""

    def __init__(self, html: str) -> None:
        self.html = html

    def _repr_html_(self) -> str:
        return self.html


def to_html(result: Any) -> str:
    """The HTML view of any result of the library.

    Raises
    ------
    TypeError
        ``result`` is no result the library makes.
    """
    from ..aligner import Alignment
    from ..feedback import Feedback
    from ..scopes import ScopeAlignment
    from ..wl import WLTrace
    from .alignment import alignment_html
    from .feedback import feedback_html
    from .scopes import scope_html, wl_html

    if isinstance(result, Alignment):
        return alignment_html(result)
    if isinstance(result, Feedback):
        return feedback_html(result)
    if isinstance(result, ScopeAlignment):
        return scope_html(result)
    if isinstance(result, WLTrace):
        return wl_html(result)
    return _run_level(result)


def _run_level(result: Any) -> str:
    from ..runs.batch import BatchSummary
    from ..runs.dataset import Dataset, ScoredRun
    from ..runs.runstats import Comparison, Interval
    from .runs import batch_summary_html, comparison_html, dataset_html, run_html

    if isinstance(result, BatchSummary):
        return batch_summary_html(result)
    if isinstance(result, Dataset):
        return dataset_html(result)
    if isinstance(result, ScoredRun):
        return run_html(result)
    if isinstance(result, Comparison):
        return comparison_html(result)
    if isinstance(result, Interval):
        return view(f"<p>{esc(result.render())} ({result.level:.0%} bootstrap)</p>",
                    label="interval")
    raise TypeError(f"no notebook view for {type(result).__name__}")


def show(result: Any) -> HTML:
    """``result``'s view as an object a notebook displays (``display(show(x))``)."""
    return HTML(to_html(result))
