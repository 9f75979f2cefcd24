"""The test client the suites use: it posts a form as the page's own form does, with the CSRF
token of its session (``web.browser_security``), so a test says what a person does on a page
and not how the token travels. The refusals are tested with a plain ``FlaskClient``
(tests/web/test_browser_security.py)."""

from __future__ import annotations

import hashlib
import os
from typing import Any

from flask.testing import FlaskClient
from itsdangerous import URLSafeTimedSerializer

#: Flask-WTF's names: the form field, the session key and the token's signing salt.
FIELD = "csrf_token"
SALT = "wtf-csrf-token"


class FormClient(FlaskClient):
    def csrf_token(self, **environ: Any) -> str:
        """The signed token a page would carry for this client's session."""
        with self.session_transaction(**environ) as session:
            raw = session.setdefault(FIELD, hashlib.sha1(os.urandom(64)).hexdigest())
        signer = URLSafeTimedSerializer(self.application.secret_key, salt=SALT)
        return str(signer.dumps(raw))

    def open(self, *args: Any, **kwargs: Any) -> Any:
        data = kwargs.get("data")
        if kwargs.get("method") == "POST" and data is None and "json" not in kwargs:
            data = {}  # a form of one button: it still carries its token
        if kwargs.get("method") == "POST" and isinstance(data, dict) and FIELD not in data:
            where = {k: kwargs[k] for k in ("base_url",) if k in kwargs}
            kwargs["data"] = {**data, FIELD: self.csrf_token(**where)}
        return super().open(*args, **kwargs)
