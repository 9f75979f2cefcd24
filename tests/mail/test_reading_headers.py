"""The cheaper reads of an incoming mail (``pbem.mail.inbound.header_fields``, ``body`` and
``quotes``) give what the email package and mail-parser-reply give: header values of a plain
shape taken as they are (``_plain_value``), the headers of a message read once
(``HeaderFields``), the library's regular expressions built once (``_library_body``) and the
addresses of a header value remembered (``addresses``)."""

from __future__ import annotations

from email import message_from_bytes
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem.mail.inbound.body import body_text
from pbem.mail.inbound.header_fields import _ADDRESSES, _plain_value
from pbem.mail.inbound.header_fields import HeaderFields as _Fields
from pbem.mail.inbound.header_fields import addresses as _addresses
from pbem.mail.inbound.header_fields import header_value as _header
from pbem.mail.inbound.header_fields import header_values as _headers
from pbem.mail.inbound.quotes import _PARSER, _library_body
from pbem.mail.outbound.headers import READ_POLICY

CORPUS = Path(__file__).parent / "corpus"

NAMES = [
    *("From", "To", "Cc", "Message-ID", "In-Reply-To", "References", "Subject", "FROM"),
    *("message-id", "Delivered-To", "X-Original-To", "Precedence", "Auto-Submitted"),
    *("Return-Path", "Sender", "Reply-To", "Date", "Content-Type", "X-Pbem-Mail"),
]
# Characters near the plain shapes: atext, specials, whitespace, encoded-word marks, non-ASCII.
PIECES = st.lists(
    st.sampled_from([*"aZ09+_-.=?$'@<>()\",;:[]\\ \t\u00e9\x00\x7f", "=?", "?="]), max_size=12
).map("".join)
WORDS = st.lists(st.text(alphabet="aZ09", min_size=1, max_size=4), min_size=1, max_size=3)


@st.composite
def values(draw: st.DrawFn) -> str:
    """Header values of the plain shapes, near misses of them, and anything else."""
    local = draw(st.sampled_from(["a", "play+x1", "a.b", "A_B-c"]) | PIECES)
    domain = draw(st.sampled_from(["b", "reply.example.org", "b-c.d"]) | PIECES)
    address = f"{local}@{domain}"
    name = draw(st.sampled_from([" ", "  ", "\t"])).join(draw(WORDS))
    shape = draw(
        st.sampled_from(
            [
                *(address, f"<{address}>", f"{name} <{address}>", f'"{name}" <{address}>'),
                *(f"{address}, {address}", f"{name}<{address}>", f"<{address}> {name}"),
            ]
        )
    )
    return draw(st.just(shape) | PIECES | st.text(max_size=40) | st.text("a <>@.=? ", max_size=20))


@given(name=st.sampled_from(NAMES), value=values())
@settings(max_examples=1000)
@example(name="To", value="<play+x1@reply.example.org>")
@example(name="From", value="Ann Lee <ann@example.org>")
@example(name="Message-ID", value="<CAJx1=gmail01$x@mail.gmail.com>")
@example(name="Message-ID", value="<=?utf-8?q?a?=@b>")
@example(name="In-Reply-To", value="=?utf-8?q?<evil@pbem.example.org>?=")
@example(name="To", value="=?utf-8?q?a?=@b")
@example(name="Subject", value="Re: Lancelot, game 7 ")
def test_a_header_value_taken_as_it_is_reads_as_the_email_package_reads_it(
    name: str, value: str
) -> None:
    plain = _plain_value(name, value)
    if plain is not None:
        assert plain == str(READ_POLICY.header_fetch_parse(name, value))


@pytest.mark.parametrize(
    ("name", "value", "read"),
    [
        ("To", "<play+x1@reply.example.org>", "play+x1@reply.example.org"),
        ("from", "ann.lee@example.org", "ann.lee@example.org"),
        ("Cc", "Ann Lee <ann@example.org>", "Ann Lee <ann@example.org>"),
        ("Message-ID", "<bench.82db@client.example>", "<bench.82db@client.example>"),
        ("In-Reply-To", "<pbem.1.2@pbem.example.org>", "<pbem.1.2@pbem.example.org>"),
        ("Subject", "Re: game", "Re: game"),
        ("Delivered-To", "play+x1@reply.example.org", "play+x1@reply.example.org"),
    ],
)
def test_the_plain_shapes_of_a_reply_are_taken_as_they_are(
    name: str, value: str, read: str
) -> None:
    assert _plain_value(name, value) == read == str(READ_POLICY.header_fetch_parse(name, value))


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("From", "=?utf-8?q?Fran=C3=A7ois?= <f@example.fr>"),
        ("To", '"Lee, Ann" <ann@example.org>'),
        ("Subject", "=?utf-8?q?a=0D=0ABcc:_x@y.z?="),
        ("Message-ID", "<a@b> trailing"),
        ("Reply-To", "<a@b>"),
        ("Subject", "caf\u00e9"),
    ],
)
def test_other_values_go_through_the_email_package(name: str, value: str) -> None:
    assert _plain_value(name, value) is None


@st.composite
def raw_messages(draw: st.DrawFn) -> bytes:
    fields = draw(st.lists(st.tuples(st.sampled_from(NAMES), values()), max_size=10))
    lines = []
    for name, value in fields:
        fold = draw(st.booleans()) and " " in value.strip()
        lines.append(f"{name}: {value.replace(' ', chr(13) + chr(10) + ' ', 1) if fold else value}")
    return ("\r\n".join(lines) + "\r\n\r\nE5\r\n").encode("utf-8", "surrogatepass")


@given(raw=raw_messages())
@settings(max_examples=300)
def test_the_headers_read_once_are_those_read_one_name_at_a_time(raw: bytes) -> None:
    message = message_from_bytes(raw, policy=READ_POLICY)
    fields = _Fields(message)
    for name in [*NAMES, "X-Absent", "x-original-to"]:
        assert fields.one(name) == _header(message, name)
        assert fields.all(name) == _headers(message, name)
        _ADDRESSES.clear()
        assert _addresses(fields.all(name)) == _addresses(fields.all(name))


def test_remembered_addresses_are_not_changed_by_their_reader() -> None:
    first = _addresses(["Ann <ann@example.org>"])
    first.append(("Bob", "bob@example.org"))
    assert _addresses(["Ann <ann@example.org>"]) == [("Ann", "ann@example.org")]


LINES = st.sampled_from(
    [
        "E5",
        "D8, D9",
        "On Monday, pbem wrote:",
        "Am Montag schrieb pbem:",
        "From: pbem <games@pbem.example.org>",
        "Sent: Monday",
        "-----Original Message-----",
        "________________________________",
        "-- ",
        "Sent from my iPhone",
        "Best regards",
        "Cheers,",
        "Ann",
        "Le lundi, pbem a écrit :",
        "",
    ]
)


@given(text=st.lists(LINES | st.text(max_size=30), max_size=12).map("\n".join))
@settings(max_examples=300)
def test_the_library_regexes_built_once_read_as_the_library_reads(text: str) -> None:
    replies = _PARSER.read(text).replies
    assert _library_body(text) == (replies[0].body if replies else text)


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.eml")))
def test_the_library_regexes_built_once_read_each_corpus_body_as_the_library(name: str) -> None:
    text = body_text(message_from_bytes((CORPUS / name).read_bytes(), policy=READ_POLICY))
    assert _library_body(text) == _PARSER.read(text).replies[0].body
