"""The webhook outbox's writer: each append's notices, as deliveries, in the append's
transaction (``WebhookListener.on_appended``, a listener like the mail outbox), and the
deadline reminders' notices in the sweep's transaction (``write_reminder_notices``).

A notice goes to the subscriptions its audience allows (``pbem.webhooks.notices``): a game's
subscriptions get the public notices; an address's subscriptions get the public notices of
every game it plays in and the notices of its own seats. One delivery per notice and
subscription, even when one address plays several seats of a game.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import or_
from sqlmodel import Session, col, select

from pbem.app.config import Settings
from pbem.clock.display import due_text
from pbem.core.hot_path import insert_rows
from pbem.core.models import Deadline, Game, Seat
from pbem.core.time_source import Clock, SystemClock, format_time
from pbem.core.unit_of_work import AppendContext
from pbem.webhooks.forms import body_for
from pbem.webhooks.models import ACTIVE, PENDING, WebhookDelivery, WebhookSubscription
from pbem.webhooks.notices import EVERYONE, GAME, Notice, notices_of


def address_key(address: str) -> str:
    """An address as one person: case does not make another one."""
    return address.strip().lower()


def public_url(settings: Settings, game_id: str) -> str:
    """The game's public page: the only link a notice carries (a seat page link is a
    credential)."""
    return f"{settings.base_url.rstrip('/')}/games/{game_id}"


def new_delivery_id() -> str:
    return "whd_" + uuid.uuid4().hex


def active_subscriptions(
    session: Session, game_id: str | None, addresses: Iterable[str]
) -> list[WebhookSubscription]:
    keys = sorted(set(addresses))
    who = []
    if game_id is not None:
        who.append(col(WebhookSubscription.game_id) == game_id)
    if keys:
        who.append(col(WebhookSubscription.address).in_(keys))
    if not who:
        return []
    query = select(WebhookSubscription).where(col(WebhookSubscription.status) == ACTIVE, or_(*who))
    return list(session.exec(query.order_by(col(WebhookSubscription.id))))


def delivery_row(
    subscription: WebhookSubscription,
    notice: Notice,
    game_id: str | None,
    version: int | None,
    url: str,
    now: datetime,
) -> dict[str, Any]:
    delivery_id = new_delivery_id()
    stamp = format_time(now)
    assert subscription.id is not None
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
    subscriptions: Sequence[WebhookSubscription],
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
        # One indexed query per append; with no subscription nothing else is done.
        subscriptions = active_subscriptions(ctx.session, ctx.game_id, seats_of_address)
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
