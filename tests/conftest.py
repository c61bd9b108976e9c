"""Shared fixtures: the paper's running example and small schema builders."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
RUNNING = ROOT / "sample_data" / "running_example"


def load_example(folder: Path) -> tuple[Any, Any, Any]:
    return tuple(json.loads((folder / f"{name}.json").read_text())  # type: ignore[return-value]
                 for name in ("gold", "candidate", "schema"))


@pytest.fixture(autouse=True)
def _fresh_streamlit_caches(request: pytest.FixtureRequest) -> None:
    """Isolate the explorer's page tests: ``st.cache_*`` outlives an AppTest instance."""
    if request.module.__name__.startswith("test_app_"):
        import streamlit as st

        st.cache_data.clear()
        st.cache_resource.clear()


def _file_cost_class(item: pytest.Item) -> int:
    """0: a browser file, 1: an explorer page file (AppTest), 2: the rest."""
    path = item.path
    if path.parent.name == "browser":
        return 0
    return 1 if path.name.startswith("test_app_") else 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Whole files in the order the two workers should take them (scripts/test runs
    ``--dist loadfile --no-loadscope-reorder``): the few long browser and page files
    first, then the rest by how many tests they hold, so no long file is left to one
    worker at the end while the other idles. Tests keep their order within a file."""
    per_file: dict[Path, int] = {}
    for item in items:
        per_file[item.path] = per_file.get(item.path, 0) + 1
    items.sort(key=lambda item: (_file_cost_class(item), -per_file[item.path]))


@pytest.fixture
def running() -> tuple[Any, Any, Any]:
    """(gold, candidate, schema) of the paper's running example (fig:oa-example)."""
    return load_example(RUNNING)


# The suite runs derandomized (the same examples every run, so a red run is a bug to
# reproduce, never bad luck); HYPOTHESIS_PROFILE=explore searches new examples each
# run, and deep searches longer.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.register_profile("deep", max_examples=1500, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True, scope="session")
def _private_run_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Scored runs are cached under the user's home by default (``OA_RUN_CACHE``):
    the suite, and the explorers it starts, keep theirs in a folder of its own, so a
    test never reads a run another session left behind."""
    os.environ["OA_RUN_CACHE"] = str(tmp_path_factory.mktemp("run-cache"))
