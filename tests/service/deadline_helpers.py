"""Helpers of the deadline suites: a service on a stopped clock, the clock's events appended
as a unit of work would append them, and the deadlines rows as stored."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlmodel import select

from pbem.app.bootstrap import build_service
from pbem.app.service import GameService
from pbem.clock import events as ce
from pbem.core import events as ev
from pbem.core.db import Database
from pbem.core.models import Deadline
from pbem.core.time_source import ManualClock, format_time
from tests.helpers import database_of
from tests.service.helpers import REGISTRY
from tests.settings import make_settings

PLAYERS = [{"name": n, "email": f"{n.lower()}@example.org"} for n in ("Ann", "Bob", "Cy", "Di")]
#: a Monday morning, far from any daylight-saving change
MONDAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def timed_service(database: Database, tmp_path: Path, start: datetime = MONDAY) -> GameService:
    return build_service(
        make_settings(database.url, tmp_path),
        db=database,
        registry=REGISTRY,
        listeners=[],
        clock=ManualClock(start),
    )


def clock_of(service: GameService) -> ManualClock:
    clock = service.clock
    assert isinstance(clock, ManualClock)
    return clock


def wait(service: GameService, **delta: float) -> datetime:
    clock = clock_of(service)
    clock.advance(timedelta(**delta))
    return clock.now()


def append(service: GameService, game_id: str, *events: ev.Appendable) -> None:
    """``events`` appended in one unit of work, as the clock's commands will append them."""
    with service.parts.transactions.on(game_id) as work:
        work.append(list(events), work.state)


def play(service: GameService, game_id: str, seat: int | None = None, **how: Any) -> int:
    """``seat`` (default: the lowest that owes an action) plays the engine's default action."""
    loaded = service.load(game_id)
    seat = min(loaded.to_act) if seat is None else seat
    action = loaded.rules.auto_action(loaded.state, seat)
    text = loaded.rules.format_action(loaded.state, action)
    how.setdefault("channel", "api")
    service.submit(game_id, seat, text, expected_version=loaded.version, **how)
    return seat


def rows(service: GameService, game_id: str) -> dict[int, Deadline]:
    with database_of(service).read() as session:
        found = session.exec(select(Deadline).where(Deadline.game_id == game_id)).all()
        for row in found:
            session.expunge(row)
    return {r.seat: r for r in found}


def at(when: datetime | None) -> str | None:
    return None if when is None else format_time(when)


def paused(by_seat: int | None = None) -> ce.GamePaused:
    return ce.GamePaused(
        by="administrator" if by_seat is None else "seat",
        by_seat=by_seat,
        channel="api",
        channel_ref=None,
    )


def resumed() -> ce.GameResumed:
    return ce.GameResumed(by="administrator", by_seat=None, channel="api", channel_ref=None)


def extended(seat: int, seconds: int) -> ce.DeadlineExtended:
    return ce.DeadlineExtended(
        seat=seat,
        seconds=seconds,
        by="administrator",
        by_seat=None,
        channel="api",
        channel_ref=None,
    )


def away(seat: int, until: datetime) -> ce.VacationStarted:
    return ce.VacationStarted(seat=seat, until=format_time(until), channel="api", channel_ref=None)


def back(seat: int) -> ce.VacationEnded:
    return ce.VacationEnded(seat=seat, channel="api", channel_ref=None)


def standing(seat: int, text: str | None) -> ce.StandingOrderSet:
    return ce.StandingOrderSet(seat=seat, text=text, channel="api", channel_ref=None, salt="")


def accept_all(service: GameService, game_id: str) -> str:
    """Every invited seat of the game accepts (a seat's clock starts when it does)."""
    for seat in range(len(service.load(game_id).seats)):
        service.accept_invitation(game_id, seat, channel="web")
    return game_id
