"""How fast a whole evaluation run scores and shows, and how the Dataset page answers.

Three measurements (issue 13's targets in brackets):

1. **Scoring** a 1,000-document Org2Graph run (simulated model outputs,
   :mod:`synthetic.runs`) with :func:`oa_core.runs.dataset.score_run` in 2 worker
   processes, field observations included [scores and shows in under 5 s with 2 workers];
2. **In the browser** (``oa explore --dataset DIR``, Debian's Chromium through Playwright,
   every request leaving 127.0.0.1 aborted): opening the Dataset page of that run on a
   fresh server until it settled (scoring included), the server started as a user
   starts it, ``oa explore --dataset DIR`` (which scores the run ahead while the server
   starts, :mod:`app.runs.prescore`), with a fresh browser profile; timed from the
   navigation (issued as soon as the server answered its health check) and, as
   ``..., from the command's start``, from the start of ``oa explore`` (the browser
   started before it: what a user with a browser open waits for), then the same
   without scoring ahead (``OA_PRESCORE=off``, what the page alone does); sorting,
   filtering, opening a pair in the Overview (each repeat another pair, first with its
   Open button, then again with a click on its row, which Streamlit sends 150 ms after
   the click) and coming back to the table [each under 300 ms]; then how long the browser's main
   thread is held once the explorer, left idle, imports plotly's chunk ahead (a run
   where that happened during the timed actions is refused); opening the page
   again after a restart (the run read back from the run cache on disk); and, in an
   explorer already open on the (empty) Dataset page, picking the run's dataset in the
   sidebar until its table settled (scoring included: what a user waits for once the
   explorer runs, with no server start or first page load in the figure);
3. a **100,000-pair** ``oa batch`` output (records, no rescoring): reading it, and the
   same page open / sort / filter in the browser [opens and stays usable];
4. **Run tuning** on the bundled run (``org2graph_runs``, run B, 320 documents): a
   weight edit rescoring the run with :func:`oa_core.runs.dataset.score_run` (2 workers,
   nothing cached), and in the browser the same edit on the Run tuning page: how long
   until the page answers (its run ends, the previous result on screen with a progress
   bar: the page never blocks) and until the new result shows; then an edit back to a
   value scored before (cached) [an edit settles in under 1 s on 1,000 documents once
   the engine is native].

Browser figures use :mod:`benchmarks.browser_speed`'s definition: from the action to the
page's last change once settled (nothing stale, no script running, charts drawn, quiet).
Each figure also carries the CPU time it cost (:func:`tree_cpu`: this process and every
process it started, so the server, its scoring workers and Chromium), which the other
users of a shared machine inflate far less than the wall time; the load average is
recorded before and after each part. The CPU of the scoring done ahead by
``oa explore --dataset`` is mostly missing from its open figures: its workers come from
the prescorer's own fork server, which outlives the prescorer and is then no longer in
this process's tree.

Run from the repository root::

    python -m benchmarks.dataset_speed                       # prints a table
    python -m benchmarks.dataset_speed --json benchmarks/results/dataset_speed.json
    python -m benchmarks.dataset_speed --parts scoring browser   # the 1,000 documents only
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from playwright.sync_api import Page, sync_playwright

from app.runs.dataset_views import SORTS
from benchmarks.browser_speed import (
    HEADING,
    RAN,
    URL_CHANGED,
    Browser,
    explorer,
    idle,
    open_view,
    settle,
    timed,
)
from oa_core.runs.dataset import load_folder, score_run
from synthetic import org2graph
from synthetic.runs import RunQuality, org2graph_prediction

__all__ = ["main", "make_batch_output", "make_org2graph_run", "measure_scoring", "tree_cpu"]

ROOT = Path(__file__).resolve().parents[1]
DATASET_ENV = "OA_EXPLORE_DATASET"
CACHE_ENV = "OA_RUN_CACHE"
PRESCORE_ENV = "OA_PRESCORE"
PARTS = ("scoring", "batch", "browser", "batch-browser", "run-tuning")
BUNDLED = ROOT / "sample_data" / "datasets" / "org2graph_runs"
TUNED = "/properties/people/valueWeight"  # the knob the run tuning figures edit
RESCORED = """() => [...document.querySelectorAll('[data-testid="stMetricLabel"]')]
        .some(m => m.textContent.includes('Mean, edited schema'))
    && ![...document.querySelectorAll('[data-testid="stProgress"]')]
        .some(p => p.textContent.includes('Rescoring'))"""
FROM_START = ", from the command's start"
TABLE_SHOWN = """() => [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
    .some(c => c.textContent.includes('pairs match the filters'))"""


def make_org2graph_run(folder: Path, count: int = 1000, seed: int = 7) -> Path:
    """A dataset folder: ``count`` Org2Graph golds and one simulated run of them."""
    rng = np.random.default_rng(seed)
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    golds: list[dict[str, Any]] = [{"id": f"doc-{k:05d}", "gold": org2graph.generate(
        org2graph.sample_params(rng), rng).gold} for k in range(count)]
    quality = RunQuality(edits=1.0, wrappers={"plain": 70.0, "fence": 20.0, "prose": 8.0,
                                              "truncated": 2.0})
    (folder / "schema.json").write_text(json.dumps(org2graph.schema()))
    (folder / "golds.jsonl").write_text("".join(json.dumps(g) + "\n" for g in golds))
    (folder / "runs" / "model.jsonl").write_text("".join(json.dumps(
        {"id": g["id"], "prediction": org2graph_prediction(g["gold"], quality, rng)}) + "\n"
        for g in golds))
    return folder


def make_batch_output(folder: Path, count: int = 100_000, seed: int = 11) -> Path:
    """A dataset folder holding an ``oa batch`` output of ``count`` records."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    kinds = ("missing-list-item", "wrong-reference", "primitive-value", "extraneous-list-item")
    arrays = ("people", "companies", "employment", "acquaintance", "partnership")
    lines = []
    for k in range(count):
        score = float(np.clip(rng.beta(5, 1.2), 0, 1))
        ops = [{"kind": kinds[int(rng.integers(4))],
                "path": f"/{arrays[int(rng.integers(5))]}/{int(rng.integers(9))}",
                "delta": round((1 - score) / 2, 6)} for _ in range(int(rng.integers(0, 3)))]
        lines.append(json.dumps({"index": k, "id": f"p{k:06d}", "score": score, "ops": ops}))
    (folder / "schema.json").write_text(json.dumps(org2graph.schema()))
    (folder / "output.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def tree_cpu(pid: int | None = None) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` (default: this one) and
    its descendants, the ended ones included once reaped (Linux ``/proc``).

    On a shared machine wall times grow with the other users' load; the CPU time of the
    work itself barely does, so the figures carry both.
    """
    root = os.getpid() if pid is None else pid
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        parents[int(entry.name)] = int(fields[1])
        ticks[int(entry.name)] = sum(int(f) for f in fields[11:15])  # utime..cstime
    tree, todo = {root}, [root]
    while todo:
        parent = todo.pop()
        children = [p for p, pp in parents.items() if pp == parent and p not in tree]
        tree.update(children)
        todo += children
    return sum(ticks.get(p, 0) for p in tree) / os.sysconf("SC_CLK_TCK")


def measure_scoring(folder: Path, repeat: int = 3, workers: int = 2) -> dict[str, Any]:
    """Seconds to read the folder and to score its first run (median of ``repeat``), wall
    and CPU (this process and its workers), with workers from a fork server that has the
    scoring code imported, as in the explorer."""
    multiprocessing.set_forkserver_preload(["oa_core.runs.batch", "oa_core.runs.dataset"])
    started = time.perf_counter()
    data = load_folder(folder)
    read = time.perf_counter() - started
    run = next(iter(data.runs))
    times, cpu = [], []
    for _ in range(repeat):
        started, used = time.perf_counter(), tree_cpu()
        scored = score_run(data, run, workers=workers, start_method="forkserver")
        times.append(time.perf_counter() - started)
        cpu.append(tree_cpu() - used)
    return {"pairs": len(scored.frame), "read_s": read, "score_s": statistics.median(times),
            "score_runs_s": times, "cpu_s": statistics.median(cpu), "cpu_runs_s": cpu,
            "pairs_per_s": len(scored.frame) / statistics.median(times),
            "mean": float(scored.scores.mean())}


def _ms(values: list[tuple[float, float]]) -> dict[str, float]:
    walls, cpus = [w for w, _ in values], [c for _, c in values]
    return {"median_ms": statistics.median(walls), "max_ms": max(walls), "runs": len(values),
            "cpu_median_ms": statistics.median(cpus), "all_ms": [round(w, 1) for w in walls]}


def _timed(figures: dict[str, list[tuple[float, float]]], name: str, page: Page,
           action: Callable[[], None], server_took: str, arg: Any, quiet_ms: int) -> None:
    """:func:`benchmarks.browser_speed.timed`, with the CPU milliseconds the action cost
    (the server, its workers and Chromium: every process this one started)."""
    used = tree_cpu()
    wall = timed(page, action, server_took, arg, quiet_ms)
    figures.setdefault(name, []).append((wall, (tree_cpu() - used) * 1000))


@contextlib.contextmanager
def _fresh_explorer(*options: str) -> Iterator[tuple[str, Page, tuple[float, float]]]:
    """A fresh browser profile, then a fresh explorer (``oa explore [options]``): (the
    explorer's URL, a tab, the ``time.perf_counter()`` and :func:`tree_cpu` at which the
    command started); refuses the figures if any request left 127.0.0.1.

    The browser starts first, so that a figure taken from the command's start holds what
    a user with a browser open waits for (the server's start and the page), not
    Chromium's own start."""
    with sync_playwright() as playwright:
        browser = Browser(playwright, "http://127.0.0.1:")  # the port once it is known
        with browser.context() as context:
            context.add_init_script(LONG_TASKS)
            page = context.pages[0] if context.pages else context.new_page()
            launched = time.perf_counter(), tree_cpu()
            with explorer(*options) as (url, _):
                browser.app_url = url
                yield url, page, launched
        if browser.blocked:
            raise RuntimeError(f"requests left 127.0.0.1: {browser.blocked}")


@contextlib.contextmanager
def _dataset_page(folder: Path, figures: dict[str, list[tuple[float, float]]], label: str,
                  quiet_ms: int) -> Iterator[Page]:
    """``oa explore --dataset folder`` (what a user runs) on a fresh server and browser,
    opening its Dataset page: timed as ``label`` from the navigation, and from the
    command's start (see :func:`_open`)."""
    with _fresh_explorer("--dataset", str(folder)) as (url, page, launched):
        _open(page, f"{url}/dataset?dataset={folder.name}", figures, label, quiet_ms,
              launched)
        yield page


def browser_session(folder: Path, repeat: int, quiet_ms: int) -> dict[str, Any]:
    """The Dataset page of ``folder`` served by ``oa explore --dataset``: open, sort,
    filter, open a pair and come back; then open it again on a restarted server.

    The server keeps scored runs in a fresh run cache (``OA_RUN_CACHE``), so the first
    open scores the run and the one after the restart reads it back from disk.
    """
    os.environ[DATASET_ENV] = str(folder.resolve())
    figures: dict[str, list[tuple[float, float]]] = {}
    try:
        with tempfile.TemporaryDirectory(prefix="oa-run-cache-") as cache:
            os.environ[CACHE_ENV] = cache
            with _dataset_page(folder, figures, "open (scoring included)",
                               quiet_ms) as page:
                _pointer_in_page(page, quiet_ms)
                for k in range(repeat):
                    _interactions(page, figures, quiet_ms, k)
                early = page.evaluate("() => window.__oaPreloaded || []")
                if early:  # it would have been in the way of the actions timed
                    raise RuntimeError(f"chunks preloaded during the actions: {early}")
                figures["plotly preload, main thread held (once, after 3 s idle)"] = [
                    (_preload_held(page), 0.0)]
            with _dataset_page(folder, figures, "open after a restart (run cache)", quiet_ms):
                pass
        with tempfile.TemporaryDirectory(prefix="oa-run-cache-") as cache:
            os.environ[CACHE_ENV], os.environ[PRESCORE_ENV] = cache, "off"
            with _dataset_page(folder, figures, "open, no scoring ahead (OA_PRESCORE=off)",
                               quiet_ms):
                pass
            os.environ.pop(PRESCORE_ENV)
        with tempfile.TemporaryDirectory(prefix="oa-run-cache-") as cache:
            os.environ[CACHE_ENV] = cache
            _pick_in_sidebar(folder, figures, quiet_ms)
    finally:
        os.environ.pop(DATASET_ENV, None)
        os.environ.pop(CACHE_ENV, None)
        os.environ.pop(PRESCORE_ENV, None)
    return {name: _ms(values) for name, values in figures.items()}


# Installed in every document: the long tasks (main thread held over 50 ms), with start.
LONG_TASKS = """window.__oaLong = [];
new PerformanceObserver(list => list.getEntries().forEach(
    e => window.__oaLong.push([e.startTime, e.duration]))).observe({type: "longtask"});"""


def _preload_held(page: Page) -> float:
    """Leave the page alone until the explorer has imported plotly's chunk ahead (after
    3 s with no input and no change): the longest task since, in ms (its evaluation)."""
    since: float = page.evaluate("() => performance.now()")
    page.wait_for_function(
        "() => (window.__oaPreloaded || []).some(n => n.startsWith('PlotlyChart.'))",
        polling=100, timeout=60_000)
    page.wait_for_timeout(2500)  # the import and its evaluation
    tasks = page.evaluate("since => window.__oaLong.filter(t => t[0] >= since)", since)
    return max((float(duration) for _, duration in tasks), default=0.0)


def _open(page: Page, link: str, figures: dict[str, list[tuple[float, float]]], name: str,
          quiet_ms: int, launched: tuple[float, float]) -> None:
    """Go to ``link`` as soon as the server answers: from the navigation's start (the
    page clock's origin) to the page's last change once the pairs table showed and the
    page settled (``name``), and the same from the start of the command serving it
    (``launched``: its ``time.perf_counter()`` and :func:`tree_cpu`; ``name`` +
    ``FROM_START``)."""
    used = tree_cpu()
    navigated = time.perf_counter()
    page.goto(link, wait_until="commit")
    took = settle(page, 0.0, TABLE_SHOWN, None, quiet_ms)
    now = tree_cpu()
    figures[name] = [(took, (now - used) * 1000)]
    figures[name + FROM_START] = [((navigated - launched[0]) * 1000 + took,
                                   (now - launched[1]) * 1000)]


def _pick_in_sidebar(folder: Path, figures: dict[str, list[tuple[float, float]]],
                     quiet_ms: int) -> None:
    """A fresh explorer open on the Dataset page with no dataset; the user picks
    ``folder``'s dataset in the sidebar: until its table showed and the page settled."""
    with _fresh_explorer() as (url, page, _):
        open_view(page, url, "dataset", "Dataset", quiet_ms)
        page.locator('[data-testid="stSidebar"]').get_by_role(
            "combobox", name="Dataset", exact=True).click()

        def pick() -> None:
            page.keyboard.type(folder.name)
            page.keyboard.press("Enter")

        _timed(figures, "pick in the sidebar of a running explorer (scoring included)",
               page, pick, TABLE_SHOWN, None, quiet_ms)


def _pointer_in_page(page: Page, quiet_ms: int) -> None:
    """Rest the pointer on the page's title, as a user's is before a first click.

    Playwright's pointer starts outside the page: its first move makes the pairs table
    redraw and, 200 ms later (the data grid's debounce), rebuild its hidden accessibility
    table, which landed inside the first timed action (the first sort: 312 ms against
    260 with the pointer already in the page, median of 38 fresh pages, load 4-9)."""
    title = page.locator("h1").first.bounding_box()
    if title:
        page.mouse.move(title["x"] + 10, title["y"] + title["height"] / 2)
    page.wait_for_timeout(300)
    idle(page, quiet_ms)


def _since(page: Page) -> list[Any]:
    """:data:`RAN`'s argument: the URL's query now, and the page clock's time."""
    return [_search(page), page.evaluate("() => performance.now()")]


def _search(page: Page) -> str:
    return str(page.evaluate("() => window.location.search"))


OPEN_X = 70  # px: the middle of the pairs table's Open buttons (after the selection box)
ROW_Y = 52  # px: the middle of the table's first row (under its 35 px header)


def _interactions(page: Page, figures: dict[str, list[tuple[float, float]]],
                  quiet_ms: int, repeat: int) -> None:
    """Sort, filter to the ``repeat``-th id of the table, open that pair with its Open
    button (a pair not opened before: its alignment is computed) and come back, open
    it again with a click on the row and come back, clear the filter."""
    main = page.locator('[data-testid="stMain"]')
    # the deficit's orders are the score's reversed, which the browser already has
    labels = [label for column, label in SORTS.items() if column != "deficit"]
    if k := repeat % len(labels):  # another sort column each repeat (untimed)
        before = _search(page)
        main.get_by_role("combobox", name="Sort by").click()
        page.get_by_role("option", name=labels[k], exact=True).click()
        page.wait_for_function(URL_CHANGED, arg=before, polling=50)
        page.wait_for_function(TABLE_SHOWN, polling=50)
        idle(page, quiet_ms)
    # Streamlit sends an element the browser already has as a reference to it: the
    # descending order is one the browser has not seen yet, the way back one it has
    descending = main.get_by_text("Descending")
    _timed(figures, "sort (descending: a new order)", page, descending.click, RAN,
           _since(page), quiet_ms)
    _timed(figures, "sort (back: the order shown before)", page, descending.click,
           RAN, _since(page), quiet_ms)
    search = main.get_by_label("Search id, top op or problem")
    ids = page.evaluate("""() => [...document.querySelectorAll('[id^="glide-cell-"]')]
        .map(c => c.textContent).filter(t => /^(doc-\\d+|p\\d+)$/.test(t))""")
    chosen = str(ids[repeat % len(ids)])

    def type_filter() -> None:
        search.fill(chosen)
        search.press("Enter")

    _timed(figures, "filter (text)", page, type_filter, RAN,
           _since(page), quiet_ms)
    if not chosen.startswith("p"):  # an oa batch output has no pair to open
        for name, x in (("open a pair (Overview, its Open button)", OPEN_X),
                        ("open a pair again (a click on its row)", 18)):
            box = page.evaluate("""() => {
                const caption = [...document.querySelectorAll(
                    '[data-testid="stCaptionContainer"]')]
                    .find(c => c.textContent.includes('pairs match the filters'));
                const grid = [...document.querySelectorAll('[data-testid="stDataFrame"]')]
                    .find(g => caption.compareDocumentPosition(g)
                               & Node.DOCUMENT_POSITION_FOLLOWING);
                grid.scrollIntoView({block: "center"});
                const r = grid.getBoundingClientRect();
                return {x: r.x, y: r.y};}""")
            _timed(figures, name, page,
                   lambda x=x, box=box: page.mouse.click(box["x"] + x, box["y"] + ROW_Y),
                   HEADING, "Overview", quiet_ms)
            back = page.locator('[data-testid="stSidebar"]').get_by_role(
                "link", name="Back to the dataset table")
            _timed(figures, "back to the table", page, back.click, HEADING, "Dataset",
                   quiet_ms)
            page.wait_for_function(TABLE_SHOWN, polling=50)
            idle(page, quiet_ms)

    def clear_filter() -> None:
        search.fill("")
        search.press("Enter")

    _timed(figures, "filter (cleared)", page, clear_filter, RAN,
           _since(page), quiet_ms)


def measure_rescoring(repeat: int = 3, workers: int = 2) -> dict[str, Any]:
    """Seconds to rescore the bundled run B with an edited weight (median of ``repeat``,
    each with another weight: nothing cached), wall and CPU, as Run tuning does."""
    from app.session import apply_edits

    multiprocessing.set_forkserver_preload(["oa_core.runs.batch", "oa_core.runs.dataset"])
    data = load_folder(BUNDLED)
    times, cpu = [], []
    for k in range(repeat):
        schema = apply_edits(data.schema, {TUNED: 1.5 + k})
        started, used = time.perf_counter(), tree_cpu()
        scored = score_run(data, "B", workers=workers, schema=schema,
                           start_method="forkserver")
        times.append(time.perf_counter() - started)
        cpu.append(tree_cpu() - used)
    return {"pairs": len(scored.frame), "score_s": statistics.median(times),
            "score_runs_s": times, "cpu_s": statistics.median(cpu)}


def run_tuning_session(repeat: int) -> dict[str, Any]:
    """The Run tuning page of the bundled run B on a fresh explorer and run cache: each
    repeat edits the weight to a new value (rescored) and times how long until the page
    answered (its run ended, a progress bar over the previous result) and until the new
    result showed; then edits it back to the first value (read from the cache)."""
    figures: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="oa-rt-cache-") as cache, _env(CACHE_ENV, cache), \
            _fresh_explorer() as (url, page, _):
        page.goto(f"{url}/run-tuning?dataset=org2graph_runs&run=B")
        page.get_by_text("No edit yet").wait_for()
        page.locator("summary").filter(has_text="(root) (object)").first.click()
        box = page.get_by_role("spinbutton", name="valueWeight of people")
        box.wait_for()

        def edit(value: str, rescored: bool) -> None:
            started, used = time.perf_counter(), tree_cpu()
            box.fill(value)
            box.press("Enter")
            if rescored:  # the page answers first, the result comes after
                page.get_by_text("Rescoring with the new settings").wait_for()
                figures.setdefault("edit: page answers", []).append(
                    ((time.perf_counter() - started) * 1000, (tree_cpu() - used) * 1000))
            page.wait_for_function(RESCORED)
            name = "edit: new result shown" if rescored else "edit back: cached result shown"
            figures.setdefault(name, []).append(
                ((time.perf_counter() - started) * 1000, (tree_cpu() - used) * 1000))

        for k in range(repeat):
            edit(f"{1.5 + k:.3f}", True)
        edit(f"{1.5:.3f}", False)
    return {name: _ms(values) for name, values in figures.items()}


@contextlib.contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--batch-pairs", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quiet-ms", type=int, default=150)
    parser.add_argument("--parts", nargs="+", choices=PARTS, default=list(PARTS),
                        help="what to measure (default: all)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"machine": {"python": platform.python_version(),
                                           "cpus": os.cpu_count()}}
    with tempfile.TemporaryDirectory(prefix="oa-dataset-bench-") as tmp:
        run = make_org2graph_run(Path(tmp) / "org2graph_1000", args.docs)
        batch = Path(tmp) / "batch_100k"
        if {"batch", "batch-browser"} & set(args.parts):
            make_batch_output(batch, args.batch_pairs)
        measures = {
            "scoring": (f"scoring {args.docs} documents, 2 workers",
                        lambda: measure_scoring(run, args.repeat)),
            "batch": (f"reading a {args.batch_pairs}-pair oa batch output",
                      lambda: measure_scoring(batch, 1, 1)),
            "browser": (f"browser, {args.docs} documents",
                        lambda: browser_session(run, args.repeat, args.quiet_ms)),
            "batch-browser": (f"browser, {args.batch_pairs}-pair output",
                              lambda: browser_session(batch, args.repeat, args.quiet_ms)),
            "run-tuning": ("run tuning, bundled run B (320 documents)",
                           lambda: {"library": measure_rescoring(args.repeat),
                                    "browser": run_tuning_session(args.repeat)})}
        for part in PARTS:
            if part in args.parts:
                title, measure = measures[part]
                before = os.getloadavg()
                results[title] = measure()
                # the machine is shared: the load average (1, 5, 15 min) next to each figure
                results[title]["load"] = {"before": before, "after": os.getloadavg()}
    text = json.dumps(results, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
