"""Password hashes on their own bounded threads at a lower priority (issue 30, LOOP-1).

A burst of sign-ins put up to six Argon2id hashes on the default executor's threads at
once (2 cores): the loop's thread waited for a core. These tests hold the hasher's
threads to one fewer than the usable cores, at nice 10 (read back from the kernel), its
queue to a bound answered with 429 ``busy`` and ``Retry-After``, and every path
(hash, verify, the dummy verification for unknown accounts: ACC-6) to those threads.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pacekeeper.auth import Accounts, ConfiguredHasher
from pacekeeper.auth import _passwords as passwords
from pacekeeper.config import Settings
from pacekeeper.cpu import WORKER_NICENESS, Busy, NicedThreads
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.oauth2._flow import (
    authorize_params,
    hidden_fields,
    pkce,
    post_form,
    register_client,
)

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="per-thread nice and /proc are Linux's")


def _nice_of_thread(tid: int) -> int:
    """The nice value the kernel holds for one thread (proc(5): field 19 of stat)."""
    stat = Path(f"/proc/self/task/{tid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[16])


def _hasher() -> ConfiguredHasher:
    return ConfiguredHasher(Settings(argon2_time_cost=1, argon2_memory_kib=1024))


class _Spy:
    """Wraps the hasher's sync functions: which hash was checked, on which thread."""

    def __init__(self, hasher: ConfiguredHasher, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[str, int, str]] = []
        real_verify, real_hash = hasher._verify_sync, hasher._hash_sync

        def verify(password_hash: str, password: str) -> bool:
            self._note(password_hash)
            return real_verify(password_hash, password)

        def hash_(password: str) -> str:
            self._note("hash")
            return real_hash(password)

        monkeypatch.setattr(hasher, "_verify_sync", verify)
        monkeypatch.setattr(hasher, "_hash_sync", hash_)

    def _note(self, what: str) -> None:
        tid = threading.get_native_id()
        nice = _nice_of_thread(tid) if sys.platform.startswith("linux") else 0
        self.calls.append((what, nice, threading.current_thread().name))


@linux_only
async def test_hash_verify_and_dummy_run_on_the_niced_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    hasher = _hasher()
    spy = _Spy(hasher, monkeypatch)
    try:
        stored = await hasher.hash("correct horse battery")
        assert await hasher.verify(stored, "correct horse battery")
        assert not await hasher.verify(stored, "wrong horse battery")
        await hasher.burn("whatever-password")
    finally:
        hasher.close()
    assert [what for what, _, _ in spy.calls] == ["hash", stored, stored, hasher._dummy]
    base = _nice_of_thread(threading.get_native_id())  # the process's (pytest may be niced)
    assert {nice for _, nice, _ in spy.calls} == {min(19, base + WORKER_NICENESS)}
    assert all(name.startswith("pacekeeper-password-checks") for _, _, name in spy.calls)
    # The loop's own thread keeps its priority.
    assert _nice_of_thread(threading.get_native_id()) == os.getpriority(os.PRIO_PROCESS, 0)


@linux_only
async def test_a_niced_thread_reads_back_nice_10_from_the_kernel() -> None:
    pool = NicedThreads(2, 0, what="test")
    try:
        tids = await asyncio.gather(*(pool.run(threading.get_native_id) for _ in range(2)))
        assert all(tid != threading.get_native_id() for tid in tids)
        base = _nice_of_thread(threading.get_native_id())
        assert {_nice_of_thread(tid) for tid in tids} == {min(19, base + WORKER_NICENESS)}
    finally:
        pool.close()


class _NoUsers:
    async def get_by_email(self, email: str) -> None:
        return None


@linux_only
async def test_an_unknown_account_costs_a_dummy_verification_on_the_same_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """ACC-6: no account, the same verification (against the dummy hash), same queue."""
    hasher = _hasher()
    spy = _Spy(hasher, monkeypatch)
    accounts = Accounts(_NoUsers(), hasher, lambda: datetime.now(UTC))  # type: ignore[arg-type]
    try:
        assert await accounts.authenticate("nobody@example.com", "some-password") is None
    finally:
        accounts.close()
    base = _nice_of_thread(threading.get_native_id())
    assert spy.calls == [(hasher._dummy, min(19, base + WORKER_NICENESS), spy.calls[0][2])]
    assert spy.calls[0][2].startswith("pacekeeper-password-checks")


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (4, 3), (16, 15)])
def test_threads_leave_a_core_for_the_loop(
        monkeypatch: pytest.MonkeyPatch, cores: int, threads: int) -> None:
    monkeypatch.setattr(passwords, "usable_cores", lambda: cores)
    hasher = _hasher()
    assert hasher.pool.workers == threads
    assert hasher.pool.limit == threads * (1 + passwords.HASH_QUEUE_PER_THREAD)


async def test_no_more_than_the_threads_hash_at_once() -> None:
    pool = NicedThreads(2, 10, what="test")
    lock = threading.Lock()
    running, most = 0, 0

    def work() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        threading.Event().wait(0.05)
        with lock:
            running -= 1

    try:
        await asyncio.gather(*(pool.run(work) for _ in range(8)))
    finally:
        pool.close()
    assert most == 2


async def test_a_full_queue_refuses_at_once_with_retry_after() -> None:
    pool = NicedThreads(1, 1, what="password checks")
    release = threading.Event()
    try:
        held = [asyncio.ensure_future(pool.run(release.wait, 5.0)) for _ in range(2)]
        await asyncio.sleep(0)
        with pytest.raises(Busy) as refused:
            await pool.run(release.wait, 5.0)
        assert refused.value.status == 429 and refused.value.code == "busy"
        assert int(refused.value.headers["Retry-After"]) >= 1
        assert "password checks" in str(refused.value)
        release.set()
        assert await asyncio.gather(*held) == [True, True]
        assert await pool.run(release.wait, 0.0)  # room again once they are done
    finally:
        release.set()
        pool.close()


async def test_retry_after_counts_a_call_s_run_not_its_wait() -> None:
    """30 calls of 20 ms through one thread: the last waited ~0.6 s, ran 20 ms. The
    estimate behind Retry-After is the run (it is multiplied by the calls ahead)."""
    pool = NicedThreads(1, 40, what="test")
    try:
        await asyncio.gather(*(pool.run(threading.Event().wait, 0.02) for _ in range(30)))
    finally:
        pool.close()
    assert 0.015 < pool._seconds < 0.06


def _full(harness: Harness) -> None:
    pool = harness.services.accounts._hasher.pool  # type: ignore[attr-defined]
    pool.limit = 0  # every call finds the queue full


async def test_sign_in_with_a_full_queue_answers_429_busy(harness: Harness) -> None:
    await harness.register("busy@example.com")
    _full(harness)
    response = await harness.login("busy@example.com")
    assert response.status_code == 429
    assert response.json()["error"] == "busy"
    assert int(response.headers["retry-after"]) >= 1


async def test_the_login_page_with_a_full_queue_says_busy(harness: Harness) -> None:
    await harness.register("busypage@example.com")
    harness.client.cookies.clear()
    reg = await register_client(harness)
    _, challenge = pkce()
    page = await harness.client.get(
        "/oauth2/authorize", params=authorize_params(reg.client_id, challenge))
    _full(harness)
    response = await post_form(harness.client, hidden_fields(page.text) + [
        ("email", "busypage@example.com"), ("password", "not-the-password")])
    assert response.status_code == 429
    assert "The server is busy" in response.text
    assert int(response.headers["retry-after"]) >= 1
    assert "auth_token" not in response.headers.get("set-cookie", "")


def test_accounts_close_stops_the_threads() -> None:
    hasher = _hasher()
    accounts = Accounts(_NoUsers(), hasher, lambda: datetime.now(UTC))  # type: ignore[arg-type]
    asyncio.run(hasher.burn("x" * 8))
    assert hasher.pool._executor is not None
    accounts.close()
    assert hasher.pool._executor is None
