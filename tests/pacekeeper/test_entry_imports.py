"""What each entry module loads (issue 30, memory per process): each imported in a fresh
interpreter, which then lists the heavy packages it found in ``sys.modules``."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "scipy", "numba", "sqlalchemy", "pacekeeper.fitness.analytics")


def _loaded_by(module: str) -> set[str]:
    code = ("import importlib, json, sys\n"
            f"importlib.import_module({module!r})\n"
            f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    return set(json.loads(done.stdout))


def test_the_standalone_sandbox_loads_no_analytics_scipy_or_storage():
    # `python -m pacekeeper.providers.sandbox` serves generated provider JSON: it had
    # numpy, scipy, SQLAlchemy and the analytics engine loaded through pacekeeper.fitness.
    # numpy it now uses itself: its athletes' physiology model generates the samples
    # (providers/sandbox/_physiology.py, issue 27 item 15).
    assert _loaded_by("pacekeeper.providers.sandbox.__main__") == {"numpy"}


@pytest.mark.parametrize("module", ["pacekeeper.cli", "pacekeeper.app"])
def test_the_service_starts_without_scipy_or_numba(module):
    # scipy is imported by the analytics functions that call it, on first use.
    loaded = _loaded_by(module)
    assert "scipy" not in loaded and "numba" not in loaded


def test_numba_is_no_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [d.split(">")[0].split("=")[0].split("[")[0].strip().lower()
             for d in project["dependencies"]]
    assert "numba" not in names and "llvmlite" not in names and "scipy" in names


def test_the_fitness_chart_s_load_model_loads_no_scipy():
    # Issue 30: the chart's CTL/ATL filter imported scipy.signal on the first chart
    # request, 1-3 s with the event loop held and ~66 MiB per serving process.
    code = ("import json, sys, numpy as np\n"
            "from pacekeeper.fitness import analytics as an\n"
            "an.ctl_atl_tsb(np.ones(4000)); an.acwr_ewma(np.ones(400))\n"
            "print(json.dumps('scipy' in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert json.loads(done.stdout) is False
