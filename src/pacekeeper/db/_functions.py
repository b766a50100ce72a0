"""SQL functions that differ between SQLite and PostgreSQL, as SQLAlchemy constructs."""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement


class epoch_seconds(FunctionElement[int]):  # an SQL function: lower case, like func.*
    """Whole seconds since 1970-01-01 UTC of a ``UtcDateTime`` column, computed by the
    database: a hot query reads an integer per row instead of a datetime that Python
    builds and converts (the fraction of a second is dropped; a day boundary is a whole
    second, so the day of a start never changes)."""

    type = BigInteger()
    inherit_cache = True
    name = "epoch_seconds"


@compiles(epoch_seconds, "sqlite")
def _epoch_sqlite(element: epoch_seconds, compiler: SQLCompiler, **kw: Any) -> str:
    # SQLite stores the UTC datetime as text without an offset: strftime reads it as UTC.
    return f"CAST(strftime('%s', {compiler.process(element.clauses, **kw)}) AS INTEGER)"


@compiles(epoch_seconds, "postgresql")
def _epoch_postgresql(element: epoch_seconds, compiler: SQLCompiler, **kw: Any) -> str:
    # timestamptz: EXTRACT(EPOCH ...) is the true epoch (with its fraction: floor it).
    return f"CAST(FLOOR(EXTRACT(EPOCH FROM {compiler.process(element.clauses, **kw)})) AS BIGINT)"


__all__ = ["epoch_seconds"]
