"""Create a game (``/new``): the game, its variants, the players' names and e-mail addresses.

Each field is checked before the service is asked, so an error shows next to its field and
the form comes back as it was typed. On success the service creates the game (which mails
every player with an address their seat's link, as for any new game) and the organiser sees
the seat links and the admin token once: they are not stored, only their hashes.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, render_template, request

from pbem.component_values import count_for
from pbem.deadlines.time_control import PRESETS, TimeControlError, parse_time_control
from pbem.errors import Conflict, Forbidden, ServiceError
from pbem.invitations import client_requester
from pbem.mail.headers import check_display_name, clean_address
from pbem.pages_data import config_error
from pbem.player_names import check_player_name
from web.pages import common as pc

newgame = Blueprint("newgame", __name__)

GAMES = {"lancaster": "Lancaster", "lancelot": "Lancelot"}
#: Lancaster's Henry V modules, as the form names them (the rules' config keys).
HENRY_V = {
    "kings_court": "At the King's Court",
    "resentment": "The King's Resentment",
    "laws_of_the_king": "Laws of the King (only with both others)",
}
#: Lancaster's laws (the config's ``new_laws``): the base game's, The New Laws instead, or
#: combined group by group
LAWS = {
    "base": "The base game's laws",
    "replace": "The New Laws instead of the base laws",
    "combine": "Combined: for each group, the base laws, The New Laws, or drawn at random",
}
#: what each law group may play when the laws are combined (the config's list of five)
LAW_GROUP_CHOICES = {"base": "base laws", "new": "The New Laws", "random": "drawn at random"}
LAW_GROUPS = (0, 1, 2, 3, 4)
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
        {"name": form.get(f"name{i}", "").strip(), "email": form.get(f"email{i}", "").strip()}
        for i in range(ROWS)
    ]
    return {
        "game": form.get("game", ""),
        "players": players,
        "diagonals": bool(form.get("diagonals")),
        "excalibur": bool(form.get("excalibur")),
        "expansions": {key: bool(form.get(key)) for key in HENRY_V},
        "laws": form.get("laws", "base").strip(),
        "law_groups": [form.get(f"law_group{g}", "random").strip() for g in LAW_GROUPS],
        "private": bool(form.get("private")),
        "time_control": form.get("time_control", "none").strip(),
    }


def _check(values: dict[str, Any]) -> dict[str, str]:
    """Errors by field name (``game``, ``players``, ``name2``, ``email0`` …)."""
    errors: dict[str, str] = {}
    if values["game"] not in GAMES:
        errors["game"] = "Choose the game to play."
    filled = 0
    for i, p in enumerate(values["players"]):
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
    if values["laws"] not in LAWS:
        # A hostile or stale form: say what can be chosen, never echo what was sent.
        errors["laws"] = "Choose one of the sets of laws listed."
    elif values["laws"] == "combine":
        bad = [
            str(g)
            for g, c in zip(LAW_GROUPS, values["law_groups"], strict=True)
            if c not in LAW_GROUP_CHOICES
        ]
        if bad:
            errors["laws"] = (
                f"For group{'s' if len(bad) > 1 else ''} {', '.join(bad)}, choose the base laws, "
                "The New Laws or drawn at random."
            )
    if filled < 2 and not any(k.startswith("name") for k in errors):
        errors["players"] = "A game needs 2 to 5 players: fill in at least two rows."
    if values["game"] in GAMES and "game" not in errors and "laws" not in errors:
        # The rules' own check of the chosen variants or modules, shown by their field; then
        # of the laws chosen with them, shown by the laws' field.
        config = _config(values)
        laws = config.pop("new_laws", None)
        problem = config_error(pc.service(), values["game"], config, max(filled, 2))
        if problem:
            field = "expansions" if values["game"] == "lancaster" else "variants"
            errors[field] = problem
        elif laws is not None:
            config["new_laws"] = laws
            problem = config_error(pc.service(), values["game"], config, max(filled, 2))
            if problem:
                errors["laws"] = problem
    return errors


def _new_laws(values: dict[str, Any]) -> str | list[str] | None:
    """The config's ``new_laws`` from the form: None for the base laws, "replace", or for
    combined laws "combine" (every group drawn at random) or the five groups' choices."""
    if values.get("laws") == "replace":
        return "replace"
    if values.get("laws") == "combine":
        groups = list(values["law_groups"])
        return "combine" if all(g == "random" for g in groups) else groups
    return None


def _config(values: dict[str, Any]) -> dict[str, Any]:
    """The game's config from the form: Lancelot's variants or Lancaster's Henry V modules."""
    if values["game"] == "lancelot":
        return {"variants": {"diagonals": values["diagonals"], "excalibur": values["excalibur"]}}
    if values["game"] == "lancaster":
        config: dict[str, Any] = {
            "expansions": {k: True for k, on in values["expansions"].items() if on}
        }
        laws = _new_laws(values)
        if laws is not None:
            config["new_laws"] = laws
        return config
    return {}


def _provisional_counts(values: dict[str, Any], players: int) -> dict[str, Any]:
    """How many values of a Lancaster game are not from a published source, for the form:
    ``chosen`` for the config as filled in (None when the rules refuse it), and ``table``,
    the count for each choice of Henry V modules (the rows) and of laws (the columns: only
    those the rules play, and only when a set of laws changes a count)."""
    rules = pc.service().rules_for("lancaster")
    combos: list[tuple[str, ...]] = rules.module_combinations()  # type: ignore[attr-defined]
    laws_modes = [("base", None), ("replace", "replace"), ("combine", "combine")]
    table: list[tuple[str, list[int | None]]] = []
    for combo in combos:
        config: dict[str, Any] = {"players": players}
        if combo:
            config["expansions"] = dict.fromkeys(combo, True)
        counts = []
        for _, laws in laws_modes:
            counts.append(count_for(rules, {**config, "new_laws": laws} if laws else config))
        label = " and ".join(HENRY_V[m].removesuffix(" (only with both others)") for m in combo)
        table.append((label or "None", counts))
    # A column of laws shows only when the rules play them and they change a count.
    keep = [0] + [
        i
        for i in range(1, len(laws_modes))
        if any(c[i] is not None and c[i] != c[0] for _, c in table)
    ]
    chosen = None
    if values.get("game") == "lancaster":
        chosen = count_for(rules, {**_config(values), "players": players})
    return {
        "chosen": chosen,
        "columns": [LAWS[laws_modes[i][0]] for i in keep],
        "table": [(label, [c[i] for i in keep]) for label, c in table],
    }


def _filled(values: dict[str, Any]) -> int:
    return sum(1 for p in values["players"] if p["name"] or p["email"])


def _page(values: dict[str, Any], errors: dict[str, str], *, fresh: bool = False) -> str:
    # The request key makes a form sent twice (a double click, a reload) create one game.
    key = "" if fresh else request.form.get("request_key", "")[:100]
    key = key or secrets.token_urlsafe(18)
    return render_template(
        "new.html",
        v=values,
        errors=errors,
        games=GAMES,
        rows=ROWS,
        henry_v=HENRY_V,
        laws=LAWS,
        law_groups=LAW_GROUPS,
        law_group_choices=LAW_GROUP_CHOICES,
        provisional=_provisional_counts(values, max(2, _filled(values))),
        time_controls=TIME_CONTROLS,
        needs_key=bool(pc.service().settings.invitations.organiser_keys),
        request_key=key,
    )


@newgame.route("/new", methods=["GET", "POST"])
def new_game() -> Any:
    # Only a POST creates: a HEAD (a safe method, which the CSRF check lets by) is a GET.
    if request.method != "POST":
        blank = {
            "game": "lancaster",
            "players": [{"name": "", "email": ""}] * ROWS,
            "expansions": {},
            "laws": "base",
            "law_groups": ["random"] * len(LAW_GROUPS),
            "time_control": "none",
        }
        return _page(blank, {})
    values = _form()
    errors = _check(values)
    status = 400
    if not errors:
        players = [
            {"name": p["name"], "email": p["email"] or None}
            for p in values["players"]
            if p["name"] or p["email"]
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
                game=GAMES[values["game"]],
                names=pc.seat_names(names),
                links=[f"{base}/games/{created.id}?token={s.token}" for s in created.seats],
                # Only a new address is invited; one that has played gets the game's mail.
                invited=[pc.service().was_invited(created.id, s.seat) for s in created.seats],
                base=base,
                elsewhere=here if here != base else None,
                private=values["private"],
                admin_link=f"{base}/games/{created.id}?admin={created.admin_token}",
            )
            # Shown once: no cache may keep the seat links and the admin token.
            return html, 200, {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
    return _page(values, errors, fresh=status == 409), status
