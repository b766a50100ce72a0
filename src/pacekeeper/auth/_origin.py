"""The one cross-site check for endpoints that set or clear a session (finding 3).

Login CSRF (a page elsewhere auto-submits our login form with the attacker's
credentials, so the victim works inside the attacker's account) and forced logout need
no token of the victim, so the CSRF token cannot stop them. The browser says where a
request comes from: `Sec-Fetch-Site` (every current browser), else `Origin`.

- `Sec-Fetch-Site: same-origin` or `none` (typed, bookmarked): allowed.
- `Sec-Fetch-Site: cross-site`: refused.
- anything else (`same-site`: a sibling host, which may not be ours), or no
  `Sec-Fetch-Site`: `Origin`, when present, must be our public origin or the origin the
  request was addressed to (scheme + Host); `Origin: null` (sandboxed frames, some
  redirects) is refused.
- neither header: allowed. curl, SDKs and servers send neither, and the password grant
  is used by such clients; a browser always sends at least `Origin` on a POST.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from pacekeeper.errors import CsrfFailed

CROSS_SITE_REFUSED = "cross-site request refused"


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def require_same_origin(headers: Mapping[str, str], scheme: str, public_base_url: str) -> None:
    """Raise CsrfFailed (403 csrf_failed) for a cross-site request."""
    site = headers.get("sec-fetch-site", "").strip().lower()
    if site in ("same-origin", "none"):
        return
    if site == "cross-site":
        raise CsrfFailed(CROSS_SITE_REFUSED)
    origin = headers.get("origin")
    if origin is None:
        return
    origin = origin.strip().lower()
    if origin == origin_of(public_base_url):
        return
    host = headers.get("host")  # without one there is no addressed origin ("http://")
    if not host or origin != f"{scheme}://{host}".lower():
        raise CsrfFailed(CROSS_SITE_REFUSED)


__all__ = ["CROSS_SITE_REFUSED", "origin_of", "require_same_origin"]
