"""The one reader of typed whole numbers (``pbem.core.numbers.read_int``), the durations read
with it, and the command line's doors: digits other than 0 to 9, signs, spaces and huge
values are refused with a message, never a crash; on the command line a usage error or a
clean ``Error:``, never a traceback (on SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pbem.app.bootstrap import build_service
from pbem.app.config import DEFAULT_CONFIG, SettingsError, load_settings
from pbem.app.service import GameService
from pbem.audit.export import export_game
from pbem.audit.verify import verify_bundle
from pbem.clock.time_control import TimeControlError, parse_duration, parse_time_control
from pbem.core.db import Database
from pbem.core.errors import BadRequest
from pbem.core.numbers import LARGEST, NumberError, read_int
from tests.helpers import database_of
from tests.service.helpers import REGISTRY
from tests.service.test_bundles import _hoard, _rechained
from tests.settings import make_settings
from tests.typed_numbers import NOT_DURATIONS, NOT_NUMBERS, SAMPLES
from web.cli import main

QUICK = settings(max_examples=300, deadline=None, derandomize=True)


@QUICK
@given(text=st.text(max_size=30) | NOT_NUMBERS)
def test_a_number_is_ascii_digits_or_it_is_refused(text: str) -> None:
    try:
        value = read_int(text, what="the version", maximum=None)
    except NumberError as e:
        assert e.status == 400 and e.message.startswith("The version ")
        assert isinstance(e, BadRequest) and isinstance(e, ValueError)
        return
    digits = text.strip(" \t\r\n")
    assert digits and set(digits) <= set("0123456789") and value == int(digits)


@pytest.mark.parametrize("text", SAMPLES)
def test_each_sample_is_refused_with_what_to_write(text: str) -> None:
    with pytest.raises(NumberError, match=r"^The seat (must be a whole number|has \d+ digits)"):
        read_int(text, what="the seat")


def test_the_bounds_are_said() -> None:
    assert read_int(" 42 ", what="the version") == 42
    assert read_int("007", what="the version") == 7
    with pytest.raises(
        NumberError, match=r"^The version must be a whole number from 1 to 9, not 0"
    ):
        read_int("0", what="the version", minimum=1, maximum=9)
    with pytest.raises(NumberError, match=f"from 0 to {LARGEST}, not {LARGEST + 1}"):
        read_int(LARGEST + 1, what="the seat")
    with pytest.raises(NumberError, match="must be a whole number, not True"):
        read_int(True, what="the seat")
    # A sign only where a negative number is allowed.
    assert read_int("-3", what="the offset", minimum=-5) == -3
    with pytest.raises(NumberError, match="written with the digits 0 to 9"):
        read_int("-3", what="the seat")


@QUICK
@given(text=NOT_DURATIONS)
@example(text="5ſ")  # the long s, which IGNORECASE took for "s"
def test_a_duration_with_other_digits_is_refused_with_a_message(text: str) -> None:
    with pytest.raises(TimeControlError, match=r"^grace: .*(digits 0 to 9|not a duration|365)"):
        parse_duration(text, "grace")
    with pytest.raises(TimeControlError):
        parse_time_control(text)
    with pytest.raises(TimeControlError):
        parse_time_control({"kind": "clock", "initial": "3d", "increment": text})
    if re.fullmatch(r"[0-9]+\.[0-9]+", text) is None:  # "5.0" is a share (5%), not a slip
        with pytest.raises(TimeControlError):
            parse_time_control({"preset": "standard", "remind_at_fraction": text})


def test_the_message_says_which_digits() -> None:
    with pytest.raises(TimeControlError, match="with the digits 0 to 9 only"):
        parse_time_control("²")
    with pytest.raises(TimeControlError, match="with the digits 0 to 9 only"):
        parse_duration("٤٨h", "extension")
    # What was read before still is.
    assert parse_duration(" 1d 12h ") == 36 * 3600
    assert parse_time_control({"preset": "standard", "remind_at_fraction": "80 %"})


# -- the command line ---------------------------------------------------------------------

Run = Callable[..., Result]


@pytest.fixture
def run(database_url: str, tmp_path: Path) -> Run:
    env = {"PBEM_DATABASE_URL": database_url, "PBEM_VAR_DIR": str(tmp_path / "var")}
    runner = CliRunner()

    def invoke(*args: str, token: str | None = None) -> Result:
        extra = {"PBEM_ADMIN_TOKEN": token} if token else {}
        # Exceptions caught: a traceback would be one, and the assertions say so.
        return runner.invoke(main, list(args), env={**env, **extra}, catch_exceptions=True)

    return invoke


def _doors(game_id: str) -> list[Callable[[str], tuple[str, ...]]]:
    """Each command-line door with one number in it."""
    return [
        lambda n: ("extend", game_id, n, "24h"),
        lambda n: ("extend", game_id, "0", n),
        lambda n: ("time-control", game_id, n),
        lambda n: ("new-game", "lancelot", "--player", "A", "--player", "B", "--time-control", n),
        lambda n: ("show", game_id, "--at", n),
        lambda n: ("show", game_id, "--seat", n),
        lambda n: ("act", game_id, n, "E5"),
        lambda n: ("act", game_id, "0", "E5", "--expected-version", n),
        lambda n: ("log", game_id, "--seat", n),
        lambda n: ("rotate-token", game_id, n),
        lambda n: ("export", game_id, "--seat", n),
        lambda n: ("verify-receipt", game_id, n, "a" * 64),
        lambda n: ("admin", "resign", game_id, n),
        lambda n: ("admin", "resolve", game_id, n, "--dismiss", "--reason", "no"),
        lambda n: ("audit", game_id, "--version", n),
        lambda n: ("audit", game_id, "--seat", n),
        lambda n: ("dispute", game_id, n, "2", "wrong"),
        lambda n: ("dispute", game_id, "0", n, "wrong"),
        lambda n: ("mail", "retry", n),
        lambda n: ("mail", "rotate-key", game_id, n),
        lambda n: ("mail", "inbound", "--limit", n),
        lambda n: ("serve", "--port", n),
    ]


def test_the_command_line_refuses_every_bad_number_cleanly(
    run: Run, database: Database, tmp_path: Path
) -> None:
    service = build_service(
        make_settings(database.url, tmp_path), db=database, registry=REGISTRY, listeners=[]
    )
    game = service.create_game(
        "lancelot", {}, [{"name": "Ann"}, {"name": "Bob"}], time_control="48h"
    )
    version = service.load(game.id).version
    doors = _doors(game.id)

    @settings(
        max_examples=60,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(door=st.sampled_from(range(len(doors))), number=NOT_DURATIONS)
    @example(door=1, number="²")  # pbem extend GAME 0 ²: a traceback before
    @example(door=2, number="²")
    @example(door=3, number="²")
    @example(door=0, number="٣")  # read as seat 3 before
    def refused(door: int, number: str) -> None:
        args = doors[door](number)
        result = run(*args, token=game.admin_token)
        _refused_cleanly(args, result)

    refused()
    for door in doors:  # one of each, whatever the examples drew
        for number in ("²", "9" * 400):
            _refused_cleanly(door(number), run(*door(number), token=game.admin_token))
    assert service.load(game.id).version == version  # nothing changed


def _refused_cleanly(args: tuple[str, ...], result: Result) -> None:
    shown: Any = (args, result.output, result.exception)
    assert isinstance(result.exception, SystemExit), shown
    assert result.exit_code in (1, 2), shown  # ClickException or usage error
    assert "Traceback" not in result.output, shown
    assert result.output.startswith(("Error:", "Usage:")), shown


# -- the offline verifier -------------------------------------------------------------------


def test_a_bundle_with_other_digits_fails_verification_without_a_crash(
    service: GameService,
) -> None:
    """A bundle is anyone's file: "seat ²" and a revealed seed "²" (rechained, as a forger
    would) passed ``str.isdigit()`` and crashed ``int()`` in ``pbem verify-export``."""
    bundle = export_game(database_of(service), _hoard(service))
    seen_by = verify_bundle({**bundle, "seen_by": "seat ²"}, REGISTRY)
    assert [str(p) for p in seen_by.problems] == [
        "seen_by: 'seat ²' is not 'everything', 'public' nor 'seat N'"
    ]
    forged = _rechained(bundle, len(bundle["events"]), {"seed": "²"})
    seed = verify_bundle({**forged, "seed": "²"}, REGISTRY)
    assert not seed.ok and "is not a decimal number" in str(seed.problems), seed.problems


@pytest.mark.parametrize("typed", ["٣", "１２", "1_000", "9" * 5000])
def test_a_setting_typed_with_other_digits_is_refused(typed: str, tmp_path: Path) -> None:
    """An operator's number too: ``int()`` read "٣" as 3 and "1_000" as 1000."""
    env = {"PBEM_SNAPSHOT_EVERY": typed, "PBEM_VAR_DIR": str(tmp_path)}
    with pytest.raises(SettingsError, match="PBEM_SNAPSHOT_EVERY must be a whole number"):
        load_settings(DEFAULT_CONFIG, env=env)
    read = load_settings(DEFAULT_CONFIG, env={**env, "PBEM_SNAPSHOT_EVERY": " 12 "})
    assert read.snapshot_every == 12
