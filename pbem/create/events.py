"""The events of creating a game besides its creation itself: the game starts
(``GameStarted``, right after ``GameCreated``, naming the seats that act first) and an invited
seat's player accepts the invitation (``InvitationAccepted``). ``GameCreated`` is the core's
(``pbem.core.events``): the store, the repository and replay fold a game from it.

Each is a frozen dataclass whose schema is derived from it (``pbem.core.event_base``); the
composition root registers them (``CREATION_EVENTS``) with the other event types
(``pbem.app.bootstrap.register_features``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pbem.core.event_base import Channel, Payload

GAME_STARTED = "GameStarted"
#: the player of an invited seat agreed to get the game's mails (docs/mail.md, "Invitations")
INVITATION_ACCEPTED = "InvitationAccepted"


@dataclass(frozen=True)
class GameStarted(Payload):
    TYPE: ClassVar[str] = GAME_STARTED
    to_act: tuple[int, ...]


@dataclass(frozen=True)
class InvitationAccepted(Payload):
    TYPE: ClassVar[str] = INVITATION_ACCEPTED
    seat: int
    #: web (the link in the invitation) or email (a reply to it)
    channel: Channel


CREATION_EVENTS = (GameStarted, InvitationAccepted)

#: events that change neither the position nor anything a seat decides on: a submission
#: made before them is as good as one made after them
BOOKKEEPING = frozenset({INVITATION_ACCEPTED})
