"""Fails a ./scripts/test run on a skip that is not by design (tests/_skip_guard.py)."""

pytest_plugins = ["tests._skip_guard"]
