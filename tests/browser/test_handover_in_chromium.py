"""Substitutes in Chromium: the administrator hands a seat over from the admin page, the
newcomer takes it over from the link in their invitation (a page that asks, a button that
accepts) and lands on the seat's page, while the old player's browser no longer holds the seat
and the old seat link says it was replaced; in another game a seat proposes a substitute for
a seat that missed its deadlines, a form posted from another origin to agree is refused with
nothing changed, and the third seat's button agrees. axe-core finds no serious violation on
the pages; screenshots of each."""

from __future__ import annotations

import re
from typing import Any

from sqlmodel import col, select

from pbem.clock import events as ce
from pbem.mail.models import OutboxMail
from tests.browser.conftest import Site, run_axe, screenshot
from tests.browser.test_cross_site_forms_in_chromium import attacker  # noqa: F401  (fixture)
from tests.helpers import database_of
from tests.mail.helpers import text_part

DESKTOP = {"width": 1280, "height": 900}

AGREE = """<!doctype html><html><body>
<form id="f" method="post" action="{target}"><input type="hidden" name="agree" value="yes"></form>
<script>document.getElementById("f").submit();</script>
</body></html>"""


def _game(site: Site) -> Any:
    names = ["Ann", "Bob", "Guinevere"]
    return site.service.create_game(
        "lancelot", {}, [{"name": n} for n in names], time_control="48h"
    )


def _accept_path(site: Site, game_id: str) -> str:
    with database_of(site.service).read() as session:
        mail = session.exec(
            select(OutboxMail)
            .where(OutboxMail.game_id == game_id, OutboxMail.kind == "substitute")
            .order_by(col(OutboxMail.created_at).desc())
        ).first()
        assert mail is not None
        text = text_part(mail.message)
    found = re.search(rf"/handover/{game_id}\?link=[a-z0-9]+", text)
    assert found
    return found.group(0)


def _send(page: Any, selector: str) -> str:
    with page.expect_navigation():
        page.click(selector)
    notice = page.locator("#notices [role=status], #notices [role=alert]").first
    notice.wait_for()
    return str(notice.inner_text())


def test_the_administrator_hands_a_seat_over_and_the_newcomer_takes_it(
    browser: Any, site: Site
) -> None:
    g = _game(site)
    svc = site.service
    old = browser.new_context(viewport=DESKTOP).new_page()
    old.goto(f"{site.url}/games/{g.id}?token={g.seats[1].token}")
    assert "Bob" in old.inner_text("main")

    admin = browser.new_context(viewport=DESKTOP).new_page()
    admin.goto(f"{site.url}/games/{g.id}/admin?admin={g.admin_token}")
    admin.select_option("#substitute-seat", "1")
    admin.fill("#substitute-name", "Dan")
    admin.fill("#substitute-email", "dan@example.org")
    assert "Dan is invited" in _send(admin, "#substitute-go")
    screenshot(admin, "handover-admin.png")
    assert svc.seat_info(g.id, 1).name == "Bob"

    newcomer = browser.new_context(viewport=DESKTOP).new_page()
    newcomer.goto(site.url + _accept_path(site, g.id))
    assert "played until now by Bob" in newcomer.inner_text("main")
    assert run_axe(newcomer) == []
    screenshot(newcomer, "handover-invitation.png")
    with newcomer.expect_navigation():
        newcomer.click("#take-over")
    newcomer.wait_for_load_state()
    assert "?" not in newcomer.url and "Dan" in newcomer.inner_text("main")
    assert svc.seat_info(g.id, 1).name == "Dan"
    assert run_axe(newcomer) == []
    screenshot(newcomer, "handover-newcomer-seat.png")

    # The old player's browser no longer holds the seat; the old seat link says why.
    old.reload()
    assert not old.title().startswith("Your turn")
    assert not old.locator("#substitute-go").count()
    old.goto(f"{site.url}/games/{g.id}?token={g.seats[1].token}")
    assert "replaced" in old.inner_text("main")
    audit = browser.new_context(viewport=DESKTOP).new_page()
    audit.goto(f"{site.url}/games/{g.id}/audit")
    players = audit.inner_text("#players")
    assert "Bob, versions 1 to" in players and "Dan, from version" in players
    screenshot(audit, "handover-audit.png")


def test_a_seat_proposes_and_another_agrees_on_the_page(
    browser: Any,
    site: Site,
    attacker: dict[str, str],  # noqa: F811
) -> None:
    g = _game(site)
    svc = site.service
    for due in ("2026-03-02T09:00:00.000000Z", "2026-03-04T09:00:00.000000Z"):
        with svc.parts.transactions.on(g.id) as work:  # Ann missed two deadlines
            missed = ce.DeadlineMissed(seat=0, due_at=due, move=False, reason="waiting")
            work.append([missed], work.state, lapse=False)
    context = browser.new_context(viewport=DESKTOP)
    bob = context.new_page()
    bob.goto(f"{site.url}/games/{g.id}?token={g.seats[1].token}")
    bob.click("#substitute summary")
    bob.select_option("#substitute-seat", "0")
    bob.fill("#substitute-name", "Dan")
    bob.fill("#substitute-email", "dan@example.org")
    assert "Proposed Dan" in _send(bob, "#substitute-go")
    waiting = svc.substitute_waiting(g.id)
    assert waiting is not None

    third = browser.new_context(viewport=DESKTOP)
    gwen = third.new_page()
    gwen.goto(f"{site.url}/games/{g.id}?token={g.seats[2].token}")
    assert "proposes Dan" in gwen.inner_text("#substitute")
    assert run_axe(gwen) == []
    screenshot(gwen, "handover-proposal.png")
    # A form posted from another origin, with Gwen's cookie, is refused; nothing changes.
    version = svc.load(g.id).version
    target = f"{site.url}/games/{g.id}/substitute/{waiting['proposal']}/decision"
    attacker["/"] = AGREE.format(target=target)
    victim = third.new_page()
    with victim.expect_navigation(url=target):
        victim.goto(attacker["origin"] + "/")
    assert "sent from another site, so nothing was done" in victim.content()
    assert svc.load(g.id).version == version
    assert "every player has" in _send(gwen, "#substitute-agree")
    assert _accept_path(site, g.id)
