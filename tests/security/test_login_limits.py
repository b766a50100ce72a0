"""Finding 1: password guessing and mass registration are rate limited, without a
lockout of the account's owner and without telling whether an account exists.

Real uvicorn; the client addresses are set through `X-Forwarded-For` from a trusted
proxy (the loopback peer), as behind a load balancer.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from pacekeeper.ratelimit import MemoryRateLimiter
from tests.security._live_auth import PASSWORD, Live, live

ATTACKER = {"X-Forwarded-For": "203.0.113.5"}
OWNER = {"X-Forwarded-For": "198.51.100.7"}
LIMITS = {"trusted_proxies": "127.0.0.1", "login_limit_per_address": 12,
          "login_limit_per_account": 4, "register_limit_per_address": 3,
          "register_limit_per_account": 2}


def _limited(response: httpx.Response, limit: int) -> None:
    assert response.status_code == 429, response.text
    body = response.json()
    assert body["error"] == "rate_limited" and body["message"]
    assert int(response.headers["retry-after"]) >= 1
    assert response.headers["x-ratelimit-limit"] == str(limit)
    assert response.headers["x-ratelimit-remaining"] == "0"
    assert int(response.headers["x-ratelimit-reset"]) > 0
    assert "set-cookie" not in response.headers


def test_password_guessing_is_limited_per_account_without_locking_the_owner_out(
    tmp_path: Path,
) -> None:
    """ACC-6, AS-12 style headers (finding 1): wrong passwords from one address run out
    after the per-account limit, then even the right password is 429 there; the owner,
    from their own address, still signs in."""
    with live(tmp_path, **LIMITS) as svc:
        assert svc.register("victim@example.com").status_code == 201
        for left in (3, 2, 1, 0):
            wrong = svc.login("victim@example.com", "wrong-password-1", **ATTACKER)
            assert wrong.status_code == 401
            assert wrong.headers["x-ratelimit-remaining"] == str(left)
        _limited(svc.login("victim@example.com", PASSWORD, **ATTACKER), 4)
        _limited(svc.login("VICTIM@example.com ", "guess-again-2", **ATTACKER), 4)
        owner = svc.login("victim@example.com", PASSWORD, **OWNER)
        assert owner.status_code == 200, owner.text
        assert "x-ratelimit-limit" in owner.headers


def test_unknown_and_known_emails_are_limited_alike(tmp_path: Path) -> None:
    """ACC-6 (finding 1): the limit does not tell whether an account exists: the same
    answers, headers and refusal for a registered and an unregistered email."""
    with live(tmp_path, **LIMITS) as svc:
        assert svc.register("known@example.com").status_code == 201
        seen = []
        for email in ("known@example.com", "unknown@example.com"):
            answers = [svc.login(email, "wrong-password-1", **ATTACKER) for _ in range(5)]
            seen.append([(a.status_code, a.json(), a.headers.get("x-ratelimit-remaining"),
                          a.headers.get("x-ratelimit-limit")) for a in answers])
        assert seen[0] == seen[1]
        assert [s[0] for s in seen[0]] == [401, 401, 401, 401, 429]


def test_spraying_many_accounts_from_one_address_is_limited(tmp_path: Path) -> None:
    """Finding 1: the per-address bucket counts every account tried from the address."""
    with live(tmp_path, **LIMITS) as svc:
        answers = [svc.login(f"user{i}@example.com", "wrong-password-1", **ATTACKER)
                   for i in range(13)]
        assert [a.status_code for a in answers[:12]] == [401] * 12
        _limited(answers[12], 12)
        assert svc.login("user0@example.com", "wrong-password-1", **OWNER).status_code == 401


def test_registration_is_limited_per_address_and_per_account(tmp_path: Path) -> None:
    """ACC-2 context (finding 1): open registration cannot be used to create accounts
    (or probe emails with 409) without limit."""
    with live(tmp_path, **LIMITS) as svc:
        def register(email: str, headers: dict[str, str]) -> httpx.Response:
            return svc.client.post("/api/auth/register", headers=headers,
                                   json={"email": email, "password": PASSWORD})

        assert register("a1@example.com", ATTACKER).status_code == 201
        assert register("a1@example.com", ATTACKER).status_code == 409
        _limited(register("a1@example.com", ATTACKER), 2)  # this email, this address
        _limited(register("a2@example.com", ATTACKER), 3)  # any email, this address
        assert register("a2@example.com", OWNER).status_code == 201


class _Clock:
    """The rate limiter's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _confirm(svc: Live, how: str, token: str, password: str) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}", **ATTACKER}
    if how == "change":
        return svc.client.post("/api/account/password", headers=headers, json={
            "current_password": password, "new_password": "A-new-Passw0rd-9"})
    return svc.client.request("DELETE", "/api/account", headers=headers,
                              json={"password": password})


@pytest.mark.parametrize(("guess", "then"), [("change", "change"), ("delete", "delete"),
                                             ("change", "delete"), ("delete", "login")])
def test_a_stolen_session_cannot_guess_the_password(
    tmp_path: Path, guess: str, then: str
) -> None:
    """Issue 28 (ACC-6): `POST /api/account/password` and `DELETE /api/account` took 150
    wrong current passwords in 5 s, never 429, so a stolen session became a takeover.
    Each check now counts in the login buckets of the account and address, before the
    password is checked: after the per-account limit of wrong guesses, the right password
    is 429 (Retry-After) on either route and at the login; once the bucket has refilled
    (a minute on the limiter's clock), the right password works again; the account's
    owner at their own address was never locked out."""
    clock = _Clock()
    with live(tmp_path, limiter=MemoryRateLimiter(clock=clock), **LIMITS) as svc:
        assert svc.register("stolen@example.com").status_code == 201
        token = svc.login("stolen@example.com", **OWNER).json()["jwt_token"]
        for left in (3, 2, 1, 0):
            wrong = _confirm(svc, guess, token, f"guess-number-{left}")
            assert wrong.status_code == 403, wrong.text
            assert wrong.json() == {"error": "forbidden", "message": "the password is not correct"}
            assert wrong.headers["x-ratelimit-remaining"] == str(left)
        if then == "login":
            refused = svc.login("stolen@example.com", PASSWORD, **ATTACKER)
        else:
            refused = _confirm(svc, then, token, PASSWORD)
        _limited(refused, 4)
        # 4 a minute, as the login: the next try in 60 / 4 = 15 s.
        assert refused.headers["retry-after"] == "15"
        assert svc.login("stolen@example.com", PASSWORD, **OWNER).status_code == 200
        clock.now += 10
        _limited(_confirm(svc, "change", token, PASSWORD), 4)
        clock.now += 60  # the bucket is full again
        right = _confirm(svc, "change", token, PASSWORD)
        assert right.status_code == 200, right.text
