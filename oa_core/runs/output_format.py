"""Why a model's raw output did or did not give its answer as JSON: its *format status*.

A run of raw model text (``"prediction"`` lines) is read with
:func:`oa_core.jsonio.extract_json`, which finds a JSON value even inside prose or in a
cut-off answer. The score then says how good that value is, not whether it was the
model's whole answer. :func:`classify` says which, from the text alone:

``ok``
    the text is one JSON value (or one fenced code block holding it);
``prose``
    the JSON value was read from inside other text (scored on its content);
``cut off``
    a bracket opens and never closes: the output was truncated, and the value read, if
    any, is a fragment of the answer;
``refused``
    no JSON, and the text declines to answer ("I'm sorry, but I can't...");
``not JSON``
    no JSON value anywhere in the text;
``empty``
    nothing but white space.

The last four are **format failures** (:data:`FAILURES`): their score measures the
format, not the content, and run statistics report them apart from content errors.
A line that could not be scored at all has the status ``error`` (:data:`STATUSES`).

Examples
--------
>>> [classify(text, parsed=True) for text in ('{"a": 1}', '```json\\n[1]\\n```',
...                                            'Sure: {"a": 1} Bye', '{"a": [{"b": 1}, {')]
['ok', 'ok', 'prose', 'cut off']
>>> [classify(text, parsed=False) for text in ("I'm sorry, I can't help.", "no idea", " ")]
['refused', 'not JSON', 'empty']
>>> describe("refused")
'the model declined to answer (no JSON): scored 0'
"""

from __future__ import annotations

import json
import re

__all__ = ["FAILURES", "FORMATS", "STATUSES", "classify", "cut_off", "describe"]

FORMATS = ("ok", "prose", "cut off", "refused", "not JSON", "empty")
"""The format statuses of a raw output, the readable ones first."""
FAILURES = frozenset({"cut off", "refused", "not JSON", "empty"})
"""The format statuses whose score measures the format, not the content."""
STATUSES = (*FORMATS, "error")
"""A pair's status in a scored run: its format status, or ``error`` (not scored)."""

_DESCRIPTIONS = {
    "ok": "",
    "prose": "prose around the JSON: the JSON inside it was read and scored",
    "cut off": "the output is cut off (a bracket never closes): only a complete value "
               "inside it was read, not the whole answer",
    "refused": "the model declined to answer (no JSON): scored 0",
    "not JSON": "the output holds no JSON value: scored 0",
    "empty": "the model output is empty: scored 0",
}
_FENCED = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\r?\n.*?```", re.DOTALL)
# Phrases of a model declining; matched only in outputs that hold no JSON at all.
_REFUSAL = re.compile(
    r"\b(?:sorry|apologi[sz]e|unable to|not able to|can(?:no|')t|cannot|won't|will not|"
    r"(?:does|do) not (?:contain|have|provide) enough|not enough information|"
    r"as an ai)\b", re.IGNORECASE)


def cut_off(text: str) -> bool:
    """Whether raw model text opens a bracket it never closes (a truncated output).

    Brackets count from the first ``{`` or ``[``; inside them, JSON strings are skipped
    (outside, quotes are prose).

    >>> cut_off('Sure: {"people": [{"id": 1}, {"id": 2'), cut_off('{"a": "}"} ok')
    (True, False)
    """
    depth, inside, escaped = 0, False, False
    for char in text:
        if inside:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                inside = False
        elif char in "[{":
            depth += 1
        elif char in "]}" and depth:
            depth -= 1
        elif char == '"' and depth:
            inside = True
    return depth > 0


def _whole_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        from ..errors import OAError
        from ..jsonio import loads

        try:  # JSONC (comments, trailing commas) is read whole too
            loads(text)
        except OAError:
            return False
    return True


def classify(text: str, *, parsed: bool) -> str:
    """The format status of one raw model output (one of :data:`FORMATS`).

    Parameters
    ----------
    text : str
        What the model wrote.
    parsed : bool
        Whether a JSON value was read from it (:func:`oa_core.jsonio.extract_json`
        succeeded and the pair was scored on it).
    """
    stripped = text.strip()
    if not stripped:
        return "empty"
    if parsed:
        if _whole_json(stripped) or _FENCED.fullmatch(stripped):
            # a text that is one fence and was read: the fence held the value
            return "ok"
        return "cut off" if cut_off(text) else "prose"
    if cut_off(text):
        return "cut off"
    return "refused" if _REFUSAL.search(stripped) else "not JSON"


def describe(status: str) -> str:
    """What a format status means for the pair, in one sentence ("" for ``ok``)."""
    return _DESCRIPTIONS.get(status, "")
