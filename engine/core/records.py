"""``replace`` for the engines' frozen records: what ``dataclasses.replace`` returns, faster.

Every action a game applies builds its next state by replacing a few fields of frozen
dataclasses (Lancaster's ``State`` has 36 fields and is replaced several times per action);
``dataclasses.replace`` looks every field up by name each time, which was most of the cost of
applying an action (and so of the service's replays and of the offline verifier). This one
reads all fields at once (``operator.attrgetter``) and calls the class with them in order,
which builds the same record. It takes that path only for the plain records where the two are
the same by construction: every field an ``__init__`` parameter, positional, no
``__post_init__``, no ``InitVar`` or ``ClassVar``; any other dataclass goes to
``dataclasses.replace``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

_R = TypeVar("_R")

#: per class: (every field's value in order, each field's place), or None for the others
_PLANS: dict[type, tuple[Callable[[Any], tuple[Any, ...]], dict[str, int]] | None] = {}


def _plan(cls: type) -> tuple[Callable[[Any], tuple[Any, ...]], dict[str, int]] | None:
    fields = dataclasses.fields(cls)
    names = tuple(f.name for f in fields)
    plain = (
        len(names) >= 2  # attrgetter of one name returns the value, not a tuple
        and set(cls.__dataclass_fields__) == set(names)  # type: ignore[attr-defined]
        and not hasattr(cls, "__post_init__")
        and all(f.init and not f.kw_only for f in fields)
    )
    if not plain:
        return None
    return attrgetter(*names), {name: i for i, name in enumerate(names)}


def replace(obj: _R, /, **changes: Any) -> _R:
    """``dataclasses.replace(obj, **changes)``."""
    cls = type(obj)
    try:
        plan = _PLANS[cls]
    except KeyError:
        plan = _PLANS[cls] = _plan(cls) if dataclasses.is_dataclass(cls) else None
    if plan is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    values, places = plan
    row = list(values(obj))
    for name, value in changes.items():
        place = places.get(name)
        if place is None:
            raise TypeError(
                f"{cls.__name__}.__init__() got an unexpected keyword argument {name!r}"
            )
        row[place] = value
    return cls(*row)
