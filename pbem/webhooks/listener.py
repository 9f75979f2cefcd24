"""The webhook outbox's writer: each append's notices, as deliveries, in the append's
transaction (``WebhookListener.on_appended``, a listener like the mail outbox), and the
deadline reminders' notices in the sweep's transaction (``write_reminder_notices``).

A notice goes to the subscriptions its audience allows (``pbem.webhooks.notices``): a game's
subscriptions get the public notices; an address's subscriptions get the public notices of
every game it plays in and the notices of its own seats. One delivery per notice and
subscription, even when one address plays several seats of a game.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import TextClause, text
from sqlmodel import Session

from pbem.app.config import Settings
from pbem.clock.display import due_text
from pbem.clock.preferences import address_key  # the mails' facts key the same way
from pbem.core.hot_path import fetch_rows, insert_rows
from pbem.core.models import Deadline, Game, Seat
from pbem.core.time_source import Clock, SystemClock, format_time
from pbem.core.unit_of_work import AppendContext
from pbem.mail.outbound.compose import WEBHOOK_FACTS
from pbem.webhooks.forms import body_for
from pbem.webhooks.models import ACTIVE, PENDING, WebhookDelivery
from pbem.webhooks.notices import EVERYONE, GAME, Notice, notices_of


def public_url(settings: Settings, game_id: str) -> str:
    """The game's public page: the only link a notice carries (a seat page link is a
    credential)."""
    return f"{settings.base_url.rstrip('/')}/games/{game_id}"


def new_delivery_id() -> str:
    return "whd_" + uuid.uuid4().hex


class ActiveSubscription(NamedTuple):
    """What writing a delivery needs of a subscription."""

    id: int
    address: str | None
    game_id: str | None
    form: str


def active_subscriptions(
    session: Session, game_id: str | None, addresses: Iterable[str]
) -> list[ActiveSubscription]:
    """The active subscriptions of the game and of these addresses (lower-cased). Read on
    every append: one statement built once per number of addresses, run on the driver
    (``pbem.core.hot_path``, as the mails' facts are)."""
    keys = sorted(set(addresses))
    params: dict[str, object] = {"game_id": game_id or "", "active": ACTIVE}
    params.update({f"a{i}": a for i, a in enumerate(keys)})
    rows = fetch_rows(session, _subscriptions_query(len(keys)), params)
    return [ActiveSubscription(int(r[0]), r[1], r[2], str(r[3])) for r in rows]


@functools.cache
def _subscriptions_query(addresses: int) -> TextClause:
    by_address = (
        f" OR address IN ({', '.join(f':a{i}' for i in range(addresses))})" if addresses else ""
    )
    return text(
        "SELECT id, address, game_id, form FROM webhook_subscriptions "
        f"WHERE status = :active AND (game_id = :game_id{by_address}) ORDER BY id"
    )


def delivery_row(
    subscription: ActiveSubscription,
    notice: Notice,
    game_id: str | None,
    version: int | None,
    url: str,
    now: datetime,
) -> dict[str, Any]:
    delivery_id = new_delivery_id()
    stamp = format_time(now)
    return {
        "delivery_id": delivery_id,
        "subscription_id": subscription.id,
        "game_id": game_id,
        "kind": notice.kind,
        "body": body_for(subscription.form, notice, delivery_id, stamp, url),
        "version": version,
        "status": PENDING,
        "attempts": 0,
        "next_attempt_at": stamp,
        "lease_owner": None,
        "lease_expires_at": None,
        "last_error": None,
        "created_at": stamp,
        "sent_at": None,
    }


def rows_for(
    subscriptions: Sequence[ActiveSubscription],
    notices: Sequence[Notice],
    seats_of_address: dict[str, set[int]],
    game_id: str,
    version: int | None,
    url: str,
    now: datetime,
) -> list[dict[str, Any]]:
    """The deliveries of ``notices``: each to the subscriptions its audience allows."""
    rows = []
    for sub in subscriptions:
        mine = seats_of_address.get(sub.address or "", set())
        for notice in notices:
            if sub.game_id is not None:  # the administrator's: public facts only
                allowed = notice.audience in (EVERYONE, GAME)
            elif notice.audience == EVERYONE:
                allowed = bool(mine)
            elif notice.audience == GAME:
                allowed = False
            else:
                allowed = bool(mine & set(notice.audience))
            if allowed:
                rows.append(delivery_row(sub, notice, game_id, version, url, now))
    return rows


class WebhookListener:
    """Writes the webhook deliveries of every append, in the append's transaction."""

    def __init__(self, settings: Settings, clock: Clock | None = None) -> None:
        self.settings = settings
        self.clock: Clock = clock or SystemClock()

    def on_appended(self, ctx: AppendContext) -> None:
        seats_of_address: dict[str, set[int]] = {}
        # Resigned seats too: they are still told how the game ends (the turn notices leave
        # them out themselves).
        for seat in ctx.seats:
            if seat.email:
                seats_of_address.setdefault(address_key(seat.email), set()).add(seat.seat)
        # Read with the mails' facts by the outbox listener before this one (one statement
        # for both); read here only when it read nothing (no seat has an address).
        read = ctx.shared.get(WEBHOOK_FACTS)
        if read is not None:
            subscriptions = [
                ActiveSubscription(id, address, ctx.game_id if of_game else None, form)
                for id, address, of_game, form in read
            ]
        else:
            subscriptions = active_subscriptions(ctx.session, ctx.game_id, seats_of_address)
        # With no subscription nothing else is done.
        if not subscriptions:
            return
        notices = notices_of(ctx)
        if not notices:
            return
        url = public_url(self.settings, ctx.game_id)
        rows = rows_for(
            subscriptions,
            notices,
            seats_of_address,
            ctx.game_id,
            ctx.version,
            url,
            self.clock.now(),
        )
        insert_rows(ctx.session, WebhookDelivery, rows)


def reminder_notices(settings: Settings) -> Callable[[Session, Any, datetime], None]:
    """The sweep's hook (``pbem.clock.sweep.OnReminded``): the reminders of a mail just
    written (its ``address`` and ``seats``, (game id, seat) pairs) as notices to the
    address's subscriptions, in the same transaction."""

    def on_reminded(session: Session, mail: Any, now: datetime) -> None:
        address: str = mail.address
        if not active_subscriptions(session, None, [address_key(address)]):
            return
        reminded = []
        for game_id, seat in mail.seats:
            game = session.get(Game, game_id)
            seat_row = session.get(Seat, (game_id, seat))
            deadline = session.get(Deadline, (game_id, seat))
            if game is None or seat_row is None:
                continue
            due = due_text(deadline.due_at) if deadline and deadline.due_at else "soon"
            reminded.append((game_id, game.game, seat_row.name, due))
        write_reminder_notices(session, settings, address, reminded, now)

    return on_reminded


def write_reminder_notices(
    session: Session,
    settings: Settings,
    address: str,
    reminded: Sequence[tuple[str, str, str, str]],
    now: datetime,
) -> int:
    """The reminders the sweep is mailing to ``address``, as notices to its subscriptions,
    in the sweep's transaction (so they go once, with the mail). ``reminded``: (game id,
    game's name, the seat's player as named in the game, the deadline as text) of each."""
    subscriptions = active_subscriptions(session, None, [address_key(address)])
    rows: list[dict[str, Any]] = []
    for game_id, game, player, due in reminded:
        notice = Notice(
            "reminder",
            f"Reminder: your move in game {game_id} ({game.replace('_', ' ').title()}) as "
            f"{player} is due {due}. Your board and moves are in your mail.",
            EVERYONE,
            {"game": game, "game_id": game_id, "player": player, "due": due},
        )
        url = public_url(settings, game_id)
        rows.extend(delivery_row(s, notice, game_id, None, url, now) for s in subscriptions)
    insert_rows(session, WebhookDelivery, rows)
    return len(rows)
