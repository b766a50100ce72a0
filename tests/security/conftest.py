"""Fixtures of the attack tests (issue 20): a live service on a real socket."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

# Fixtures: a FakeClock, RSA keys, both databases (the race and fitness tests), the harness.
from tests.pacekeeper.conftest import (  # noqa: F401 - fixtures
    clock,
    db_url,
    harness,
    harness_factory,
    keygen,
    migrated_db,
    migrated_templates,
    rsa_keys,
)
from tests.security._live import live_factory

PROVIDER_ENV = ("STRAVA", "FITBIT", "GARMIN")


@pytest.fixture
def live(
    tmp_path: Path,
    keygen: Callable[[int], rsa.RSAPrivateKey],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[..., Any]:
    """`with live(**settings) as service:` a real server with the sandbox mounted."""
    for provider in PROVIDER_ENV:
        for suffix in ("CLIENT_ID", "CLIENT_SECRET", "REDIRECT_URI"):
            monkeypatch.delenv(f"{provider}_{suffix}", raising=False)
    monkeypatch.delenv("PACEKEEPER_PROVIDER_BASE_URL", raising=False)
    return live_factory(tmp_path, keygen)


