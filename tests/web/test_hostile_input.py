"""Hostile input, on SQLite and PostgreSQL: every endpoint of the OpenAPI document and every
other route of the app (pages, administration, webhook, development pages) is fed random
JSON (deep nesting, lone surrogates, NUL, huge numbers, wrong types), random forms, random
query strings and path parts, and random headers. Nothing may answer 5xx; a 4xx says what
was wrong (JSON with a message from the JSON addresses, a page from the others) and changes
nothing.

The routes are walked from the app itself (``url_map``), and the request bodies are shaped
from the OpenAPI document's schemas, so an endpoint added later is fuzzed without a change
here. Schemathesis (a maintained generator of cases from OpenAPI documents) was weighed for
this: it covers only what the OpenAPI document describes (not the pages, the admin routes or
the webhook), its generators aim at fitting or breaking the schema rather than at the inputs
that break a store or a codec (NUL, surrogates, nesting), and it would tie a large tree of
dependencies to our pinned Hypothesis. The strategies below are Hypothesis alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import func, select
from werkzeug.routing import IntegerConverter, Rule

from pbem.app.bootstrap import build_service
from pbem.core.db import Database
from pbem.core.models import Event
from tests.service.helpers import REGISTRY
from tests.settings import make_settings
from tests.web.helpers import bearer
from web import create_app
from web.errors import wants_json

#: The characters that break things: NUL, lone surrogates, line ends, direction overrides.
NASTY = ["\x00", "\ud800", "\udfff", "\r\n", "\u2028", "\u202e", "\ufeff", "%00", "\\"]
TEXT = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.characters(codec=None, categories=["Cs", "Cc", "Zl", "Cf"]), max_size=8),
    st.sampled_from(
        [
            *NASTY,
            "",
            "E5",
            "lancelot",
            "lancaster",
            "public",
            "=?utf-8?q?x=0D=0ABcc:_evil@example.com?=",
            "ann@example.org",
            "../../etc/passwd",
            "x" * 5000,
        ]
    ),
)
NUMBER = st.one_of(
    st.integers(min_value=-3, max_value=12),
    st.integers(min_value=-(2**200), max_value=2**200),
    st.sampled_from([2**31, 2**63, -(2**63) - 1, 10**29]),
    st.floats(allow_nan=False, allow_infinity=False),
)
LEAF = st.one_of(st.none(), st.booleans(), NUMBER, TEXT)
ANY_JSON = st.recursive(
    LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=10,
)


def _nested(depth: int, opener: str) -> str:
    closer = {"[": "]", '{"a":': "}"}[opener]
    return opener * depth + "1" + closer * depth


RAW_JSON = st.one_of(
    st.builds(_nested, st.integers(min_value=1, max_value=3000), st.sampled_from(["[", '{"a":'])),
    st.sampled_from(
        ["NaN", "-Infinity", "1e999", "9" * 5000, '"\\ud800"', '"\\u0000"', "", "{", "\xff"]
    ),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
)


# -- the app: every route, one real game, the development pages on --------------------------


@dataclass
class Target:
    app: Flask
    client: FlaskClient
    db: Database
    game_id: str
    tokens: list[str]
    admin_token: str
    schemas: dict[str, Any]  # the OpenAPI document's component schemas
    bodies: dict[tuple[str, str], Any]  # (OpenAPI path, method) -> request body schema


@pytest.fixture(scope="module")
def target(database: Database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    folder = tmp_path_factory.mktemp("hostile")
    # The webhook open (a secret the fuzzer does not know), the development pages on.
    config = make_settings(
        database.url, folder, dev_pages=True, mail={"inbound_secret": "s3cret-webhook"}
    )
    service = build_service(config, db=database, registry=REGISTRY, listeners=[])
    app = create_app(service=service, host="127.0.0.1")
    client = app.test_client()
    created = client.post(
        "/api/v1/games",
        json={"game": "lancelot", "players": [{"name": "Ann"}, {"name": "Bob"}]},
    ).json
    document = client.get("/api/v1/openapi.json").json
    bodies = {
        (path, method): op["requestBody"]["content"]["application/json"]["schema"]
        for path, item in document["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "requestBody" in op
    }
    yield Target(
        app=app,
        client=client,
        db=database,
        game_id=created["id"],
        tokens=[s["token"] for s in created["seats"]],
        admin_token=created["admin_token"],
        schemas=document["components"]["schemas"],
        bodies=bodies,
    )


def _routes(app: Flask) -> list[tuple[Rule, str]]:
    return sorted(
        (
            (rule, method)
            for rule in app.url_map.iter_rules()
            for method in sorted(rule.methods or ())
            if method not in {"HEAD", "OPTIONS"}
        ),
        key=lambda pair: (pair[0].rule, pair[1]),
    )


def _openapi_path(rule: Rule) -> str:
    path = rule.rule
    for name in rule.arguments:
        for converter in ("int:", ""):
            path = path.replace(f"<{converter}{name}>", "{" + name + "}")
    return path


def test_the_fuzzer_walks_every_endpoint_of_the_openapi_document(target: Target) -> None:
    document = target.client.get("/api/v1/openapi.json").json
    documented = {
        (path, method.upper())
        for path, item in document["paths"].items()
        for method in item
        if method != "parameters"
    }
    walked = {(_openapi_path(rule), method) for rule, method in _routes(target.app)}
    assert documented and documented <= walked, documented - walked
    assert {"/new", "/games/{game_id}/history", "/dev/mail"} <= {p for p, _ in walked}


# -- what a request is made of ---------------------------------------------------------------


def _resolve(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    return schemas[ref.rsplit("/", 1)[1]] if ref else schema


def shaped(schema: dict[str, Any], schemas: dict[str, Any], depth: int = 0) -> Any:
    """Values shaped like ``schema`` (so requests get past the first checks and reach the
    service), with anything at all in their place now and then."""
    schema = _resolve(schema, schemas)
    kind = schema.get("type")
    if depth > 3:
        return LEAF
    if kind == "object" and "properties" in schema:
        fields = {k: shaped(v, schemas, depth + 1) for k, v in schema["properties"].items()}
        extra = st.dictionaries(TEXT, ANY_JSON, max_size=1)
        return st.builds(lambda d, e: {**e, **d}, st.fixed_dictionaries({}, optional=fields), extra)
    options: list[st.SearchStrategy[Any]] = [ANY_JSON]
    if "example" in schema:
        options.append(st.just(schema["example"]))
    if kind == "integer":
        options.append(NUMBER)
    elif kind == "string":
        options.append(TEXT)
    elif kind == "boolean":
        options.append(st.booleans())
    elif kind == "array":
        options.append(st.lists(shaped(schema.get("items", {}), schemas, depth + 1), max_size=6))
    elif kind == "object":
        options.append(st.dictionaries(TEXT, ANY_JSON, max_size=4))
    return st.one_of(*reversed(options))


def _json_text(value: Any) -> str:
    # ensure_ascii writes a lone surrogate as the escape "\ud800", as a client would send it
    return json.dumps(value, allow_nan=True)


@st.composite
def requests(draw: st.DrawFn, target: Target) -> dict[str, Any]:
    rule, method = draw(st.sampled_from(_routes(target.app)))
    if draw(st.integers(0, 15)) == 0:
        method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH"]))
    url = rule.rule
    for name in rule.arguments:
        if isinstance(rule._converters[name], IntegerConverter):
            value = str(draw(st.one_of(st.integers(0, 5), st.integers(0, 2**80))))
            url = url.replace(f"<int:{name}>", value)
            continue
        if name == "game_id":
            value = draw(st.one_of(st.just(target.game_id), TEXT.filter(bool)))
        else:
            value = draw(TEXT.filter(bool))
        part = _quoted(value)
        url = url.replace(f"<path:{name}>", part).replace(f"<{name}>", part)
    query = draw(
        st.dictionaries(
            st.sampled_from(
                [
                    *("at", "after", "view", "link", "token", "admin", "outcome", "x"),
                    *("version", "hash", "salt", "seat", "status"),
                ]
            ),
            st.one_of(TEXT, NUMBER.map(str), st.just(target.tokens[0])),
            max_size=3,
        )
    )
    if query:
        url += "?" + _encoded(query)
    secrets = [*target.tokens, target.admin_token, "s3cret-webhook"]
    header_text = st.text(
        alphabet=st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"),
        max_size=40,
    )
    headers = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "Authorization": st.one_of(
                    st.sampled_from(secrets).map(lambda t: f"Bearer {t}"),
                    header_text.map(lambda t: f"Bearer {t}"),
                    header_text.map(lambda t: f"Basic {t}"),
                    header_text,
                ),
                "Idempotency-Key": header_text,
                "Accept": st.sampled_from(["application/json", "text/html", "*/*"]) | header_text,
                "X-Forwarded-For": header_text,
                "Cookie": header_text,
            },
        )
    )
    documented = target.bodies.get((_openapi_path(rule), method.lower()))
    kind = draw(st.sampled_from(["json", "raw", "form", "none"]))
    request: dict[str, Any] = {"method": method, "path": url, "headers": headers}
    if kind == "json":
        value = draw(shaped(documented, target.schemas) if documented else ANY_JSON)
        request.update(data=_json_text(value), content_type="application/json")
    elif kind == "raw":
        request.update(data=draw(RAW_JSON), content_type="application/json")
    elif kind == "form":
        field = st.sampled_from(
            [
                *("action", "choice", "expected_version", "text", "game", "name0", "email0"),
                *("raw", "versions", "agree", "king_excalibur", "private"),
            ]
        )
        form = draw(st.dictionaries(field, st.one_of(TEXT, NUMBER.map(str)), max_size=4))
        if draw(st.booleans()):
            form["expected_version"] = str(_version(target))
        # Encoded here: a browser can send any bytes, the test client only valid text.
        request.update(data=_encoded(form), content_type="application/x-www-form-urlencoded")
    return request


def _quoted(text: str) -> str:
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def _encoded(fields: dict[str, str]) -> str:
    return "&".join(f"{_quoted(k)}={_quoted(v)}" for k, v in fields.items())


def _version(target: Target) -> int:
    return target.app.extensions["pbem"].load(target.game_id).version


def _log_size(db: Database) -> int:
    with db.read() as session:
        return int(session.exec(select(func.count()).select_from(Event)).one())


def _check(target: Target, request: dict[str, Any]) -> int:
    before = _log_size(target.db)
    method = request.pop("method")
    response = target.client.open(method=method, **request)
    status = response.status_code
    body = response.get_data(as_text=True)
    assert status < 500, (method, request, body[:500])
    if 400 <= status < 500:
        with target.app.test_request_context(request["path"].split("?")[0]):
            json_address = wants_json()
        if json_address:
            payload = json.loads(body) if response.mimetype == "application/json" else None
            assert isinstance(payload, dict), (request, body[:300])
            assert payload.get("message") or payload.get("error"), payload
        else:
            assert response.mimetype == "text/html", (request, response.mimetype)
            assert "</html>" in body, body[:300]
        # A refusal changes nothing; a page's move form answers 422 after applying the
        # lines before the one that failed, which is a change it reports.
        partial_move = method == "POST" and status == 422 and not json_address
        if not partial_move:
            assert _log_size(target.db) == before, (method, request, status)
    return status


FAST = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_hostile_requests_never_get_a_5xx(target: Target) -> None:
    seen: set[int] = set()

    @FAST
    @given(data=st.data())
    def one_request(data: st.DataObject) -> None:
        seen.add(_check(target, data.draw(requests(target))))

    one_request()
    # Not all one kind of answer: some get through to the service, some are refused.
    assert len({code // 100 for code in seen}) >= 2 and {400, 404} <= seen, seen


@pytest.mark.slow
def test_a_larger_hostile_campaign(target: Target) -> None:
    @settings(FAST, max_examples=5000)
    @given(data=st.data())
    def one_request(data: st.DataObject) -> None:
        _check(target, data.draw(requests(target)))

    one_request()


# -- each finding, by name ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/games/{id}/actions", "[" * 1000 + "]" * 1000),
        ("/api/v1/games", "[" * 1000 + "]" * 1000),
        ("/api/v1/games", '{"game": "lancelot", "config": ' + "[" * 100 + "]" * 100 + "}"),
        ("/api/v1/games/{id}/actions", '{"action": "\\ud800", "expected_version": {v}}'),
        ("/api/v1/games/{id}/actions", '{"action": "E5", "idempotency_key": "a\\u0000"}'),
        ("/api/v1/games", '{"game": "lancelot", "players": [{"name": "A\\u0000"}]}'),
        ("/api/v1/games", '{"game": "lancelot", "config": {"target": ' + "9" * 5000 + "}}"),
        ("/api/v1/games/{id}/admin/resign", "[" * 1000 + "]" * 1000),
    ],
)
def test_hostile_json_is_refused_with_a_message(target: Target, path: str, body: str) -> None:
    before = _log_size(target.db)
    response = target.client.post(
        path.replace("{id}", target.game_id),
        data=body.replace("{v}", str(_version(target))),
        content_type="application/json",
        headers=bearer(target.tokens[0]),
    )
    assert response.status_code == 400, response.get_data(as_text=True)[:300]
    message = response.json["message"]
    assert any(word in message for word in ("nested", "surrogate", "NUL", "digits", "seat")), (
        message
    )
    assert _log_size(target.db) == before


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/games/%00",
        "/api/v1/games/%00/events",
        "/api/v1/games/a%00b/state?at=1",
        "/api/v1/games/%00/admin/log",
        "/games/%00",
        "/games/%00/history",
        "/games/%00/status.json",
        "/inbound/confirm/%00/%00",
        "/rules/%00",
        "/rules/" + "x" * 5000,  # longer than any file name (it was an OSError, a 500)
    ],
)
def test_a_path_no_game_can_have_is_not_found(target: Target, path: str) -> None:
    response = target.client.get(path)
    assert response.status_code == 404, response.get_data(as_text=True)[:300]
    if path.startswith("/api/") or path.endswith("status.json"):
        payload = response.json
        assert (payload.get("message") or payload.get("error")).startswith("There is no")
    else:
        assert "There is no" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/games/{id}/state?at=99999999999999999999999",
        "/api/v1/games/{id}/events?after=99999999999999999999999",
        "/games/{id}/history?at=99999999999999999999999",
        "/games/{id}/history?at=-99999999999999999999999",
    ],
)
def test_a_version_beyond_any_game_is_answered(target: Target, path: str) -> None:
    # Beyond what a database integer holds: refused, or (after=) nothing after it.
    response = target.client.get(path.replace("{id}", target.game_id))
    assert response.status_code in (200, 400, 404), response.get_data(as_text=True)[:300]
    if response.status_code == 200:
        assert response.json["events"] == []


def test_an_undo_request_number_beyond_any_is_refused(target: Target) -> None:
    response = target.client.post(
        f"/api/v1/games/{target.game_id}/undo/{2**80}/decision",
        json={"accept": True},
        headers=bearer(target.tokens[1]),
    )
    assert 400 <= response.status_code < 500, response.get_data(as_text=True)[:300]
    assert response.json["message"]


def test_page_errors_are_pages(target: Target, tmp_path: Path) -> None:
    for method, path in (("get", "/no-such-page"), ("post", "/"), ("delete", "/new")):
        response = getattr(target.client, method)(path)
        assert response.status_code in (404, 405)
        assert response.mimetype == "text/html"
        assert "This page cannot be shown" in response.get_data(as_text=True)
    api = target.client.get("/api/v1/no-such-thing")
    assert api.status_code == 404 and api.json["message"].startswith("There is nothing at")


def test_a_webhook_password_that_is_not_base64_text_is_unauthorized(target: Target) -> None:
    # werkzeug raises ValueError reading such a header, rather than answering None.
    response = target.client.post(
        "/inbound/email", data=b"From: a@b\r\n\r\nE5", headers={"Authorization": "Basic \x80x"}
    )
    assert response.status_code == 401, response.get_data(as_text=True)[:300]
    assert "Authorization: Bearer" in response.json["message"]
