"""The skip guard (tests/_skip_guard.py): under PACEKEEPER_STRICT_SKIPS=1 a skip that is
not by design fails the run; a by-design skip, an xfail or a non-strict run does not."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

QUOTA_TEST = """
import pytest

@pytest.mark.parametrize("backend", ["memory", "redis"])
def test_two_counters_share_one_quota_only_with_redis(backend):
    if backend == "memory":
        pytest.skip("memory counters are per process by design")
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest('pytest_plugins = ["tests._skip_guard"]\n')
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


def test_an_unexpected_skip_fails_a_strict_run(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PACEKEEPER_STRICT_SKIPS", "1")
    suite.makepyfile(test_suite="""
        import shutil, pytest

        def test_runs():
            pass

        @pytest.mark.skipif(True, reason="schemathesis is not installed")
        def test_fuzz():
            pass
    """)
    result = suite.runpytest()
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "*unexpected skips*",
        "SKIPPED test_suite.py::test_fuzz: schemathesis is not installed",
    ])


def test_a_module_skipped_at_collection_fails_a_strict_run(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PACEKEEPER_STRICT_SKIPS", "1")
    suite.makepyfile(test_node="""
        import pytest
        pytest.importorskip("no_such_module_for_the_guard")

        def test_never():
            pass
    """)
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["SKIPPED test_node.py: *no_such_module_for_the_guard*"])


def test_without_the_variable_a_skip_changes_nothing(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PACEKEEPER_STRICT_SKIPS", raising=False)
    suite.makepyfile(test_suite="""
        import pytest

        def test_skipped():
            pytest.skip("Node 22 missing")
    """)
    result = suite.runpytest()
    result.assert_outcomes(skipped=1)
    assert result.ret == pytest.ExitCode.OK
    assert "unexpected skips" not in result.stdout.str()


def test_by_design_skips_and_xfails_pass_a_strict_run(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PACEKEEPER_STRICT_SKIPS", "1")
    suite.mkdir("tests")
    (suite.path / "tests" / "pacekeeper" / "apikeys").mkdir(parents=True)
    (suite.path / "tests/pacekeeper/apikeys/test_quota_window.py").write_text(QUOTA_TEST)
    suite.makepyfile(test_xfail="""
        import pytest

        @pytest.mark.xfail(reason="known")
        def test_known():
            assert False
    """)
    result = suite.runpytest()
    result.assert_outcomes(passed=1, skipped=1, xfailed=1)
    assert result.ret == pytest.ExitCode.OK


def test_the_same_reason_elsewhere_is_not_by_design(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The allow-list names the test, not only the reason."""
    monkeypatch.setenv("PACEKEEPER_STRICT_SKIPS", "1")
    suite.makepyfile(test_other=QUOTA_TEST)
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_failures_keep_their_own_status(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PACEKEEPER_STRICT_SKIPS", "1")
    suite.makepyfile(test_suite="""
        import pytest

        def test_fails():
            assert False

        def test_skipped():
            pytest.skip("wrk not installed")
    """)
    result = suite.runpytest()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
