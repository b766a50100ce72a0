"""``mcpcast run --access-log / --no-access-log`` (and ``MCPCAST_ACCESS_LOG``) reach uvicorn."""

from __future__ import annotations

from typing import Any

import pytest

from mcpcast import cli


@pytest.mark.parametrize(("argv", "env", "expected"), [
    ([], None, True),
    (["--no-access-log"], None, False),
    ([], "0", False),
    (["--access-log"], "off", True),
])
def test_access_log_switch(monkeypatch: pytest.MonkeyPatch, argv: list[str],
                           env: str | None, expected: bool) -> None:
    seen: dict[str, Any] = {}

    def run(self: cli.GracefulUvicorn) -> None:
        seen["access_log"] = self.config.access_log

    monkeypatch.setattr(cli.GracefulUvicorn, "run", run)
    monkeypatch.setattr(cli.gc, "freeze", lambda: None)
    if env is None:
        monkeypatch.delenv(cli.ACCESS_LOG_ENV, raising=False)
    else:
        monkeypatch.setenv(cli.ACCESS_LOG_ENV, env)
    assert cli.main(["run", "tests.mcpcast.fixtures:Fixture", *argv]) == 0
    assert seen["access_log"] is expected
