"""PKCE (RFC 7636), S256 only (AS-3, AS-6; spec 4.2 rule 1).

`plain` and a missing challenge are refused at the authorization endpoint; the verifier
must be 43-128 unreserved characters and is compared in constant time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

from pacekeeper.oauth2.errors import InvalidGrant, InvalidRequest

SUPPORTED_METHODS = ("S256",)
# RFC 7636 4.1: unreserved characters; 4.2: S256 gives 43 base64url characters.
_VERIFIER = re.compile(r"[A-Za-z0-9\-._~]{43,128}")
_CHALLENGE = re.compile(r"[A-Za-z0-9\-_]{43}")


def s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def check_challenge(challenge: str | None, method: str | None) -> str:
    """The challenge of an authorization request, or InvalidRequest."""
    if not challenge:
        raise InvalidRequest("code_challenge is required (PKCE with S256)")
    if method != "S256":
        raise InvalidRequest("code_challenge_method must be S256")
    if not _CHALLENGE.fullmatch(challenge):
        raise InvalidRequest("code_challenge must be 43 base64url characters")
    return challenge


def verify(verifier: str | None, challenge: str) -> None:
    """InvalidGrant unless base64url(SHA-256(verifier)) equals the stored challenge."""
    if not verifier or not _VERIFIER.fullmatch(verifier):
        raise InvalidGrant("code_verifier must be 43 to 128 unreserved characters")
    if not hmac.compare_digest(s256(verifier).encode(), challenge.encode()):
        raise InvalidGrant("code_verifier does not match the code_challenge")


__all__ = ["SUPPORTED_METHODS", "check_challenge", "s256", "verify"]
