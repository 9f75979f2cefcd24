"""The one reader of whole numbers that people type or requests send: a version, a seat, a
dispute's number, the parts of a duration, a command line's argument.

Python's own tests are too generous for this: ``str.isdigit()`` is true of "²" and "①",
which ``int()`` refuses (a crash where a refusal was meant), and ``int()`` reads
"٣", "１２", " 5", "+5" and "1_000", each of which then means something its writer may not
have meant. Here a number is the ASCII digits 0 to 9, with spaces around it ignored, a
minus sign only where a negative number is allowed, at most ``MAX_DIGITS`` digits, and
within the bounds the caller gives. Anything else is a ``NumberError``: a ``BadRequest``
(the API answers 400, a page shows its message, a mail is answered with it, the CLI ends
with it) and a ``ValueError`` (what marshmallow and click expect of a conversion).

Standard library only: the offline verifier may use it.
"""

from __future__ import annotations

from pbem.core.errors import BadRequest

#: The largest number the database's integer columns hold (PostgreSQL ``integer``): the
#: default upper bound, so that no typed number reaches a query it would make fail.
LARGEST = 2**31 - 1
#: More digits than any number the service reads (the API's JSON reader takes integers of
#: up to 30); checked before conversion, so that a number of thousands of digits costs
#: nothing (and never meets ``int``'s own limit).
MAX_DIGITS = 40
_DIGITS = frozenset("0123456789")
_SPACES = " \t\r\n"


class NumberError(BadRequest, ValueError):
    """A number that cannot be read or is out of bounds; the message says what to write."""


def read_int(
    text: str | int,
    *,
    what: str,
    minimum: int | None = 0,
    maximum: int | None = LARGEST,
) -> int:
    """The whole number written in ``text`` (or ``text`` itself, an int from JSON), between
    ``minimum`` and ``maximum`` (None: unbounded on that side), or ``NumberError``.

    ``what`` names the number for the message, with its article: "the version"."""
    if isinstance(text, bool) or not isinstance(text, int | str):
        raise NumberError(f"{_capital(what)} must be a whole number, not {text!r}.")
    if isinstance(text, str):
        value = _parse(text, what, signed=minimum is None or minimum < 0, maximum=maximum)
    else:
        value = text
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise NumberError(f"{_capital(what)} must be {_bounds(minimum, maximum)}, not {value}.")
    return value


def _parse(text: str, what: str, *, signed: bool, maximum: int | None) -> int:
    body = text.strip(_SPACES)
    digits = body[1:] if signed and body.startswith("-") else body
    if not digits or not set(digits) <= _DIGITS:
        raise NumberError(
            f"{_capital(what)} must be a whole number written with the digits 0 to 9, "
            f"not {_shown(text)}."
        )
    # Every digit counts, leading zeros too: int() refuses a string of thousands of them
    # ("0" * 5000 + "1") with a plain ValueError, which no door expects.
    if len(digits) > MAX_DIGITS:
        largest = "" if maximum is None else f" (at most {maximum})"
        raise NumberError(
            f"{_capital(what)} has {len(digits)} digits: that is more than any number "
            f"here{largest}."
        )
    return int(body)


def _bounds(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"a whole number from {minimum} to {maximum}"
    if minimum is not None:
        return f"a whole number of at least {minimum}"
    return f"a whole number of at most {maximum}"


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 24 else repr(text[:24]) + "…"


def _capital(what: str) -> str:
    return what[:1].upper() + what[1:]


__all__ = ["LARGEST", "MAX_DIGITS", "NumberError", "read_int"]
