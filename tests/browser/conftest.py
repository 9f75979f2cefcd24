"""Browser tests: the pages in a real Chromium (Debian's ``chromium``, driven by Playwright for
Python; never a downloaded browser), against the app served on a loopback port.

Without ``/usr/bin/chromium`` or the ``playwright`` package the tests skip with the reason,
unless ``PBEM_REQUIRE_BROWSER=1`` (as in CI), where they fail instead.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

import engine
from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from tests.settings import make_settings
from web import create_app

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
#: Where the tests write their screenshots: var/screenshots/ (git-ignored) unless
#: PBEM_SCREENSHOTS_DIR says otherwise, so that a test run leaves the checkout clean. The
#: copies the README links to are in screenshots/; refresh them with
#: ``PBEM_SCREENSHOTS_DIR=screenshots .venv/bin/python -m pytest -q tests/browser``.
SCREENSHOTS_ENV = "PBEM_SCREENSHOTS_DIR"
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"


def _required() -> bool:
    return os.environ.get("PBEM_REQUIRE_BROWSER", "") not in {"", "0", "false", "no"}


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    reason = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "the browser tests need the playwright package (pip install -e '.[dev]')"
    if reason is None and not Path(CHROMIUM).exists():
        reason = (
            f"the browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)"
        )
    if reason is not None:
        if _required():
            pytest.fail(reason + " (PBEM_REQUIRE_BROWSER=1, so this is a failure)")
        pytest.skip(reason)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def _close_what_the_test_opened(request: pytest.FixtureRequest) -> Iterator[None]:
    """Closes the browser contexts (and their pages) a test opened, once it is over: a seat
    page left open polls the server five times a second and reloads itself at each move of
    its game, taking the CPU from the tests after it (a module's shared contexts, opened
    before the test, stay open)."""
    if "browser" not in request.fixturenames:
        yield
        return
    browser = request.getfixturevalue("browser")
    before = list(browser.contexts)
    yield
    for context in browser.contexts:
        if not any(context is kept for kept in before):
            context.close()


@dataclass
class Site:
    url: str
    service: GameService


#: How often a game's page asks whether the game moved (it reloads itself when it did): a
#: fifth of a second, so that a test waiting for a page to refresh itself waits little. A
#: module whose pages are each opened afresh when looked at (never left to refresh themselves)
#: sets ``PAGE_POLL_MS`` higher: the pages kept open then cost nothing while they wait.
PAGE_POLL_MS = 200


@pytest.fixture(scope="module")
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    """The app on a free loopback port, on its own SQLite database, with the real games."""
    var = tmp_path_factory.mktemp("browser")
    url = f"sqlite:///{var / 'pbem.db'}"
    db = Database(url)
    upgrade(db)
    # The port first: links the pages print are made from the configured base URL.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = make_settings(url, var, base_url=f"http://127.0.0.1:{port}")
    service = build_service(settings, db=db, registry=engine.REGISTRY, listeners=[])
    app = create_app(service=service)
    app.config["PBEM_PAGE_POLL_MS"] = getattr(request.module, "PAGE_POLL_MS", PAGE_POLL_MS)
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield Site(f"http://127.0.0.1:{server.server_port}", service)
    server.shutdown()
    thread.join(5)
    db.dispose()


#: axe-core run on the whole document with all its default rules; what comes back is only
#: the serious and critical violations, each with the selectors of its first five nodes. They
#: are picked out in the page: axe's whole result (every rule's passes, with each node they
#: passed on) is most of a megabyte on a drawn board, and sending it to Python took three times
#: as long as the checks themselves. ``resultTypes`` spares axe the work of naming every node
#: that passed (the violations are reported whole all the same).
_AXE_RUN = """async () => {
    const result = await axe.run(document, {resultTypes: ['violations']});
    return result.violations
        .filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map(n => n.target)}));
}"""


def run_axe(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now."""
    # Evaluated by the browser's debugger, not a script tag: the pages' Content-Security-Policy
    # refuses inline scripts, and a test must not need the policy relaxed. Once per document
    # (a page navigated since has lost it).
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    violations: list[dict[str, Any]] = page.evaluate(_AXE_RUN)
    return violations


def screenshots_dir() -> Path:
    """The folder screenshots go to (a relative PBEM_SCREENSHOTS_DIR is from the checkout)."""
    chosen = os.environ.get(SCREENSHOTS_ENV, "").strip()
    return ROOT / chosen if chosen else ROOT / "var" / "screenshots"


def screenshot(page: Any, name: str) -> None:
    folder = screenshots_dir()
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / name), full_page=True)


def no_horizontal_scroll(page: Any) -> bool:
    width: int = page.evaluate("document.documentElement.scrollWidth")
    return width <= page.viewport_size["width"]
