"""The audit page: every event of a game as the viewer may see it (version, time, who,
channel, the text as submitted, the canonical action, the hash), the hash chain and the
whole game checked by the service's verifier (the first bad version named), the seed's
commitment and, once the game is over, the seed with the command that re-runs the game; and
a download of the log as the viewer may see it; and every dispute with the evidence of its
steps, as the viewer may see it (a seat: its own moves in full; the game's administrator,
whose token the page takes once as ``?admin=`` like a seat's link: everything). The receipt
page checks a mail's version and head hash against the chain, and a secret action's salt
against its commitment.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, render_template, request

from pbem.audit.export import bundle_text
from pbem.audit.players import players_of
from pbem.audit.receipts import ReceiptCheck
from pbem.core import events as ev
from pbem.core.errors import BadRequest, ServiceError
from pbem.core.naming import Names
from pbem.core.numbers import NumberError, read_int
from web.pages import common as pc
from web.pages.admin_links import take_admin_link

audit = Blueprint("audit", __name__)


@audit.get("/games/<game_id>/audit")
def audit_page(game_id: str) -> Any:
    svc = pc.service()
    public = request.args.get("view") == "public"
    presented = request.args.get("admin")
    if presented:
        return take_admin_link(game_id, presented, "audit")
    try:
        seat = None if public else pc.session_seat(game_id)
        report = svc.verify_game(game_id)
        admin = not public and svc.is_admin(game_id, pc.held_admin(game_id))
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    try:
        disputes = svc.audit(game_id, viewer=seat, admin=admin)["disputes"]
    except (ServiceError, ev.EventDataError, ValueError, KeyError):
        # A log that cannot be read or folded: the page still says what is wrong with it;
        # evidence is assembled only from a log that can be.
        disputes = None
    try:
        events = svc.events(game_id, 0, seat)
        unreadable = None
    except (ev.EventDataError, ValueError, KeyError) as e:
        events = []
        unreadable = f"The stored events cannot be read: {e}"
    try:
        names = svc.load(game_id).names
    except (ServiceError, ValueError, KeyError):
        names = _names(events)  # the log cannot even be folded: its own names
    lines = pc.log_lines(events, names)
    created = next((e for e in events if e["type"] == ev.GAME_CREATED), None)
    finished = next((e for e in events if e["type"] == ev.GAME_FINISHED), None)
    bad = {p.version for p in report.problems}
    return render_template(
        "audit.html",
        game_id=game_id,
        game=created["data"]["game"] if created else "game",
        seat=seat,
        names=pc.seat_names(names),
        lines=lines,
        report=report,
        problems=sorted(report.problems, key=lambda p: p.version),
        bad=bad,
        unreadable=unreadable,
        commitment=created["data"]["seed_commitment"] if created else None,
        seed=finished["data"]["seed"] if finished else None,
        public=public,
        admin=admin,
        disputes=disputes,
        players=players_of(events),
    )


@audit.get("/games/<game_id>/receipt")
def receipt_page(game_id: str) -> Any:
    """Check a mail's receipt (version and head hash), and a secret action's salt: a form,
    and the answer when it is filled in."""
    svc = pc.service()
    asked = {k: request.args.get(k, "").strip() for k in ("version", "hash", "salt")}
    result: ReceiptCheck | None = None
    problem: str | None = None
    status = 200
    if asked["version"] or asked["hash"]:
        try:
            try:
                version = read_int(asked["version"], what="the version", minimum=1)
            except NumberError:
                raise BadRequest(
                    "The version is a whole number, as at the foot of your mail."
                ) from None
            result = svc.check_receipt(game_id, version, asked["hash"], asked["salt"] or None)
        except ServiceError as e:
            if e.status == 404:
                return pc.refused(e.message, e.status)
            problem, status = e.message, e.status
    return render_template(
        "receipt.html", game_id=game_id, asked=asked, result=result, problem=problem
    ), status


def _names(events: list[dict[str, Any]]) -> Names:
    """Names from the log itself (the audit page trusts nothing but the events)."""
    created = next((e for e in events if e["type"] == ev.GAME_CREATED), None)
    if created is None:
        return Names(())
    return Names(tuple(s["name"] for s in created["data"]["seats"]))


@audit.get("/games/<game_id>/export.json")
def export(game_id: str) -> Any:
    """The game's verifiable record as a file to keep, in the format the offline verifier
    checks (``pbem.audit.export``, ``python -m pbem.audit.verify``): a seat's own bundle (the
    others' secret choices not yet revealed carried as their commitments, their standing
    orders left out, so the chain still checks) or the administrator's whole bundle.

    Decision: not for spectators. The log's events hold the players' e-mail addresses and
    each move as it was typed (with its mail's Message-ID), and the hash chain covers them, so
    a bundle that leaves them out would not check; the seats, who play with those players,
    and the administrator may have it, anyone else gets the audit page (every event, without
    them)."""
    svc = pc.service()
    try:
        seat = pc.session_seat(game_id)
        admin = seat is None and svc.is_admin(game_id, pc.held_admin(game_id))
        if seat is None and not admin:  # (a private game answered "no such game" before this)
            return pc.refused(
                "The game's record holds its players' e-mail addresses and each move as it "
                "was typed, so only the game's seats (from their seat page) and its "
                "administrator may download it. The audit page shows every event without them.",
                403,
            )
        bundle = svc.export_game(game_id, seat) if seat is not None else svc.export_game(game_id)
    except ServiceError as e:
        return pc.refused(e.message, e.status)
    return Response(
        bundle_text(bundle) + "\n",
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="pbem-{game_id}.json"'},
    )
