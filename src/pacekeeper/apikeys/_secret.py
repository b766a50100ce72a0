"""Key material: `pk_live_<id>_<secret>`, shown once, stored as SHA-256 only (KEY-3).

The id (16 hex digits, 64 random bits) is not secret: it is the primary key the lookup
uses and the prefix the listing shows. The secret is 256 random bits (43 base64url
characters). SHA-256 is the right hash here, unlike for passwords: a slow, salted hash
protects low-entropy input from guessing, but nobody can enumerate 2^256 secrets, so one
fast hash already makes a leaked table useless and keeps the check in microseconds on
every request. The stored digest covers the whole key text and is compared with
`hmac.compare_digest`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

KEY_PREFIX = "pk_live_"
_ID_HEX = 16
_SECRET_BYTES = 32
# id: lower-case hex; secret: base64url without padding (43 characters for 32 bytes).
_KEY_SHAPE = re.compile(rf"{KEY_PREFIX}([0-9a-f]{{{_ID_HEX}}})_([A-Za-z0-9_-]{{43}})")


@dataclass(frozen=True, slots=True)
class NewKey:
    key_id: str
    plaintext: str
    digest: str


def new_key() -> NewKey:
    key_id = secrets.token_hex(_ID_HEX // 2)
    plaintext = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(_SECRET_BYTES)}"
    return NewKey(key_id, plaintext, digest(plaintext))


def digest(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def key_id_of(plaintext: str) -> str | None:
    """The public id inside a well-formed key, or None (malformed keys never hit the DB)."""
    found = _KEY_SHAPE.fullmatch(plaintext)  # not match + `$`: that allows a final "\n"
    return found.group(1) if found else None


def matches(plaintext: str, stored_digest: str) -> bool:
    return hmac.compare_digest(digest(plaintext), stored_digest)


def verify_secret(plaintext: str, stored_digest: bytes) -> bool:
    """The one check of a presented key against a stored SHA-256 (constant time)."""
    return hmac.compare_digest(hashlib.sha256(plaintext.encode()).digest(), stored_digest)


# What an unknown key id is checked against: the same hash and comparison as a known id
# with a wrong secret, so the two refusals cost the same (no id is ever this digest's).
DUMMY_DIGEST = hashlib.sha256(b"pacekeeper/apikeys/no-such-key").digest()


def refuse_unknown(plaintext: str) -> None:
    """Burn the verification an unknown id would have cost; the caller then refuses."""
    verify_secret(plaintext, DUMMY_DIGEST)


def display_prefix(key_id: str) -> str:
    return f"{KEY_PREFIX}{key_id}"


__all__ = [
    "DUMMY_DIGEST", "KEY_PREFIX", "NewKey", "digest", "display_prefix", "key_id_of", "matches",
    "new_key", "refuse_unknown", "verify_secret",
]
