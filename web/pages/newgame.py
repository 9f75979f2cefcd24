"""Create a game (``/new``): the game, its variants, the players' names and e-mail addresses,
or seats left open for players to join (``pbem.create.open_seats``).

Each field is checked before the service is asked, so an error shows next to its field and
the form comes back as it was typed. On success the service creates the game (which mails
every player with an address their seat's link, as for any new game) and the organiser sees
the seat links and the admin token once: they are not stored, only their hashes.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, render_template, request

from pbem.clock.time_control import PRESETS, TimeControlError, parse_time_control
from pbem.core.errors import Conflict, Forbidden, ServiceError
from pbem.create.invitations import client_requester
from pbem.create.player_names import check_player_name
from pbem.mail.outbound.headers import check_display_name, clean_address
from web.games import WEB_GAMES
from web.pages import common as pc

newgame = Blueprint("newgame", __name__)

ROWS = 5  # both games are for 2 to 5 players
#: What each time control preset means, for the form (the API and CLI take any time
#: control; the form offers the presets only).
TIME_CONTROLS = {
    "none": "No time limit: the game waits for each player as long as it takes.",
    "relaxed": f"A time bank per player: {PRESETS['relaxed'].describe().removeprefix('clock: ')}.",
    "standard": f"{PRESETS['standard'].describe().capitalize()}.",
    "fast": f"{PRESETS['fast'].describe().capitalize()}.",
    "demo": f"{PRESETS['demo'].describe().capitalize()}: to try the service out.",
}
MAX_NAME = 200


def _form() -> dict[str, Any]:
    form = request.form
    players = [
        {
            "name": form.get(f"name{i}", "").strip(),
            "email": form.get(f"email{i}", "").strip(),
            "open": bool(form.get(f"open{i}")),
        }
        for i in range(ROWS)
    ]
    values: dict[str, Any] = {
        "game": form.get("game", ""),
        "players": players,
        "private": bool(form.get("private")),
        "time_control": form.get("time_control", "none").strip(),
    }
    # every game's fields: the form shows them all, whichever game is chosen
    for game in WEB_GAMES.values():
        values.update(game.read_form(form))
    return values


def _check(values: dict[str, Any]) -> dict[str, str]:
    """Errors by field name (``game``, ``players``, ``name2``, ``email0`` …)."""
    errors: dict[str, str] = {}
    chosen = WEB_GAMES.get(values["game"])
    if chosen is None:
        errors["game"] = "Choose the game to play."
    filled = 0
    for i, p in enumerate(values["players"]):
        if p.get("open"):
            filled += 1
            if p["name"] or p["email"]:
                errors[f"name{i}"] = (
                    "An open seat is for a player to join later: clear this row's name and "
                    "address, or untick 'open seat'."
                )
            continue
        if not p["name"] and not p["email"]:
            continue
        filled += 1
        if not p["name"]:
            errors[f"name{i}"] = "Give this player a name (it is how the others will see them)."
        elif len(p["name"]) > MAX_NAME or any(ord(c) < 32 for c in p["name"]):
            errors[f"name{i}"] = f"A name has 1 to {MAX_NAME} printable characters."
        else:
            try:
                check_display_name(p["name"])
                check_player_name(p["name"])
            except ValueError as e:
                errors[f"name{i}"] = f"This name {e}."
        if p["email"]:
            try:
                clean_address(p["email"])
            except ValueError as e:
                errors[f"email{i}"] = f"This is not an e-mail address we can write to: {e}."
    if values["time_control"] not in TIME_CONTROLS:
        try:
            parse_time_control(values["time_control"])
        except TimeControlError as e:
            errors["time_control"] = f"Choose one of the time controls listed ({e})."
        else:
            errors["time_control"] = "Choose one of the time controls listed."
    game_errors: dict[str, str] = {}
    for game in WEB_GAMES.values():
        game_errors.update(game.check_fields(values))
    errors.update(game_errors)
    if filled < 2 and not any(k.startswith("name") for k in errors):
        errors["players"] = (
            "A game needs 2 to 5 players: fill in at least two rows (or tick 'open seat')."
        )
    if chosen is not None and not game_errors:
        # The rules' own check of the chosen game's config, shown by the field it comes from.
        players = max(filled, 2)
        errors.update(
            chosen.config_errors(
                values, lambda config: pc.service().config_error(chosen.name, config, players)
            )
        )
    return errors


def _config(values: dict[str, Any]) -> dict[str, Any]:
    """The chosen game's config from the form (``web.games``: its variants or modules)."""
    game = WEB_GAMES.get(values["game"])
    return game.config(values) if game else {}


def _filled(values: dict[str, Any]) -> int:
    return sum(1 for p in values["players"] if p["name"] or p["email"] or p.get("open"))


def _page(values: dict[str, Any], errors: dict[str, str], *, fresh: bool = False) -> str:
    # The request key makes a form sent twice (a double click, a reload) create one game.
    key = "" if fresh else request.form.get("request_key", "")[:100]
    key = key or secrets.token_urlsafe(18)
    players = max(2, _filled(values))
    chosen = WEB_GAMES.get(values.get("game", ""))
    games = []
    fields: dict[str, Any] = {}
    for game in WEB_GAMES.values():
        games.append((game, game is chosen))
        rules = pc.service().rules_for(game.name)
        fields.update(game.form_context(rules, values, players, chosen=game is chosen))
    return render_template(
        "new.html",
        v=values,
        errors=errors,
        games=games,
        rows=ROWS,
        time_controls=TIME_CONTROLS,
        needs_key=bool(pc.service().settings.invitations.organiser_keys),
        request_key=key,
        **fields,
    )


@newgame.route("/new", methods=["GET", "POST"])
def new_game() -> Any:
    # Only a POST creates: a HEAD (a safe method, which the CSRF check lets by) is a GET.
    if request.method != "POST":
        first = next(iter(WEB_GAMES.values()))  # the default: the first registered
        blank: dict[str, Any] = {
            "game": first.name,
            "players": [{"name": "", "email": "", "open": False}] * ROWS,
            "time_control": "none",
        }
        for game in WEB_GAMES.values():
            blank.update(game.blank())
        return _page(blank, {})
    values = _form()
    errors = _check(values)
    status = 400
    if not errors:
        # An open seat's row is left for a player to join (the service puts the open
        # seats after the named ones).
        players = [
            {"open": True} if p["open"] else {"name": p["name"], "email": p["email"] or None}
            for p in values["players"]
            if p["name"] or p["email"] or p["open"]
        ]
        config = _config(values)
        try:
            created = pc.service().create_game(
                values["game"],
                config,
                players,
                channel="web",
                private=values["private"],
                idempotency_key=request.form.get("request_key") or None,
                requester=client_requester(request.remote_addr),
                organiser_key=request.form.get("organiser_key") or None,
                time_control=values["time_control"],
            )
        except Forbidden as e:
            errors["organiser_key"] = e.message
        except Conflict:
            # The form's request key was used: this is a form sent before, changed since.
            errors["form"] = "This form already created a game: open /new again for another."
            status = 409
        except ServiceError as e:
            errors["form"] = e.message
            status = e.status
        else:
            here = request.host_url.rstrip("/")
            settings = pc.service().settings
            # The links are those of the mails: the configured base URL, which the players
            # reach; the organiser is told when this page was opened at another address.
            base = settings.base_url.rstrip("/") if settings.base_url else here
            names = pc.service().load(created.id).names
            html = render_template(
                "created.html",
                created=created,
                game=WEB_GAMES[values["game"]].label,
                names=pc.seat_names(names),
                links=[f"{base}/games/{created.id}?token={s.token}" for s in created.seats],
                # Only a new address is invited; one that has played gets the game's mail.
                invited=[pc.service().was_invited(created.id, s.seat) for s in created.seats],
                base=base,
                elsewhere=here if here != base else None,
                private=values["private"],
                admin_link=f"{base}/games/{created.id}?admin={created.admin_token}",
                admin_page=f"{base}/games/{created.id}/admin?admin={created.admin_token}",
                open_seats=len(created.open_seats),
                join_link=(
                    f"{base}/games/{created.id}/join?key={created.join_key}"
                    if created.join_key
                    else None
                ),
            )
            # Shown once: no cache may keep the seat links and the admin token.
            return html, 200, {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    return _page(values, errors, fresh=status == 409), status
