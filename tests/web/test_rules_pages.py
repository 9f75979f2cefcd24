"""The rules and notation pages every turn mail links to: rendered from the shipped Markdown
documents, with nothing of a document's raw HTML reaching the page."""

from __future__ import annotations

from flask.testing import FlaskClient

from pbem.core.resources import document


def test_the_lancaster_page_renders_the_notation_document(client: FlaskClient) -> None:
    page = client.get("/rules/lancaster")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    # The first heading of the shipped document, as an HTML heading.
    heading = next(
        line.lstrip("# ").strip()
        for line in document("lancaster-notation").splitlines()
        if line.startswith("# ")
    )
    assert f"<h1>{heading}</h1>" in html
    assert "<table>" in html or "<code>" in html  # Markdown was rendered, not shown raw


def test_the_lancelot_page_renders_its_rules(client: FlaskClient) -> None:
    page = client.get("/rules/lancelot")
    assert page.status_code == 200
    assert "<h1>" in page.get_data(as_text=True)


def test_an_unknown_game_is_a_404_that_names_the_pages(client: FlaskClient) -> None:
    # "mail": docs/mail.md ships too, but it is no game's rules page.
    for path in ("/rules/chess", "/rules/mail", "/rules/lancaster-notation"):
        page = client.get(path)
        assert page.status_code == 404, path
        html = page.get_data(as_text=True)
        assert "There is no rules page for a game called" in html
        assert "/rules/lancaster and /rules/lancelot" in html
    assert client.get("/rules/..%2Fpyproject").status_code == 404


def test_raw_html_in_a_document_is_shown_as_text() -> None:
    from web.pages.rules import _markdown

    html = _markdown().render(
        "# T\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <b>bold</b>\n"
    )
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript:' not in html and "<b>" not in html
