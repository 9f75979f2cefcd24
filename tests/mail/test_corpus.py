"""The reply corpus: every .eml shaped like a real client's mail reads as its manifest says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbem.mail.inbound.classification import Kind
from pbem.mail.inbound.reading import read_message
from pbem.mail.outbound.address import find_token

CORPUS = Path(__file__).parent / "corpus"
MANIFEST: dict[str, Any] = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))
CASES: dict[str, dict[str, Any]] = MANIFEST["messages"]


def test_the_corpus_has_every_required_shape_and_a_manifest_entry_per_file() -> None:
    files = {p.name for p in CORPUS.glob("*.eml")}
    assert files == set(CASES), "every .eml needs an entry in expected.json and vice versa"
    assert len(files) >= 25
    kinds = {case["kind"] for case in CASES.values()}
    assert {"reply", "auto_reply", "bounce", "list", "own"} <= kinds


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_message_reads_as_expected(name: str) -> None:
    expected = CASES[name]
    incoming = read_message((CORPUS / name).read_bytes(), MANIFEST["own_domains"])
    assert incoming.kind == Kind(expected["kind"]), incoming.reason
    if expected["kind"] == "bounce":
        assert incoming.bounce is not None
        assert incoming.bounce.failed is expected["failed"]
        assert list(incoming.bounce.recipients) == expected["recipients"]
        assert list(incoming.bounce.original_ids) == expected["original_ids"]
        assert incoming.commands == ()
    else:
        assert list(incoming.commands) == expected["commands"]
    if expected["kind"] == "reply":
        token = find_token(incoming.recipients, domain="reply.example.org")
        assert token == expected.get("token", MANIFEST["token"])
        if "in_reply_to" in expected:
            assert list(incoming.in_reply_to) == expected["in_reply_to"]


def test_non_ascii_sender_names_and_subjects_are_decoded() -> None:
    incoming = read_message((CORPUS / "qp_latin1_french.eml").read_bytes())
    assert incoming.sender_name == "François"
    assert incoming.sender == "francois@example.fr"
    assert incoming.subject == "Rép.: Lancelot, game 7"


def test_a_message_without_message_id_is_keyed_by_its_hash() -> None:
    raw = b"From: a@example.com\r\nSubject: hi\r\n\r\nE5\r\n"
    first, again = read_message(raw), read_message(raw)
    assert first.message_id is None
    assert first.key == again.key and first.key.startswith("sha256:")
    assert read_message(raw + b"F6\r\n").key != first.key
    assert first.commands == ("E5",)
