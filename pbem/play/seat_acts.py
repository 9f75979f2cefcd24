"""The events a seat causes through a channel (a mail, the web, the API): its actions, its
undo and its answers to undo requests, its resignation, and its disputes and answers to them.
The confirmation mail answers each (``pbem.play.mails``), and the log shows a seat its own as
it made them (``pbem.play.views``)."""

from __future__ import annotations

from pbem.core import events as ev
from pbem.disputes import events as dispute_events
from pbem.undo import events as undo_events

#: the events a seat causes, through a channel
SEAT_ACTS = (
    ev.ActionApplied,
    undo_events.UndoRequested,
    undo_events.UndoDecided,
    ev.ActionsRetracted,
    ev.PlayerResigned,
    dispute_events.DisputeOpened,
    dispute_events.DisputeAnswered,
)
