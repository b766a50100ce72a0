"""The person's own account over HTTP (issue 17, data rights): change password, export
everything as one zip, list and revoke authorised assistants, delete the account."""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from pathlib import Path

from sqlalchemy import func, select

from pacekeeper.db import Base
from tests.pacekeeper.conftest import PASSWORD, Harness

FIT = Path(__file__).resolve().parents[1] / "data" / "activities" / "fit"
RIDE = FIT / "garmin-fenix-5-bike.fit"


async def _user(h: Harness, email: str) -> tuple[dict[str, str], uuid.UUID]:
    body = await h.register(email)
    h.client.cookies.clear()
    return {"authorization": f"Bearer {body['token']}"}, uuid.UUID(body["user_id"])


async def test_export_holds_activities_streams_originals_and_key_metadata(
    harness: Harness,
) -> None:
    h = harness
    auth, _ = await _user(h, "export@example.com")
    imported = await h.client.post("/api/activities/import", headers=auth,
                                   files={"file": (RIDE.name, RIDE.read_bytes())})  # fmt: skip
    assert imported.status_code == 201, imported.text
    key = await h.client.post("/api/keys", headers=auth, json={"name": "agent", "tier": "trial"})
    assert key.status_code == 201
    answer = await h.client.get("/api/account/export", headers=auth)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/zip"
    assert "attachment" in answer.headers["content-disposition"]
    archive = zipfile.ZipFile(io.BytesIO(answer.content))
    names = archive.namelist()
    activity = json.loads(archive.read(f"activities/{imported.json()['activity']['id']}.json"))
    assert activity["streams"]["time"] and activity["streams"]["heartrate"]
    assert [archive.read(n) for n in names if n.startswith("originals/")] == [RIDE.read_bytes()]
    keys = json.loads(archive.read("api_keys.json"))
    assert [k["name"] for k in keys] == ["agent"]
    assert key.json()["api_key"] not in answer.content.decode("latin-1")  # never a secret
    for name in ("account.json", "settings.json", "daily.json", "connections.json"):
        assert name in names


async def test_delete_account_needs_the_password_and_removes_every_row(
    harness: Harness,
) -> None:
    h = harness
    auth, user_id = await _user(h, "leaving@example.com")
    other_auth, other_id = await _user(h, "staying@example.com")
    for headers in (auth, other_auth):
        await h.client.post("/api/activities/import", headers=headers,
                            files={"file": (RIDE.name, RIDE.read_bytes())})  # fmt: skip
        await h.client.post("/api/keys", headers=headers, json={"name": "k", "tier": "trial"})
    wrong = await h.client.request("DELETE", "/api/account", headers=auth,
                                   json={"password": "not-the-password"})  # fmt: skip
    assert wrong.status_code == 403
    gone = await h.client.request("DELETE", "/api/account", headers=auth,
                                  json={"password": PASSWORD})  # fmt: skip
    assert gone.status_code == 200 and gone.json()["deleted"] is True
    assert (await h.client.get("/api/activities", headers=auth)).status_code == 401
    assert (await h.login("leaving@example.com")).status_code == 401

    async def rows(uid: uuid.UUID) -> int:
        total = 0
        async with h.services.engine.connect() as conn:
            for table in Base.metadata.sorted_tables:
                column = table.c.get("user_id") if table.name != "users" else table.c.id
                if column is not None:
                    query = select(func.count()).select_from(table).where(column == uid)
                    total += (await conn.execute(query)).scalar_one()
        return total

    assert await rows(user_id) == 0
    assert await rows(other_id) > 0  # another person's rows stay
    assert (await h.client.get("/api/activities", headers=other_auth)).json()["activities"]


async def test_change_password_with_a_cookie_session(harness: Harness) -> None:
    """A new password needs the current one and CSRF; every other session ends (ASVS
    7.4.3), this one gets new cookies."""
    h = harness
    other_session = (await h.register("changer@example.com"))["token"]
    login = await h.login("changer@example.com")
    csrf = login.json()["csrf_token"]
    wrong = await h.client.post("/api/account/password", headers={"x-csrf-token": csrf},
                                json={"current_password": "nope-nope-1",
                                      "new_password": "Brand-new-Passw0rd"})  # fmt: skip
    assert wrong.status_code == 403
    no_csrf = await h.client.post("/api/account/password", json={
        "current_password": PASSWORD, "new_password": "Brand-new-Passw0rd"})
    assert no_csrf.status_code == 403  # the one CSRF check applies
    changed = await h.client.post("/api/account/password", headers={"x-csrf-token": csrf},
                                  json={"current_password": PASSWORD,
                                        "new_password": "Brand-new-Passw0rd"})  # fmt: skip
    assert changed.status_code == 200, changed.text
    assert changed.json()["csrf_token"] != csrf
    assert (await h.client.get("/api/activities")).status_code == 200  # new cookies work
    h.client.cookies.clear()  # the cookie is tried first: only the other token is sent
    ended = await h.client.get("/api/activities",
                               headers={"authorization": f"Bearer {other_session}"})
    assert ended.status_code == 401 and ended.json()["error"] == "invalid_token"
    assert (await h.login("changer@example.com")).status_code == 401
    assert (await h.login("changer@example.com", "Brand-new-Passw0rd")).status_code == 200


async def test_assistants_list_is_empty_without_grants(harness: Harness) -> None:
    h = harness
    auth, _ = await _user(h, "assist@example.com")
    answer = await h.client.get("/api/account/assistants", headers=auth)
    assert answer.status_code == 200 and answer.json() == {"assistants": []}
    revoked = await h.client.delete("/api/account/assistants/nobody", headers=auth)
    assert revoked.json() == {"client_id": "nobody", "revoked_grants": 0}
