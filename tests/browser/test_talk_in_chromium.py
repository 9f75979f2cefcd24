"""Table talk in Chromium: in a three-player Lancaster game, Ann writes to the table and to
Bob alone from the conversation panel of her seat page; Bob's page shows both as it reloads
itself, Cat's only the first; a page being written on waits instead of reloading; the
panel passes axe-core, on a desktop and on a phone without sideways scrolling."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Site, no_horizontal_scroll, run_axe, screenshot
from tests.browser.test_pages_in_chromium import DESKTOP, PHONE

SECRET = "Bob, let us both vote against the Duke"


def test_table_talk_from_the_panel_reaches_only_its_readers(browser: Any, site: Site) -> None:
    svc = site.service
    players = [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cat"}]
    created = svc.create_game("lancaster", {}, players)
    gid = created.id
    pages = []
    for seat in created.seats:
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.goto(f"{site.url}/games/{gid}?token={seat.token}")
        pages.append(page)
    ann, bob, cat = pages
    assert "No messages yet." in ann.inner_text("#talk")
    version = svc.load(gid).version
    ann.fill("#talk-text", "Good luck, all!")
    ann.click("#talk-form >> text=Send")
    ann.wait_for_load_state()
    assert "Your message to everyone was sent" in ann.inner_text("#notices")
    # Cat is typing a message: her page says the game moved instead of reloading.
    cat.fill("#talk-text", "half-written")
    ann.check("#talk-selected")
    ann.check("#talk-form >> text=Bob")
    ann.fill("#talk-text", SECRET)
    ann.click("#talk-form >> text=Send")
    ann.wait_for_load_state()
    assert svc.load(gid).version == version + 2
    bob.wait_for_selector(f"#talk-{version + 2}")  # reloaded by itself
    talk = bob.inner_text("#talk")
    assert "Good luck, all!" in talk and SECRET in talk
    assert cat.input_value("#talk-text") == "half-written"  # not lost to a reload
    cat.fill("#talk-text", "")
    cat.reload()
    cat_talk = cat.inner_text("#talk")
    assert "Good luck, all!" in cat_talk and SECRET not in cat_talk
    assert SECRET not in cat.content()
    screenshot(bob, "talk-panel.png")
    assert not run_axe(bob), run_axe(bob)
    # A refusal keeps what was typed, at the top of the page.
    bob.fill("#talk-text", "x" * 900 + " www.example")
    bob.click("#talk-form >> text=Send")
    bob.wait_for_load_state()
    assert "may not hold a web or e-mail address" in bob.inner_text("#alert")
    assert bob.input_value("#talk-text").endswith("www.example")
    phone = browser.new_context(viewport=PHONE).new_page()
    phone.goto(f"{site.url}/games/{gid}?token={created.seats[1].token}")
    assert no_horizontal_scroll(phone)
    screenshot(phone, "talk-panel-phone.png")
