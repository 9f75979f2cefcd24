"""What a person may see: every response is built here from ``rules.view(state, seat)``.

Nothing in this module reads the state directly; it reads views, and the log filtered for
the viewer: a secret action of another seat shows only as "seat N acted" until the next
irreversible step (a reveal) or the end of the game; emails and message references are shown
only to their owner; another seat's standing order is left out altogether, and so is table
talk the viewer may not read (``pbem.talk.visibility``). An undo request
or a retraction names the moves it takes back as the viewer saw them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pbem.clock import events as ce
from pbem.clock.display import clock_event_text
from pbem.core import events as ev
from pbem.core.events import StoredEvent
from pbem.core.naming import Names
from pbem.create import events as creation_events
from pbem.disputes import events as dispute_events
from pbem.handover import display as handover_display
from pbem.handover import events as handover_events
from pbem.play import seat_acts
from pbem.rematch.display import event_text as rematch_event_text
from pbem.talk import events as talk_events
from pbem.talk import visibility as talk_visibility
from pbem.undo import events as undo_events

if TYPE_CHECKING:
    from pbem.core.repository import Loaded


def describe(loaded: Loaded, seat: int | None) -> dict[str, Any]:
    """The game as ``seat`` may see it (None: a spectator), at the loaded version."""
    view = loaded.rules.view(loaded.state, seat)
    # The labels are public, so the seat's own view names the players as the public view
    # would (``Names.from_view``), without computing that one too.
    names = Names.from_view(view, [s.name for s in loaded.seats])
    return {
        "id": loaded.game_id,
        "game": loaded.game,
        "version": loaded.version,
        "head_hash": loaded.head_hash,
        "latest": loaded.at_head,
        "seat": seat,
        "players": [
            {
                "seat": s.seat,
                "name": s.name,
                "label": names.label(s.seat),
                # how people read the seat everywhere: "Ann (Red)"
                "display": names.of(s.seat),
                "resigned": s.resigned,
            }
            for s in loaded.seats
        ],
        "to_act": sorted(loaded.to_act),
        "view": view,
        "legal": loaded.legal(seat) if seat is not None else [],
        "finished": loaded.finished,
        "outcome": loaded.outcome,
        "result": result_text(loaded.outcome, names) if loaded.outcome else None,
    }


def board_for_people(
    rules: Any, state: Any, seat: int | None, names: Names, *, finished: bool = False
) -> str:
    """The engine's text board of ``seat``'s view, players named for people. A game the
    service ended (a resignation) asks nobody to move, whatever the engine's prompt said."""
    return names.text(rules.render_text(board_view(rules, state, seat, names, finished=finished)))


def board_view(
    rules: Any, state: Any, seat: int | None, names: Names, *, finished: bool = False
) -> Mapping[str, Any]:
    """``seat``'s view as its boards draw it (the text board and the mails' HTML board, so
    that both state the same facts): players named for people, and a game the service ended
    asking nobody to move."""
    view = rules.view(state, seat)
    if finished and not view.get("finished") and "prompt" in view:
        view = {**view, "prompt": "The game is over.", "can_type": []}
    return _players_named(view, names)


def _players_named(view: Mapping[str, Any], names: Names) -> Mapping[str, Any]:
    """The view with each player's label ("Red") already given as people read it ("Ann
    (Red)"): the engine then sizes the columns of its tables (Lancelot's captures, lost, in
    hand) for the names, where naming the finished text would push its rows out of line.
    ``names.text`` leaves a named form as it is."""
    players = view.get("players")
    if not isinstance(players, list):
        return view
    named: list[Any] = []
    for index, player in enumerate(players):
        if isinstance(player, Mapping) and player.get("label"):
            seat = player.get("seat", index)
            if isinstance(seat, int):
                player = {**player, "label": names.of(seat)}
        named.append(player)
    return {**view, "players": named}


def revealed_after(events: Sequence[StoredEvent]) -> dict[int, bool]:
    """For each ActionApplied version: is it revealed — by its own irreversible transition
    (the last secret vote reveals itself with the others), a later effective irreversible
    step, or the end of the game?"""
    retracted = ev.retracted_versions(events)
    revealed: dict[int, bool] = {}
    seen_reveal = False
    for e in reversed(events):
        if e.type == ev.GAME_FINISHED:
            seen_reveal = True
        if e.type == ev.ACTION_APPLIED and isinstance(p := e.payload, ev.ActionApplied):
            if p.irreversible and e.version not in retracted:
                seen_reveal = True
            # A retracted secret stays secret: it never took effect, nothing revealed it.
            revealed[e.version] = seen_reveal and (
                e.version not in retracted or events[-1].type == ev.GAME_FINISHED
            )
    return revealed


def visible_events(
    events: Sequence[StoredEvent],
    viewer: int | None,
    after: int = 0,
    *,
    everything: bool = False,
    names: Names | None = None,
) -> list[dict[str, Any]]:
    """The log as ``viewer`` (a seat, or None for a spectator) may see it; ``everything``
    for operators (the CLI's ``log --full``): nothing hidden. With ``names``, each event
    gets ``text`` (one line for people, seats named "Ann (Red)") and an action's ``log``
    lines name the players (the engine's own lines stay in ``engine_log``)."""
    revealed = revealed_after(events)
    # A seat handed over is another person's now: the addresses its earlier players gave
    # (GameCreated's, SeatTaken's) are not the newcomer's to read, as SeatHandedOver's
    # old_email is not (pbem.handover.display).
    address_of = None if viewer is None or _handed_over(events, viewer) else viewer
    # The moves an undo request or a retraction after ``after`` names, described as this
    # viewer may see them (a secret action stays "has voted"), even when they are older.
    named = _undone_versions(events, after) if names is not None else set()
    moves: dict[int, str] = {}
    out = []
    talk_log: talk_visibility.TalkLog | None = None  # read at the first talk event, if any
    players_then = _players_then(events, names) if names is not None else None
    for e in events:
        if players_then is not None:
            # A seat handed to a substitute: its moves before are named for who made them.
            names = players_then(e.version)
        if e.version <= after:
            if e.version in named and e.type == ev.ACTION_APPLIED and names is not None:
                data = (
                    dict(e.data) if everything else _visible_data(e, viewer, revealed, address_of)
                )
                moves[e.version] = action_words(data, names)
            continue
        if e.type in talk_events.TALK_TYPES and not everything:
            # Table talk the viewer may not read is not listed at all (pbem.talk.visibility).
            if talk_log is None:
                talk_log = talk_visibility.TalkLog(events)
            talk = talk_visibility.visible_data(e, viewer, talk_log)
            if talk is None:
                continue
            data = talk
        else:
            data = dict(e.data) if everything else _visible_data(e, viewer, revealed, address_of)
        if data.get("withheld"):
            # Another seat's standing order is not theirs to know: not even that it changed
            # (``_visible_clock_data``).
            continue
        item = {
            "version": e.version,
            "type": e.type,
            "recorded_at": e.recorded_at,
            "prev_hash": e.prev_hash,
            "hash": e.hash,
            "data": data,
        }
        if names is not None:
            if e.type == ev.ACTION_APPLIED and data.get("log") is not None:
                data["engine_log"] = list(data["log"])
                data["log"] = names.lines(data["log"])
                if data.get("hidden"):
                    data["summary"] = f"{names.of(data['seat'])} acted"
            if e.version in named:  # only the actions an undo names: words cost
                moves[e.version] = action_words(data, names)
            item["text"] = event_text(e.type, data, names, moves=moves, events=events)
        out.append(item)
    return out


def _players_then(events: Sequence[StoredEvent], names: Names) -> Callable[[int], Names]:
    """The names as they were at each version: a seat handed to a substitute
    (``SeatHandedOver``) is named for its old player in the events before the hand-over, so
    that the log never says the newcomer made the old player's moves."""
    handovers = sorted(
        (
            (int(e.data["from_version"]), int(e.data["seat"]), str(e.data["old_name"]))
            for e in events
            if e.type == handover_events.SEAT_HANDED_OVER
        ),
        reverse=True,
    )
    if not handovers:
        return lambda version: names
    known: dict[tuple[str, ...], Names] = {}

    def at(version: int) -> Names:
        people = list(names.people)
        for from_version, seat, old_name in handovers:  # the latest first: the earliest wins
            if version < from_version and 0 <= seat < len(people):
                people[seat] = old_name
        key = tuple(people)
        if key not in known:
            known[key] = replace(names, people=key)
        return known[key]

    return at


#: the events that name actions taken back (or asked to be)
_UNDOING = frozenset({undo_events.UNDO_REQUESTED, ev.ACTIONS_RETRACTED, undo_events.UNDO_LAPSED})


def _undone_versions(events: Sequence[StoredEvent], after: int) -> set[int]:
    """The action versions that the undo requests and retractions after ``after`` name."""
    wanted: set[int] = set()
    for e in events:
        # By type first: the payloads of the other events are not loaded for this.
        if e.version <= after or e.type not in _UNDOING:
            continue
        if isinstance(p := e.payload, undo_events.UndoRequested | ev.ActionsRetracted):
            wanted.update(p.versions)
        elif isinstance(p, undo_events.UndoLapsed):
            wanted.update(_request_versions(events, p.request))
    return wanted


def _request_versions(events: Sequence[StoredEvent], request: int) -> tuple[int, ...]:
    found = next((e for e in events if e.version == request), None)
    p = None if found is None else found.payload
    return p.versions if isinstance(p, undo_events.UndoRequested) else ()


def action_words(data: Mapping[str, Any], names: Names) -> str:
    """An action in a few words, as the viewer may see it (``data``: its visible payload,
    log lines named): "Ann (Red) placed a knight on E5", and for another seat's secret
    action only what the engine's public log says ("Ann (Red) has voted")."""
    log = [str(line).rstrip(".") for line in data.get("log") or () if line]
    log = [names.text(line) for line in log]
    if data.get("hidden"):
        return " ".join(log) if log else f"{names.of(data['seat'])} made a secret choice"
    if log and data.get("secret"):
        # The seat's own secret action (the others see only the log): what it chose too.
        return f"{'; '.join(log)}: {data.get('canonical')}"
    if log:
        return "; ".join(log)
    return f"{names.of(data['seat'])}: {data.get('canonical')}"


def moves_text(versions: Sequence[int], moves: Mapping[int, str]) -> str:
    """ "Ann (Red) placed a knight on E5 (version 4), Bob (Blue) … (version 5)"; "" when
    one of them is not known here (the caller then names the versions)."""
    if not versions or any(v not in moves for v in versions):
        return ""
    return ", ".join(f"{moves[v]} (version {v})" for v in versions)


def _handed_over(events: Sequence[StoredEvent], seat: int) -> bool:
    return any(
        e.type == handover_events.SEAT_HANDED_OVER
        and isinstance(p := e.payload, handover_events.SeatHandedOver)
        and p.seat == seat
        for e in events
    )


def _visible_data(
    e: StoredEvent, viewer: int | None, revealed: dict[int, bool], address_of: int | None
) -> dict[str, Any]:
    """The payload of ``e`` as JSON, as ``viewer`` may see it; ``address_of``: the seat whose
    address the viewer may read (its own, unless it was handed over since; else None)."""
    p = e.payload
    data = dict(e.data)
    own = viewer is not None and isinstance(p, seat_acts.SEAT_ACTS) and p.seat == viewer
    # A consented retraction names the requester as its seat, but it arrived with the last
    # acceptance: its reference (that seat's Message-ID) is on the UndoDecided event, for
    # that seat only.
    consented = isinstance(p, ev.ActionsRetracted) and p.request is not None
    if isinstance(p, seat_acts.SEAT_ACTS) and (not own or consented):
        data["channel_ref"] = None
    if isinstance(p, ce.CLOCK_FROM_CHANNEL):
        return _visible_clock_data(p, data, viewer)
    if isinstance(p, handover_events.HANDOVER_EVENTS):
        return handover_display.visible_data(p, data, viewer)
    if isinstance(p, ev.GameCreated):
        data["seats"] = [
            {"seat": s.seat, "name": s.name, "email": s.email if s.seat == address_of else None}
            for s in p.seats
        ]
    elif isinstance(p, ev.SeatTaken) and p.seat != address_of:
        # The joiner's address is its own (as GameCreated's seats' are).
        data["email"] = None
    elif isinstance(p, ev.ActionApplied):
        if p.secret and not own and not revealed.get(e.version, False):
            return {
                "seat": p.seat,
                "hidden": True,
                "summary": f"seat {p.seat} acted",
                # The engine's log is public by contract (e.g. "Red has voted."): it says
                # that the seat acted, never what it chose.
                "log": list(p.log),
                "channel": p.channel,
                "received_at": p.received_at,
            }
        if not own:
            # The text as typed (perhaps a whole email line) is the sender's; others get the
            # canonical text.
            data["text"] = p.canonical
    return data


def _visible_clock_data(p: Any, data: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    """A clock event as ``viewer`` may see it: the message it came by is its author's, and a
    standing order's move is its seat's alone (the others would learn what it means to play,
    a secret vote included)."""
    if isinstance(p, ce.DeadlineExtended | ce.GamePaused | ce.GameResumed):
        # By consent, it came with the last answer: whose, the answers say.
        author = p.by_seat if p.by == "seat" else None
    else:
        author = p.seat
    if viewer is None or author != viewer:
        data["channel_ref"] = None
    if isinstance(p, ce.StandingOrderSet) and viewer != p.seat:
        # Decision (docs/deadlines.md, "Standing orders are their seat's alone"): a standing
        # order says what its seat means to play (a vote included), and even that one was
        # set or changed hints at it, so another seat or a spectator is not told it exists:
        # ``visible_events`` leaves it out of their log (mails, pages, the API). Its seat is
        # answered with the order it set.
        return {"seat": p.seat, "withheld": True, "text": None, "hidden": True}
    return data


def result_text(outcome: dict[str, Any], names: Names) -> str:
    """A finished game's result for people: who resigned, the scores, the winners."""
    lines = []
    resigned = outcome.get("resigned") or []
    if resigned:
        lines.append(f"{names.many(resigned)} resigned.")
    scores = outcome.get("scores") or []
    winners = outcome.get("winners") or []
    if scores:
        lines.append("Final scores:")
        for seat, score in enumerate(scores):
            mark = "  (winner)" if seat in winners else ""
            lines.append(f"  {names.of(seat)}: {score}{mark}")
    elif resigned:
        # decision (issue silent): a game ended by resignation has no final scoring; the
        # points as they stood are on the board shown with this text.
        lines.append("The game ended before its final scoring: the board shows where it stood.")
    if winners:
        verb = "wins" if len(winners) == 1 else "share the win"
        lines.append(f"{names.many(winners)} {verb}.")
    return "\n".join(lines)


def versions_text(numbers: list[int]) -> str:
    """ "version 5", "versions 5 and 6", "versions 5, 6 and 7": read by players, not a list."""
    words = [str(n) for n in numbers]
    if len(words) == 1:
        return f"version {words[0]}"
    return "versions " + ", ".join(words[:-1]) + " and " + words[-1]


def event_text(
    kind: str,
    d: dict[str, Any],
    names: Names | None = None,
    *,
    moves: Mapping[int, str] | None = None,
    events: Sequence[StoredEvent] = (),
) -> str:
    """One event as people read it (seats named when ``names`` is given). ``moves``: the
    actions as the viewer may see them (``action_words``), by version, so that an undo
    request or a retraction names the moves it takes back; ``events``: the log they came
    from (a lapsed request's moves are its request's)."""
    moves = moves or {}

    def who(seat: int) -> str:
        return names.of(seat) if names is not None else f"seat {seat}"

    if kind == ev.ACTION_APPLIED:
        log = " ".join(d.get("log") or ())
        if d.get("hidden"):
            text = f"{who(d['seat'])} acted in secret"
        elif d.get("channel") == "auto":
            text = f"{who(d['seat'])} (resigned, played automatically): {d['canonical']}"
        elif d.get("channel") == "deadline":
            text = f"{who(d['seat'])} (deadline move): {d['canonical']}"
        else:
            text = f"{who(d['seat'])}: {d['canonical']}"
        return f"{text} — {log}" if log else text
    if kind == ev.GAME_CREATED:
        if names is not None:
            seats = ", ".join(names.of(s["seat"]) for s in d["seats"])
        else:
            seats = ", ".join(f"{s['seat']}: {s['name']}" for s in d["seats"])
        return f"created {d['game']} (rules {d['rules_version']}) — {seats}"
    if kind == creation_events.GAME_STARTED:
        to_act = names.many(d["to_act"]) if names is not None else str(d["to_act"])
        return f"started; to act: {to_act}"
    if kind == ev.SEAT_TAKEN:
        return f"{d['name']} took an open seat (seat {d['seat']})"
    if kind == ev.SEATS_CLOSED:
        return f"the organiser closed the open seats: {d['players']} players"
    if kind == undo_events.UNDO_REQUESTED:
        taken = moves_text(d["versions"], moves)
        if taken:
            return f"{who(d['seat'])} asks to take back: {taken}"
        return f"{who(d['seat'])} asks to go back to version {d['to_version']}"
    if kind == undo_events.UNDO_DECIDED:
        verdict = "accepts" if d["accept"] else "declines"
        return f"{who(d['seat'])} {verdict} undo request {d['request']}"
    if kind == undo_events.UNDO_LAPSED:
        taken = moves_text(_request_versions(events, d["request"]), moves)
        if taken:
            return (
                f"{who(d['seat'])}'s undo request {d['request']} lapsed: the game moved on "
                f"before everyone answered, so these stay played: {taken}"
            )
        return (
            f"{who(d['seat'])}'s undo request {d['request']} (back to version "
            f"{d['to_version']}) lapsed: the game moved on before everyone answered"
        )
    if kind == ev.ACTIONS_RETRACTED:
        taken = moves_text(d["versions"], moves)
        if taken:
            return f"back to version {d['to_version']}, taking back: {taken}"
        return f"back to version {d['to_version']}, retracting {versions_text(d['versions'])}"
    if kind == ev.PLAYER_RESIGNED:
        return f"{who(d['seat'])} resigned"
    if kind == dispute_events.DISPUTE_OPENED:
        return f"{who(d['seat'])} disputes {versions_text(d['versions'])}: “{d['text']}”"
    if kind == dispute_events.DISPUTE_ANSWERED:
        if d["agree"]:
            return f"{who(d['seat'])} agrees to retract what dispute {d['dispute']} is about"
        return f"{who(d['seat'])} disagrees with dispute {d['dispute']}"
    if kind == dispute_events.DISPUTE_RESOLVED:
        return _resolved_text(d)
    if kind == creation_events.INVITATION_ACCEPTED:
        return f"{who(d['seat'])} accepted the invitation and gets the game's mails"
    if kind == ev.GAME_FINISHED:
        winners = d["outcome"].get("winners") or []
        named = names.many(winners) if names is not None else str(winners)
        if d["reason"] == "resignation":
            gone = d["outcome"].get("resigned") or []
            left = names.many(gone) if names is not None else str(gone)
            return f"finished: {left} resigned; winner {named}"
        return f"finished ({d['reason']}): winner {named}"
    if kind in talk_events.TALK_TYPES:
        return talk_visibility.talk_text(kind, d, who)
    return (
        clock_event_text(kind, d, names)
        or handover_display.event_text(kind, d, names)
        or rematch_event_text(kind, d, names)
        or kind
    )


def _resolved_text(d: dict[str, Any]) -> str:
    if d["outcome"] == "dismissed":
        return f"dispute {d['dispute']} dismissed by the administrator: {d['reason']}"
    by = "the administrator" if d["by"] == "administrator" else "every other player's consent"
    text = (
        f"dispute {d['dispute']} upheld by {by} ({d['reason']}): back to version "
        f"{d['to_version']}, retracting {versions_text(d['retracted'])}"
    )
    if d["revealed"]:
        text += ". Already revealed, and still known to every player: " + " ".join(d["revealed"])
    return text


def summary_line(e: dict[str, Any], names: Names | None = None) -> str:
    """One line of a visible event, for the CLI and plain-text mails."""
    text = e.get("text") or event_text(e["type"], e["data"], names)
    if e["type"] == ev.ACTION_APPLIED:
        text += f"  [{e['data']['channel']}]"
    return f"{e['version']:>5}  {text}"
