"""A mail's receipt checked in Chromium: from the audit page's link, the form takes the version
and head hash a mail ended with and answers ✔; a hash that is not the chain's answers ✘. The
page is checked by axe-core."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Site, run_axe
from tests.browser.test_pages_in_chromium import DESKTOP


def test_a_receipt_checked_with_the_form_linked_from_the_audit_page(
    browser: Any, site: Site
) -> None:
    svc = site.service
    gid = svc.create_game("lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}]).id
    svc.submit(gid, 0, "E5", expected_version=2, channel="web")
    receipt = svc.load(gid)  # what the mail after Ann's move ended with
    svc.submit(gid, 1, "F6", expected_version=3, channel="web")
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(f"{site.url}/games/{gid}/audit")
    with page.expect_navigation():
        page.click("#check-receipt")
    page.fill("#version", str(receipt.version))
    page.fill("#hash", receipt.head_hash)
    with page.expect_navigation():  # the form's GET: a new page with the answer
        page.click("#check")
    answer = page.inner_text("#receipt-result")
    assert answer.startswith("✔") and f"Version {receipt.version} of game {gid}" in answer
    assert not run_axe(page), run_axe(page)
    page.fill("#hash", svc.load(gid).head_hash)  # the head now, not at version 3
    with page.expect_navigation():  # the form's GET: a new page with the answer
        page.click("#check")
    assert page.inner_text("#receipt-result").startswith("✘")
