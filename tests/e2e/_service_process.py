"""The real service as a separate process: its environment, a fresh PostgreSQL database,
starting it until `/health` answers, and stopping it with its log checked for secrets."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import httpx
from sqlalchemy.engine import make_url

EXE = str(Path(sys.executable).parent / "pacekeeper")


def service_env(data_dir: Path, port: int, master_key: str | None = None,
                **extra: str) -> dict[str, str]:
    """This process's environment without any PACEKEEPER_* of its own, plus test settings
    (open registration, 2048-bit keys, cheap Argon2id) and a master key (random if None)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PACEKEEPER_", "STRAVA_", "FITBIT_", "GARMIN_"))
           and k != "SERVICE_MASTER_ENCRYPTION_KEY"}  # no real provider: the sandbox
    env.update({
        "PACEKEEPER_DATA_DIR": str(data_dir),
        "PACEKEEPER_PORT": str(port),
        "PACEKEEPER_BASE_URL": f"http://127.0.0.1:{port}",
        "PACEKEEPER_REGISTRATION": "open",
        "PACEKEEPER_JWT_RSA_KEY_BITS": "2048",
        "PACEKEEPER_ARGON2_MEMORY_KIB": "1024",
        "PACEKEEPER_ARGON2_TIME_COST": "1",
        "PACEKEEPER_SANDBOX_HISTORY_DAYS": "120",  # the sync after connecting stays short
        "SERVICE_MASTER_ENCRYPTION_KEY":
            master_key or base64.b64encode(secrets.token_bytes(32)).decode(),
        **extra,
    })
    return env


def new_database(postgres_url: str, prefix: str = "e2e_") -> str:
    """Create an empty database on the test cluster; its SQLAlchemy URL."""
    admin = make_url(postgres_url)
    name = prefix + secrets.token_hex(6)

    async def create() -> None:
        conn = await asyncpg.connect(host=admin.host, port=admin.port, user=admin.username,
                                     database=admin.database)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(create())
    return admin.set(database=name).render_as_string(hide_password=False)


def wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 40.0,
                 path: str = "/health") -> None:
    """Until ``url + path`` answers 200 (the sandbox: ``path="/"``); the process must live.
    One client for every poll: ``httpx.get`` builds a client, and its TLS context, each
    time (26 ms of CPU a poll, taken from the server starting beside it; 0.2 ms reused)."""
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=1.0) as http:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}")
            with contextlib.suppress(httpx.TransportError):
                if http.get(f"{url}{path}").status_code == 200:
                    return
            time.sleep(0.1)
    raise RuntimeError("server did not become healthy")


@contextlib.contextmanager
def running(env: dict[str, str]) -> Iterator[str]:
    """`pacekeeper serve` until healthy, its log discarded (a pipe nobody reads would stall
    the server once full); `serve` below reads and checks the log."""
    url = env["PACEKEEPER_BASE_URL"]
    proc = subprocess.Popen([EXE, "serve"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def stop(proc: subprocess.Popen[bytes], timeout: float = 15.0) -> str:
    """SIGTERM (a graceful stop), a kill once ``timeout`` passes; the output, if piped."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        out = proc.communicate(timeout=timeout)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        out = proc.communicate()[0]
    return (out or b"").decode(errors="replace")


@contextlib.contextmanager
def serve(env: dict[str, str], secrets_to_hide: Iterable[str] = (),
          stop_timeout: float = 15.0) -> Iterator[str]:
    """`pacekeeper serve` until healthy; on exit (SIGTERM, a kill after `stop_timeout`)
    its log must hold no given secret and no traceback (ERR-3)."""
    url = env["PACEKEEPER_BASE_URL"]
    proc = subprocess.Popen([EXE, "serve"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        wait_healthy(url, proc)
        yield url
    finally:
        output = stop(proc, timeout=stop_timeout)
        for secret in secrets_to_hide:
            assert secret not in output
        assert "Traceback" not in output, output[-3000:]
