"""The scopes this server grants, and the one scope check (with hierarchy).

`fitness:read` is what every protected MCP operation needs; `fitness:write` includes
it (a broader scope satisfies a narrower one). `offline_access` asks for a refresh
token: it is listed in the AS metadata but never in protected-resource metadata or
in challenges (MCP 2026-07-28).
"""

from __future__ import annotations

from collections.abc import Iterable

from pacekeeper.oauth2.errors import InvalidScope

READ = "fitness:read"
WRITE = "fitness:write"
OFFLINE = "offline_access"
SUPPORTED = (READ, WRITE, OFFLINE)
DEFAULT = READ
# What each scope also grants.
_IMPLIES = {WRITE: {READ}}
MCP_REQUIRED = (READ,)


def parse(scope: str | None, allowed: Iterable[str] | None = None) -> str:
    """The normalised scope string of a request; InvalidScope for unknown values."""
    requested = (scope or "").split()
    if not requested:
        return DEFAULT
    permitted = set(allowed) if allowed is not None else set(SUPPORTED)
    unknown = [s for s in requested if s not in SUPPORTED or s not in permitted]
    if unknown:
        raise InvalidScope(f"unknown or not permitted scope: {' '.join(unknown)}")
    return " ".join(sorted(set(requested)))


def satisfies(granted: Iterable[str], required: Iterable[str]) -> bool:
    have = set(granted)
    for scope in list(have):
        have |= _IMPLIES.get(scope, set())
    return set(required) <= have


def missing(granted: Iterable[str], required: Iterable[str]) -> list[str]:
    return [s for s in required if not satisfies(granted, [s])]


__all__ = [
    "DEFAULT",
    "MCP_REQUIRED",
    "OFFLINE",
    "READ",
    "SUPPORTED",
    "WRITE",
    "missing",
    "parse",
    "satisfies",
]
