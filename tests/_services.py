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


class RedisServer:
    """A private `redis-server` (no persistence) that a fault test may restart: the same
    port, its data gone, as after a crash."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise RuntimeError("redis-server is not installed: run ./scripts/test, which "
                               "installs it")
        self.exe = exe
        self.port = free_port()
        self.workdir = tempfile.mkdtemp(prefix="pk-redis-")
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.workdir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port)
        return proc

    def down(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)

    def up(self) -> None:
        self.proc = self._start()

    def restart(self, down_s: float = 1.0) -> None:
        self.down()
        time.sleep(down_s)
        self.up()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.workdir, ignore_errors=True)


@contextmanager
def restartable_redis() -> Iterator[RedisServer]:
    server = RedisServer()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def redis_server() -> Iterator[str]:
    """Start `redis-server` on a free loopback port; yield ``redis://127.0.0.1:PORT/0``."""
    with restartable_redis() as server:
        yield server.url


def _as_postgres_user() -> list[str]:
    # PostgreSQL refuses to run as root; run its tools as the 'postgres' system user
    # (created by the Debian package) when we are root.
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


class PostgresServer:
    """A throwaway PostgreSQL cluster (on `port`, else a free one) that a fault test may
    restart (`pg_ctl stop -m fast`, as a service manager does)."""

    def __init__(self, port: int | None = None) -> None:
        if not (PG_BIN / "initdb").exists():
            raise RuntimeError("PostgreSQL is not installed: run ./scripts/test, which "
                               "installs it")
        self.port = port or free_port()
        self.workdir = Path(tempfile.mkdtemp(prefix="pk-pg-"))
        self.data = self.workdir / "data"
        self.prefix = _as_postgres_user()
        if self.prefix:
            shutil.chown(self.workdir, user="postgres")
        subprocess.run(
            [*self.prefix, str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "pacekeeper",
             "--auth=trust", "-E", "UTF8", "--no-sync"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        self.url = f"postgresql+asyncpg://pacekeeper@127.0.0.1:{self.port}/postgres"
        self.start()

    def _ctl(self, *args: str, check: bool = True) -> None:
        subprocess.run([*self.prefix, str(PG_BIN / "pg_ctl"), "-D", str(self.data), *args],
                       check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def start(self) -> None:
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.workdir} "
                "-c fsync=off -c max_connections=200")
        self._ctl("-o", opts, "-l", str(self.workdir / "log"), "-w", "start")
        _wait_port(self.port)

    def down(self) -> None:
        self._ctl("-m", "fast", "-w", "stop")

    def up(self) -> None:
        self.start()

    def restart(self, down_s: float = 1.0) -> None:
        self.down()
        time.sleep(down_s)
        self.up()

    def stop(self) -> None:
        self._ctl("-m", "immediate", "stop", check=False)
        shutil.rmtree(self.workdir, ignore_errors=True)


@contextmanager
def restartable_postgres(port: int | None = None) -> Iterator[PostgresServer]:
    server = PostgresServer(port)
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def postgres_server(port: int | None = None) -> Iterator[str]:
    """Start a throwaway PostgreSQL cluster (on `port`, else a free one); yield an asyncpg
    SQLAlchemy URL."""
    with restartable_postgres(port) as server:
        yield server.url
