"""Validating an authorization request, in the order RFC 6749 4.1.2.1 demands.

First the client and the redirect URI: if either is wrong the user sees an error page
and is never redirected (AS-4: an unverified redirect URI would be an open redirect).
Only then may errors go back to the client's redirect URI (with `state` and `iss`), and
only once the person has signed in and allowed this client before (RFC 9700 4.11.2:
anyone can register a client, so its URI is trusted only after someone's consent; the
authorize endpoint decides, `RedirectError` just carries the error).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from pacekeeper.errors import PacekeeperError
from pacekeeper.oauth2 import _scopes, rfc7636
from pacekeeper.oauth2._clients import Client, redirect_uri_registered
from pacekeeper.oauth2.errors import OAuth2Error, UnsupportedResponseType
from pacekeeper.oauth2.rfc8707 import Resources

_PARAMS = (
    "response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge",
    "code_challenge_method", "resource",
)


class ErrorPage(PacekeeperError):
    """Shown to the user, never redirected: unknown client, bad redirect URI (AS-4)."""

    def __init__(self, title: str, detail: str, status: int = 400) -> None:
        super().__init__(detail)
        self.title = title
        self.detail = detail
        self.status = status


class RedirectError(PacekeeperError):
    """An OAuth error for a verified redirect URI: sent there with `state` and `iss`."""

    def __init__(self, error: OAuth2Error, client_id: str, redirect_uri: str, state: str) -> None:
        super().__init__(error.description)
        self.error = error
        self.client_id = client_id
        self.redirect_uri = redirect_uri
        self.state = state


@dataclass(frozen=True, slots=True)
class AuthorizationRequest:
    client: Client
    redirect_uri: str
    state: str
    scope: str
    audience: str
    code_challenge: str
    params: tuple[tuple[str, str], ...]  # echoed in the login and consent forms


def _single(params: Mapping[str, list[str]], name: str) -> str | None:
    values = params.get(name, [])
    if len(values) > 1:
        raise ErrorPage("Invalid request", f"The parameter {name} was given more than once.")
    return values[0] if values else None


async def validate(
    params: Mapping[str, list[str]],
    find_client: Callable[[str], Awaitable[Client]],
    resources: Resources,
) -> AuthorizationRequest:
    """The checked request; ErrorPage or RedirectError otherwise.

    `find_client` raises ErrorPage for unknown clients and unusable metadata documents.
    """
    client_id = _single(params, "client_id")
    if not client_id:
        raise ErrorPage("Missing client", "The request does not name a client (client_id).")
    client = await find_client(client_id)
    redirect_uri = _single(params, "redirect_uri")
    # RFC 9700 4.11: an error goes back only to a redirect URI the request itself named
    # and that matched (exactly, but for a loopback port). A client with one registered
    # URI may omit it (RFC 6749 4.1.1/3.1.2.3) and still be answered there after the
    # user's consent; but an automatic error redirect to an unnamed URI would make any
    # registered client an open redirector, so such errors get the error page.
    named = redirect_uri is not None
    if redirect_uri is None:
        if len(client.redirect_uris) != 1:
            raise ErrorPage("Missing redirect URI", "This client must name its redirect_uri.")
        redirect_uri = client.redirect_uris[0]
    elif not redirect_uri_registered(client.redirect_uris, redirect_uri):
        # Exact string match, no prefix, no normalisation (AS-4); only a loopback URI's
        # port may differ (RFC 8252 7.3). The code is bound to this exact URI.
        raise ErrorPage(
            "Redirect URI mismatch",
            "The address this request wants to return you to is not one registered "
            "for this application.",
        )
    state = _single(params, "state") or ""
    try:
        if _single(params, "response_type") != "code":
            raise UnsupportedResponseType("response_type must be code")
        challenge = rfc7636.check_challenge(
            _single(params, "code_challenge"), _single(params, "code_challenge_method")
        )
        # The registered scope is the default, not a ceiling: step-up asks for more
        # than the client registered, and the person's consent decides (docs/oauth.md).
        default = _scopes.default_for(client.metadata.get("scope"))
        scope = _scopes.parse(_single(params, "scope"), default)
        audience = resources.audience(params.get("resource", []))
    except OAuth2Error as exc:
        if not named:
            raise ErrorPage("Invalid request", exc.description or exc.error) from None
        raise RedirectError(exc, client.client_id, redirect_uri, state) from None
    kept = tuple((k, v) for k in _PARAMS for v in params.get(k, []))
    return AuthorizationRequest(client, redirect_uri, state, scope, audience, challenge, kept)


__all__ = ["AuthorizationRequest", "ErrorPage", "RedirectError", "validate"]
