"""The broadcast benchmark still runs (``python -m bench.broadcast --quick``): both
servers, every subscriber opened, every fan-out message received (DECL-6).

Only that it works and measures something is asserted here, never how fast.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bench.broadcast", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)


def test_quick_mode_measures_both_servers(tmp_path: Path) -> None:
    """DECL-6: every subscriber of the fan-out topic receives every broadcast."""
    out = tmp_path / "figures.json"
    result = run_bench("--quick", "--json", str(out))
    assert result.returncode == 0, result.stderr[-2000:]
    figures = json.loads(out.read_text())["results"]
    assert set(figures) == {"mcpcast", "starlette"}
    for kind, transports in (("mcpcast", {"ws", "sse", "all"}), ("starlette", {"ws", "all"})):
        r = figures[kind]
        assert (r["opened"], r["missing"], r["errors"]) == (1000, 0, [])
        assert set(r["memory_kib"]) == transports
        assert all(v > 0 for v in r["memory_kib"].values())
        assert len(r["fanout_ms"]) == 3 and all(t > 0 for t in r["fanout_ms"])
    assert "| idle memory per subscriber, all (KiB) |" in result.stdout


def test_bad_arguments_are_refused_before_anything_starts() -> None:
    result = run_bench("--runs", "0")
    assert result.returncode == 2
    assert "at least" in result.stderr
