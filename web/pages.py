"""Minimal HTML pages: an index of games and a plain page per seat (the full pages are a
later issue). Everything shown comes from the rules' view for the seat."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, redirect, render_template_string, request, url_for

from pbem.errors import ServiceError
from pbem.games import GameService
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


def _service() -> GameService:
    svc: GameService = current_app.extensions["pbem"]
    return svc


@pages.get("/")
def index() -> str:
    return render_template_string(INDEX, games=_service().list_games(50))


@pages.route("/games/<game_id>", methods=["GET", "POST"])
def seat_page(game_id: str) -> Any:
    svc = _service()
    token = request.args.get("token", "")
    seat = svc.seat_for_token(game_id, token)
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
            return redirect(url_for("pages.seat_page", game_id=game_id, token=token))
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
