"""The bundled examples under ``sample_data/``.

An example is a folder holding ``gold``, ``candidate`` and ``schema`` documents
(``.json`` or ``.jsonc``). ``sample_data/index.json`` lists them with a title and a
description; without it every folder that holds the three documents is listed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_data"
DEFAULT_EXAMPLE = "running_example"
DOCUMENTS = ("gold", "candidate", "schema")


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
    """

    name: str
    title: str
    description: str

    def document_path(self, document: str) -> Path:
        """The file of ``document`` ("gold", "candidate" or "schema").

        Raises
        ------
        FileNotFoundError
            When the folder holds neither ``<document>.json`` nor ``.jsonc``.
        """
        for suffix in (".json", ".jsonc"):
            path = SAMPLE_DIR / self.name / f"{document}{suffix}"
            if path.is_file():
                return path
        raise FileNotFoundError(f"sample_data/{self.name}/{document}.json")


def _complete(folder: Path) -> bool:
    return all(any((folder / f"{doc}{suffix}").is_file() for suffix in (".json", ".jsonc"))
               for doc in DOCUMENTS)


def list_examples(sample_dir: Path = SAMPLE_DIR) -> list[Example]:
    """The bundled examples, the running example first.

    Parameters
    ----------
    sample_dir : Path
        The folder to look in.

    Returns
    -------
    list of Example
        From ``index.json`` when it exists and parses (entries whose folder is
        incomplete are left out), else from the complete sub-folders.
    """
    examples: list[Example] = []
    index = sample_dir / "index.json"
    entries: list[dict[str, str]] = []
    if index.is_file():
        try:
            loaded = json.loads(index.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            loaded = []
        raw = loaded.get("examples", []) if isinstance(loaded, dict) else loaded
        entries = [e for e in raw if isinstance(e, dict) and isinstance(e.get("name"), str)]
    if entries:
        for entry in entries:
            if _complete(sample_dir / entry["name"]):
                examples.append(Example(entry["name"], str(entry.get("title") or entry["name"]),
                                        str(entry.get("description") or "")))
    elif sample_dir.is_dir():
        examples = [Example(p.name, p.name.replace("_", " "), "")
                    for p in sorted(sample_dir.iterdir()) if p.is_dir() and _complete(p)]
    examples.sort(key=lambda e: e.name != DEFAULT_EXAMPLE)
    return examples
