"""Server URLs of the mail settings: ``smtp[s]://`` and ``imap[s]://``.

``scheme://[user[:password]@]host[:port][/folder][?starttls=1&timeout=30&cafile=/ca.pem]``;
the user and password are percent-decoded (``%40`` for ``@``). The ``s`` scheme means TLS
from the first byte; ``starttls=1`` upgrades a plain connection.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

OPTIONS = frozenset({"starttls", "timeout", "cafile"})


@dataclass(frozen=True)
class ServerUrl:
    host: str
    port: int
    username: str | None = None
    password: str | None = None
    #: the path without its leading slash (the IMAP folder), '' when there is none
    path: str = ""
    implicit_tls: bool = False
    starttls: bool = False
    timeout: float = 30.0
    cafile: str | None = None


def parse_server_url(url: str, kind: str, ports: tuple[int, int], example: str) -> ServerUrl:
    """Read a URL of ``kind`` ("smtp" or "imap"); ``ports`` are the plain and TLS defaults.
    Raises ValueError saying what is wrong and what an example looks like."""
    parts = urlsplit(url)
    if parts.scheme not in (kind, kind + "s"):
        raise ValueError(
            f"the {kind.upper()} URL must start with {kind}:// or {kind}s://, not "
            f"{parts.scheme!r} (for example {example})"
        )
    if not parts.hostname:
        raise ValueError(f"the {kind.upper()} URL has no host name (for example {example})")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    unknown = set(query) - OPTIONS
    if unknown:
        raise ValueError(f"unknown {kind.upper()} URL options: {', '.join(sorted(unknown))}")
    implicit = parts.scheme == kind + "s"
    return ServerUrl(
        host=parts.hostname,
        port=parts.port or ports[implicit],
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        path=unquote(parts.path.lstrip("/")),
        implicit_tls=implicit,
        starttls=not implicit and query.get("starttls", "0").lower() in ("1", "true", "yes", "on"),
        timeout=float(query.get("timeout", "30")),
        cafile=query.get("cafile"),
    )
