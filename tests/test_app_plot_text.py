"""User text in the explorer's charts (plotly, HTML): shown literally, names kept short."""

from __future__ import annotations

import numpy as np

from app.pair.tree_views import ANNOTATE_LIMIT, TICK_LIMIT, MatrixView, heatmap, matrix_html
from app.text import shorten
from app.views import delta_chart_html
from oa_core.feedback import RepairOp

EVIL = '<b>"Ann"</b> & <i>co</i>, a name far longer than any axis label'
# cut to TICK_LIMIT characters, then < > & escaped (plotly decodes them); quotes kept
SHOWN = '&lt;b&gt;"Ann"&lt;/b&gt; &amp; &lt;i&gt;co&lt;/i&gt;, a nam…'


def test_matrix_axis_labels_are_escaped_shortened_and_distinct() -> None:
    view = MatrixView("scope person", np.array([[1.0, 0.5], [0.5, 1.0]]),
                      rows=[EVIL, EVIL], columns=["Bob", EVIL], pairs=[(0, 1), (1, 0)])
    figure = heatmap(view)
    rows, columns = list(figure.data[0].y), list(figure.data[0].x)
    assert shorten(EVIL, TICK_LIMIT) == '<b>"Ann"</b> & <i>co</i>, a nam…'
    # equal names are told apart, else plotly would merge their rows
    assert rows == [f"{SHOWN} #{n}" if n > 1 else SHOWN for n in (1, 2)]
    assert columns == ["Bob", SHOWN]
    assert list(figure.data[1].x) == [columns[1], columns[0]]  # the pair markers follow


def test_delta_chart_shows_user_text_literally() -> None:
    """Paths and messages come from the documents: escaped in the HTML chart."""
    op = RepairOp(kind="primitive-value", path=f"/{EVIL}", gold_path=f"/{EVIL}",
                  candidate_path=f"/{EVIL}", gold=1, candidate=2, delta=0.25,
                  message=f'{EVIL}: "x" <script>alert(1)</script>')
    body = delta_chart_html([op], [op], alone={id(op): 0.125})
    assert "<script>alert" not in body and "<b>&quot;Ann" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body  # the hover text, escaped
    assert "1. primitive-value /&lt;b&gt;&quot;Ann&quot;&lt;/b&gt; &amp;" in body
    assert 'data-delta="0.25"' in body and 'data-alone="0.125"' in body


def test_matrix_table_shows_names_literally_and_keeps_big_matrices_in_plotly() -> None:
    view = MatrixView("scope person", np.array([[1.0, 0.5], [0.5, 1.0]]),
                      rows=[EVIL, EVIL], columns=["Bob", EVIL], pairs=[(0, 1), (1, 0)])
    body = matrix_html(view)
    assert body is not None
    assert "<b>" not in body and "<i>co" not in body
    # shortened on the axis, in full in the hover
    assert ">&lt;b&gt;&quot;Ann&quot;&lt;/b&gt; &amp; &lt;i&gt;co&lt;/i&gt;, a nam…</th>" in body
    assert 'title="&lt;b&gt;&quot;Ann&quot;&lt;/b&gt; &amp; &lt;i&gt;co&lt;/i&gt;, a name far' \
        in body
    assert body.count('<td class="pair"') == 2
    side = int(ANNOTATE_LIMIT ** 0.5) + 1  # too many cells to print: plotly's heat map
    big = MatrixView("big", np.zeros((side, side)), [str(k) for k in range(side)],
                     [str(k) for k in range(side)], [])
    assert matrix_html(big) is None
