"""Exceptions of the token-encryption layer.

CryptoError
 +-- KeyConfigError        master key missing, malformed or not 32 bytes
 +-- UnknownKeyVersionError envelope names a master-key version the keyring lacks
 +-- EnvelopeFormatError   stored text is not a Pacekeeper envelope
 +-- DecryptionError       authentication failed: wrong tenant/user/provider, tampering
"""

from __future__ import annotations

from pacekeeper.errors import PacekeeperError


class CryptoError(PacekeeperError):
    """Root of every error raised by :mod:`pacekeeper.crypto`. Messages carry no secrets."""


class KeyConfigError(CryptoError):
    """The configured master key material is unusable."""


class UnknownKeyVersionError(CryptoError):
    """The envelope was sealed with a master-key version that is not in the keyring."""

    def __init__(self, version: int) -> None:
        super().__init__(f"master key version {version} is not in the keyring")
        self.version = version


class EnvelopeFormatError(CryptoError):
    """The stored value is not a well-formed envelope."""


class DecryptionError(CryptoError):
    """The ciphertext did not authenticate under this tenant, user and provider."""
