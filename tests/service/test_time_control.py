"""A time control as people write it: presets, durations, objects; refusals that say what to
change; the JSON stored in ``TimeControlSet`` gives back the same time control."""

from __future__ import annotations

from typing import Any

import pytest

from pbem.clock.time_control import (
    DAY,
    HOUR,
    MINUTE,
    PRESETS,
    TimeControl,
    TimeControlError,
    format_duration,
    parse_duration,
    parse_time_control,
)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("48h", 48 * HOUR),
        ("1d 12h", DAY + 12 * HOUR),
        ("1d12h", DAY + 12 * HOUR),
        ("90s", 90),
        ("2m", 2 * MINUTE),
        ("2M 30S", 150),
        (" 3 d ", 3 * DAY),
        ("3600", 3600),
        (7200, 7200),
        ("365d", 365 * DAY),
        ("0", 0),
    ],
)
def test_durations(text: Any, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("48 hours", "is not a duration; write it like 48h"),
        ("1.5h", "is not a duration"),
        ("-5", "is not a duration"),
        ("", "is not a duration"),
        (-5, "must be between 0 and 365 days"),
        ("366d", "must be between 0 and 365 days"),
        (True, "expected a duration"),
        (1.5, "is not a duration"),
        (None, "is not a duration"),
    ],
)
def test_bad_durations(text: Any, message: str) -> None:
    with pytest.raises(TimeControlError, match=message):
        parse_duration(text, "grace")
    with pytest.raises(TimeControlError, match=r"^grace: "):
        parse_duration(text, "grace")


def test_format_duration() -> None:
    assert format_duration(DAY + 4 * HOUR + 5) == "1 day 4 hours"
    assert format_duration(2 * DAY) == "2 days"
    assert format_duration(90) == "1 minute 30 seconds"
    assert format_duration(0) == "0 seconds"
    assert format_duration(-3) == "0 seconds"


@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_by_name(name: str) -> None:
    assert parse_time_control(name) is PRESETS[name]
    assert parse_time_control(f"  {name.upper()} ") is PRESETS[name]
    assert TimeControl.from_json(PRESETS[name].to_json()) == PRESETS[name]


def test_the_presets() -> None:
    assert parse_time_control(None) == TimeControl()
    assert not PRESETS["none"].enabled
    relaxed = PRESETS["relaxed"]
    assert (relaxed.kind, relaxed.initial, relaxed.increment, relaxed.cap) == (
        "clock", 72 * HOUR, 12 * HOUR, 120 * HOUR,
    )  # fmt: skip
    assert (PRESETS["standard"].kind, PRESETS["standard"].per_decision) == ("fixed", 48 * HOUR)
    assert PRESETS["fast"].per_decision == 12 * HOUR
    assert PRESETS["demo"].per_decision == 3 * MINUTE


def test_a_duration_is_a_fixed_time_per_move() -> None:
    tc = parse_time_control("1d 12h")
    assert (tc.kind, tc.per_decision, tc.initial, tc.cap) == ("fixed", 36 * HOUR, None, None)
    assert tc.enabled


def test_objects() -> None:
    tc = parse_time_control({"preset": "fast", "grace": "1h", "reminders": "2h, 30m"})
    assert (tc.kind, tc.per_decision, tc.grace, tc.reminders) == (
        "fixed", 12 * HOUR, HOUR, (2 * HOUR, 30 * MINUTE),
    )  # fmt: skip
    clock = parse_time_control(
        {"kind": "clock", "initial": "3d", "increment": "12h", "cap": "5d", "per_decision": "1h"}
    )
    assert (clock.initial, clock.increment, clock.cap, clock.per_decision) == (
        3 * DAY, 12 * HOUR, 5 * DAY, None,
    )  # fmt: skip
    zone = parse_time_control(
        {"preset": "standard", "weekend_pause": True, "time_zone": "Europe/Paris"}
    )
    assert zone.weekend_pause and zone.time_zone == "Europe/Paris"
    reminders = parse_time_control({"preset": "standard", "reminders": ["4h", "24h", "4h"]})
    assert reminders.reminders == (DAY, 4 * HOUR)  # sorted, largest first, once each
    assert parse_time_control({"preset": "standard", "reminders": "24h and 1h"}).reminders == (
        DAY,
        HOUR,
    )
    assert parse_time_control({"preset": "standard", "on_deadline": "wait"}).on_deadline == "wait"
    none = parse_time_control({"kind": "none", "per_decision": "1h"})
    assert none == TimeControl()


@pytest.mark.parametrize(
    ("given", "fraction"),
    [(0.8, 0.8), ("80%", 0.8), (80, 0.8), ("0.5", 0.5), (None, None), (False, None)],
)
def test_fractions(given: Any, fraction: float | None) -> None:
    tc = parse_time_control({"preset": "standard", "remind_at_fraction": given})
    assert tc.remind_at_fraction == fraction
    assert TimeControl.from_json(tc.to_json()) == tc


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("weekly", "'weekly' is neither a preset .* nor a duration per move such as 48h"),
        (42.5, "give a preset's name, a duration per move, or an object"),
        ({"preset": "blitz"}, "unknown preset 'blitz'; the presets are none, relaxed"),
        ({"preset": "standard", "grace_period": "1h"}, "unknown field 'grace_period'"),
        ({"kind": "hourglass"}, "kind 'hourglass': use one of none, fixed, clock"),
        ({"preset": "standard", "time_zone": "Mars/Olympus"}, "'Mars/Olympus' is not a time"),
        ({"preset": "standard", "time_zone": "../etc"}, "is not a time zone"),
        ({"kind": "clock", "increment": "1h"}, "a clock needs initial"),
        ({"kind": "fixed"}, "a fixed time control needs per_decision"),
        ({"kind": "clock", "initial": "3d", "cap": "2d"}, "cap must be at least its initial"),
        ({"kind": "fixed", "per_decision": -3600}, "per_decision: .* between 0 and 365 days"),
        ({"kind": "fixed", "per_decision": "400d"}, "between 0 and 365 days"),
        ({"preset": "standard", "grace": "soon"}, "grace: 'soon' is not a duration"),
        ({"preset": "standard", "remind_at_fraction": 1.5}, "write a share such as 0.8, or 80%"),
        ({"preset": "standard", "remind_at_fraction": 150}, "a share between 0 and 1"),
        ({"preset": "standard", "remind_at_fraction": "most"}, "'most' is not a share"),
        ({"preset": "standard", "remind_at_fraction": True}, "a share such as 0.8"),
        ({"preset": "standard", "remind_at_fraction": "0%"}, "a share between 0 and 1"),
        ({"preset": "standard", "reminders": 3}, "give a list of durations"),
        ({"preset": "standard", "weekend_pause": "yes"}, "weekend_pause: true or false"),
        ({"preset": "standard", "on_deadline": "skip"}, "use move .* or wait"),
    ],
)
def test_refusals(given: Any, message: str) -> None:
    with pytest.raises(TimeControlError, match=message):
        parse_time_control(given)


def test_a_too_long_duration_per_move_says_so() -> None:
    """ "400d" is a duration, just too long: the message says that, not "not a duration"."""
    with pytest.raises(TimeControlError, match="between 0 and 365 days"):
        parse_time_control("400d")


def test_round_trip() -> None:
    tc = parse_time_control(
        {
            "kind": "clock",
            "initial": "3d",
            "increment": "12h",
            "cap": "5d",
            "reminders": ["24h", "4h"],
            "remind_at_fraction": 0.75,
            "grace": "2h",
            "weekend_pause": True,
            "time_zone": "Europe/Paris",
            "on_deadline": "wait",
            "vacation": "7d",
        }
    )
    data = tc.to_json()
    assert data["remind_at_fraction"] == 75  # canonical JSON has no floats
    assert all(not isinstance(v, float) for v in data.values())
    assert TimeControl.from_json(data) == tc


def test_describe() -> None:
    assert PRESETS["none"].describe() == "no time limit"
    assert PRESETS["standard"].describe() == "2 days per move"
    assert PRESETS["relaxed"].describe() == "clock: 3 days, +12 hours per move, at most 5 days"
    tc = parse_time_control(
        {
            "preset": "fast",
            "grace": "1h",
            "weekend_pause": True,
            "time_zone": "Europe/Paris",
            "on_deadline": "wait",
        }
    )
    assert tc.describe() == (
        "12 hours per move, 1 hour grace, weekends (Europe/Paris) don't count; "
        "a late move waits for the administrator"
    )
    assert parse_time_control({"kind": "clock", "initial": "1d"}).describe() == "clock: 1 day"
