"""Shared AppTest plumbing for the explorer's page tests (tests/test_app_*.py)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

MAIN = "../app/main.py"


def open_app(page: str | None = None, query: dict[str, str] | None = None,
             timeout: float = 30) -> AppTest:
    """Run the entry script (with ``query`` as the URL query string), then switch to ``page``.

    ``page`` is a script name under ``pages/`` such as ``"feedback.py"``; every step
    must finish without an exception.
    """
    at = AppTest.from_file(MAIN, default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    if page is not None:
        at.switch_page(f"../pages/{page}").run()
        assert not at.exception, at.exception
    return at


def metric(at: AppTest, label: str) -> str:
    """The value of the ``st.metric`` labelled ``label``."""
    return next(m.value for m in at.metric if m.label == label)


def errors(at: AppTest) -> str:
    """Every ``st.error`` message of the last run, one per line."""
    return "\n".join(e.value for e in at.error)
