"""How long the explorer takes to settle in a real browser after each user action.

Starts the explorer as a user does (``oa explore`` on 127.0.0.1) and drives Debian's
Chromium with Playwright, every request that leaves 127.0.0.1 aborted (the run fails
if one was). Each figure is the time from an action to the page *settling*: the last
change of the page (a ``MutationObserver`` records the time of every DOM change) once
the server has taken the action (the URL or the title shows it), no element is stale,
no script is running, every plotly chart is drawn, and nothing changed for a quiet
window (``--quiet-ms``, not counted). That is what a user waits for, drawing included.

Scenarios, on the paper's running example and on a 200-record graph
(``benchmarks.alignment_speed.make_pair(200)``: 200 people, 400 mentorships, the graph
of ``benchmarks.explorer_speed``), uploaded as one trio file through the gold uploader:

- cold start: a fresh browser profile (no HTTP cache) opening the app, to the settled
  Overview; the first one right after the server started is reported apart;
- page switch: a click on each view in the sidebar, in turn;
- weight change: a new value in the first weight of *Schema tuning*;
- WL step: one round of the round stepper on *Referential alignment* (an arrow key on
  its range input, in its frame: the step runs in the browser, no script run);
- apply fix: "Apply this fix" on *Feedback* (undone between repeats, not measured).

Targets (issue 12): under 300 ms on the running example, under 800 ms on 200 records,
a cold start under 3 s.

``--wl-step`` measures only the WL step (running example and 200 records), with the
load average before and after (``benchmarks/results/wl_step.json``).

``--weight-edit`` measures only the weight change (running example and 200 records),
with the machine's load average before and after, for issue 23's "a weight edit never
blocks" (``benchmarks/results/weight_edit.json``).

Run from the repository root::

    python -m benchmarks.browser_speed                # 5 repeats, prints a table
    python -m benchmarks.browser_speed --weight-edit --repeat 7
    python -m benchmarks.browser_speed --wl-step      # benchmarks/results/wl_step.json
    python -m benchmarks.browser_speed --repeat 9 --json benchmarks/results/browser_speed.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, Playwright, Route, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from app.launch import served

__all__ = ["main", "measure"]

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "browser_speed.json"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = int(os.environ.get("OA_BENCH_TIMEOUT_MS", "120000"))
TARGETS_MS = {"running example": 300.0, "200 records": 800.0, "cold start": 3000.0}
VIEWS = (("match-tree", "Match tree"), ("referential", "Referential alignment"),
         ("feedback", "Feedback"), ("schema-tuning", "Schema tuning"), ("overview", "Overview"))

# Installed in every document before its scripts: the time of the last DOM change.
# The page's last change, the user's last press (pointer or key) and the end of the
# last script run, on the page clock: an interaction is timed from the press, as a user
# feels it (Playwright first finds the element and moves its pointer: 40-76 ms before
# the page sees a first click, measured), to the last change a user can see:
# - a DOM mutation, except inside a <canvas>: the data grid keeps a hidden copy of its
#   cells there for screen readers and rebuilds it 200 ms after each change (its
#   debounce), never drawn;
# - a draw on a canvas (the data grid draws its cells: new rows show as draws, no
#   mutation).
OBSERVER = """
window.__oaLast = performance.now();
window.__oaPressed = 0;
window.__oaRunEnded = 0;
const oaHidden = node => {
    const element = node.nodeType === 1 ? node : node.parentElement;
    return !!(element && element.closest("canvas"));
};
new MutationObserver(records => {
    const now = performance.now();
    for (const r of records)
        if (r.attributeName === "data-test-script-state"
            && r.target.getAttribute("data-test-script-state") === "notRunning")
            window.__oaRunEnded = now;
    if (records.some(r => !oaHidden(r.target))) window.__oaLast = now;
}).observe(document, {subtree: true, childList: true, attributes: true,
                      characterData: true});
for (const name of ["fillText", "drawImage"]) {
    const draw = CanvasRenderingContext2D.prototype[name];
    CanvasRenderingContext2D.prototype[name] = function (...args) {
        window.__oaLast = performance.now();
        return draw.apply(this, args);
    };
}
for (const type of ["pointerdown", "keydown"])
    addEventListener(type, e => { window.__oaPressed = e.timeStamp; },
                     {capture: true, passive: true});
"""
SETTLED = """quiet => !document.querySelector(
        '[data-stale="true"], [data-testid="stSkeleton"], [data-test-script-state="running"]')
    && [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
        .every(chart => chart.querySelector(".main-svg"))
    && performance.now() - window.__oaLast > quiet"""
HEADING = """title => [...document.querySelectorAll("h1")]
    .some(h => h.innerText.trim() === title)"""
# the Overview with its score: what a cold start waits for
OVERVIEW = """() => [...document.querySelectorAll("h1")]
    .some(h => h.innerText.trim() === "Overview")
    && !!document.querySelector('[data-testid="stMetric"]')"""
URL_CHANGED = "before => window.location.search !== before"
# the URL changed and a script run ended after ``since`` (page clock): the server has
# taken the action (the URL alone changes before the run that sends the new rows)
RAN = """([before, since]) => window.location.search !== before
    && window.__oaRunEnded > since"""
DIAGNOSE = """() => ({
    headings: [...document.querySelectorAll("h1")].map(h => h.innerText),
    stale: document.querySelectorAll('[data-stale="true"]').length,
    skeletons: document.querySelectorAll('[data-testid="stSkeleton"]').length,
    running: !!document.querySelector('[data-test-script-state="running"]'),
    charts: [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
        .map(chart => !!chart.querySelector(".main-svg")),
    quiet_ms: performance.now() - window.__oaLast,
    exceptions: [...document.querySelectorAll('[data-testid="stException"]')]
        .map(e => e.innerText.slice(0, 300))})"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def explorer(*options: str) -> Iterator[tuple[str, float]]:
    """``oa explore [options]`` on a free port: (its URL, seconds from the command's
    start until the server answered its health check)."""
    log = Path(tempfile.mkdtemp(prefix="oa-bench-")) / "server.log"
    start = time.perf_counter()
    with served(_free_port(), log, *options) as url:
        yield url, time.perf_counter() - start


class Browser:
    """Fresh Chromium profiles whose requests may only reach the app."""

    def __init__(self, playwright: Playwright, app_url: str) -> None:
        self.playwright = playwright
        self.app_url = app_url
        self.blocked: list[str] = []

    @contextlib.contextmanager
    def context(self) -> Iterator[BrowserContext]:
        with tempfile.TemporaryDirectory(prefix="oa-chromium-") as profile:
            context = self.playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                viewport={"width": 1400, "height": 900})
            context.add_init_script(OBSERVER)
            context.route("**/*", self._route)
            context.set_default_timeout(TIMEOUT_MS)
            try:
                yield context
            finally:
                context.close()

    def _route(self, route: Route) -> None:
        url = route.request.url
        if url.startswith((self.app_url, "data:", "blob:", "about:")):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


def settle(page: Page, started: float, server_took: str, arg: Any,
           quiet_ms: int) -> float:
    """Milliseconds from ``started`` (page clock) to the page's last change once settled.

    ``server_took`` is a JavaScript predicate (given ``arg``) that holds once the server
    has taken the action, so a page still showing the previous run is never taken for
    settled.
    """
    try:
        page.wait_for_function(server_took, arg=arg, polling=20, timeout=TIMEOUT_MS)
        page.wait_for_function(SETTLED, arg=quiet_ms, polling=20, timeout=TIMEOUT_MS)
    except PlaywrightError as exc:
        state = page.evaluate(DIAGNOSE)
        raise RuntimeError(f"the page never settled at {page.url}: {state}") from exc
    last: float = page.evaluate("() => window.__oaLast")
    return max(last - started, 0.0)


def timed(page: Page, action: Callable[[], None], server_took: str, arg: Any,
          quiet_ms: int) -> float:
    """Run ``action`` and return how long the page took to settle after it (ms), from
    the action's last press (pointer or key) in the page, if it made one."""
    started: float = page.evaluate("() => performance.now()")
    action()
    pressed: float = page.evaluate("() => window.__oaPressed")
    took = settle(page, max(started, pressed), server_took, arg, quiet_ms)
    print(f"  {took:7.0f} ms  {page.url.split('/', 3)[-1][:70]}", file=sys.stderr)
    return took


def idle(page: Page, quiet_ms: int) -> None:
    page.wait_for_function(SETTLED, arg=quiet_ms, polling=20)


def cold_start(browser: Browser, url: str, quiet_ms: int) -> float:
    """A fresh profile opening ``url``: ms from navigation start to the settled Overview."""
    with browser.context() as context:
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(url, wait_until="commit")
        return settle(page, 0.0, OVERVIEW, None, quiet_ms)


def open_view(page: Page, base: str, path: str, title: str, quiet_ms: int) -> None:
    page.goto(f"{base}/{path}")
    page.wait_for_function(HEADING, arg=title)
    idle(page, quiet_ms)


def switch(page: Page, title: str, quiet_ms: int) -> float:
    link = page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title,
                                                                    exact=True)
    return timed(page, link.click, HEADING, title, quiet_ms)


def page_switches(page: Page, repeat: int, quiet_ms: int) -> list[float]:
    return [switch(page, title, quiet_ms) for _ in range(repeat) for _, title in VIEWS]


def weight_changes(page: Page, repeat: int, quiet_ms: int) -> list[float]:
    weight = page.locator('[data-testid="stNumberInput"] input:visible').first
    times = []
    for k in range(repeat):
        value = ("2.5", "3")[k % 2]

        def change(value: str = value) -> None:
            weight.fill(value)
            weight.press("Enter")

        before = page.evaluate("() => window.location.search")
        times.append(timed(page, change, URL_CHANGED, before, quiet_ms))
    return times


STEPPER = 'iframe[title^="WL reference graph"]'
# In the stepper's frame: its summary line (what a step changes) and its clock's origin
SUMMARY = "() => (document.querySelector('#summary') || {}).textContent || ''"
FRAME_CHANGED = "before => (document.querySelector('#summary') || {}).textContent !== before"


def wl_steps(page: Page, repeat: int, quiet_ms: int) -> list[float]:
    """One WL round step at a time: a key on the round stepper's range input (in its
    frame, which steps in the browser: no script run). Timed from the key press to the
    last change in the frame or in the page (the page gets the frame's height), on one
    clock (``performance.timeOrigin``); the page must also be settled (no run)."""
    try:
        handle = page.locator(STEPPER).element_handle(timeout=TIMEOUT_MS)
    except PlaywrightError:
        print("  no WL round stepper on this page: WL step not measured", file=sys.stderr)
        return []
    frame = handle.content_frame()
    if frame is None:
        return []
    frame.wait_for_function(SUMMARY, polling=20)
    if frame.evaluate("() => window.__oaLast === undefined"):
        frame.evaluate(OBSERVER)  # a srcdoc frame may have missed the init script
    slider = frame.get_by_role("slider", name="WL round")
    times = []
    for _ in range(repeat):
        now = float(slider.input_value() or 0)
        key = "ArrowLeft" if now > float(slider.get_attribute("min") or 0) else "ArrowRight"
        slider.focus()
        before = frame.evaluate(SUMMARY)
        started = frame.evaluate("() => performance.timeOrigin + performance.now()")
        slider.press(key)
        frame.wait_for_function(FRAME_CHANGED, arg=before, polling=20, timeout=TIMEOUT_MS)
        frame.wait_for_function("quiet => performance.now() - window.__oaLast > quiet",
                                arg=quiet_ms, polling=20, timeout=TIMEOUT_MS)
        idle(page, quiet_ms)
        pressed = frame.evaluate("() => performance.timeOrigin + window.__oaPressed")
        last = max(frame.evaluate("() => performance.timeOrigin + window.__oaLast"),
                   page.evaluate("() => performance.timeOrigin + window.__oaLast"))
        took = max(last - max(started, pressed), 0.0)
        print(f"  {took:7.0f} ms  WL step ({key})", file=sys.stderr)
        times.append(took)
    return times


def measure_wl_step(repeat: int = 5, quiet_ms: int = 250) -> dict[str, Any]:
    """Only the WL round step of *Referential alignment*, on the running example and on
    200 records, with the load average (1, 5, 15 min) before and after."""
    results: dict[str, Any] = {"load before": os.getloadavg()}
    with explorer() as (base, _), sync_playwright() as playwright:
        browser = Browser(playwright, base)
        for name, path, trio in (("running example", "referential?example=running_example",
                                  None), ("200 records", "overview", graph_trio())):
            with browser.context() as context:
                page = context.pages[0] if context.pages else context.new_page()
                title = "Referential alignment" if trio is None else "Overview"
                open_view(page, base, path, title, quiet_ms)
                if trio is not None:
                    upload_trio(page, trio, quiet_ms)
                    switch(page, "Referential alignment", quiet_ms)
                results[name] = _summary(wl_steps(page, repeat, quiet_ms), TARGETS_MS[name])
        if browser.blocked:
            raise RuntimeError(f"requests left 127.0.0.1: {browser.blocked}")
    results["load after"] = os.getloadavg()
    results["settings"] = {"repeat": repeat, "quiet_ms": quiet_ms, "cpus": os.cpu_count()}
    return results


def apply_fixes(page: Page, repeat: int, quiet_ms: int) -> list[float]:
    times: list[float] = []
    try:
        page.get_by_role("button", name="Apply this fix").first.wait_for(timeout=20_000)
    except PlaywrightError:
        print("  no 'Apply this fix' button on this page: not measured", file=sys.stderr)
        return times
    for _ in range(repeat):
        button = page.get_by_role("button", name="Apply this fix").first
        before = page.evaluate("() => window.location.search")
        times.append(timed(page, button.click, URL_CHANGED, before, quiet_ms))
        undo = page.locator('[data-testid="stSidebar"]').get_by_role(
            "button", name="Undo all fixes")
        before = page.evaluate("() => window.location.search")
        undo.click()
        page.wait_for_function(URL_CHANGED, arg=before)
        idle(page, quiet_ms)
    return times


def interactions(page: Page, repeat: int, quiet_ms: int) -> dict[str, list[float]]:
    """Page switches, a weight change, a WL step and a fix on the loaded trio."""
    figures = {"page switch": page_switches(page, repeat, quiet_ms)}
    switch(page, "Schema tuning", quiet_ms)  # in the same session, as a user goes
    figures["weight change (schema tuning)"] = weight_changes(page, repeat, quiet_ms)
    switch(page, "Referential alignment", quiet_ms)
    figures["WL step (referential)"] = wl_steps(page, repeat, quiet_ms)
    switch(page, "Feedback", quiet_ms)
    figures["apply fix (feedback)"] = apply_fixes(page, repeat, quiet_ms)
    return figures


def graph_trio(size: int = 200) -> bytes:
    """A ``size``-person graph (``benchmarks.alignment_speed.make_pair``: a quarter of
    the people property twins, two mentorships each, relabelled and perturbed), as one
    trio JSON file."""
    from benchmarks.alignment_speed import SCHEMA, make_pair

    gold, candidate = make_pair(size)
    return json.dumps({"gold": gold, "candidate": candidate, "schema": SCHEMA}).encode()


def upload_trio(page: Page, data: bytes, quiet_ms: int) -> float:
    """Upload a trio file through the gold uploader; ms until the page settled."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Upload or paste your own").click()
    uploader = sidebar.locator('[data-testid="stFileUploader"]').first
    before = page.evaluate("() => window.location.search")
    return timed(page, lambda: uploader.locator('input[type="file"]').set_input_files(
        {"name": "graph200-trio.json", "mimeType": "application/json", "buffer": data}),
        "before => window.location.search !== before && location.search.includes('trio=')",
        before, quiet_ms)


def _summary(times: list[float], target: float) -> dict[str, Any]:
    if not times:
        return {"median_ms": None, "max_ms": None, "runs": 0, "target_ms": target,
                "meets_target": None, "all_ms": []}
    return {"median_ms": round(statistics.median(times), 1), "max_ms": round(max(times), 1),
            "runs": len(times), "target_ms": target,
            "meets_target": statistics.median(times) < target,
            "all_ms": [round(t, 1) for t in times]}


def measure(repeat: int = 5, quiet_ms: int = 250) -> dict[str, Any]:
    """Every scenario; ``{"cold start": {...}, "running example": {...}, "200 records": {...}}``."""
    results: dict[str, Any] = {}
    with explorer() as (base, server_s), sync_playwright() as playwright:
        browser = Browser(playwright, base)
        first = cold_start(browser, base, quiet_ms)
        colds = [cold_start(browser, base, quiet_ms) for _ in range(max(3, repeat // 2))]
        results["cold start"] = {
            "server start to health check": _summary([server_s * 1000], TARGETS_MS["cold start"]),
            "first page load after server start": _summary([first], TARGETS_MS["cold start"]),
            "page load, fresh browser profile": _summary(colds, TARGETS_MS["cold start"])}
        with browser.context() as context:
            page = context.pages[0] if context.pages else context.new_page()
            open_view(page, base, "overview?example=running_example", "Overview", quiet_ms)
            target = TARGETS_MS["running example"]
            results["running example"] = {
                name: _summary(times, target)
                for name, times in interactions(page, repeat, quiet_ms).items()}
        with browser.context() as context:
            page = context.pages[0] if context.pages else context.new_page()
            open_view(page, base, "overview", "Overview", quiet_ms)
            target = TARGETS_MS["200 records"]
            load = upload_trio(page, graph_trio(), quiet_ms)
            figures = interactions(page, repeat, quiet_ms)
            results["200 records"] = {"load (upload the trio file)": _summary([load], target),
                                      **{name: _summary(times, target)
                                         for name, times in figures.items()}}
        if browser.blocked:
            raise RuntimeError(f"requests left 127.0.0.1: {browser.blocked}")
    results["settings"] = {"repeat": repeat, "quiet_ms": quiet_ms,
                           "cpus": os.cpu_count(), "python": platform.python_version()}
    return results


def measure_weight_edit(repeat: int = 5, quiet_ms: int = 250) -> dict[str, Any]:
    """Only the weight change of *Schema tuning*, on the running example and on 200
    records, with the load average (1 min) before and after."""
    results: dict[str, Any] = {"load before": os.getloadavg()[0]}
    with explorer() as (base, _), sync_playwright() as playwright:
        browser = Browser(playwright, base)
        for name, path, trio in (("running example", "schema-tuning?example=running_example",
                                  None), ("200 records", "overview", graph_trio())):
            with browser.context() as context:
                page = context.pages[0] if context.pages else context.new_page()
                title = "Schema tuning" if trio is None else "Overview"
                open_view(page, base, path, title, quiet_ms)
                if trio is not None:
                    upload_trio(page, trio, quiet_ms)
                    switch(page, "Schema tuning", quiet_ms)
                results[name] = _summary(weight_changes(page, repeat, quiet_ms),
                                         TARGETS_MS[name])
        if browser.blocked:
            raise RuntimeError(f"requests left 127.0.0.1: {browser.blocked}")
    results["load after"] = os.getloadavg()[0]
    results["settings"] = {"repeat": repeat, "quiet_ms": quiet_ms, "cpus": os.cpu_count()}
    return results


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quiet-ms", type=int, default=250,
                        help="how long the page must stay unchanged to count as settled")
    parser.add_argument("--json", type=Path, default=RESULTS,
                        help=f"write the figures here (default {RESULTS.relative_to(ROOT)})")
    parser.add_argument("--weight-edit", action="store_true",
                        help="only the weight change (written to weight_edit.json)")
    parser.add_argument("--wl-step", action="store_true",
                        help="only the WL round step (written to wl_step.json)")
    args = parser.parse_args(argv)
    if args.wl_step:
        results = measure_wl_step(args.repeat, args.quiet_ms)
        out = args.json if args.json != RESULTS else RESULTS.with_name("wl_step.json")
        out.write_text(json.dumps(results, indent=1) + "\n")
        print(json.dumps(results, indent=1))
        return
    if args.weight_edit:
        results = measure_weight_edit(args.repeat, args.quiet_ms)
        out = args.json if args.json != RESULTS else RESULTS.with_name("weight_edit.json")
        out.write_text(json.dumps(results, indent=1) + "\n")
        print(json.dumps(results, indent=1))
        return
    results = measure(args.repeat, args.quiet_ms)
    print(f"{'scenario':<58} {'median ms':>10} {'max ms':>8} {'target':>7} {'ok':>3}")
    for scenario, figures in results.items():
        if scenario == "settings":
            continue
        for name, row in figures.items():
            if not row["runs"]:
                print(f"{scenario + ': ' + name:<58} {'n/a':>10}")
                continue
            print(f"{scenario + ': ' + name:<58} {row['median_ms']:>10.0f} "
                  f"{row['max_ms']:>8.0f} {row['target_ms']:>7.0f} "
                  f"{'yes' if row['meets_target'] else 'NO':>3}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=1) + "\n")
    print(f"figures written to {args.json}")


if __name__ == "__main__":
    main()
