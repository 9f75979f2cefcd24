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

- A record without ``__slots__``: the new record's ``__dict__`` is a copy of the old one's
  with the changes written over it, one C-level copy instead of a ``__setattr__`` per field
  (``__init__`` would store exactly those values under those names). An unknown name is
  refused as ``__init__`` refuses it, and whatever else the old record kept in its
  ``__dict__`` (values derived from its fields: Lancaster's ``State.memo``, a
  ``cached_property``) is not copied.
- A slotted record: all fields read at once (``operator.attrgetter``), the class called with
  them in order.
"""

from __future__ import annotations

import dataclasses
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
        return len(names)
    return attrgetter(*names), {name: i for i, name in enumerate(names)}


def _unknown(cls: type, changes: dict[str, Any]) -> TypeError:
    name = next(n for n in changes if n not in cls.__dataclass_fields__)  # type: ignore[attr-defined]
    return TypeError(f"{cls.__name__}.__init__() got an unexpected keyword argument {name!r}")


def _drop_derived(cls: type, record: dict[str, Any], changes: dict[str, Any]) -> None:
    """The new record's ``__dict__`` holds more than its fields: refuse a name that is no
    field, as ``__init__`` would, and drop what the old record had derived from its own
    values (a memo, a ``cached_property``): ``__init__`` would not have it either."""
    fields = cls.__dataclass_fields__  # type: ignore[attr-defined]
    if any(name not in fields for name in changes):
        raise _unknown(cls, changes)
    for name in [k for k in record if k not in fields]:
        del record[name]


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
        # Only fields are copied and changed when the record has no more entries than fields.
        if len(record) != plan:
            _drop_derived(cls, record, changes)
        return new
    values, places = plan
    row = list(values(obj))
    for name, value in changes.items():
        place = places.get(name)
        if place is None:
            raise _unknown(cls, changes)
        row[place] = value
    return cls(*row)
