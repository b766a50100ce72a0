"""Settings names, the master key rules, AES-256-GCM sealing."""

from __future__ import annotations

import base64
import logging
import os
import stat
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidTag

from pacekeeper.auth import Sealer, derive_key
from pacekeeper.config import Settings
from pacekeeper.masterkey import MasterKeyError, parse_master_key, resolve_master_key

KEY = bytes(range(32))


def test_spec_variable_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Spec names kept exactly; everything else is PACEKEEPER_*; defaults per the issue."""
    for name in list(os.environ):
        if name.startswith("PACEKEEPER_"):
            monkeypatch.delenv(name)
    defaults = Settings()
    assert (defaults.host, defaults.port) == ("127.0.0.1", 8080)
    assert defaults.registration.value == "admin"
    assert defaults.tenant_rate_limit_per_minute == 600
    assert defaults.jwt_rsa_key_bits == 4096
    assert defaults.password_scheme.value == "argon2id"
    monkeypatch.setenv("SERVICE_MASTER_ENCRYPTION_KEY", "k" * 10)
    monkeypatch.setenv("JWT_EXPIRY_HOURS", "3")
    monkeypatch.setenv("PACEKEEPER_REGISTRATION", "open")
    monkeypatch.setenv("PACEKEEPER_PORT", "9000")
    monkeypatch.setenv("PACEKEEPER_ENV", "production")
    settings = Settings()
    assert settings.master_encryption_key.get_secret_value() == "k" * 10
    assert settings.jwt_expiry_hours == 3
    assert settings.registration.value == "open"
    assert settings.port == 9000
    assert settings.is_production
    assert "k" * 10 not in repr(settings)  # secrets never print


def test_bad_setting_values_are_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PACEKEEPER_REGISTRATION", "sometimes")
    with pytest.raises(ValueError, match="registration"):
        Settings()


def test_production_needs_4096_bit_keys() -> None:
    """JWT-1: 4096-bit RSA keys in production; 2048 is for tests only."""
    with pytest.raises(ValueError, match="at least 4096"):
        Settings(env="production", jwt_rsa_key_bits=2048)
    assert Settings(env="production").jwt_rsa_key_bits == 4096
    assert Settings(env="development", jwt_rsa_key_bits=2048).jwt_rsa_key_bits == 2048


@pytest.mark.parametrize(
    "text",
    [KEY.hex(), KEY.hex().upper(), base64.b64encode(KEY).decode(),
     base64.urlsafe_b64encode(KEY).decode().rstrip("="), f"  {KEY.hex()}\n"],
)
def test_master_key_hex_or_base64(text: str) -> None:
    assert parse_master_key(text) == KEY


@pytest.mark.parametrize(
    "text", ["", "   ", "abc", KEY.hex()[:-2], base64.b64encode(KEY + b"x").decode(), "!" * 44]
)
def test_malformed_master_key_is_refused(text: str) -> None:
    with pytest.raises(MasterKeyError) as info:
        parse_master_key(text)
    assert text.strip() == "" or text not in str(info.value)


def test_production_needs_a_master_key(tmp_path: Path) -> None:
    with pytest.raises(MasterKeyError, match="required in production"):
        resolve_master_key("", production=True, data_dir=tmp_path)
    assert not (tmp_path / "master.key").exists()
    with pytest.raises(MasterKeyError):
        resolve_master_key("not-a-key", production=True, data_dir=tmp_path)


def test_development_generates_a_private_key_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        first = resolve_master_key("", production=False, data_dir=tmp_path / "data")
    path = tmp_path / "data" / "master.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "generated a development master key" in caplog.text
    assert base64.b64encode(first).decode() not in caplog.text
    assert resolve_master_key("", production=False, data_dir=tmp_path / "data") == first


def test_sealer_round_trip_and_tamper_detection() -> None:
    sealer = Sealer(derive_key(KEY, "test"))
    sealed = sealer.seal(b"secret", b"aad")
    assert b"secret" not in sealed
    assert sealer.open(sealed, b"aad") == b"secret"
    assert sealer.seal(b"secret", b"aad") != sealed  # random nonce
    with pytest.raises(InvalidTag):
        sealer.open(sealed, b"other")
    with pytest.raises(InvalidTag):
        sealer.open(sealed[:-1] + bytes([sealed[-1] ^ 1]), b"aad")
    with pytest.raises(InvalidTag):
        Sealer(derive_key(KEY, "other purpose")).open(sealed, b"aad")
