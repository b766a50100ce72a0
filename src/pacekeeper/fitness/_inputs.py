"""Parsing of the inputs HTTP handlers and MCP tools share (one message for one mistake)."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

from pacekeeper.fitness._errors import ActivityNotFound, FitnessInputError
from pacekeeper.fitness.models import Sport


def moment(text: str | None, name: str) -> datetime | None:
    """An ISO 8601 date or date-time in UTC; a naive one is UTC. One whose UTC form
    falls outside years 1..9999 (9999-12-31T23:59-01:00) is refused here, not left to
    overflow in the database layer."""
    if text is None or text == "":
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    except (ValueError, OverflowError):
        raise FitnessInputError(f"{name} must be an ISO 8601 date or time") from None


# The days the service answers about (issue 28): wide enough for any athlete's history
# and plans (birth years start at 1900), far enough inside `date`'s years 1..9999 that
# the analyses' arithmetic (the PMC's 252-day warm-up, eleven-year periods, weeks ahead)
# never overflows. `9999-12-31` used to reach `timedelta` arithmetic and answer 500.
FIRST_DAY = date(1900, 1, 1)
LAST_DAY = date(2199, 12, 31)
DAY_RANGE = f"a date from {FIRST_DAY} to {LAST_DAY}"


def parse_day(text: str) -> date:
    """`text` as a day of the supported range; ValueError with the reason (the one check
    of every day an HTTP route or MCP tool takes: `day` below, and the tools' argument
    types, whose validation error is the client's -32602)."""
    try:
        value = date.fromisoformat(text)
    except ValueError:
        raise ValueError("must be a date (YYYY-MM-DD)") from None
    if not FIRST_DAY <= value <= LAST_DAY:
        raise ValueError(f"must be {DAY_RANGE}")
    return value


def day(text: str | None, name: str) -> date | None:
    if text is None or text == "":
        return None
    try:
        return parse_day(text)
    except ValueError as exc:
        raise FitnessInputError(f"{name} {exc}") from None


def sport(text: str | None) -> str | None:
    if text is None or text == "":
        return None
    try:
        return Sport(text.strip().lower()).value
    except ValueError:
        raise FitnessInputError(
            f"sport must be one of {', '.join(s.value for s in Sport)}") from None


def activity_id(text: str) -> uuid.UUID:
    """A malformed id reads like an unknown one: 404, not a hint about the format."""
    try:
        return uuid.UUID(text)
    except ValueError:
        raise ActivityNotFound("no such activity") from None


__all__ = ["DAY_RANGE", "FIRST_DAY", "LAST_DAY", "activity_id", "day", "moment", "parse_day",
           "sport"]
