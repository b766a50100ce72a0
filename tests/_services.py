"""Real services for tests: throwaway Redis and PostgreSQL servers on loopback.

`scripts/test` installs the Debian packages; these helpers start a private server in a
temporary directory, hand back its URL, and stop it afterwards. Nothing is assumed to be
running already. Import the fixtures from ``tests/conftest.py``.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PG_BIN = Path(os.environ.get("PACEKEEPER_PG_BIN", "/usr/lib/postgresql/15/bin"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_port_block(span: int) -> int:
    """The first of ``span`` consecutive free loopback ports (a cluster's layout:
    ``scripts/cluster`` puts nginx, the processes, PostgreSQL and Redis at fixed offsets)."""
    for _ in range(50):
        base = random.randrange(20000, 40000)
        try:
            for port in range(base, base + span):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise RuntimeError("no free block of ports")


def _wait_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listening on 127.0.0.1:{port} after {timeout}s")


@contextmanager
def redis_server() -> Iterator[str]:
    """Start `redis-server` on a free loopback port; yield ``redis://127.0.0.1:PORT/0``."""
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("redis-server is not installed: run ./scripts/test, which installs it")
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="pk-redis-")
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", workdir],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


def _as_postgres_user() -> list[str]:
    # PostgreSQL refuses to run as root; run its tools as the 'postgres' system user
    # (created by the Debian package) when we are root.
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


@contextmanager
def postgres_server(port: int | None = None) -> Iterator[str]:
    """Start a throwaway PostgreSQL cluster (on `port`, else a free one); yield an asyncpg
    SQLAlchemy URL."""
    if not (PG_BIN / "initdb").exists():
        raise RuntimeError("PostgreSQL is not installed: run ./scripts/test, which installs it")
    port = port or free_port()
    workdir = Path(tempfile.mkdtemp(prefix="pk-pg-"))
    data = workdir / "data"
    prefix = _as_postgres_user()
    if prefix:
        shutil.chown(workdir, user="postgres")
    subprocess.run(
        [*prefix, str(PG_BIN / "initdb"), "-D", str(data), "-U", "pacekeeper", "--auth=trust",
         "-E", "UTF8", "--no-sync"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    opts = f"-c listen_addresses=127.0.0.1 -p {port} -k {workdir} -c fsync=off -c max_connections=200"
    subprocess.run(
        [*prefix, str(PG_BIN / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(workdir / "log"),
         "-w", "start"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(port)
        yield f"postgresql+asyncpg://pacekeeper@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*prefix, str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        shutil.rmtree(workdir, ignore_errors=True)
