"""Encryption of provider tokens at rest: AES-256-GCM, per-tenant HKDF keys, rotation."""

from ._cipher import Envelope, TokenCipher, TokenContext
from ._errors import (
    CryptoError,
    DecryptionError,
    EnvelopeFormatError,
    KeyConfigError,
    UnknownKeyVersionError,
)
from ._keyring import (
    ENV_MASTER_KEY,
    ENV_MASTER_VERSION,
    ENV_RETIRED_KEYS,
    MasterKeyring,
    decode_key,
    retired_master_keys,
)
from ._rotation import EncryptedSecretStore, RotationReport, StoredSecret, rotate_master_key

__all__ = [
    "ENV_MASTER_KEY",
    "ENV_MASTER_VERSION",
    "ENV_RETIRED_KEYS",
    "CryptoError",
    "DecryptionError",
    "EncryptedSecretStore",
    "Envelope",
    "EnvelopeFormatError",
    "KeyConfigError",
    "MasterKeyring",
    "RotationReport",
    "StoredSecret",
    "TokenCipher",
    "TokenContext",
    "UnknownKeyVersionError",
    "decode_key",
    "retired_master_keys",
    "rotate_master_key",
]
