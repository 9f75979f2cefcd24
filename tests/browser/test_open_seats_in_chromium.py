"""Open seats in a real Chromium: a game created on /new with seats ticked "open seat", found
on the open games page and joined there by two other browsers (the last seat starts it, and
the first seat plays a move by clicking); a game whose organiser starts it with fewer from
the administrator's page, then played; the pages pass axe's serious checks."""

from __future__ import annotations

import re
from typing import Any

from tests.browser.conftest import Site, run_axe, screenshot
from tests.browser.test_cross_site_forms_in_chromium import attacker  # noqa: F401 (a fixture)

DESKTOP = {"width": 1280, "height": 900}


def _new_with_open_seats(browser: Any, site: Site, open_rows: list[int]) -> tuple[Any, str]:
    """The organiser's page after creating a Lancelot game with Ann named and the rows
    ``open_rows`` ticked open; and the game's id."""
    organiser = browser.new_context(viewport=DESKTOP).new_page()
    organiser.goto(site.url + "/new")
    organiser.check("input[value=lancelot]")
    organiser.fill("#name0", "Ann")
    for row in open_rows:
        organiser.check(f"#open{row}")
    organiser.click("text=Create the game")
    organiser.locator("#join-link").wait_for()
    heading = organiser.inner_text("h1")
    found = re.search(r"([0-9a-f]{10}) is ready", heading)
    assert found, heading
    assert f"{len(open_rows)} seats are open" in organiser.inner_text("#open-seats-note")
    return organiser, found.group(1)


def _join(browser: Any, site: Site, gid: str, name: str, email: str) -> Any:
    """Another browser joins from the open games page."""
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(site.url + "/")
    page.click("#open-games-link")
    page.locator(f"#open-games a[href='/games/{gid}/join']").click()
    page.fill("#name", name)
    page.fill("#email", email)
    page.click("#join")
    page.locator("#seat-link").wait_for()
    return page


def test_a_game_is_created_with_open_seats_and_filled_from_the_open_games_page(
    browser: Any, site: Site
) -> None:
    organiser, gid = _new_with_open_seats(browser, site, [1, 2])
    ann_link = organiser.locator(".seat-links a").first.get_attribute("href")
    ann = browser.new_context(viewport=DESKTOP).new_page()
    ann.goto(ann_link)
    assert "waiting for 2 more players" in ann.inner_text("#waiting-players")
    assert ann.locator("#play").count() == 0  # no move before the start
    screenshot(ann, "open-seats-waiting.png")

    cy = _join(browser, site, gid, "Cy", "cy@example.org")
    assert "invitation was mailed to cy@example.org" in cy.inner_text("#invited")
    screenshot(cy, "open-seats-joined.png")
    assert not run_axe(cy), run_axe(cy)
    listing = browser.new_context(viewport=DESKTOP).new_page()
    listing.goto(site.url + "/games/open")
    assert "1 of 3" in listing.inner_text(f"#open-games tr:has-text('{gid}')")
    screenshot(listing, "open-games.png")
    assert not run_axe(listing), run_axe(listing)

    # The same name is refused on the form, what was typed kept.
    dup = browser.new_context(viewport=DESKTOP).new_page()
    dup.goto(f"{site.url}/games/{gid}/join")
    dup.fill("#name", "CY")
    dup.fill("#email", "other@example.org")
    dup.click("#join")
    assert "already plays" in dup.inner_text("#form-errors")
    assert dup.input_value("#email") == "other@example.org"

    dee = _join(browser, site, gid, "Dee", "dee@example.org")
    assert "the game has started" in dee.inner_text("#start-note")
    listing.reload()
    assert gid not in listing.inner_text("main")
    # Ann is to act: her page plays a move by clicking.
    ann.goto(f"{site.url}/games/{gid}")
    assert ann.title().startswith("Your turn")
    ann.locator("button.sq").first.click()
    ann.wait_for_load_state()
    loaded = site.service.load(gid)
    assert loaded.version == 5 and loaded.to_act == frozenset({1})


def test_the_organiser_starts_a_game_with_fewer_players_on_the_admin_page(
    browser: Any, site: Site
) -> None:
    organiser, gid = _new_with_open_seats(browser, site, [1, 2, 3])
    organiser.click("#admin-page")
    assert "waits for 3 more players" in organiser.inner_text("#open-seats")
    organiser.click("#start-now")
    assert "played by 2, 3, 4, 5 players" in organiser.inner_text("#alert")
    _join(browser, site, gid, "Bo", "bo@example.org")
    organiser.goto(f"{site.url}/games/{gid}/admin")
    organiser.click("#start-now")
    assert "started with 2 players" in organiser.inner_text("#notices")
    screenshot(organiser, "open-seats-started-with-fewer.png")
    loaded = site.service.load(gid)
    assert not loaded.waiting and loaded.to_act == frozenset({0}) and len(loaded.seats) == 2
    assert loaded.rules.view(loaded.state, None)["players"] in (2, loaded.view(None)["players"])
    assert site.service.replay(gid).ok


JOIN_ATTACK = """<!doctype html><html><body>
<form id="f" method="post" action="{target}">
<input type="hidden" name="name" value="Mallory">
<input type="hidden" name="email" value="mallory@example.org">
</form>
<script>document.getElementById("f").submit();</script>
</body></html>"""


def test_a_join_form_posted_from_another_origin_takes_no_seat(
    browser: Any,
    site: Site,
    attacker: dict[str, str],  # noqa: F811 (the fixture imported above)
) -> None:
    created = site.service.create_game("lancelot", {}, [{"name": "Ann"}, {"open": True}])
    gid = created.id
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    attacker["/"] = JOIN_ATTACK.format(target=f"{site.url}/games/{gid}/join")
    with page.expect_navigation(url=f"{site.url}/games/{gid}/join"):
        page.goto(attacker["origin"] + "/")
    assert "sent from another site, so nothing was done" in page.content()
    loaded = site.service.load(gid)
    assert loaded.waiting and loaded.version == 1 and len(loaded.seats) == 1
    context.close()
