"""The mail's player commands on the seat's page, in Chromium, as a player opening the link
of a mail: a standing order set, seen and cleared, away and back, a pause asked for and
agreed on the other seat's page, the time zone and the digest; each said at the top of the
page, in view after the redirect. A form sent from another site is refused. A finished
Lancelot game shows who won and the record checked, and its download verifies. axe-core
finds no serious violation; screenshots at 390 px and 1280 px (conftest.py says where).
"""

from __future__ import annotations

from typing import Any

from pbem.audit.verify import verify_file
from tests.browser.conftest import Site, no_horizontal_scroll, run_axe, screenshot

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
_n = iter(range(1000))


def _game(site: Site, **config: Any) -> Any:
    """A timed Lancelot game whose seats have addresses and have accepted."""
    n = next(_n)
    svc = site.service
    seats = [{"name": name, "email": f"{name.lower()}{n}@example.org"} for name in ("Ann", "Bob")]
    created = svc.create_game("lancelot", config, seats, time_control="48h")
    for seat in range(2):
        svc.accept_invitation(created.id, seat, channel="web")
    return created


def _by_mail(browser: Any, site: Site, game_id: str, seat: int, viewport: dict[str, int]) -> Any:
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(site.service.seat_link(game_id, seat))
    assert "?" not in page.url  # the link was exchanged for the session cookie
    return page


def _send(page: Any, selector: str) -> None:
    """Click a form's button and wait for the page that answers it."""
    with page.expect_navigation():
        page.click(selector)


def _notice_in_view(page: Any) -> str:
    """The notice at the top of the page, where the person is looking after the form."""
    notice = page.locator("#notices [role=status]").first
    notice.wait_for()
    # in view: neither above the window nor below the fold (where the form was)
    box = notice.bounding_box()
    assert box is not None and box["y"] >= 0
    assert box["y"] + box["height"] <= page.viewport_size["height"]
    return str(notice.inner_text())


def _alert_in_view(page: Any) -> str:
    alert = page.locator("#notices [role=alert]").first
    alert.wait_for()
    box = alert.bounding_box()
    assert box is not None and box["y"] >= 0
    assert box["y"] + box["height"] <= page.viewport_size["height"]
    return str(alert.inner_text())


def test_every_player_command_on_the_page_answers_at_the_top(browser: Any, site: Site) -> None:
    g = _game(site, variants={"excalibur": True})
    # the seat that owes the first move: its standing order is checked now
    first = min(site.service.load(g.id).to_act)
    for viewport, size in ((PHONE, "390"), (DESKTOP, "1280")):
        ann = _by_mail(browser, site, g.id, first, viewport)
        ann.locator("#standing-order summary").click()
        ann.fill("#order", "no such move")
        _send(ann, "text=Set the standing order")
        assert "standing order was not set" in _alert_in_view(ann)
        # the refusal kept the form open, with what was typed
        assert ann.input_value("#order") == "no such move"
        move = site.service.load(g.id).legal(first)[0]
        ann.fill("#order", move)
        _send(ann, "text=Set the standing order")
        assert "Standing order set" in _notice_in_view(ann)
        assert move in ann.inner_text("#standing-order summary")
        ann.locator("#standing-order summary").click()
        _send(ann, "text=Clear it")
        assert "cleared" in _notice_in_view(ann)
        ann.locator("#preferences summary").click()
        ann.fill("#zone", "Europe/Paris")
        _send(ann, "text=Set the time zone")
        assert "Europe/Paris" in _notice_in_view(ann)
        assert "Europe/Paris" in ann.inner_text("#preferences summary")
        ann.locator("#preferences summary").click()
        _send(ann, "text=One digest mail a day instead")
        assert "Daily digest on" in _notice_in_view(ann)
        ann.locator("#preferences summary").click()
        _send(ann, "text=A mail at each of my turns")
        assert "Daily digest off" in _notice_in_view(ann)
        ann.locator("#away summary").click()
        ann.fill("#until", "2026-12-24")
        _send(ann, "text=Go away")
        assert "You are away until" in _notice_in_view(ann)  # the mail answer's words
        assert "You are away until" in ann.inner_text("#clock")
        for details in ("#standing-order", "#away", "#ask", "#preferences"):
            ann.locator(f"{details} summary").click()
        assert run_axe(ann) == [], f"axe at {size}px"
        assert no_horizontal_scroll(ann), f"the settings overflow at {size}px"
        screenshot(ann, f"player-commands-{size}.png")
        _send(ann, "#come-back")
        assert "Welcome back" in _notice_in_view(ann)
        # A pause asked for, agreed on Bob's page.
        ann.locator("#ask summary").click()
        _send(ann, "text=Ask to pause the game")
        assert "asked the others to pause" in _notice_in_view(ann)
        bob = _by_mail(browser, site, g.id, 1 - first, viewport)
        assert "Pause requested" in bob.inner_text("#clock-request")
        screenshot(bob, f"clock-request-{size}.png")
        assert run_axe(bob) == []
        _send(bob, "#clock-request button[name=agree][value=yes]")
        assert "Granted" in _notice_in_view(bob)
        assert "The game is paused" in bob.inner_text("#clock")
        # and resumed again, so the next width starts from the same game
        bob.locator("#ask summary").click()
        _send(bob, "text=Ask to resume the game")
        # Ann's page reloads itself when the game moves (it polls): the request shows there
        agree = ann.locator("#clock-request button[name=agree][value=yes]")
        agree.wait_for()
        ann.wait_for_load_state()
        with ann.expect_navigation():
            agree.click()
        assert "Granted" in _notice_in_view(ann)
        ann.context.close()
        bob.context.close()


def test_a_refused_take_back_is_in_view_and_a_cross_site_form_does_nothing(
    browser: Any, site: Site
) -> None:
    g = _game(site)
    svc = site.service
    first = min(svc.load(g.id).to_act)
    ann = _by_mail(browser, site, g.id, first, PHONE)
    with ann.expect_navigation():
        ann.locator("button.sq").first.click()
    # The page no longer hears of the game moving (as if Ann were offline a while); Bob
    # moves meanwhile.
    ann.route("**/status.json", lambda route: route.abort())
    loaded = svc.load(g.id)
    svc.submit(g.id, 1 - first, loaded.legal(1 - first)[0], expected_version=loaded.version,
               channel="api")  # fmt: skip
    # Taking back what Ann did not see is refused: said at the top, in view.
    ann.locator("#undo").scroll_into_view_if_needed()
    _send(ann, "text=Take back my last move")
    assert "Not done" in _alert_in_view(ann)
    screenshot(ann, "take-back-refused-390.png")
    # Another site's page posting to the seat's form: refused, nothing recorded.
    before = site.service.load(g.id).version
    evil = ann.context.new_page()
    evil.set_content(
        f'<form method="post" action="{site.url}/games/{g.id}/time-zone">'
        '<input name="zone" value="Asia/Tokyo"><button id="go">go</button></form>'
    )
    evil.click("#go")
    evil.wait_for_load_state()
    assert "sent from another site" in evil.inner_text("body") or "expired" in evil.inner_text(
        "body"
    )
    assert site.service.load(g.id).version == before
    assert site.service.time_zone(g.seats[0].email) is None


def test_the_end_of_a_lancelot_game_says_who_won_and_its_record_verifies(
    browser: Any, site: Site, tmp_path: Any
) -> None:
    g = _game(site)
    svc = site.service
    # Bob resigns: Ann wins, and the game's seed is revealed.
    svc.resign(g.id, 1, channel="api")
    assert svc.game_status(g.id)["finished"]
    for viewport, size in ((PHONE, "390"), (DESKTOP, "1280")):
        ann = _by_mail(browser, site, g.id, 0, viewport)
        assert "The game is over" in ann.inner_text(".status")
        result = ann.inner_text("#outcome")
        assert "You won" in result or "Nobody won" in result
        assert "The record checks" in ann.inner_text("#verification")
        assert run_axe(ann) == []
        assert no_horizontal_scroll(ann)
        screenshot(ann, f"game-over-{size}.png")
        with ann.expect_download() as download:
            ann.click("#export")
        path = tmp_path / f"ann-{size}.json"
        download.value.save_as(path)
        report = verify_file(path)
        assert report.ok, report.problems
        assert report.finished
        ann.context.close()
