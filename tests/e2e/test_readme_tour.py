"""The README's five-minute tour of the service, run as written against a real process.

The shell and Python blocks are read from README.md (only the address is changed to the
test server's, and the lines that need a person or files of their own are left out:
`./scripts/run` itself, the browser consent, the CLI import of placeholder files), so the
tour cannot drift from what the service does. What the tour promises is then checked
against independent values: the imported ride's IF is its NP over the FTP the tour set.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests._services import free_port
from tests.e2e._connect import connect_without_browser
from tests.e2e._service_process import serve, service_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
DROPPED = ("./scripts/run", "pacekeeper import --email")  # a person's own terminal and files


def _tour_blocks() -> list[tuple[str, str]]:
    text = (ROOT / "README.md").read_text()
    tour = text.split("## A five-minute tour of the service", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(bash|python)\n(.*?)```", tour, flags=re.S)


def _runnable(block: str, server: str) -> str:
    lines = [line for line in block.splitlines() if not any(d in line for d in DROPPED)]
    return "\n".join(lines).replace("http://127.0.0.1:8080", server).replace(
        "localhost:8080", server)


def _json_values(text: str) -> list[dict[str, Any]]:
    decoder, values, at = json.JSONDecoder(), [], 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        value, at = decoder.raw_decode(text, at)
        values.append(value)
    return values


def test_the_service_tour_runs_as_written(tmp_path: Path) -> None:
    blocks = _tour_blocks()
    assert [kind for kind, _ in blocks[:3]] == ["bash", "python", "bash"], blocks
    (_, sign_up), (_, client), (_, training) = blocks[:3]
    port = free_port()
    env = service_env(tmp_path / "data", port)
    with serve(env) as server:
        # 1. Register and take a token, exactly as the README does it.
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", _runnable(sign_up, server) + '\necho "$TOKEN"'],
            capture_output=True, text=True, timeout=60, check=True)
        registered, end = json.JSONDecoder().raw_decode(done.stdout)  # then the token
        token = done.stdout[end:].strip()
        assert registered["email"] == "ada@example.com" and token.count(".") == 2

        # 2. The official SDK client from the README: whoami and a connect link.
        script = tmp_path / "tour.py"
        script.write_text(_runnable(client, server))
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              timeout=60, env={**os.environ, "TOKEN": token}, check=True)
        who, link = done.stdout.splitlines()[-2:]
        assert f"'user_id': '{registered['user_id']}'" in who
        assert link.startswith(f"{server}/api/oauth/connect/strava?state=")

        # 3. The person approves in a browser (the e2e browser tests prove that page);
        # here the same steps over HTTP, then the training block as written.
        connect_without_browser(server, token, registered["user_id"], "strava", 7)
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", _runnable(training, server)], cwd=ROOT,
            capture_output=True, text=True, timeout=60, env={**os.environ, "TOKEN": token},
            check=True)
        answers = _json_values(done.stdout)  # curl -s prints the bodies back to back
        assert not [a for a in answers if "error" in a], answers
        imported = next(a for a in answers if a.get("status") == "imported")
        ftp = next(a for a in answers if "settings" in a)["settings"]["ftp_watts"]

        person = {"authorization": f"Bearer {token}"}
        ride = httpx.get(f"{server}/api/activities/{imported['activity']['id']}",
                         headers=person, timeout=30).json()
        # "201: NP, TSS, IF": the FTP the tour set covers the sample ride's date.
        assert ride["normalized_power"] > 0 and ride["tss"] > 0
        assert ride["intensity_factor"] == pytest.approx(ride["normalized_power"] / ftp)


def test_the_mcpcast_tour_runs_as_written(tmp_path: Path) -> None:
    text = (ROOT / "README.md").read_text()
    tour = text.split("## A five-minute tour of mcpcast", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(bash|python)\n(.*?)```", tour, flags=re.S)
    assert [kind for kind, _ in blocks[:3]] == ["python", "bash", "python"], blocks
    (_, server_code), (_, command), (_, client) = blocks[:3]
    (tmp_path / "tour.py").write_text(server_code)
    port = free_port()
    argv = command.strip().replace(".venv/bin/mcpcast", str(Path(sys.executable).parent / "mcpcast"))
    proc = subprocess.Popen(argv.replace("--port 8000", f"--port {port}").split(),
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        script = tmp_path / "client.py"
        script.write_text(client.replace("127.0.0.1:8000", f"127.0.0.1:{port}"))
        for _ in range(100):  # until the server listens
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.1)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              timeout=60, check=True)
        # What the README's comment promises, and 52 / 10 by hand.
        assert done.stdout.strip() == "{'result': 5.2}" == repr({"result": 52 / 10})
    finally:
        proc.terminate()
        proc.wait(timeout=10)
