"""The sweat oracle (GoldenCheetah's Python) run in its own venv as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[4]
SCRIPT = Path(__file__).with_name("_sweat_oracle.py")


def oracle_python() -> Path | None:
    for candidate in (
        os.environ.get("PACEKEEPER_ORACLE_PYTHON"),
        ROOT / ".tools" / "oracle-venv" / "bin" / "python",
        Path("/work/main/.tools/oracle-venv/bin/python"),
    ):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def run_sweat(power: list[float], cp: float, w_prime: float, skiba: bool = True) -> dict[str, Any]:
    """sweat's answers for one power stream; skips (or fails under scripts/test) without it."""
    python = oracle_python()
    if python is None:
        message = "the sweat oracle venv (.tools/oracle-venv) is missing: run ./scripts/test"
        if os.environ.get("PACEKEEPER_REQUIRE_ORACLES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    request = json.dumps({"power": power, "cp": cp, "w_prime": w_prime, "skiba": skiba})
    done = subprocess.run(  # noqa: S603 - our own script in our own venv
        [str(python), str(SCRIPT)],
        input=request,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(done.stdout)
