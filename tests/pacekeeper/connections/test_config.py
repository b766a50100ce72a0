"""Provider settings at start-up (PROV-7): env credentials, redirect rules, the dev sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from pacekeeper.app import create_app
from pacekeeper.config import Settings
from pacekeeper.connections import provider_setup
from pacekeeper.providers import ProviderConfigError

KEY = "00" * 32


def _settings(tmp_path: Path, **values: object) -> Settings:
    return Settings(data_dir=tmp_path, master_encryption_key=KEY, **values)  # type: ignore[arg-type]


def test_development_without_credentials_uses_the_sandbox(tmp_path: Path) -> None:
    """PROV-7: no <PROVIDER>_* variables in development: all three point at /sandbox."""
    setup = provider_setup(_settings(tmp_path), {})
    assert setup.sandbox is True
    assert sorted(setup.settings) == ["fitbit", "garmin", "strava"]
    strava = setup.settings["strava"]
    assert strava.endpoints.authorize == "http://127.0.0.1:8080/sandbox/strava/oauth/authorize"
    assert strava.redirect_uri == "http://127.0.0.1:8080/api/oauth/callback/strava"
    routes = [getattr(r, "path", "") for r in create_app(_settings(tmp_path)).routes]
    assert "/sandbox" in routes


def test_env_credentials_are_used(tmp_path: Path) -> None:
    """PROV-7: <PROVIDER>_CLIENT_ID, _CLIENT_SECRET, _REDIRECT_URI configure the real API."""
    env = {"STRAVA_CLIENT_ID": "42", "STRAVA_CLIENT_SECRET": "s",
           "STRAVA_REDIRECT_URI": "https://pk.example/api/oauth/callback/strava"}  # fmt: skip
    setup = provider_setup(_settings(tmp_path, env="production"), env)
    assert list(setup.settings) == ["strava"] and setup.sandbox is False
    assert setup.settings["strava"].endpoints.authorize.startswith("https://www.strava.com/")


@pytest.mark.parametrize(
    "uri",
    ["http://pk.example/api/oauth/callback/fitbit", "ftp://localhost/cb",
     "https://pk.example/cb#frag"],
)  # fmt: skip
def test_bad_redirect_uri_refuses_start_up(
    tmp_path: Path, uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PROV-7: http only for localhost/127.0.0.1; the app does not even build otherwise."""
    env = {"FITBIT_CLIENT_ID": "id", "FITBIT_CLIENT_SECRET": "s", "FITBIT_REDIRECT_URI": uri}
    with pytest.raises(ProviderConfigError, match="redirect URI"):
        provider_setup(_settings(tmp_path), env)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ProviderConfigError):
        create_app(_settings(tmp_path))


def test_local_http_redirect_is_allowed(tmp_path: Path) -> None:
    """PROV-7: http://localhost and http://127.0.0.1 are fine for development."""
    for host in ("localhost", "127.0.0.1"):
        env = {"GARMIN_CLIENT_ID": "id", "GARMIN_CLIENT_SECRET": "s",
               "GARMIN_REDIRECT_URI": f"http://{host}:8080/api/oauth/callback/garmin"}  # fmt: skip
        assert provider_setup(_settings(tmp_path), env).settings["garmin"].client_id == "id"


def test_partial_credentials_name_the_missing_variable(tmp_path: Path) -> None:
    """PROV-7: half a configuration is an error naming what is missing, not a silent sandbox."""
    with pytest.raises(ProviderConfigError, match="STRAVA_CLIENT_SECRET"):
        provider_setup(_settings(tmp_path), {"STRAVA_CLIENT_ID": "42"})


def test_production_never_mounts_the_sandbox(tmp_path: Path) -> None:
    """Production without credentials: no sandbox, the provider is simply not configured."""
    setup = provider_setup(_settings(tmp_path, env="production"), {})
    assert setup.settings == {} and setup.sandbox is False


def test_sandbox_on_a_non_local_http_base_url_says_what_to_set(tmp_path: Path) -> None:
    """PROV-7: binding 0.0.0.0 without a base URL would give an http callback off
    localhost; start-up refuses and names PACEKEEPER_BASE_URL."""
    with pytest.raises(ProviderConfigError, match="PACEKEEPER_BASE_URL"):
        provider_setup(_settings(tmp_path, host="0.0.0.0"), {})  # noqa: S104
