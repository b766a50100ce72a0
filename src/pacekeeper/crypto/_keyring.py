"""Versioned master keys and the HKDF derivation of per-tenant keys (PROV-5).

The environment supplies the current master key in ``SERVICE_MASTER_ENCRYPTION_KEY``
(32 bytes as base64, base64url or hex), its version in ``PACEKEEPER_MASTER_KEY_VERSION``
(default 1) and older keys still needed for decryption in
``PACEKEEPER_RETIRED_MASTER_KEYS`` (``"1:<key>,2:<key>"``). Rotation = add a new current
key, move the old one to the retired list, run ``pacekeeper keys rotate-master``.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hmac
from collections.abc import Mapping
from functools import lru_cache

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ._errors import KeyConfigError, UnknownKeyVersionError

KEY_BYTES = 32
# A fixed, public salt: HKDF's security rests on the master key; the salt separates this
# use of the key from any other use the service might make of it later.
_HKDF_SALT = b"pacekeeper/provider-tokens/v1"

ENV_MASTER_KEY = "SERVICE_MASTER_ENCRYPTION_KEY"
ENV_MASTER_VERSION = "PACEKEEPER_MASTER_KEY_VERSION"
ENV_RETIRED_KEYS = "PACEKEEPER_RETIRED_MASTER_KEYS"


def decode_key(text: str) -> bytes:
    """Decode 32 bytes given as hex, base64 or base64url; anything else is refused."""
    value = text.strip()
    candidates: list[bytes] = []
    if len(value) == 2 * KEY_BYTES:
        with contextlib.suppress(ValueError):
            candidates.append(bytes.fromhex(value))
    for decoder in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            candidates.append(decoder(value + "=" * (-len(value) % 4)))
        except (binascii.Error, ValueError):
            continue
    for raw in candidates:
        if len(raw) == KEY_BYTES:
            return raw
    raise KeyConfigError("master key must be 32 bytes encoded as hex, base64 or base64url")


class MasterKeyring:
    """Master keys by version; one of them is current and seals every new envelope."""

    def __init__(self, keys: Mapping[int, bytes], current_version: int) -> None:
        if current_version not in keys:
            raise KeyConfigError("the current master key version has no key")
        for version, key in keys.items():
            if version < 1:
                raise KeyConfigError("master key versions are positive integers")
            if len(key) != KEY_BYTES:
                raise KeyConfigError(f"master key version {version} is not 32 bytes")
        self._keys = dict(keys)
        self.current_version = current_version

    @classmethod
    def single(cls, key: bytes, version: int = 1) -> MasterKeyring:
        return cls({version: key}, version)

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> MasterKeyring:
        raw = environ.get(ENV_MASTER_KEY)
        if not raw:
            raise KeyConfigError(f"{ENV_MASTER_KEY} is not set")
        try:
            current = int(environ.get(ENV_MASTER_VERSION, "1"))
        except ValueError as exc:
            raise KeyConfigError(f"{ENV_MASTER_VERSION} must be an integer") from exc
        keys = {current: decode_key(raw)}
        for version, key in retired_master_keys(environ).items():
            if version == current:
                raise KeyConfigError("a retired master key reuses the current version")
            keys[version] = key
        return cls(keys, current)

    @property
    def versions(self) -> frozenset[int]:
        return frozenset(self._keys)

    def tenant_key(self, version: int, tenant_id: str) -> bytes:
        """The AES-256 key of one tenant under one master-key version."""
        master = self._keys.get(version)
        if master is None:
            raise UnknownKeyVersionError(version)
        return _derive(master, tenant_id)

    def same_keys(self, other: MasterKeyring) -> bool:
        """Constant-time comparison, used by tests and the rotate command's sanity check."""
        if self.versions != other.versions:
            return False
        return all(hmac.compare_digest(self._keys[v], other._keys[v]) for v in self._keys)


@lru_cache(maxsize=1024)
def _derive(master: bytes, tenant_id: str) -> bytes:
    # Cached: HKDF is cheap but every token read would otherwise repeat it.
    hkdf = HKDF(
        algorithm=hashes.SHA256(),
        length=KEY_BYTES,
        salt=_HKDF_SALT,
        info=b"tenant:" + tenant_id.encode("utf-8"),
    )
    return hkdf.derive(master)


def retired_master_keys(environ: Mapping[str, str]) -> dict[int, bytes]:
    """``PACEKEEPER_RETIRED_MASTER_KEYS`` (``"1:<key>,2:<key>"``) by version."""
    keys: dict[int, bytes] = {}
    for item in filter(None, (p.strip() for p in environ.get(ENV_RETIRED_KEYS, "").split(","))):
        version_text, sep, key_text = item.partition(":")
        if not sep or not version_text.isdigit():
            raise KeyConfigError(f"{ENV_RETIRED_KEYS} entries look like '<version>:<key>'")
        keys[int(version_text)] = decode_key(key_text)
    return keys
