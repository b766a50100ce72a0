"""A live `pacekeeper serve` for the fuzzers: its log goes to a file (a fuzz run writes
more than a pipe holds), a signed-in person with real activities, and the checks every
fuzz run ends with: no traceback or secret in the log (ERR-3), `/ready` still 200.

Each fuzzer runs against two backends (`BACKENDS`): the embedded one (SQLite, in-process
limits) and the scaled-out one (PostgreSQL and Redis, throwaway servers from
tests/conftest.py). PostgreSQL refuses what SQLite takes (a NUL in text, out-of-range
integers, ...), so a fuzzer on SQLite alone misses its 500s. The second backend runs a
smaller budget (`Target.budget`): same checks, fewer examples."""

from __future__ import annotations

import contextlib
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests._services import free_port
from tests.e2e._service_process import EXE, new_database, service_env, wait_healthy

PASSWORD = "fuzz-Passw0rd!"
ACTIVITY_FILES = Path(__file__).parents[1] / "data" / "activities" / "fit"
# Three small real recordings: enough for the links from a listing to resolve.
SEED_FILES = ("4801048867.fit", "garmin-edge-500-activity.fit",
              "activity-small-fenix2-run.fit")
# What must never reach a body or a log line (ERR-3).
TRACEBACK_MARKERS = ("Traceback (most recent call last)", 'File "/')


# "sqlite": the embedded setup; "postgres": PostgreSQL and Redis, as scaled out.
BACKENDS = ("sqlite", "postgres")
# The share of the SQLite run's examples the second backend runs (the suite's time).
SECOND_BACKEND_BUDGET = 0.3


@dataclass(frozen=True, slots=True)
class Target:
    url: str
    log: Path
    token: str
    activity_ids: tuple[str, ...]
    backend: str = "sqlite"

    def budget(self, examples: int) -> int:
        """How many of `examples` to run on this backend."""
        if self.backend == "sqlite":
            return examples
        return max(1, round(examples * SECOND_BACKEND_BUDGET))


def backend_env(request: pytest.FixtureRequest, backend: str) -> dict[str, str]:
    """The service's settings for `backend`: nothing for SQLite; a fresh database on the
    session's PostgreSQL and its Redis for "postgres"."""
    if backend == "sqlite":
        return {}
    return {"PACEKEEPER_DATABASE_URL": new_database(request.getfixturevalue("postgres_url")),
            "PACEKEEPER_REDIS_URL": request.getfixturevalue("redis_url")}


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def fuzz_target(tmp_path: Path, email: str = "fuzz@example.com", backend: str = "sqlite",
                backing: dict[str, str] | None = None) -> Iterator[Target]:
    """The service with a high tenant limit (the run must reach each operation's logic,
    not the bucket: 429 is tested elsewhere), one person and three imported activities;
    on `backend`, whose settings (`backend_env`) are `backing`."""
    port = free_port()
    env = service_env(tmp_path / "data", port,
                      PACEKEEPER_TENANT_RATE_LIMIT_PER_MINUTE="1000000", **(backing or {}))
    tmp_path.mkdir(parents=True, exist_ok=True)
    log = tmp_path / "service.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen([EXE, "serve"], env=env, stdout=sink,
                                stderr=subprocess.STDOUT)
    url = env["PACEKEEPER_BASE_URL"]
    try:
        wait_healthy(url, proc)
        with httpx.Client(base_url=url, timeout=30) as client:
            token = client.post("/api/auth/register",
                                json={"email": email, "password": PASSWORD}).json()["token"]
            ids = []
            for name in SEED_FILES:
                answer = client.post("/api/activities/import",
                                     headers={"Authorization": f"Bearer {token}"},
                                     files={"file": (name, (ACTIVITY_FILES / name).read_bytes())})
                assert answer.status_code == 201, answer.text
                ids.append(answer.json()["activity"]["id"])
        yield Target(url, log, token, tuple(ids), backend)
        assert proc.poll() is None, "the service died during the run"
    finally:
        _stop(proc)


def assert_clean_text(text: str, secrets: tuple[str, ...], where: str) -> None:
    for marker in TRACEBACK_MARKERS:
        assert marker not in text, f"a traceback in {where}: {text[-2000:]}"
    for secret in secrets:
        assert secret not in text, f"a secret in {where}"


def assert_healthy_afterwards(target: Target) -> None:
    """Ready (database, queue), still serving the person, and a log without a traceback
    or the person's password or token (ERR-3)."""
    ready = httpx.get(f"{target.url}/ready", timeout=10)
    assert ready.status_code == 200, ready.text
    me = httpx.get(f"{target.url}/api/keys", timeout=10,
                   headers={"Authorization": f"Bearer {target.token}"})
    assert me.status_code == 200, me.text
    assert_clean_text(target.log.read_text(errors="replace"), (PASSWORD, target.token),
                      "the service log")


__all__ = ["BACKENDS", "PASSWORD", "Target", "assert_clean_text", "assert_healthy_afterwards",
           "backend_env", "fuzz_target"]
