"""Shared fixtures: real Redis and PostgreSQL servers, started once per test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import _services

# Fails a ./scripts/test run on a skip that is not by design (tests/_skip_guard.py).
pytest_plugins = ["tests._skip_guard"]


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with _services.redis_server() as url:
        yield url


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    with _services.postgres_server() as url:
        yield url
