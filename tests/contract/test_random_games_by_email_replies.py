"""The service contract's mail door for every game but Lancaster (whose cases are in
``test_lancaster_random_games_by_email_replies.py``): each covering case (every player count
and every option set of the game, ``doors.COVERING``) played to the end by e-mail replies,
each reply written to the latest mail its seat received; the stored game must verify and
reach the very state the engine alone reaches with the same choices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.contract.doors import MAIL_OTHERS, SEEDS, by_email, ids
from tests.contract.players import MailDoor


@pytest.mark.parametrize(("name", "config"), MAIL_OTHERS, ids=ids(MAIL_OTHERS))
@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_finish_by_email_replies(
    mail_door: MailDoor,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    name: str,
    config: dict[str, Any],
    seed: int,
) -> None:
    by_email(mail_door, monkeypatch, name, config, seed, tmp_path)
