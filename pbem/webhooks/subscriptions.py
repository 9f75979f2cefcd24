"""The webhook commands: who may add, list and remove which subscription, through which door.

- **A game's administrator** (its admin token: the admin page, the admin API, or the operator
  with ``pbem webhook add --game``) adds, lists and removes the game's subscriptions. They
  receive public notices only.
- **A player** subscribes per address: the notices of that address's seats in every game.
  Since it acts across an address's games, it comes only from that address (DESIGN, "Web and
  API"): the ``webhook <url> [discord|slack|json]`` reply word or the seat page's form only
  *asks*; a confirmation link is mailed to the seat's address, and only opening it (and
  pressing the button there: a link-preview bot's GET does nothing) makes the subscription
  active and shows the JSON form's secret, once. A seat session, a leaked reply address or a
  forwarded mail can therefore point nobody's notices elsewhere without that mailbox.
  Listing (``webhooks``) and removing (``webhook remove 3``) act at once: they can only
  reduce what is sent, and the address's own reply or seat page is needed for them too.

Limits: ``webhooks.max_per_address`` per address (waiting ones count), ``max_per_game`` per
game; a confirmation link works ``confirm_hours``.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem.app.config import Settings
from pbem.clock.preferences import address_key
from pbem.core.db import Database
from pbem.core.errors import BadRequest, Conflict, Forbidden, GameNotFound, TooManyRequests
from pbem.core.models import Game, Seat
from pbem.core.repository import game_or_404
from pbem.core.time_source import Clock, format_time
from pbem.create.invitations import has_played
from pbem.mail.outbound import compose as c
from pbem.seats import credentials
from pbem.webhooks import safety
from pbem.webhooks.models import (
    ACTIVE,
    DEAD,
    FORMS,
    JSON,
    REMOVED,
    WAITING,
    WebhookDelivery,
    WebhookSubscription,
)
from pbem.webhooks.relay import requeue_dead

#: The form when none is said: Discord's URLs are recognised, then Slack's, else JSON.
_FORM_BY_HOST = (
    ("discord.com", "discord"),
    ("discordapp.com", "discord"),
    ("hooks.slack.com", "slack"),
)


@dataclass(frozen=True)
class Subscription:
    """A subscription as its owner sees it (the URL shortened: a Discord or Slack URL is a
    credential, so it is never shown whole again)."""

    id: int
    form: str
    url: str
    status: str
    created_at: str
    address: str | None
    game_id: str | None


@dataclass(frozen=True)
class Added:
    """A subscription made active; ``secret``: the JSON form's signing key, shown once."""

    subscription: Subscription
    secret: str | None


@dataclass(frozen=True)
class Waiting:
    """A player's subscription waiting for confirmation; ``mailed_to``: where the link went."""

    id: int
    mailed_to: str


@dataclass(frozen=True)
class DeadDelivery:
    id: int
    delivery_id: str
    subscription_id: int
    game_id: str | None
    kind: str
    attempts: int
    created_at: str
    last_error: str


def shortened(url: str) -> str:
    """Scheme, host and the path's first characters: enough to recognise, not to use."""
    scheme, _, rest = url.partition("://")
    host, _, path = rest.partition("/")
    return f"{scheme}://{host}/{path[:12]}…" if path else f"{scheme}://{host}/"


def _shown(row: WebhookSubscription) -> Subscription:
    assert row.id is not None
    return Subscription(
        row.id, row.form, shortened(row.url), row.status, row.created_at, row.address, row.game_id
    )


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_form(form: str | None, url: str) -> str:
    """The form asked for, or the one the URL's host implies."""
    if form:
        word = form.strip().lower()
        if word not in FORMS:
            raise BadRequest(f"The webhook's form is one of {', '.join(FORMS)}; not {form[:20]!r}.")
        return word
    host = url.split("://", 1)[-1].split("/", 1)[0].lower()
    return next((f for suffix, f in _FORM_BY_HOST if host.endswith(suffix)), JSON)


class Webhooks:
    """The webhook commands and the operator's view of the webhook outbox."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        clock: Clock,
        resolve: safety.Resolver = safety.system_resolver,
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        #: how URLs are resolved for the check (tests give a fake resolver)
        self.resolve = resolve

    # -- a game's subscriptions (its administrator) -------------------------------------------

    def _check_admin(self, session: Session, game_id: str, admin_token: str | None) -> Game:
        game = game_or_404(session, game_id)
        if not credentials.is_admin_token(session, game_id, admin_token):
            if game.private:  # as elsewhere: a private game is not there for a stranger
                raise GameNotFound(f"There is no game {game_id!r}.")
            raise Forbidden("Adding or removing a game's webhooks needs its admin token.")
        return game

    def add_for_game(
        self, game_id: str, admin_token: str | None, url: str, form: str | None, channel: str
    ) -> Added:
        """A subscription of the game's public notices; ``Added.secret`` is shown once."""
        with self.db.read() as session:  # who asks first: a stranger learns nothing of URLs
            self._check_admin(session, game_id, admin_token)
        # Resolved outside the write transaction (a slow DNS must not hold the database).
        safety.check_url(url, self.settings.webhooks, self.resolve)
        chosen = parse_form(form, url)
        now = format_time(self.clock.now())
        with self.db.write() as session:
            self._check_admin(session, game_id, admin_token)
            count = session.exec(
                select(func.count())
                .select_from(WebhookSubscription)
                .where(
                    col(WebhookSubscription.game_id) == game_id,
                    col(WebhookSubscription.status) == ACTIVE,
                )
            ).one()
            if count >= self.settings.webhooks.max_per_game:
                raise TooManyRequests(
                    f"A game has at most {self.settings.webhooks.max_per_game} webhooks; "
                    "remove one first."
                )
            secret = secrets.token_hex(32) if chosen == JSON else ""
            row = WebhookSubscription(
                game_id=game_id,
                url=url.strip(),
                form=chosen,
                secret=secret,
                status=ACTIVE,
                channel=channel,
                created_at=now,
            )
            session.add(row)
            session.flush()
            return Added(_shown(row), secret or None)

    def list_for_game(self, game_id: str, admin_token: str | None) -> list[Subscription]:
        with self.db.read() as session:
            self._check_admin(session, game_id, admin_token)
            rows = session.exec(
                select(WebhookSubscription)
                .where(
                    col(WebhookSubscription.game_id) == game_id,
                    col(WebhookSubscription.status) == ACTIVE,
                )
                .order_by(col(WebhookSubscription.id))
            )
            return [_shown(r) for r in rows]

    def remove_for_game(self, game_id: str, admin_token: str | None, subscription_id: int) -> None:
        with self.db.write() as session:
            self._check_admin(session, game_id, admin_token)
            row = session.get(WebhookSubscription, subscription_id)
            if row is None or row.game_id != game_id or row.status != ACTIVE:
                raise BadRequest(f"Game {game_id} has no webhook {subscription_id}.")
            self._remove(row)
            session.add(row)

    def _remove(self, row: WebhookSubscription) -> None:
        row.status, row.removed_at = REMOVED, format_time(self.clock.now())
        row.confirm_hash = None

    # -- an address's subscriptions (the player, confirmed through its mail) -------------------

    def request_for_seat(
        self, game_id: str, seat: int, url: str, form: str | None, channel: str
    ) -> Waiting:
        """Ask for a subscription of the notices of the seat's address (in every game): a
        confirmation link is mailed to that address, in this transaction; nothing is sent to
        the URL until it is opened. The caller proved it holds the seat (its reply token or
        page session); the address is the seat's, never one given."""
        safety.check_url(url, self.settings.webhooks, self.resolve)
        chosen = parse_form(form, url)
        hooks = self.settings.webhooks
        now = self.clock.now()
        with self.db.write() as session:
            seat_row = session.get(Seat, (game_id, seat))
            if seat_row is None:
                raise GameNotFound(f"There is no seat {seat} in a game {game_id!r}.")
            if not seat_row.email:
                raise BadRequest("This seat has no address to confirm a webhook with.")
            if not has_played(session, seat_row.email):
                # Mail to an address that never played is its invitation alone (DESIGN): no
                # confirmation mail goes to it before its player accepts.
                raise Conflict(
                    "This seat's player has not accepted the invitation yet: a webhook can "
                    "be asked for once they have."
                )
            address = address_key(seat_row.email)
            stamp = format_time(now)
            owned = session.exec(
                select(func.count())
                .select_from(WebhookSubscription)
                .where(
                    col(WebhookSubscription.address) == address,
                    (col(WebhookSubscription.status) == ACTIVE)
                    | (
                        (col(WebhookSubscription.status) == WAITING)
                        & (col(WebhookSubscription.confirm_until) > stamp)
                    ),
                )
            ).one()
            if owned >= hooks.max_per_address:
                raise TooManyRequests(
                    f"An address has at most {hooks.max_per_address} webhooks (waiting ones "
                    "count); remove one first ('webhooks' lists them)."
                )
            token = secrets.token_urlsafe(32)
            row = WebhookSubscription(
                address=address,
                url=url.strip(),
                form=chosen,
                secret=secrets.token_hex(32) if chosen == JSON else "",
                status=WAITING,
                confirm_hash=_token_hash(token),
                confirm_until=format_time(now + timedelta(hours=hooks.confirm_hours)),
                channel=channel,
                created_at=stamp,
            )
            session.add(row)
            session.flush()
            assert row.id is not None
            link = f"{self.settings.base_url.rstrip('/')}/webhooks/confirm/{token}"
            session.add(
                c.outbox_mail(
                    self.settings,
                    kind="confirm",
                    game_id=None,
                    seat=None,
                    to_name=seat_row.name,
                    to_address=seat_row.email,
                    subject="Confirm your webhook",
                    text=_confirmation_text(address, row, link, hooks.confirm_hours),
                    now=now,
                ),
            )
            return Waiting(row.id, seat_row.email)

    def waiting_for(self, token: str) -> Subscription:
        """The subscription a confirmation link would make active (the page shows it before
        the button); BadRequest when the link is unknown, used or out of date."""
        with self.db.read() as session:
            return _shown(self._waiting_row(session, token))

    def _waiting_row(self, session: Session, token: str) -> WebhookSubscription:
        row = session.exec(
            select(WebhookSubscription).where(
                col(WebhookSubscription.confirm_hash) == _token_hash(token)
            )
        ).first()
        if (
            row is None
            or row.status != WAITING
            or (row.confirm_until or "") <= format_time(self.clock.now())
        ):
            raise BadRequest(
                "This confirmation link is unknown, already used or out of date: ask for the "
                "webhook again."
            )
        return row

    def confirm(self, token: str) -> Added:
        """Make the waiting subscription active (the URL checked again); its secret shown
        now, once."""
        with self.db.write() as session:
            row = self._waiting_row(session, token)
            safety.check_url(row.url, self.settings.webhooks, self.resolve)
            row.status, row.confirm_hash = ACTIVE, None
            session.add(row)
            session.flush()
            return Added(_shown(row), row.secret or None)

    def list_for_address(self, address: str) -> list[Subscription]:
        with self.db.read() as session:
            rows = session.exec(
                select(WebhookSubscription)
                .where(
                    col(WebhookSubscription.address) == address_key(address),
                    col(WebhookSubscription.status).in_([ACTIVE, WAITING]),
                )
                .order_by(col(WebhookSubscription.id))
            )
            return [_shown(r) for r in rows]

    def remove_for_address(self, address: str, subscription_id: int) -> None:
        with self.db.write() as session:
            row = session.get(WebhookSubscription, subscription_id)
            if (
                row is None
                or row.address != address_key(address)
                or row.status not in (ACTIVE, WAITING)
            ):
                raise BadRequest(f"You have no webhook {subscription_id} ('webhooks' lists them).")
            self._remove(row)
            session.add(row)

    # -- the operator ------------------------------------------------------------------------

    def remove(self, subscription_id: int) -> None:
        """Any subscription removed by the operator (``pbem webhook remove``)."""
        with self.db.write() as session:
            row = session.get(WebhookSubscription, subscription_id)
            if row is None or row.status == REMOVED:
                raise BadRequest(f"There is no webhook {subscription_id}.")
            self._remove(row)
            session.add(row)

    def all_subscriptions(self) -> list[Subscription]:
        with self.db.read() as session:
            rows = session.exec(
                select(WebhookSubscription)
                .where(col(WebhookSubscription.status) != REMOVED)
                .order_by(col(WebhookSubscription.id))
            )
            return [_shown(r) for r in rows]

    def counts(self) -> Sequence[tuple[str, int]]:
        with self.db.read() as session:
            rows = session.exec(
                select(WebhookDelivery.status, func.count()).group_by(col(WebhookDelivery.status))
            )
            return sorted((str(s), int(n)) for s, n in rows)

    def dead(self) -> list[DeadDelivery]:
        with self.db.read() as session:
            rows = session.exec(
                select(WebhookDelivery)
                .where(col(WebhookDelivery.status) == DEAD)
                .order_by(col(WebhookDelivery.id))
            )
            return [
                DeadDelivery(
                    r.id or 0,
                    r.delivery_id,
                    r.subscription_id,
                    r.game_id,
                    r.kind,
                    r.attempts,
                    r.created_at,
                    r.last_error or "",
                )
                for r in rows
            ]

    def retry_dead(self, ids: list[int] | None = None) -> int:
        with self.db.write() as session:
            return requeue_dead(session, self.clock.now(), ids)


def _confirmation_text(address: str, row: WebhookSubscription, link: str, hours: int) -> str:
    return (
        f"Someone with access to your seat asked for a webhook: notices of your games "
        f"(your turns, reminders, deadlines, game ends, table talk to you) sent for "
        f"{address} to\n\n  {shortened(row.url)} ({row.form})\n\n"
        f"Nothing is sent there until you confirm. To confirm, open this link within "
        f"{hours} hours and press the button there:\n\n  {link}\n\n"
        f"If you did not ask for it, ignore this mail: nothing changes.\n"
    )
