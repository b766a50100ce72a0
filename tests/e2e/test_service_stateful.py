"""Schemathesis' stateful phase against the live service: sequences of operations chained
through the OpenAPI links of /openapi.json (create a key -> delete it, import or list
activities -> read, stream, delete them, start a sync -> its state), with every check on,
and each response body read back from its report (ERR-1, ERR-3)."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e._fuzz_target import (
    BACKENDS,
    Target,
    assert_clean_text,
    assert_healthy_afterwards,
    backend_env,
    fuzz_target,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]
ST = str(Path(sys.executable).parent / "schemathesis")
# The run repeats its sequences until this budget is spent (on SQLite; the second
# backend gets its share, Target.budget).
SECONDS = 60


def _body(response: dict[str, Any]) -> str:
    content = response.get("content") or response.get("body") or ""
    if isinstance(content, dict) and "$base64" in content:
        return base64.b64decode(content["$base64"]).decode(errors="replace")
    return str(content)


def _interactions(report_dir: Path) -> Iterator[tuple[str, str, bool, int, str]]:
    """(method, path template, reached through a link, status, body) of every call."""
    for report in report_dir.glob("*.ndjson"):
        for line in report.read_text().splitlines():
            finished = json.loads(line).get("ScenarioFinished")
            if not finished:
                continue
            recorder = finished["recorder"]
            cases = recorder.get("cases", {})
            for case_id, interaction in recorder.get("interactions", {}).items():
                response = interaction.get("response") or {}
                case = cases.get(case_id, {})
                yield (interaction["request"]["method"], case.get("value", {}).get("path", ""),
                       bool(case.get("is_transition_applied")),
                       int(response.get("status_code") or 0), _body(response))


@pytest.fixture(params=BACKENDS)
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    with fuzz_target(tmp_path, backend=request.param,
                     backing=backend_env(request, request.param)) as live:
        yield live


@pytest.mark.skipif(shutil.which(ST) is None and not Path(ST).exists(),
                    reason="schemathesis is not installed")
def test_stateful_sequences_find_no_failures(target: Target, tmp_path: Path) -> None:
    """No 5xx, documented statuses and shapes, schema-violating input refused, and link
    chains really run. Sign-up, sign-in and logout are left out: each swaps or ends the
    identity the rest of the sequence runs as (the stateless run covers them)."""
    reports = tmp_path / "reports"
    done = subprocess.run(
        [ST, "run", f"{target.url}/openapi.json", "--phases", "stateful",
         "--checks", "all", "--exclude-checks", "positive_data_acceptance",
         "--max-time", str(target.budget(SECONDS)), "--request-timeout", "30",
         # The bearer token given stays the identity: no made-up cookie or header.
         "--generation-with-security-parameters", "false",
         "--exclude-path-regex", "^/api/auth/(logout|login|register)$",
         "-H", f"Authorization: Bearer {target.token}",
         "--report", "ndjson", "--report-dir", str(reports)],
        capture_output=True, timeout=600, check=False, cwd=tmp_path,
    )
    output = done.stdout.decode(errors="replace")
    assert done.returncode == 0, output[-6000:]

    calls = list(_interactions(reports))
    assert len(calls) > target.budget(500), output[-2000:]
    assert not [c[:4] for c in calls if c[3] >= 500]
    for method, path, _, status, body in calls:
        assert_clean_text(body, (target.token,), f"{method} {path} -> {status}")
    # The links were followed to a success: a created key deleted, an activity reached.
    chained = Counter((m, p) for m, p, linked, status, _ in calls if linked and status < 300)
    assert chained[("DELETE", "/api/keys/{key_id}")] >= 1, chained
    assert sum(n for (_, path), n in chained.items() if "{activity_id}" in path) >= 1, chained
    assert_healthy_afterwards(target)
