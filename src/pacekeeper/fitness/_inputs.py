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


def day(text: str | None, name: str) -> date | None:
    if text is None or text == "":
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise FitnessInputError(f"{name} must be a date (YYYY-MM-DD)") from None


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


__all__ = ["activity_id", "day", "moment", "sport"]
