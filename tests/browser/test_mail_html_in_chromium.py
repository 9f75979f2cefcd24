"""The HTML part of each kind of mail as a reader meets it: in Chromium at 320 px (a phone)
and at 1280 px, with images off (nothing is fetched at all), nothing wider than the window,
and the board's facts read back from the DOM the same as the text part states them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from pbem.app.bootstrap import build_service
from pbem.core.db import Database
from pbem.core.migrate import upgrade
from pbem.core.time_source import ManualClock
from tests.browser.conftest import screenshot
from tests.mail.board_facts import READERS
from tests.mail.helpers import MailWorld
from tests.mail.mail_kinds import KINDS, each_kind, lancelot_midgame
from tests.settings import mail_settings

#: The game whose board each kind of mail shows (the others show none).
BOARDS = {
    "turn-lancelot": "lancelot",
    "turn-lancelot-midgame": "lancelot",
    "turn-lancaster": "lancaster",
    "deadline": "lancelot",
    "reveal": "lancaster",
    "end": "lancelot",
}
WIDTHS = (320, 1280)


@pytest.fixture(scope="module")
def mails(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[str, str]]]:
    """(text part, HTML part) of one mail of each kind, made by a service on SQLite."""
    var = tmp_path_factory.mktemp("mailhtml")
    db = Database(f"sqlite:///{var / 'pbem.db'}")
    upgrade(db)
    clock = ManualClock(datetime(2025, 6, 2, 9, 0, tzinfo=UTC))
    settings = mail_settings(db.url, Path(var))
    world = MailWorld(db, settings, clock, build_service(settings, db=db, clock=clock))
    made = each_kind(world)
    made["turn-lancelot-midgame"] = lancelot_midgame(world)
    parts = {}
    for kind, mail in made.items():
        message = message_from_bytes(mail.message, policy=policy.default)
        assert isinstance(message, EmailMessage)
        text, html = (p.get_content() for p in message.iter_parts())
        parts[kind] = (text.replace("\r\n", "\n"), html)
    yield parts
    db.dispose()


def _open(browser: Any, html: str, width: int) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": width, "height": 900})
    asked: list[str] = []

    def refuse(route: Any) -> None:
        asked.append(route.request.url)
        route.abort()  # images off, and nothing else fetched either

    page.route("**/*", refuse)
    page.set_content(html, wait_until="load")
    return page, asked


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("kind", [*KINDS, "turn-lancelot-midgame"])
def test_each_mail_reads_whole_in_chromium(
    browser: Any, mails: dict[str, tuple[str, str]], kind: str, width: int
) -> None:
    text, html = mails[kind]
    page, asked = _open(browser, html, width)
    try:
        assert asked == [], f"the mail fetched {asked}"
        # Nothing sticks out of the window: no element's right edge past it, no scrolling.
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        wider = page.evaluate(
            """(width) => [...document.body.querySelectorAll('*')]
                .filter(e => e.getBoundingClientRect().right > width + 0.5)
                .map(e => e.tagName + ' ' + (e.textContent || '').slice(0, 40))""",
            width,
        )
        assert wider == [], wider
        game = BOARDS.get(kind)
        if game is not None:
            from_text, from_html = READERS[game]
            dom = page.content()  # the document as Chromium parsed it
            facts = from_html(dom)
            assert facts == from_text(text), kind
            assert len(facts["players"]) >= 2
            # Every square of a grid is drawn: a box of its own, seen.
            sizes = page.evaluate(
                """() => [...document.querySelectorAll('[data-square]')]
                    .map(e => e.getBoundingClientRect())
                    .map(r => Math.min(r.width, r.height))"""
            )
            assert all(size >= 14 for size in sizes), min(sizes, default=0)
        # Every link can be followed: on the page, with a box of its own.
        links = page.evaluate(
            """() => [...document.querySelectorAll('a')].map(a => {
                const r = a.getBoundingClientRect(); return [a.href, r.width, r.height]; })"""
        )
        assert all(w > 0 and h > 0 for _, w, h in links), links
        screenshot(page, f"mail-{kind}-{width}.png")
    finally:
        page.close()
