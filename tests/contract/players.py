"""Random players of whole games through the service's three doors, for the contract suite.

Each player chooses like ``engine.core.contract.playout``: with our own generator
(``engine.core.rng``, never ``random``), a seat among those to act, then one of its legal
moves, so a game is reproducible from its seed. What differs is the door:

- ``play_by_service``: ``GameService.submit`` (what the CLI and the web pages call);
- ``play_by_api``: the JSON API (``/api/v1``) of ``web.create_app`` with seat tokens, choosing
  from the API's own answer (``to_act`` and ``legal``);
- ``play_by_email``: replies posted to the inbound webhook, each written as a mail client
  would answer the latest mail that seat received at a real SMTP server (its Reply-To, its
  subject, the move on top and the original quoted below). A seat knows it owes a move
  because it got a turn mail it has not answered; seats that owe a move together (secret
  votes) each answer their own mail, however many replies of others came in since.

The service draws a game's seed with ``secrets`` (``pbem.create.creation``); ``pinned_seed``
replaces that draw for the duration of a game, so a failing game can be played again exactly.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from types import SimpleNamespace
from typing import Any, cast

import pytest
from flask.testing import FlaskClient

import engine
from engine.core import Action, Rules, rng
from engine.core.registry import Registry
from pbem.app.service import GameService
from pbem.core.repository import Loaded
from pbem.create import creation as games_module
from pbem.mail.outbound.relay import Relay
from tests.mail.servers import SmtpTestServer
from tests.service.hidden_game import HOARD

#: Every game of the registry, and Hoard: a small game with secret simultaneous votes.
REGISTRY: Registry = engine.REGISTRY.with_rules(cast(Rules, HOARD))

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal")
#: A game longer than this many moves is a bug (the longest random games play ~250).
MAX_MOVES = 5_000
WEBHOOK_SECRET = "contract-hook-secret"


def cases(registry: Mapping[str, Rules] = REGISTRY) -> list[tuple[str, dict[str, Any]]]:
    """(game, normalised config) for every game: each of its ``contract_configs()``, and a
    plain config for any supported player count those leave out, so that a game added to the
    registry is played at every count and variant without a test written for it."""
    found: list[tuple[str, dict[str, Any]]] = []
    for name, rules in sorted(registry.items()):
        configs = [rules.validate_config(c) for c in rules.contract_configs()]
        covered = {c["players"] for c in configs}
        configs += [
            rules.validate_config({"players": n}) for n in rules.player_counts if n not in covered
        ]
        found += [(name, c) for c in configs]
    return found


def _options(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The variants and expansions that are on, e.g. ``("diagonals", "excalibur")``, and
    Lancaster's New Laws as one option set, e.g. ``("new_laws=new,new,new,new,new",)``."""
    on: list[str] = []
    for key in ("variants", "expansions"):
        on += sorted(k for k, v in (config.get(key) or {}).items() if v)
    if config.get("new_laws"):
        on.append("new_laws=" + ",".join(config["new_laws"]))
    return tuple(on)


def covering_cases(
    all_cases: list[tuple[str, dict[str, Any]]],
) -> list[tuple[str, dict[str, Any]]]:
    """A subset of ``all_cases`` in which, for every game, every player count and every set of
    options (variants, expansions, none) appears at least once: each option set once, at a
    count that moves on from one set to the next, then the plain config at each count those
    leave out (at the smallest count when they leave out none).

    The slower doors (the JSON API, mail) play these on every run; every case is played by
    the service on every run and by every door with ``-m slow``. (The plain config at every
    count, whatever the option sets covered, was a third of the mail door's time: Lancelot's
    plain 3- to 5-player games are the longest mail games there are.)"""
    chosen: list[tuple[str, dict[str, Any]]] = []
    for name in sorted({n for n, _ in all_cases}):
        mine = [c for n, c in all_cases if n == name]
        counts = sorted({c["players"] for c in mine})
        option_sets = sorted({_options(c) for c in mine if _options(c)})
        for i, options in enumerate(option_sets):
            with_these = {c["players"]: c for c in mine if _options(c) == options}
            # Start from the largest count so the longest games of each set are played too.
            rotation = sorted(with_these, reverse=True)
            chosen.append((name, with_these[rotation[i % len(rotation)]]))
        plain = {c["players"]: c for c in mine if not _options(c)}
        covered = {c["players"] for n, c in chosen if n == name}
        left_out = [n for n in counts if n in plain and n not in covered]
        chosen += [(name, plain[n]) for n in left_out or sorted(plain)[:1]]
        # A count offered only with options still gets played.
        seen = {c["players"] for n, c in chosen if n == name}
        for n in counts:
            if n not in seen:
                chosen.append((name, next(c for c in mine if c["players"] == n)))
                seen.add(n)
    return chosen


def case_id(name: str, config: Mapping[str, Any]) -> str:
    """A short test id: the game, the count and any variant that is on."""
    parts = [name, f"{config['players']}p"]
    for key in ("variants", "expansions"):
        options = config.get(key) or {}
        parts += [k for k, on in sorted(options.items()) if on]
    if config.get("new_laws"):
        parts.append("new_laws=" + ",".join(config["new_laws"]))
    return "-".join(parts)


class Chooser:
    """Seeded choices, as the engine contract's playout makes them."""

    def __init__(self, seed: int) -> None:
        self.state = rng.seed_state(seed)

    def index(self, n: int) -> int:
        assert n > 0, "nothing to choose from"
        i, self.state = rng.below(self.state, n)
        return i

    def pick(self, options: list[Any]) -> Any:
        return options[self.index(len(options))]


@contextlib.contextmanager
def pinned_seed(monkeypatch: pytest.MonkeyPatch, seed: int) -> Iterator[None]:
    """Games created inside get ``seed`` as their secret seed (tokens stay random)."""
    fake = SimpleNamespace(
        randbits=lambda bits: seed,
        token_urlsafe=secrets.token_urlsafe,
        token_hex=secrets.token_hex,
        compare_digest=secrets.compare_digest,
    )
    with monkeypatch.context() as m:
        m.setattr(games_module, "secrets", fake)
        yield


def players(count: int, *, email: bool) -> list[dict[str, Any]]:
    return [
        {"name": n, "email": f"{n.lower()}@players.test" if email else None} for n in NAMES[:count]
    ]


@dataclass
class Played:
    """A finished game and what its players did."""

    game_id: str
    moves: int = 0
    #: moves (email) made on a mail older than the game's head: secret votes in parallel
    stale_replies: int = 0
    #: the largest number of seats that owed a move at once
    most_at_once: int = 0
    notes: list[str] = field(default_factory=list)


# -- through the application service -------------------------------------------------------


def _chosen(loaded: Loaded, seat: int, choose: Chooser) -> tuple[Action, str]:
    """One of the seat's legal moves and its text as the engine writes it (the same choice
    as the API player's pick from its ``legal`` list; only the chosen move is formatted,
    since a Lancelot position with Excalibur has tens of thousands)."""
    action = choose.pick(list(loaded.rules.legal_actions(loaded.state, seat)))
    return action, loaded.rules.format_action(loaded.state, action)


def _typed_move(loaded: Loaded, seat: int, choose: Chooser) -> str:
    return _chosen(loaded, seat, choose)[1]


def play_by_service(
    service: GameService, name: str, config: Mapping[str, Any], seed: int
) -> Played:
    created = service.create_game(
        name, config, players(config["players"], email=False), channel="cli"
    )
    played = Played(created.id)
    choose = Chooser(seed)
    loaded = service.load(created.id)
    for _ in range(MAX_MOVES):
        if loaded.finished:
            return played
        to_act = sorted(loaded.to_act)
        assert to_act, f"game {created.id} is not finished but nobody is to act"
        played.most_at_once = max(played.most_at_once, len(to_act))
        seat = choose.pick(to_act)
        move = _typed_move(loaded, seat, choose)
        result = service.submit(
            created.id, seat, move, expected_version=loaded.version, channel="cli"
        )
        assert result.error is None and len(result.applied) >= 1, result
        played.moves += 1
        assert result.loaded is not None
        loaded = result.loaded
    raise AssertionError(f"game {created.id} did not finish in {MAX_MOVES} moves")


# -- through the JSON API ------------------------------------------------------------------


def _json(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.get_json())
    body: dict[str, Any] = response.get_json()
    return body


def play_by_api(client: FlaskClient, name: str, config: Mapping[str, Any], seed: int) -> Played:
    created = _json(
        client.post(
            "/api/v1/games",
            json={
                "game": name,
                "config": dict(config),
                "players": players(config["players"], email=False),
            },
        ),
        201,
    )
    game_id = created["id"]
    auth = {s["seat"]: {"Authorization": f"Bearer {s['token']}"} for s in created["seats"]}
    played = Played(game_id)
    choose = Chooser(seed)
    public = _json(client.get(f"/api/v1/games/{game_id}"), 200)
    for _ in range(MAX_MOVES):
        if public["finished"]:
            return played
        to_act = public["to_act"]
        assert to_act, f"game {game_id} is not finished but nobody is to act"
        played.most_at_once = max(played.most_at_once, len(to_act))
        seat = choose.pick(to_act)
        mine = _json(client.get(f"/api/v1/games/{game_id}", headers=auth[seat]), 200)
        assert mine["version"] == public["version"] and seat in mine["to_act"]
        move = choose.pick(mine["legal"])
        answer = _json(
            client.post(
                f"/api/v1/games/{game_id}/actions",
                json={"action": move, "expected_version": mine["version"]},
                headers=auth[seat],
            ),
            201,
        )
        assert answer["error"] is None and answer["applied"], answer
        played.moves += 1
        # What a client does next: look at the game again (as a spectator, to choose a seat).
        public = _json(client.get(f"/api/v1/games/{game_id}"), 200)
        assert public["version"] == answer["version"]
    raise AssertionError(f"game {game_id} did not finish in {MAX_MOVES} moves")


# -- through the mail --------------------------------------------------------------------


def parse_mail(raw: bytes) -> EmailMessage:
    message = message_from_bytes(raw, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return message


class Mail:
    """A mail as a player's client holds it.

    Its ``X-Pbem-*`` headers and Message-ID are read on arrival, from the header block alone;
    the whole message (MIME parts, the HTML board) is parsed when a player reads or answers
    it. A game's players get a few hundred mails and answer a third of them: parsing every
    one whole on arrival was a tenth of a mail game's time."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        headers = BytesHeaderParser(policy=policy.default).parsebytes(raw)
        self.kind = str(headers["X-Pbem-Mail"] or "")
        self.game = str(headers["X-Pbem-Game"] or "")
        self.version = int(str(headers["X-Pbem-Version"] or -1))
        self.message_id = str(headers["Message-ID"]).strip().strip("<>")

    @functools.cached_property
    def message(self) -> EmailMessage:
        return parse_mail(self.raw)

    @functools.cached_property
    def _text(self) -> str:
        body = self.message.get_body(("plain",))
        assert body is not None, "a mail without a plain-text part"
        content: str = body.get_content()
        return content

    def text(self) -> str:
        return self._text


class Mailboxes:
    """What each address received at the SMTP server since they were made, in order of
    arrival."""

    def __init__(self, server: SmtpTestServer) -> None:
        self.server = server
        # From now on: what the (module-wide) server got before is earlier games' mail, which
        # each game's mailboxes used to read again, so a module's last game read them all.
        self.seen = len(server.messages())
        self.by_address: dict[str, list[Mail]] = {}

    def collect(self) -> None:
        received = self.server.messages()
        for r in received[self.seen :]:
            mail = Mail(r.data)  # one message, however many recipients it went to
            for address in r.rcpt_tos:
                self.by_address.setdefault(address.lower(), []).append(mail)
        self.seen = len(received)

    def of(self, address: str, game_id: str | None = None) -> list[Mail]:
        mails = self.by_address.get(address.lower(), [])
        return mails if game_id is None else [m for m in mails if m.game == game_id]

    def latest(self, address: str, game_id: str, kind: str | None = None) -> Mail | None:
        for mail in reversed(self.by_address.get(address.lower(), [])):
            if mail.game == game_id and (kind is None or mail.kind == kind):
                return mail
        return None


def reply_to(mail: Mail, move: str) -> bytes:
    """A person's plain-text reply: to the Reply-To address, 'Re:' the subject, the move on
    top, then the client's attribution line and the original mail quoted."""
    original = mail.message
    recipient = original["To"].addresses[0]
    reply_address = original["Reply-To"].addresses[0].addr_spec
    quoted = "\r\n".join("> " + line for line in mail.text().splitlines())
    references = f"{original['References'] or ''} <{mail.message_id}>".strip()
    return (
        f"From: {recipient.display_name} <{recipient.addr_spec}>\r\n"
        f"To: {reply_address}\r\n"
        f"Subject: Re: {original['Subject']}\r\n"
        f"Date: {original['Date']}\r\n"
        f"Message-ID: <reply.{secrets.token_hex(8)}@client.players.test>\r\n"
        f"In-Reply-To: <{mail.message_id}>\r\n"
        f"References: {references}\r\n"
        "MIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "Content-Transfer-Encoding: 8bit\r\n"
        "\r\n"
        f"{move}\r\n\r\nOn {original['Date']}, {original['From']} wrote:\r\n{quoted}\r\n"
    ).encode()


@dataclass(frozen=True)
class Reply:
    """One reply a player sent: to which mail, with what move, on which position."""

    seat: int
    mail: Mail
    move: str
    secret: bool
    #: the game's version when the reply was posted (the mail may be older)
    head: int


@dataclass
class MailDoor:
    """The email pipeline as players meet it: the relay delivers to a real SMTP server,
    replies go to the webhook."""

    service: GameService
    relay: Relay
    client: FlaskClient
    smtp: SmtpTestServer

    def deliver(self) -> None:
        """Run the relay until the outbox has nothing due."""
        batch = self.relay.settings.mail.relay_batch
        for _ in range(100):
            result = self.relay.run_once()
            if not result.sent:
                return
            # The relay claimed fewer rows than a batch: nothing else was due, and nothing
            # becomes due before the players act (the clock stands still, a failed mail waits
            # for its backoff). Asking again only to hear "nothing" cost two write
            # transactions a move.
            if result.sent + result.retried + result.dead < batch:
                return
        raise AssertionError("the relay kept finding mail to send")

    def post(self, raw: bytes) -> dict[str, Any]:
        response = self.client.post(
            "/inbound/email", data=raw, headers={"Authorization": f"Bearer {WEBHOOK_SECRET}"}
        )
        return _json(response, 200)


def play_by_email(
    door: MailDoor,
    name: str,
    config: Mapping[str, Any],
    seed: int,
    *,
    mailboxes: Mailboxes | None = None,
    replies: list[Reply] | None = None,
) -> Played:
    seats = players(config["players"], email=True)
    created = door.service.create_game(name, config, seats, channel="api")
    game_id = created.id
    played = Played(game_id)
    choose = Chooser(seed)
    boxes = mailboxes or Mailboxes(door.smtp)
    addresses = [str(p["email"]) for p in seats]
    # Players new to the service get an invitation first: each accepts by replying to it.
    door.deliver()
    boxes.collect()
    for address in addresses:
        invitation = boxes.latest(address, game_id, "invitation")
        if invitation is not None:
            answer = door.post(reply_to(invitation, "accept"))
            assert answer["outcome"] == "applied", answer
    answered: set[str] = set()
    for _ in range(MAX_MOVES):
        door.deliver()
        boxes.collect()
        loaded = door.service.load(game_id)
        if loaded.finished:
            return played
        owing = []
        for seat, address in enumerate(addresses):
            turn = boxes.latest(address, game_id, "turn")
            if turn is not None and turn.message_id not in answered:
                owing.append(seat)
        # Every seat the rules wait for has a turn mail to answer, and no one else has.
        assert owing == sorted(loaded.to_act), (
            f"game {game_id} v{loaded.version}: seats with an unanswered turn mail {owing}, "
            f"seats to act {sorted(loaded.to_act)}"
        )
        played.most_at_once = max(played.most_at_once, len(owing))
        seat = choose.pick(owing)
        latest = boxes.latest(addresses[seat], game_id)
        turn = boxes.latest(addresses[seat], game_id, "turn")
        assert latest is not None and turn is not None
        action, move = _chosen(loaded, seat, choose)
        if replies is not None:
            secret = loaded.rules.is_secret(loaded.state, seat, action)
            replies.append(Reply(seat, latest, move, secret, loaded.version))
        answer = door.post(reply_to(latest, move))
        if answer["outcome"] != "applied":
            door.deliver()
            boxes.collect()
            last = boxes.latest(addresses[seat], game_id)
            raise AssertionError(
                f"game {game_id}: {NAMES[seat]}'s reply {move!r} to the mail of version "
                f"{latest.version} (game at version {loaded.version}) was "
                f"{answer['outcome']}: {answer['detail']}\n--- the answer mail ---\n"
                f"{last.text() if last is not None and last is not latest else '(none)'}"
            )
        answered.add(turn.message_id)
        played.moves += 1
        if latest.version < loaded.version:
            played.stale_replies += 1
    raise AssertionError(f"game {game_id} did not finish in {MAX_MOVES} moves")


def engine_final_state_hash(name: str, config: Mapping[str, Any], game_seed: int, seed: int) -> str:
    """The final state the same choices reach on the engine alone: every door must end there."""
    from pbem.core.fold import state_hash

    rules = REGISTRY[name]
    state = rules.initial_state(config, game_seed)
    choose = Chooser(seed)
    for _ in range(MAX_MOVES):
        to_act = sorted(rules.to_act(state))
        if not to_act:
            return state_hash(rules, state)
        seat = choose.pick(to_act)
        state = rules.apply(state, seat, choose.pick(list(rules.legal_actions(state, seat)))).state
    raise AssertionError("the engine's game did not finish")


def game_seed(seed: int) -> int:
    """The game's secret seed for a player seed: large, as the service's are."""
    return 2**100 + 7919 * seed
