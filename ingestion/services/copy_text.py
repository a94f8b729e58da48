"""COPY in text format, formatted here, and a COPY kept open between batches.

Rows are formatted in Python and sent as one buffer per batch: psycopg's `write_row`
adapts value by value, which was a quarter of a 200,000-run ingest. The escaping is
psycopg's own (the same characters), so a value is stored exactly as `write_row`
would have stored it.

`OpenCopy` lets the server index and check a batch while the caller validates the
next one: the COPY is finished when the next batch needs the connection, or at once
before any other query that Django runs on the connection meanwhile (an execute
wrapper), so no query ever meets a connection busy with COPY. A rollback is not a
query: an exception that unwinds the transaction while a COPY is open makes Django
drop the connection instead (the server rolls back), and the next query gets a new one.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import msgspec
import psycopg
from django.db import connection
from psycopg import sql
from psycopg.copy import QueuedLibpqWriter

# What COPY's text format needs escaped in a value: psycopg's set (see _copy_base.py).
_COPY_SPECIAL = re.compile("[\b\t\n\v\f\r\\\\]")
_COPY_ESCAPES = str.maketrans(
    {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r", "\\": "\\\\"}
)
COPY_NULL = "\\N"
_encode = msgspec.json.encode


def copy_field(value: str) -> str:
    """A text value escaped for COPY's text format."""
    if "\\" not in value and value.isprintable():  # the common case, checked fast
        return value
    return value.translate(_COPY_ESCAPES) if _COPY_SPECIAL.search(value) else value


def copy_json(value: object) -> str:
    """A jsonb value for COPY's text format (None is NULL). JSON text holds no raw
    control characters (the encoder escapes them), so only its backslashes need it."""
    if value is None:
        return COPY_NULL
    return msgspec.json.encode(value).decode().replace("\\", "\\\\")


def copy_number(value: float | None) -> str:
    """An int or float (psycopg's text form: str) or NULL."""
    return COPY_NULL if value is None else str(value)


def copy_moment(value: datetime | None) -> str:
    """A timestamptz (ISO 8601 with its UTC offset, "Z" for UTC, as msgspec writes it
    some 15x faster than str()) or NULL. Only aware datetimes reach here."""
    return COPY_NULL if value is None else _encode(value)[1:-1].decode()


def copy_statement(table: str, columns: Sequence[str]) -> sql.Composed:
    return sql.SQL("COPY {table} ({columns}) FROM STDIN").format(
        table=sql.Identifier(table), columns=sql.SQL(", ").join(map(sql.Identifier, columns))
    )


def copy_text_write(table: str, columns: Sequence[str], lines: Sequence[str]) -> None:
    """COPY rows already formatted as COPY text (one a line, without newlines), as one
    buffer, finished before it returns."""
    if not lines:
        return
    data = ("\n".join(lines) + "\n").encode()
    with connection.cursor() as cursor, cursor.cursor.copy(copy_statement(table, columns)) as copy:
        copy.write(data)


class OpenCopy:
    """A COPY into `table` that stays open between batches of formatted rows.

    `send(data)` starts the COPY if none is open and sends rows (COPY text, each
    ending in a newline); `finish()` ends it, waiting for the server and raising its
    error if a row was refused. Until then any query Django runs on the connection
    finishes it first.
    """

    def __init__(self, table: str, columns: Sequence[str]) -> None:
        self._statement = copy_statement(table, columns)
        self._cursor: Any = None
        self._context: Any = None
        self._copy: Any = None

    @property
    def is_open(self) -> bool:
        return self._copy is not None

    def send(self, data: bytes) -> None:
        if self._copy is None:
            self._open()
        try:
            self._copy.write(data)
        except BaseException as error:  # the server refused a row: end the COPY with it
            self._abort(error)
            raise

    def finish(self) -> None:
        """End the COPY, if one is open (the server's error, if any, is raised here)."""
        if self._copy is None:
            return
        context, cursor = self._context, self._cursor
        self._copy = self._context = self._cursor = None
        connection.execute_wrappers.remove(self._finish_first)
        if cursor.cursor.connection.closed:
            # An error made Django drop the connection (a rollback cannot be sent during
            # a COPY): the COPY ended with it, rolled back, and a new one serves now.
            with contextlib.suppress(psycopg.Error):
                context.__exit__(None, None, None)  # only tells psycopg it is closed
            return
        try:
            context.__exit__(None, None, None)
        finally:
            cursor.close()

    def _abort(self, error: BaseException) -> None:
        context, cursor = self._context, self._cursor
        self._copy = self._context = self._cursor = None
        connection.execute_wrappers.remove(self._finish_first)
        try:
            context.__exit__(type(error), error, error.__traceback__)
        except Exception:  # the caller raises the first error
            pass
        finally:
            cursor.close()

    def _open(self) -> None:
        self._cursor = connection.cursor()
        # A queued writer: `send` returns at once and a psycopg thread feeds the socket
        # at the server's pace (sending in this thread would wait for the server to
        # read nearly the whole batch, leaving nothing to overlap).
        raw = self._cursor.cursor
        self._context = raw.copy(self._statement, writer=QueuedLibpqWriter(raw))
        self._copy = self._context.__enter__()
        connection.execute_wrappers.append(self._finish_first)

    def _finish_first(self, execute, sql_text, params, many, context):
        self.finish()
        return execute(sql_text, params, many, context)
