"""Review (issue 27): a private message's words, and another seat's standing order, cannot
be guessed by a seat they are not for. Its export carries the event's hash and time (the
chain's link); without a salt, hashing "yes" (or a legal move) with the known fields
confirmed them."""

from __future__ import annotations

from pbem.app.service import GameService
from pbem.audit.export import bundle_text, export_game
from pbem.audit.verify import verify_bytes
from pbem.core import chain
from tests.helpers import database_of
from tests.service.helpers import REGISTRY


def _confirms(event: dict, game_id: str, guess: dict) -> bool:
    canonical = chain.canonical_event(
        game_id,
        event["version"],
        event["type"],
        event["schema_version"],
        guess,
        event["recorded_at"],
    )
    return chain.chain_hash(event["prev_hash"], canonical) == event["hash"]


def test_a_seat_cannot_confirm_a_guess_of_a_message_not_for_it(service: GameService) -> None:
    made = service.create_game("hoard", {"players": 3}, [{"name": n} for n in ("Ann", "Bob", "Cy")])
    sent = service.send_talk(made.id, 0, "yes", (1,), channel="api")
    db = database_of(service)
    cy = export_game(db, made.id, 2)
    withheld = next(e for e in cy["events"] if e["version"] == sent.version)
    assert withheld["data"] is None
    guess = {"seat": 0, "recipients": [1], "text": "yes", "channel": "api", "channel_ref": None}
    for salt in ({}, {"salt": ""}):
        assert not _confirms(withheld, made.id, {**guess, **salt})
    # Bob, its reader, holds the salt: his export checks, the link hashes from its data.
    bob = export_game(db, made.id, 1)
    read = next(e for e in bob["events"] if e["version"] == sent.version)
    assert read["data"]["text"] == "yes" and len(read["data"]["salt"]) == 32
    assert _confirms(read, made.id, read["data"])
    for bundle in (cy, bob):
        report = verify_bytes(bundle_text(bundle).encode(), REGISTRY)
        assert report.ok, report.problems


def test_a_seat_cannot_confirm_a_guess_of_another_seats_standing_order(
    service: GameService,
) -> None:
    """The same for a standing order (it may name a vote): withheld from the other seats'
    exports, its hash and time are not, and the legal moves are few enough to try."""
    names = [{"name": "Ann"}, {"name": "Bob"}]
    made = service.create_game("lancelot", {}, names, time_control="48h")
    service.set_standing_order(made.id, 1, "K11", channel="api")
    db = database_of(service)
    anns = export_game(db, made.id, 0)
    [withheld] = [e for e in anns["events"] if e["type"] == "StandingOrderSet"]
    assert withheld["data"] is None
    guess = {"seat": 1, "text": "K11", "channel": "api", "channel_ref": None}
    for salt in ({}, {"salt": ""}):
        assert not _confirms(withheld, made.id, {**guess, **salt})
    bobs = export_game(db, made.id, 1)
    [own] = [e for e in bobs["events"] if e["type"] == "StandingOrderSet"]
    assert own["data"]["text"] == "K11" and _confirms(own, made.id, own["data"])
