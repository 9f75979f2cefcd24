"""Where a webhook may go, and the one HTTP request that delivers it.

A webhook URL is typed by a player or an administrator, and the service then makes requests
to it: without care that is a server-side request forgery (SSRF), letting anyone make our
server call its own admin ports, the cloud's metadata address or the office network. So:

- only ``https://`` (``webhooks.allow_http`` adds ``http://``, for tests), no user:password,
  a host name or address, no fragment;
- every address the host resolves to must be public (``ipaddress``'s ``is_global``, and not
  multicast): no private, loopback, link-local, shared, multicast or reserved range
  (``webhooks.allow_private`` lifts this, for tests);
- checked when the subscription is added AND at every delivery, and the delivery connects
  to the very address it checked (``Target.address``), never resolving the name again: a
  name that answers a public address to the check and 127.0.0.1 to the connection (DNS
  rebinding) gets nowhere. TLS still verifies the certificate against the host name;
- no redirect is followed (the standard library's ``http.client`` follows none), the
  timeout is short (``webhooks.timeout``), and at most ``MAX_RESPONSE_BYTES`` of the
  answer are read.

The standard library's ``http.client`` does all of this in a few lines (a connection to a
chosen address with the host name for TLS), so no HTTP client package is added.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from pbem.app.config import WebhookSettings
from pbem.core.errors import BadRequest

#: The answer's bytes read at most (its status is what counts; the text helps an operator).
MAX_RESPONSE_BYTES = 4096
MAX_URL_LENGTH = 500

#: A host name and port -> the addresses it resolves to (injectable for tests).
Resolver = Callable[[str, int], list[str]]


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class UnsafeUrl(BadRequest):
    """A URL a webhook may not go to; the message says why, for the person who typed it."""


@dataclass(frozen=True)
class Target:
    """A checked URL: where to connect (``address``) and what to ask for."""

    scheme: str
    host: str
    port: int
    #: the path and query, as sent
    path: str
    #: the resolved address that was checked: the connection goes there and nowhere else
    address: str


def is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:10.0.0.1 is 10.0.0.1
    return ip.is_global and not ip.is_multicast


def check_url(url: str, settings: WebhookSettings, resolve: Resolver = system_resolver) -> Target:
    """``url`` checked for a webhook (see the module's docstring), resolved; UnsafeUrl says
    what is wrong."""
    url = url.strip()
    if not url or len(url) > MAX_URL_LENGTH:
        raise UnsafeUrl(f"Give a webhook URL of at most {MAX_URL_LENGTH} characters.")
    if any(ord(ch) < 33 or ord(ch) > 126 for ch in url):
        raise UnsafeUrl("A webhook URL may hold no spaces or non-ASCII characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UnsafeUrl("That webhook URL cannot be read.") from None
    schemes = ("https", "http") if settings.allow_http else ("https",)
    if parts.scheme.lower() not in schemes:
        raise UnsafeUrl("A webhook URL must start with https://.")
    if parts.username is not None or parts.password is not None:
        raise UnsafeUrl("A webhook URL may not carry a user name or password.")
    if parts.fragment:
        raise UnsafeUrl("A webhook URL may not have a #fragment.")
    host = (parts.hostname or "").lower()
    if not host:
        raise UnsafeUrl("A webhook URL needs a host name.")
    scheme = parts.scheme.lower()
    port = port or (443 if scheme == "https" else 80)
    try:
        addresses = resolve(host, port)
    except (OSError, UnicodeError):
        raise UnsafeUrl(f"The host {host} of that webhook URL does not resolve.") from None
    if not addresses:
        raise UnsafeUrl(f"The host {host} of that webhook URL does not resolve.")
    if not settings.allow_private:
        # Every address, not only the first: a name may answer several, and a later
        # resolution could pick another.
        private = [a for a in addresses if not is_public(a)]
        if private:
            raise UnsafeUrl(
                f"The host {host} of that webhook URL is on a private, loopback or reserved "
                "address; webhooks go only to the public internet."
            )
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(scheme, host, port, path, addresses[0])


@dataclass(frozen=True)
class Answer:
    status: int
    #: the beginning of the answer's body (at most MAX_RESPONSE_BYTES), for the operator
    text: str


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection to a checked address, verifying the certificate for the host
    name (and sending it as SNI) as if the name had been resolved."""

    def __init__(self, target: Target, timeout: float, context: ssl.SSLContext) -> None:
        super().__init__(target.host, target.port, timeout=timeout, context=context)
        self._address = target.address
        self._tls = context

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(sock, server_hostname=self.host)


def post(target: Target, body: bytes, headers: Mapping[str, str], timeout: float) -> Answer:
    """POST ``body`` to ``target``'s checked address; the answer's status and the beginning
    of its body. OSError (refused, timed out, TLS) when there is no answer."""
    connection: http.client.HTTPConnection
    if target.scheme == "https":
        connection = _PinnedHTTPSConnection(target, timeout, ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(target.address, target.port, timeout=timeout)
    try:
        host = target.host if target.port in (80, 443) else f"{target.host}:{target.port}"
        connection.putrequest("POST", target.path, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", host)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        text = response.read(MAX_RESPONSE_BYTES).decode("utf-8", "replace")
        return Answer(response.status, text)
    except http.client.HTTPException as e:
        raise OSError(f"bad answer: {e!r}") from None
    finally:
        connection.close()
