"""Numbers in replies, through the real inbound pipeline, on SQLite and PostgreSQL: ``extend
²``, ``agree ²``, ``disagree ²`` ended ``failed`` with no answer (``str.isdigit()`` let "²"
reach ``int()``); now every number of a clock or dispute line, and every square of a move,
written with other digits than 0 to 9, with a sign, spaces or too many digits, is refused
with an answer saying what to write, and the game does not change."""

from __future__ import annotations

from datetime import timedelta
from email import message_from_bytes, policy
from email.message import EmailMessage

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pbem.app.bootstrap import build_inbound
from pbem.mail.models import OutboxMail
from tests.mail.helpers import MailWorld, plain_text, reply_to
from tests.typed_numbers import NOT_DURATIONS

TC = {"kind": "fixed", "per_decision": "10d"}
LINES = (
    "extend {}",
    "agree {}",
    "disagree {}",
    "agree dispute {}",
    "dispute {}: that was not my move",
    "dispute 2-{}: those were not my moves",
)


def _text(mail: OutboxMail) -> str:
    message = message_from_bytes(mail.message, policy=policy.default)
    assert isinstance(message, EmailMessage)
    return " ".join(str(plain_text(message)).split())


def test_numbers_in_replies_are_refused_with_an_answer(world: MailWorld) -> None:
    seats = [{"name": n, "email": f"{n.lower()}@example.com"} for n in ("Nina", "Omar")]
    world.welcome(seats)
    game = world.service.create_game("lancelot", {}, seats, channel="api", time_control=TC)
    before = world.service.load(game.id).version
    inbound = build_inbound(world.service)
    latest = [m for m in world.outbox(game.id) if m.seat == 1][-1]

    # Each is answered, saying what to write (one error answer a day per sender and version:
    # a day passes between them).
    for text, says in (
        ("extend ²", "digits 0 to 9"),
        ("agree ²", "names the dispute by its number"),
        ("dispute ²: not my move", "the version"),
    ):
        world.clock.advance(timedelta(hours=25))
        sent = {m.id for m in world.outbox()}
        result = inbound.receive(reply_to(latest, text), "webhook")
        assert result.outcome == "refused", (text, result.detail)
        answers = [m for m in world.outbox() if m.id not in sent and m.seat == 1]
        assert answers and answers[-1].kind == "error", (text, [m.kind for m in answers])
        assert says in _text(answers[-1]), _text(answers[-1])

    @settings(
        max_examples=60,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(line=st.sampled_from(LINES), number=NOT_DURATIONS)
    @example(line="extend {}", number="²")  # each 'failed' the campaign found
    @example(line="agree {}", number="²")
    @example(line="disagree {}", number="²")
    def refused(line: str, number: str) -> None:
        text = line.format(number)
        result = inbound.receive(reply_to(latest, text), "webhook")
        assert result.outcome == "refused", (text[:80], result.outcome, result.detail)

    refused()
    assert world.service.load(game.id).version == before


def test_a_move_with_other_digits_is_refused(world: MailWorld) -> None:
    """Lancelot's reader took "᧚" (a digit NFKC leaves alone) for a row number."""
    game = world.new_game()
    before = world.service.load(game.id).version
    outcome, detail, answer = world.say(game.id, 0, "e ᧚")
    assert outcome == "refused" and answer.kind == "error", (outcome, detail)
    assert world.service.load(game.id).version == before
