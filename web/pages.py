"""Minimal HTML pages: an index of games and a plain page per seat (the full pages are a
later issue). Everything shown comes from the rules' view for the seat.

A seat page opens with the seat's bearer token (``?token=``, printed by ``pbem new-game``) or
with the signed link of the mails to that seat (``?link=``, see ``pbem.mail.compose``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, redirect, render_template_string, request, url_for

from pbem.core import game_or_404
from pbem.errors import Forbidden, ServiceError
from pbem.games import GameService
from pbem.mail.compose import seat_for_link
from pbem.views import describe, summary_line

pages = Blueprint("pages", __name__)

INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pbem</title></head>
<body>
<h1>pbem — play board games by email</h1>
<p>The JSON API is described at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
<h2>Recent games</h2>
{% if games %}<table>
<tr><th>game</th><th>id</th><th>version</th><th>players</th><th>state</th></tr>
{% for g in games %}<tr><td>{{ g.game }}</td><td>{{ g.id }}</td><td>{{ g.version }}</td>
<td>{{ g.players|join(", ") }}</td>
<td>{{ "finished" if g.finished else "to act: " ~ g.to_act|join(", ") }}</td></tr>
{% endfor %}</table>{% else %}<p>No games yet: run <code>pbem demo</code>.</p>{% endif %}
</body></html>"""

SEAT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ g.game }} {{ g.id }}</title></head>
<body>
<h1>{{ g.game }} — {{ name }} (seat {{ g.seat }})</h1>
<p>Version {{ g.version }}{% if g.finished %}, finished{% endif %}.</p>
<pre>{{ board }}</pre>
{% if error %}<p><strong>{{ error }}</strong></p>{% endif %}
{% if g.legal %}
<form method="post">
<input type="hidden" name="expected_version" value="{{ g.version }}">
<label>Your move: <input name="action" autofocus></label>
<button>Play</button>
</form>
<p>You can play: {{ g.legal[:30]|join(", ") }}{% if g.legal|length > 30 %}, …{% endif %}</p>
{% elif not g.finished %}<p>Waiting for seat(s) {{ g.to_act|join(", ") }}.</p>{% endif %}
<h2>Log</h2>
<pre>{% for line in log %}{{ line }}
{% endfor %}</pre>
</body></html>"""


REFUSED = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pbem</title></head>
<body><h1>This page cannot be shown</h1><p>{{ message }}</p></body></html>"""


def _service() -> GameService:
    svc: GameService = current_app.extensions["pbem"]
    return svc


@pages.get("/")
def index() -> str:
    return render_template_string(INDEX, games=_service().list_games(50))


def _seat(svc: GameService, game_id: str) -> tuple[int, dict[str, Any]]:
    """The seat the request's credential opens, and that credential (to keep in links)."""
    link = request.args.get("link", "")
    if link:
        with svc.db.read() as session:
            game_or_404(session, game_id)
            seat = seat_for_link(session, svc.settings, game_id, link)
        return seat, {"link": link}
    token = request.args.get("token", "")
    if not token:
        raise Forbidden(
            "This page needs your seat's link: open it from a mail of the game, or from the "
            "link printed when the game was created."
        )
    return svc.seat_for_token(game_id, token), {"token": token}


@pages.route("/games/<game_id>", methods=["GET", "POST"])
def seat_page(game_id: str) -> Any:
    svc = _service()
    try:
        seat, credential = _seat(svc, game_id)
    except ServiceError as e:
        return render_template_string(REFUSED, message=e.message), e.status
    error = None
    if request.method == "POST":
        try:
            svc.submit(
                game_id,
                seat,
                request.form.get("action", "")[:4000],
                expected_version=int(request.form.get("expected_version", "0") or 0),
                channel="web",
            )
            return redirect(url_for("pages.seat_page", game_id=game_id, **credential))
        except ServiceError as e:
            error = e.message
        except ValueError:
            error = "The form was not complete; reload the page and try again."
    loaded = svc.load(game_id)
    g = describe(loaded, seat)
    return render_template_string(
        SEAT,
        g=g,
        name=loaded.seats[seat].name,
        board=loaded.rules.render_text(g["view"]),
        error=error,
        log=[summary_line(e) for e in svc.events(game_id, 0, seat)],
    )
