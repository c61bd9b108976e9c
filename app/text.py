"""Making user text safe and short for each medium: Markdown, plotly, plain labels.

HTML proper (``st.html`` tables) is escaped with :func:`html.escape`.
"""

from __future__ import annotations

from html import escape

_MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()<>#+-.!|~$:")


def md_escape(text: str) -> str:
    """Backslash-escape every Markdown special character, so text shows literally.

    Examples
    --------
    >>> md_escape("<script>*x*</script>")
    '\\\\<script\\\\>\\\\*x\\\\*\\\\</script\\\\>'
    """
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in text)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, the last one an ellipsis if cut.

    Examples
    --------
    >>> shorten("Dave, Engineer", 20), shorten("Dave, Engineer", 6)
    ('Dave, Engineer', 'Dave,…')
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plotly_text(text: str, limit: int | None = None) -> str:
    """Text for a plotly label or hover, shown literally (optionally shortened first).

    plotly reads a few HTML tags and decodes ``&lt;``, ``&gt;`` and ``&amp;`` in its
    texts, but shows ``&quot;`` as is: so ``<``, ``>`` and ``&`` are escaped and
    quotes are left alone.

    Examples
    --------
    >>> plotly_text('<b>"Ann"</b> & co')
    '&lt;b&gt;"Ann"&lt;/b&gt; &amp; co'
    >>> plotly_text("<img src=x onerror=alert(1)>", limit=8)
    '&lt;img sr…'
    """
    return escape(text if limit is None else shorten(text, limit), quote=False)
