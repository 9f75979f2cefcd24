"""The inbound-mail webhook: ``POST /inbound/email`` with the raw RFC 822 message as the body.

The shape that providers' inbound routes and an MTA (``curl --data-binary @-``) can feed:
authenticated by ``Authorization: Bearer <PBEM_INBOUND_SECRET>``, limited to
``mail.max_inbound_bytes``. Form posts are accepted too, with the raw message in a field
named ``body-mime``, ``email``, ``message`` or ``raw`` (the names providers use).

The answer is 200 once the message is stored, whatever its outcome (a provider must not
retry a message we have: that would be a duplicate, which we would ignore anyway).

Also here: the confirmation link of a message held because it came from another address.
"""

from __future__ import annotations

import hmac
from typing import Any

from flask import Blueprint, current_app, jsonify, render_template_string, request
from werkzeug.exceptions import RequestEntityTooLarge

from pbem.app.bootstrap import build_inbound
from pbem.app.config import Settings
from pbem.mail.inbound.pipeline import Inbound, TooLarge, key_from_url

inbound = Blueprint("inbound", __name__)

FORM_FIELDS = ("body-mime", "email", "message", "raw")


def _settings() -> Settings:
    settings: Settings = current_app.extensions["pbem_settings"]
    return settings


def pipeline() -> Inbound:
    """The app's inbound pipeline (one per app, on the app's service)."""
    ext = current_app.extensions
    if "pbem_inbound" not in ext:
        ext["pbem_inbound"] = build_inbound(ext["pbem"], _settings())
    found: Inbound = ext["pbem_inbound"]
    return found


def _error(status: int, code: str, message: str, **headers: str) -> Any:
    return jsonify({"code": code, "status": status, "message": message}), status, headers


def _raw_message(limit: int) -> bytes:
    # The whole body may be the message, plus some room for form encoding around it.
    request.max_content_length = limit * 2 + 64 * 1024
    request.max_form_memory_size = limit * 2 + 64 * 1024
    if request.mimetype in ("multipart/form-data", "application/x-www-form-urlencoded"):
        for name in FORM_FIELDS:
            if name in request.files:
                data: bytes = request.files[name].read(limit + 1)
                return data
            if name in request.form:
                return request.form[name].encode("utf-8", "surrogateescape")
        return b""
    return request.get_data(cache=False)


def _authorized(secret: str) -> bool:
    """``Authorization: Bearer <secret>``; or HTTP Basic with the secret as the password,
    for providers that can only put credentials in the URL (``https://x:<secret>@host/...``)."""
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer":
        return hmac.compare_digest(given.strip().encode(), secret.encode())
    if scheme.lower() == "basic":
        try:
            credentials = request.authorization
        except ValueError:  # not base64 of ASCII (werkzeug raises rather than say None)
            return False
        password = (credentials.password if credentials else None) or ""
        return hmac.compare_digest(password.encode(), secret.encode())
    return False


@inbound.post("/inbound/email")
def receive_email() -> Any:
    mail = _settings().mail
    if not mail.inbound_secret:
        return _error(
            404,
            "not_configured",
            "The inbound mail webhook is off: set PBEM_INBOUND_SECRET to open it.",
        )
    if not _authorized(mail.inbound_secret):
        return _error(
            401,
            "unauthorized",
            "Send the webhook secret as 'Authorization: Bearer <PBEM_INBOUND_SECRET>'.",
            **{"WWW-Authenticate": "Bearer"},
        )
    too_large = f"The message is too large: at most {mail.max_inbound_bytes} bytes are accepted."
    try:
        raw = _raw_message(mail.max_inbound_bytes)
    except RequestEntityTooLarge:
        return _error(413, "too_large", too_large)
    if not raw.strip():
        return _error(
            400,
            "empty",
            "The body must be the raw RFC 822 message (or a form field named "
            + ", ".join(FORM_FIELDS)
            + ").",
        )
    try:
        result = pipeline().receive(raw, "webhook")
    except TooLarge:
        return _error(413, "too_large", too_large)
    return jsonify(
        {
            "key": result.key,
            "outcome": result.outcome,
            "detail": result.detail,
            "duplicate": result.duplicate,
        }
    )


CONFIRM = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Confirm a mail</title></head>
<body>
{% if done %}<p>{{ done }}</p>{% else %}
<p>Apply the mail sent for your seat from another address?</p>
<form method="post">
<input type="hidden" name="csrf_token" value="{{ csrf_token() }}">
<button>Yes, apply it</button></form>
{% endif %}
</body></html>"""


@inbound.route("/inbound/confirm/<key>/<token>", methods=["GET", "POST"])
def confirm(key: str, token: str) -> Any:
    # GET (and HEAD, which the CSRF check lets by as a safe method, and some scanners send)
    # only shows a button: mail scanners follow links, and must not apply moves.
    if request.method != "POST":
        return render_template_string(CONFIRM, done=None)
    try:
        result = pipeline().confirm(key_from_url(key), token)
    except (ValueError, KeyError):
        return render_template_string(CONFIRM, done="This confirmation link is not valid."), 404
    except Exception:  # an unknown key: nothing stored under it
        current_app.logger.exception("confirmation failed")
        return render_template_string(CONFIRM, done="This confirmation link is not valid."), 404
    return render_template_string(CONFIRM, done=f"Done: {result.outcome}. {result.detail}")
