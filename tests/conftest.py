"""Shared fixtures: the paper's running example and small schema builders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNNING = ROOT / "sample_data" / "running_example"


def load_example(folder: Path) -> tuple[Any, Any, Any]:
    return tuple(json.loads((folder / f"{name}.json").read_text())  # type: ignore[return-value]
                 for name in ("gold", "candidate", "schema"))


@pytest.fixture
def running() -> tuple[Any, Any, Any]:
    """(gold, candidate, schema) of the paper's running example (fig:oa-example)."""
    return load_example(RUNNING)
