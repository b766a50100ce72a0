"""Rehash on login, the OpenAPI document, no secrets in responses or logs."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
from starlette.routing import Route

from tests.pacekeeper.conftest import PASSWORD, Harness


async def test_rehash_on_login_when_parameters_change(harness_factory: Any) -> None:
    """ACC-7: logging in with changed parameters stores a new hash with them."""
    async with harness_factory(argon2_time_cost=1) as h:
        await h.register("re@example.com")
        old = await h.services.users.get_by_email("re@example.com")
        assert old is not None
        assert ",t=1," in old.password_hash
    async with harness_factory(argon2_time_cost=2) as h:
        assert (await h.login("re@example.com")).status_code == 200
        new = await h.services.users.get_by_email("re@example.com")
        assert new is not None
        assert ",t=2," in new.password_hash
    async with harness_factory(password_scheme="bcrypt", bcrypt_rounds=4) as h:
        assert (await h.login("re@example.com")).status_code == 200
        switched = await h.services.users.get_by_email("re@example.com")
        assert switched is not None
        assert switched.password_hash.startswith("$2b$04$")
        assert (await h.login("re@example.com")).status_code == 200


async def test_openapi_describes_every_route(harness: Harness) -> None:
    document = (await harness.client.get("/openapi.json")).json()
    assert document["openapi"].startswith("3.1")
    # A Starlette converter ({id:path}) is not part of an OpenAPI path template.
    routes = {re.sub(r":\w+}", "}", r.path) for r in harness.app.routes if isinstance(r, Route)}
    assert routes <= set(document["paths"])
    for path, item in document["paths"].items():
        for operation in item.values():
            assert "422" not in operation.get("responses", {}), path


async def test_no_secrets_in_logs_or_responses(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """ERR-3: tokens and passwords never reach a log line; errors carry no traceback."""
    with caplog.at_level(logging.DEBUG):
        body = await harness.register("quiet@example.com")
        login = (await harness.login("quiet@example.com")).json()
        await harness.login("quiet@example.com", "wrong-password-9")
        bad = await harness.client.post(
            "/api/auth/refresh", headers={"Authorization": "Bearer " + body["token"] + "x"}
        )
    assert "Traceback" not in bad.text
    for secret in (PASSWORD, "wrong-password-9", body["token"], login["jwt_token"],
                   login["csrf_token"]):
        assert secret not in caplog.text


async def test_services_hold_the_master_key_without_showing_it(harness: Harness) -> None:
    """The resolved master key is available for other keyrings but never in a repr."""
    from tests.pacekeeper.conftest import MASTER_KEY

    services = harness.services
    assert services.master_key == bytes(range(32))
    assert MASTER_KEY not in repr(services)
    assert repr(bytes(range(32))) not in repr(services)
