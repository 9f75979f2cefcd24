"""What a webhook is told: notices, built per event type by the features that own the events.

A feature registers a **notice builder** for an event type it owns::

    from pbem.webhooks.notices import Notice, EVERYONE, register_notice

    def talk_notice(ctx: AppendContext, event: StoredEvent) -> list[Notice]:
        said = event.payload  # the feature's own typed payload
        return [Notice("talk", f"{ctx.names.of(said.seat)} wrote to you.", readers)]

    register_notice("TableTalkSent", talk_notice)  # from pbem.app.bootstrap.register_features

(table talk's own is ``pbem.talk.notices``)

The webhook listener (``pbem.webhooks.listener``) calls every builder registered for each
event an append wrote, plus the **append builders** that look at the append as a whole (whose
turn it is now), inside the append's transaction. A builder returns the notices and WHO may
read each (``Notice.audience``):

- ``EVERYONE``: public facts: the game's subscriptions (its administrator's) and every seat's
  address subscriptions get it;
- ``GAME``: public facts worded for an onlooker ("waiting for Ann"): the game's
  subscriptions only (each seat gets its own wording instead);
- a set of seats: those seats' address subscriptions only (their view: "your turn").

A notice carries no hidden information beyond what its audience may see: a builder words it
from the public facts or from what the named seats see, never from the state (a Lancaster
secret vote, a hand of cards) and never with a seat's token or page link (a link to the seat
page is a credential: a notice links the public page, and says "check your mail").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.core import events as ev
from pbem.core.events import StoredEvent
from pbem.core.unit_of_work import AppendContext

#: Audiences besides a set of seats (see the module's docstring).
EVERYONE = "everyone"
GAME = "game"
Audience = str | frozenset[int]


@dataclass(frozen=True)
class Notice:
    #: a short word for receivers to tell notices apart: turn, reminder, deadline, end, talk …
    kind: str
    #: what people read (Discord's content, Slack's text, the JSON form's ``text``)
    text: str
    audience: Audience
    #: more JSON fields for the signed JSON form (public facts only, or the audience's own)
    data: dict[str, Any] = field(default_factory=dict)


NoticeBuilder = Callable[[AppendContext, StoredEvent], Sequence[Notice]]
AppendNoticeBuilder = Callable[[AppendContext], Sequence[Notice]]

_BY_EVENT: dict[str, list[NoticeBuilder]] = {}
_PER_APPEND: list[AppendNoticeBuilder] = []


def register_notice(event_type: str, builder: NoticeBuilder) -> None:
    """Build notices with ``builder`` for every ``event_type`` event appended. Registering the
    same builder again changes nothing (the composition root registers at every build)."""
    builders = _BY_EVENT.setdefault(event_type, [])
    if builder not in builders:
        builders.append(builder)


def unregister_notice(event_type: str, builder: NoticeBuilder) -> None:
    """Take a builder back (tests register their own for a while)."""
    if builder in _BY_EVENT.get(event_type, []):
        _BY_EVENT[event_type].remove(builder)


def register_append_notice(builder: AppendNoticeBuilder) -> None:
    if builder not in _PER_APPEND:
        _PER_APPEND.append(builder)


def notices_of(ctx: AppendContext) -> list[Notice]:
    """Every notice of one append: the event builders', in the order of the events, then the
    append builders'."""
    notices: list[Notice] = []
    for event in ctx.events:
        for builder in _BY_EVENT.get(event.type, ()):
            notices.extend(builder(ctx, event))
    for append_builder in _PER_APPEND:
        notices.extend(append_builder(ctx))
    return notices


# -- the built-in notices: whose turn it is, a deadline passed, the game ended ---------------


def title(ctx: AppendContext) -> str:
    return ctx.game.replace("_", " ").title()


def _game_facts(ctx: AppendContext) -> dict[str, Any]:
    return {"game": ctx.game, "game_id": ctx.game_id, "version": ctx.version}


def turn_notices(ctx: AppendContext) -> list[Notice]:
    """Each seat newly to act (or to act again after its own action) is told it is its turn;
    the game's subscriptions are told whom the game waits for."""
    if not ctx.events or ctx.rules.outcome(ctx.state_after) is not None:
        return []
    after = set(ctx.rules.to_act(ctx.state_after))
    before = set(ctx.rules.to_act(ctx.state_before)) if ctx.state_before is not None else set()
    acted = {
        p.seat
        for e in ctx.events
        if e.type == ev.ACTION_APPLIED and isinstance(p := e.payload, ev.ActionApplied)
    }
    resigned = {s.seat for s in ctx.seats if s.resigned}
    newly = sorted(s for s in after if (s not in before or s in acted) and s not in resigned)
    if not newly:
        return []
    names = ctx.names
    notices = [
        Notice(
            "turn",
            f"Your turn in game {ctx.game_id} ({title(ctx)}), version {ctx.version}: you play "
            f"{names.of(seat)}. Your board and moves are in your mail.",
            frozenset({seat}),
            {**_game_facts(ctx), "seat": seat, "player": names.of(seat)},
        )
        for seat in newly
    ]
    waiting = ", ".join(names.of(s) for s in sorted(after - resigned))
    notices.append(
        Notice(
            "turn",
            f"Game {ctx.game_id} ({title(ctx)}), version {ctx.version}: waiting for {waiting}.",
            GAME,
            {**_game_facts(ctx), "to_act": sorted(after - resigned)},
        )
    )
    return notices


def deadline_notice(ctx: AppendContext, event: StoredEvent) -> list[Notice]:
    """A seat's deadline passed: said to everyone, as the clock's notice mail says it (what
    was played is in the public log; a standing order's text is never named)."""
    payload = event.payload
    seat = getattr(payload, "seat", None)
    if not isinstance(seat, int):
        return []
    then = (
        "a move was played for them"
        if getattr(payload, "move", False)
        else "the game waits for its administrator"
    )
    return [
        Notice(
            "deadline",
            f"Game {ctx.game_id} ({title(ctx)}): {ctx.names.of(seat)}'s deadline passed; {then}.",
            EVERYONE,
            {**_game_facts(ctx), "seat": seat},
        )
    ]


def end_notice(ctx: AppendContext, event: StoredEvent) -> list[Notice]:
    """The game ended: the winners and scores, public at the end (the seed is not repeated:
    it is in the log for whoever checks it)."""
    payload = event.payload
    if not isinstance(payload, ev.GameFinished):
        return []
    outcome = payload.outcome
    names = ctx.names
    winners = [w for w in outcome.get("winners", []) if isinstance(w, int)]
    scores = [s for s in outcome.get("scores", []) if isinstance(s, int)]
    won = " and ".join(names.of(w) for w in winners) or "nobody"
    scored = ", ".join(f"{names.of(i)} {s}" for i, s in enumerate(scores))
    text = f"Game {ctx.game_id} ({title(ctx)}) is over: {won} won."
    if scored:
        text += f" Scores: {scored}."
    return [
        Notice("end", text, EVERYONE, {**_game_facts(ctx), "winners": winners, "scores": scores})
    ]


def register_builtin_notices(deadline_missed: str) -> None:
    """The notices of the core's and the clock's events (``deadline_missed``: the clock's
    event type, passed in by the composition root)."""
    register_append_notice(turn_notices)
    register_notice(ev.GAME_FINISHED, end_notice)
    register_notice(deadline_missed, deadline_notice)
