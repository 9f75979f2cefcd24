"""A rematch in Chromium: at the end of a Lancelot game one seat proposes it with a button,
the other agrees with a click, and the pages link the two games (the finished game's
"Rematch: game …", the new game's "A rematch of game …"); the pages are checked by axe-core."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Site, run_axe, screenshot
from tests.browser.test_pages_in_chromium import DESKTOP


def test_a_rematch_proposed_with_a_button_and_agreed_with_a_click(browser: Any, site: Site) -> None:
    svc = site.service
    players = [
        {"name": "Ann", "email": "ann@example.org"},
        {"name": "Bob", "email": "bob@example.org"},
    ]
    created = svc.create_game("lancelot", {"target": 1}, players)
    gid = created.id
    while not (loaded := svc.load(gid)).finished:
        (seat,) = loaded.to_act
        svc.submit(gid, seat, loaded.legal(seat)[0], expected_version=loaded.version, channel="api")
    pages = []
    for seat in created.seats:
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.goto(f"{site.url}/games/{gid}?token={seat.token}")
        pages.append(page)
    ann, bob = pages
    assert "Propose a rematch, seats rotated" in ann.inner_text("#rematch")
    ann.click("#rematch-same")
    ann.wait_for_load_state()
    assert "Rematch proposed" in ann.inner_text("main")
    assert "Waiting for: Bob" in ann.inner_text("#rematch")
    bob.reload()
    assert "Ann (Red) proposes a rematch" in bob.inner_text("#rematch-proposal")
    screenshot(bob, "rematch-proposed.png")
    assert not run_axe(bob), run_axe(bob)
    bob.click("#rematch-agree")
    bob.wait_for_load_state()
    status = svc.rematch_status(gid)
    assert status is not None and status.new_game_id is not None
    new = status.new_game_id
    assert f"Rematch: game {new}" in bob.inner_text("#rematch-link")
    screenshot(bob, "rematch-started.png")
    bob.click("#rematch-link a")
    bob.wait_for_load_state()
    assert f"A rematch of game {gid}" in bob.inner_text("#rematch-of")
    assert [s.name for s in svc.load(new).seats] == ["Ann", "Bob"]  # the same seats
    assert not run_axe(bob), run_axe(bob)
