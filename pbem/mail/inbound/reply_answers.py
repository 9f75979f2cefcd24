"""A reply's informational answers, mailed as one (docs/mail.md): ``help``, ``show`` and
what each clock line did. A reply of forty such lines brings one mail, not thirty, so that
nobody can use the service to multiply mails; and a clock line that repeats the one before
it of the same command is applied once (forty ``default D4`` lines append one event:
``pbem.mail.inbound.reply_words`` passes such repeats over).

The answer goes to the seat's own address, as every answer to a reply does; a reply that
asks for one kind of answer gets the very mail it always got (``help``, ``show``,
``clock``), and one that asks for several gets them in one mail of kind ``answers``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session

from pbem.app.config import Settings
from pbem.clock import replies as clock_replies
from pbem.core.repository import Loaded
from pbem.mail.inbound import replies
from pbem.mail.inbound.reply_words import Done, ReplyLine, ReplyWords
from pbem.mail.models import OutboxMail
from pbem.mail.outbound import compose as c


@dataclass
class Answers:
    """What a reply asked to be told, gathered while its lines are applied."""

    #: what each clock line did, in order (an identical answer once, where it came last:
    #: the mail then ends with what holds)
    clock: list[str] = field(default_factory=list)
    help: bool = False
    show: bool = False

    def __bool__(self) -> bool:
        return bool(self.clock) or self.help or self.show

    def add(self, kind: str, text: str) -> None:
        """What a line asked to be told (``Done.tell``): ``help``, ``show``, or what a clock
        line did (``clock``, with its text)."""
        if kind == "help":
            self.help = True
        elif kind == "show":
            self.show = True
        elif kind == "clock":
            if text in self.clock:
                self.clock.remove(text)
            self.clock.append(text)
        else:
            raise ValueError(f"no answer of kind {kind!r}")

    def mail(
        self,
        session: Session,
        settings: Settings,
        loaded: Loaded,
        seat: int,
        name: str,
        email: str,
        now: datetime,
    ) -> OutboxMail | None:
        """The one mail that answers them (the position as ``loaded`` has it), or None."""
        if not self:
            return None
        if not self.clock and self.help != self.show:
            word = "help" if self.help else "show"
            return replies.info_mail(session, settings, loaded, seat, name, email, word, now)
        if not (self.help or self.show):
            text = "\n\n".join(self.clock)
            return clock_replies.answer_mail(
                session, settings, loaded, seat, name, email, text, now
            )
        rules = loaded.rules
        can_type = c.can_type(rules, loaded.state, seat)
        parts = [c.MARKER, f"{rules.name.title()}, game {loaded.game_id}: your answers."]
        parts.extend(self.clock)
        if self.show:
            board = c.board_text(rules, loaded.state, seat, loaded.names, finished=loaded.finished)
            parts.append(f"The position:\n\n{board.rstrip()}")
            parts.append(f"You can type, for example: {can_type}")
        if self.help:
            parts.append(replies.commands_text(loaded, seat).rstrip())
            parts.append(f"Rules and how to write each move: {c.rules_link(settings, rules)}")
        link = c.seat_link(session, settings, loaded.game_id, seat)
        parts.append(f"Game page: {link}\n{c.receipt(loaded.version, loaded.head_hash)}")
        return c.answer_to_seat(
            session,
            settings,
            loaded,
            seat,
            name,
            email,
            kind="answers",
            text="\n\n".join(parts) + "\n",
            now=now,
        )


def register_reply_words(words: ReplyWords) -> None:
    """``help`` (the commands) and ``show`` (the position): answered, each once per reply
    however often it asks, in the reply's one answer mail."""

    def ask(line: ReplyLine) -> Done:
        return Done(did=line.word, tell=(line.word, ""))

    words.line("help", ask, once=True)
    words.line("show", ask, once=True)
