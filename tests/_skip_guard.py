"""A skipped test must be a decision, not an accident (issue 20, test hygiene).

A missing Node, schemathesis, wrk or oracle venv used to turn a whole suite into "s"
characters and a green run. With `PACEKEEPER_STRICT_SKIPS=1` (exported by
./scripts/test) a run fails, exit status 1, when any test or module was skipped for a
reason not in `ALLOWED_SKIPS`, and the summary lists each one. Without the variable
(a developer's targeted `pytest` run) skips are reported as usual and change nothing.

Loaded by `tests/conftest.py` and `bench/tests/conftest.py` (`pytest_plugins`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

STRICT_ENV = "PACEKEEPER_STRICT_SKIPS"

# (node id prefix, text the skip reason must contain): the skips that are by design.
ALLOWED_SKIPS: tuple[tuple[str, str], ...] = (
    # The memory backend counts per process; the test is about Redis sharing one quota.
    (
        "tests/pacekeeper/apikeys/test_quota_window.py::"
        "test_two_counters_share_one_quota_only_with_redis[",
        "memory counters are per process by design",
    ),
)


@dataclass(frozen=True, slots=True)
class Skip:
    nodeid: str
    reason: str


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def allowed(skip: Skip) -> bool:
    return any(
        skip.nodeid.startswith(prefix) and text in skip.reason for prefix, text in ALLOWED_SKIPS
    )


class SkipGuard:
    def __init__(self, strict: bool) -> None:
        self.strict = strict
        self.unexpected: list[Skip] = []

    def note(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        if not report.skipped or hasattr(report, "wasxfail"):
            return
        skip = Skip(report.nodeid, skip_reason(report))
        if not allowed(skip):
            self.unexpected.append(skip)

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.note(report)

    @pytest.hookimpl
    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self.note(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # A run that failed otherwise keeps its status; "all skipped" (no tests) fails too.
        quiet = (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
        if self.strict and self.unexpected and session.exitstatus in quiet:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not (self.strict and self.unexpected):
            return
        terminalreporter.section("unexpected skips", sep="=", red=True, bold=True)
        for skip in self.unexpected:
            terminalreporter.line(f"SKIPPED {skip.nodeid}: {skip.reason}")
        terminalreporter.line(
            f"{len(self.unexpected)} unexpected skip(s) with {STRICT_ENV}=1: install what "
            "the suite needs (./scripts/test does), or add a by-design skip to "
            "ALLOWED_SKIPS in tests/_skip_guard.py"
        )


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("pacekeeper-skip-guard"):
        strict = os.environ.get(STRICT_ENV) == "1"
        config.pluginmanager.register(SkipGuard(strict), "pacekeeper-skip-guard")
