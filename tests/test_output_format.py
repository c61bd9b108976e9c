"""The format status of raw model output (oa_core.runs.output_format): one test per status,
and the invariants (every text gets one status; a text read whole is never a failure)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from oa_core.jsonio import extract_json
from oa_core.runs.output_format import FAILURES, FORMATS, classify, cut_off, describe


def test_a_plain_or_fenced_json_answer_is_ok() -> None:
    assert classify('{"a": 1}', parsed=True) == "ok"
    assert classify('  [1, 2]\n', parsed=True) == "ok"
    assert classify('```json\n{"a": 1}\n```', parsed=True) == "ok"
    assert classify('{"a": 1, // a comment\n}', parsed=True) == "ok"  # JSONC is read whole


def test_json_inside_other_text_is_prose() -> None:
    assert classify('Here is the graph: {"a": 1}. Hope it helps!', parsed=True) == "prose"
    assert classify('Sure.\n```json\n{"a": 1}\n```', parsed=True) == "prose"


def test_an_unclosed_bracket_is_cut_off_whether_or_not_a_fragment_was_read() -> None:
    assert classify('{"people": [{"id": 1}], "companies": [{"id"', parsed=True) == "cut off"
    assert classify('{"people": [{"id', parsed=False) == "cut off"


def test_no_json_is_refused_not_json_or_empty() -> None:
    assert classify("I'm sorry, but I can't extract a graph.", parsed=False) == "refused"
    assert classify("The paragraph does not contain enough information to answer.",
                    parsed=False) == "refused"
    assert classify("The answer is forty-two.", parsed=False) == "not JSON"
    assert classify(" \n\t", parsed=False) == classify("", parsed=True) == "empty"


def test_every_status_has_a_sentence_but_ok() -> None:
    assert describe("ok") == ""
    assert all(describe(status) for status in FORMATS if status != "ok")
    assert set(FORMATS) > FAILURES


def test_cut_off_ignores_quotes_in_prose_and_brackets_in_strings() -> None:
    assert cut_off('{"a": [1, 2')
    assert not cut_off('He said "it\'s done. {"a": "]"}')
    assert cut_off('{"a": "\\"}"')
    assert not cut_off("no JSON at all")


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=8),
       st.sampled_from(["", "Sure: ", "```json\n"]))
def test_a_json_value_read_back_is_never_a_format_failure(value: object, prefix: str) -> None:
    text = prefix + json.dumps({"v": value}) + ("\n```" if prefix.startswith("```") else "")
    extract_json(text)  # it is read
    status = classify(text, parsed=True)
    assert status in FORMATS and status not in FAILURES
    assert (status == "ok") == (prefix != "Sure: ")
