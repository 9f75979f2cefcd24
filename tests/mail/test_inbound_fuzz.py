"""Hypothesis over the inbound pipeline: malformed and hostile messages never raise, never
change a game, and each gets exactly one recorded outcome (and at most one reply)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import func
from sqlmodel import select

from pbem.app.bootstrap import reply_words
from pbem.mail.inbound.pipeline import Inbound
from pbem.mail.models import InboundMail, OutboxMail
from tests.mail.helpers import MailWorld, reply_to

# Words that would (legitimately) change the game or add a mail of their own.
ACTING = {"resign", "help", "show"}
# No digits: a Lancelot move always names a square (a letter and a number), so none of these
# bodies can be a legal move.
BODY = st.text(
    alphabet=st.characters(blacklist_categories=("Nd", "No", "Cs")), max_size=300
).filter(lambda t: not ACTING & {line.strip().lower().rstrip(".!") for line in t.splitlines()})
HEADER_NAMES = st.sampled_from(
    [
        "From",
        "To",
        "Cc",
        "Message-ID",
        "In-Reply-To",
        "References",
        "Subject",
        "Content-Type",
        "Content-Transfer-Encoding",
        "MIME-Version",
        "Auto-Submitted",
        "Return-Path",
        "Delivered-To",
    ]
)
HEADER_VALUES = st.one_of(
    st.text(max_size=120),
    st.sampled_from(
        [
            "multipart/mixed",
            'multipart/alternative; boundary="',
            "text/plain; charset=x-unknown-charset",
            "text/html; charset=utf-8",
            "base64",
            "quoted-printable",
            "=?utf-8?q?a=0D=0ABcc:_x@y.z?=",
            "=?bogus?b?!!!?=",
            "<>",
            "<@>",
            "play+@reply.pbem.test",
            "play+aaaaaaaaaaaaaaaaaaaaaaaaaa@reply.pbem.test",
            '"quoted\\"name" <alice@example.com>',
            "alice@example.com",
            "multipart/report; report-type=delivery-status",
        ]
    ),
)


@st.composite
def messages(draw: st.DrawFn, turn: bytes) -> bytes:
    kind = draw(st.sampled_from(["bytes", "truncated", "spliced", "headers", "token", "body"]))
    base = reply_to(turn, draw(BODY), message_id=f"fuzz.{draw(st.integers(0, 10**12))}@x.example")
    if kind == "bytes":
        return draw(st.binary(max_size=3000))
    if kind == "truncated":
        return base[: draw(st.integers(0, len(base)))]
    if kind == "spliced":
        at = draw(st.integers(0, len(base)))
        return base[:at] + draw(st.binary(min_size=1, max_size=200)) + base[at:]
    if kind == "headers":
        fields = draw(st.lists(st.tuples(HEADER_NAMES, HEADER_VALUES), max_size=12))
        head = "".join(f"{n}: {v}\r\n" for n, v in fields)
        return head.encode("utf-8", "surrogatepass") + b"\r\n" + draw(BODY).encode()
    if kind == "token":
        # A damaged reply address: one character of the token changed.
        match = re.search(rb"play\+([a-z2-7]+)@", base)
        assert match
        token = bytearray(match.group(1))
        i = draw(st.integers(0, len(token) - 1))
        token[i] = ord(draw(st.sampled_from("a2z7q")))
        return base[: match.start(1)] + bytes(token) + base[match.end(1) :]
    # a reply whose body is MIME nonsense
    broken = draw(
        st.sampled_from(
            [
                b"Content-Type: multipart/mixed; boundary=zz\r\n\r\n--zz\r\n"
                b"Content-Type: text/plain; charset=utf-8\r\n"
                b"Content-Transfer-Encoding: base64\r\n\r\n!!notbase64\r\n",
                b"Content-Type: text/plain; charset=utf-16\r\n\r\n\xff\xfe\x00",
                b"Content-Type: text/html\r\n\r\n<blockquote><blockquote><p>" * 50,
                b"Content-Transfer-Encoding: quoted-printable\r\n\r\n=E9=XX=\r\n",
            ]
        )
    )
    head, _, _ = base.partition(b"\r\n\r\n")
    head = b"\r\n".join(line for line in head.split(b"\r\n") if not line.startswith(b"Content-"))
    return head + b"\r\n" + broken


def _counts(world: MailWorld, game_id: str) -> tuple[int, int, int]:
    with world.db.read() as session:
        inbound = session.exec(select(func.count()).select_from(InboundMail)).one()
        outbox = session.exec(select(func.count()).select_from(OutboxMail)).one()
    return inbound, outbox, world.service.load(game_id).version


def test_malformed_messages_get_one_outcome_and_change_nothing(world: MailWorld) -> None:
    game = world.new_game()
    turn = next(m for m in world.outbox(game.id) if m.kind == "turn").message
    inbound = Inbound(
        world.db, world.settings, world.service, world.clock, words=reply_words(world.service)
    )
    events_before = world.service.raw_events(game.id)
    outcomes: set[str] = set()

    @settings(
        max_examples=60,
        deadline=None,
        # The same examples on every run: the pipeline and the database are real, and a CI
        # run must not fail on a draw that no other run makes.
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(raw=messages(turn))
    @example(raw=b"From: x@spam.example\r\nAuto-Submitted: auto-replied\r\n\r\naway\r\n")
    @example(raw=b"From: x@spam.example\r\nSubject: hello\r\n\r\nbuy\r\n")
    def check(raw: bytes) -> None:
        stored_before, mails_before, version_before = _counts(world, game.id)
        result = inbound.receive(raw, "webhook")  # must not raise
        stored, mails, version = _counts(world, game.id)
        outcomes.add(result.outcome)
        assert version == version_before
        assert stored - stored_before == (0 if result.duplicate else 1)
        assert mails - mails_before <= (0 if result.duplicate else 1)
        with world.db.read() as session:
            row = session.get(InboundMail, result.key)
            assert row is not None
            assert row.status in ("done", "held") and row.outcome == result.outcome

    check()
    assert world.service.raw_events(game.id) == events_before
    # The explicit examples at least reach two different exits of the pipeline.
    assert {"refused", "ignored"} <= outcomes, outcomes
