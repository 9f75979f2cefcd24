"""Composing mails: every mail to a seat is rendered from that seat's view, never the state.

Each mail carries the game's version and head hash (a receipt), ``Auto-Submitted:
auto-generated`` (so that well-behaved auto-responders stay quiet), threading headers under
one root Message-ID per game, and a Reply-To with the seat's signed reply address. Every
mail becomes an :class:`~pbem.mail.models.OutboxMail` row: its Message-ID is fixed here,
when the row is written, and every retry sends the same bytes.

Decision (rules silent): the subject is the same for every mail of a game and seat, so that
clients that also thread by subject (Gmail) keep the game in one conversation; what a mail is
about is its first line.
"""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import format_datetime
from pathlib import Path
from string import Template
from typing import Any, ParamSpec

from sqlalchemy import TextClause, text
from sqlmodel import Session

from engine.core import Rules
from pbem.app.config import Settings
from pbem.clock.preferences import address_key
from pbem.core import events as ev
from pbem.core.errors import Forbidden
from pbem.core.events import StoredEvent
from pbem.core.hot_path import fetch_first, fetch_rows
from pbem.core.naming import Names
from pbem.core.repository import Loaded, SeatInfo
from pbem.core.time_source import format_time
from pbem.create import events as creation_events
from pbem.mail.inbound.quotes import REPLY_MARKER
from pbem.mail.models import PENDING, OutboxMail, SeatReplyKey
from pbem.mail.outbound.address import (
    INVITATION,
    PAGE,
    BadToken,
    make_token,
    peek,
    reply_address,
    verify,
)
from pbem.mail.outbound.boards import board_html
from pbem.mail.outbound.headers import message_bytes
from pbem.mail.outbound.html_part import MailBoard, html_part
from pbem.play.views import board_view, summary_line, visible_events

P = ParamSpec("P")

TEMPLATES = Path(__file__).parent / "templates"
#: At most this many "since your last move" lines and "you can type" examples per mail.
MAX_SINCE = 15
MAX_EXAMPLES = 12


@functools.cache
def _template(name: str) -> Template:
    return Template((TEMPLATES / f"{name}.txt").read_text(encoding="utf-8"))


def render(template: str, /, **values: Any) -> str:
    """A template filled in; runs of blank lines left by empty sections collapse to one."""
    text = _template(template).substitute({k: str(v) for k, v in values.items()})
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


# -- addresses and ids ---------------------------------------------------------------------


def message_id_domain(settings: Settings) -> str:
    mail = settings.mail
    return mail.message_id_domain or mail.from_address.rpartition("@")[2]


def own_domains(settings: Settings) -> tuple[str, ...]:
    """Domains whose Message-IDs are ours: mail carrying one is our own coming back."""
    return (message_id_domain(settings),)


def new_message_id(settings: Settings, game_id: str | None) -> str:
    # Random, so that nobody can guess the id of a mail sent to someone else.
    return f"pbem.{game_id or 'x'}.{secrets.token_hex(8)}@{message_id_domain(settings)}"


def thread_root(settings: Settings, game_id: str) -> str:
    """The Message-ID every mail of a game refers to, so they stay in one thread."""
    return f"pbem.{game_id}.thread@{message_id_domain(settings)}"


def seat_link(
    session: Session, settings: Settings, game_id: str, seat: int, keys: int | None = None
) -> str:
    """The seat's page (its view, a form to move), opened by a signed link: the mail goes to
    the seat's own address, so the link may act for the seat. ``pbem mail rotate-key``
    revokes it with the seat's reply addresses. ``keys``: the seat's key version, when the
    caller has read it (``key_versions``)."""
    if keys is None:
        keys = key_version(session, game_id, seat)
    token = make_token(settings.secret_key, game_id, seat, keys, purpose=PAGE)
    # Always the configured base URL, never a request's Host header.
    return f"{settings.base_url.rstrip('/')}/games/{game_id}?link={token}"


def invitation_link(
    session: Session, settings: Settings, game_id: str, seat: int, keys: int | None = None
) -> str:
    """The link in an invitation that accepts it (a page asks first, so that a program that
    opens every link in a mail cannot accept for the player)."""
    if keys is None:
        keys = key_version(session, game_id, seat)
    token = make_token(settings.secret_key, game_id, seat, keys, purpose=INVITATION)
    return f"{settings.base_url.rstrip('/')}/invitation/{game_id}?link={token}"


def seat_for_link(
    session: Session, settings: Settings, game_id: str, link: str, *, purpose: bytes = PAGE
) -> int:
    """The seat a page link (from ``seat_link``) opens; Forbidden saying why otherwise."""
    try:
        claimed = peek(link)
        if str(claimed.game_id) != game_id:
            raise BadToken("the link belongs to another game")
        signed = verify(
            settings.secret_key,
            link,
            key_version(session, game_id, claimed.seat),
            purpose=purpose,
        )
    except BadToken as error:
        if purpose == INVITATION:
            raise Forbidden(
                f"This invitation link is not valid: {error}. Open the link in the invitation "
                "mail as it came."
            ) from None
        raise Forbidden(
            f"This page link does not open a seat: {error}. Open the game from the latest mail "
            "the game sent you."
        ) from None
    return signed.seat


def rules_link(settings: Settings, rules: Rules) -> str:
    """The game's rules and notation page (web/pages/rules.py serves ``/rules/<game>``)."""
    return f"{settings.base_url.rstrip('/')}/rules/{rules.name}"


def receipt(version: int, head_hash: str) -> str:
    return f"Version {version}, head {head_hash} (keep this mail: it is your receipt)."


def vote_receipts(
    settings: Settings, game_id: str, events: Sequence[StoredEvent], seat: int
) -> str:
    """The receipts of ``seat``'s secret actions among ``events``: each one's commitment and
    salt, so that after the reveal its author (or anyone it shows them to) can check that the
    vote revealed is the one it cast."""
    lines = []
    for e in events:
        p = e.payload
        if isinstance(p, ev.ActionApplied) and p.seat == seat and p.commitment and p.nonce:
            page = (
                f"{settings.base_url.rstrip('/')}/games/{game_id}/receipt"
                f"?version={e.version}&hash={e.hash}&salt={p.nonce}"
            )
            lines.append(
                f"Your secret action at version {e.version} ({p.canonical}) is committed as "
                f"{p.commitment} with salt {p.nonce}. Keep both: once it is revealed, anyone "
                f"can check it is the one you made, at {page}"
            )
    return "\n".join(lines)


def subject_for(rules: Rules, game_id: str) -> str:
    return subject_of(rules.name, game_id)


def subject_of(game: str, game_id: str) -> str:
    """The one subject of every mail of a game (error replies too), so clients thread it."""
    return f"[pbem] {game.title()} game {game_id}"


def key_version(session: Session, game_id: str, seat: int) -> int:
    row = session.get(SeatReplyKey, (game_id, seat))
    return row.key_version if row is not None else 0


# The reads every reply and every move's mails make, as plain SQL: one statement instead of
# several, run on the driver (``pbem.core.hot_path``): building and compiling an ORM query
# costs several times what running one of these does.
_SEAT_WITH_KEY = text(
    "SELECT s.seat, s.name, s.email, s.resigned, k.key_version, i.seat, i.accepted_at, "
    "(SELECT COUNT(*) FROM mail_address_failures f WHERE f.address = :sender) "
    "FROM seats s "
    "LEFT JOIN mail_seat_keys k ON k.game_id = s.game_id AND k.seat = s.seat "
    "LEFT JOIN invitations i ON i.game_id = s.game_id AND i.seat = s.seat "
    "WHERE s.game_id = :game_id AND s.seat = :seat"
)


@dataclass(frozen=True)
class RoutedSeat:
    """What routing a reply needs to know of its seat, read in one query."""

    #: None when the game has no such seat
    seat: SeatInfo | None
    #: the seat's reply-key version
    key_version: int
    #: invited, and its player has yet to accept (``pbem.create.invitations.is_waiting``)
    invitation_waiting: bool
    #: the reply's sender is marked failing (``mail_address_failures``)
    sender_failing: bool = False


def seat_with_key(session: Session, game_id: str, seat: int, sender: str = "") -> RoutedSeat:
    """The seat, its key version, whether its invitation waits and whether ``sender`` (a
    reply's, lower-cased) is marked failing, in one query."""
    params = {"game_id": game_id, "seat": seat, "sender": sender.lower()}
    found = fetch_first(session, _SEAT_WITH_KEY, params)
    if found is None:
        return RoutedSeat(None, key_version(session, game_id, seat), False)
    number, name, email, resigned, key, invited, accepted_at, failing = found
    info = SeatInfo(number, name, email, bool(resigned))
    return RoutedSeat(info, key or 0, invited is not None and accepted_at is None, bool(failing))


def rotate_key(session: Session, game_id: str, seat: int, now: datetime) -> int:
    """Revoke every reply address handed out to this seat so far; returns the new version."""
    row = session.get(SeatReplyKey, (game_id, seat))
    if row is None:
        row = SeatReplyKey(game_id=game_id, seat=seat, key_version=0, rotated_at="")
    row.key_version += 1
    row.rotated_at = format_time(now)
    session.add(row)
    session.flush()
    return row.key_version


def new_token_mail(
    settings: Settings,
    *,
    game: str,
    game_id: str,
    seat: int,
    to_name: str,
    to_address: str,
    token: str,
    now: datetime,
    reply_to: str,
) -> OutboxMail:
    """The mail giving a seat its replaced bearer token (``pbem rotate-token``): the seat page
    link carrying it, and the token itself for the API. Sent only to the seat's own address;
    ``reply_to``: the seat's new reply address (the old ones are revoked with the token)."""
    base = settings.base_url.rstrip("/")
    text = render(
        "token",
        title=f"{game.title()} game {game_id}",
        name=to_name,
        link=f"{base}/games/{game_id}?token={token}",
        token=token,
    )
    return outbox_mail(
        settings,
        kind="token",
        game_id=game_id,
        seat=seat,
        to_name=to_name,
        to_address=to_address,
        subject=subject_of(game, game_id),
        text=text,
        now=now,
        reply_to=reply_to,
    )


def seat_reply_address(
    session: Session,
    settings: Settings,
    game_id: str,
    seat: int,
    version: int,
    keys: int | None = None,
) -> str:
    """The seat's signed reply address for a mail showing ``version`` (``keys``: the seat's
    key version, when the caller has read it)."""
    if keys is None:
        keys = key_version(session, game_id, seat)
    return reply_address(
        settings.secret_key, game_id, seat, keys, version, domain=settings.mail.reply_domain
    )


def answer_to_seat(
    session: Session,
    settings: Settings,
    loaded: Loaded,
    seat: int,
    name: str,
    email: str,
    *,
    kind: str,
    text: str,
    now: datetime,
) -> OutboxMail:
    """A mail answering what a seat's own reply asked (help, show, a clock line …): to the
    seat's address, in the game's thread, showing the game as ``loaded`` holds it."""
    return outbox_mail(
        settings,
        kind=kind,
        game_id=loaded.game_id,
        seat=seat,
        to_name=name,
        to_address=email,
        subject=subject_for(loaded.rules, loaded.game_id),
        text=text,
        now=now,
        version=loaded.version,
        head_hash=loaded.head_hash,
        reply_to=seat_reply_address(session, settings, loaded.game_id, seat, loaded.version),
        board=mail_board(loaded.rules, loaded.state, seat, loaded.names, finished=loaded.finished),
    )


@dataclass(frozen=True)
class MailFacts:
    """What every move's mails read of a game besides its log, read in one query."""

    #: those of the seats' addresses (lower-cased) whose mail bounced recently
    failing: frozenset[str]
    #: each seat's reply-key version (a seat missing from it has version 0)
    key_versions: dict[int, int]
    #: (seat, address) of every invitation not accepted yet
    pending_invitations: tuple[tuple[int, str], ...]
    #: whether a dispute is open
    dispute_open: bool
    #: those of the seats' addresses (``address_key``) that chose the daily digest
    digest: frozenset[str] = frozenset()
    #: the time zone each of the seats' addresses chose (by ``address_key``), if any
    time_zones: dict[str, str] = field(default_factory=dict)
    #: (seat, message version) of each mail of table talk still waiting in the outbox, which
    #: a turn mail of this append may carry instead (``pbem.talk.coalescing``)
    waiting_talk: tuple[tuple[int, int], ...] = ()
    #: the active webhook subscriptions of the game and of the seats' addresses, as (id,
    #: address, whether it is the game's, form): read here, with the mails' facts, for the
    #: webhook listener of the same append (``pbem.webhooks.listener``; ``WEBHOOK_FACTS``)
    webhook_subscriptions: tuple[tuple[int, str | None, bool, str], ...] = ()


#: the key under which the outbox listener leaves an append's ``webhook_subscriptions`` in
#: its ``AppendContext.shared``
WEBHOOK_FACTS = "webhook_subscriptions"


def mail_facts(session: Session, game_id: str, addresses: Iterable[str]) -> MailFacts:
    """The seats' failing addresses, key versions, pending invitations, whether a dispute is
    open, the players' digest and time-zone choices and the talk mails waiting: one statement
    instead of seven (they are read for every move)."""
    given = [a for a in addresses if a]
    failing_keys = sorted({a.lower() for a in given})
    preference_keys = sorted({address_key(a) for a in given})
    params: dict[str, object] = {"game_id": game_id}
    params.update({f"a{i}": a for i, a in enumerate(failing_keys)})
    params.update({f"p{i}": a for i, a in enumerate(preference_keys)})
    query = _facts_query(len(failing_keys), len(preference_keys))
    failing: set[str] = set()
    keys: dict[int, int] = {}
    pending: list[tuple[int, str]] = []
    dispute_open = False
    digest: set[str] = set()
    zones: dict[str, str] = {}
    waiting: list[tuple[int, int]] = []
    hooks: list[tuple[int, str | None, bool, str]] = []
    for kind, number, version, address, zone in fetch_rows(session, query, params):
        if kind == "k":
            keys[number] = version
        elif kind == "w":
            waiting.append((number, version))
        elif kind == "h":
            hooks.append((int(number), address, bool(version), str(zone)))
        elif kind == "i":
            pending.append((number, address))
        elif kind == "d":
            dispute_open = True
        elif kind == "p":
            if number:
                digest.add(address)
            if zone:
                zones[address] = zone
        else:
            failing.add(address)
    return MailFacts(
        frozenset(failing),
        keys,
        tuple(sorted(pending)),
        dispute_open,
        frozenset(digest),
        zones,
        tuple(sorted(waiting)),
        tuple(sorted(hooks)),
    )


@functools.cache
def _facts_query(failing: int, preferences: int) -> TextClause:
    """``mail_facts``' statement for so many addresses, built once: building and compiling
    it again for every move cost about as much as running it."""
    by_address = ""
    hooks_by_address = ""
    if preferences:
        hooks_by_address = f" OR address IN ({', '.join(f':p{i}' for i in range(preferences))})"
    if failing:
        by_address = (
            " UNION ALL SELECT 'f', NULL, NULL, address, NULL FROM mail_address_failures "
            f"WHERE address IN ({', '.join(f':a{i}' for i in range(failing))})"
            " UNION ALL SELECT 'p', CASE WHEN digest THEN 1 ELSE 0 END, NULL, address, "
            "time_zone FROM player_preferences "
            f"WHERE address IN ({', '.join(f':p{i}' for i in range(preferences))})"
        )
    return text(
        "SELECT 'k', seat, key_version, NULL, NULL FROM mail_seat_keys "
        "WHERE game_id = :game_id "
        "UNION ALL SELECT 'i', seat, NULL, address, NULL FROM invitations "
        "WHERE game_id = :game_id AND accepted_at IS NULL "
        "UNION ALL SELECT 'd', dispute, NULL, NULL, NULL FROM disputes "
        "WHERE game_id = :game_id AND status = 'open' "
        # a message's mail waiting its minute (pbem.talk.coalescing)
        "UNION ALL SELECT 'w', seat, version, NULL, NULL FROM mail_outbox "
        "WHERE game_id = :game_id AND kind = 'talk' AND status = 'pending' AND attempts = 0 "
        # the webhooks' subscriptions (pbem.webhooks.models: status 'active'), for the
        # webhook listener of the same append
        "UNION ALL SELECT 'h', id, CASE WHEN game_id IS NULL THEN 0 ELSE 1 END, address, form "
        "FROM webhook_subscriptions WHERE status = 'active' "
        f"AND (game_id = :game_id{hooks_by_address})" + by_address
    )


# -- pieces of text ------------------------------------------------------------------------


def can_type(rules: Rules, state: Any, seat: int) -> str:
    actions = rules.legal_actions(state, seat)
    examples = example_texts(rules, state, actions)
    if not examples and not rules.to_act(state):
        return "nothing: the game is over"
    if not examples:
        return "no move now (you are not to act); you can still reply undo, show or help"
    more = f" … ({len(actions)} in all)" if len(actions) > len(examples) else ""
    return ", ".join(examples) + more


def example_texts(rules: Rules, state: Any, actions: Sequence[Any]) -> list[str]:
    """At most ``MAX_EXAMPLES`` of ``actions``, written, that show every kind of move (an
    action's first element names its kind: Lancelot's 20,000 forces of the King sort before
    its 144 placements), the kinds with fewer moves first, each kind's share of the examples
    in turn."""
    kinds: dict[Any, list[Any]] = {}
    for action in actions:
        kind = action[0] if isinstance(action, tuple) and action else None
        kinds.setdefault(kind, []).append(action)
    ordered = sorted(kinds.values(), key=len)
    shares = [0] * len(ordered)
    for turn in range(MAX_EXAMPLES):  # one more for each kind in turn, while it has more
        open_kinds = [i for i, kind in enumerate(ordered) if shares[i] < len(kind)]
        if not open_kinds:
            break
        shares[open_kinds[turn % len(open_kinds)]] += 1
    texts: list[str] = []
    for kind, share in zip(ordered, shares, strict=True):
        texts.extend(_spread_examples(rules, state, kind, share) if share else [])
    return texts


def _spread_examples(rules: Rules, state: Any, actions: Sequence[Any], most: int) -> list[str]:
    """The first ``most`` of one kind of move in the engine's order; or, when they all
    start with the same word (a Lancaster placement lists every move of its first knight
    before the second's), ``most`` spread over all of it."""
    examples = [rules.format_action(state, a) for a in actions[:most]]
    if len(actions) > most and len({e.split()[0] for e in examples if e}) == 1:
        step = -(-len(actions) // most)  # ceiling: at most ``most``
        examples = [rules.format_action(state, a) for a in actions[::step]]
    return examples


def since_text(
    events: Sequence[StoredEvent], seat: int | None, after: int, heading: str, names: Names
) -> str:
    """What ``seat`` may see of the log after version ``after``, one line per event."""
    visible = [
        e
        for e in visible_events(events, seat, after, names=names)
        if e["type"] != creation_events.GAME_STARTED
    ]
    if not visible:
        return ""
    lines = [summary_line(e) for e in visible]
    if len(lines) > MAX_SINCE:
        earlier = f"  … {len(lines) - MAX_SINCE} earlier lines on the game page"
        lines = [earlier, *lines[-MAX_SINCE:]]
    return heading + "\n" + "\n".join(lines) + "\n"


def last_own_action(events: Sequence[StoredEvent], seat: int) -> int:
    """The version of ``seat``'s latest action of its own (0 when it has not acted): "since
    your last move" starts after it — or at it, when that move was irreversible, since what
    it revealed or drew (e.g. every vote, when it was the last vote) is news to the seat."""
    for e in reversed(events):
        p = e.payload if e.type == ev.ACTION_APPLIED else None
        if isinstance(p, ev.ActionApplied) and p.seat == seat and p.channel != "auto":
            return e.version - 1 if p.irreversible else e.version
    return 0


def board_text(
    rules: Rules, state: Any, seat: int | None, names: Names, *, finished: bool = False
) -> str:
    return mail_board(rules, state, seat, names, finished=finished).text


def mail_board(
    rules: Rules, state: Any, seat: int | None, names: Names, *, finished: bool = False
) -> MailBoard:
    """The seat's board for its mails: the text board (``pbem.play.views.board_for_people``)
    and the same view drawn for the HTML part (``pbem.mail.outbound.boards``)."""
    view = board_view(rules, state, seat, names, finished=finished)
    text = names.text(rules.render_text(view)).rstrip()
    # Drawn only when a mail shows it: the board of a text that is not mailed never is.
    return MailBoard(text, functools.partial(board_html, rules.name, view, names, text))


def bounce_notices(
    seats: Sequence[SeatInfo], failing: Collection[str], viewer: int, names: Names
) -> str:
    lines = []
    for s in seats:
        if s.email and s.email.lower() in failing and s.seat != viewer:
            lines.append(
                f"Note: mail to {names.of(s.seat)} is bouncing; they may not see this game's "
                "mails. Tell them if you can."
            )
        elif s.email and s.email.lower() in failing:
            lines.append("Note: mail to your address bounced recently.")
    return "\n".join(lines)


# -- the row -------------------------------------------------------------------------------


def outbox_row(
    settings: Settings,
    *,
    kind: str,
    game_id: str | None,
    seat: int | None,
    to_name: str,
    to_address: str,
    subject: str,
    text: str,
    now: datetime,
    version: int | None = None,
    head_hash: str | None = None,
    reply_to: str | None = None,
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    board: MailBoard | None = None,
) -> dict[str, Any]:
    """A ready-to-send outbox row as the values of its columns: a move's mails are inserted
    as such in one statement (building a model object for each costs more than the insert).

    Every mail is ``multipart/alternative``: ``text``, and the HTML part written from it
    (``pbem.mail.outbound.html_part``), ``board`` (the seat's, when ``text`` shows it) drawn
    in place of its text."""
    mail = settings.mail
    message_id = new_message_id(settings, game_id)
    extra = {
        "Auto-Submitted": "auto-generated",
        # Ask Exchange and friends not to answer with out-of-office mails.
        "X-Auto-Response-Suppress": "All",
        "X-Pbem-Mail": kind,
    }
    if game_id is not None:
        extra["X-Pbem-Game"] = game_id
    if version is not None and head_hash is not None:
        extra["X-Pbem-Version"] = str(version)
        extra["X-Pbem-Head"] = head_hash
    if game_id is not None and in_reply_to is None:
        in_reply_to = thread_root(settings, game_id)
        references = [in_reply_to, *references]
    raw, subject_text = message_bytes(
        from_=(mail.from_name, mail.from_address),
        to=(to_name, to_address),
        reply_to=(mail.from_name, reply_to) if reply_to else None,
        subject=subject,
        message_id=message_id,
        in_reply_to=in_reply_to,
        references=references,
        extra=extra,
        text=text,
        date=format_datetime(now),
        html=html_part(text, subject, board),
    )
    stamp = format_time(now)
    return {
        "message_id": message_id,
        "game_id": game_id,
        "seat": seat,
        "kind": kind,
        "recipient": to_address,
        "envelope_from": mail.from_address,
        "subject": subject_text,
        "message": raw,
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


def _as_model(make_row: Callable[P, dict[str, Any]]) -> Callable[P, OutboxMail]:
    def make(*args: P.args, **kwargs: P.kwargs) -> OutboxMail:
        return OutboxMail(**make_row(*args, **kwargs))

    return make


#: ``outbox_row`` as a model object, ready to add to a session (the mails of replies,
#: reminders, digests and tokens)
outbox_mail = _as_model(outbox_row)

MARKER = REPLY_MARKER
