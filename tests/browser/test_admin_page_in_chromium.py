"""The administrator's page in Chromium, opened from the admin link shown at the game's
creation: a dispute seen with its evidence and upheld, a deadline extended, the game paused
and resumed, its time control changed, a seat resigned and the game ended, each said at the
top of the page; another game's admin link opens nothing. axe-core finds no serious
violation on it, nor on the other kinds of page changed with it (the /new form, a Lancelot
game with four players and the force of the King used); the Lancelot players table and
/new's time controls read whole at 390 px and 1280 px. Screenshots at both widths."""

from __future__ import annotations

import random
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from werkzeug.serving import make_server

from pbem.app.bootstrap import mail_dir
from pbem.mail.outbound.compose import invitation_link
from tests.browser.conftest import Site, no_horizontal_scroll, run_axe, screenshot
from tests.helpers import database_of
from web import create_app
from web.pages.common import ADMIN_KEY

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
WIDTHS = ((PHONE, "390"), (DESKTOP, "1280"))


def _send(page: Any, selector: str) -> str:
    """Click a form's button; the notice at the top of the page that answers it, in view."""
    with page.expect_navigation():
        page.click(selector)
    notice = page.locator("#notices [role=status], #notices [role=alert]").first
    notice.wait_for()
    box = notice.bounding_box()
    assert box is not None and box["y"] >= 0
    assert box["y"] + box["height"] <= page.viewport_size["height"]
    return str(notice.inner_text())


def _timed(site: Site, players: int = 3) -> Any:
    names = ["Ann", "Bob", "Guinevere", "Percival"][:players]
    return site.service.create_game(
        "lancelot", {}, [{"name": n} for n in names], time_control="48h"
    )


def test_the_administrator_acts_from_the_page(browser: Any, site: Site) -> None:
    svc = site.service
    for viewport, size in WIDTHS:
        g, other = _timed(site), _timed(site)
        first = min(svc.load(g.id).to_act)
        loaded = svc.load(g.id)
        svc.submit(g.id, first, loaded.legal(first)[0], expected_version=loaded.version,
                   channel="api")  # fmt: skip
        moved = svc.load(g.id).version
        svc.open_dispute(g.id, (first + 1) % 3, moved, moved, "That knight was not mine to lose",
                         channel="api")  # fmt: skip
        page = browser.new_context(viewport=viewport).new_page()
        page.goto(f"{site.url}/games/{g.id}/admin?admin={other.admin_token}")
        assert "not the game's admin token" in page.inner_text("main")
        page.goto(f"{site.url}/games/{g.id}/admin?admin={g.admin_token}")
        assert page.url.endswith(f"/games/{g.id}/admin")  # the token left the address
        assert "That knight was not mine to lose" in page.inner_text("#decide")
        assert "Legal actions then" in page.inner_text("#disputes")
        assert run_axe(page) == [], f"axe at {size}px"
        assert no_horizontal_scroll(page), f"the admin page overflows at {size}px"
        screenshot(page, f"admin-{size}.png")
        assert "upheld" in _send(page, "#decide button[value=uphold]")
        assert svc.disputes_of(g.id)[0]["status"] == "upheld"
        page.select_option("#extend-seat", str(first))
        page.fill("#extend-by", "nonsense")
        assert "Not done" in _send(page, "#extend-go")
        page.fill("#extend-by", "1d")
        assert "extended by 1 day" in _send(page, "#extend-go")
        assert "paused" in _send(page, "#pause")
        assert "resumed" in _send(page, "#resume")
        page.fill("#time-control", "fast")
        assert "next decision" in _send(page, "#time-control-go")
        page.select_option("#resign-seat", "2")
        assert "is resigned" in _send(page, "#resign-go")
        page.check("input[name=confirm]")
        assert "seed is revealed" in _send(page, "#end-game")
        assert svc.game_status(g.id)["finished"]
        screenshot(page, f"admin-done-{size}.png")
        page.context.close()


def test_the_lancelot_players_and_new_read_whole_at_both_widths(browser: Any, site: Site) -> None:
    svc = site.service
    names = [{"name": n} for n in ("Ann", "Bob", "Guinevere", "Percival")]
    g = svc.create_game("lancelot", {"variants": {"excalibur": True}}, names)
    rnd = random.Random(5)
    king = None
    for turn in range(40):
        loaded = svc.load(g.id)
        seat = min(loaded.to_act)
        legal = loaded.legal(seat)
        kings = [m for m in legal if m.startswith("king")]
        plain = [m for m in legal if not m.startswith("king")]
        move = kings[0] if kings and turn >= 6 else rnd.choice(plain)
        svc.submit(g.id, seat, move, expected_version=loaded.version, channel="api")
        if move.startswith("king"):
            king = move
            break
    assert king is not None, "no force of the King was offered"
    knight = king.split()[-1]
    for viewport, size in WIDTHS:
        page = browser.new_context(viewport=viewport).new_page()
        page.goto(f"{site.url}/games/{g.id}")
        # the force of the King's knight is marked as the last move, and Excalibur with it
        assert page.locator(f"g.knight[data-square={knight}][data-last]").count() == 1
        assert page.locator("g.excalibur[data-last]").count() == 1
        table = page.locator("table.scores")
        box = table.bounding_box()
        assert box is not None and box["x"] + box["width"] <= viewport["width"]
        holder = page.locator("section[aria-labelledby=players-h] .scroll")
        assert holder.evaluate("e => e.scrollWidth <= e.clientWidth"), f"clipped at {size}px"
        assert "unused" in table.inner_text() or "spent" in table.inner_text()
        assert run_axe(page) == []
        screenshot(page, f"lancelot-players-{size}.png")
        new = page.context.new_page()
        new.goto(f"{site.url}/new")
        select = new.locator("#time_control")
        assert select.evaluate("e => e.scrollWidth <= e.clientWidth"), f"/new clipped at {size}"
        assert no_horizontal_scroll(new)
        assert run_axe(new) == []
        screenshot(new, f"new-{size}.png")
        page.context.close()


@contextmanager
def _dev_site(site: Site) -> Iterator[str]:
    """The app as ``make run`` serves it, development pages on, listening on loopback, with
    one mail in its local folder: the address of that server."""
    settings = site.service.settings.with_changes(dev_pages=True)
    folder = Path(mail_dir(settings))
    folder.mkdir(parents=True, exist_ok=True)
    mail = EmailMessage()
    mail["From"] = "Lancelot by mail <play@example.org>"
    mail["To"] = "Ann <ann@example.org>"
    mail["Reply-To"] = "Lancelot by mail <play+abc@example.org>"
    mail["Subject"] = "Your turn in game 1234567890"
    mail["Message-ID"] = "<axe.1@example.org>"
    mail.set_content("Your turn. Reply with your move.\n")
    (folder / "axe-1.eml").write_bytes(mail.as_bytes())
    app = create_app(settings, site.service, host="127.0.0.1")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()
        thread.join(5)


def _holding_an_older_admin_token(site: Site, game_id: str) -> dict[str, str]:
    """A session cookie that holds an admin token the game no longer takes, as a browser
    keeps one (the service reissues none today; the cookie is made by the app itself)."""
    app = create_app(service=site.service)
    client = app.test_client()
    with client.session_transaction() as held:
        held[ADMIN_KEY] = {game_id: "an-older-admin-token"}
    cookie = client.get_cookie(app.config["SESSION_COOKIE_NAME"])
    assert cookie is not None
    return {"name": cookie.key, "value": cookie.value, "url": site.url}


def test_every_other_kind_of_page_has_no_serious_axe_violation(browser: Any, site: Site) -> None:
    """The kinds of page the tests above do not open: the list of games, the rules, the page
    that shows a new game's links, a refusal, the history, the audit, the receipt check, the
    questions asked before a link replaces the seat or admin link a browser holds, an
    invitation (waiting and accepted), the page a mail's confirmation link opens, and the
    local mail pages of development."""
    svc = site.service
    g = _timed(site, 2)
    other_admin = svc.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}])
    invited = svc.create_game(
        "lancelot", {}, [{"name": n, "email": f"{n.lower()}@example.org"} for n in ("Ann", "Bob")]
    )
    with database_of(svc).read() as session:
        invitations = [invitation_link(session, svc.settings, invited.id, s) for s in (0, 1)]
    svc.accept_invitation(invited.id, 1, channel="api")
    for viewport, size in WIDTHS:
        page = browser.new_context(viewport=viewport).new_page()
        page.goto(site.url + "/new")
        page.check("input[value=lancelot]")
        page.fill("#name0", "Ann")
        page.fill("#name1", "Bob")
        with page.expect_navigation():
            page.click("text=Create the game")
        assert page.locator("#admin-page").count() == 1  # the administrator's page's link
        assert run_axe(page) == [], ("created", size)
        screenshot(page, f"created-{size}.png")
        page.goto(f"{site.url}/games/{g.id}?token={g.seats[0].token}")
        page.goto(f"{site.url}/games/{g.id}?token={g.seats[1].token}")  # asks first
        assert page.locator("#switch-seat, form[action$='/seat']").count() == 1
        assert run_axe(page) == [], ("switch seat", size)
        assert no_horizontal_scroll(page), ("switch seat", size)
        page.context.add_cookies([_holding_an_older_admin_token(site, g.id)])
        page.goto(f"{site.url}/games/{g.id}?admin={g.admin_token}")  # asks first
        assert page.locator(f"form[action$='/games/{g.id}/admin']").count() == 1
        assert run_axe(page) == [], ("switch admin", size)
        assert no_horizontal_scroll(page), ("switch admin", size)
        page.goto(invitations[0])
        assert page.locator("#accept").count() == 1  # Ann's invitation waits
        assert run_axe(page) == [], ("invitation", size)
        assert no_horizontal_scroll(page), ("invitation", size)
        screenshot(page, f"invitation-{size}.png")
        for name, path in (
            ("index", "/"),
            ("rules-lancelot", "/rules/lancelot"),
            ("rules-lancaster", "/rules/lancaster"),
            ("rules-refused", "/rules/chess"),
            ("refused", "/games/0000000000"),
            ("history", f"/games/{g.id}/history"),
            ("audit", f"/games/{g.id}/audit"),
            ("receipt", f"/games/{g.id}/receipt?version=1&hash={'0' * 64}"),
            ("admin-refused", f"/games/{other_admin.id}/admin"),
            ("invitation-accepted", invitations[1].removeprefix(site.url)),
            ("mail-confirmation", "/inbound/confirm/abc/def"),
        ):
            page.goto(site.url + path)
            assert run_axe(page) == [], (name, size)
            assert no_horizontal_scroll(page), (name, size)
        page.goto(invitations[1])
        assert "accepted this invitation already" in page.inner_text("main")
        with _dev_site(site) as dev:
            for name, path in (("devmail", "/dev/mail"), ("devmail-mail", "/dev/mail/axe-1.eml")):
                page.goto(dev + path)
                assert run_axe(page) == [], (name, size)
                assert no_horizontal_scroll(page), (name, size)
            assert page.locator("textarea[name=text]").count() == 1  # the reply form
        page.context.close()


def test_the_buttons_of_the_pages_that_hold_a_link_work_in_chromium(
    browser: Any, site: Site
) -> None:
    """The invitation's accept button and the questions before a link replaces the seat or
    admin link a browser holds: pressed in Chromium, each does what it says. These pages
    hold a credential in their address; with "Referrer-Policy: no-referrer" Chromium posted
    their forms with "Origin: null" and every press was refused as cross-site."""
    svc = site.service
    g = _timed(site, 2)
    invited = svc.create_game(
        "lancelot", {}, [{"name": n, "email": f"{n.lower()}@example.org"} for n in ("Ann", "Bob")]
    )
    with database_of(svc).read() as session:
        link = invitation_link(session, svc.settings, invited.id, 0)
    page = browser.new_context().new_page()
    page.goto(link)
    with page.expect_navigation():
        page.click("#accept")
    assert "another site" not in page.inner_text("body")
    assert page.url.startswith(f"{site.url}/games/{invited.id}")
    assert svc.invitation_waiting(invited.id, 0) is False

    page.goto(f"{site.url}/games/{g.id}?token={g.seats[0].token}")
    page.goto(f"{site.url}/games/{g.id}?token={g.seats[1].token}")  # asks first
    with page.expect_navigation():
        page.click("#switch")
    assert "another site" not in page.inner_text("body")
    assert page.url == f"{site.url}/games/{g.id}"
    assert page.locator("#switch").count() == 0  # the browser now plays Bob's seat

    page.context.add_cookies([_holding_an_older_admin_token(site, g.id)])
    page.goto(f"{site.url}/games/{g.id}?admin={g.admin_token}")  # asks first
    with page.expect_navigation():
        page.click("#switch-admin")
    assert "another site" not in page.inner_text("body")
    assert page.locator("#admin-page").count() == 1  # the game's page, as its administrator
    page.close()
