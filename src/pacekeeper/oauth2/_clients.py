"""Clients as the server sees them, redirect URI rules (AS-2, AS-4) and client authentication.

Client authentication (RFC 6749 2.3): `client_secret_basic`, `client_secret_post`, or
`none` for public clients (PKCE binds their codes). A client uses exactly the method it
registered; secrets are stored as SHA-256 and compared in constant time.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from pacekeeper.oauth2.errors import InvalidClient, InvalidRequest

AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
_LOOPBACK = ("localhost", "127.0.0.1", "[::1]", "::1")


@dataclass(frozen=True, slots=True)
class Client:
    client_id: str
    client_name: str
    redirect_uris: tuple[str, ...]
    grant_types: tuple[str, ...]
    auth_method: str
    secret_hash: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    # Client ID Metadata Document clients: the client_id is an https URL.
    from_metadata_document: bool = False

    @property
    def is_public(self) -> bool:
        return self.auth_method == "none"


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def redirect_uri_problem(uri: str) -> str | None:
    """Why a redirect URI is unacceptable (AS-2), or None."""
    if not isinstance(uri, str) or not uri or len(uri) > 2000:
        return "redirect URI must be a non-empty string"
    if "*" in uri:
        return "wildcards are not allowed in redirect URIs"
    try:
        parts = urlsplit(uri)
        host = parts.hostname
    except ValueError:
        return "redirect URI is not a valid URL"
    if "#" in uri:
        return "redirect URIs must not contain a fragment"
    if not host:
        return "redirect URI must be an absolute URL"
    if parts.scheme == "https":
        return None
    if parts.scheme == "http" and host in _LOOPBACK:
        return None
    return "redirect URIs must be https, or http on localhost/127.0.0.1"


def is_loopback_redirect(uri: str) -> bool:
    return (urlsplit(uri).hostname or "") in _LOOPBACK


# RFC 8252 7.3: `http`, a loopback host, an optional port, then the path/query or the end.
# Matched on the raw string, not through a URL parser: the host must be exactly the
# literal (no userinfo, no name under it, no backslash that a browser reads as `/`).
_LOOPBACK_URI = re.compile(
    r"http://(127\.0\.0\.1|\[::1\]|localhost)(?::([1-9][0-9]{0,4}))?(?=[/?]|\Z)", re.ASCII
)


def _without_loopback_port(uri: str) -> str | None:
    """The URI without its port when it is an http loopback URI, else None."""
    match = _LOOPBACK_URI.match(uri)
    if match is None or (match[2] is not None and int(match[2]) > 65535):
        return None
    return f"http://{match[1]}{uri[match.end():]}"


def redirect_uri_registered(registered: Iterable[str], requested: str) -> bool:
    """AS-4: `requested` equals a registered URI exactly, or, both being http loopback
    URIs (127.0.0.1, [::1], localhost), equals it but for the port: RFC 8252 7.3 makes
    the AS accept any port there, for clients that take an ephemeral one. Host, path
    and query still compare byte for byte; a fragment never matches.
    `localhost` too: RFC 9700 4.1.3 and the MCP spec name "localhost" URIs, and the MCP
    hosts register them (docs/oauth.md)."""
    uris = tuple(registered)
    if requested in uris:
        return True
    if "#" in requested:
        return False
    bare = _without_loopback_port(requested)
    return bare is not None and any(_without_loopback_port(uri) == bare for uri in uris)


@dataclass(frozen=True, slots=True)
class PresentedCredentials:
    client_id: str
    secret: str | None
    method: str


def presented_credentials(
    authorization: str | None, form: dict[str, str]
) -> PresentedCredentials:
    """Which client is calling and how; InvalidRequest for ambiguous input."""
    form_id, form_secret = form.get("client_id"), form.get("client_secret")
    if authorization and authorization.lower().startswith("basic "):
        if form_secret:
            raise InvalidRequest("use one client authentication method, not two")
        try:
            decoded = base64.b64decode(authorization[6:].strip(), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise InvalidClient("malformed Basic credentials", basic=True) from None
        raw_id, sep, raw_secret = decoded.partition(":")
        if not sep or not raw_id:
            raise InvalidClient("malformed Basic credentials", basic=True)
        client_id = unquote(raw_id)  # RFC 6749 2.3.1: form-urlencoded before Basic
        if form_id and form_id != client_id:
            raise InvalidRequest("client_id differs from the Basic credentials")
        return PresentedCredentials(client_id, unquote(raw_secret), "client_secret_basic")
    if not form_id:
        raise InvalidClient("client_id is required")
    if form_secret:
        return PresentedCredentials(form_id, form_secret, "client_secret_post")
    return PresentedCredentials(form_id, None, "none")


def authenticate(client: Client | None, presented: PresentedCredentials) -> Client:
    """The client when it proved itself with its registered method; InvalidClient otherwise."""
    basic = presented.method == "client_secret_basic"
    if client is None:
        # Same work as a real comparison, so unknown ids are not told apart by timing.
        hmac.compare_digest(hash_secret(presented.secret or ""), "0" * 64)
        raise InvalidClient("unknown client or bad credentials", basic=basic)
    if client.auth_method != presented.method:
        raise InvalidClient(
            f"this client authenticates with {client.auth_method}", basic=basic
        )
    if client.is_public:
        return client
    expected = client.secret_hash or ""
    given = hash_secret(presented.secret or "")
    if not expected or not hmac.compare_digest(given, expected):
        raise InvalidClient("unknown client or bad credentials", basic=basic)
    return client


__all__ = [
    "AUTH_METHODS",
    "Client",
    "PresentedCredentials",
    "authenticate",
    "hash_secret",
    "is_loopback_redirect",
    "presented_credentials",
    "redirect_uri_problem",
    "redirect_uri_registered",
]
