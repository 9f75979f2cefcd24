"""The clock's mail commands (docs/deadlines.md), each a line on its own in a reply to any
mail of the game:

- ``default <move>``: a standing order for the seat's next deadline; ``default none`` clears it;
- ``away until 2026-12-24`` (or ``… 2026-12-24 18:00``, UTC) / ``back``: a vacation in every
  game of the sender's address;
- ``extend`` / ``extend 24h``, ``pause``, ``resume``: asking the other players' consent;
- ``agree extend`` / ``disagree pause`` …: answering such a request (the word after
  ``agree`` tells it from a dispute's ``agree 45``);
- ``time zone Europe/Paris`` (or ``timezone …``; ``time zone UTC`` resets): the zone every
  deadline shown to the sender's address is also given in (``pbem.clock.preferences``), in all
  its games; no game changes;
- ``digest daily`` / ``digest off``: one mail a day listing the games waiting for the
  sender's address instead of a mail at each turn (``pbem.clock.digest``); no game
  changes.

Each is applied through the game service and answered with a mail saying what was done.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from sqlmodel import Session

from pbem.app.config import Settings
from pbem.app.service import GameService
from pbem.clock.commands import (
    DATE_FORMAT,
    VacationResult,
    duration,
    note_sentence,
    parse_until,
)
from pbem.clock.display import due_text, when_text
from pbem.clock.time_control import format_duration
from pbem.core.errors import BadRequest
from pbem.core.repository import Loaded
from pbem.core.time_source import Clock, format_time
from pbem.mail.inbound.reply_words import Done as Did
from pbem.mail.inbound.reply_words import ReplyLine, ReplyWords
from pbem.mail.models import OutboxMail
from pbem.mail.outbound import compose as c

CHANNEL = "email"

_LINE = re.compile(
    r"^(?:(?P<default>default)\b\s*:?\s*(?P<order>.*)"
    r"|(?P<away>away)\b\s*(?:until\b)?\s*(?P<until>.*)"
    r"|(?P<back>back)"
    r"|(?P<ask>extend|pause|resume)\b\s*(?P<seconds>.*)"
    r"|(?P<answer>agree|disagree)\s+(?:to\s+)?(?P<what>extend|extension|pause|resume)"
    r"|(?P<zone>time ?zone)\b:?\s*(?P<zone_name>.*?)"
    r"|(?P<digest>digest)\b:?\s*(?P<digest_mode>.*?)"
    r")\s*[.!]?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Done:
    #: the game's version after the command (None: this game did not change)
    version: int | None
    #: what was done, in a few words (the inbound log)
    did: str
    #: the answer mailed to the sender
    answer: str


def is_clock_line(line: str) -> bool:
    return _LINE.match(" ".join(line.split())) is not None


#: the setting each kind of line changes, by the name of its first group in ``_LINE``
_COMMANDS = {"default": "default", "away": "vacation", "back": "vacation", "ask": "ask",
             "answer": "answer", "zone": "zone", "digest": "digest"}  # fmt: skip


def command_of(line: str) -> str | None:
    """What the clock line sets (``default``, ``vacation`` for ``away`` and ``back``,
    ``ask`` for ``extend``, ``pause`` and ``resume`` …), None for another line: a line that
    repeats the latest of the same command changes nothing more."""
    match = _LINE.match(" ".join(line.split()))
    if match is None:
        return None
    return next(command for name, command in _COMMANDS.items() if match.group(name))


#: The clock's reply words, by the name of their group in ``_LINE``.
_WORDS = {"default": "default", "away": "away until", "back": "back",
          "ask": "extend, pause, resume", "answer": "agree/disagree extend, pause, resume",
          "zone": "time zone", "digest": "digest"}  # fmt: skip


@lru_cache(maxsize=64)
def _group_of(line: str) -> str | None:
    """The group of ``_LINE`` a line (its spaces normalised) is, if any: remembered, as each
    clock word asks it of every line of a reply."""
    match = _LINE.match(line)
    return None if match is None else next(g for g in _WORDS if match.group(g) is not None)


def _reads(group: str) -> Callable[[str], bool]:
    def reads(line: str) -> bool:
        return _group_of(" ".join(line.split())) == group

    return reads


def _repeat(line: str) -> tuple[str, str] | None:
    """A clock line that repeats the latest of the same command changes nothing more: it is
    passed over (forty ``default D4`` lines append one event;
    ``pbem.mail.inbound.reply_answers``)."""
    line = " ".join(line.split())
    command = command_of(line)
    return None if command is None else (command, line)


def register_reply_words(words: ReplyWords, service: GameService, clock: Clock) -> None:
    """The clock's reply words (the module's docstring), each answered in the reply's answer
    mail with what it did."""

    def apply(line: ReplyLine) -> Did:
        done = apply_line(service, clock, line.game_id, line.seat, line.email, line.text, line.key)
        return Did(done.version, done.did, tell=("clock", done.answer))

    for group, word in _WORDS.items():
        words.pattern(word, _reads(group), apply, repeat=_repeat)


def apply_line(
    service: GameService,
    clock: Clock,
    game_id: str,
    seat: int,
    email: str,
    line: str,
    channel_ref: str,
) -> Done:
    """Apply one clock line of the seat's reply; ServiceError (nothing changed) when it does
    not apply."""
    match = _LINE.match(" ".join(line.split()))
    if match is None:  # the caller asked ``is_clock_line`` first
        raise BadRequest("This line is not a clock command.")
    if match.group("default"):
        order = match.group("order").strip()
        if not order:
            raise BadRequest(
                "Write the move to play at your next deadline after 'default', as you "
                "would write it in a reply, or 'default none' to clear it."
            )
        text = None if order.lower() == "none" else order
        result = service.set_standing_order(
            game_id, seat, text, channel=CHANNEL, channel_ref=channel_ref
        )
        if text is None:
            answer = "Your standing order is cleared: nothing is set for your next deadline."
        elif result.checked:
            answer = (
                f"Standing order set: if your deadline passes, '{text}' is played for you "
                "(it is legal now)."
            )
        else:
            answer = (
                f"Standing order kept: '{text}' is played for you if your next deadline "
                "passes; it will be checked then, and if it is not legal at that moment the "
                "game's default move is played instead."
            )
        return Done(result.version, result.done, answer)
    if match.group("zone"):
        return _time_zone(service, clock, email, match.group("zone_name"))
    if match.group("digest"):
        return _digest(service, email, match.group("digest_mode"))
    if match.group("away"):
        until = parse_until(match.group("until"), clock.now()) if match.group("until") else None
        if until is None:
            raise BadRequest(f"Write 'away until' and the day you are back: {DATE_FORMAT}.")
        results = service.away(email, until, channel=CHANNEL, channel_ref=channel_ref)
        mine = next((r for r in results if r.game_id == game_id), None)
        answer = away_answer(until, results, game_id)
        count = sum(r.version is not None for r in results)
        did = f"away until {format_time(until)} in {count} game(s)"
        return Done(mine.version if mine else None, did, answer)
    if match.group("back"):
        results = service.back(email, channel=CHANNEL, channel_ref=channel_ref)
        mine = next((r for r in results if r.game_id == game_id), None)
        return Done(mine.version if mine else None, "back", back_answer(results, game_id))
    if match.group("ask"):
        what = match.group("ask").lower()
        rest = match.group("seconds").strip()
        if rest and what != "extend":
            raise BadRequest(f"Write '{what}' alone on its line.")
        seconds = duration(rest) if rest else None
        asked = service.request_clock_change(
            game_id, seat, what, seconds, channel=CHANNEL, channel_ref=channel_ref
        )
        if asked.status == "granted":
            answer = f"Done: {asked.done}."
        else:
            answer = (
                f"You {asked.done}. Each of them is asked to reply 'agree {what}' or "
                f"'disagree {what}'; you will hear the outcome."
            )
        return Done(asked.version, asked.done, answer)
    word = match.group("answer").lower()
    what = match.group("what").lower()
    what = "extend" if what == "extension" else what
    answered = service.answer_clock_request(
        game_id, seat, what, word == "agree", channel=CHANNEL, channel_ref=channel_ref
    )
    if answered.status == "granted":  # this answer was the last one asked for
        answer = f"Recorded: you agreed, the last player asked to. Granted: {answered.done}."
    else:
        answer = f"Recorded: you {answered.done}."
    return Done(answered.version, answered.done, answer)


def _time_zone(service: GameService, clock: Clock, email: str, text: str) -> Done:
    """Remember the zone of the sender's address (nothing stored when it is not a zone)."""
    zone = service.set_time_zone(email, text)
    now = clock.now().astimezone(UTC)
    if zone is None:
        answer = (
            f"Time zone cleared: deadlines are shown to {email} in UTC only "
            f"(it is {now:%a %d %b %Y %H:%M} UTC now)."
        )
        return Done(None, "time zone: UTC", answer)
    local = now.astimezone(ZoneInfo(zone))
    answer = (
        f"Time zone set: {zone}. It is {local:%a %d %b %Y %H:%M} there now "
        f"({now:%H:%M} UTC). Every deadline mailed or shown to {email}, in all your games, "
        f"now gives its time in {zone} too. Reply 'time zone UTC' for UTC only."
    )
    return Done(None, f"time zone: {zone}", answer)


def _digest(service: GameService, email: str, mode: str) -> Done:
    """Turn the sender's daily digest on or off (nothing stored for another word)."""
    word = mode.strip().lower()
    if word in ("daily", "on"):
        service.set_digest(email, True)
        answer = (
            f"Daily digest on: {email} no longer gets a mail at each of its turns. Once a "
            "day (UTC) you get one mail listing every game waiting for your move, with its "
            "deadline and board. Every other mail (errors, confirmations, notices, reminders, "
            "game end) still comes. Reply 'digest off' for a mail at each turn again."
        )
        return Done(None, "digest: daily", answer)
    if word == "off":
        service.set_digest(email, False)
        answer = f"Daily digest off: {email} gets a mail at each of its turns again."
        return Done(None, "digest: off", answer)
    raise BadRequest("Write 'digest daily' for one mail a day, or 'digest off'.")


# -- the answers to ``away`` and ``back`` ---------------------------------------------------
# Written for a player who has never read docs/deadlines.md: until when their clocks stop,
# what a game's vacation allowance is, how much is left, and what happens when it runs out
# (the clock runs again, and a deadline that then passes plays the standing order or the
# game's default move for them).

#: What time away does, said once above the games' lines.
AWAY_MEANS = (
    "While you are away your time does not count: your deadlines move later by the time you "
    "are away, so none of them passes and no move is played for you. Each game allows only "
    "so much time away in all, its vacation allowance. Where it runs out before the day you "
    "gave, your clock in that game runs again from then, and if your deadline there passes, "
    "your standing order (if you left one with 'default <move>') or else the game's default "
    "move is played for you."
)


def _game_named(r: VacationResult, here: str) -> str:
    title = f"{r.game.title()}, game {r.game_id}" if r.game else f"Game {r.game_id}"
    return title + (" (this game)" if r.game_id == here else "")


def _allowance(r: VacationResult, after: str = "") -> str:
    """`` This game allows 3 days away in all; after this you have 1 day 9 hours left.``"""
    if r.allowance is None or r.allowance_left is None:
        return ""
    left = format_duration(r.allowance_left) if r.allowance_left > 0 else "none"
    allows = format_duration(r.allowance)
    return f" This game allows {allows} away in all; {after}you have {left} left."


def _deadline(r: VacationResult) -> str:
    return f" Your deadline there is now {due_text(r.due_at)}." if r.due_at else ""


def away_game_lines(until: datetime, results: Sequence[VacationResult], here: str) -> list[str]:
    """What ``away until …`` did in each game of the address, a sentence each (the mail's
    answer and the seat page's notice say the same)."""
    asked = when_text(until)
    lines = []
    for r in results:
        name = _game_named(r, here)
        if r.version is None and r.allowance_left == 0:
            lines.append(
                f"{name}: you have no time away left in this game (it allows "
                f"{format_duration(r.allowance or 0)} in all), so your clock there keeps "
                f"running.{_deadline(r)}"
            )
        elif r.version is None:
            lines.append(f"{name}: nothing changed there: {note_sentence(r.note)}")
        elif r.until is not None and r.until < format_time(until):  # ISO UTC: compared as text
            lines.append(
                f"{name}: the game's vacation allowance runs out first, so your clock there "
                f"stops only until {due_text(r.until)} and runs again then."
                f"{_allowance(r, 'after this ')}{_deadline(r)}"
            )
        else:
            lines.append(
                f"{name}: your clock stops until {asked}."
                f"{_allowance(r, 'after this ')}{_deadline(r)}"
            )
    return lines


def away_answer(until: datetime, results: Sequence[VacationResult], here: str) -> str:
    """The answer to ``away until …``: one paragraph per game of the address."""
    lines = away_game_lines(until, results, here)
    return "\n\n".join(
        [
            f"You are away until {when_text(until)}.",
            AWAY_MEANS,
            "In each of your games:\n" + "\n".join(f"- {line}" for line in lines),
            "Back sooner? Reply 'back' on a line of its own: your clocks run again at once, "
            "and the time away you did not use is kept.",
        ]
    )


def back_game_lines(results: Sequence[VacationResult], here: str) -> list[str]:
    """What ``back`` did in each game of the address, a sentence each."""
    lines = []
    for r in results:
        name = _game_named(r, here)
        if r.version is None:
            lines.append(f"{name}: you were not away there; nothing changed.{_allowance(r)}")
        else:
            lines.append(f"{name}: your clock runs again from now.{_allowance(r)}{_deadline(r)}")
    return lines


def back_answer(results: Sequence[VacationResult], here: str) -> str:
    """The answer to ``back``: one line per game of the address."""
    lines = back_game_lines(results, here)
    return "\n\n".join(
        [
            "Welcome back: your time counts again in every game where you were away, and "
            "your deadlines pass as usual (at a deadline you miss, your standing order or "
            "the game's default move is played for you).",
            "In each of your games:\n" + "\n".join(f"- {line}" for line in lines),
        ]
    )


def answer_mail(
    session: Session,
    settings: Settings,
    loaded: Loaded,
    seat: int,
    name: str,
    email: str,
    text: str,
    now: datetime,
) -> OutboxMail:
    """The answer to a clock line: what was done, and the game's receipt."""
    body = "\n\n".join(
        [
            c.MARKER,
            f"{loaded.rules.name.title()}, game {loaded.game_id}: your clock.",
            text,
            f"Game page: {c.seat_link(session, settings, loaded.game_id, seat)}",
            c.receipt(loaded.version, loaded.head_hash),
        ]
    )
    return c.answer_to_seat(
        session, settings, loaded, seat, name, email, kind="clock", text=body + "\n", now=now
    )
