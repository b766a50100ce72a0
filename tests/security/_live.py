"""A real Pacekeeper on a real socket for the attack tests: uvicorn on a free loopback
port, its own SQLite database, the provider sandbox mounted at /sandbox and reached over
that same socket (the callback URL and the sandbox URL are the server's real address)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.cookiejar import DefaultCookiePolicy
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from cryptography.hazmat.primitives.asymmetric import rsa

from pacekeeper.app import create_app
from pacekeeper.ratelimit import MemoryRateLimiter
from tests._serve import serve
from tests._services import free_port
from tests.pacekeeper.conftest import PASSWORD, make_settings

ADMIN_EMAIL = "root@example.com"


def serve_on(app: Any, port: int, **options: Any) -> Any:
    """tests/_serve.py's server, on a port chosen beforehand (the base URL must be known)."""
    return serve(app, port=port, **options)


@dataclass
class Live:
    url: str

    def client(self) -> httpx.Client:
        """A separate browser: its own cookie jar. Like a browser, it treats loopback as
        a secure context, so `Secure` cookies are sent to http://127.0.0.1 too."""
        client = httpx.Client(base_url=self.url, timeout=30)
        client.cookies.jar.set_policy(
            DefaultCookiePolicy(secure_protocols=("https", "wss", "http"))
        )

        def send_cookies(request: httpx.Request) -> None:
            # httpx copies the jar into one with the default policy for each request.
            client.cookies.set_cookie_header(request)

        client.event_hooks = {"request": [send_cookies]}
        return client

    def register(self, email: str, password: str = PASSWORD) -> tuple[str, str]:
        """(user_id, JWT) of a new user."""
        with self.client() as http:
            response = http.post("/api/auth/register", json={"email": email, "password": password})
        assert response.status_code == 201, response.text
        body = response.json()
        return body["user_id"], body["token"]

    def login(self, browser: httpx.Client, email: str, password: str = PASSWORD) -> httpx.Response:
        response = browser.post("/oauth/token", data={
            "grant_type": "password", "username": email, "password": password})  # fmt: skip
        assert response.status_code == 200, response.text
        return response

    def admin_token(self) -> str:
        with self.client() as http:
            return str(self.login(http, ADMIN_EMAIL).json()["jwt_token"])

    def continue_connect(self, browser: httpx.Client, url: str) -> str:
        """Open our connect page in `browser` and press Continue: the provider's URL."""
        if "/api/oauth/connect/" not in url:
            return url
        page = browser.get(url)
        assert page.status_code == 200, page.text
        form = dict(re.findall(r'name="(state|confirm)" value="([^"]*)"', page.text))
        response = browser.post(urlsplit(url).path, data={**form, "decision": "continue"})
        assert response.status_code == 303, response.text
        return response.headers["location"]

    def approve(self, browser: httpx.Client, provider_url: str, athlete: int = 7) -> str:
        """The sandbox's Approve in `browser`: the callback URL it sends the browser to."""
        response = browser.get(f"{provider_url}&sandbox_auto=approve&sandbox_athlete={athlete}")
        assert response.status_code in (302, 303), response.text
        return response.headers["location"]

    def connect(self, browser: httpx.Client, provider: str, user_id: str, token: str,
                athlete: int = 7) -> httpx.Response:
        """The whole legitimate flow in one browser: start, Continue, approve, callback."""
        start = browser.get(f"/api/oauth/auth/{provider}/{user_id}",
                            headers={"authorization": f"Bearer {token}"})  # fmt: skip
        assert start.status_code == 200, start.text
        url = self.continue_connect(browser, start.json()["authorization_url"])
        return browser.get(self.approve(browser, url, athlete))

    def status(self, token: str) -> dict[str, Any]:
        with self.client() as http:
            response = http.get("/oauth/status", headers={"authorization": f"Bearer {token}"})
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


LiveFactory = Callable[..., Any]


def live_factory(
    tmp_path: Path, keygen: Callable[[int], rsa.RSAPrivateKey]
) -> Callable[..., Any]:
    @contextmanager
    def make(*, uvicorn_options: dict[str, Any] | None = None, **overrides: Any) -> Iterator[Live]:
        port = free_port()
        folder = tmp_path / f"live-{port}"
        folder.mkdir()
        values: dict[str, Any] = {
            "base_url": f"http://127.0.0.1:{port}", "port": port,
            "admin_email": ADMIN_EMAIL, "admin_password": PASSWORD,
        }  # fmt: skip
        values.update(overrides)
        db = values.pop("database_url", f"sqlite+aiosqlite:///{folder / 'pk.db'}")
        settings = make_settings(db, folder, **values)
        app = create_app(settings, keygen=keygen, limiter=MemoryRateLimiter())
        with serve_on(app, port, **(uvicorn_options or {})) as url:
            yield Live(url)

    return make


class Mcp:
    """A minimal MCP client over the real socket (2025-11-25 handshake)."""

    def __init__(self, live: Live, token: str) -> None:
        self.http = live.client()
        self.headers = {"accept": "application/json, text/event-stream",
                        "content-type": "application/json",
                        "authorization": f"Bearer {token}"}  # fmt: skip
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "attack", "version": "1"}}}  # fmt: skip
        response = self.http.post("/mcp", headers=self.headers, json=init)
        assert response.status_code == 200, response.text
        self.headers.update({"mcp-session-id": response.headers["mcp-session-id"],
                             "mcp-protocol-version": "2025-11-25"})  # fmt: skip
        self.ids = 1

    def call(self, name: str, **arguments: Any) -> dict[str, Any]:
        """The tool's result (check `isError`)."""
        self.ids += 1
        body = {"jsonrpc": "2.0", "id": self.ids, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}  # fmt: skip
        response = self.http.post("/mcp", headers=self.headers, json=body)
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()["result"]
        return result

    def close(self) -> None:
        self.http.close()
