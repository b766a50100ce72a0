"""Authorization responses carry `iss` (RFC 9207): clients detect mix-up attacks.

Every redirect back to a client, success or error, goes through `redirect_to_client`.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from starlette.responses import RedirectResponse

from pacekeeper.oauth2.errors import NO_STORE


def client_redirect_url(redirect_uri: str, params: Mapping[str, str], issuer: str) -> str:
    parts = urlsplit(redirect_uri)
    query = parse_qsl(parts.query, keep_blank_values=True)
    query += [(k, v) for k, v in params.items() if v]
    query.append(("iss", issuer))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def redirect_to_client(
    redirect_uri: str, params: Mapping[str, str], issuer: str
) -> RedirectResponse:
    # 303 so the browser follows a POSTed consent form with a GET.
    url = client_redirect_url(redirect_uri, params, issuer)
    return RedirectResponse(url, status_code=303, headers=NO_STORE)


__all__ = ["client_redirect_url", "redirect_to_client"]
