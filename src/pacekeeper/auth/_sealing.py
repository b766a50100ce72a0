"""AES-256-GCM sealing of the signing keys' private parts under a master-key subkey."""

from __future__ import annotations

import secrets

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

_NONCE_BYTES = 12


def derive_key(master_key: bytes, purpose: str, length: int = 32) -> bytes:
    """A subkey for one purpose (HKDF-SHA256, no salt, the purpose as info)."""
    hkdf = HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=purpose.encode())
    return hkdf.derive(master_key)


class Sealer:
    """AES-256-GCM with a random 96-bit nonce; the output is nonce || ciphertext+tag."""

    def __init__(self, key: bytes) -> None:
        if len(key) != 32:
            raise ValueError("AES-256-GCM needs a 32-byte key")
        self._aead = AESGCM(key)

    def seal(self, plaintext: bytes, associated_data: bytes) -> bytes:
        nonce = secrets.token_bytes(_NONCE_BYTES)
        return nonce + self._aead.encrypt(nonce, plaintext, associated_data)

    def open(self, sealed: bytes, associated_data: bytes) -> bytes:
        """Decrypt; raises cryptography.exceptions.InvalidTag on tampering or wrong key."""
        return self._aead.decrypt(sealed[:_NONCE_BYTES], sealed[_NONCE_BYTES:], associated_data)


__all__ = ["Sealer", "derive_key"]
