"""The two session cookies of spec 2.8, written attribute for attribute (CSRF-1, CSRF-2)."""

from __future__ import annotations

from starlette.responses import Response

AUTH_COOKIE = "auth_token"
CSRF_COOKIE = "csrf_token"
CSRF_COOKIE_MAX_AGE = 1800


def _cookie(name: str, value: str, max_age: int, http_only: bool) -> str:
    flags = "; HttpOnly" if http_only else ""
    return f"{name}={value}; Path=/{flags}; Secure; SameSite=Strict; Max-Age={max_age}"


def set_session_cookies(
    response: Response, jwt_token: str, csrf_token: str, auth_max_age: int
) -> None:
    """auth_token (HttpOnly) and csrf_token (readable by scripts); both Secure, Strict."""
    # JWTs and base64url CSRF tokens contain only cookie-safe characters: no quoting.
    response.headers.append("Set-Cookie", _cookie(AUTH_COOKIE, jwt_token, auth_max_age, True))
    response.headers.append(
        "Set-Cookie", _cookie(CSRF_COOKIE, csrf_token, CSRF_COOKIE_MAX_AGE, False)
    )


def clear_session_cookies(response: Response) -> None:
    """Empty values with Max-Age=0, same attributes, so the browser drops both."""
    response.headers.append("Set-Cookie", _cookie(AUTH_COOKIE, "", 0, True))
    response.headers.append("Set-Cookie", _cookie(CSRF_COOKIE, "", 0, False))


__all__ = [
    "AUTH_COOKIE",
    "CSRF_COOKIE",
    "CSRF_COOKIE_MAX_AGE",
    "clear_session_cookies",
    "set_session_cookies",
]
