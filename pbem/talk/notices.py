"""Table talk's webhook notice (``pbem.webhooks.notices``): the recipients of a message are
told that someone wrote to them, where they are (Discord, Slack, their own server).

The notice names the writer and whether the message was to the whole table or to them, and
links nothing but the game's public page; it never carries the words. A player's webhook may
post into a channel that others read, and a private message must reach only its recipients
(as its mail and page do); the words are in the seat's mail and on its page. The game's
administrator's webhooks get nothing: table talk is not public.
"""

from __future__ import annotations

from pbem.core.events import StoredEvent
from pbem.core.unit_of_work import AppendContext
from pbem.talk.events import TableTalkSent
from pbem.webhooks.notices import Notice, title


def table_talk_notice(ctx: AppendContext, event: StoredEvent) -> list[Notice]:
    said = event.payload
    if not isinstance(said, TableTalkSent):
        return []
    names = ctx.names
    everyone = frozenset(s.seat for s in ctx.seats)
    readers = (frozenset(said.recipients) if said.recipients else everyone) - {said.seat}
    if not readers:
        return []
    if not said.recipients:
        to = "the table"
    elif len(said.recipients) == 1:
        to = "you"
    else:  # each recipient knows whom the message is for: it reads so on the page
        to = names.many(said.recipients)
    text = (
        f"Game {ctx.game_id} ({title(ctx)}): {names.of(said.seat)} wrote to {to}. "
        "Read it in your mail or on your page."
    )
    data = {
        "game": ctx.game,
        "game_id": ctx.game_id,
        "version": event.version,
        "seat": said.seat,
        "private": bool(said.recipients),
    }
    return [Notice("talk", text, readers, data)]
