"""Resource indicators (RFC 8707, AS-14): `resource` becomes the access token's `aud`.

Only this service's own resources are accepted (the MCP endpoint and the base URL),
compared after canonicalisation (lower-case scheme and host, no trailing slash, no
fragment); anything else is `invalid_target`. Without `resource`, tokens are issued
for the MCP endpoint, the only protected resource OAuth clients reach.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from pacekeeper.oauth2.errors import InvalidTarget


def canonical(uri: str) -> str:
    parts = urlsplit(uri.strip())
    path = parts.path.rstrip("/")
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, parts.query, ""))


class Resources:
    def __init__(self, base_url: str) -> None:
        self.mcp = canonical(f"{base_url}/mcp")
        self.base = canonical(base_url)
        self.accepted = (self.mcp, self.base)

    def audience(self, requested: list[str]) -> str:
        """The one audience for a request's `resource` values (zero or one accepted)."""
        if not requested:
            return self.mcp
        if len(requested) > 1:
            raise InvalidTarget("one resource per request")
        value = requested[0]
        parts = urlsplit(value)
        if not parts.scheme or not parts.netloc or parts.fragment:
            raise InvalidTarget("resource must be an absolute URI without a fragment")
        found = canonical(value)
        if found not in self.accepted:
            raise InvalidTarget("unknown resource")
        return found


__all__ = ["Resources", "canonical"]
