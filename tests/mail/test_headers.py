"""Outgoing headers are built only from cleaned strings (CVE-2024-6923 and friends)."""

from __future__ import annotations

from email import message_from_bytes, policy
from typing import Any

import pytest
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from pbem.mail.inbound.reading import read_message
from pbem.mail.outbound.headers import clean, clean_address, msgid, new_message

EVIL = (
    b"From: Mallory <mallory@example.com>\r\n"
    b"To: play@reply.example.org\r\n"
    b"Subject: =?utf-8?q?move=0D=0ABcc:_victim@example.net=0D=0AX-Injected:_yes?=\r\n"
    b"Message-ID: <evil@example.com>\r\n"
    b"\r\n"
    b"E5\r\n"
)


def _reply_to(subject: str) -> bytes:
    return new_message(
        from_=("Lancelot by mail", "games@pbem.example.org"),
        to=("Mallory", "mallory@example.com"),
        subject=subject,
        message_id="pbem.1@pbem.example.org",
        text="not understood",
    ).as_bytes()


def test_a_decoded_incoming_subject_cannot_inject_headers_into_our_reply() -> None:
    incoming = read_message(EVIL)
    out = message_from_bytes(_reply_to("Re: " + incoming.subject), policy=policy.default)
    assert out["Bcc"] is None and out["X-Injected"] is None
    assert "\n" not in str(out["Subject"]) and "\r" not in str(out["Subject"])
    assert str(out["Subject"]).startswith("Re: move Bcc: victim@example.net")


def test_an_incoming_header_object_is_refused_not_copied() -> None:
    # Copying the parsed header object is the path that injects on Python 3.11's email
    # package; new_message only takes str, so that mistake fails loudly instead.
    parsed = message_from_bytes(EVIL, policy=policy.default)
    with pytest.raises(TypeError):
        new_message(
            from_=("x", "games@pbem.example.org"),
            to=("y", "mallory@example.com"),
            subject=parsed["Subject"],
            message_id="pbem.2@pbem.example.org",
            text="hi",
        )


@pytest.mark.parametrize(
    "dirty",
    ["a\r\nBcc: x@y", "a\x00b", "a\u2028b", "a\u2029b", "a\x85b", "a\u202eb", "a\tb\x0bc"],
)
def test_clean_removes_line_breaks_nul_and_controls(dirty: str) -> None:
    text = clean(dirty)
    assert not any(ch in text for ch in "\r\n\x00\u2028\u2029\x85\u202e\t\x0b")
    assert text.startswith("a")


def test_clean_caps_the_length() -> None:
    assert len(clean("x" * 5000, 100)) == 100
    assert clean("x" * 5000, 100).endswith("…")


@pytest.mark.parametrize(
    "bad",
    [
        "a@b.c\r\nBcc: d@e.f",
        "a b@c.d",
        "<a@b.c>",
        "a@b..c",
        "x" * 65 + "@b.c",
        "nobody",
        '"quoted"@b.c',
    ],
)
def test_clean_address_refuses_anything_but_a_plain_address(bad: str) -> None:
    with pytest.raises(ValueError):
        clean_address(bad)


def test_message_ids_are_checked() -> None:
    assert msgid("abc@d.e") == "<abc@d.e>"
    assert msgid("<abc@d.e>") == "<abc@d.e>"
    with pytest.raises(ValueError):
        msgid("abc@d.e>\r\nBcc: x@y.z")


@given(st.text(max_size=300))
def test_any_subject_gives_exactly_one_subject_line(subject: str) -> None:
    raw = _reply_to(subject)
    head = raw.split(b"\r\n\r\n", 1)[0]
    names = [
        line.split(b":", 1)[0] for line in head.split(b"\r\n") if line[:1] not in (b" ", b"\t")
    ]
    assert sorted(names) == sorted(
        [
            b"From",
            b"To",
            b"Subject",
            b"Message-ID",
            b"Content-Type",
            b"Content-Transfer-Encoding",
            b"MIME-Version",
        ]
    )
    parsed = message_from_bytes(raw, policy=policy.default)
    # The text survives, but not always its spaces: the email package may write a space
    # between two RFC 2047 encoded words, where readers ignore it (RFC 2047 section 6.2).
    assert "".join(str(parsed["Subject"]).split()) == "".join(clean(subject).split())


@settings(deadline=None)  # timing is not the point, and CI machines are shared
@given(
    name=st.text(min_size=1, max_size=40),
    subject=st.text(min_size=1, max_size=150),
    refs=st.integers(min_value=0, max_value=12),
)
def test_remembered_headers_and_folds_write_the_bytes_the_email_package_writes(
    name: str, subject: str, refs: int
) -> None:
    # Header objects and their folds are remembered between mails (the same sender,
    # subject and threading headers recur in every mail of a game); each mail, written
    # again with them remembered, has the very bytes the plain SMTP policy writes.
    from pbem.mail.outbound import headers

    def mail() -> bytes:
        return new_message(
            from_=("Lancelot by mail", "games@pbem.example.org"),
            to=(name, "ann@example.com"),
            reply_to=(name, "play+token@reply.example.org"),
            subject=subject,
            message_id="pbem.1@pbem.example.org",
            in_reply_to="pbem.g.thread@pbem.example.org",
            references=[f"pbem.{i}.{'x' * i}@pbem.example.org" for i in range(refs)],
            extra={"Auto-Submitted": "auto-generated", "X-Pbem-Head": "ab" * 32},
            text=f"{subject}\n" * 3,
            date="Mon, 02 Jun 2025 09:00:00 +0000",
        ).as_bytes()

    remembered = [mail(), mail()]
    plain = headers.SMTP_POLICY
    try:
        headers.SMTP_POLICY = policy.SMTP
        assert remembered == [mail(), mail()]
    finally:
        headers.SMTP_POLICY = plain


_WORD = st.from_regex(r"[A-Za-z0-9]{1,12}", fullmatch=True)
_ATOM = st.from_regex(r"[A-Za-z0-9+_-]{1,30}(\.[A-Za-z0-9+_-]{1,10}){0,2}", fullmatch=True)
_DOMAIN = st.from_regex(r"[a-z0-9-]{1,20}(\.[a-z0-9-]{1,12}){0,3}", fullmatch=True)
# Simple shapes (written by the fast path) and anything at all (the email package's path).
_NAME = st.one_of(st.lists(_WORD, min_size=1, max_size=4).map(" ".join), st.text(max_size=40))
_TEXT = st.one_of(
    st.lists(st.from_regex(r"[\x21-\x7e]{1,20}", fullmatch=True), min_size=1, max_size=8).map(
        " ".join
    ),
    st.text(min_size=1, max_size=120),
)


@settings(deadline=None, max_examples=300)
@given(
    to_name=_NAME,
    local=_ATOM,
    domain=_DOMAIN,
    reply_local=st.from_regex(r"[a-z2-7]{1,58}", fullmatch=True),
    subject=_TEXT,
    message_id=st.one_of(st.tuples(_ATOM, _DOMAIN).map("@".join), st.text(max_size=60)),
    refs=st.lists(st.tuples(_ATOM, _DOMAIN).map("@".join), max_size=3),
    extra=st.dictionaries(
        st.from_regex(r"X-[A-Za-z][A-Za-z0-9-]{0,20}", fullmatch=True), _TEXT, max_size=3
    ),
    body=st.text(max_size=300),
    date=st.sampled_from([None, "Mon, 02 Jun 2025 09:00:00 +0000"]),
)
def test_message_bytes_are_the_bytes_new_message_writes(
    to_name: str,
    local: str,
    domain: str,
    reply_local: str,
    subject: str,
    message_id: str,
    refs: list[str],
    extra: dict[str, str],
    body: str,
    date: str | None,
) -> None:
    # The outbox writes every mail with message_bytes (each header written on its own, the
    # simple ones as they are): the bytes and subject must be new_message's, or its error.
    from pbem.mail.outbound.headers import message_bytes

    args: dict[str, Any] = {
        "from_": ("Lancelot by mail", "games@pbem.example.org"),
        "to": (to_name, f"{local}@{domain}"),
        "reply_to": ("pbem", f"play+{reply_local}@{domain}"),
        "subject": subject,
        "message_id": message_id,
        "in_reply_to": refs[-1] if refs else None,
        "references": refs,
        "extra": {"Auto-Submitted": "auto-generated", **extra},
        "text": body,
        "date": date,
    }
    try:
        message = new_message(**args)
        expected: tuple[bytes, str] | type[Exception] = (
            message.as_bytes(),
            str(message["Subject"]),
        )
    except (ValueError, TypeError, IndexError) as error:
        expected = type(error)
    try:
        got: tuple[bytes, str] | type[Exception] = message_bytes(**args)
    except (ValueError, TypeError, IndexError) as error:
        got = type(error)
    assert got == expected


# Bodies that reach every branch of the email package's choice of transfer encoding: short
# ASCII lines (7bit), short non-ASCII lines (8bit), lines over 78 and over 998 bytes
# (quoted-printable or base64, by a sniff of the first 10 lines), any line end.
_PIECE = st.one_of(
    st.sampled_from(
        ["\n", "\r\n", "\r", "\n\r", "…", "é", "😀", "From ", ".", "=", " ", "\t", "\x0c", "\x85"]
    ),
    st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=30),
    st.text(max_size=10),
    st.tuples(st.sampled_from(["x", "é", "…", "=", " ", "😀"]), st.integers(1, 1200)).map(
        lambda repeat: repeat[0] * repeat[1]
    ),
)
# A line of about the length where the choice changes (78 bytes, 998 bytes).
_EDGE_LINE = st.tuples(
    st.sampled_from([75, 76, 77, 78, 79, 80, 996, 997, 998, 999]),
    st.integers(0, 3),
    st.sampled_from(["", "é", "…", " ", "="]),
).map(lambda line: "x" * (line[0] - line[1] * len(line[2].encode())) + line[2] * line[1])
_BODY = st.one_of(
    st.lists(_PIECE, max_size=30).map("".join),
    st.lists(st.one_of(_EDGE_LINE, st.lists(_PIECE, max_size=4).map("".join)), max_size=25).map(
        "\n".join
    ),
    st.text(),
)


@settings(deadline=None, max_examples=400)
@given(text=_BODY)
@example(text="x" * 68 + "é" * 7 + "\n")  # as long in quoted-printable as in base64
@example(text="x" * 100 + "\n" * 10 + "é" * 2000)  # the 11th line is not sniffed
@example(text=("x" * 100 + "\n") * 11)  # quoted-printable, more than the sniffed lines
def test_message_bytes_writes_the_body_the_email_package_writes(text: str) -> None:
    # message_bytes writes the text part itself (headers._text_part), not with
    # set_content + as_bytes: it must be the same bytes for any text.
    from pbem.mail.outbound.headers import message_bytes

    args: dict[str, Any] = {
        "from_": ("Lancelot by mail", "games@pbem.example.org"),
        "to": ("Ann", "ann@example.com"),
        "subject": "Turn 3",
        "message_id": "pbem.1@pbem.example.org",
        "text": text,
    }
    expected = new_message(**args).as_bytes()
    event(expected.split(b"Content-Transfer-Encoding: ", 1)[1].split(b"\r\n", 1)[0].decode())
    assert message_bytes(**args)[0] == expected


_HTML = st.one_of(
    st.lists(st.sampled_from(["<p>", "</p>", "\n", "é", "—", " ", "x" * 500, "--=" * 5])).map(
        "".join
    ),
    st.text(),
)


@settings(deadline=None, max_examples=300)
@given(text=_BODY, html=_HTML, seed=st.integers(0, 2**32))
@example(text="a\n", html="<p>b</p>", seed=1)
@example(text="x" * 100 + "\n", html="<p>" + "b " * 600 + "</p>", seed=2)  # a line too long
def test_message_bytes_writes_the_alternative_parts_the_email_package_writes(
    text: str, html: str, seed: int
) -> None:
    # With an HTML part, message_bytes writes the multipart body itself (headers.
    # _alternative_part): the bytes must be the email package's for the same text, the same
    # HTML part (headers._html_content's choice) and the same random boundary.
    import random
    from email.message import EmailMessage

    from pbem.mail.outbound.headers import SMTP_POLICY, _html_content, message_bytes

    args: dict[str, Any] = {
        "from_": ("Lancelot by mail", "games@pbem.example.org"),
        "to": ("Ann", "ann@example.com"),
        "subject": "Turn 3",
        "message_id": "pbem.1@pbem.example.org",
        "text": text,
    }
    # The message's own headers: what a text-only message writes before its content's.
    head = new_message(**args).as_bytes().split(b"Content-Type: text/plain", 1)[0]
    random.seed(seed)
    body = EmailMessage(policy=SMTP_POLICY)
    body.set_content(text)
    content, cte = _html_content(html)
    body.add_alternative(content, subtype="html", cte=cte)
    expected = head + body.as_bytes()
    random.seed(seed)
    assert message_bytes(**args, html=html)[0] == expected


def test_message_bytes_refuses_the_body_the_email_package_refuses() -> None:
    # A lone surrogate cannot be encoded: the email package's error, from either path.
    from pbem.mail.outbound.headers import message_bytes

    args: dict[str, Any] = {
        "from_": ("Lancelot by mail", "games@pbem.example.org"),
        "to": ("Ann", "ann@example.com"),
        "subject": "Turn 3",
        "message_id": "pbem.1@pbem.example.org",
        "text": "move \ud800",
    }
    with pytest.raises(UnicodeEncodeError):
        new_message(**args)
    with pytest.raises(UnicodeEncodeError):
        message_bytes(**args)


def test_a_text_holding_the_boundary_gets_the_boundary_the_email_package_gives() -> None:
    # The random boundary drawn is a line of the text: the check for it is the email
    # package's (a pattern of whole lines, which under CRLF line ends never matches), so both
    # writers give the same bytes.
    import random
    import sys
    from email.message import EmailMessage

    from pbem.mail.outbound.headers import SMTP_POLICY, message_bytes

    random.seed(5)
    drawn = "=" * 15 + f"{random.randrange(sys.maxsize):019d}" + "=="
    text = f"a\n--{drawn}\nb\n--{drawn}.0--\n"
    args: dict[str, Any] = {
        "from_": ("Lancelot by mail", "games@pbem.example.org"),
        "to": ("Ann", "ann@example.com"),
        "subject": "Turn 3",
        "message_id": "pbem.1@pbem.example.org",
        "text": text,
    }
    random.seed(5)
    body = EmailMessage(policy=SMTP_POLICY)
    body.set_content(text)
    body.add_alternative("<p>b</p>\n", subtype="html", cte="7bit")
    expected = body.as_bytes()
    random.seed(5)
    got = message_bytes(**args, html="<p>b</p>\n")[0]
    assert f'boundary="{drawn}'.encode() in expected
    assert got.endswith(expected)
