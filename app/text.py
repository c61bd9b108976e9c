"""Escaping user text for Markdown (HTML is escaped with :func:`html.escape`)."""

from __future__ import annotations

_MARKDOWN_SPECIAL = frozenset("\\`*_{}[]()<>#+-.!|~$:")


def md_escape(text: str) -> str:
    """Backslash-escape every Markdown special character, so text shows literally.

    Examples
    --------
    >>> md_escape("<script>*x*</script>")
    '\\\\<script\\\\>\\\\*x\\\\*\\\\</script\\\\>'
    """
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIAL else ch for ch in text)
