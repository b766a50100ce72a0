"""What a person may change on an activity by hand, and the checks on it (issue 33).

One home for the rules, so the HTTP API and any later caller (a tool, the CLI) give the
same clear 400s: the fields are ``name``, ``sport``, ``description`` and ``notes``; a
name is 1 to 300 characters once trimmed; a sport is one the service knows; the texts
are at most ``MAX_TEXT`` characters, and ``null`` or ``""`` clears them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pacekeeper.fitness._errors import FitnessInputError
from pacekeeper.fitness.models import Sport

FIELDS: tuple[str, ...] = ("name", "sport", "description", "notes")
# The fields a later source or a re-derivation must not overwrite once the person set them
# (description and notes no source ever writes).
EDITED: frozenset[str] = frozenset(("name", "sport"))
MAX_NAME = 300  # the column's width
# Long enough for a race report, short enough that a list's rows stay small.
MAX_TEXT = 10_000


def _text(name: str, value: Any, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise FitnessInputError(f"{name} must be a string")
    if "\x00" in value:  # PostgreSQL refuses NUL in text
        raise FitnessInputError(f"{name} must not contain NUL characters")
    value = value.strip()
    if len(value) > limit:
        raise FitnessInputError(f"{name} must be at most {limit} characters")
    return value or None


def check_edit(changes: Mapping[str, Any]) -> dict[str, Any]:
    """The column values to store; FitnessInputError naming the first bad field."""
    unknown = [k for k in changes if k not in FIELDS]
    if unknown:
        raise FitnessInputError(f"unknown field {unknown[0]!r}; an activity's editable "
                                f"fields are {', '.join(FIELDS)}")
    if not changes:
        raise FitnessInputError(f"name at least one field: {', '.join(FIELDS)}")
    out: dict[str, Any] = {}
    if "name" in changes:
        name = _text("name", changes["name"], MAX_NAME)
        if name is None:
            raise FitnessInputError("name must not be empty")
        out["name"] = name
    if "sport" in changes:
        sport = changes["sport"]
        sports = [s.value for s in Sport]
        if not isinstance(sport, str) or sport.strip().lower() not in sports:
            raise FitnessInputError(f"sport must be one of {', '.join(sports)}")
        out["sport"] = sport.strip().lower()
    for key in ("description", "notes"):
        if key in changes:
            out[key] = _text(key, changes[key], MAX_TEXT)
    return out


__all__ = ["EDITED", "FIELDS", "MAX_NAME", "MAX_TEXT", "check_edit"]
