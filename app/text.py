"""Making user text safe and short for each medium: Markdown, plotly, plain labels.

HTML proper (``st.html`` tables) is escaped with :func:`html.escape`.
"""

from __future__ import annotations

import re
from html import escape

_MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()<>#+-.!|~$:&")
WORD_JOINER = "\u2060"
# Streamlit rewrites some *text* (after Markdown has parsed the escapes away): GitHub
# autolinks (``www.x.org``, ``http://x.org``, ``a@b.org``), ``:material/icon:``,
# ``:streamlit:`` and ``:emoji:`` shortcodes, and typographic arrows (`` -> `` becomes
# →). A backslash cannot stop those, an invisible word joiner inside the trigger does.
_TEXT_TRIGGERS = re.compile(
    r"(?<=:)(?=//|[\w+-]+:|material[/_])"  # scheme://, :shortcode:, :material/x:
    r"|(?i:(?<=www))(?=\.)"  # www.
    r"|(?<=[-.\w+])(?=@)"  # e-mail
    r"|(?<=(?<!\S)[-<>~])(?=[->=](?!\S))"  # -> <- -- >= <= ~=
    r"|(?<=(?<!\S)<)(?=->(?!\S))")  # <->
_LINE_BREAK = re.compile(r"\r\n?|\n")


def md_escape(text: str) -> str:
    """Markdown (and Streamlit's LaTeX, icons, links) that shows ``text`` literally.

    Every Markdown special character is backslash-escaped (``$`` too, so no maths),
    and a word joiner (U+2060, invisible) breaks the patterns Streamlit rewrites in
    plain text: autolinks, ``:icon:`` shortcodes and arrows.

    Examples
    --------
    >>> md_escape("<script>*x*</script>")
    '\\\\<script\\\\>\\\\*x\\\\*\\\\</script\\\\>'
    >>> md_escape("**B** $y$ [L](http://x)").replace(WORD_JOINER, "^")
    '\\\\*\\\\*B\\\\*\\\\* \\\\$y\\\\$ \\\\[L\\\\]\\\\(http\\\\:^//x\\\\)'
    >>> md_escape("www.x.org a -> b").replace(WORD_JOINER, "^")
    'www^\\\\.x\\\\.org a \\\\-^\\\\> b'
    """
    text = _TEXT_TRIGGERS.sub(WORD_JOINER, text)
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in text)


def md_inline(text: str) -> str:
    """:func:`md_escape` for one line (a label, a header): line breaks show as ``↵``.

    Examples
    --------
    >>> md_inline("a\\n# b")
    'a↵\\\\# b'
    """
    return md_escape(_LINE_BREAK.sub("↵", text))


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
