"""The master key: from the environment, or generated for development only.

`SERVICE_MASTER_ENCRYPTION_KEY` is 32 bytes written as 64 hex digits or as base64
(standard or URL-safe alphabet, padding optional). Every use derives its own key from
it (HKDF-SHA256 with a purpose label), so the master key itself encrypts nothing.
"""

from __future__ import annotations

import base64
import logging
import os
import secrets
from pathlib import Path

from pacekeeper.crypto import KeyConfigError, decode_key
from pacekeeper.errors import PacekeeperError

log = logging.getLogger("pacekeeper.masterkey")

MASTER_KEY_BYTES = 32
MASTER_KEY_FILE = "master.key"


class MasterKeyError(PacekeeperError, ValueError):
    """The master key is missing or malformed (the message never contains the key)."""


def parse_master_key(text: str) -> bytes:
    """Decode a 32-byte key from 64 hex digits or base64; raise MasterKeyError otherwise.

    The format rule itself lives in one place, `pacekeeper.crypto.decode_key`, which the
    provider-token encryption uses too.
    """
    if not text.strip():
        raise MasterKeyError("SERVICE_MASTER_ENCRYPTION_KEY is not set")
    try:
        return decode_key(text)
    except KeyConfigError as exc:
        raise MasterKeyError(f"SERVICE_MASTER_ENCRYPTION_KEY: {exc}") from None


def load_or_create_dev_key(data_dir: Path) -> bytes:
    """Development only: read <data_dir>/master.key, creating it (mode 0600) if missing."""
    path = data_dir / MASTER_KEY_FILE
    if path.exists():
        return parse_master_key(path.read_text())
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(MASTER_KEY_BYTES)
    # O_EXCL: never overwrite a key another process just wrote; 0600 from the start.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(base64.b64encode(key).decode() + "\n")
    log.warning("generated a development master key at %s (mode 0600)", path)
    return key


__all__ = [
    "MASTER_KEY_BYTES",
    "MasterKeyError",
    "load_or_create_dev_key",
    "parse_master_key",
]


def resolve_master_key(configured: str, *, production: bool, data_dir: Path) -> bytes:
    """The master key from the environment; in development a generated one if unset.

    Production refuses to start without a well-formed key: silently generating one there
    would make every stored secret unreadable after a redeploy.
    """
    if configured.strip():
        return parse_master_key(configured)
    if production:
        raise MasterKeyError(
            "SERVICE_MASTER_ENCRYPTION_KEY is required in production "
            "(32 bytes as 64 hex digits or base64, e.g. `openssl rand -base64 32`)"
        )
    return load_or_create_dev_key(data_dir)


__all__ += ["resolve_master_key"]
