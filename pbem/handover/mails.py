"""The mails of substitutes that go to the game's seats (the outbox asks these planners
through the table the composition root fills, ``pbem.mail.outbound.mail_planners``): a
proposal, to answer with ``agree substitute`` or ``refuse substitute``; its end (refused, or
agreed and the newcomer invited); and, when the seat changes hands, the newcomer's first
mail and a notice to the others.

The newcomer's first mail tells what happened since the game began as the seat may see it
(the log through ``visible_events`` for that seat, the board from the engine's view of it):
nothing another seat keeps hidden (a secret vote not revealed, Lancaster's hidden gold),
the seat's own secrets included, since they are now the newcomer's. The mails to addresses
that are not a seat's (the newcomer's invitation, the old player's farewell) are written by
the commands (``pbem.handover.commands``), in the same transaction."""

from __future__ import annotations

from pbem.core import store
from pbem.core.models import SeatHandover
from pbem.core.repository import SeatInfo
from pbem.create import events as creation_events
from pbem.handover import events as he
from pbem.handover import texts
from pbem.handover.rules import awaited
from pbem.mail.outbound import compose as c
from pbem.mail.outbound.mail_planners import AppendMails, Mail, MailPlanner, SeatMail
from pbem.play.views import summary_line, visible_events


def _label(append: AppendMails, seat: int) -> str:
    return append.names.label(seat) or f"seat {seat}"


def _row(append: AppendMails, proposal: int) -> SeatHandover | None:
    return append.session.get(SeatHandover, (append.ctx.game_id, proposal))


def _proposed(append: AppendMails) -> SeatMail | None:
    made = append.first(he.SUBSTITUTE_PROPOSED)
    assert made is not None
    p = made.payload
    assert isinstance(p, he.SubstituteProposed)
    row = _row(append, made.version)
    if row is None:
        return None
    waiting = awaited(row, append.ctx.seats) if row.status == "open" else frozenset()
    label = _label(append, p.seat)

    def mail(seat: SeatInfo) -> Mail | None:
        if seat.seat in waiting:
            asked = texts.asked_lines(label, p.name, made.version)
            return Mail("notice", append.notice(seat, "a substitute is proposed.", asked))
        if seat.seat == p.seat:
            headline = f"a substitute is proposed for your seat, {label}."
            asked = (
                "You keep playing the seat until the newcomer accepts; the other players decide."
            )
            return Mail("notice", append.notice(seat, headline, asked))
        if row.status == "agreed":
            return Mail("notice", append.notice(seat, f"{p.name} is invited to play {label}."))
        return Mail("notice", append.notice(seat, "your proposal is sent to the others."))

    return mail


def _decided(append: AppendMails) -> SeatMail | None:
    made = append.first(he.SUBSTITUTE_DECIDED)
    assert made is not None
    p = made.payload
    assert isinstance(p, he.SubstituteDecided)
    row = _row(append, p.proposal)
    if row is None or row.status == "open":
        return None  # more answers to come: the decider's own mail is enough
    label = _label(append, row.seat)
    if row.status == "refused":
        headline = f"the substitute proposed for {label} was refused."
    else:
        headline = f"every player agreed: {row.new_name} is invited to play {label}."
    return lambda seat: Mail("notice", append.notice(seat, headline))


def _handed_over(append: AppendMails) -> SeatMail | None:
    made = append.first(he.SEAT_HANDED_OVER)
    assert made is not None
    p = made.payload
    assert isinstance(p, he.SeatHandedOver)
    label = _label(append, p.seat)

    def mail(seat: SeatInfo) -> Mail | None:
        if seat.seat != p.seat:
            headline = f"{p.new_name} now plays {label}, in place of {p.old_name}."
            return Mail("notice", append.notice(seat, headline))
        return Mail("welcome", _welcome(append, seat, label, p.old_name))

    return mail


def _welcome(append: AppendMails, seat: SeatInfo, label: str, old: str) -> str:
    """The newcomer's first mail: the whole log as the seat may see it, the board, and what
    the seat can do now."""
    ctx = append.ctx
    # The whole log, not the outbox's tail: the newcomer has seen none of it.
    log = store.read(append.session, ctx.game_id)
    lines = [
        summary_line(e)
        for e in visible_events(log, seat.seat, 0, names=append.names)
        if e["type"] != creation_events.GAME_STARTED
    ]
    since = "What happened since the game began, as your seat saw it:\n" + "\n".join(lines)
    if seat.seat in append.to_act_after:
        asked = (
            "It is your turn: the seat's time for this decision starts now.\n"
            f"You can type, for example: {c.can_type(ctx.rules, ctx.state_after, seat.seat)}\n"
            "Reply to this mail with your move on the first line; you can also reply: "
            "undo, show, help, resign."
        )
    else:
        asked = "You will get a mail when it is your turn."
    return c.render(
        "notice",
        **append.common(seat),
        headline=texts.welcome_headline(label, old),
        since=since + "\n",
        asked=asked + "\n",
    )


#: A substitute was proposed: the deciders are asked, the seat concerned told.
PROPOSED = MailPlanner(_proposed, on=frozenset({he.SUBSTITUTE_PROPOSED}))
#: A proposal ended: refused, or agreed (its newcomer invited).
DECIDED = MailPlanner(_decided, on=frozenset({he.SUBSTITUTE_DECIDED}))
#: The seat changed hands: the newcomer's first mail, and a notice to the others.
HANDED_OVER = MailPlanner(_handed_over, on=frozenset({he.SEAT_HANDED_OVER}))
