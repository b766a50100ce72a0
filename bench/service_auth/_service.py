"""The Pacekeeper service under uvicorn (uvloop, httptools, one worker, pinned), configured
through its environment, and the client side of a session with it: register a user over
HTTP, log in a number of times (timed: Argon2id-bound), open an MCP session for the legacy
era, and verify that ``whoami`` answers for that user before any load."""

from __future__ import annotations

import base64
import contextlib
import os
import re
import secrets
import sqlite3
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench.mcp_throughput import BenchRequest, Era, ServerSpec
from bench.mcp_throughput._servers import ServerFailed, _wait_listening, free_port, uvicorn_command

from ._requests import MCP_PATH, check_whoami, initialize_body, whoami_request

# A fixed, throw-away master key: the data directory is deleted after the run.
MASTER_KEY = base64.b64encode(bytes(range(32))).decode()
PASSWORD = "bench-password-1"  # a benchmark user in a temporary database
FACTORY = "pacekeeper.app:create_app"
# The same service with each credential resolved once (bench/service_auth/_pinned.py).
PINNED_FACTORY = "bench.service_auth._pinned:create_app"
PINNED = "pacekeeper-pinned"  # + "-<bits>"


def pacekeeper_spec(bits: int, *, pinned: bool = False) -> ServerSpec:
    if pinned:
        return ServerSpec(f"{PINNED}-{bits}", f"pacekeeper pinned, RS256-{bits}", PINNED_FACTORY,
                          "pacekeeper.app:create_app", "pacekeeper")
    return ServerSpec(
        f"pacekeeper-{bits}",
        f"pacekeeper RS256-{bits}",
        FACTORY,
        "pacekeeper.app:create_app",
        "pacekeeper",
    )


def service_env(data_dir: Path, port: int, bits: int) -> dict[str, str]:
    """The settings the service is started with (docs/service.md names each variable)."""
    return {
        "PACEKEEPER_DATA_DIR": str(data_dir),  # SQLite at <dir>/pacekeeper.db
        "PACEKEEPER_REGISTRATION": "open",
        "SERVICE_MASTER_ENCRYPTION_KEY": MASTER_KEY,
        "PACEKEEPER_JWT_RSA_KEY_BITS": str(bits),
        # High enough that the tenant bucket never throttles the load (a 429 would count).
        "PACEKEEPER_TENANT_RATE_LIMIT_PER_MINUTE": str(10**9),
        # The timed logins (20 by default) are one account from one address: above the
        # login limits (5 and 30 a minute), which are not what this measures.
        "PACEKEEPER_LOGIN_LIMIT_PER_ACCOUNT": "1000",
        "PACEKEEPER_LOGIN_LIMIT_PER_ADDRESS": "1000",
        "PACEKEEPER_HOST": "127.0.0.1",
        "PACEKEEPER_PORT": str(port),
        "PACEKEEPER_BASE_URL": f"http://127.0.0.1:{port}",  # Host/Origin checks pass
        "PACEKEEPER_REDIS_URL": "",
    }


@dataclass
class RunningService:
    """A started service plus the logged-in user the load runs as."""

    process: subprocess.Popen[bytes]
    port: int
    data_dir: Path
    email: str = ""
    token: str = ""
    session_id: str = ""
    login_ms: list[float] = field(default_factory=list)
    argon2: str = ""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return self.base + MCP_PATH

    def alive(self) -> bool:
        return self.process.poll() is None

    def request(self, era: Era) -> BenchRequest:
        return whoami_request(era, self.token, self.session_id if era == "legacy" else None)

    def verify(self, era: Era) -> None:
        """One real authenticated call before any load: whoami must name our user."""
        req = self.request(era)
        try:
            r = httpx.post(self.url, content=req.body, headers=req.headers, timeout=10.0)
        except httpx.HTTPError as exc:
            raise ServerFailed(f"verification request failed: {exc!r}") from exc
        problem = check_whoami(
            era, r.status_code, r.headers.get("content-type", ""), r.content, self.email
        )
        if problem is not None:
            raise ServerFailed(f"wrong answer to tools/call whoami: {problem}")

    def sign_in(self, logins: int) -> None:
        """Register over HTTP, log in ``logins`` times (timed), open a legacy MCP session."""
        self.email = f"bench-{secrets.token_hex(4)}@example.com"
        with httpx.Client(base_url=self.base, timeout=30.0) as client:
            r = client.post("/api/auth/register", json={"email": self.email, "password": PASSWORD})
            if r.status_code != 201:
                raise ServerFailed(f"register: HTTP {r.status_code}: {r.text[:200]}")
            form = {"grant_type": "password", "username": self.email, "password": PASSWORD}
            for _ in range(max(1, logins)):
                started = time.perf_counter()
                r = client.post("/oauth/token", data=form)
                self.login_ms.append((time.perf_counter() - started) * 1000)
                if r.status_code != 200:
                    raise ServerFailed(f"login: HTTP {r.status_code}: {r.text[:200]}")
            self.token = r.json()["jwt_token"]
            accept = {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            }
            r = client.post(MCP_PATH, content=initialize_body(), headers=accept)
            self.session_id = r.headers.get("mcp-session-id", "")
            if r.status_code != 200 or not self.session_id:
                raise ServerFailed(f"initialize: HTTP {r.status_code}: {r.text[:200]}")
        self.argon2 = stored_hash_parameters(self.data_dir / "pacekeeper.db", self.email)

    @property
    def login_p50_ms(self) -> float:
        return statistics.median(self.login_ms) if self.login_ms else 0.0


def stored_hash_parameters(db: Path, email: str) -> str:
    """The parameters in force, read from the user's stored hash (``argon2id m=..,t=..,p=..``)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        row = conn.execute("SELECT password_hash FROM users WHERE email = ?", (email,)).fetchone()
    if row is None:
        return "?"
    found = re.match(r"^\$(argon2\w+)\$v=\d+\$(m=\d+,t=\d+,p=\d+)\$", row[0])
    return f"{found.group(1)} {found.group(2)}" if found else row[0].split("$")[1]


@contextlib.contextmanager
def serve_service(bits: int, *, cpu: str | None, log_dir: Path,
                  factory: str = FACTORY) -> Iterator[RunningService]:
    """Start ``factory()`` under uvicorn with a fresh SQLite data directory; stop it on exit."""
    port = free_port()
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"pacekeeper-{bits}{'-pinned' if factory != FACTORY else ''}.log"
    cmd = uvicorn_command(factory, port, cpu=cpu, lifespan="on")
    with tempfile.TemporaryDirectory(prefix="service-auth-") as tmp:
        data_dir = Path(tmp)
        env = {**os.environ, **service_env(data_dir, port, bits)}
        with log_path.open("wb") as log:
            process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            # RSA key generation and migrations at start-up: 4096-bit keys take a while.
            _wait_listening(process, port, log_path, timeout=120.0)
            yield RunningService(process, port, data_dir)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
