"""The database: one SQLAlchemy engine, SQLite or PostgreSQL, and transaction helpers.

SQLite (the embedded default) runs in WAL mode with ``synchronous=FULL`` and a busy timeout,
and every write transaction starts with ``BEGIN IMMEDIATE``: writers queue for the lock at
the start instead of failing half-way when two of them upgrade a read lock at once. Reads
start a plain deferred ``BEGIN`` and see one consistent snapshot.

Writers of one SQLite file also queue on an advisory file lock (``<file>.writelock``) before
``BEGIN IMMEDIATE``: a waiting writer then wakes as soon as the lock is free, where SQLite's
busy handler would sleep in growing steps (up to 100 ms), which with several gunicorn
workers costs most of the throughput.

On PostgreSQL every statement that waits for its answer is a round trip to the server. The
unit of work's transaction (``pipelined_write``) runs in psycopg's pipeline mode: a
``DriverStatement`` made with ``wait=False`` goes to the server with the next statement whose
answer is read. The statements every move and every reply runs are such driver statements,
run on the driver's cursor directly: SQLAlchemy's execution of a statement costs about as
much again as PostgreSQL's answer to it. They are kept to the core's write path (the events'
INSERT in ``pbem.core.store``, the game's lock in ``pbem.core.unit_of_work``, and
``pbem.core.hot_path``, which the features call for the rest); feature code reaches the
database through its session (``docs/architecture.md``, "The database").
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not on Windows: writers then rely on SQLite's busy timeout alone
    fcntl = None  # type: ignore[assignment]

from sqlalchemy import ClauseElement, Connection, Dialect, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlmodel import Session

_WRITE = "pbem_write"
_PIPELINE = "pbem_pipeline"


def normalise_url(url: str) -> str:
    """Accept plain ``postgresql://`` URLs: we ship psycopg 3, not psycopg2."""
    parsed = make_url(url)
    if parsed.drivername in {"postgresql", "postgres"}:
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


class Database:
    """A SQLAlchemy engine with ``write()`` and ``read()`` session context managers."""

    def __init__(self, url: str, *, busy_timeout_ms: int = 15_000, pool_size: int = 5) -> None:
        self.url = normalise_url(url)
        parsed = make_url(self.url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        self.is_postgres = parsed.get_backend_name() == "postgresql"
        kwargs: dict[str, Any] = {}
        self._writer_lock_path: Path | None = None
        if self.is_sqlite:
            if parsed.database and parsed.database != ":memory:":
                Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
                if fcntl is not None:
                    self._writer_lock_path = Path(parsed.database + ".writelock")
            # The driver's timeout is SQLite's busy timeout, in force from the moment the file
            # is opened: the first statements of a connection (switching to WAL, or reading
            # a file another process is recovering after a crash) may already need a lock.
            kwargs["connect_args"] = {
                "check_same_thread": False,
                "timeout": busy_timeout_ms / 1000,
            }
        else:
            kwargs["pool_size"] = pool_size
        self.engine: Engine = create_engine(self.url, **kwargs)
        self._write_engine = self.engine.execution_options(**{_WRITE: True})
        if self.is_sqlite:
            self._install_sqlite_hooks(busy_timeout_ms)
        else:
            _ping_idle_connections(self.engine)
            _wait_for_every_answer(self.engine)

    def _install_sqlite_hooks(self, busy_timeout_ms: int) -> None:
        @event.listens_for(self.engine, "connect")
        def _on_connect(dbapi_connection: Any, _record: Any) -> None:
            # Take BEGIN away from the sqlite3 module so that we emit it ourselves (below).
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            # The busy timeout first: every setting after it may have to wait for a lock.
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @event.listens_for(self.engine, "begin")
        def _on_begin(conn: Any) -> None:
            if conn.get_execution_options().get(_WRITE):
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            else:
                conn.exec_driver_sql("BEGIN")

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write transaction: committed when the block ends, rolled back on an exception."""
        with self._write_transaction() as session:
            yield session

    @contextmanager
    def pipelined_write(self) -> Iterator[Session]:
        """``write``, with PostgreSQL's pipeline mode: a ``DriverStatement`` made with
        ``wait=False`` (one whose answer nobody reads: an INSERT or UPDATE without RETURNING
        or a rowcount check) is sent without waiting for the server, and goes with the next
        statement whose answer is read, or with the COMMIT. Every other statement (SQLAlchemy's
        included) waits for its answer as in ``write``. An error in a statement sent ahead is raised
        by the next one that waits (or by the commit), and the transaction rolls back as
        always. On SQLite, ``write``."""
        if not self.is_postgres:
            with self._write_transaction() as session:
                yield session
            return
        # The session is bound to a connection of our own, so that the COMMIT is sent in
        # pipeline mode and the connection leaves it before it goes back to the pool. The
        # driver is in autocommit mode, and BEGIN and COMMIT are ours: in pipeline mode
        # psycopg waits for the answer to a BEGIN of its own, and would skip its COMMIT if
        # nothing had been read since the BEGIN (it goes by the transaction status the
        # connection last heard of). Its rollback looks at the server's status too.
        with self._write_engine.connect().execution_options(
            isolation_level="AUTOCOMMIT"
        ) as connection:
            info = connection.info
            driver = connection.connection.driver_connection
            assert driver is not None
            with (
                driver.pipeline() as pipeline,
                Session(bind=connection, expire_on_commit=False) as session,
            ):
                info[_PIPELINE] = pipeline
                try:
                    session.begin()
                    _BEGIN.run(session, {})
                    yield session
                    session.flush()  # what the session holds goes before the COMMIT
                    # Waits: with what is queued, and raises any error it met.
                    _COMMIT.run(session, {})
                    session.commit()  # the session's own bookkeeping: the server is done
                except BaseException as error:
                    _roll_back_or_drop(session, connection, error)
                    raise
                finally:
                    info.pop(_PIPELINE, None)

    @contextmanager
    def autocommit(self) -> Iterator[Session]:
        """A session whose statements each commit on their own, for one write that needs no
        transaction around it (a single INSERT is atomic) and reads that need no snapshot
        shared with it. On PostgreSQL this spares the BEGIN and COMMIT round trips of a
        transaction; on SQLite, where they cost none, it is a write transaction like
        ``write``'s."""
        if self.is_sqlite:
            with self._write_transaction() as session:
                yield session
            return
        with (
            self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection,
            Session(bind=connection, expire_on_commit=False) as session,
        ):
            yield session

    @contextmanager
    def _write_transaction(self) -> Iterator[Session]:
        with (
            self._writer_queue(),
            Session(self._write_engine, expire_on_commit=False) as session,
            session.begin(),
        ):
            session.connection()  # begin now (BEGIN IMMEDIATE on SQLite): take the lock first
            yield session

    def _writer_queue(self) -> Any:
        if self._writer_lock_path is None:
            return nullcontext()
        return _file_lock(self._writer_lock_path)

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only transaction (one consistent snapshot); never committed.

        Closing the session ends the transaction without expiring the objects read, so they
        stay usable after the block.
        """
        with Session(self.engine, expire_on_commit=False) as session:
            yield session

    def dispose(self) -> None:
        self.engine.dispose()


#: A pooled connection idle for longer than this is pinged before it is handed out.
PING_AFTER_IDLE_SECONDS = 2.0


def _ping_idle_connections(engine: Engine) -> None:
    """Ping a pooled connection before use when it has been idle for a while, and hand out
    another when the ping fails (a server restarted, a proxy that dropped idle connections).

    SQLAlchemy's ``pool_pre_ping`` pings at every checkout: a round trip per transaction,
    and a reply by mail is two transactions a few milliseconds apart. A connection given
    back moments ago answered then; if its server went away since, its next statement fails
    once (and the pool is renewed), as it could have right after a ping anyway. This is
    SQLAlchemy's own "pessimistic disconnect handling" recipe (a ``checkout`` listener that
    raises ``DisconnectionError``, on which the pool retries with a new connection)."""

    @event.listens_for(engine, "connect")
    @event.listens_for(engine, "checkin")
    def _note_idle_since(_dbapi_connection: Any, record: Any) -> None:
        record.info[_IDLE_SINCE] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.get(_IDLE_SINCE)
        if idle_since is not None and time.monotonic() - idle_since < PING_AFTER_IDLE_SECONDS:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)  # what pool_pre_ping runs
        except Exception as error:
            raise DisconnectionError(f"the database connection is gone: {error}") from error


_IDLE_SINCE = "pbem_idle_since"


def _roll_back_or_drop(session: Session, connection: Connection, error: BaseException) -> None:
    """End a pipelined write that failed. After a database error, answers to statements
    sent behind the failed one may still be on their way (pipeline mode raises the first
    error it meets) and a rollback could trip over them: the connection is dropped, not
    given back to the pool, and the server rolls the transaction back as it closes. Any
    other failure is rolled back, and the connection dropped if even that fails."""
    if isinstance(error, DBAPIError):
        connection.invalidate()
        return
    try:
        session.rollback()
    except Exception:  # even the rollback failed
        connection.invalidate()


def _wait_for_every_answer(engine: Engine) -> None:
    """In a pipelined write, wait for the answer of every statement SQLAlchemy runs (and of
    those queued before it) before SQLAlchemy reads it: it reads every answer (a row count,
    a generated key). Only a ``DriverStatement`` may go without waiting."""

    @event.listens_for(engine, "after_cursor_execute")
    def _sync(
        conn: Any, _cursor: Any, _statement: Any, _params: Any, _context: Any, _many: Any
    ) -> None:
        pipeline = conn.info.get(_PIPELINE)
        if pipeline is not None:
            pipeline.sync()


@dataclass(frozen=True)
class _Compiled:
    sql: str
    #: the parameters' names in the order of a positional paramstyle (SQLite's "?"), else None
    positions: tuple[str, ...] | None
    #: SQLAlchemy's conversions of parameter values (none for most columns)
    processors: Mapping[str, Any]
    #: the values bound in the statement itself (``status == "open"``), by name
    bound: Mapping[str, Any]


class DriverStatement:
    """A statement built with SQLAlchemy, compiled once per database and run on the
    driver's own cursor, for the statements every move and every reply runs (a handful).
    Only the core's write path makes them (``pbem.core.store``, ``pbem.core.unit_of_work``,
    ``pbem.core.hot_path``): they skip what SQLAlchemy does for every other statement,
    so each is one more place to get right, and a feature that needs one calls
    ``hot_path`` instead.

    SQLAlchemy's execution of a statement (an execution context, the result's metadata,
    events) costs about 55 µs here, as much as PostgreSQL's answer to a small one. What it
    would still do is done here: its conversions of parameter values are applied, an error
    goes through its own handling (raised as ``IntegrityError`` …, a lost connection
    invalidating the pool), and in a pipelined write a statement waits for its answer
    unless it was made with ``wait=False`` (an INSERT or UPDATE whose answer nobody reads).
    Statements whose columns have Python-side defaults, or with expanding ("IN")
    parameters, are refused when first compiled: the driver would not know what SQLAlchemy
    adds to them."""

    def __init__(self, statement: ClauseElement, *, wait: bool = True) -> None:
        self.statement = statement
        self.wait = wait
        self._compiled: dict[tuple[str, tuple[str, ...]], _Compiled] = {}

    def run(self, session: Session, params: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> Any:
        """Run in ``session``'s transaction (one row of parameters, or several: the
        statement is then run once for each); returns the driver's cursor, to fetch from."""
        connection = session.connection()
        dialect = connection.dialect
        rows = [params] if isinstance(params, Mapping) else list(params)
        if not rows:
            raise ValueError("no rows of parameters to run the statement with")
        compiled = self._compile(dialect, tuple(rows[0]))
        values: list[Any] = []
        cursor = None
        try:
            values = [_driver_params(compiled, row) for row in rows]
            cursor = connection.connection.cursor()
            if len(values) == 1:
                cursor.execute(compiled.sql, values[0])
            else:
                cursor.executemany(compiled.sql, values)
            pipeline = connection.info.get(_PIPELINE)
            if pipeline is not None and self.wait:
                pipeline.sync()
        except BaseException as error:
            # SQLAlchemy's own handling of an error in an execution: the driver's error raised
            # as SQLAlchemy's (IntegrityError, …; a missing parameter as StatementError), and
            # a lost connection invalidating the whole pool (its other connections went with
            # the server), as an interrupt invalidates the connection.
            connection._handle_dbapi_exception(error, compiled.sql, values, cursor, None)
        return cursor

    def _compile(self, dialect: Dialect, keys: tuple[str, ...]) -> _Compiled:
        found = self._compiled.get((dialect.name, keys))
        if found is not None:
            return found
        compiled: Any = self.statement.compile(dialect=dialect, column_keys=list(keys))
        if compiled.insert_prefetch or compiled.update_prefetch or "POSTCOMPILE" in compiled.string:
            raise ValueError(f"not a statement for the driver alone: {compiled.string}")
        positions = tuple(compiled.positiontup) if compiled.positional else None
        bound = {n: b.effective_value for n, b in compiled.binds.items() if not b.required}
        made = _Compiled(compiled.string, positions, dict(compiled._bind_processors), bound)
        self._compiled[(dialect.name, keys)] = made
        return made


def _driver_params(compiled: _Compiled, row: Mapping[str, Any]) -> Any:
    if compiled.bound:
        row = {**compiled.bound, **row}
    if compiled.processors:
        row = {
            k: (compiled.processors[k](v) if k in compiled.processors else v)
            for k, v in row.items()
        }
    if compiled.positions is not None:
        return tuple(row[name] for name in compiled.positions)
    return row


# The pipelined write's own BEGIN and COMMIT (see ``pipelined_write``).
_BEGIN = DriverStatement(text("BEGIN"), wait=False)
_COMMIT = DriverStatement(text("COMMIT"))


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    # A new open file description per writer: flock then excludes threads of one process too.
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
