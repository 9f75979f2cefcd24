"""A dispute in Chromium: a seat opens it with the form under its board, the other seat
agrees with a click and the move is taken back; the pages with an open dispute and the audit
page with its evidence are checked by axe-core."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Site, run_axe, screenshot
from tests.browser.test_pages_in_chromium import DESKTOP


def test_a_dispute_opened_with_the_form_and_agreed_with_a_click(browser: Any, site: Site) -> None:
    svc = site.service
    created = svc.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    gid = created.id
    svc.submit(gid, 0, "E5", expected_version=2, channel="web")
    pages = []
    for seat in created.seats:
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.goto(f"{site.url}/games/{gid}?token={seat.token}")
        pages.append(page)
    ann, bob = pages
    bob.click("text=Dispute a move")
    bob.fill("#dispute-versions", "2")
    bob.fill("#dispute-text", "Ann moved before I was ready")
    bob.click("text=Open the dispute")
    assert "There is no move in effect at version 2" in bob.inner_text("#dispute-error")
    assert bob.input_value("#dispute-text") == "Ann moved before I was ready"  # kept
    bob.fill("#dispute-versions", "3")
    bob.click("text=Open the dispute")
    ann.wait_for_selector("#dispute-4")  # the page reloads itself when the game moves
    ann.wait_for_load_state()
    assert "Bob (Blue) disputes version 3: “Ann moved before I was ready”" in ann.inner_text(
        "#dispute-4"
    )
    assert not run_axe(ann), run_axe(ann)
    ann.click("text=Agree: take them back")
    ann.wait_for_load_state()
    assert svc.load(gid).version == 3 + 4  # dispute, answer, resolution, retraction
    assert svc.disputes_of(gid)[0]["status"] == "upheld"
    assert "Your turn" in ann.title()
    ann.goto(f"{site.url}/games/{gid}/audit#disputes")
    assert "Dispute 4 — upheld" in ann.inner_text("#disputes")
    assert "Legal actions then" in ann.inner_text("#disputes")  # Ann's own move
    screenshot(ann, "audit-dispute.png")
    assert not run_axe(ann), run_axe(ann)
