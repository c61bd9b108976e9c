"""Real-browser harness: `oa explore` (`streamlit run`) on 127.0.0.1 and Debian's Chromium.

Every request the page makes is routed: 127.0.0.1 (the app), ``data:``, ``blob:``
and ``about:`` go through; anything else is aborted and recorded, and each test
fails if something was blocked (the explorer must work with no network).
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, Route, expect, sync_playwright

from app.launch import served

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = ROOT / "tests" / "screenshots"
# Generous waits: the tests wait for what the page shows, never for a fixed time, so a
# long limit costs nothing when the machine is idle and saves a run on a busy one.
TIMEOUT_MS = 90_000
expect.set_options(timeout=TIMEOUT_MS)
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start the explorer as the README does (`oa explore`, which runs `streamlit run`
    on 127.0.0.1); stop its whole process group after."""
    with served(_free_port(), tmp_path_factory.mktemp("streamlit") / "server.log") as url:
        yield url


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    """One headless Chromium (the system's) per test file.

    Not per session: Playwright's sync API keeps an event loop marked running on the
    main thread while it is started, and the frameworks the adapter tests drive
    (Inspect's ``eval``, pydantic-evals' ``evaluate_sync``) refuse ``asyncio.run``
    under it. Stopped at the end of each browser file, it leaves later files a clean
    thread.
    """
    # A missing browser fails rather than skips: a skipped browser suite would let a
    # broken explorer pass. scripts/test installs Debian's chromium before pytest runs.
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/test (apt-get install chromium)")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium")), executable_path=str(CHROMIUM),
            headless=True, args=CHROMIUM_ARGS, viewport={"width": 1400, "height": 900})
        yield context
        context.close()


@pytest.fixture
def page(browser_context: BrowserContext, app_url: str) -> Iterator[Page]:
    """A fresh tab whose requests may only reach the app; asserts nothing was blocked."""
    blocked: list[str] = []
    allowed = (app_url, "data:", "blob:", "about:")

    def route(route: Route) -> None:
        url = route.request.url
        if url.startswith(allowed):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    tab = browser_context.new_page()
    tab.route("**/*", route)
    tab.set_default_timeout(TIMEOUT_MS)
    tab.set_default_navigation_timeout(TIMEOUT_MS)
    yield tab
    tab.close()
    assert blocked == [], f"requests left 127.0.0.1: {blocked}"


@pytest.fixture
def screenshot() -> Callable[[Page, str], Path]:
    """A function saving a full-page screenshot under tests/screenshots/."""
    return save_screenshot


def next_frames(tab: Page, count: int = 2) -> None:
    """Wait until the browser has painted ``count`` more frames (after a resize)."""
    tab.evaluate("""n => new Promise(done => {
        const step = k => k ? requestAnimationFrame(() => step(k - 1)) : done();
        step(n);
    })""", count)


def save_screenshot(tab: Page, name: str) -> Path:
    """Save a full-page screenshot (the viewport grown to the content height)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    height = tab.evaluate(
        """() => {const main = document.querySelector('[data-testid="stMain"]');
                  const inner = main ? main.scrollHeight : 0;
                  return Math.max(inner, document.body.scrollHeight);}""")
    tab.set_viewport_size({"width": 1400, "height": min(max(int(height) + 40, 900), 9000)})
    next_frames(tab)
    path = SCREENSHOTS / f"{name}.png"
    tab.screenshot(path=str(path), full_page=True)
    tab.set_viewport_size({"width": 1400, "height": 900})
    return path
