"""Whole numbers at the web's doors, read by ``pbem.core.numbers.read_int``: ``WholeNumber`` for
the API's query arguments and JSON fields, ``WholeNumberConverter`` for the ``<int:…>`` parts
of paths.

Marshmallow's ``Integer`` and werkzeug's ``int`` converter read with ``int()``, so "٣",
"１２", " 5" or "1_000" would each be taken for a number, and numbers beyond what the
database holds would reach a query; here they are refused with the reader's message (a
path part that is not a number is no page: 404).
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate
from werkzeug.routing import BaseConverter
from werkzeug.routing import ValidationError as NoRoute

from pbem.core.numbers import LARGEST, NumberError, read_int


class WholeNumber(fields.Integer):
    """An integer field: a JSON integer, or (unless ``strict``) ASCII digits in a string,
    from ``minimum`` to ``maximum`` (documented as the OpenAPI bounds)."""

    def __init__(self, *, minimum: int = 0, maximum: int = LARGEST, **kwargs: Any) -> None:
        super().__init__(validate=validate.Range(min=minimum, max=maximum), **kwargs)
        self.minimum = minimum
        self.maximum = maximum

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise self.make_error("invalid", input=value)
        if self.strict and isinstance(value, str):
            raise self.make_error("invalid", input=value)
        try:
            return read_int(
                value, what=f"the {self.name}", minimum=self.minimum, maximum=self.maximum
            )
        except NumberError as e:
            raise ValidationError(e.message) from None


class WholeNumberConverter(BaseConverter):
    """``<int:name>`` in a route: ASCII digits (at most ``MAX_DIGITS``); anything else
    matches no route. No upper bound: a number beyond any stored one is looked up as any
    missing one is, and answered with the service's own "no such undo request"."""

    regex = r"[0-9]+"
    weight = 50

    def to_python(self, value: str) -> int:
        try:
            return read_int(value, what="the number in the address", maximum=None)
        except NumberError:
            raise NoRoute() from None

    def to_url(self, value: Any) -> str:
        return str(int(value))
