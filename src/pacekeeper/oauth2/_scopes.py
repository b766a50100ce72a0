"""The scopes this server grants, and the one scope check (with hierarchy).

`fitness:read` is what every protected MCP operation needs; `fitness:write` includes
it (a broader scope satisfies a narrower one). `offline_access` asks for a refresh
token: it is listed in the AS metadata but never in protected-resource metadata or
in challenges (MCP 2026-07-28).

A client may ask for any scope listed here, whatever it registered: the person's consent
is what grants it (MCP "scope challenge handling"; docs/oauth.md, "Scopes and step-up").
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


def parse(scope: str | None, default: str = DEFAULT) -> str:
    """The normalised scope string of a request (`default` when it names none);
    InvalidScope for values this server does not know."""
    requested = (scope or "").split()
    if not requested:
        return default
    unknown = [s for s in requested if s not in SUPPORTED]
    if unknown:
        raise InvalidScope(f"unknown scope: {' '.join(unknown)[:200]}")
    return " ".join(sorted(set(requested)))


def default_for(registered: object) -> str:
    """What a request naming no scope gets (RFC 6749 3.3): the known values of the
    client's registered `scope`, else DEFAULT. A default, never a ceiling."""
    known = sorted({s for s in registered.split() if s in SUPPORTED}) \
        if isinstance(registered, str) else []  # fmt: skip
    return " ".join(known) or DEFAULT


def satisfies(granted: Iterable[str], required: Iterable[str]) -> bool:
    have = set(granted)
    for scope in list(have):
        have |= _IMPLIES.get(scope, set())
    return set(required) <= have


def missing(granted: Iterable[str], required: Iterable[str]) -> list[str]:
    """The required scopes `granted` does not cover (hierarchy included), in order:
    also what a consent page marks as new in a step-up."""
    return [s for s in required if not satisfies(granted, [s])]


__all__ = [
    "DEFAULT",
    "MCP_REQUIRED",
    "OFFLINE",
    "READ",
    "SUPPORTED",
    "WRITE",
    "default_for",
    "missing",
    "parse",
    "satisfies",
]
