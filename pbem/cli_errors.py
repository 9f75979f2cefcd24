"""How every ``pbem`` command ends on a service error: its message, exit status 1."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from pbem.errors import ServiceError


@contextmanager
def service_errors() -> Iterator[None]:
    """Service errors end the command with their message and exit status 1."""
    try:
        yield
    except ServiceError as e:
        raise click.ClickException(e.message) from None
