"""``score()`` of documents with scopes checks them in the one Rust call that scores
them (issue 22, speed): the conversion makes ``check_json``'s checks and the plan
checks the gold against the schema where it can, so Python's checks run only where
the plan cannot validate. The errors and scores are those the Python engine's checked
path gave (frozen here, as both engines gave them), whichever part caught the problem.
"""

from __future__ import annotations

from typing import Any

import pytest

import oa_core
import oa_core.aligner as aligner
from oa_core.native import native_validates
from oa_core.schema import Schema

PEOPLE = {"type": "array", "items": {"type": "object", "required": ["id"], "properties": {
    "id": {"type": "integer", "idScope": "p"}, "boss": {"type": "integer", "ref": "p"},
    "name": {"type": "string", "score": "levenshtein"}}}}
# "pattern" is checked by jsonschema only: the Rust plan does not validate this schema
PATTERNED = {"type": "array", "items": {"type": "object", "properties": {
    "id": {"type": "integer", "idScope": "p"},
    "name": {"type": "string", "pattern": "^[A-Z]"}}}}
GOLD = [{"id": 1, "name": "Ann"}, {"id": 2, "boss": 1, "name": "Bo"}]
CANDIDATE = [{"id": 7, "boss": 8, "name": "Bo"}, {"id": 8, "name": "Ann"}]


def _outcome(gold: Any, candidate: Any, schema: Schema, **options: Any) -> tuple[str, ...]:
    try:
        return ("score", oa_core.score(gold, candidate, schema, **options).hex())
    except oa_core.OAError as error:
        return (type(error).__name__, error.document, error.pointer, error.message)


@pytest.mark.parametrize(("raw", "gold", "candidate", "options", "expected"), [
    (PEOPLE, GOLD, CANDIDATE, {}, ("score", "0x1.0000000000000p+0")),
    (PEOPLE, [{"name": "Ann"}], CANDIDATE, {},  # the gold lacks a required id
     ("InputError", "gold", "/0", 'the gold violates the schema: "id" is a required '
                                  "property")),
    (PEOPLE, [{"id": "1"}], CANDIDATE, {},  # the gold's id is no integer
     ("InputError", "gold", "/0/id",
      'the gold violates the schema: "1" is not of type "integer"')),
    (PEOPLE, GOLD, [{"id": 1, "name": float("nan")}], {},  # not plain JSON
     ("InputError", "candidate", "/0/name", "numbers must be finite, got NaN")),
    (PEOPLE, [{"id": 1, "name": "x" * 50}], CANDIDATE,
     {"limits": oa_core.Limits(max_string_length=10)},
     ("InputError", "gold", "/0/name", "a string of 50 characters, over the limit of 10")),
    (PEOPLE, GOLD, [{"id": "7"}], {"strict": True},  # a violating candidate: 0
     ("score", "0x0.0p+0")),
    (PEOPLE, GOLD, [{"id": "7"}], {}, ("score", "0x1.0000000000000p-2")),  # scored
    (PATTERNED, [{"id": 1, "name": "ann"}], [{"id": 2, "name": "Ann"}], {},
     ("InputError", "gold", "/0/name",
      'the gold violates the schema: "ann" does not match "^[A-Z]"')),
    (PATTERNED, [{"id": 1, "name": "Ann"}], [{"id": 2, "name": "ann"}], {},
     ("score", "0x1.c71c71c71c71cp-1")),
])
def test_the_rust_path_gives_the_checked_paths_scores_and_errors(
        raw: dict[str, Any], gold: Any, candidate: Any, options: dict[str, Any],
        expected: tuple[str, ...]) -> None:
    schema = Schema.parse(raw)
    assert _outcome(gold, candidate, schema, **options) == expected
    prepared = None
    try:
        prepared = oa_core.prepare_gold(gold, schema, **options)
    except oa_core.InputError:
        return  # a gold refused here is refused by prepare_gold too
    assert _outcome(prepared, candidate, schema, **options) == expected


def test_a_score_rust_answers_runs_no_python_check(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = Schema.parse(PEOPLE)
    assert native_validates(schema)
    expected = oa_core.score(GOLD, CANDIDATE, schema)

    def checked(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("Python checked the documents")

    monkeypatch.setattr(aligner, "_violations", checked)
    assert oa_core.score(GOLD, CANDIDATE, schema).hex() == expected.hex()
    # a schema Rust cannot validate still has the gold checked in Python
    patterned = Schema.parse(PATTERNED)
    assert not native_validates(patterned)
    with pytest.raises(AssertionError, match="Python checked"):
        oa_core.score([{"id": 1, "name": "Ann"}], [{"id": 2, "name": "Ann"}], patterned)
