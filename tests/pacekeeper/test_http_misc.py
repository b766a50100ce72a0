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


async def test_openapi_links_lead_to_real_operations(harness: Harness) -> None:
    """Each link (what schemathesis' stateful run chains) names an operation of this
    document and fills exactly path parameters that operation has."""
    document = (await harness.client.get("/openapi.json")).json()
    links = [(name, link) for item in document["paths"].values() for op in item.values()
             for response in op.get("responses", {}).values()
             for name, link in response.get("links", {}).items()]
    assert {name for name, _ in links} >= {"DeleteKey", "GetActivity", "DeleteActivity",
                                           "GetStreams", "SyncState"}
    for name, link in links:
        pointer = link["operationRef"].removeprefix("#/paths/")
        path, method = pointer.rsplit("/", 1)
        path = path.replace("~1", "/").replace("~0", "~")
        target = document["paths"][path][method]
        names = {p["name"] for p in target.get("parameters", []) if p["in"] == "path"}
        assert set(link["parameters"]) == names, name
        assert all(v.startswith("$response.body#/") for v in link["parameters"].values())


async def test_blank_page_size_means_the_default(harness: Harness) -> None:
    """`?limit=` (a form's empty field) is the default page, as /openapi.json says;
    a word or an out-of-range number is a 400 (ERR-1)."""
    token = (await harness.register("blank@example.com"))["token"]
    auth = {"Authorization": f"Bearer {token}"}
    blank = await harness.client.get("/api/activities?limit=", headers=auth)
    assert blank.status_code == 200
    for bad in ("abc", "0", "201"):
        answer = await harness.client.get(f"/api/activities?limit={bad}", headers=auth)
        assert answer.status_code == 400
        assert answer.json()["error"] == "validation_error"
    document = (await harness.client.get("/openapi.json")).json()
    limit = next(p for p in document["paths"]["/api/activities"]["get"]["parameters"]
                 if p["name"] == "limit")
    assert {"type": "string", "maxLength": 0} in limit["schema"]["anyOf"]


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
