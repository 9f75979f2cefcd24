"""``replace`` for the engines' frozen records: what ``dataclasses.replace`` returns, faster.

Every action a game applies builds its next state by replacing a few fields of frozen
dataclasses (Lancaster's ``State`` has 36 fields and is replaced several times per action);
``dataclasses.replace`` looks every field up by name and calls ``__init__``, whose frozen
``object.__setattr__`` per field was most of the cost of applying an action (and so of the
service's replays and of the offline verifier).

Two faster paths build the same record, each taken only for the plain records where the two
are the same by construction: every field an ``__init__`` parameter, positional, no
``__post_init__``, no ``InitVar`` or ``ClassVar``; any other dataclass goes to
``dataclasses.replace``.

- A record without ``__slots__`` whose instances hold their fields and nothing else in their
  ``__dict__`` (no ``cached_property`` on the class): the new record's ``__dict__`` is a copy
  of the old one's with the changes written over it, one C-level copy instead of a
  ``__setattr__`` per field. (``__init__`` would store exactly those values under those
  names; an unknown name is refused as ``__init__`` refuses it.)
- A slotted record: all fields read at once (``operator.attrgetter``), the class called with
  them in order.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

_R = TypeVar("_R")

#: a plan: the number of fields of a record copied by ``__dict__``, or (every field's value in
#: order, each field's place) for a slotted one
_Plan = int | tuple[Callable[[Any], tuple[Any, ...]], dict[str, int]]
#: per class: its plan, or None for the dataclasses ``dataclasses.replace`` must build
_PLANS: dict[type, _Plan | None] = {}
_new = object.__new__


def _plan(cls: type) -> _Plan | None:
    if not dataclasses.is_dataclass(cls):
        return None
    fields = dataclasses.fields(cls)
    names = tuple(f.name for f in fields)
    plain = (
        len(names) >= 2  # attrgetter of one name returns the value, not a tuple
        and set(cls.__dataclass_fields__) == set(names)
        and not hasattr(cls, "__post_init__")
        and all(f.init and not f.kw_only for f in fields)
    )
    if not plain:
        return None
    # (a field a slotted base class declares lives in its slot, not in the ``__dict__``)
    if not any("__slots__" in vars(k) for k in cls.__mro__):
        caches = any(
            isinstance(v, functools.cached_property) for k in cls.__mro__ for v in vars(k).values()
        )
        return None if caches else len(names)
    return attrgetter(*names), {name: i for i, name in enumerate(names)}


def _unknown(cls: type, changes: dict[str, Any]) -> TypeError:
    name = next(n for n in changes if n not in cls.__dataclass_fields__)  # type: ignore[attr-defined]
    return TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument {name!r}")


def replace(obj: _R, /, **changes: Any) -> _R:
    """``dataclasses.replace(obj, **changes)``."""
    cls = type(obj)
    try:
        plan = _PLANS[cls]
    except KeyError:
        plan = _PLANS[cls] = _plan(cls)
    if plan is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    if isinstance(plan, int):
        new = _new(cls)
        record = new.__dict__
        record.update(obj.__dict__)
        record.update(changes)
        # Every name changed is a field when the record has no more entries than fields.
        if len(record) != plan:
            raise _unknown(cls, changes)
        return new
    values, places = plan
    row = list(values(obj))
    for name, value in changes.items():
        place = places.get(name)
        if place is None:
            raise _unknown(cls, changes)
        row[place] = value
    return cls(*row)
