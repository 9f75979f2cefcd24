"""The service's errors: each has an HTTP-ish status and a message meant for a person.

The web layer turns them into JSON responses, the mail layer into error replies, the CLI into
messages; none of them shows a stack trace.

Besides its ``message`` (the whole text, as the API and the CLI show it), an error carries
its parts as fields, so that no caller reads them back out of the text: ``reason`` (what went
wrong and what to do, without saying which line: a mail quotes the line itself), ``line``
(the 1-based line of the submission it stopped at) and ``command`` (that line as written),
``can_type`` (what can be typed now) and its ``code``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class ServiceError(Exception):
    status: int = 500
    code: str = "error"

    def __init__(
        self,
        message: str,
        *,
        reason: str | None = None,
        line: int | None = None,
        command: str | None = None,
        can_type: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.message = message
        self.reason = message if reason is None else reason
        self.line = line
        self.command = command
        self.can_type = tuple(can_type)

    def to_json(self) -> dict[str, Any]:
        """What the API answers."""
        return {"code": self.code, "status": self.status, "message": self.message}

    def to_record(self) -> dict[str, Any]:
        """``to_json`` with every field, as a submission's result is kept (an idempotent
        retry, a mail processed again, gets the same error back: ``error_from_json``)."""
        return {
            **self.to_json(),
            "reason": self.reason,
            "line": self.line,
            "command": self.command,
            "can_type": list(self.can_type),
        }


class BadRequest(ServiceError):
    """The request itself is wrong (an unknown game, a bad config, a missing field)."""

    status = 400
    code = "bad_request"


class Unreadable(ServiceError):
    """A command line could not be read as an action; ``can_type`` says what can be typed."""

    status = 400
    code = "unreadable"

    def __init__(
        self,
        message: str,
        can_type: Sequence[str] = (),
        line: int | None = None,
        *,
        reason: str | None = None,
        command: str | None = None,
    ):
        super().__init__(message, reason=reason, line=line, command=command, can_type=can_type)

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "can_type": list(self.can_type), "line": self.line}


class Unauthorized(ServiceError):
    """A credential that was valid once and has been replaced: the message says where the new
    one is (the web layer adds ``WWW-Authenticate``)."""

    status = 401
    code = "unauthorized"


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"


class GameNotFound(ServiceError):
    status = 404
    code = "not_found"


class RulesNotInstalled(ServiceError):
    """A stored game's rules version is not installed on this server (e.g. a database
    restored onto an older release): the game cannot be shown or played until it is."""

    status = 503
    code = "rules_not_installed"


class StaleVersion(ServiceError):
    """The submission was made against a version that is no longer the game's latest.

    ``current`` is the game as the submitting seat may see it now (see ``pbem.play.views``), so
    the player can decide again on the position they have not seen yet.
    """

    status = 409
    code = "stale_version"

    def __init__(self, message: str, version: int, current: dict[str, Any] | None = None):
        super().__init__(message)
        self.version = version
        self.current = current

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "version": self.version, "current": self.current}


class Conflict(ServiceError):
    """The request conflicts with what already happened (an idempotency key reused with
    another payload, an undo request already decided, a game already over)."""

    status = 409
    code = "conflict"


class TooManyRequests(ServiceError):
    """A limit of the service was reached (e.g. invitations per day); the message says which
    and when it frees up."""

    status = 429
    code = "too_many_requests"


class AgainstTheRules(ServiceError):
    """Readable, but the rules (of the game or of undo) forbid it; the message says why."""

    status = 422
    code = "against_the_rules"

    def __init__(
        self,
        message: str,
        line: int | None = None,
        *,
        reason: str | None = None,
        command: str | None = None,
    ) -> None:
        super().__init__(message, reason=reason, line=line, command=command)

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "line": self.line}


class DatabaseUnusable(ServiceError):
    """The database cannot be reached, or has no tables yet: ``url`` is the settings' URL
    with its password hidden, ``reason`` the database's own first line. The command line ends
    a command with the message (what to do about it) instead of a traceback."""

    status = 503
    code = "database_unusable"

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(
            f"the database {url} cannot be used: {reason}. Is it running, and has "
            "'pbem db upgrade' created its tables?",
            reason=reason,
        )
        self.url = url


def error_from_json(data: dict[str, Any]) -> ServiceError:
    """Rebuild an error stored with a result (``to_record``: idempotent retries give the same
    answer). A result kept before errors had fields has no ``reason``: its message is one."""
    code = data.get("code")
    message = str(data.get("message", ""))
    parts: dict[str, Any] = {"reason": data.get("reason"), "command": data.get("command")}
    if code == "unreadable":
        return Unreadable(message, data.get("can_type") or (), data.get("line"), **parts)
    if code == "against_the_rules":
        return AgainstTheRules(message, data.get("line"), **parts)
    parts.update(line=data.get("line"), can_type=data.get("can_type") or ())
    for cls in (BadRequest, Forbidden, GameNotFound, Conflict):
        if cls.code == code:
            return cls(message, **parts)
    return ServiceError(message, **parts)
