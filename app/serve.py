"""Streamlit's command line with the explorer's libraries imported while the server starts.

``oa explore`` runs ``python -m app.serve run app/main.py ...`` (:func:`app.launch.
streamlit_command`), which is ``streamlit run ...`` plus one background thread that,
once the server has started (so its start is not slowed), imports what the first
script run needs (:data:`LIBRARIES`). Without it the first run of the first session
imports them: 1.3-1.6 s of the very first page after a server start (pandas about
0.5 s, oa_core with scipy about 0.8 s), while the browser waits. With it they load
while the browser fetches and starts Streamlit's JavaScript (about 1 s before it
connects); the first run finds them imported, or waits on the import under way
(Python's import lock), never importing twice.

Only libraries that do not touch Streamlit's runtime: the explorer's own modules
declare Streamlit caches when imported, which must happen inside the running server.
"""

from __future__ import annotations

import importlib
import sys
import threading
import time

LIBRARIES = ("numpy", "pandas", "scipy.optimize", "plotly.graph_objects", "oa_core",
             "oa_core.matchtree", "oa_core.feedback")


def warm(names: tuple[str, ...] = LIBRARIES) -> list[str]:
    """Import ``names``; the ones that failed (the script run reports those itself).

    Examples
    --------
    >>> warm(("json", "no_such_module_oa"))
    ['no_such_module_oa']
    """
    failed = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # an import error shows when the page runs
            failed.append(name)
    return failed


def _after_start(timeout: float = 60.0, step: float = 0.05) -> None:
    """Wait until Streamlit's runtime has started (or ``timeout`` s), then :func:`warm`.

    Polls ``sys.modules`` rather than importing Streamlit here: the server's own thread
    imports it.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        module = sys.modules.get("streamlit.runtime.runtime")
        runtime = getattr(module, "Runtime", None)
        if runtime is not None and runtime.exists() \
                and runtime.instance().state.value != "INITIAL":
            break
        time.sleep(step)
    warm()


def main() -> int:
    """Start the imports' thread, then run Streamlit's command line."""
    threading.Thread(target=_after_start, name="oa-warm-imports", daemon=True).start()
    from streamlit.web.cli import main as streamlit_main

    # as ``python -m streamlit`` does: the server sees the same command line
    return int(streamlit_main(prog_name="streamlit") or 0)


if __name__ == "__main__":
    sys.exit(main())
