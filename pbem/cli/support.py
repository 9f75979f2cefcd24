"""What the ``pbem`` command modules share: how a command ends on a service error, how it
reads a whole number (``WholeNumber``) and a time control given on the command line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from pbem.core.errors import ServiceError
from pbem.core.numbers import LARGEST, NumberError, read_int


@contextmanager
def service_errors() -> Iterator[None]:
    """Service errors end the command with their message and exit status 1."""
    try:
        yield
    except ServiceError as e:
        raise click.ClickException(e.message) from None


class WholeNumber(click.ParamType[int, Any]):
    """A whole number argument or option, read by ``pbem.core.numbers.read_int``: anything else
    ("²", "-1", a number of 400 digits) is click's usage error with the reader's message,
    never a traceback."""

    name = "integer"

    def __init__(self, what: str, minimum: int = 0, maximum: int = LARGEST) -> None:
        self.what = what
        self.minimum = minimum
        self.maximum = maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            return read_int(value, what=self.what, minimum=self.minimum, maximum=self.maximum)
        except NumberError as e:
            self.fail(e.message, param, ctx)


SEAT = WholeNumber("the seat")
VERSION = WholeNumber("the version", minimum=1)


def time_control_option(text: str | None, hint: str) -> Any:
    """A time control as given on the command line: a preset or a duration as it is, or a
    JSON object (``{"kind": "clock", …}``) read; ``pbem.clock.time_control`` checks it."""
    if text is None or not text.lstrip().startswith("{"):
        return text
    try:
        return json.loads(text)
    except ValueError as e:
        raise click.BadParameter(f"not JSON: {e}", param_hint=hint) from None
