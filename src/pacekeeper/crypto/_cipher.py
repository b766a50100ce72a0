"""AES-256-GCM envelopes for provider tokens (PROV-5).

Envelope text: ``pk1.<master-key-version>.<base64url(nonce || ciphertext || tag)>``.
The associated data binds tenant, user and provider (and the key version), so a value
copied into another row, user or tenant fails authentication instead of decrypting.
"""

from __future__ import annotations

import base64
import binascii
import os
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from ._errors import DecryptionError, EnvelopeFormatError
from ._keyring import MasterKeyring

_PREFIX = "pk1"
NONCE_BYTES = 12
_TAG_BYTES = 16


@dataclass(frozen=True, slots=True)
class TokenContext:
    """Whose secret this is: the associated data of the encryption."""

    tenant_id: str
    user_id: str
    provider: str

    def associated_data(self, key_version: int) -> bytes:
        # Length-prefixed fields: no choice of ids can make two contexts encode alike.
        parts = [_PREFIX, str(key_version), self.tenant_id, self.user_id, self.provider]
        return b"".join(len(p.encode()).to_bytes(4, "big") + p.encode() for p in parts)


@dataclass(frozen=True, slots=True)
class Envelope:
    key_version: int
    payload: bytes  # nonce || ciphertext || tag

    def serialize(self) -> str:
        body = base64.urlsafe_b64encode(self.payload).decode("ascii").rstrip("=")
        return f"{_PREFIX}.{self.key_version}.{body}"

    @classmethod
    def parse(cls, text: str) -> Envelope:
        prefix, _, rest = text.partition(".")
        version_text, _, body = rest.partition(".")
        if prefix != _PREFIX or not version_text.isdigit() or not body:
            raise EnvelopeFormatError("not a pacekeeper token envelope")
        try:
            payload = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        except (binascii.Error, ValueError) as exc:
            raise EnvelopeFormatError("envelope body is not base64url") from exc
        if len(payload) < NONCE_BYTES + _TAG_BYTES:
            raise EnvelopeFormatError("envelope is too short")
        return cls(int(version_text), payload)


class TokenCipher:
    """Seals and opens provider secrets with per-tenant keys from a :class:`MasterKeyring`."""

    def __init__(self, keyring: MasterKeyring) -> None:
        self.keyring = keyring

    def encrypt(self, plaintext: bytes, context: TokenContext) -> str:
        version = self.keyring.current_version
        key = self.keyring.tenant_key(version, context.tenant_id)
        # A fresh random 96-bit nonce per encryption; never reused with the same key.
        nonce = os.urandom(NONCE_BYTES)
        sealed = AESGCM(key).encrypt(nonce, plaintext, context.associated_data(version))
        return Envelope(version, nonce + sealed).serialize()

    def decrypt(self, envelope: str, context: TokenContext) -> bytes:
        parsed = Envelope.parse(envelope)
        key = self.keyring.tenant_key(parsed.key_version, context.tenant_id)
        nonce, sealed = parsed.payload[:NONCE_BYTES], parsed.payload[NONCE_BYTES:]
        try:
            return AESGCM(key).decrypt(nonce, sealed, context.associated_data(parsed.key_version))
        except InvalidTag as exc:
            raise DecryptionError(
                "token did not authenticate for this tenant, user and provider"
            ) from exc

    def encrypt_text(self, plaintext: str, context: TokenContext) -> str:
        return self.encrypt(plaintext.encode("utf-8"), context)

    def decrypt_text(self, envelope: str, context: TokenContext) -> str:
        return self.decrypt(envelope, context).decode("utf-8")

    def needs_rotation(self, envelope: str) -> bool:
        return Envelope.parse(envelope).key_version != self.keyring.current_version

    def reencrypt(self, envelope: str, context: TokenContext) -> str:
        """Open with whichever version sealed it and seal again under the current one."""
        return self.encrypt(self.decrypt(envelope, context), context)
