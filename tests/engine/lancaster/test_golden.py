"""The golden transcript of a seeded 3-player game must replay exactly (see golden/)."""

from __future__ import annotations

from tests.engine.lancaster import golden


def test_the_seeded_3_player_game_matches_its_golden_transcript() -> None:
    fresh = golden.transcript().splitlines()
    stored = golden.stored().splitlines()
    for i, (a, b) in enumerate(zip(fresh, stored, strict=False)):
        assert a == b, (
            f"golden transcript differs at line {i + 1}:\n  stored: {b}\n  now:    {a}\n"
            "If the change is intended: .venv/bin/python -m tests.engine.lancaster.golden "
            "--update, then review the diff."
        )
    assert len(fresh) == len(stored), "the transcript length changed"
    assert any(line.startswith("== outcome:") for line in stored)
