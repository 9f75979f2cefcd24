"""The mails the inbound pipeline answers with: error replies (quoting the line, saying why,
listing what can be typed now, with the fresh position when the game moved on), ``help``
and ``show``, and the rate limit of one error reply per sender, kind and day."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from pbem.app.config import Settings
from pbem.core.errors import ServiceError, StaleVersion
from pbem.core.models import Game
from pbem.core.repository import Loaded
from pbem.mail.inbound.reading import Incoming
from pbem.mail.models import ErrorReplySent, OutboxMail
from pbem.mail.outbound import compose as c
from pbem.mail.outbound.headers import msgid
from pbem.mail.outbound.html_part import MailBoard
from pbem.play.turn_text import help_parts

log = logging.getLogger(__name__)

#: The first line of an error reply, after the game's title.
NOT_APPLIED = "your mail was not applied."
PARTLY_APPLIED = "your mail was applied in part."


def quote(lines: Sequence[str]) -> str:
    if not lines:
        return ""
    return "Your mail said:\n\n" + "\n".join(f"> {line}" for line in lines[:10]) + "\n"


def error_text(
    settings: Settings,
    loaded: Loaded,
    seat: int,
    seen: int | None,
    problem: str,
    can_type: Sequence[str],
    error: ServiceError | None,
    commands: Sequence[str],
    since: Sequence[str] = (),
    *,
    applied_first: bool = False,
) -> str:
    """``since``: what the seat may see of the log after the version it answered;
    ``applied_first``: lines before the one refused were applied (the mail says so)."""
    rules = loaded.rules
    names = loaded.names
    fresh = ""
    if isinstance(error, StaleVersion):
        happened = (
            "What happened since (version {seen} to {now}):\n{lines}\n\n".format(
                seen=seen, now=loaded.version, lines="\n".join(since[-c.MAX_SINCE :])
            )
            if since
            else ""
        )
        fresh = (
            happened
            + "The position now:\n\n"
            + c.board_text(rules, loaded.state, seat, names, finished=loaded.finished)
            + "\n"
        )
    examples = ", ".join(can_type) if can_type else c.can_type(rules, loaded.state, seat)
    return c.render(
        "error",
        marker=c.MARKER,
        title=f"{rules.name.title()}, game {loaded.game_id}",
        headline=PARTLY_APPLIED if applied_first else NOT_APPLIED,
        problem=names.text(problem),
        quoted="" if "\n> " in problem else quote(commands),
        fresh=fresh,
        can_type=f"What you can type now, for example: {examples}\n",
        rules=f"Rules and how to write each move: {c.rules_link(settings, rules)}",
        receipt=c.receipt(loaded.version, loaded.head_hash),
    )


def commands_text(loaded: Loaded, seat: int) -> str:
    """The commands a reply may hold, as ``help`` lists them, after whether it is the seat's
    turn (``pbem.play.turn_text``)."""
    return c.render("commands", **help_parts(loaded, seat))


def info_mail(
    session: Session,
    settings: Settings,
    loaded: Loaded,
    seat: int,
    name: str,
    email: str,
    word: str,
    now: datetime,
) -> OutboxMail:
    """The answer to ``help`` or ``show``."""
    rules = loaded.rules
    common = {
        "marker": c.MARKER,
        "title": f"{rules.name.title()}, game {loaded.game_id}",
        "link": c.seat_link(session, settings, loaded.game_id, seat),
        "rules_link": c.rules_link(settings, rules),
        "receipt": c.receipt(loaded.version, loaded.head_hash),
        "can_type": c.can_type(rules, loaded.state, seat),
    }
    if word == "help":
        text = c.render("help", **common, commands=commands_text(loaded, seat))
    else:
        text = c.render(
            "notice",
            **common,
            headline="the position.",
            notices="",
            since="",
            board=c.board_text(rules, loaded.state, seat, loaded.names, finished=loaded.finished),
            asked=f"You can type, for example: {common['can_type']}\n",
        )
    return c.answer_to_seat(
        session, settings, loaded, seat, name, email, kind=word, text=text, now=now
    )


def _subject(session: Session, game_id: str | None) -> str:
    game = session.get(Game, game_id) if game_id else None
    if game is None:
        return "[pbem] your mail"
    return c.subject_of(game.game, game.id)


def rate_limit_allows(session: Session, sender: str, kind: str, now: datetime) -> bool:
    """True (and remembered) for the first error reply of this kind to this sender today."""
    day = now.strftime("%Y-%m-%d")
    key = (sender.lower()[:320], kind[:40], day)
    row = session.get(ErrorReplySent, key)
    if row is not None:
        row.suppressed += 1
        session.add(row)
        return False
    try:
        with session.begin_nested():
            session.add(ErrorReplySent(sender=key[0], kind=key[1], day=key[2]))
    except IntegrityError:  # another worker answered the same sender at the same moment
        return False
    return True


def reply_mail(
    session: Session,
    settings: Settings,
    incoming: Incoming,
    *,
    kind: str,
    to_address: str,
    to_name: str,
    text: str,
    game_id: str | None,
    seat: int | None,
    version: int | None,
    now: datetime,
    head_hash: str | None = None,
    board: MailBoard | None = None,
) -> OutboxMail | None:
    """An error (or confirmation) reply to ``incoming``, unless the rate limit says no."""
    if not to_address or not rate_limit_allows(session, to_address, kind, now):
        return None
    references: list[str] = []
    in_reply_to = None
    if incoming.message_id:
        try:
            in_reply_to = msgid(incoming.message_id).strip("<>")
            references = [in_reply_to]
        except ValueError:
            in_reply_to = None
    reply_to = None
    if game_id is not None and seat is not None and version is not None:
        # Answering the error mail is answering the position it shows.
        reply_to = c.seat_reply_address(session, settings, game_id, seat, version)
    if in_reply_to is not None and game_id is not None:
        references = [c.thread_root(settings, game_id), *references]
    try:
        return c.outbox_mail(
            settings,
            kind="confirm" if kind == "confirm" else "error",
            game_id=game_id,
            seat=seat,
            to_name=to_name,
            to_address=to_address,
            subject=_subject(session, game_id),
            text=text,
            now=now,
            version=version,
            head_hash=head_hash,
            reply_to=reply_to,
            in_reply_to=in_reply_to,
            references=references,
            board=board,
        )
    except ValueError as error:  # an address we cannot write to (a malformed sender)
        log.info("no reply to %r: %s", to_address, error)
        return None
