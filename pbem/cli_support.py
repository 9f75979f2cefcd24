"""What the ``pbem`` command modules share: how a command ends on a service error, and how
it reads a time control given on the command line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from pbem.errors import ServiceError


@contextmanager
def service_errors() -> Iterator[None]:
    """Service errors end the command with their message and exit status 1."""
    try:
        yield
    except ServiceError as e:
        raise click.ClickException(e.message) from None


def time_control_option(text: str | None, hint: str) -> Any:
    """A time control as given on the command line: a preset or a duration as it is, or a
    JSON object (``{"kind": "clock", …}``) read; ``pbem.deadlines.time_control`` checks it."""
    if text is None or not text.lstrip().startswith("{"):
        return text
    try:
        return json.loads(text)
    except ValueError as e:
        raise click.BadParameter(f"not JSON: {e}", param_hint=hint) from None
