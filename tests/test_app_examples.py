"""AppTest: every bundled example, in every schema and candidate variant, on every page."""

from __future__ import annotations

import pytest
from apptest_helpers import errors, metric, open_app

import oa_core
from app.examples import list_examples

PAGES = ("overview.py", "match_tree.py", "referential.py", "feedback.py", "schema_tuning.py")
VARIANTS = [pytest.param(example.name, schema.file, candidate.file,
                         id=f"{example.name}:{schema.file}:{candidate.file}")
            for example in list_examples()
            for schema in example.schemas for candidate in example.candidates]


def test_every_example_is_swept() -> None:
    names = {param.values[0] for param in VARIANTS}
    assert {"running_example", "facts2order", "org2graph", "scierc"} <= names
    assert len(VARIANTS) >= len(names) + 5  # the multi-variant examples are all in


@pytest.mark.parametrize(("name", "schema_file", "candidate_file"), VARIANTS)
def test_example_variant_on_every_page(name: str, schema_file: str,
                                       candidate_file: str) -> None:
    example = next(e for e in list_examples() if e.name == name)
    at = open_app(query={"example": name}, timeout=60)
    for widget, value, default in (("w.example.schema", schema_file, example.schemas[0]),
                                   ("w.example.candidate", candidate_file,
                                    example.candidates[0])):
        if value != default.file:
            at.radio(key=widget).set_value(value).run()
    trio = at.session_state["oa.trio"]
    assert (trio.source, trio.schema_file, trio.candidate_file) == (
        name, schema_file, candidate_file)
    expected = oa_core.score(trio.gold, trio.candidate, trio.schema)
    assert metric(at, "Score") == f"{expected:.2f}"
    for page in PAGES:
        at.switch_page(f"../pages/{page}").run()
        assert not at.exception, (page, at.exception)
        assert not errors(at), (page, errors(at))
        assert at.title[0].value, page
