"""Lancaster's drawn board in Chromium: a round of each family of configurations (the base
game with 3 players, the 2-player game with allies, all of Henry V's modules) played only by
clicks on the board — a highlighted spot opens its panel of sub-choices, a button there plays —
with what the board shows read back after each step from the SVG's titles; axe-core on the
seat page with a panel open, the public view and the history; the pages at 390 px without
sideways scrolling; screenshots at 390 and 1280 px (var/screenshots/, see conftest.py).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from tests.browser.conftest import Site, no_horizontal_scroll, run_axe, screenshot

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
ALL_HENRY_V = {"kings_court": True, "resentment": True, "laws_of_the_king": True}
#: A placement's button: "Place knight 2 in York (C) …", "Place your ally's knight 1 in …"
PLACED_IN_COUNTY = re.compile(r"^Place (?:your ally's )?knight (\d+) in .*?\(([A-I])\)")
PLACED_AT_CONFLICT = re.compile(r"^Place (?:your ally's )?knight (\d+) at conflict (\d+)")


def _title_of(page: Any, selector: str) -> str:
    """What a drawn part reads: the <title> (its name) and <desc> (what it shows) of the link
    or image around it."""
    return str(
        page.locator(selector).first.evaluate(
            """e => [...e.closest('a, [role=img]').children]
                .filter(t => t.tagName === 'title' || t.tagName === 'desc')
                .map(t => t.textContent.trim()).join('; ')"""
        )
    )


def _read_aloud(page: Any) -> list[tuple[str, str, str]]:
    """Chromium's accessibility tree of the page, as a screen reader gets it: each link and
    image, as its role, name and description."""
    cdp = page.context.new_cdp_session(page)
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    cdp.detach()
    return [
        (n["role"]["value"], n["name"]["value"], n.get("description", {}).get("value", ""))
        for n in nodes
        if n.get("role", {}).get("value") in ("link", "image") and n.get("name", {}).get("value")
    ]


#: What a step needs to know of the seat's page, read in one go (each question asked of the page
#: on its own is a round trip to Chromium): the phase the page names, the version it shows, the
#: places of its highlighted spots, how many choices are made at no spot, and the colour its
#: castle is drawn in (None when the seat's castle is not drawn).
_STEP_STATE = """(seat) => {
    const main = document.querySelector('main');
    const phase = main.innerText.match(/phase: (\\w+)/);
    const castle = document.querySelector(`#castle-${seat} svg`);
    return {
        phase: phase ? phase[1] : '',
        version: main.dataset.version,
        spots: [...document.querySelectorAll('.lb a.spot')].map(e => e.dataset.place),
        others: document.querySelectorAll('.lb-other button[name=choice]').length,
        colour: castle ? castle.dataset.colour : null,
    };
}"""

#: The buttons of a panel (or of the choices made at no spot): each one's words and value, and
#: the place the panel is for.
_BUTTONS = """(scope) => {
    const panel = document.querySelector(scope);
    return {
        place: panel.dataset.place || null,
        buttons: [...panel.querySelectorAll('button[name=choice]')]
            .map(b => [b.innerText.trim(), b.getAttribute('value')]),
    };
}"""

#: After a move: the refusal the page shows if any, and the version it shows.
_AFTER_MOVE = """() => {
    const error = document.getElementById('error');
    const main = document.querySelector('main');
    return {error: error ? error.innerText : null, version: main.dataset.version};
}"""


def click_a_move(page: Any, rnd: random.Random, state: dict[str, Any]) -> tuple[str | None, str]:
    """One move by clicks on the board: a highlighted spot, then a button of its panel (or a
    button of the choices made at no spot). Returns the spot and the button's words."""
    spots: list[str] = state["spots"]
    place = None
    if spots and not (state["others"] and rnd.random() < 0.2):
        index = rnd.randrange(len(spots))
        place = spots[index]
        page.locator(".lb a.spot").nth(index).click()
        scope = "section.subchoice:target"
        assert page.locator(scope).is_visible()
    else:
        scope = ".lb-other"
    panel = page.evaluate(_BUTTONS, scope)
    if place is not None:
        assert panel["place"] == place, (panel["place"], place)
    buttons = panel["buttons"]
    assert buttons, "the seat to act has nothing to click on the board"
    index = rnd.randrange(len(buttons))
    label, value = buttons[index]
    assert label and value
    page.locator(f"{scope} button[name=choice]").nth(index).click()
    page.wait_for_load_state()
    return place, label


def check_step(page: Any, label: str) -> None:
    """What the board shows after a move, read from the titles of its drawn parts."""
    county = PLACED_IN_COUNTY.match(label)
    if county:
        strength, letter = county.groups()
        title = _title_of(page, f"g[data-county='{letter}']")
        # the knight stands there (unless a later step already moved it on: Dorset)
        assert f"strength {strength}" in title or letter == "H", title
    conflict = PLACED_AT_CONFLICT.match(label)
    if conflict:
        title = _title_of(page, f"g[data-conflict='{conflict.group(2)}']")
        assert "no knights" not in title, title


def hidden_values_stay_hidden(page: Any, seat: int, players: int) -> None:
    """Another player's gold and squires are never drawn (the 3-player game hides them)."""
    titles = page.locator(".lb-castle title").all_text_contents()
    own = [t for t in titles if "(you)" in t or "gold " in t]
    assert own, titles
    if players > 2:
        others = [t for t in titles if t.startswith("Power") and "gold hidden" in t]
        assert len(others) == players - 1, titles


#: Each seat's page is opened afresh when the seat is to act (Seats.open), never left to
#: refresh itself: the pages kept open need not ask the server whether the game moved (an hour
#: between questions; the refreshing itself is tested in test_pages_in_chromium.py).
PAGE_POLL_MS = 3_600_000


class Seats:
    """A browser page of each seat, signed in by its link and kept open; ``open`` shows the
    seat's page as the game is now (a new page for each step cost more than loading it)."""

    def __init__(self, browser: Any, site: Site, config: dict[str, Any], names: list[str]):
        created = site.service.create_game("lancaster", config, [{"name": n} for n in names])
        self.gid = created.id
        self.url = f"{site.url}/games/{created.id}"
        self.service = site.service
        self.pages: list[Any] = []
        for seat in created.seats:
            page = browser.new_context(viewport=DESKTOP).new_page()
            page.goto(f"{self.url}?token={seat.token}")
            assert "?" not in page.url  # the link was exchanged for the session cookie
            self.pages.append(page)
        #: the version each seat's page shows (a page shows the game as its last load left it)
        self.shown = [str(site.service.load(self.gid).version)] * len(self.pages)

    def open(self, seat: int) -> Any:
        page = self.pages[seat]
        if self.shown[seat] != str(self.service.load(self.gid).version):
            page.goto(self.url)
        self.shown[seat] = ""  # the test may act on it from here: load it again next time
        return page

    def moved(self, seat: int, version: str) -> None:
        """The seat's page shows ``version`` (the page its move was answered with)."""
        self.shown[seat] = version

    def close(self) -> None:
        for page in self.pages:
            page.context.close()


def play_a_round_by_board(
    browser: Any,
    site: Site,
    config: dict[str, Any],
    names: list[str],
    tag: str,
    seed: int,
    shots: tuple[str, ...] = ("placement",),
) -> tuple[Seats, set[str], set[str]]:
    """Round 1 of a new game played only by clicks on the drawn board, each phase checked at
    390 px; screenshots of the phases in ``shots`` at both widths (the README shows them);
    the kinds of spot clicked and offered."""
    seats = Seats(browser, site, config, names)

    rnd = random.Random(seed)
    seen: set[str] = set()
    clicked: set[str] = set()
    offered: set[str] = set()
    moves = 0
    while (loaded := site.service.load(seats.gid)).view(None)["round"] == 1:
        seat = rnd.choice(sorted(loaded.view(None)["to_act"]))
        page = seats.open(seat)
        state = page.evaluate(_STEP_STATE, seat)
        assert state["version"] == str(loaded.version), state["version"]
        assert state["colour"], f"seat {seat}'s castle is not drawn"
        phase = state["phase"]
        if phase not in seen:
            seen.add(phase)
            assert page.locator(".lb a.spot, .lb-other button").count(), phase
            if phase in shots:
                screenshot(page, f"board-{tag}-{phase}-1280.png")
            page.set_viewport_size(PHONE)
            assert no_horizontal_scroll(page), phase
            if phase in shots:
                screenshot(page, f"board-{tag}-{phase}-390.png")
            page.set_viewport_size(DESKTOP)
            hidden_values_stay_hidden(page, seat, len(names))
        offered.update(p.split(" ")[0] for p in state["spots"])
        place, label = click_a_move(page, rnd, state)
        after = page.evaluate(_AFTER_MOVE)
        assert after["error"] is None, after["error"]
        if place:
            clicked.add(place.split(" ")[0])
        check_step(page, label)
        seats.moved(seat, after["version"])
        moves += 1
        assert moves < 150
    return seats, clicked, offered


def test_a_base_round_for_three_by_clicks_on_the_board(browser: Any, site: Site) -> None:
    seats, clicked, offered = play_a_round_by_board(
        browser, site, {}, ["Ann", "Bob", "Cat"], "base", seed=5
    )
    # the round went through the map, the castles, France and Parliament by clicks
    assert {"county", "castle", "vote"} <= clicked, (clicked, offered)
    page = seats.open(0)
    # the nine counties in their places: Northumberland north of everything, Dorset south
    ys = {
        letter: page.locator(f"g[data-county='{letter}'] rect").first.bounding_box()["y"]
        for letter in "ABCDEFGHI"
    }
    assert ys["A"] == min(ys.values()) and ys["H"] == max(ys.values()), ys
    assert not run_axe(page), run_axe(page)


def test_a_two_player_round_with_allies_by_clicks_on_the_board(browser: Any, site: Site) -> None:
    seats, clicked, offered = play_a_round_by_board(browser, site, {}, ["Ann", "Bob"], "2p", seed=8)
    # the seat's ally's knights are placed from the board too
    assert "ally" in offered and "county" in clicked, (offered, clicked)
    page = seats.open(0)
    # each player's ally has its castle, court and reserve drawn beside its player's
    allies = site.service.load(seats.gid).view(0)["allies"]
    assert allies
    for ally in allies:
        svg = page.locator(f".lb-castle[data-colour='{ally['colour']}']")
        assert svg.count() == 1
        titles = svg.locator("title").all_text_contents()
        assert any("court" in t for t in titles) and any("reserve" in t for t in titles), titles
        assert svg.locator("g.space").count() == len(ally["castle"])
    assert not run_axe(page), run_axe(page)


def test_a_henry_v_round_by_clicks_on_the_board(browser: Any, site: Site) -> None:
    seats, clicked, offered = play_a_round_by_board(
        browser,
        site,
        {"expansions": ALL_HENRY_V},
        ["Ann", "Bob", "Cat"],
        "henry",
        seed=3,
        shots=("placement", "parliament", "counties"),
    )
    # the offices, the treasury and the tower were places to act, and acted at
    assert {"office", "treasury", "tower"} <= offered, offered
    assert clicked & {"office", "treasury", "tower"}, clicked
    page = seats.open(1)
    assert page.locator("g.office").count() == 3
    tower = _title_of(page, "g.tower")
    assert re.search(r"strength \d+ of 7", tower), tower
    assert page.locator("svg.lb-henry title", has_text=re.compile("^Dishonor track")).count() == 1
    # axe on the seat page with a spot's panel open, the public view and the history
    spots = page.locator(".lb a.spot")
    if spots.count():
        spots.first.click()
        assert page.locator("section.subchoice:target").is_visible()
    assert not run_axe(page), run_axe(page)
    page.goto(f"{seats.url}?view=public")
    assert page.locator(".lb-castle").count() == 3
    assert not page.locator(".lb a.spot").count()  # the public view acts nowhere
    assert not run_axe(page), run_axe(page)
    page.goto(f"{seats.url}/history")
    assert not run_axe(page), run_axe(page)


@pytest.mark.parametrize("width", [390, 1280])
def test_the_spots_panel_opens_without_javascript(browser: Any, site: Site, width: int) -> None:
    """The board's links and panels are plain HTML and CSS: with scripts off a click on a
    highlighted county still opens its panel, and its button plays."""
    created = site.service.create_game(
        "lancaster", {}, [{"name": n} for n in ("Ann", "Bob", "Cat")]
    )
    context = browser.new_context(
        viewport={"width": width, "height": 900}, java_script_enabled=False
    )
    page = context.new_page()
    seat = sorted(site.service.load(created.id).view(None)["to_act"])[0]
    page.goto(f"{site.url}/games/{created.id}?token={created.seats[seat].token}")
    spot = page.locator(".lb a.spot").first
    place = spot.get_attribute("data-place")
    spot.click()
    panel = page.locator("section.subchoice:target")
    assert panel.get_attribute("data-place") == place
    version = site.service.load(created.id).version
    panel.locator("button[name=choice]").first.click()
    assert site.service.load(created.id).version == version + 1
    context.close()


def test_the_board_reads_to_a_screen_reader_from_the_seat_view(browser: Any, site: Site) -> None:
    """Each drawn part is named and described as the picture shows it to this seat: a county
    by what it needs, gives and who holds it; a spot where the seat can act is a link that
    says what a click opens, and the keyboard reaches it; another player's hidden values are
    not in what is read."""
    names = ("Ann", "Bob", "Cat")
    created = site.service.create_game("lancaster", {}, [{"name": n} for n in names])
    gid = created.id
    while True:  # to the placement phase, Ann to act (the first legal move of each seat)
        loaded = site.service.load(gid)
        view = loaded.view(None)
        if view["phase"] == "placement" and 0 in view["to_act"]:
            break
        seat = min(view["to_act"])
        site.service.submit(gid, seat, loaded.legal(seat)[0], expected_version=loaded.version,
                            channel="api")  # fmt: skip
    loaded = site.service.load(gid)
    site.service.submit(gid, 0, "knight 2 to C with 1 squire", expected_version=loaded.version,
                        channel="api")  # fmt: skip
    seat = min(site.service.load(gid).view(None)["to_act"])
    assert seat != 0
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{site.url}/games/{gid}?token={created.seats[seat].token}")
    read = _read_aloud(page)
    york = [(name, d) for _, name, d in read if name.startswith("York (C)")]
    assert len(york) == 1, read
    assert re.fullmatch(
        r"needs 1, reward: 1 new knight.*; 2 noblemen left; "
        r"held by Ann \(Red\), knight strength 2 with 1 squire",
        york[0][1],
    ), york
    # the seat's spots are links that say what a click opens, one for each spot drawn
    links = [(name, d) for role, name, d in read if role == "link" and "choice" in name]
    spots = page.locator(".lb a.spot").count()
    assert spots >= 2 and len(links) == spots, (links, spots)
    assert all(re.search(r": open your \d+ choices? here$", name) for name, _ in links), links
    assert all(d for _, d in links), links  # and each says what it shows
    # each other player's castle reads "hidden" where the picture draws "?"; the seat's own
    # gold is read out
    stats = [name for _, name, _ in read if name.startswith("Power")]
    assert len(stats) == len(names), stats
    assert sum("gold hidden, squires hidden" in name for name in stats) == len(names) - 1, stats
    # the keyboard reaches a spot, and Enter opens its panel
    first = page.locator(".lb a.spot").first
    first.focus()
    place = page.evaluate("document.activeElement.dataset.place")
    assert place == first.get_attribute("data-place")
    page.keyboard.press("Enter")
    assert page.locator("section.subchoice:target").get_attribute("data-place") == place
    assert not run_axe(page), run_axe(page)
    context.close()
