"""What the OAuth 2.0 endpoints share, built once per app (services.py wires it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from starlette.requests import Request

from pacekeeper.oauth2._ratelimit import EndpointLimiter
from pacekeeper.oauth2._server import AuthorizationServer

if TYPE_CHECKING:
    from pacekeeper.auth import (
        Accounts,
        AttemptLimiter,
        CsrfService,
        PrincipalResolver,
        TokenService,
    )
    from pacekeeper.config import Settings


@dataclass(frozen=True, slots=True)
class OAuth2Components:
    server: AuthorizationServer
    limits: EndpointLimiter
    base_url: str


class RequestServices(Protocol):
    """What the endpoints read from the app's services (`request.app.state.services`,
    the container of `pacekeeper.services`, which builds this package's server): named
    here so that the two do not import each other."""

    @property
    def oauth(self) -> OAuth2Components | None: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def resolver(self) -> PrincipalResolver: ...
    @property
    def csrf(self) -> CsrfService: ...
    @property
    def accounts(self) -> Accounts: ...
    @property
    def tokens(self) -> TokenService: ...
    @property
    def attempts(self) -> AttemptLimiter | None: ...


def request_services(request: Request) -> RequestServices:
    found: RequestServices = request.app.state.services
    return found


def components(request: Request) -> OAuth2Components:
    found = request_services(request).oauth
    if found is None:
        raise RuntimeError("the OAuth 2.0 server is not configured")
    return found


__all__ = ["OAuth2Components", "RequestServices", "components", "request_services"]
