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
    loaded = _loaded_by(module)
    assert "scipy" not in loaded and "numba" not in loaded


def _names(requirements: list[str]) -> set[str]:
    return {d.split(">")[0].split("=")[0].split("[")[0].strip().lower() for d in requirements}


def test_numba_and_scipy_are_no_runtime_dependency():
    # scipy is the analytics' test oracle only (fitness/analytics/_stats.py says why).
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = _names(project["dependencies"])
    assert not names & {"numba", "llvmlite", "scipy"}
    assert "scipy" in _names(project["optional-dependencies"]["dev"])


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


def test_the_analytics_that_used_scipy_load_none():
    # Issue 30 (LOOP-1): the critical power fits, the trend's p-value, the race-time root and
    # W' balance (2012) each imported a part of scipy on first use in a serving process:
    # 0.4-0.9 s with the event loop held and 51-78 MiB resident (docs/performance.md).
    code = ("import json, sys, numpy as np\n"
            "from pacekeeper.fitness import analytics as an\n"
            "t = np.array([1., 5., 30., 60., 180., 300., 600., 1200.])\n"
            "p = np.asarray(an.morton_power(t, 250., 20000., 1000.))\n"
            "an.critical_power_2p(t, p); an.critical_power_3p(t, p)\n"
            "an.trend(np.arange(30.)); an.race_time_for_vdot(50., 10000.)\n"
            "an.w_prime_balance_skiba2012(np.full(600, 300.), 250., 20000.)\n"
            "print(json.dumps('scipy' in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert json.loads(done.stdout) is False
