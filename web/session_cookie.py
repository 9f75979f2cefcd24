"""The pages' session cookie, encrypted: it carries the seats' credentials (a seat's bearer
token or page link, an admin token), which a signed cookie would show to anyone who reads
it (a shared computer, a browser extension, a backup of the profile).

Flask's cookie session, with its serializer swapped for Fernet (``cryptography``: AES with an
HMAC, and the time it was written). The key is derived from the service's ``secret_key``, so
every worker reads every other's cookies and changing the key logs every browser out. The
lifetime (``session_days``) is checked on the server from the time sealed inside, so a copy
of an old cookie opens nothing even if a browser kept it; each visit writes the cookie anew,
so the time counts from the browser's last visit.

Each request still checks the credentials it carries (``web.pages.common.session_seat``): a
rotated token or a revoked link closes the page in every browser that held it.
"""

from __future__ import annotations

import base64
import functools
from datetime import timedelta
from typing import Any

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import Flask, request
from flask.json.tag import TaggedJSONSerializer
from flask.sessions import SecureCookieSessionInterface, SessionMixin
from itsdangerous import BadSignature

#: Names the purpose in the key derivation: this key encrypts cookies and nothing else, even
#: though the same secret signs reply addresses and page links.
KEY_PURPOSE = b"pbem session cookie v1"


@functools.lru_cache(maxsize=4)
def cookie_key(secret_key: str) -> bytes:
    """The Fernet key of the session cookie, derived from the service's secret key (once per
    key: Flask asks for it at every request, an API call's included)."""
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=KEY_PURPOSE).derive(
        secret_key.encode("utf-8")
    )
    return base64.urlsafe_b64encode(derived)


class _Sealer:
    """What Flask's cookie session calls a signing serializer: ``dumps`` and ``loads``."""

    def __init__(self, key: bytes) -> None:
        self._fernet = Fernet(key)
        self._json = TaggedJSONSerializer()

    def dumps(self, value: Any) -> str:
        return self._fernet.encrypt(self._json.dumps(value).encode("utf-8")).decode("ascii")

    def loads(self, value: str | bytes, max_age: int | None = None) -> Any:
        try:
            data = self._fernet.decrypt(value, ttl=max_age)
        except (InvalidToken, TypeError, ValueError):
            # Flask answers BadSignature with a new, empty session: an old, forged or
            # outdated cookie is simply a browser holding nothing.
            raise BadSignature("the session cookie cannot be read") from None
        return self._json.loads(data.decode("utf-8"))


#: Endpoints that only read (the game page's poll, every few seconds): their answer rewrites
#: the cookie only when the request changed the session. Otherwise a poll sent before a page
#: showed a notice (and took it out of the session) and answered after would put the old
#: cookie back, and the notice would show again on the next page.
READ_ONLY = frozenset({"pages.status"})


class EncryptedCookieSessionInterface(SecureCookieSessionInterface):
    def get_signing_serializer(self, app: Flask) -> Any:
        if not app.secret_key:
            return None
        return _Sealer(cookie_key(str(app.secret_key)))

    def should_set_cookie(self, app: Flask, session: SessionMixin) -> bool:
        if request.endpoint in READ_ONLY and not session.modified:
            return False
        return bool(super().should_set_cookie(app, session))


def use_encrypted_sessions(app: Flask, *, days: int, secure: bool) -> None:
    """The app's session cookie: encrypted, ``days`` long after the last visit, never read
    by scripts, not sent with cross-site posts, and only over HTTPS where the site is."""
    app.session_interface = EncryptedCookieSessionInterface()
    app.config.update(
        PERMANENT_SESSION_LIFETIME=timedelta(days=days),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=secure,
    )
