"""Errors of the fitness service; each renders itself as the usual `{error, message}`."""

from __future__ import annotations

from pacekeeper.errors import ApiError, ValidationFailed


class ActivityNotFound(ApiError):
    """404: no activity with that id belongs to the caller (someone else's reads alike)."""

    status = 404
    code = "not_found"


class FitnessInputError(ValidationFailed):
    """400: a filter, cursor, setting or range the service cannot use."""


__all__ = ["ActivityNotFound", "FitnessInputError"]
