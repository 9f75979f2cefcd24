"""/new in Chromium: the organiser ticks Lancaster's Henry V modules; Laws of the King without
both others comes back with the rules' words by the field and the boxes as ticked, and the
game is created with the modules once the set is one the rules play."""

from __future__ import annotations

import re
from typing import Any

from pbem.core import events as ev
from tests.browser.conftest import Site, run_axe


def test_the_henry_v_modules_are_chosen_on_new(browser: Any, site: Site) -> None:
    page = browser.new_context().new_page()
    page.goto(site.url + "/new")
    page.check("input[value=lancaster]")
    for i, name in enumerate(("Ann", "Bob", "Cat")):
        page.fill(f"#name{i}", name)
    page.check("input[name=laws_of_the_king]")
    page.click("text=Create the game")
    error = page.locator("#expansions-error")
    assert error.is_visible()
    assert "Laws of the King can be played only with both" in error.inner_text()
    assert page.is_checked("input[name=laws_of_the_king]")
    assert page.input_value("#name2") == "Cat"  # nothing lost from the form
    assert not run_axe(page), run_axe(page)
    page.check("input[name=kings_court]")
    page.check("input[name=resentment]")
    page.click("text=Create the game")
    links = page.locator(".seat-links a").evaluate_all("els => els.map(e => e.href)")
    assert len(links) == 3
    game_id = re.search(r"/games/(\w+)\?", links[0]).group(1)  # type: ignore[union-attr]
    created = site.service.raw_events(game_id)[0].payload
    assert isinstance(created, ev.GameCreated)
    on = {k for k, v in created.config["expansions"].items() if v}
    assert on == {"kings_court", "resentment", "laws_of_the_king"}
