"""The bundled examples under ``sample_data/``.

An example is a folder holding a ``gold.json``, one or more schemas and one or
more candidates. ``sample_data/index.json`` lists them with a title, a description,
the schema and candidate variants and an optional source text; without it every
folder that holds ``gold.json``, ``candidate.json`` and ``schema.json`` is listed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"
DEFAULT_EXAMPLE = "running_example"
DOCUMENTS = ("gold", "candidate", "schema")


@dataclass(frozen=True)
class Variant:
    """One file of an example (a schema or a candidate) with a human label."""

    file: str
    label: str


@dataclass(frozen=True)
class Example:
    """One bundled example.

    Parameters
    ----------
    name : str
        Folder name under ``sample_data/`` (also the ``?example=`` value).
    title : str
        Human title.
    description : str
        One or two sentences on what it shows.
    schemas, candidates : tuple of Variant
        The schema and candidate files to choose from (the first is the default).
    context : str or None
        File with the source text the documents were extracted from.
    """

    name: str
    title: str
    description: str
    schemas: tuple[Variant, ...] = (Variant("schema.json", "schema"),)
    candidates: tuple[Variant, ...] = (Variant("candidate.json", "candidate"),)
    context: str | None = None

    @property
    def folder(self) -> Path:
        """The example's folder."""
        return SAMPLE_DIR / self.name

    def gold_path(self) -> Path:
        """The gold document (``gold.json`` or ``gold.jsonc``)."""
        for suffix in (".json", ".jsonc"):
            path = self.folder / f"gold{suffix}"
            if path.is_file():
                return path
        return self.folder / "gold.json"

    def context_text(self) -> str | None:
        """The source text, if the example has one."""
        if self.context is None:
            return None
        try:
            return (self.folder / self.context).read_text(encoding="utf-8")
        except OSError:
            return None


def _variants(raw: object, default: str) -> tuple[Variant, ...]:
    if not isinstance(raw, list):
        return (Variant(default, default.removesuffix(".json")),)
    out = tuple(Variant(str(v["file"]), str(v.get("label") or v["file"]))
                for v in raw if isinstance(v, dict) and isinstance(v.get("file"), str))
    return out or (Variant(default, default.removesuffix(".json")),)


def _from_entry(entry: dict[str, object]) -> Example | None:
    name = entry.get("name") or entry.get("id")
    if not isinstance(name, str) or not (SAMPLE_DIR / name).is_dir():
        return None
    context = entry.get("context")
    example = Example(name, str(entry.get("title") or name), str(entry.get("description") or ""),
                      _variants(entry.get("schemas"), "schema.json"),
                      _variants(entry.get("candidates"), "candidate.json"),
                      context if isinstance(context, str) else None)
    return example if _complete(example) else None


def _complete(example: Example) -> bool:
    files = [example.gold_path(), example.folder / example.schemas[0].file,
             example.folder / example.candidates[0].file]
    return all(path.is_file() for path in files)


def list_examples() -> list[Example]:
    """The bundled examples, the running example first.

    Returns
    -------
    list of Example
        From ``sample_data/index.json`` (entries with ``name`` or ``id``, optional
        ``schemas``/``candidates`` variant lists) when it exists and parses; entries
        whose files are missing are left out. Without an index, every folder
        holding gold, candidate and schema JSON.
    """
    index = SAMPLE_DIR / "index.json"
    entries: list[dict[str, object]] = []
    if index.is_file():
        try:
            loaded = json.loads(index.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            loaded = []
        raw = loaded.get("examples", []) if isinstance(loaded, dict) else loaded
        entries = [e for e in raw if isinstance(e, dict)] if isinstance(raw, list) else []
    if entries:
        found = [_from_entry(entry) for entry in entries]
        examples = [e for e in found if e is not None]
    elif SAMPLE_DIR.is_dir():
        examples = [e for p in sorted(SAMPLE_DIR.iterdir()) if p.is_dir()
                    and _complete(e := Example(p.name, p.name.replace("_", " "), ""))]
    else:
        examples = []
    examples.sort(key=lambda e: e.name != DEFAULT_EXAMPLE)
    return examples
