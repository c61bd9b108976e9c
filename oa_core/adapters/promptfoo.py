"""promptfoo: Object Aligner as a Python assertion (``get_assert``).

promptfoo runs a Python assertion file by calling ``get_assert(output, context)``: the
model's output (a string), and a context whose ``vars`` are the test's variables and
whose ``config`` is the assertion's ``config``. This module is such a file (its
imports are absolute, so promptfoo can load it by path) and the config says what to
compare::

    assert:
      - type: python
        value: file://oa_assert.py   # holds: from oa_core.adapters.promptfoo import get_assert
        config:
          schema: schemas/graph.json # the OA schema: a file path (from where promptfoo
                                     # runs) or the schema itself
          expected_var: expected     # the test variable holding the gold JSON (default)
          threshold: 0.9             # pass at this score or above (default 1.0)
          objectives: properties     # per-field named scores (or a list of pointers)
          top_k: 5                   # ops named in the reason
          max_chars: 2000            # characters of reason at most

It returns a GradingResult: ``pass``, ``score`` (the OA score), ``reason`` (the ranked
feedback), ``namedScores`` (``object_aligner`` and, with objectives, one per field, so
promptfoo's views chart them) and ``componentResults`` (one GradingResult per field).
An output without JSON fails with score 0 and says why; a bad config or gold raises
:class:`~oa_core.errors.OAError` (promptfoo shows the message as the failure).

Examples
--------
>>> schema = {"type": "object", "properties": {"city": {"type": "string"},
...                                            "year": {"type": "integer"}}}
>>> result = get_assert('{"city": "Paris", "year": 2023}',
...                     {"vars": {"expected": '{"city": "Paris", "year": 2024}'},
...                      "config": {"schema": schema, "objectives": "properties"}})
>>> result["pass"], result["score"], result["namedScores"]
(False, 0.75, {'object_aligner': 0.75, 'object_aligner/city': 1.0, 'object_aligner/year': 0.5})
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from oa_core.adapters.judge import Judge, passed, read_field
from oa_core.errors import InputError

__all__ = ["get_assert"]

NAME = "object_aligner"
_JUDGE_KEYS = ("top_k", "max_chars", "objectives")
_OWN_KEYS = frozenset({"schema", "expected_var", "threshold", *_JUDGE_KEYS})

# promptfoo calls get_assert once per test and output, with the same config: the judge
# (a parsed schema and its cache of prepared golds) is made once per config.
_judges: dict[str, Judge] = {}
_lock = threading.Lock()


def _judge(config: Mapping[str, Any]) -> Judge:
    key = json.dumps(config, sort_keys=True, default=repr)
    with _lock:
        judge = _judges.get(key)
    if judge is not None:
        return judge
    if "schema" not in config:
        raise InputError("/config/schema", "the assertion's config names no schema",
                         fix="add config: {schema: path/to/schema.json}", document="options")
    schema = config["schema"]
    if isinstance(schema, str) and not schema.lstrip().startswith("{"):
        try:
            schema = Path(schema).read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError("/config/schema", f"cannot read the schema file {schema!r}: "
                             f"{exc.strerror}", fix="give its path from where promptfoo runs, "
                             "or the schema itself", document="options") from None
    options = {k: v for k, v in config.items() if k not in _OWN_KEYS}
    judge = Judge(schema, field="output", gold_field=str(config.get("expected_var",
                                                                     "expected")),
                  **{k: config[k] for k in _JUDGE_KEYS if k in config}, **options)
    with _lock:
        return _judges.setdefault(key, judge)


def get_assert(output: Any, context: Mapping[str, Any]) -> dict[str, Any]:
    """promptfoo's Python assertion: the OA score of ``output`` against the test's gold.

    Parameters
    ----------
    output : str or JSON data
        The model's output.
    context : mapping
        promptfoo's assertion context: ``vars`` (the gold is ``vars[expected_var]``)
        and ``config`` (see the module notes).

    Returns
    -------
    dict
        A promptfoo GradingResult: ``pass``, ``score``, ``reason``, ``namedScores``,
        ``componentResults``.
    """
    config = context.get("config") or {}
    judge = _judge(config)
    threshold = config.get("threshold", 1.0)
    gold = read_field(context.get("vars") or {}, judge.gold_field)
    verdict = judge.judge(gold, output)
    ok = passed(verdict.score, threshold)
    components = [{"pass": passed(value, threshold), "score": value,
                   "reason": f"{pointer} scored {value:.2f}",
                   "namedScores": {NAME + pointer: value}}
                  for pointer, value in verdict.subscores.items()]
    return {"pass": ok, "score": verdict.score, "reason": verdict.feedback,
            "namedScores": {NAME: verdict.score, **{
                NAME + pointer: value for pointer, value in verdict.subscores.items()}},
            "componentResults": components}
