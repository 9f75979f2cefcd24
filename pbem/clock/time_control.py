"""A game's time control, as data: how long a seat has for each decision, when it is
reminded, and what happens when the time is up.

Three kinds (docs/deadlines.md):

- ``none``: no deadline; the game waits for each player.
- ``fixed``: the same time for every decision (e.g. 48 h).
- ``clock``: a bank of time per seat, spent while the seat owes a decision, topped up by
  ``increment`` after each of its decisions and never above ``cap`` (Rally the Troops'
  "72 h, +12 h per move, at most 120 h").

Options: ``reminders`` (times before the deadline), ``remind_at_fraction`` (one more reminder
when that share of the time is gone, e.g. 0.8), ``grace`` (how long after the deadline the
deadline move waits), ``weekend_pause`` (Saturday and Sunday in ``time_zone`` do not count),
``on_deadline`` (``move``: the seat's standing order or the engine's default is played;
``wait``: the game waits for the administrator), ``vacation`` (the time each seat may be
away, per game) and ``substitute_after_missed`` (after how many deadlines missed in a row the
other seats may propose a substitute for a seat, ``pbem.handover``; 0: only the administrator).

Durations are whole seconds, written for people as ``48h``, ``1d 12h``, ``90s`` or ``2m``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.core.numbers import NumberError, read_int

Kind = Literal["none", "fixed", "clock"]
OnDeadline = Literal["move", "wait"]

KINDS: tuple[Kind, ...] = ("none", "fixed", "clock")
ON_DEADLINE: tuple[OnDeadline, ...] = ("move", "wait")

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR
#: longer than any game should wait for one decision; refuses typos such as ``4800d``
LONGEST = 365 * DAY


class TimeControlError(ValueError):
    """A time control that cannot be used; the message says what to change."""


@dataclass(frozen=True)
class TimeControl:
    kind: Kind = "none"
    #: seconds per decision (``fixed``)
    per_decision: int | None = None
    #: the bank each seat starts with (``clock``)
    initial: int | None = None
    #: added to a seat's bank after each of its decisions (``clock``)
    increment: int = 0
    #: the most a bank can hold (``clock``); None: no cap
    cap: int | None = None
    #: seconds before the deadline at which the late seat is reminded
    reminders: tuple[int, ...] = (DAY, 4 * HOUR)
    #: one more reminder when this share of the decision's time is gone (None: not sent)
    remind_at_fraction: float | None = 0.8
    #: seconds after the deadline before the deadline move is made
    grace: int = 0
    #: Saturdays and Sundays (in ``time_zone``) do not count
    weekend_pause: bool = False
    time_zone: str = "UTC"
    on_deadline: OnDeadline = "move"
    #: seconds each seat may be away (``away until …``) in this game
    vacation: int = 14 * DAY
    #: deadlines a seat must miss in a row before the other seats may propose a substitute
    #: for it (``pbem.handover.rules``); 0: only the administrator may
    substitute_after_missed: int = 2

    @property
    def enabled(self) -> bool:
        return self.kind != "none"

    @property
    def decision_time(self) -> int:
        """One decision's time, the measure of what a dispute may cost the others: the time
        per move, a clock's starting bank, or a day in a game without a time limit."""
        return self.per_decision or self.initial or DAY

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["reminders"] = list(self.reminders)
        # Stored in events as canonical JSON, which has no floats: the fraction is kept in
        # percent (0.8 → 80).
        fraction = self.remind_at_fraction
        data["remind_at_fraction"] = None if fraction is None else round(fraction * 100)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TimeControl:
        """The time control as ``to_json`` wrote it (already validated when stored)."""
        fraction = data.get("remind_at_fraction")
        return cls(
            kind=data["kind"],
            per_decision=data.get("per_decision"),
            initial=data.get("initial"),
            increment=data.get("increment", 0),
            cap=data.get("cap"),
            reminders=tuple(data.get("reminders", ())),
            remind_at_fraction=None if fraction is None else fraction / 100,
            grace=data.get("grace", 0),
            weekend_pause=data.get("weekend_pause", False),
            time_zone=data.get("time_zone", "UTC"),
            on_deadline=data.get("on_deadline", "move"),
            vacation=data.get("vacation", 14 * DAY),
            # games created before substitutes existed: the default
            substitute_after_missed=data.get("substitute_after_missed", 2),
        )

    def describe(self) -> str:
        """One line for people: ``48 hours per move``, ``clock: 3 days, +12 hours …``."""
        if self.kind == "none":
            return "no time limit"
        if self.kind == "fixed":
            assert self.per_decision is not None
            text = f"{format_duration(self.per_decision)} per move"
        else:
            assert self.initial is not None
            text = f"clock: {format_duration(self.initial)}"
            if self.increment:
                text += f", +{format_duration(self.increment)} per move"
            if self.cap:
                text += f", at most {format_duration(self.cap)}"
        if self.grace:
            text += f", {format_duration(self.grace)} grace"
        if self.weekend_pause:
            text += f", weekends ({self.time_zone}) don't count"
        if self.on_deadline == "wait":
            text += "; a late move waits for the administrator"
        return text


#: For people who do not want to choose (docs/deadlines.md lists them).
PRESETS: dict[str, TimeControl] = {
    "none": TimeControl(),
    # Rally the Troops' default clock: 72 h, +12 h per move, capped at 120 h.
    "relaxed": TimeControl(
        kind="clock", initial=3 * DAY, increment=12 * HOUR, cap=5 * DAY, weekend_pause=False
    ),
    "standard": TimeControl(kind="fixed", per_decision=2 * DAY),
    "fast": TimeControl(kind="fixed", per_decision=12 * HOUR, reminders=(4 * HOUR, HOUR)),
    # For trying the service out: a deadline move within minutes (``make run``'s demo game).
    "demo": TimeControl(
        kind="fixed", per_decision=3 * MINUTE, reminders=(2 * MINUTE, MINUTE), vacation=HOUR
    ),
}

_UNITS = {"d": DAY, "h": HOUR, "m": MINUTE, "s": 1}
# ASCII only: without it ``\d`` reads "٣" and IGNORECASE lets the long s "ſ" pass for "s".
_PART = re.compile(r"([0-9]+)\s*([dhms])", re.IGNORECASE | re.ASCII)
_DURATION = re.compile(r"^\s*(?:[0-9]+\s*[dhms]\s*)+$", re.IGNORECASE | re.ASCII)
_SECONDS = re.compile(r"^\s*[0-9]+\s*$", re.ASCII)
_SHARE = re.compile(r"^(?:[0-9]{1,3}(?:\.[0-9]{0,6})?|\.[0-9]{1,6})(?:\s*%)?$", re.ASCII)
_WRITE_IT = "write it like 48h, 1d 12h, 30m or 90s"


def parse_duration(text: str, what: str = "duration") -> int:
    """``48h``, ``1d 12h``, ``90s``, ``2m`` (or a bare number of seconds) → seconds."""
    if isinstance(text, bool):
        raise TimeControlError(f"{what}: expected a duration such as 48h, got {text!r}")
    if isinstance(text, int):
        seconds = text
    elif isinstance(text, str) and _foreign_digits(text):
        raise TimeControlError(
            f"{what}: {text[:40]!r} is not a duration: write its numbers with the digits "
            f"0 to 9 only, like 48h, 1d 12h, 30m or 90s"
        )
    elif isinstance(text, str) and _SECONDS.match(text):
        seconds = _number(text, text, what)
    elif isinstance(text, str) and _DURATION.match(text):
        seconds = sum(_number(n, text, what) * _UNITS[u.lower()] for n, u in _PART.findall(text))
    else:
        raise TimeControlError(f"{what}: {text!r} is not a duration; {_WRITE_IT}")
    if seconds < 0 or seconds > LONGEST:
        raise TimeControlError(f"{what}: {text!r} must be between 0 and 365 days")
    return seconds


def _foreign_digits(text: str) -> bool:
    """Whether ``text`` has digits other than 0 to 9 ("²", "٣", "１"): a duration written
    with them is refused with a message that says so."""
    return any(c.isdigit() and not c.isascii() for c in text)


def _number(digits: str, text: str, what: str) -> int:
    try:
        return read_int(digits, what=what, maximum=None)
    except NumberError:  # only digits get here: too many of them
        raise TimeControlError(f"{what}: {text[:40]!r} must be between 0 and 365 days") from None


def format_duration(seconds: int) -> str:
    """``1 day 4 hours``; at most the two largest units, since it is read at a glance."""
    seconds = max(0, int(seconds))
    parts: list[str] = []
    for unit, size in (("day", DAY), ("hour", HOUR), ("minute", MINUTE), ("second", 1)):
        n, seconds = divmod(seconds, size)
        if n:
            parts.append(f"{n} {unit}{'' if n == 1 else 's'}")
    return " ".join(parts[:2]) if parts else "0 seconds"


_FIELDS = {
    "preset",
    "kind",
    "per_decision",
    "initial",
    "increment",
    "cap",
    "reminders",
    "remind_at_fraction",
    "grace",
    "weekend_pause",
    "time_zone",
    "on_deadline",
    "vacation",
    "substitute_after_missed",
}


def parse_time_control(value: Any) -> TimeControl:
    """A time control from what a person gave: a preset's name (``standard``), a duration
    per move (``48h``), or an object (``{"preset": "fast", "grace": "1h"}``,
    ``{"kind": "clock", "initial": "3d", "increment": "12h", "cap": "5d"}``).

    Raises TimeControlError with a message that says what to change."""
    if value is None:
        return PRESETS["none"]
    if isinstance(value, str):
        name = value.strip().lower()
        if name in PRESETS:
            return PRESETS[name]
        if _DURATION.match(value) or _SECONDS.match(value) or _foreign_digits(value):
            # a duration, maybe too long, zero or with other digits than 0 to 9: its own
            # message says what to change
            return _checked(
                TimeControl(kind="fixed", per_decision=parse_duration(value, "time control"))
            )
        raise TimeControlError(
            f"time control {value!r} is neither a preset ({', '.join(PRESETS)}) nor a "
            "duration per move such as 48h"
        )
    if not isinstance(value, dict):
        raise TimeControlError(
            "time control: give a preset's name, a duration per move, or an object"
        )
    unknown = sorted(set(value) - _FIELDS)
    if unknown:
        raise TimeControlError(
            f"time control: unknown field {unknown[0]!r}; "
            f"the fields are {', '.join(sorted(_FIELDS))}"
        )
    base = PRESETS["none"]
    if "preset" in value:
        preset = value["preset"]
        if not isinstance(preset, str) or preset.lower() not in PRESETS:
            raise TimeControlError(
                f"time control: unknown preset {preset!r}; the presets are {', '.join(PRESETS)}"
            )
        base = PRESETS[preset.lower()]
    changes: dict[str, Any] = {}
    if "kind" in value:
        if value["kind"] not in KINDS:
            raise TimeControlError(
                f"time control kind {value['kind']!r}: use one of {', '.join(KINDS)}"
            )
        changes["kind"] = value["kind"]
    for name in ("per_decision", "initial", "cap"):
        if name in value:
            changes[name] = None if value[name] is None else parse_duration(value[name], name)
    for name in ("increment", "grace", "vacation"):
        if name in value:
            changes[name] = parse_duration(value[name], name)
    if "reminders" in value:
        reminders = value["reminders"]
        if isinstance(reminders, str):
            reminders = [r for r in re.split(r"[,\s]+and\s+|,", reminders) if r.strip()]
        if not isinstance(reminders, list):
            raise TimeControlError('reminders: give a list of durations, e.g. ["24h", "4h"]')
        changes["reminders"] = tuple(
            sorted({parse_duration(r, "reminders") for r in reminders}, reverse=True)
        )
    if "remind_at_fraction" in value:
        changes["remind_at_fraction"] = _fraction(value["remind_at_fraction"])
    if "weekend_pause" in value:
        if not isinstance(value["weekend_pause"], bool):
            raise TimeControlError("weekend_pause: true or false")
        changes["weekend_pause"] = value["weekend_pause"]
    if "time_zone" in value:
        changes["time_zone"] = value["time_zone"]
    if "substitute_after_missed" in value:
        changes["substitute_after_missed"] = _missed(value["substitute_after_missed"])
    if "on_deadline" in value:
        if value["on_deadline"] not in ON_DEADLINE:
            raise TimeControlError(
                f"on_deadline {value['on_deadline']!r}: use move (the standing order or the "
                "default move is played) or wait (the administrator decides)"
            )
        changes["on_deadline"] = value["on_deadline"]
    return _checked(replace(base, **changes))


#: the most deadlines ``substitute_after_missed`` may ask for
MOST_MISSED = 20


def _missed(value: Any) -> int:
    """``substitute_after_missed``: a whole number from 0 (only the administrator) to 20."""
    what = "substitute_after_missed"
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TimeControlError(f"{what}: a whole number of deadlines, 0 to {MOST_MISSED}")
    try:
        return read_int(value, what=what, minimum=0, maximum=MOST_MISSED)
    except NumberError as e:
        raise TimeControlError(f"{what}: {e}") from None


def _fraction(value: Any) -> float | None:
    if value is None or value is False:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TimeControlError("remind_at_fraction: a share such as 0.8 or 80%, or null")
    text = str(value).strip()
    if isinstance(value, str) and not _SHARE.match(text):
        # float() would also read "٠.٨", "1_0", "nan" and "1e9": a share is written plainly
        raise TimeControlError(f"remind_at_fraction: {value[:40]!r} is not a share such as 0.8")
    number = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    if number > 1:
        # 80 reads as 80%; 1.5 is more likely a slip than 1.5%, so it is not guessed at
        if not number.is_integer():
            raise TimeControlError(
                f"remind_at_fraction: {value!r} — write a share such as 0.8, or 80%"
            )
        number /= 100
    if not 0 < number < 1:
        raise TimeControlError("remind_at_fraction: a share between 0 and 1 (e.g. 0.8)")
    return round(number, 2)


def _checked(tc: TimeControl) -> TimeControl:
    """The time control, if its fields fit its kind; else TimeControlError."""
    try:
        ZoneInfo(tc.time_zone)
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        raise TimeControlError(
            f"time_zone {tc.time_zone!r} is not a time zone; use a name such as Europe/Paris"
        ) from None
    if tc.kind == "none":
        return replace(tc, per_decision=None, initial=None, increment=0, cap=None)
    if tc.kind == "fixed":
        if not tc.per_decision:
            raise TimeControlError("a fixed time control needs per_decision, e.g. 48h")
        return replace(tc, initial=None, increment=0, cap=None)
    if not tc.initial:
        raise TimeControlError("a clock needs initial (each seat's starting bank), e.g. 3d")
    if tc.cap is not None and tc.cap < tc.initial:
        raise TimeControlError("a clock's cap must be at least its initial bank")
    return replace(tc, per_decision=None)


__all__ = [
    "DAY",
    "HOUR",
    "MINUTE",
    "PRESETS",
    "TimeControl",
    "TimeControlError",
    "format_duration",
    "parse_duration",
    "parse_time_control",
]
