"""Provider settings from the environment (PROV-7) and the sandbox switch."""

from __future__ import annotations

import pytest

from pacekeeper.providers import (
    DEFAULT_ENDPOINTS,
    ProviderConfigError,
    ProviderSettings,
    TokenSet,
    check_redirect_uri,
    client_for,
)

ENV = {
    "STRAVA_CLIENT_ID": "123",
    "STRAVA_CLIENT_SECRET": "shh",
    "STRAVA_REDIRECT_URI": "https://fit.example/api/oauth/callback/strava",
}


def test_settings_come_from_provider_env_vars() -> None:
    """PROV-7: <PROVIDER>_CLIENT_ID, _CLIENT_SECRET, _REDIRECT_URI."""
    settings = ProviderSettings.from_env("strava", ENV)
    assert settings.client_id == "123"
    assert settings.redirect_uri == ENV["STRAVA_REDIRECT_URI"]
    assert settings.endpoints == DEFAULT_ENDPOINTS["strava"]
    assert "shh" not in repr(settings)


def test_missing_settings_are_named() -> None:
    with pytest.raises(ProviderConfigError, match="FITBIT_CLIENT_ID"):
        ProviderSettings.from_env("fitbit", {})
    env = {
        "POLAR_CLIENT_ID": "1",
        "POLAR_CLIENT_SECRET": "2",
        "POLAR_REDIRECT_URI": "https://x.example/cb",
    }
    with pytest.raises(ProviderConfigError, match="unknown provider"):
        ProviderSettings.from_env("polar", env)


@pytest.mark.parametrize(
    "uri",
    [
        "http://fit.example/cb",
        "http://127.0.0.2/cb",
        "ftp://localhost/cb",
        "https://fit.example/cb#frag",
        "/relative/cb",
    ],
)
def test_unsafe_redirect_uris_are_refused(uri: str) -> None:
    """PROV-7: http only for localhost/127.0.0.1; production callbacks are https."""
    with pytest.raises(ProviderConfigError):
        check_redirect_uri("strava", uri)
    with pytest.raises(ProviderConfigError):
        ProviderSettings.from_env("strava", {**ENV, "STRAVA_REDIRECT_URI": uri})


@pytest.mark.parametrize(
    "uri", ["http://localhost:8000/cb", "http://127.0.0.1/cb", "https://fit.example/cb"]
)
def test_allowed_redirect_uris(uri: str) -> None:
    """PROV-7"""
    check_redirect_uri("strava", uri)


def test_sandbox_base_url_switch() -> None:
    settings = ProviderSettings.from_env(
        "strava", {**ENV, "PACEKEEPER_PROVIDER_BASE_URL": "http://127.0.0.1:8765/sandbox"}
    )
    assert settings.endpoints.api == "http://127.0.0.1:8765/sandbox/strava/api/v3"
    assert settings.endpoints.exchange == "http://127.0.0.1:8765/sandbox/strava/oauth/token"


def test_token_set_round_trip_hides_secrets() -> None:
    tokens = TokenSet(access_token="a", refresh_token="r", expires_at=10.0, token_secret="s")
    assert TokenSet.from_dict(tokens.to_dict()) == tokens
    assert "'a'" not in repr(tokens)
    assert "'r'" not in repr(tokens)
    assert tokens.expires_within(5, now=6)
    assert not tokens.expires_within(3, now=6)


async def test_client_for_returns_protocol_implementations() -> None:
    import httpx

    from pacekeeper.providers import ProviderClient

    async with httpx.AsyncClient() as http:
        for provider in ("strava", "fitbit", "garmin"):
            settings = ProviderSettings.for_sandbox(provider, "http://127.0.0.1")
            assert isinstance(client_for(provider, settings, http), ProviderClient)
        with pytest.raises(ProviderConfigError):
            client_for("polar", ProviderSettings.for_sandbox("strava", "http://x"), http)


def test_token_set_sealed_at_rest() -> None:
    """PROV-5: the whole TokenSet is one AES-256-GCM envelope bound to tenant/user/provider."""
    import os

    from pacekeeper.crypto import DecryptionError, MasterKeyring, TokenCipher, TokenContext
    from pacekeeper.providers import open_token_set, seal_token_set

    cipher = TokenCipher(MasterKeyring.single(os.urandom(32)))
    ctx = TokenContext("tenant", "user", "garmin")
    tokens = TokenSet(access_token="acc-123", token_secret="sec-456", token_type="OAuth1")
    envelope = seal_token_set(cipher, tokens, ctx)
    assert "acc-123" not in envelope
    assert "sec-456" not in envelope
    assert open_token_set(cipher, envelope, ctx) == tokens
    with pytest.raises(DecryptionError):
        open_token_set(cipher, envelope, TokenContext("tenant", "user", "strava"))
