"""Every docstring example in oa_core runs (the numpydoc examples are tests too)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import oa_core

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(m.name for m in pkgutil.walk_packages(oa_core.__path__, "oa_core."))


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # examples read sample_data/ relative to the repository
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} example(s) failed in {name}"
