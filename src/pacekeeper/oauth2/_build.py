"""Building the authorization server from the service's parts, and its routes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from starlette.routing import BaseRoute, Route

from pacekeeper.auth import TokenService
from pacekeeper.config import Settings
from pacekeeper.db import UserRepository
from pacekeeper.oauth2._components import OAuth2Components
from pacekeeper.oauth2._ratelimit import EndpointLimiter, parse_proxies
from pacekeeper.oauth2._server import AuthorizationServer, Signal
from pacekeeper.oauth2._store import OAuthStore, SqlOAuthStore
from pacekeeper.oauth2.cimd import MetadataDocuments
from pacekeeper.oauth2.rfc6749 import authorize, token
from pacekeeper.oauth2.rfc7009 import revoke
from pacekeeper.oauth2.rfc7591 import register_endpoint
from pacekeeper.oauth2.rfc8414 import authorization_server_metadata
from pacekeeper.oauth2.rfc8707 import Resources
from pacekeeper.oauth2.rfc9728 import mcp_resource_metadata, root_resource_metadata
from pacekeeper.pages import stylesheet
from pacekeeper.ratelimit import RateLimiter


def build_oauth2(
    settings: Settings,
    sessions: async_sessionmaker[AsyncSession],
    tokens: TokenService,
    users: UserRepository,
    limiter: RateLimiter,
    clock: Callable[[], datetime],
    revocations: Signal | None = None,
    store: OAuthStore | None = None,
) -> OAuth2Components:
    """`revocations` is the signal a revoked grant bumps (the validator's caches follow it)."""
    server = AuthorizationServer(
        store or SqlOAuthStore(sessions),
        tokens,
        users,
        MetadataDocuments(allow_loopback=not settings.is_production),
        Resources(settings.public_base_url),
        clock,
        issuer=settings.issuer,
        access_lifetime=timedelta(minutes=settings.oauth_access_token_minutes),
        refresh_lifetime=timedelta(days=settings.oauth_refresh_token_days),
        revocations=revocations,
    )
    proxies = parse_proxies(settings.trusted_proxies.split(","))
    return OAuth2Components(server, EndpointLimiter(limiter, proxies), settings.public_base_url)


def oauth2_routes() -> list[BaseRoute]:
    return [
        Route("/oauth2/authorize", authorize, methods=["GET", "POST"]),
        Route("/oauth2/token", token, methods=["POST"]),
        Route("/oauth2/register", register_endpoint, methods=["POST"]),
        Route("/oauth2/revoke", revoke, methods=["POST"]),
        Route("/oauth2/static/pacekeeper.css", stylesheet, methods=["GET"]),
        Route(
            "/.well-known/oauth-authorization-server",
            authorization_server_metadata,
            methods=["GET"],
        ),
        Route("/.well-known/oauth-protected-resource", root_resource_metadata, methods=["GET"]),
        Route(
            "/.well-known/oauth-protected-resource/mcp", mcp_resource_metadata, methods=["GET"]
        ),
    ]


__all__ = ["build_oauth2", "oauth2_routes"]
