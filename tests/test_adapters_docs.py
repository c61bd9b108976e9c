"""Every Python example of docs/adapters.md runs as it is, offline, and prints what the
comments next to it say."""

from __future__ import annotations

import contextlib
import io
import logging
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from offline import block_network  # noqa: F401  (a fixture)

DOC = Path(__file__).resolve().parent.parent / "docs" / "adapters.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(), flags=re.S | re.M)
SECTIONS = re.findall(r"^## (.+)$", DOC.read_text(), flags=re.M)


def _section(block: str) -> str:
    text = DOC.read_text()
    at = text.index(block)
    return [s for s in SECTIONS if 0 <= text.find(f"## {s}") < at][-1]


def test_every_adapter_has_an_example() -> None:
    assert {_section(block) for block in BLOCKS} == {
        "DSPy / GEPA", "Inspect AI", "pydantic-evals", "LangSmith / openevals", "promptfoo"}


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{n}-{_section(b)}"
                                               for n, b in enumerate(BLOCKS)])
def test_example_runs(block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      block_network: list[Any]) -> None:  # noqa: F811
    monkeypatch.chdir(tmp_path)  # where the examples write (Inspect's logs)
    out = io.StringIO()
    logging.disable(logging.CRITICAL)
    try:
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(block, str(DOC), "exec"), {"__name__": "__main__"})
    finally:
        logging.disable(logging.NOTSET)
    assert block_network == []
    printed = out.getvalue()
    # a comment holding a value ("# 0.75 {...}", "# [(...)]", "# True ...") after a print
    # is a line of what the example prints
    values = r"((?:[\[{(0-9]|True |False |[a-z]+ \{).*)$"
    promised = re.findall(r"^\s*print\(.*\)\s*#\s*" + values + "|^# " + values, block,
                          flags=re.M)
    assert promised or "print(" not in block
    for pair in promised:
        text = next(part for part in pair if part)
        assert text.strip() in printed, (text, printed[-2000:])
