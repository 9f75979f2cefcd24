"""Receipts, on SQLite and PostgreSQL: a mail's version and head hash checked against the chain
recomputed from the stored events (``pbem verify-receipt``), and a secret action's salt against
its commitment once the votes are revealed — a changed vote or salt fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from pbem.app.service import GameService
from pbem.audit.receipts import check_receipt
from pbem.core import chain
from pbem.core import events as ev
from pbem.core.errors import BadRequest
from pbem.core.replay import verify
from tests.helpers import database_of
from tests.service.test_games import play
from web.cli import main


def _staked(service: GameService) -> tuple[str, int, str]:
    """A hoard game at the vote: seat 0 has staked in secret. (game, its version, its salt)"""
    gid = service.create_game("hoard", {"rounds": 2}, [{"name": "A"}, {"name": "B"}]).id
    for seat, move in [(0, "draw"), (1, "draw")]:
        play(service, gid, seat, move)
    play(service, gid, 0, f"stake {service.load(gid).view(0)['my_purse'][0]}")
    event = service.raw_events(gid)[-1]
    p = event.payload
    assert isinstance(p, ev.ActionApplied) and p.secret and p.nonce and p.commitment
    return gid, event.version, p.nonce


def _set_data(service: GameService, gid: str, version: int, change: dict[str, object]) -> None:
    event = service.raw_events(gid)[version - 1]
    with database_of(service).write() as s:
        s.execute(
            text("UPDATE events SET data = :d WHERE game_id = :g AND version = :v"),
            {"d": chain.canonical_json({**event.data, **change}), "g": gid, "v": version},
        )


def test_a_mails_receipt_is_checked_against_the_chain_recomputed(service: GameService) -> None:
    gid, version, _ = _staked(service)
    loaded = service.load(gid, at=3)
    good = check_receipt(database_of(service), gid, 3, loaded.head_hash.upper())
    assert good.ok and good.matches and good.chain_hash == loaded.head_hash
    other = service.load(gid, at=2).head_hash
    wrong = check_receipt(database_of(service), gid, 3, other)
    assert not wrong.matches and loaded.head_hash in wrong.message
    with pytest.raises(BadRequest, match="versions 1 to"):
        check_receipt(database_of(service), gid, version + 1, other)
    with pytest.raises(BadRequest, match="64 hexadecimal"):
        check_receipt(database_of(service), gid, 3, "abc")
    # History rewritten before the receipt's version: the receipt no longer checks, even
    # though the stored hash column was left as it was.
    with database_of(service).write() as s:
        s.execute(
            text(
                "UPDATE events SET recorded_at = recorded_at || ' ' WHERE game_id = :g "
                "AND version = 2"
            ),
            {"g": gid},
        )
    broken = check_receipt(database_of(service), gid, 3, loaded.head_hash)
    assert not broken.ok and broken.chain_hash is None
    assert "broken at version 2" in broken.message


def test_a_vote_receipt_checks_after_the_reveal_and_fails_if_the_vote_or_salt_changed(
    service: GameService,
) -> None:
    gid, version, salt = _staked(service)
    receipt_hash = service.load(gid, at=version).head_hash
    early = check_receipt(database_of(service), gid, version, receipt_hash, salt)
    # Before the reveal nothing is wrong: the vote is pending, not failed.
    assert early.vote is not None and early.vote.status == "pending"
    assert early.ok and early.vote.committed_text is None  # no oracle before the reveal
    assert "not revealed yet: check again with your salt after the reveal" in early.vote.message
    play(service, gid, 1, "pass")  # the last stake: every stake is revealed
    good = check_receipt(database_of(service), gid, version, receipt_hash, salt)
    assert good.ok and good.vote is not None and good.vote.status == "matches"
    assert good.vote.committed_text is not None and "stake" in good.vote.committed_text
    changed_salt = ("0" if salt[0] != "0" else "1") + salt[1:]
    bad = check_receipt(database_of(service), gid, version, receipt_hash, changed_salt)
    assert bad.matches and not bad.ok
    assert bad.vote is not None and bad.vote.status == "does not match"
    # The stored vote changed after the reveal (its commitment kept, so the chain's hash
    # still matches): the commitment gives it away, to the receipt and to replay --verify.
    _set_data(service, gid, version, {"canonical": "pass", "action": ["pass"], "text": "pass"})
    forged = check_receipt(database_of(service), gid, version, receipt_hash, salt)
    assert not forged.ok and "does not match its commitment" in forged.message
    with database_of(service).read() as s:
        report = verify(s, gid, service.registry)
    assert report.first_bad_version == version
    assert "does not match its commitment" in report.problems[0].message


def test_a_public_action_has_no_vote_to_check(service: GameService) -> None:
    gid, _, salt = _staked(service)
    result = check_receipt(database_of(service), gid, 3, service.load(gid, at=3).head_hash, salt)
    assert result.vote is not None and result.vote.status == "not a committed secret action"


def test_pbem_verify_receipt(service: GameService, database_url: str, tmp_path: Path) -> None:
    gid, version, salt = _staked(service)
    play(service, gid, 1, "pass")
    receipt_hash = service.load(gid, at=version).head_hash
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    runner = CliRunner()

    def run(*args: str) -> tuple[int, str]:
        result = runner.invoke(main, ["verify-receipt", *args], env=env)
        return result.exit_code, result.output

    code, out = run(gid, str(version), receipt_hash)
    assert code == 0 and f"✔ Version {version} of game {gid} has this hash" in out
    code, out = run(gid, str(version), receipt_hash, "--salt", salt)
    assert code == 0 and "is the one committed to" in out
    code, out = run(gid, str(version), receipt_hash, "--salt", "f" * 32)
    assert code == 1 and "does not give the commitment" in out
    code, out = run(gid, str(version - 1), receipt_hash)
    assert code == 1 and "✘" in out and "not the one your mail was sent from" in out
    code, out = run(gid, "999", receipt_hash)
    assert code == 1 and "does not exist" in out


def test_pbem_verify_receipt_before_the_reveal_is_pending_not_failed(
    service: GameService, database_url: str, tmp_path: Path
) -> None:
    gid, version, salt = _staked(service)
    receipt_hash = service.load(gid, at=version).head_hash
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    result = CliRunner().invoke(
        main, ["verify-receipt", gid, str(version), receipt_hash, "--salt", salt], env=env
    )
    assert result.exit_code == 0, result.output
    assert "✘" not in result.output
    assert f"… The secret action at version {version} is committed as" in result.output
    assert "not revealed yet: check again with your salt after the reveal" in result.output


def _hoard_to_reveal(service: GameService) -> tuple[str, str, int, int, str]:
    """Both seats keep, seat 0 stakes nothing in secret, seat 1's stake reveals both.
    (game, admin token, the secret stake's version, the reveal's version, the stake's salt)"""
    created = service.create_game("hoard", {"rounds": 3}, [{"name": "A"}, {"name": "B"}])
    gid = created.id
    play(service, gid, 0, "keep")
    play(service, gid, 1, "keep")
    first = play(service, gid, 0, "pass").version
    p = service.raw_events(gid)[-1].payload
    assert isinstance(p, ev.ActionApplied) and p.nonce
    reveal = play(service, gid, 1, "pass").version
    return gid, created.admin_token, first, reveal, p.nonce


def test_a_vote_taken_back_before_its_reveal_is_said_retracted_not_pending(
    service: GameService,
) -> None:
    created = service.create_game("hoard", {"rounds": 3}, [{"name": "A"}, {"name": "B"}])
    gid = created.id
    play(service, gid, 0, "keep")
    play(service, gid, 1, "keep")
    first = play(service, gid, 0, "pass").version
    p = service.raw_events(gid)[-1].payload
    assert isinstance(p, ev.ActionApplied) and p.nonce
    receipt_hash = service.load(gid, at=first).head_hash
    service.undo(gid, 0, channel="api")
    taken_back = check_receipt(database_of(service), gid, first, receipt_hash, p.nonce)
    assert taken_back.vote is not None and taken_back.vote.status == "retracted"
    assert taken_back.ok and taken_back.vote.committed_text is None
    assert "taken back at version" in taken_back.vote.message
    assert "check again" not in taken_back.vote.message


def test_a_vote_retracted_by_an_upheld_dispute_after_its_reveal_is_still_checked(
    service: GameService,
) -> None:
    gid, admin, first, _, salt = _hoard_to_reveal(service)
    receipt_hash = service.load(gid, at=first).head_hash
    opened = service.open_dispute(gid, 0, first, None, "I staked by mistake", channel="api")
    service.resolve_dispute(gid, admin, opened.dispute, uphold=True, reason="a slip")
    checked = check_receipt(database_of(service), gid, first, receipt_hash, salt)
    assert checked.vote is not None and checked.vote.status == "matches", checked.vote
    assert checked.ok
    other = ("0" if salt[0] != "0" else "1") + salt[1:]
    wrong = check_receipt(database_of(service), gid, first, receipt_hash, other)
    assert wrong.vote is not None and wrong.vote.status == "does not match"
