"""Who may read a message of table talk, the one place that decides it (docs/mail.md,
"Table talk"): its writer, and the seats it is for (every seat, for ``say``). Nobody else:
not the other seats, not spectators or the public page (table talk is among the players),
and not a seat's export. To them a message is not even listed: the log they see skips its
version, as it skips another seat's standing order, and a seat's export carries only its
link of the hash chain (``pbem.audit.export``). The game's administrator sees every message
(to hide one).

A message the administrator hid reads, to those who could read it, "hidden by the
administrator: <reason>" in place of its words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pbem.core.events import StoredEvent
from pbem.talk import events as talk_events

#: What a hidden message reads in place of its words.
HIDDEN = "hidden by the administrator: {reason}"


def may_read(message: talk_events.TableTalkSent, viewer: int | None) -> bool:
    """Whether ``viewer`` (a seat; None: a spectator or the public) may read ``message``."""
    if viewer is None:
        return False
    return not message.recipients or viewer == message.seat or viewer in message.recipients


def hidden_reasons(events: Iterable[StoredEvent]) -> dict[int, str]:
    """The administrator's reason for each message hidden in ``events``, by its version."""
    found: dict[int, str] = {}
    for e in events:
        if e.type == talk_events.TABLE_TALK_HIDDEN:
            p = e.payload
            assert isinstance(p, talk_events.TableTalkHidden)
            found[p.message] = p.reason
    return found


def messages_by_version(events: Iterable[StoredEvent]) -> dict[int, talk_events.TableTalkSent]:
    found = {}
    for e in events:
        if e.type == talk_events.TABLE_TALK_SENT:
            p = e.payload
            assert isinstance(p, talk_events.TableTalkSent)
            found[e.version] = p
    return found


class TalkLog:
    """What deciding a talk event's visibility needs of the log it is in, read once: which
    messages were hidden (and why), and each message by its version."""

    def __init__(self, events: Iterable[StoredEvent]) -> None:
        talk = [e for e in events if e.type in talk_events.TALK_TYPES]
        self.hidden = hidden_reasons(talk)
        self.messages = messages_by_version(talk)


def visible_data(
    e: StoredEvent, viewer: int | None, log: TalkLog | Sequence[StoredEvent]
) -> dict[str, Any] | None:
    """A talk event's payload as ``viewer`` may see it in the log; None: not shown at all.
    ``log``: the log it is in (whether the message was hidden, and whose the message a
    hiding names is), read once for many events as a ``TalkLog``."""
    if not isinstance(log, TalkLog):
        log = TalkLog(log)
    p = e.payload
    if isinstance(p, talk_events.TableTalkSent):
        if not may_read(p, viewer):
            return None
        data = dict(e.data)
        if viewer != p.seat:
            data["channel_ref"] = None  # the Message-ID is its writer's
        reason = log.hidden.get(e.version)
        if reason is not None:
            data["text"] = HIDDEN.format(reason=reason)
            data["hidden"] = True
        return data
    if isinstance(p, talk_events.TableTalkHidden):
        message = log.messages.get(p.message)
        if message is None or not may_read(message, viewer):
            return None
        return dict(e.data)
    return None


def talk_text(kind: str, d: Mapping[str, Any], who: Any) -> str:
    """One talk event as people read it in the log (``who``: a seat's name for people)."""
    if kind == talk_events.TABLE_TALK_HIDDEN:
        return f"The administrator hid the message at version {d['message']}: {d['reason']}"
    to = "everyone" if not d["recipients"] else ", ".join(who(s) for s in d["recipients"])
    return f"{who(d['seat'])} to {to}: {d['text']}"
