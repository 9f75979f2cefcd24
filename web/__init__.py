"""The web layer: ``create_app(settings)`` builds the Flask app (no app at import time).

Blueprints: the JSON API (``web.api``, OpenAPI at ``/api/v1/openapi.json``), game
administration (``web.api.admin``), the inbound-mail webhook, the pages and the rules pages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask

    from pbem.app.config import Settings
    from pbem.app.service import GameService


def create_app(
    settings: Settings | None = None,
    service: GameService | None = None,
    *,
    host: str | None = None,
) -> Flask:
    """The app; ``service`` may be given (tests, benchmarks) to choose the registry.

    ``host`` is the address the server listens on, when the caller runs the server itself
    (``pbem serve``); a WSGI server such as gunicorn calls ``create_app()`` without it, and
    then the bind is unknown. The development pages need a known loopback address: with
    ``dev_pages`` on and any other ``host``, or none, this raises ``DevPagesRefused``.
    """
    # Imported here, not at the top: ``pbem``'s console command (web.cli) lives in this
    # package, and its commands other than ``serve`` start without Flask.
    from flask import Flask

    from pbem.app.bootstrap import build_service
    from pbem.app.config import load_settings
    from web.api.json_input import StrictRequest
    from web.browser_security import BrowserSecurity
    from web.errors import PbemApi, register_error_handlers
    from web.games import WEB_GAMES
    from web.numbers import WholeNumberConverter
    from web.pages.devmail import refuse_beyond_loopback
    from web.session_cookie import use_encrypted_sessions

    settings = settings or (service.settings if service else load_settings())
    if settings.dev_pages:
        refuse_beyond_loopback(host)  # before anything is built: a refusal at start
    app = Flask(__name__)
    # Before any route is added: every <int:…> of a path is read as the API reads numbers.
    app.url_map.converters["int"] = WholeNumberConverter
    app.config.update(
        SECRET_KEY=settings.secret_key,
        MAX_CONTENT_LENGTH=settings.max_content_length,
        JSON_SORT_KEYS=False,
        API_TITLE="pbem",
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api/v1",
        OPENAPI_JSON_PATH="openapi.json",
    )
    # Request JSON is read strictly (web.api.json_input): nothing unbounded gets past the door.
    app.request_class = StrictRequest
    app.extensions["pbem"] = service or build_service(settings)
    app.extensions["pbem_settings"] = settings
    use_encrypted_sessions(
        app, days=settings.session_days, secure=settings.base_url.startswith("https://")
    )
    # Every page's header links each game's rules: the games are web.games', not the templates'.
    app.jinja_env.globals["web_games"] = tuple(WEB_GAMES.values())
    security = BrowserSecurity()
    security.init_app(app, base_url=settings.base_url)

    import web.api.clock
    import web.api.disputes
    import web.api.handover
    import web.api.rematch
    import web.api.talk  # noqa: F401  (their routes join the API's blueprint)
    from web.api.admin import admin
    from web.api.routes import blp
    from web.api.webhooks import webhooks_api
    from web.inbound import inbound, receive_email
    from web.pages.devmail import devmail
    from web.pages.invitation import invitation
    from web.pages.routes import pages
    from web.pages.rules import rules_pages

    api = PbemApi(app)
    api.spec.components.security_scheme(
        "bearerAuth", {"type": "http", "scheme": "bearer", "description": "a seat token"}
    )
    api.register_blueprint(blp)
    app.register_blueprint(admin)  # /api/v1/games/<id>/admin/…: the admin token's uses
    app.register_blueprint(webhooks_api)  # /api/v1/games/<id>/…webhooks (docs/webhooks.md)
    app.register_blueprint(pages)
    app.register_blueprint(inbound)  # POST /inbound/email (mail)
    app.register_blueprint(invitation)  # /invitation/<id>: accepting an invitation
    app.register_blueprint(rules_pages)  # /rules/<game>: the documents mails link to
    if settings.dev_pages:
        app.register_blueprint(devmail)  # /dev/mail (mail, development only)
    # Programs call these, with a bearer token or the webhook's secret and no cookie: another
    # site's form can send neither, so they need no CSRF token.
    security.exempt(blp, admin, webhooks_api, receive_email)
    register_error_handlers(app)
    return app
