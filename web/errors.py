# flask-smorest ships no type hints: its decorators and classes are Any to mypy.
# mypy: disable-error-code="misc"
"""Errors a person can act on, never a stack trace: JSON for the API, a page for the pages.

``PbemApi`` replaces flask-smorest's HTTP error payload with ours (a ``message`` always), and
service errors (``pbem.core.errors.ServiceError``) become responses with their own status. Which
form an error takes follows the address asked for (:func:`wants_json`): the API, the webhook
and the pages' status document answer JSON; everything else is a page, and its errors are pages.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, abort, current_app, render_template, request
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from pbem.core.errors import GameNotFound, ServiceError

log = logging.getLogger(__name__)


def _describe_fields(errors: Any, prefix: str = "") -> list[str]:
    """Flatten marshmallow's nested error dict into readable lines."""
    if isinstance(errors, dict):
        out: list[str] = []
        for key, value in errors.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            out.extend(_describe_fields(value, name))
        return out
    if isinstance(errors, list) and all(isinstance(e, str) for e in errors):
        return [f"{prefix}: {' '.join(errors)}" if prefix else " ".join(errors)]
    return [f"{prefix}: {errors}"]


def _message(error: HTTPException, fields: Any) -> str:
    code = error.code or 500
    if code == 400 and fields:
        where = {k: v for k, v in fields.items()} if isinstance(fields, dict) else fields
        if isinstance(where, dict) and set(where) <= {"json", "query", "form", "headers"}:
            lines = [line for part in where.values() for line in _describe_fields(part)]
        else:
            lines = _describe_fields(where)
        hint = ""
        if request.method in {"POST", "PUT", "PATCH"} and not request.is_json:
            hint = " Send a JSON body with 'Content-Type: application/json'."
        text = "; ".join(line.rstrip(".") for line in lines)
        return f"The request does not fit this endpoint: {text}.{hint}"
    if code == 404:
        if not wants_json():
            return f"There is no page at {request.path[:200]}: the games are listed at /."
        return (
            f"There is nothing at {request.method} {request.path[:200]}. The API is described "
            "at /api/v1/openapi.json."
        )
    if code == 405:
        allowed = ", ".join(sorted(getattr(error, "valid_methods", None) or []))
        return f"{request.method} is not allowed on {request.path}; use {allowed or 'another'}."
    if code == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        return f"The request body is too large: at most {limit} bytes are accepted."
    if code >= 500:
        return "Something went wrong on our side. It has been logged; please try again later."
    return error.description or error.name


class PbemApi(Api):
    def handle_http_exception(self, error: HTTPException) -> Any:
        # (Flask has already logged an unhandled exception with its traceback.)
        code = error.code or 500
        data = getattr(error, "data", None) or {}
        fields = data.get("errors") or data.get("messages")
        payload: dict[str, Any] = {
            "code": error.name.lower().replace(" ", "_"),
            "status": code,
            "message": data.get("message") or _message(error, fields),
        }
        if fields:
            payload["errors"] = fields
        headers = data.get("headers", {})
        if not wants_json():
            return refused_page(payload["message"], code), code, headers
        return payload, code, headers


def wants_json() -> bool:
    """Whether the address asked for is one of those programs call (the API, the mail
    webhook, the status document the pages poll); the rest are opened by people (the
    export download and the confirmation link of a held mail too), answered with pages."""
    path = request.path
    return path.startswith("/api/") or path == "/inbound/email" or path.endswith("/status.json")


def refused_page(message: str, status: int) -> str:
    return render_template("refused.html", message=message, status=status)


def _readable(value: str) -> bool:
    # A control character (a NUL above all, which PostgreSQL text cannot hold) is in no
    # game id, file name or key the service ever made.
    return not any(ord(c) < 32 or ord(c) == 127 for c in value)


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ServiceError)
    def _service_error(error: ServiceError) -> Any:
        if error.status >= 500:
            log.error("service error: %s", error.message)
        headers = {}
        if error.status == 401:
            # RFC 6750: the token was good once and is not any more.
            headers["WWW-Authenticate"] = 'Bearer error="invalid_token"'
        if not wants_json():
            return refused_page(error.message, error.status), error.status, headers
        return error.to_json(), error.status, headers

    @app.before_request
    def _unreadable_path_values() -> None:
        """A path part that no game, mail or key can have is answered as not found before
        any blueprint looks it up (so no store is asked about it)."""
        for name, value in (request.view_args or {}).items():
            if isinstance(value, str) and not _readable(value):
                if name == "game_id":
                    raise GameNotFound(f"There is no game {value[:40]!r}.")
                abort(404)
