"""Every docstring example in oa_core, app and synthetic runs (the numpydoc examples are
tests too)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import app
import oa_core
import synthetic

ROOT = Path(__file__).resolve().parent.parent
# app.main is the Streamlit entry script: importing it would run the app
MODULES = sorted(m.name for package in (oa_core, app, synthetic)
                 for m in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")
                 if m.name != "app.main")


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # examples read sample_data/ relative to the repository
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} example(s) failed in {name}"
