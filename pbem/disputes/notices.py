"""The texts of disputes in the game's mails: the headline of the notice every seat gets when
a dispute is opened or resolved, and the paragraph every mail carries while one is open."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pbem.core.events import StoredEvent
from pbem.core.models import Dispute
from pbem.core.naming import Names
from pbem.disputes import events as dispute_events


def dispute_headline(new: Sequence[StoredEvent]) -> str | None:
    """The headline of the notice every seat gets when a dispute is opened or resolved."""
    for e in new:
        if e.type == dispute_events.DISPUTE_OPENED:
            return "a move is disputed."
        if isinstance(p := e.payload, dispute_events.DisputeResolved):
            return f"dispute {p.dispute} is {p.outcome}."
    return None


def dispute_notice(
    row: Dispute | None, viewer: int, names: Names, *, consent_possible: bool = True
) -> str:
    """What every mail says while a dispute is open (``row``: one of
    ``pbem.disputes.projection.open_disputes``, read once for all the mails of an append): what
    it is about, and how to answer. ``consent_possible``: False when upholding it would cross a
    draw or a reveal (``pbem.disputes.rules.administrator_only``): then no seat is asked to
    agree."""
    if row is None:
        return ""
    versions = json.loads(row.versions)
    about = (
        f"version {versions[0]}" if len(versions) == 1 else f"versions {versions[0]}-{versions[-1]}"
    )

    line = f"Dispute {row.dispute}: {names.of(row.seat)} disputes {about}: “{row.text}”."
    answers = {int(k): v for k, v in json.loads(row.answers).items()}
    if viewer == row.seat:
        line += (
            " The other players and the game's administrator have been told. Your own clock "
            "keeps running meanwhile."
        )
    elif viewer in answers:
        line += " You answered; the others or the administrator decide."
    elif not consent_possible:
        line += (
            " Taking those moves back would go back across a draw or a reveal: only the "
            f"game's administrator can uphold this dispute. Reply 'disagree {row.dispute}' if "
            "you think the moves stand."
        )
    else:
        line += (
            f" Reply 'agree {row.dispute}' to retract those moves (and what was played after "
            f"them), or 'disagree {row.dispute}' to leave it to the game's administrator."
        )
    return line
