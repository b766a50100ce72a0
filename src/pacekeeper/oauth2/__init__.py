"""The OAuth 2.0 authorization server for MCP clients, one module per RFC.

rfc6749 (authorize + token endpoints), rfc7636 (PKCE, S256 only), rfc7591 (dynamic
registration), rfc7009 (revocation), rfc8414 (AS metadata), rfc9728 (protected
resource metadata), rfc9207 (`iss` in authorization responses), rfc8707 (resource ->
audience), cimd (client ID metadata documents), errors (RFC 6749 error responses).
"""

from pacekeeper.oauth2._build import build_oauth2, oauth2_routes
from pacekeeper.oauth2._clients import Client, redirect_uri_problem
from pacekeeper.oauth2._components import OAuth2Components
from pacekeeper.oauth2._openapi import openapi_paths
from pacekeeper.oauth2._scopes import MCP_REQUIRED, READ, WRITE, missing, satisfies
from pacekeeper.oauth2._server import CODE_LIFETIME, AuthorizationServer
from pacekeeper.oauth2._store import OAuthStore, SqlOAuthStore

__all__ = [
    "CODE_LIFETIME",
    "MCP_REQUIRED",
    "READ",
    "WRITE",
    "AuthorizationServer",
    "Client",
    "OAuth2Components",
    "OAuthStore",
    "SqlOAuthStore",
    "build_oauth2",
    "missing",
    "oauth2_routes",
    "openapi_paths",
    "redirect_uri_problem",
    "satisfies",
]
