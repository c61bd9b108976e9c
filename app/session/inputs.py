"""Reading the explorer's inputs: JSON/JSONL texts into a trio of documents.

Pure parsing (no Streamlit): a trio (:class:`Trio`), the load errors shown in the page
(:class:`LoadError`), bundles (a whole trio or a pair in one value) and where each
document came from (:func:`provenance`).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from oa_core.errors import OAError
from oa_core.jsonio import extract_json, jsonl_lines, loads
from oa_core.schema import Schema

from ..examples import DOCUMENTS

__all__ = ["JSONL_SUFFIXES", "LoadError", "Trio", "canonical", "documents_of", "error_from",
           "is_bundle", "parse_trio", "provenance", "read_values"]

JSONL_SUFFIXES = (".jsonl", ".ndjson")
_PAIR_KEYS = frozenset({"id", "gold", "candidate", "prediction", "schema"})


@dataclass
class Trio:
    """The documents being compared.

    Parameters
    ----------
    source : str
        The bundled example's name, or ``"custom"`` for uploaded/pasted input.
    gold, candidate, schema : Any
        Parsed JSON values; ``candidate`` is the one the user started from.
    files : dict
        document -> where its text came from.
    schema_file, candidate_file : str or None
        The chosen variants of a bundled example.
    origins : dict
        document -> (how it came, name): ``("example", folder name)``,
        ``("upload", file name)``, ``("paste", "")`` or ``("dataset", pair label)``;
        see :func:`provenance`.
    pair : (str, str, str) or None
        ``(dataset, run, id)`` when the trio is a pair of an evaluation dataset
        (:mod:`app.runs.dataset_state`); the URL then names it as ``pair``.
    """

    source: str
    gold: Any
    candidate: Any
    schema: Any
    files: dict[str, str] = field(default_factory=dict)
    schema_file: str | None = None
    candidate_file: str | None = None
    origins: dict[str, tuple[str, str]] = field(default_factory=dict)
    pair: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class LoadError:
    """A problem with one input, shown in the page.

    Parameters
    ----------
    document : str
        "gold", "candidate", "schema" or "example".
    source : str
        Where the text came from (file name, "pasted text", example path).
    message : str
        What is wrong, with line/column when it is a syntax error.
    pointer : str
        JSON Pointer of the problem ("" for the whole document).
    fix : str
        What to do about it.
    values : tuple
        The document values the message shows cut, in full (see
        :func:`oa_core.errors.preview_json`).
    """

    document: str
    source: str
    message: str
    pointer: str = ""
    fix: str = ""
    values: tuple[Any, ...] = field(default=(), compare=False, repr=False)


def canonical(value: Any) -> str:
    """Deterministic JSON text of a value (the cache key of an input)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def error_from(exc: OAError, source: str) -> LoadError:
    """A :class:`LoadError` from an ``oa_core`` input or schema error."""
    return LoadError(exc.document, source, exc.message, exc.pointer, exc.fix, exc.values)


def read_values(document: str, source: str, text: str | bytes,
                ) -> tuple[list[tuple[str, Any]], LoadError | None]:
    """The JSON values of one input, each with a label saying where it came from.

    Parameters
    ----------
    document : str
        The document the input was given as ("gold", "candidate" or "schema").
    source : str
        Its file name or label; a ``.jsonl``/``.ndjson`` name is read one value per
        non-blank line (labelled ``"NAME line N"``), anything else as one JSON/JSONC value.
    text : str or bytes

    Returns
    -------
    values : list of (label, value)
        Empty when there is an error.
    error : LoadError or None

    Examples
    --------
    >>> read_values("gold", "p.jsonl", '{"a": 1}\\n\\n[2]\\n')
    ([('p.jsonl line 1', {'a': 1}), ('p.jsonl line 3', [2])], None)
    >>> read_values("gold", "p.jsonl", '{"a": 1}\\n{"b" 2}')[1].source
    'p.jsonl line 2'
    """
    if not source.lower().endswith(JSONL_SUFFIXES):
        try:
            return [(source, loads(text, document=document))], None  # type: ignore[arg-type]
        except OAError as exc:
            return [], error_from(exc, source)
    lines: list[str | bytes] = list(jsonl_lines(text))
    values: list[tuple[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        label = f"{source} line {number}"
        try:
            values.append((label, loads(line, document=document)))  # type: ignore[arg-type]
        except OAError as exc:
            return [], error_from(exc, label)
    if not values:
        return [], LoadError(document, source, "this JSONL file holds no JSON value",
                             fix="give one JSON value per line")
    return values, None


def is_bundle(value: Any) -> bool:
    """Whether ``value`` is a whole trio or a pair rather than one document.

    A bundle is an object with ``gold`` and ``candidate`` (or ``prediction``, raw model
    text), optionally ``schema`` and ``id``, and no other key: the explorer's
    "Current trio (JSON)" download, or a line of an ``oa batch`` JSONL file.

    Examples
    --------
    >>> is_bundle({"gold": {}, "candidate": {}, "schema": {}}), is_bundle({"gold": 1})
    (True, False)
    >>> is_bundle({"gold": 1, "candidate": 2, "note": "x"})
    False
    """
    return (isinstance(value, dict) and "gold" in value
            and ("candidate" in value or "prediction" in value) and set(value) <= _PAIR_KEYS)


def documents_of(document: str, value: Any) -> dict[str, Any]:
    """The documents one input value gives: every document of a bundle, else ``document``.

    Raises
    ------
    oa_core.OAError
        When a bundle's ``prediction`` holds no JSON value.
    """
    if not is_bundle(value):
        return {document: value}
    found = {name: value[name] for name in DOCUMENTS if name in value}
    if "candidate" not in found:
        prediction = value["prediction"]
        found["candidate"] = (extract_json(prediction) if isinstance(prediction, str)
                              else prediction)
    return found


def parse_trio(texts: dict[str, tuple[str, str | bytes]], fallback: Trio | None,
               origins: dict[str, tuple[str, str]] | None = None,
               ) -> tuple[Trio | None, list[LoadError]]:
    """Parse gold, candidate and schema texts into a :class:`Trio`.

    Parameters
    ----------
    texts : dict
        document -> (source label, text); a document missing here is taken
        from ``fallback``. A text holding a whole trio (``{"gold", "candidate",
        "schema"}``, as the explorer downloads it) or a pair (a line of an ``oa batch``
        JSONL file) gives all its documents, whichever document it was given as; a
        document given on its own wins over one from a bundle. A JSONL text gives its
        first value.
    fallback : Trio or None
        The current trio.
    origins : dict, optional
        document -> (how it came, name) of the given texts (see ``Trio.origins``);
        by default ``("upload", source label)``.

    Returns
    -------
    trio : Trio or None
        None when any document is missing or invalid.
    errors : list of LoadError
    """
    errors: list[LoadError] = []
    alone: dict[str, tuple[Any, str, tuple[str, str]]] = {}
    bundled: dict[str, tuple[Any, str, tuple[str, str]]] = {}
    for document, (source, text) in texts.items():
        origin = (origins or {}).get(document, ("upload", source))
        values, error = read_values(document, source, text)
        if error is not None:
            errors.append(error)
            continue
        label, value = values[0]
        try:
            found = documents_of(document, value)
        except OAError as exc:
            errors.append(error_from(exc, label))
            continue
        target = alone if len(found) == 1 and document in found else bundled
        for name, item in found.items():
            target[name] = (item, label, origin)
    given = {**bundled, **alone}
    values_: dict[str, Any] = {}
    files: dict[str, str] = {}
    came: dict[str, tuple[str, str]] = {}
    for document in DOCUMENTS:
        if document in given:
            values_[document], files[document], came[document] = given[document]
        elif any(error.document == document for error in errors):
            continue
        elif fallback is not None:
            values_[document] = copy.deepcopy(getattr(fallback, document))
            files[document] = fallback.files.get(document, "current")
            came[document] = fallback.origins.get(document) or (
                ("example", fallback.source) if fallback.source != "custom"
                else ("upload", files[document]))
        else:
            errors.append(LoadError(document, "(none)", f"no {document} document given",
                                    fix=f"upload or paste the {document} JSON"))
    if "schema" in values_:
        try:
            Schema.parse(values_["schema"])
        except OAError as exc:
            errors.append(error_from(exc, files.get("schema", "schema")))
    if errors:
        return None, errors
    return Trio("custom", values_["gold"], values_["candidate"], values_["schema"], files,
                origins=came), []


def provenance(trio: Trio) -> tuple[str, bool]:
    """Where each document of ``trio`` came from, in words, and whether it is a mix.

    Returns
    -------
    text : str
        Documents grouped by origin, e.g. ``"gold: pasted; candidate and schema: from
        running_example"`` (plain text: escape it for Markdown).
    mixed : bool
        True when some documents, but not all, are a bundled example's: the user
        gave only part of the trio and the rest silently stayed from the example.

    Examples
    --------
    >>> trio = Trio("custom", 1, 2, 3, origins={"gold": ("paste", ""),
    ...     "candidate": ("example", "running_example"),
    ...     "schema": ("example", "running_example")})
    >>> provenance(trio)
    ('gold: pasted; candidate and schema: from running_example', True)
    """
    groups: dict[str, list[str]] = {}
    kinds = set()
    for document in DOCUMENTS:
        kind, name = trio.origins.get(document, ("upload", trio.files.get(document, "?")))
        kinds.add(kind == "example")
        label = {"example": f"from {name}", "paste": "pasted"}.get(kind, name)
        groups.setdefault(label, []).append(document)
    text = "; ".join(f"{_and(documents)}: {label}" for label, documents in groups.items())
    return text, kinds == {True, False}


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

