"""Counts the service's round trips to PostgreSQL at the driver (issue 30): a deterministic
figure where timing on a shared machine is not.

Every asyncpg call that sends a message and waits for the server's answer goes through one
of the protocol methods below (a simple query: BEGIN, ROLLBACK, COMMIT; a statement's
prepare; a prepared statement's bind and execute), each one round trip. `asyncpg`'s
`Protocol` is a Python class over its Cython base, so a test can wrap them on the class.
Pings are counted apart too (the dialect's `do_ping`, whoever calls it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from asyncpg.protocol import Protocol  # type: ignore[import-untyped]
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg

_ROUND_TRIPS = ("query", "prepare", "bind_execute", "bind_execute_many", "bind", "execute",
                "close_portal", "close_statement", "copy_in", "copy_out")


@dataclass
class RoundTrips:
    sent: list[str] = field(default_factory=list)  # each: the method and its SQL's start
    connections: list[int] = field(default_factory=list)  # the connection of each
    pings: int = 0

    @property
    def count(self) -> int:
        return len(self.sent)

    def since(self, mark: int) -> list[str]:
        return self.sent[mark:]

    def by_connection(self, mark: int = 0) -> list[list[str]]:
        """What was sent since ``mark``, a list per connection (in order of first use):
        work of other tasks on other connections does not come in between."""
        each: dict[int, list[str]] = {}
        for conn, sent in zip(self.connections[mark:], self.sent[mark:], strict=True):
            each.setdefault(conn, []).append(sent)
        return list(each.values())


def _label(method: str, args: tuple[Any, ...]) -> str:
    first = args[1] if method == "prepare" else args[0] if args else None  # prepare: (name, sql)
    sql = first if isinstance(first, str) else getattr(first, "query", "")
    words = str(sql).split()
    return f"{method} {' '.join(words[:4])}".rstrip()


@contextmanager
def round_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[RoundTrips]:
    counted = RoundTrips()
    for name in _ROUND_TRIPS:
        original = getattr(Protocol, name)

        def wrapper(self: Any, *args: Any, _name: str = name, _original: Any = original,
                    **kwargs: Any) -> Any:
            counted.sent.append(_label(_name, args))
            counted.connections.append(id(self))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Protocol, name, wrapper)
    do_ping = PGDialect_asyncpg.do_ping

    def pinging(self: Any, dbapi_connection: Any) -> bool:
        counted.pings += 1
        return bool(do_ping(self, dbapi_connection))  # type: ignore[no-untyped-call]

    monkeypatch.setattr(PGDialect_asyncpg, "do_ping", pinging)
    yield counted
