"""Resident memory and time of the first analytics calls that once imported scipy
(docs/performance.md, "No scipy in the serving process"):
``PYTHONPATH=src python -m bench.analytics._first_calls``, in a fresh process."""

from __future__ import annotations

import importlib
import time

import numpy as np


def _resident_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def main() -> None:
    importlib.import_module("pacekeeper.app")  # what a serving process has loaded
    from pacekeeper.fitness import analytics as an

    before, started = _resident_mib(), time.perf_counter()
    t = np.array([1.0, 5.0, 30.0, 60.0, 180.0, 300.0, 600.0, 1200.0])
    p = np.asarray(an.morton_power(t, 250.0, 20000.0, 1000.0)) * (1 + 0.01 * np.sin(t))
    an.critical_power_2p(t, p)
    an.critical_power_3p(t, p)
    an.trend(np.arange(30.0) + np.sin(np.arange(30.0)))
    an.race_time_for_vdot(50.0, 10000.0)
    an.w_prime_balance_skiba2012(np.full(600, 300.0), 250.0, 20000.0)
    took = time.perf_counter() - started
    after = _resident_mib()
    print(f"after import pacekeeper.app {before:.0f} MiB; after the first calls {after:.0f}"
          f" MiB (+{after - before:.0f}); the calls took {1000 * took:.0f} ms")


if __name__ == "__main__":
    main()
