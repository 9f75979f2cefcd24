"""The golden transcripts of seeded games must replay exactly (see golden/): a 3-player base
game, and a 4-player game with the Henry V modules this version plays."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.lancaster import golden


@pytest.mark.parametrize(("path", "players", "seed", "modules"), golden.goldens())
def test_the_seeded_game_matches_its_golden_transcript(
    path: Path, players: int, seed: int, modules: tuple[str, ...]
) -> None:
    fresh = golden.transcript(players, seed, modules).splitlines()
    stored = golden.stored(path).splitlines()
    for i, (a, b) in enumerate(zip(fresh, stored, strict=False)):
        assert a == b, (
            f"{path.name} differs at line {i + 1}:\n  stored: {b}\n  now:    {a}\n"
            "If the change is intended: .venv/bin/python -m tests.engine.lancaster.golden "
            "--update, then review the diff."
        )
    assert len(fresh) == len(stored), "the transcript length changed"
    assert any(line.startswith("== outcome:") for line in stored)
