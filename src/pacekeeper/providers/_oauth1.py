"""OAuth 1.0a (RFC 5849) HMAC-SHA1 request signing for httpx, done by Authlib.

Authlib's own httpx integration targets a different httpx fork, so this adapter hands
the request to Authlib's :class:`ClientAuth` and copies back the Authorization header.
"""

from __future__ import annotations

from collections.abc import Generator
from urllib.parse import parse_qsl

import httpx
from authlib.oauth1 import ClientAuth  # type: ignore[import-untyped]


class OAuth1Auth(httpx.Auth):
    requires_request_body = True  # form bodies are part of the signature base string

    def __init__(
        self,
        client_id: str,
        client_secret: str,
        *,
        token: str | None = None,
        token_secret: str | None = None,
        callback: str | None = None,
        verifier: str | None = None,
    ) -> None:
        self._client = ClientAuth(
            client_id,
            client_secret=client_secret,
            token=token,
            token_secret=token_secret,
            redirect_uri=callback,
            verifier=verifier,
        )

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        # Authlib looks up "Content-Type" and "Host" case-sensitively; httpx lowercases.
        headers = {
            "-".join(part.capitalize() for part in k.split("-")): v
            for k, v in request.headers.items()
            if k.lower() != "authorization"
        }
        headers.setdefault("Host", request.url.netloc.decode("ascii"))
        _, signed, _ = self._client.prepare(
            request.method, str(request.url), headers, request.content
        )
        request.headers["Authorization"] = signed["Authorization"]
        yield request


def parse_token_response(body: str) -> dict[str, str]:
    """``oauth_token=...&oauth_token_secret=...`` as a dict (RFC 5849 section 2.1)."""
    return dict(parse_qsl(body, keep_blank_values=True))
