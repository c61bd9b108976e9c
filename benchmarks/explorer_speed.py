"""Server time of the explorer's reruns (issue 4's quality bar), measured with AppTest.

Each figure is the wall time of one ``AppTest.run()`` after a widget change: the
whole script rerun on the server (entry script, sidebar, the page, every alignment
and view it needs), plus AppTest's own overhead, so it is an upper bound on what a
browser user waits for before the page starts to redraw.

Scenarios:

- running example: a weight changed on *Schema tuning* (rescore with the edited and
  the original schema), the WL mode switched on *Referential alignment*, a fix
  applied on *Feedback*;
- a 200-record graph (``benchmarks.alignment_speed.make_pair(200)``: 200 people, a
  quarter of them property twins, 400 mentorships, relabeled and perturbed): loading
  it, then every page, a WL round step (interactive graph; the default graph steps in
  the browser, see browser_speed) and a WL mode
  switch.

Targets: under 150 ms for a rescore of the running example; a 200-record graph
"stays usable" (every step under 2 s).

Run from the repository root::

    python -m benchmarks.explorer_speed                 # 7 repeats, prints a table
    python -m benchmarks.explorer_speed --repeat 15 --json out.json
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.testing.v1 import AppTest

from app.schema_widgets import section_key
from benchmarks.alignment_speed import SCHEMA, make_pair

__all__ = ["main", "measure"]

MAIN = str(Path(__file__).resolve().parents[1] / "app" / "main.py")
NAME_WEIGHT = "tune:/properties/people/items/properties/name/valueWeight"


def _open(page: str | None = None) -> AppTest:
    """A fresh session on ``page`` with empty caches, as a first visit sees it."""
    _quiet_streamlit()
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(MAIN, default_timeout=120)
    at.run()
    if page is not None:
        at.switch_page(f"../pages/{page}").run()
    _check(at)
    return at


def _quiet_streamlit() -> None:
    # AppTest runs without a server: every streamlit logger warns "no runtime found"
    for name in list(logging.root.manager.loggerDict):
        if name.startswith("streamlit"):
            logging.getLogger(name).setLevel(logging.ERROR)


def _check(at: AppTest) -> None:
    if at.exception or at.error:
        raise RuntimeError(f"the explorer failed: {at.exception or at.error[0].value}")


def _timed(step: Callable[[], AppTest]) -> float:
    begin = time.perf_counter()
    at = step()
    elapsed = time.perf_counter() - begin
    _check(at)
    return elapsed


def _summary(times: list[float]) -> dict[str, float]:
    return {"median_ms": 1000 * statistics.median(times), "max_ms": 1000 * max(times),
            "runs": len(times)}


def _series(steps: list[Callable[[], AppTest]]) -> dict[str, float]:
    return _summary([_timed(step) for step in steps])


def _cycle(values: list[Any], count: int) -> list[Any]:
    return [values[k % len(values)] for k in range(count)]


def running_example(repeat: int) -> dict[str, dict[str, float]]:
    """Reruns on the paper's running example."""
    tuning = _open("schema_tuning.py")
    # the weight's section, opened as by a click (closed sections send no widgets)
    tuning.session_state[section_key("/properties/people/items")] = True
    tuning.run()
    tuning.number_input(key=NAME_WEIGHT).set_value(1.5).run()  # warm caches
    weights = [2.0 + 0.25 * k for k in range(repeat)]
    rescore = _series([lambda w=w: tuning.number_input(key=NAME_WEIGHT).set_value(w).run()
                       for w in weights])

    referential = _open("referential.py")
    switch = _series([lambda m=m: referential.radio(key="w.oa.wl_mode").set_value(m).run()
                      for m in _cycle(["blend", "none", "tie_break"], repeat)])

    apply_times = []
    for _ in range(repeat):  # a fresh session each time: a fix changes the candidate
        feedback = _open("feedback.py")
        button = next(b for b in feedback.button if b.label == "Apply this fix")
        apply_times.append(_timed(lambda b=button: b.click().run()))
    return {"schema weight rescore": rescore, "WL mode switch": switch,
            "apply a fix": _summary(apply_times)}


def two_hundred_records(repeat: int) -> dict[str, dict[str, float]]:
    """Loading a 200-record graph and working with it on every page."""
    gold, candidate = make_pair(200)
    at = _open("referential.py")
    at.text_area(key="w.paste.gold").input(json.dumps(gold))
    at.text_area(key="w.paste.candidate").input(json.dumps(candidate))
    at.text_area(key="w.paste.schema").input(json.dumps(SCHEMA))
    load = _series([lambda: at.button(key="w.load_pasted").click().run()])
    switch = _series([lambda m=m: at.radio(key="w.oa.wl_mode").set_value(m).run()
                      for m in _cycle(["none", "blend", "tie_break"], repeat)])
    # the default graph steps its rounds in the browser (benchmarks.browser_speed
    # --wl-step); only the interactive (pyvis) view reruns the page for a round
    at.radio(key="w.oa.graph_view").set_value("pyvis").run()
    rounds = int(at.slider(key="w.oa.wl_round").max)
    pyvis_round = _series([lambda r=r: at.slider(key="w.oa.wl_round").set_value(r).run()
                           for r in _cycle(list(range(rounds + 1)), repeat)])
    at.radio(key="w.oa.graph_view").set_value("steps").run()
    figures = {"load (paste + align + referential page)": load,
               "WL round step, interactive (pyvis) graph": pyvis_round,
               "WL mode switch": switch}
    for page in ("overview.py", "match_tree.py", "feedback.py", "schema_tuning.py"):
        figures[f"open {page.removesuffix('.py')}"] = _series(
            [lambda p=page: at.switch_page(f"../pages/{p}").run() for _ in range(repeat)])
    return figures


def measure(repeat: int) -> dict[str, Any]:
    """All scenarios: ``{"running example": {...}, "200 records": {...}}``."""
    return {"running example": running_example(repeat),
            "200 records": two_hundred_records(repeat)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    results = measure(args.repeat)
    print(f"{'scenario':<56} {'median ms':>10} {'max ms':>8} {'runs':>5}")
    for scenario, figures in results.items():
        for name, row in figures.items():
            print(f"{scenario + ': ' + name:<56} {row['median_ms']:>10.1f} "
                  f"{row['max_ms']:>8.1f} {row['runs']:>5}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
