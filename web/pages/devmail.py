"""``/dev/mail``: the local mail folder as a web page (development only: ``dev_pages``).

Lists the ``.eml`` files the relay wrote (when no SMTP relay is configured), shows each, and
offers a reply form that builds the reply a mail client would send and feeds it into the same
inbound pipeline as real mail — so a whole game can be played by "email" on one machine.

The page shows every seat's mail (hidden hands, signed page links) and replies as any seat,
so it exists only where no one else can reach it: :func:`refuse_beyond_loopback` lets the
app have it only when the server is known to listen on a loopback address. ``pbem serve``
knows its ``--host``; a WSGI server such as gunicorn loads ``create_app`` without saying
where it listens, so there the bind is unknown and the pages are refused (fail closed). Each
request is checked too: a reverse proxy on the same machine would make a loopback server
reachable from anywhere, and its forwarding headers give it away.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime, formataddr
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    redirect,
    render_template,
    render_template_string,
    request,
    url_for,
)

from pbem.app.bootstrap import build_relay, mail_dir
from pbem.app.config import Settings
from pbem.mail.outbound.headers import clean
from web.inbound import pipeline

devmail = Blueprint("devmail", __name__, url_prefix="/dev/mail")

_NAME = re.compile(r"^[A-Za-z0-9._-]{1,200}\.eml$")
#: Headers a proxy adds when it forwards a request from elsewhere.
FORWARDING_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Real-IP")


class DevPagesRefused(Exception):
    """The development pages are on where other machines could reach them."""


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` is an address of this machine alone (``localhost``, 127.0.0.0/8, ::1).
    A host name other than ``localhost`` may resolve anywhere: it is not."""
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def refuse_beyond_loopback(host: str | None) -> None:
    """Raise ``DevPagesRefused`` unless the server is known to listen on loopback only."""
    if is_loopback(host):
        return
    where = (
        f"pbem serve listens on {host}, so other machines can reach it"
        if host is not None
        else "the app was loaded by a WSGI server (such as gunicorn) that does not tell it "
        "where it listens"
    )
    raise DevPagesRefused(
        f"Refusing to start: dev_pages is on, and {where}. /dev/mail shows every player's "
        "mail, with hidden information and page links, and replies as any seat. Set "
        "dev_pages = false (PBEM_DEV_PAGES=false) in production, or use the development "
        "pages on this machine only: make run, or pbem serve --dev --host 127.0.0.1."
    )


LIST = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Local mail</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="{{ url_for('static', filename='pbem.css') }}"></head>
<body><main id="content">
<h1>Local mail ({{ folder }})</h1>
{% if outcome %}<p><strong>Your reply: {{ outcome }}</strong></p>{% endif %}
<p>Mails the service sent, newest first. Open one to reply.</p>
{% if mails %}<div class="scroll"><table>
<tr><th>date</th><th>to</th><th>kind</th><th>subject</th></tr>
{% for m in mails %}<tr><td>{{ m.date }}</td><td>{{ m.to }}</td><td>{{ m.kind }}</td>
<td><a href="{{ url_for('devmail.show', name=m.name) }}">{{ m.subject }}</a></td></tr>
{% endfor %}</table></div>{% else %}<p>No mail yet: create a game with e-mail addresses
(<code>pbem mail demo</code>).</p>{% endif %}
</main></body></html>"""

SHOW = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ subject }}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="{{ url_for('static', filename='pbem.css') }}"></head>
<body><main id="content">
<p><a href="{{ url_for('devmail.index') }}">All mail</a></p>
<pre class="mail">From: {{ sender }}
To: {{ to }}
Reply-To: {{ reply_to }}
Subject: {{ subject }}</pre>
<pre class="mail">{{ body }}</pre>
{% if reply_to %}
<form method="post" action="{{ url_for('devmail.reply', name=name) }}">
<input type="hidden" name="csrf_token" value="{{ csrf_token() }}">
<p><label>Reply (one command per line):<br>
<textarea name="text" rows="4" cols="60" autofocus></textarea></label></p>
<p><button>Send reply</button></p>
</form>{% endif %}
</main></body></html>"""


@devmail.before_request
def _this_machine_only() -> Any:
    forwarded = [h for h in FORWARDING_HEADERS if h in request.headers]
    if forwarded or not is_loopback(request.remote_addr):
        message = (
            "The development pages answer only requests made on this machine, and this one "
            f"came through a proxy or from elsewhere ({', '.join(forwarded) or 'remote'}). "
            "Open /dev/mail on the machine that runs the service."
        )
        return render_template("refused.html", message=message), 403
    return None


def _settings() -> Settings:
    settings: Settings = current_app.extensions["pbem_settings"]
    return settings


def _folder() -> Path:
    return Path(mail_dir(_settings()))


def _load(name: str) -> EmailMessage:
    if not _NAME.match(name):
        abort(404)
    path = _folder() / name
    if not path.is_file():
        abort(404)
    message = message_from_bytes(path.read_bytes(), policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


def _text(message: EmailMessage) -> str:
    body = message.get_body(preferencelist=("plain",))
    text = body.get_content() if isinstance(body, EmailMessage) else ""
    # The files hold the mails as sent (CRLF); a CR left at the end of the line with the game
    # page link would be copied into the address.
    return text.replace("\r\n", "\n")


@devmail.get("")
def index() -> Any:
    folder = _folder()
    files = sorted(folder.glob("*.eml"), key=lambda p: p.stat().st_mtime, reverse=True)
    mails = []
    for path in files[:200]:
        message = message_from_bytes(path.read_bytes(), policy=policy.default)
        mails.append(
            {
                "name": path.name,
                "date": str(message["Date"] or ""),
                "to": str(message["To"] or ""),
                "kind": str(message["X-Pbem-Mail"] or ""),
                "subject": str(message["Subject"] or ""),
            }
        )
    outcome = request.args.get("outcome", "")[:300]
    return render_template_string(LIST, folder=folder, mails=mails, outcome=outcome)


@devmail.get("/<name>")
def show(name: str) -> Any:
    message = _load(name)
    return render_template_string(
        SHOW,
        name=name,
        sender=str(message["From"] or ""),
        to=str(message["To"] or ""),
        reply_to=str(message["Reply-To"] or ""),
        subject=str(message["Subject"] or ""),
        body=_text(message),
    )


def reply_message(original: EmailMessage, text: str, clock_now: Any) -> bytes:
    """The reply a plain mail client would send: the text on top, the original quoted."""
    reply_to = original["Reply-To"].addresses[0].addr_spec
    sender = original["To"].addresses[0]
    quoted = "\n".join("> " + line for line in _text(original).splitlines())
    reply = EmailMessage(policy=policy.SMTP)
    reply["From"] = formataddr((clean(sender.display_name, 64), sender.addr_spec))
    reply["To"] = reply_to
    reply["Subject"] = "Re: " + clean(str(original["Subject"] or ""))
    # Not our Message-ID domain: this stands for a player's mail client.
    reply["Message-ID"] = f"<dev.{secrets.token_hex(8)}@devmail.localhost>"
    reply["Date"] = format_datetime(clock_now)
    original_id = str(original["Message-ID"] or "").strip()
    if original_id:
        reply["In-Reply-To"] = original_id
        reply["References"] = f"{original['References'] or ''} {original_id}".strip()
    reply.set_content(f"{text.strip()}\n\nOn {original['Date']}, pbem wrote:\n{quoted}\n")
    return reply.as_bytes()


@devmail.post("/<name>/reply")
def reply(name: str) -> Any:
    original = _load(name)
    if not original["Reply-To"]:
        abort(400)
    inbound = pipeline()
    raw = reply_message(original, request.form.get("text", ""), inbound.clock.now())
    result = inbound.receive(raw, "dev")
    # Send the mails this caused right away, so the next page shows them.
    build_relay(current_app.extensions["pbem"], _settings()).run_once()
    outcome = f"{result.outcome} — {result.detail}"
    return redirect(url_for("devmail.index", outcome=outcome))
