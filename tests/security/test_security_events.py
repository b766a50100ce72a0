"""ASVS 16.3.1 and 16.3.2: sign-ins that succeed and fail, and refused requests, are
logged as security events, naming who and what without any credential.

Real uvicorn in this process; the records are read from the loggers that write them.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import httpx
import pytest

from tests.security._live_auth import PASSWORD, live


def _token(response: httpx.Response) -> str:
    assert response.status_code == 200, response.text
    token: str = response.json()["jwt_token"]
    return token


def _lines(caplog: pytest.LogCaptureFixture, name: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == name]


def test_sign_ins_are_logged_by_outcome_never_with_the_password_or_name(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """ERR-3: a success names the user; each refusal says why (unknown name, wrong
    password), naming the user by id or an unknown name by a digest only."""
    caplog.set_level(logging.INFO, logger="pacekeeper")
    with live(tmp_path) as svc:
        made = svc.register("ana@example.com")
        assert made.status_code == 201, made.text
        user_id = made.json()["user_id"]
        assert svc.login("ana@example.com", PASSWORD).status_code == 200
        assert svc.login("ana@example.com", "wrong-Passw0rd-9").status_code == 401
        typed = "Correct-Horse-Typed-As-Name"  # a password typed into the email field
        assert svc.login(typed, "whatever-Passw0rd-1").status_code == 401
    lines = _lines(caplog, "pacekeeper.accounts")
    assert f"sign-in of user {user_id}" in lines
    assert f"sign-in refused: wrong password for user {user_id}" in lines
    digest = hashlib.sha256(typed.lower().encode()).hexdigest()[:12]
    assert f"sign-in refused: no such account (name {digest})" in lines
    everything = "\n".join(r.getMessage() for r in caplog.records)
    for secret in (PASSWORD, "wrong-Passw0rd-9", typed, "whatever-Passw0rd-1"):
        assert secret not in everything


def test_a_disabled_account_s_sign_in_is_logged_as_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="pacekeeper")
    with live(tmp_path, admin_email="root@example.com", admin_password=PASSWORD) as svc:
        user_id = svc.register("bo@example.com").json()["user_id"]
        admin = {"authorization": f"Bearer {_token(svc.login('root@example.com'))}"}
        off = svc.client.patch(f"/api/admin/users/{user_id}", json={"status": "disabled"},
                               headers=admin)
        assert off.status_code == 200, off.text
        assert svc.login("bo@example.com", PASSWORD).status_code == 401
    assert f"sign-in refused: user {user_id} is disabled" in _lines(caplog,
                                                                    "pacekeeper.accounts")


def test_refused_requests_are_logged_with_method_path_and_reason(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """A 401 and a 403 each leave one line: method, path (never the query), status and
    the error code; a request that was allowed leaves none."""
    caplog.set_level(logging.INFO, logger="pacekeeper")
    with live(tmp_path) as svc:
        svc.register("cy@example.com")
        user = {"authorization": f"Bearer {_token(svc.login('cy@example.com'))}"}
        none = svc.client.get("/api/account/export?code=secret-code-1")
        assert none.status_code == 401
        admin_only = svc.client.get("/api/admin/users", headers=user)
        assert admin_only.status_code == 403
        assert svc.client.get("/api/activities", headers=user).status_code == 200
    refused = [line for line in _lines(caplog, "pacekeeper.http")
               if line.startswith("refused ")]
    assert refused == ["refused GET /api/account/export: 401 authentication_required",
                       "refused GET /api/admin/users: 403 forbidden"], refused


def test_user_text_cannot_forge_a_log_line() -> None:
    """ASVS 16.4.1: a value with a line break, logged as an argument (user text arrives
    there), stays inside its own line, written escaped."""
    from pacekeeper import logredact

    logredact.install()  # what every entry point does (the app, the CLI)
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.extend(self.format(record).splitlines())

    handler = Keep()
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
    logger = logging.getLogger("pacekeeper.test_forge")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        forged = "bike\nINFO pacekeeper.accounts sign-in of user admin\r\x1b[2K"
        logger.info("renamed activity to %s", forged)
    finally:
        logger.removeHandler(handler)
    assert lines == ["INFO pacekeeper.test_forge renamed activity to "
                     "bike\\nINFO pacekeeper.accounts sign-in of user admin\\r\\x1b[2K"]
