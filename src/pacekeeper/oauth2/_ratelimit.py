"""Per-IP token buckets for the OAuth 2.0 endpoints (AS-12, spec section 8).

authorize 60/min, token 30/min, register 10/min (revocation shares the token bucket's
figure in its own bucket). The client IP is the socket peer; `X-Forwarded-For` is
believed only when the peer is one of `PACEKEEPER_TRUSTED_PROXIES`, and then the
right-most address not itself a trusted proxy is the client (left-most entries are
whatever the client wrote).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.requests import Request

from pacekeeper.oauth2.errors import SlowDown
from pacekeeper.ratelimit import RateDecision, RateLimiter

LIMITS = {"authorize": 60, "token": 30, "register": 10, "revoke": 30}
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_proxies(values: Iterable[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(v.strip(), strict=False) for v in values if v.strip())


def _trusted(address: str, proxies: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in proxies)


def client_ip(request: Request, proxies: tuple[Network, ...]) -> str:
    peer = request.client.host if request.client else "unknown"
    if not proxies or not _trusted(peer, proxies):
        return peer
    forwarded = [p.strip() for p in request.headers.get("x-forwarded-for", "").split(",")]
    for hop in reversed([p for p in forwarded if p]):
        if not _trusted(hop, proxies):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return peer  # garbage in the header: fall back to the proxy itself
    return peer


class EndpointLimiter:
    def __init__(self, limiter: RateLimiter, proxies: tuple[Network, ...]) -> None:
        self._limiter = limiter
        self._proxies = proxies

    async def check(self, endpoint: str, request: Request) -> RateDecision:
        """Count the request; SlowDown (429 with the headers) when the bucket is empty."""
        ip = client_ip(request, self._proxies)
        decision = await self._limiter.hit(f"oauth2:{endpoint}:{ip}", LIMITS[endpoint])
        if not decision.allowed:
            raise SlowDown("too many requests; retry later", headers=decision.headers())
        return decision


__all__ = ["LIMITS", "EndpointLimiter", "client_ip", "parse_proxies"]
