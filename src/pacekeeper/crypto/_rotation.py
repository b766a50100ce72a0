"""Re-encryption of every stored secret under the current master key.

The storage is the lead's: it implements :class:`EncryptedSecretStore`. The helper is
what ``pacekeeper keys rotate-master`` runs after a new master key is configured.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Protocol

from ._cipher import TokenCipher, TokenContext
from ._errors import CryptoError


@dataclass(frozen=True, slots=True)
class StoredSecret:
    record_id: str
    context: TokenContext
    envelope: str


class EncryptedSecretStore(Protocol):
    def iter_secrets(self) -> AsyncIterator[StoredSecret]:
        """Every stored envelope with the context it was sealed for."""
        ...

    async def replace_secret(self, record_id: str, old_envelope: str, new_envelope: str) -> bool:
        """Compare-and-swap: store ``new_envelope`` only if ``old_envelope`` is still there.

        Returns False when a concurrent writer (a token refresh) changed the row first;
        the refresh wrote under the current key already, so nothing is lost.
        """
        ...


@dataclass(slots=True)
class RotationReport:
    rotated: int = 0
    already_current: int = 0
    changed_concurrently: int = 0
    failed: list[str] = field(default_factory=list)  # record ids, never contents


async def rotate_master_key(store: EncryptedSecretStore, cipher: TokenCipher) -> RotationReport:
    """Re-seal every envelope not under the current master-key version."""
    report = RotationReport()
    async for secret in store.iter_secrets():
        try:
            if not cipher.needs_rotation(secret.envelope):
                report.already_current += 1
                continue
            fresh = cipher.reencrypt(secret.envelope, secret.context)
        except CryptoError:
            # One unreadable row must not stop the others; it is reported by id.
            report.failed.append(secret.record_id)
            continue
        if await store.replace_secret(secret.record_id, secret.envelope, fresh):
            report.rotated += 1
        else:
            report.changed_concurrently += 1
    return report
