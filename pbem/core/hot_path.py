"""The hot path's statements besides the core's own: what every move and every reply writes
besides its events (its mails in the outbox, an idempotent request's kept result, the
reply's outcome, the ``games`` row's new head) and the few reads and the store they make
(the reply's routing read, the mails' facts, the inbound message stored), run on the
database driver (``pbem.core.db.DriverStatement``).

This is part of the core's write path, like the events' own INSERT (``pbem.core.store``) and
the game's lock (``pbem.core.unit_of_work``): SQLAlchemy's execution of a small statement
costs about as much as the database's answer to it (run through the session instead, each
of the reads and the store here took about 125 µs more CPU on SQLite and 400 µs more on
PostgreSQL, measured on a loaded shared machine). On
PostgreSQL a write made not to wait goes to the server with the next statement whose answer
is read (the unit of work's pipelined write), which spares a round trip.

Feature code calls these functions with ordinary SQLAlchemy statements, built once at import
(a table model, or ``text()`` for a read that replaces several); everything else it reads
and writes through its session (``docs/architecture.md``, "The database").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import ClauseElement, Table, and_, bindparam, insert, update
from sqlmodel import Session, SQLModel

from pbem.core.db import DriverStatement

#: prefix of the parameters naming the row to update (a column's own name is its new value)
_WHERE = "where_"


def insert_rows(session: Session, model: type[SQLModel], rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` (each the values of its columns, all with the same columns) into
    ``model``'s table in ``session``'s transaction, without waiting for the database's
    answer: nothing reads them back in it. An error (a key taken) is raised by the next
    statement that waits, or by the commit, and the transaction rolls back as always."""
    if rows:
        _by_table(("insert", _table(model), ()), wait=False).run(session, rows)


def update_row(
    session: Session,
    model: type[SQLModel],
    where: Mapping[str, Any],
    values: Mapping[str, Any],
    *,
    wait: bool = True,
) -> int | None:
    """Set ``values`` (column: value) in the rows of ``model``'s table whose columns equal
    ``where``'s; returns how many rows it changed, or None when it did not wait for the
    answer (``wait=False``: the caller knows the row is there, and nothing in the
    transaction reads it back)."""
    params = {**values, **{_WHERE + name: value for name, value in where.items()}}
    statement = _by_table(("update", _table(model), tuple(sorted(where))), wait=wait)
    cursor = statement.run(session, params)
    return cursor.rowcount if wait else None


def fetch_rows(
    session: Session, statement: ClauseElement, params: Mapping[str, Any]
) -> list[tuple[Any, ...]]:
    """The rows ``statement`` answers (a read, or a write with ``RETURNING``), run in
    ``session``'s transaction. ``statement``: one built once, at import (it is compiled once
    and remembered as that object)."""
    return list(_given(statement).run(session, params).fetchall())


def fetch_first(
    session: Session, statement: ClauseElement, params: Mapping[str, Any]
) -> tuple[Any, ...] | None:
    """The first row ``statement`` answers, or None (see ``fetch_rows``)."""
    row = _given(statement).run(session, params).fetchone()
    return None if row is None else tuple(row)


def _table(model: type[SQLModel]) -> Table:
    table = model.__table__  # type: ignore[attr-defined]
    assert isinstance(table, Table)
    return table


#: Built once per (kind, table, key columns) and wait: compiling again for every move would
#: cost about as much as running the statement.
_BY_TABLE: dict[tuple[tuple[str, Table, tuple[str, ...]], bool], DriverStatement] = {}
#: The statements features gave, by identity (each built once, at import).
_GIVEN: dict[int, tuple[ClauseElement, DriverStatement]] = {}


def _by_table(what: tuple[str, Table, tuple[str, ...]], *, wait: bool) -> DriverStatement:
    found = _BY_TABLE.get((what, wait))
    if found is None:
        kind, table, keys = what
        if kind == "insert":
            # ``inline``: no RETURNING of generated ids, which nobody reads.
            built = DriverStatement(insert(table).inline(), wait=wait)
        else:
            matches = [table.c[name] == bindparam(_WHERE + name) for name in keys]
            built = DriverStatement(update(table).where(and_(*matches)), wait=wait)
        found = _BY_TABLE.setdefault((what, wait), built)
    return found


def _given(statement: ClauseElement) -> DriverStatement:
    found = _GIVEN.get(id(statement))
    if found is None or found[0] is not statement:
        found = _GIVEN[id(statement)] = (statement, DriverStatement(statement))
    return found[1]
