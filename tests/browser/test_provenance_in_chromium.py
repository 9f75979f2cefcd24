"""Provenance and The New Laws' choice in Chromium: /new shows the five law groups only when
the laws are combined (pbem.js; the page works without it), /rules/lancaster ends with the
values not from a published source, and a game with data overrides shows them on its seat
page, whose count links to the rules page's list; every page passes axe."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Site, run_axe


def test_new_shows_the_law_groups_only_when_combining(browser: Any, site: Site) -> None:
    page = browser.new_context().new_page()
    page.goto(site.url + "/new")
    assert page.is_checked("input[name=laws][value=base]")
    assert page.locator("#law-groups").is_hidden()
    page.check("input[name=laws][value=combine]")
    assert page.locator("#law-groups").is_visible()
    assert page.input_value("#law_group3") == "random"
    page.check("input[name=laws][value=replace]")
    assert page.locator("#law-groups").is_hidden()
    assert "not from a published source" in page.locator("#provisional-count").inner_text()
    assert not run_axe(page), run_axe(page)


def test_new_without_script_shows_the_law_groups(browser: Any, site: Site) -> None:
    page = browser.new_context(java_script_enabled=False).new_page()
    page.goto(site.url + "/new")
    assert page.locator("#law-groups").is_visible()


def test_a_seat_page_with_overrides_links_its_count_to_the_rules_list(
    browser: Any, site: Site
) -> None:
    data = {"counties": {"G": {"reward": {"power": 5}}}}
    created = site.service.create_game(
        "lancaster", {"data": data}, [{"name": "Ann"}, {"name": "Bob"}]
    )
    page = browser.new_context().new_page()
    page.goto(f"{site.url}/games/{created.id}?token={created.seats[0].token}")
    changed = page.locator("#overridden").inner_text()
    assert "Somerset (county G): its reward: 5 power points (instead of 4 power points)" in changed
    assert not run_axe(page), run_axe(page)
    page.click("#provisional a[href='/rules/lancaster#provisional']")
    assert page.url.endswith("/rules/lancaster#provisional")
    assert page.locator("h1#provisional").is_visible()
    assert not run_axe(page), run_axe(page)
