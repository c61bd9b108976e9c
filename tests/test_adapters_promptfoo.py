"""The promptfoo Python assertion, called as promptfoo's docs say it is called.

promptfoo (a Node CLI, not installable here) runs ``file://oa_assert.py`` by loading the
file by its path, calling ``get_assert(output, context)`` with the output string and a
JSON context (``vars``, ``test``, ``prompt``, ``config``...), and reading back a JSON
GradingResult. The test does the same: load by path, JSON in, JSON out.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

import oa_core
import oa_core.adapters.promptfoo as promptfoo

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"},
                                           "year": {"type": "integer"}}}
GRADING_KEYS = {"pass", "score", "reason", "namedScores", "componentResults"}


def load_by_path(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"promptfoo_assert_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def call(module: Any, output: str, context: dict[str, Any]) -> dict[str, Any]:
    """promptfoo's round trip: JSON arguments in, a JSON GradingResult out."""
    args = json.loads(json.dumps([output, context]))
    result = json.loads(json.dumps(module.get_assert(*args)))
    assert isinstance(result, dict)
    return result


def context(tmp_path: Path, gold: Any, **config: Any) -> dict[str, Any]:
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    return {"prompt": "Where and when?", "vars": {"expected": gold, "topic": "x"},
            "test": {"vars": {"expected": gold}, "assert": [{"type": "python"}]},
            "config": {"schema": str(schema_file), **config}, "logProbs": None,
            "provider": None, "providerResponse": None, "trace": None}


@pytest.fixture(params=["one-line file", "the module itself"])
def assertion(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The assertion file as the docs show it, and the module file given directly."""
    if request.param == "one-line file":
        path = tmp_path / "oa_assert.py"
        path.write_text("from oa_core.adapters.promptfoo import get_assert  # noqa: F401\n")
        return load_by_path(path)
    return load_by_path(Path(promptfoo.__file__))


def test_grading_result(assertion: Any, tmp_path: Path) -> None:
    gold = json.dumps({"city": "Paris", "year": 2024})
    output = 'Sure:\n```json\n{"city": "Paris", "year": 2023}\n```'
    result = call(assertion, output, context(tmp_path, gold, objectives="properties",
                                             threshold=0.7))
    assert set(result) == GRADING_KEYS
    expected = oa_core.score({"city": "Paris", "year": 2024}, {"city": "Paris", "year": 2023},
                             SCHEMA)
    assert result["score"] == expected == 0.75 and result["pass"] is True
    assert "/year: expected 2024, got 2023" in result["reason"]
    assert result["namedScores"] == {"object_aligner": 0.75, "object_aligner/city": 1.0,
                                     "object_aligner/year": 0.5}
    assert result["componentResults"] == [
        {"pass": True, "score": 1.0, "reason": "/city scored 1.00",
         "namedScores": {"object_aligner/city": 1.0}},
        {"pass": False, "score": 0.5, "reason": "/year scored 0.50",
         "namedScores": {"object_aligner/year": 0.5}}]
    strict = call(assertion, output, context(tmp_path, gold))  # default threshold 1.0
    assert strict["pass"] is False and strict["componentResults"] == []
    assert strict["namedScores"] == {"object_aligner": 0.75}


def test_no_json_fails_with_the_reason(assertion: Any, tmp_path: Path) -> None:
    result = call(assertion, "I do not know.", context(tmp_path, {"city": "Paris"},
                                                       objectives=["/city"], threshold=0))
    assert result["score"] == 0.0 and "not JSON" in result["reason"]
    assert result["pass"] is True  # threshold 0: anything passes
    assert result["namedScores"] == {"object_aligner": 0.0, "object_aligner/city": 0.0}


def test_config(tmp_path: Path) -> None:
    inline = {"prompt": "", "vars": {"gold": {"city": "Paris"}},
              "config": {"schema": SCHEMA, "expected_var": "gold", "max_chars": 300}}
    assert promptfoo.get_assert('{"city": "Paris"}', inline)["pass"] is True
    inline["config"] = {**inline["config"], "schema": json.dumps(SCHEMA)}
    assert promptfoo.get_assert('{"city": "Paris"}', inline)["score"] == 1.0
    with pytest.raises(oa_core.InputError, match="names no schema"):
        promptfoo.get_assert("{}", {"vars": {}, "config": {}})
    with pytest.raises(oa_core.InputError, match="cannot read the schema file"):
        promptfoo.get_assert("{}", {"vars": {}, "config": {"schema": str(tmp_path / "no")}})
    with pytest.raises(oa_core.InputError, match="no field 'expected'"):
        promptfoo.get_assert("{}", {"vars": {}, "config": {"schema": SCHEMA}})
    with pytest.raises(oa_core.InputError, match="threshold"):
        promptfoo.get_assert("{}", {"vars": {"expected": {}},
                                    "config": {"schema": SCHEMA, "threshold": 2}})
