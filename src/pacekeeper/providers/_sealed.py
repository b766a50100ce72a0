"""Provider tokens at rest: a TokenSet sealed as one AES-256-GCM envelope (PROV-5)."""

from __future__ import annotations

import json

from pacekeeper.crypto import EnvelopeFormatError, TokenCipher, TokenContext

from ._tokens import TokenSet


def seal_token_set(cipher: TokenCipher, tokens: TokenSet, context: TokenContext) -> str:
    """Encrypt every field together: access, refresh and OAuth 1.0a secrets alike."""
    return cipher.encrypt(json.dumps(tokens.to_dict(), separators=(",", ":")).encode(), context)


def open_token_set(cipher: TokenCipher, envelope: str, context: TokenContext) -> TokenSet:
    """Decrypt; ``DecryptionError`` if the envelope belongs to another row or was altered."""
    plain = cipher.decrypt(envelope, context)
    try:
        data = json.loads(plain)
        return TokenSet.from_dict(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise EnvelopeFormatError("decrypted value is not a token set") from exc
