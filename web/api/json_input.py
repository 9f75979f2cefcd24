"""Reading JSON from a request: strictly, and within bounds the rest of the service can hold.

Python's ``json`` reads more than the service can store or answer: nesting deep enough to
exhaust the interpreter's stack (a ``RecursionError``), ``NaN`` and ``Infinity`` (not JSON),
integers too long to convert, lone UTF-16 surrogates (``"\\ud800"``, text that cannot be
encoded as UTF-8 later) and NUL characters (which PostgreSQL text cannot hold). Each is
refused here, at the door, with a sentence saying what to send instead, so that nothing
behind the door ever meets it.

Both readers of request JSON use :func:`loads`: the API's argument parser (webargs) and
Flask's own ``request.get_json`` (through :class:`StrictRequest`). The app's JSON provider
is left as it is: it also reads the session cookie and writes every response.
"""

from __future__ import annotations

import json
import types
from typing import Any

from flask import Request

#: The deepest nesting of arrays and objects accepted: far beyond what any endpoint takes,
#: far below what exhausts the stack while reading or writing it.
MAX_DEPTH = 32
#: The longest integer accepted, in digits: more than any version, seat or count needs.
MAX_DIGITS = 30


class UnreadableJson(ValueError):
    """The body is not JSON the service accepts; the message says why, for a person."""


def _no_constants(name: str) -> Any:
    raise UnreadableJson(f"{name} is not a JSON number: send a number, a string or null.")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise UnreadableJson(
            f"The body holds a number of {len(text)} digits: at most {MAX_DIGITS} are accepted."
        )
    return int(text)


def loads(data: str | bytes) -> Any:
    """The JSON value of ``data``, or ``UnreadableJson`` saying what is wrong with it."""
    try:
        value = json.loads(data, parse_constant=_no_constants, parse_int=_integer)
    except RecursionError:
        raise UnreadableJson(_too_deep()) from None
    except UnicodeDecodeError:
        raise UnreadableJson("The body is not UTF-8 text: send JSON encoded as UTF-8.") from None
    except json.JSONDecodeError as e:
        raise UnreadableJson(f"The body is not valid JSON: {e.msg} at character {e.pos}.") from None
    except UnreadableJson:
        raise
    except ValueError as e:
        raise UnreadableJson(f"The body cannot be read as JSON: {e}.") from None
    check(value)
    return value


def _too_deep() -> str:
    return (
        f"The JSON body is nested too deeply: at most {MAX_DEPTH} levels of arrays and "
        "objects are accepted."
    )


def check(value: Any) -> None:
    """Refuse nesting beyond ``MAX_DEPTH`` and text no store can hold (walked without
    recursion, so a deep value cannot exhaust the stack here either)."""
    pending: list[tuple[Any, str, int]] = [(value, "body", 0)]
    while pending:
        item, where, depth = pending.pop()
        if isinstance(item, str):
            _check_text(item, where)
        elif isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                raise UnreadableJson(_too_deep())
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, inner in pairs:
                place = f"{where}[{key!r}]" if isinstance(key, str) else f"{where}[{key}]"
                if isinstance(key, str):
                    _check_text(key, f"a key of {where}")
                pending.append((inner, place, depth + 1))


def _check_text(text: str, where: str) -> None:
    if "\x00" in text:
        raise UnreadableJson(
            f"The text at {_short(where)} holds a NUL character (\\u0000), which is not "
            "printable: remove it."
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UnreadableJson(
            f"The text at {_short(where)} holds a lone UTF-16 surrogate (such as \\ud800), "
            "which is not a character: send valid Unicode text."
        ) from None


def _short(where: str) -> str:
    return where if len(where) <= 80 else where[:77] + "..."


class StrictRequest(Request):
    """Flask's request, whose ``get_json`` reads with :func:`loads` (an ``UnreadableJson``
    is a ``ValueError``: ``get_json`` answers it 400, or None when ``silent``)."""

    @property
    def json_module(self) -> Any:
        return _STRICT

    @json_module.setter
    def json_module(self, value: Any) -> None:
        # Flask sets the app's JSON provider on each request; reading stays strict here.
        pass


_STRICT = types.SimpleNamespace(loads=loads)
