"""What keeps another site from acting through a visitor's browser, and a page from being
framed or leaking its address.

- Every state-changing request to the pages carries a CSRF token (Flask-WTF's
  ``CSRFProtect``; each form has ``{{ csrf_token() }}``) and must come from the service's own
  origin: a browser's ``Sec-Fetch-Site`` must say ``same-origin`` (or ``none``, a person's own
  action), and an ``Origin`` header must be this site's. A request with neither header is not
  a modern browser's form; the token still has to be right.
- The JSON API (a bearer token in ``Authorization``, which another site's form cannot send,
  and no cookie) and the inbound-mail webhook (its own secret) are exempt: programs call them.
- Every answer, page, API or error, says: no inline script (``Content-Security-Policy``), no
  framing (``frame-ancestors 'none'``, ``X-Frame-Options``), no content sniffing, and no
  ``Referer`` beyond this site, so seat links never reach another site.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, current_app, render_template, request, url_for
from flask_wtf.csrf import CSRFError, CSRFProtect

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        # The pages draw with inline SVG and show no picture from elsewhere; no plugin ever.
        "img-src 'self'",
        "object-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
    )
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}

#: What a browser says of a request it was asked to make by this site itself, or by the
#: person (a bookmark, the address bar).
OWN_FETCH_SITES = ("same-origin", "none")
#: Methods that change nothing (RFC 9110, safe methods): the checks leave them be.
SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")

CROSS_SITE = (
    "This form was sent from another site, so nothing was done: a page elsewhere cannot act "
    "for you here. If it was you, open the game's page on this site and use its form."
)
STALE_FORM = (
    "This form has expired or did not come from this site's page, so nothing was done. "
    "Open {where} again and try again from there."
)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


class BrowserSecurity:
    """The checks and headers above, on one app; ``exempt`` names the blueprints and views
    that programs call (both checks leave them be)."""

    def __init__(self) -> None:
        self.csrf = CSRFProtect()
        self._exempt_blueprints: set[str] = set()
        self._exempt_endpoints: set[str] = set()

    def init_app(self, app: Flask, *, base_url: str) -> None:
        app.config.update(
            # A token lasts as long as the session holding it: a seat page left open over a
            # night must still post its move (the session cookie has its own lifetime).
            WTF_CSRF_TIME_LIMIT=None,
            # Flask-WTF would also refuse an HTTPS post without a Referer: the Origin and
            # Sec-Fetch-Site check below covers the same ground without turning away a person
            # whose browser leaves the Referer out.
            WTF_CSRF_SSL_STRICT=False,
        )
        own = {_origin(base_url)}

        # Before Flask-WTF's own check: a cross-site post is told so, not "expired".
        @app.before_request
        def _same_origin_only() -> Any:
            if request.method in SAFE_METHODS or self._is_exempt():
                return None
            site = request.headers.get("Sec-Fetch-Site")
            if site is not None and site.lower() not in OWN_FETCH_SITES:
                return _refused(CROSS_SITE, 403)
            origin = request.headers.get("Origin")
            if origin is not None and origin.lower() not in own | {_origin(request.host_url)}:
                return _refused(CROSS_SITE, 403)
            return None

        self.csrf.init_app(app)

        @app.errorhandler(CSRFError)
        def _csrf_refused(error: CSRFError) -> Any:
            return _refused(STALE_FORM, 400)

        @app.after_request
        def _security_headers(response: Response) -> Response:
            for name, value in SECURITY_HEADERS.items():
                # A page may ask for more (the invitation page sends no Referer at all).
                response.headers.setdefault(name, value)
            return response

    def exempt(self, *views: Blueprint | Any) -> None:
        for view in views:
            self.csrf.exempt(view)
            if isinstance(view, Blueprint):
                self._exempt_blueprints.add(view.name)
            else:
                self._exempt_endpoints.add(f"{view.__module__}.{view.__name__}")

    def _is_exempt(self) -> bool:
        if request.blueprint in self._exempt_blueprints:
            return True
        view = current_app.view_functions.get(request.endpoint or "")
        return view is not None and f"{view.__module__}.{view.__name__}" in self._exempt_endpoints


def _refused(message: str, status: int) -> Any:
    # The answer to a post: reloading it would send the same form again, so the page leads
    # back to where a fresh form is (the game's page, or the form's own page, as /new).
    game_id = (request.view_args or {}).get("game_id")
    back: str | None = None
    if game_id is not None:
        back, back_text = url_for("pages.game_page", game_id=game_id), "Back to the game"
        where = "the game's page"
    else:
        back_text, where = "Back to the form", "the form"
        if current_app.url_map.bind_to_environ(request.environ).test(request.path, "GET"):
            back = request.path  # not a post-only address, which would only answer 405
    page = render_template(
        "refused.html",
        message=message.format(where=where),
        status=status,
        heading="Nothing was done",
        back=back,
        back_text=back_text,
    )
    return page, status
