"""Cross-site forms in Chromium: a page served from another origin (another port of the same
host, which ``SameSite=Lax`` treats as the same site, so the seat's cookie goes along) posts
a move to the game and is refused with nothing played; the seat page's own form plays; the
pages break no rule of their Content-Security-Policy."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.browser.conftest import Site, screenshot

DESKTOP = {"width": 1280, "height": 900}

ATTACK = """<!doctype html><html><body>
<form id="f" method="post" action="{target}">
<input type="hidden" name="choice" value="G7">
<input type="hidden" name="expected_version" value="2">
</form>
<script>document.getElementById("f").submit();</script>
</body></html>"""


@pytest.fixture
def attacker() -> Iterator[dict[str, str]]:
    """Another origin on this machine (127.0.0.1, another port) serving the page it is given
    in ``pages['/']``."""
    pages: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path, "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    pages["origin"] = f"http://127.0.0.1:{port}"
    yield pages
    server.shutdown()
    server.server_close()
    thread.join(5)


def _csp_violations(page: Any) -> list[str]:
    found: list[str] = []
    page.on(
        "console",
        lambda m: found.append(m.text) if "Content Security Policy" in m.text else None,
    )
    return found


def test_a_move_posted_from_another_origin_is_refused_and_the_page_form_plays(
    browser: Any, site: Site, attacker: dict[str, str]
) -> None:
    created = site.service.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    gid = created.id
    context = browser.new_context(viewport=DESKTOP)
    ann = context.new_page()
    violations = _csp_violations(ann)
    ann.goto(f"{site.url}/games/{gid}?token={created.seats[0].token}")
    assert ann.title().startswith("Your turn") and "?" not in ann.url

    # The attacker's page, in the same browser (the seat's cookie is there), posts a move.
    attacker["/"] = ATTACK.format(target=f"{site.url}/games/{gid}")
    victim = context.new_page()
    with victim.expect_navigation(url=f"{site.url}/games/{gid}"):
        victim.goto(attacker["origin"] + "/")
    assert "sent from another site, so nothing was done" in victim.content()
    assert site.service.load(gid).version == 2

    # The seat page's own form: a click on a square plays it.
    ann.reload()
    ann.click("button.sq[data-square=G7]")
    ann.wait_for_load_state()
    assert site.service.load(gid).version == 3
    assert site.service.raw_events(gid)[-1].data["canonical"] == "G7"
    assert "Waiting for" in ann.content() or not ann.title().startswith("Your turn")
    # The history, audit and new-game pages too: nothing the policy blocks.
    for path in (f"/games/{gid}", f"/games/{gid}/history", f"/games/{gid}/audit", "/new"):
        ann.goto(site.url + path)
    assert violations == []
    ann.goto(f"{site.url}/games/{gid}")
    screenshot(ann, "seat-after-cross-site-refusal.png")
    context.close()


def test_the_squares_sit_on_their_cells_without_inline_style(browser: Any, site: Site) -> None:
    # The clickable squares are placed by the stylesheet's grid: each one over its own cell.
    created = site.service.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(f"{site.url}/games/{created.id}?token={created.seats[0].token}")
    board = page.locator(".lboard").bounding_box()
    first = page.locator("button.sq[data-square=D11]").bounding_box()  # top left of 8×8
    last = page.locator("button.sq[data-square=K4]").bounding_box()  # bottom right
    cell = board["width"] / 10
    assert abs(first["x"] - (board["x"] + cell)) < 2 and abs(first["y"] - (board["y"] + cell)) < 2
    assert abs(last["x"] - (board["x"] + 8 * cell)) < 2
    assert abs(last["y"] - (board["y"] + 8 * cell)) < 2
    assert abs(first["width"] - cell) < 2
    page.context.close()
