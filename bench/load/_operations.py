"""The operations of the Locust workload (bench/load/locustfile.py), by the name each is
reported under, in the order the report lists them. bench/load/__main__.py reports every
one, with p50/p99, and says so when one did not run (a short run may miss a rare one)."""

from __future__ import annotations

OPERATIONS = (
    "tool list_activities",
    "tool get_fitness_chart",
    "tool get_power_curve",
    "sign-in",
    "refresh JWT",
    "OAuth refresh",
    "import file",
    "create API key",
    "delete API key",
    "broadcast publish",
    "broadcast received",
    "broadcast cleanup",
)

__all__ = ["OPERATIONS"]
