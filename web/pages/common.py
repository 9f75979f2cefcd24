"""What every HTML page shares: the service, who is looking (a seat's session or the public),
the names people read, and the log as the viewer may see it.

A seat page opens with the seat's bearer token (``?token=``, shown when the game is created)
or with the signed link of the mails to that seat (``?link=``). The page keeps the credential
in the encrypted session cookie (``web.session_cookie``) and redirects to the URL without it,
so it stays out of logs and browser history; each request checks it again, so revoking a link
(``pbem mail rotate-key``) closes the page too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from flask import current_app, g, render_template, session

from engine.core.protocol import Choices
from pbem.app.service import GameService
from pbem.core import events as ev
from pbem.core.errors import ServiceError
from pbem.core.naming import Names
from pbem.core.repository import Loaded
from pbem.create import events as creation_events
from pbem.play.views import versions_text
from pbem.undo import events as undo_events
from web.games import WEB_GAMES

SESSION_KEY = "seats"
#: The session's admin tokens by game (an admin link, ``?admin=``, on the game or audit page).
ADMIN_KEY = "admin"


def service() -> GameService:
    svc: GameService = current_app.extensions["pbem"]
    return svc


def seat_from_credential(game_id: str, credential: dict[str, str]) -> int:
    """The seat a stored or presented credential opens (ServiceError when it no longer does)."""
    svc = service()
    if "link" in credential:
        return svc.seat_for_page_link(game_id, credential["link"])
    return svc.seat_for_token(game_id, credential.get("token"))


def remember(game_id: str, credential: dict[str, str]) -> None:
    seats = dict(session.get(SESSION_KEY, {}))
    seats[game_id] = credential
    session[SESSION_KEY] = seats
    session.permanent = True


def forget(game_id: str) -> None:
    seats = dict(session.get(SESSION_KEY, {}))
    seats.pop(game_id, None)
    session[SESSION_KEY] = seats


def held_admin(game_id: str) -> str | None:
    """The admin token this browser holds for the game (checked by whoever uses it)."""
    token: str | None = session.get(ADMIN_KEY, {}).get(game_id)
    return token


def remember_admin(game_id: str, token: str) -> None:
    admins = dict(session.get(ADMIN_KEY, {}))
    admins[game_id] = token
    session[ADMIN_KEY] = admins
    session.permanent = True


def session_seat(game_id: str) -> int | None:
    """The seat this browser holds in the game, or None (a spectator). A credential that no
    longer opens the seat is dropped."""
    credential = session.get(SESSION_KEY, {}).get(game_id)
    if not credential:
        return None
    try:
        return seat_from_credential(game_id, credential)
    except ServiceError:
        forget(game_id)
        # A form posted with it is told why (a substitute took the seat over, a rotated link).
        g.lost_seat = True
        return None


#: Why the address's settings need a mail's link (shown on the page and in the refusal).
ADDRESS_NEEDS_MAIL = (
    "Your time zone and digest belong to your e-mail address, in all your games: open this "
    "page from the link in a mail of the game to change them (the link shown when the game "
    "was created opens the seat, not the address)."
)


def opened_by_mail(game_id: str) -> bool:
    """Whether this browser holds its seat in the game through the link of a mail to the
    seat's address (``?link=``), which proves the address: a seat token (``?token=``, shown
    to whoever created the game) proves the seat only. The caller has checked the seat."""
    credential = session.get(SESSION_KEY, {}).get(game_id) or {}
    return "link" in credential


def seat_names(names: Names) -> list[str]:
    """Each seat as people read it, by seat: "Ann (Red)" — ``pbem.core.naming``, the names of the
    mails and the API, so a player is called the same everywhere."""
    return [names.of(seat) for seat in range(len(names.people))]


@dataclass
class LogLine:
    version: int
    kind: str
    who: str
    text: str
    recorded_at: str
    channel: str
    retracted: bool
    hidden: bool
    seat: int | None
    event: dict[str, Any]


def retracted_versions(events: Sequence[dict[str, Any]]) -> set[int]:
    out: set[int] = set()
    for e in events:
        if e["type"] == ev.ACTIONS_RETRACTED:
            out.update(e["data"]["versions"])
    return out


def log_lines(events: Sequence[dict[str, Any]], names: Names) -> list[LogLine]:
    """The visible events (``GameService.events`` for the viewer) as lines people read.

    Seats are named by ``names`` (``pbem.core.naming``); an action's log lines come from the
    service already named. An event the pages word no differently from the service (an undo
    request that lapsed, or any newer kind) reads as the service's own sentence."""
    retracted = retracted_versions(events)

    def name(seat: Any) -> str:
        return names.of(seat) if isinstance(seat, int) else "—"

    lines = []
    for e in events:
        d = e["data"]
        kind = e["type"]
        seat = d.get("seat") if isinstance(d.get("seat"), int) else None
        who = name(seat) if seat is not None else ""
        if kind == ev.ACTION_APPLIED:
            if d.get("hidden"):
                text = f"{who} acted (a secret choice, shown when it is revealed)"
            else:
                mover = who
                if d.get("channel") == "auto":
                    mover = f"{who} (resigned, played automatically)"
                text = f"{mover}: {d['canonical']}"
                if d.get("log"):
                    text += " — " + " ".join(d["log"])
        elif kind == ev.GAME_CREATED:
            who = "organiser"
            text = f"Game of {str(d['game']).title()} created (rules version {d['rules_version']})"
        elif kind == creation_events.GAME_STARTED:
            text = f"The game starts; to act: {names.many(d['to_act'])}"
        elif kind == ev.SEAT_TAKEN:
            who = str(d["name"])
            text = f"{who} takes an open seat"
        elif kind == ev.SEATS_CLOSED:
            who = "organiser"
            text = f"The organiser starts the game with the {d['players']} players who joined"
        elif kind == undo_events.UNDO_REQUESTED:
            text = f"{who} asks to go back to version {d['to_version']}"
        elif kind == undo_events.UNDO_DECIDED:
            verdict = "accepts" if d["accept"] else "declines"
            text = f"{who} {verdict} undo request {d['request']}"
        elif kind == ev.ACTIONS_RETRACTED:
            text = f"Back to version {d['to_version']}: {versions_text(d['versions'])} retracted"
        elif kind == ev.PLAYER_RESIGNED:
            text = f"{who} resigned"
        elif kind == ev.GAME_FINISHED:
            winners = (d.get("outcome") or {}).get("winners") or []
            text = f"The game is over ({d['reason']}); winners: " + names.many(
                winners, empty="none"
            )
        else:
            # UndoLapsed and any kind the pages have no words of their own for: the
            # service's sentence, with the first letter made a capital.
            said = str(e.get("text") or kind)
            text = said[:1].upper() + said[1:]
        lines.append(
            LogLine(
                version=e["version"],
                kind=kind,
                who=who,
                text=text,
                recorded_at=e["recorded_at"],
                channel=str(d.get("channel") or ""),
                retracted=e["version"] in retracted,
                hidden=bool(d.get("hidden")),
                seat=seat,
                event=e,
            )
        )
    return lines


def since_last_move(lines: Sequence[LogLine], seat: int) -> int | None:
    """The first version after the seat's last (effective) action: where "since your last
    move" starts; None when the seat has not acted yet."""
    last = max(
        (
            line.version
            for line in lines
            if line.kind == ev.ACTION_APPLIED and line.seat == seat and not line.retracted
        ),
        default=None,
    )
    if last is None:
        return None
    head = lines[-1].version if lines else last
    return min(last + 1, head)


def refused(message: str, status: int) -> tuple[str, int]:
    return render_template("refused.html", message=message), status


def seat_or_refusal(game_id: str, doing: str) -> tuple[int | None, Any]:
    """The seat this browser holds in the game, or (None and) the page refusing a visitor
    without one what it asked to do (``doing``: "open or answer a dispute")."""
    seat = session_seat(game_id)
    if seat is None and g.get("lost_seat"):
        return None, refused(
            "This browser's link to your seat no longer opens it: the seat was handed to "
            "another player, or its links were replaced. Nothing was done. If you still play "
            "it, open the link in the latest mail of the game.",
            403,
        )
    if seat is None:
        return None, refused(
            f"Only a player of this game can {doing} here: open your seat's link from a mail "
            "of the game, or the link shown when the game was created.",
            403,
        )
    return seat, None


def board_context(loaded: Loaded, doc: dict[str, Any], names: Names) -> dict[str, Any]:
    """What the game's board template needs, from the viewer's document only: the seats'
    names, the engine's prompt with players named as in the mails, which template draws the
    board (``board_template``, from ``web.games``) and what the game gives it, and the
    template of what the game page says of the game's setup (``setup_template``) with what
    that needs."""
    view = doc["view"]
    people = seat_names(names)
    context: dict[str, Any] = {
        "names": people,
        "naming": names,
        "prompt": names.text(str(view.get("prompt") or "")),
        # the component values of this game's config not from a published source, and those
        # its config changed from the printed game
        "provisional": service().provisional_values(loaded.game_id),
        "overridden": service().overridden_values(loaded.game_id),
    }
    seat = doc["seat"]
    # the seat's decision as the engine words it: the pages read no notation
    choices = loaded.choices(seat) if seat is not None else Choices()
    game = WEB_GAMES.get(loaded.game)
    # the game's board template (web.games), or the rules' text board for a game without one
    context["board_template"] = game.board_template if game else None
    context["typed_hint"] = game.typed_hint if game else ""
    # what the game page says of the game's setup (web.games), below the board
    context["setup_template"] = game.setup_template if game else None
    if game is not None and game.setup_template:
        context.update(game.setup(service().game_config(loaded.game_id), view))
    if game is not None and game.board_template:
        context.update(game.board(view, choices, names, people))
    else:
        context["board_text"] = names.text(loaded.rules.render_text(view))
    return context
