"""The pages as players use them, in Chromium: create a game on /new, play a whole Lancelot game
by clicking squares and a Lancaster round by clicking choices (each page refreshing itself
when another seat moves), step the history viewer through a finished game against the API,
and see the audit page name the first bad version of an altered log. axe-core checks the
pages; screenshots go to var/screenshots/ (or PBEM_SCREENSHOTS_DIR; see conftest.py).
"""

from __future__ import annotations

import random
import re
import sqlite3
from typing import Any

from tests.browser.conftest import Site, no_horizontal_scroll, run_axe, screenshot

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _version(page: Any) -> str:
    return str(page.evaluate("document.querySelector('main').dataset.version || 'over'"))


def _wait_moved(page: Any, version: str) -> None:
    """The page reloads itself (it polls) once the game is past ``version``."""
    # A function, not an expression: the page's Content-Security-Policy forbids eval. While
    # the page reloads itself there is a moment with no <main>: keep polling through it.
    page.wait_for_function(
        "(v) => { const m = document.querySelector('main');"
        " return m !== null && (m.dataset.version || 'over') !== v; }",
        arg=version,
        timeout=10_000,
    )
    page.wait_for_load_state()


def _open(browser: Any, link: str, viewport: dict[str, int] = DESKTOP) -> Any:
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(link)
    assert "?" not in page.url  # the credential was exchanged for a cookie
    return page


def _your_turn(pages: list[Any]) -> list[Any]:
    return [p for p in pages if p.title().startswith("Your turn")]


#: What a step reads of a seat's page, in one go (each question asked of the page on its own
#: is a round trip to Chromium): its title, the text of its <main> and the version it shows.
_PAGE_STATE = """() => {
    const main = document.querySelector('main');
    return {title: document.title, text: main.innerText, version: main.dataset.version || 'over'};
}"""


def test_a_lancelot_game_created_on_new_and_played_to_the_end_by_clicking(
    browser: Any, site: Site
) -> None:
    organiser = browser.new_context(viewport=DESKTOP).new_page()
    organiser.goto(site.url + "/new")
    organiser.check("input[value=lancelot]")
    organiser.fill("#name0", "Ann")
    organiser.fill("#name1", "Bob")
    organiser.fill("#email1", "not an address")
    organiser.click("text=Create the game")
    assert organiser.locator("#email1-error").is_visible()  # the error by its field
    assert organiser.input_value("#name1") == "Bob"
    organiser.fill("#email1", "")
    organiser.click("text=Create the game")
    organiser.locator(".seat-links a").first.wait_for()  # the created page (a loaded machine)
    links = organiser.locator(".seat-links a").evaluate_all("els => els.map(e => e.href)")
    assert len(links) == 2
    pages = [_open(browser, link) for link in links]
    gid = pages[0].url.rsplit("/", 1)[1]
    rnd = random.Random(7)
    moves = 0
    # Until the game is over (the service says so: asking each page's text at each move cost
    # two layouts of the page), a move by clicking on the page of the seat whose turn it is.
    while not site.service.load(gid).finished:
        (mover,) = _your_turn(pages)
        other = pages[1 - pages.index(mover)]
        before = _version(other)
        squares = mover.locator("button.sq")
        if squares.count():
            squares.nth(rnd.randrange(squares.count())).click()
        else:
            mover.locator("button[name=choice]").first.click()
        mover.wait_for_load_state()
        _wait_moved(other, before)  # the other page refreshed by itself
        moves += 1
        if moves == 6:
            screenshot(mover, "seat-lancelot-desktop.png")
            assert not run_axe(mover), run_axe(mover)
        assert moves < 200
    # both pages say so (the other one refreshed by itself after the last move)
    assert all("The game is over" in p.inner_text("main") for p in pages)
    final = site.service.load(gid)
    assert final.finished and final.version > moves
    phone = _open(browser, links[0], PHONE)
    assert no_horizontal_scroll(phone)
    assert "The game is over" in phone.inner_text("main")


def test_a_lancelot_page_fits_a_phone_and_plays_there(browser: Any, site: Site) -> None:
    created = site.service.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    for seat, square in ((0, "G7"), (1, "H7"), (0, "G8")):
        version = site.service.load(created.id).version
        site.service.submit(created.id, seat, square, expected_version=version, channel="api")
    page = _open(browser, f"{site.url}/games/{created.id}?token={created.seats[1].token}", PHONE)
    assert page.title().startswith("Your turn")
    assert no_horizontal_scroll(page)
    screenshot(page, "seat-lancelot-390.png")
    page.locator("button.sq[data-square='H8']").click()
    assert site.service.raw_events(created.id)[-1].data["canonical"] == "H8"


def _open_all_choices(page: Any) -> None:
    page.evaluate("document.querySelectorAll('.choices details').forEach(d => d.open = true)")


def _create_on_new(browser: Any, site: Site, game: str, names: list[str]) -> list[str]:
    """The organiser creates the game on /new; the seat links it shows, by seat."""
    organiser = browser.new_context(viewport=DESKTOP).new_page()
    organiser.goto(site.url + "/new")
    organiser.check(f"input[value={game}]")
    for i, name in enumerate(names):
        organiser.fill(f"#name{i}", name)
    organiser.click("text=Create the game")
    assert not organiser.locator("#base-url-note").count()  # opened where the links point
    links: list[str] = organiser.locator(".seat-links a").evaluate_all(
        "els => els.map(e => e.href)"
    )
    organiser.context.close()
    assert len(links) == len(names)
    return links


#: The phases of a Lancaster round the README shows a seat page of.
SHOWN_PHASES = ("setup", "parliament", "counties")


#: A seat named by its colour alone ("Waiting for Red to …"): the pages name players as the
#: mails do, "Ann (Red)".
_BARE_COLOUR = re.compile(r"\b(?:for|by) (?:Red|Blue|Yellow|Green|Purple)\b")


#: What a step of the history shows, read in one go: the (first) status line, how many log lines
#: are marked as the current version ``v``, and the text of <main>.
_HISTORY_STEP = """(v) => ({
    status: document.querySelector('.status').innerText,
    current: document.querySelectorAll(`li#v${v}.current`).length,
    text: document.querySelector('main').innerText,
})"""


def test_a_lancaster_round_from_new_to_the_audit_by_clicking(browser: Any, site: Site) -> None:
    """A newcomer's first round: create a 3-player game on /new, play round 1 from the three
    seat pages by clicking (extensions, placements, the parliament's votes, the laws, the
    county and castle rewards), each page refreshing itself when another moves; then step
    through it on the history page and see the chain verified on the audit page."""
    links = _create_on_new(browser, site, "lancaster", ["Ann", "Bob", "Cat"])
    pages = [_open(browser, link) for link in links]
    gid = pages[0].url.rsplit("/", 1)[1]
    rnd = random.Random(11)
    clicked_path = False
    shots = False
    phases: list[str] = []
    moves = 0
    while site.service.load(gid).view(None)["round"] == 1:
        states = [p.evaluate(_PAGE_STATE) for p in pages]
        movers = [
            p for p, st in zip(pages, states, strict=True) if st["title"].startswith("Your turn")
        ]
        assert movers, [st["title"] for st in states]
        mover = rnd.choice(movers)
        others = [p for p in pages if p is not mover]
        for page, st in zip(pages, states, strict=True):
            if page is not mover:
                assert not _BARE_COLOUR.search(st["text"]), st["text"]
        found = re.search(r"phase: (\w+)", states[pages.index(mover)]["text"])
        phase = found.group(1) if found else ""
        if phase not in phases:
            phases.append(phase)
            if phase in SHOWN_PHASES:
                screenshot(mover, f"round-{phase}.png")
        before = [st["version"] for p, st in zip(pages, states, strict=True) if p is not mover]
        # the list of choices (the drawn board's panels hold the same buttons, shown one
        # spot at a time: tests/browser/test_lancaster_board_in_chromium.py clicks those)
        buttons = mover.locator(".choices button[name=choice]")
        if phase == "setup":
            # Each extension button says which castle space it covers and what that gives.
            labels = buttons.evaluate_all("els => els.map(e => e.textContent.trim())")
            rewards = mover.locator(f"#player-{pages.index(mover)} ol.castle li").evaluate_all(
                "els => els.map(e => e.textContent.trim())"
            )
            assert len(labels) == 6 and all(
                label.startswith(f"Space {n}: ") and label.split(": ", 1)[1][:6] in rewards[n - 1]
                for n, label in enumerate(labels, 1)
            ), (labels, rewards)
        if phase == "parliament":
            labels = buttons.evaluate_all("els => els.map(e => e.textContent.trim())")
            assert all(
                re.fullmatch(r"Vote (yes|no)(, adding \d+ voting markers?)?", label)
                for label in labels
            ), labels
        if phase in ("setup", "parliament"):
            mover.set_viewport_size(PHONE)  # the longer buttons still fit a phone
            assert no_horizontal_scroll(mover)
            mover.set_viewport_size(DESKTOP)
        summaries = mover.locator(".choices details > summary")
        if not clicked_path and summaries.count():
            # A placement by its decisions: which knight, where, how many squires.
            mover.locator(".choices fieldset details > summary").first.click()
            inner = mover.locator(".choices details[open] details > summary")
            if inner.count():
                inner.first.click()
            buttons = mover.locator(".choices details[open] button[name=choice]:visible")
            if not shots:
                screenshot(mover, "seat-lancaster-desktop.png")
                assert not run_axe(mover), run_axe(mover)
                mover.set_viewport_size(PHONE)
                assert no_horizontal_scroll(mover)
                screenshot(mover, "seat-lancaster-390.png")
                mover.set_viewport_size(DESKTOP)
                shots = True
            buttons.first.click()
            clicked_path = True
        else:
            _open_all_choices(mover)
            buttons.nth(rnd.randrange(buttons.count())).click()
        mover.wait_for_load_state()
        assert not mover.locator("#error").count(), mover.inner_text("#error")
        for page, version in zip(others, before, strict=True):
            _wait_moved(page, version)  # every other page refreshed by itself
        moves += 1
        assert moves < 120
    assert clicked_path and shots
    assert phases[:3] == ["setup", "placement", "parliament"], phases
    assert {"counties", "castles"} <= set(phases), phases

    # The history, stepped from the first version to the last as Ann saw it.
    head = site.service.load(gid).version
    ann = pages[0]
    ann.goto(f"{site.url}/games/{gid}/history?at=1")
    for version in range(1, head + 1):
        step = ann.evaluate(_HISTORY_STEP, version)
        assert f"Version {version} of {head}" in step["status"]
        assert step["current"] == 1
        assert not _BARE_COLOUR.search(step["text"])
        if version < head:
            ann.click("text=Next ▶")
            # the whole next page (its log comes after the drawn board)
            ann.wait_for_load_state()
    # The audit page: the chain verified, one row per event, each named as in the mails.
    ann.goto(f"{site.url}/games/{gid}/audit")
    assert "Verified" in ann.inner_text("#chain-result")
    assert ann.locator("table.audit tbody tr").count() == head
    audit_text = ann.inner_text("table.audit")
    assert site.service.load(gid).names.of(0) in audit_text and "seat 0" not in audit_text


#: What a step of a Lancelot game's history shows, read in one go: the (first) status line, each
#: square of the drawn board with the seat whose knight is on it ('X' for a neutral one), and
#: how many log lines are marked as the current version ``v``.
_HISTORY_BOARD = """(v) => ({
    status: document.querySelector('.status').innerText,
    board: [...document.querySelectorAll('.lboard g[data-square]')]
        .map(e => [e.dataset.square, e.dataset.seat === undefined ? 'X' : +e.dataset.seat]),
    current: document.querySelectorAll(`li#v${v}.current`).length,
})"""


def test_the_history_viewer_shows_every_version_as_the_api_does(browser: Any, site: Site) -> None:
    svc = site.service
    created = svc.create_game(
        "lancelot", {"variants": {"excalibur": True}}, [{"name": "Ann"}, {"name": "Bob"}]
    )
    gid = created.id
    rnd = random.Random(3)
    while not (loaded := svc.load(gid)).finished:
        seat = min(loaded.to_act)
        svc.submit(
            gid,
            seat,
            rnd.choice(loaded.legal(seat)),
            expected_version=loaded.version,
            channel="api",
        )
    head = svc.load(gid).version
    token = created.seats[1].token
    page = _open(browser, f"{site.url}/games/{gid}?token={token}")
    page.goto(f"{site.url}/games/{gid}/history?at=1")
    api = page.context.request
    for version in range(1, head + 1):
        step = page.evaluate(_HISTORY_BOARD, version)
        assert f"Version {version} of {head}" in step["status"]
        state = api.get(
            f"{site.url}/api/v1/games/{gid}/state?at={version}",
            headers={"Authorization": f"Bearer {token}"},
        ).json()
        assert dict(step["board"]) == state["view"]["board"], version
        assert step["current"] == 1
        if version == head // 2:
            screenshot(page, "history.png")
            assert not run_axe(page), run_axe(page)
        if version < head:
            page.click("text=Next ▶")
            page.wait_for_load_state()  # the next page whole before it is read in one go
    # The slider and "since your last move" go where they say.
    page.fill("#at-slider", "5")
    page.click("form.stepper button")
    assert "Version 5 of" in page.inner_text(".status")
    page.click("text=Since your last move")
    bobs_last = max(
        e.version for e in svc.raw_events(gid) if e.type == "ActionApplied" and e.data["seat"] == 1
    )
    assert f"Version {bobs_last + 1} of {head}" in page.inner_text(".status")


def test_the_audit_page_names_the_first_bad_version_of_an_altered_log(
    browser: Any, site: Site
) -> None:
    svc = site.service
    created = svc.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    gid = created.id
    for n in range(8):
        loaded = svc.load(gid)
        seat = min(loaded.to_act)
        svc.submit(
            gid, seat, loaded.legal(seat)[n * 3], expected_version=loaded.version, channel="web"
        )
    page = _open(browser, f"{site.url}/games/{gid}?token={created.seats[0].token}")
    page.goto(f"{site.url}/games/{gid}/audit")
    assert "Verified" in page.inner_text("#chain-result")
    screenshot(page, "audit.png")
    assert not run_axe(page), run_axe(page)
    # Someone with the database changes what seat 1 typed at version 6.
    database = site.service.settings.database_url.removeprefix("sqlite:///")
    with sqlite3.connect(database) as db:
        (data,) = db.execute(
            "SELECT data FROM events WHERE game_id = ? AND version = 6", (gid,)
        ).fetchone()
        db.execute(
            "UPDATE events SET data = ? WHERE game_id = ? AND version = 6",
            (data.replace('"channel":"web"', '"channel":"cli"'), gid),
        )
    page.reload()
    result = page.inner_text("#chain-result")
    assert "first bad version 6" in result, result
    assert page.locator("tr#v6.bad").count() == 1


def test_enter_in_the_typed_move_box_plays_what_was_typed(browser: Any, site: Site) -> None:
    # The board's square and choice buttons submit the same form and come before the box:
    # Enter once played the first of them instead of the typed move.
    for game, typed, canonical in (  # (a button for each, the first of them another move)
        ("lancelot", "J6", "J6"),
        ("lancaster", "extension 4", "extension 4"),  # both seats choose: buttons 1 to 6
    ):
        created = site.service.create_game(game, {}, [{"name": "Ann"}, {"name": "Bob"}])
        loaded = site.service.load(created.id)
        seat = min(loaded.to_act)
        page = _open(browser, f"{site.url}/games/{created.id}?token={created.seats[seat].token}")
        try:
            # A board button comes first, and plays another move than the one typed.
            first = page.locator("button[name=choice]").first.get_attribute("value")
            assert first is not None and first != typed
            page.fill("#action", typed)
            with page.expect_navigation():
                page.press("#action", "Enter")
            event = site.service.raw_events(created.id)[-1].data
            assert (event.get("text"), event.get("canonical")) == (typed, canonical), (game, event)
        finally:
            page.context.close()


def test_a_seat_takes_its_move_back_and_asks_the_others_on_its_page(
    browser: Any, site: Site
) -> None:
    """Straight away while nobody moved since; once another seat moved, a request that the
    other seat answers on its own page, after which both moves are taken back."""
    created = site.service.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    link = f"{site.url}/games/{created.id}?token="
    ann, bob = (_open(browser, link + s.token) for s in created.seats)

    def now() -> int:
        return site.service.load(created.id).version

    try:
        ann.locator("button.sq[data-square='G7']").click()
        ann.click("text=Take back my last move")
        events = site.service.raw_events(created.id)
        assert events[-1].type == "ActionsRetracted"  # nobody else had moved
        # One version taken back: "version 3", not "versions 3".
        assert "Back to version 2: version 3 retracted" in ann.locator("ol.log").inner_text()
        assert ann.title().startswith("Your turn")
        ann.locator("button.sq[data-square='G8']").click()
        version = now()
        _wait_at(bob, version)  # the page reloads itself when the game moves
        bob.locator("button.sq[data-square='H8']").click()
        _wait_at(ann, now())
        ann.click("text=Take back my last move")
        assert site.service.raw_events(created.id)[-1].type == "UndoRequested"
        card = ann.locator("#undo .card").inner_text()
        assert "Ann (Red) asks to take the game back to version" in card
        assert "Waiting for: Bob (Blue)" in card
        assert not ann.locator("text=Agree: take the moves back").count()  # not hers to answer
        _wait_at(bob, now())
        run_axe(bob)
        screenshot(bob, "seat-undo-request.png")
        bob.click("text=Agree: take the moves back")
        assert site.service.raw_events(created.id)[-1].type == "ActionsRetracted"
        assert now() > version
        assert site.service.undo_request(created.id) is None
        # Back to Ann's turn before her G8: G8 is free again.
        _wait_at(ann, now())
        assert ann.title().startswith("Your turn")
        assert ann.locator("button.sq[data-square='G8']").count() == 1
        # Nothing of hers is left to take back: the page offers nothing.
        assert ann.locator("text=Take back my last move").count() == 0
    finally:
        ann.context.close()
        bob.context.close()


def _wait_at(page: Any, version: int) -> None:
    """The page shows ``version`` (it reloads itself, polling, when the game moves)."""
    page.wait_for_function(
        "(v) => { const m = document.querySelector('main');"
        " return m !== null && m.dataset.version === v; }",
        arg=str(version),
        timeout=10_000,
    )
    page.wait_for_load_state()
